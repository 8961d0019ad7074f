"""The D-Bus names, object paths and interfaces the tests talk to."""

NOTIF_NAME = "org.freedesktop.Notifications"
NOTIF_PATH = "/org/freedesktop/Notifications"
NOTIF_IFACE = "org.freedesktop.Notifications"
CONTROL_NAME = "org.focusbridge.FocusBridge"
CONTROL_PATH = "/org/focusbridge/FocusBridge"
CONTROL_IFACE = "org.focusbridge.Control1"
FAKE_PATH = "/org/focusbridge/Test"          # fake_daemon.py's test-control object
FAKE_IFACE = "org.focusbridge.Test.FakeDaemon"
DBUS_NAME = "org.freedesktop.DBus"
DBUS_PATH = "/org/freedesktop/DBus"
