"""A GApplication that sends GNotifications, as GTK apps do (GLib's freedesktop backend, since
no org.gtk.Notifications is on the bus): `gnotification_client.py APP_ID`. Reads commands on
standard input — `send ID TITLE PRIORITY` (priority: low, normal, high, urgent) and `withdraw ID`
— and prints `sent ID` or `withdrawn ID`, then `activated ACTION` for each action the
notification server (or GNOME Shell, for the GTK door) invokes on it."""

import sys

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

# Unique: it owns its app ID on the bus, where GNOME Shell activates its actions.
app = Gio.Application(application_id=sys.argv[1], flags=Gio.ApplicationFlags.FLAGS_NONE)


def on_action(action, parameter):
    print("activated %s" % action.get_name(), flush=True)


for name in ("ack", "open"):
    action = Gio.SimpleAction.new(name, None)
    action.connect("activate", on_action)
    app.add_action(action)


def on_input(channel, condition):
    line = channel.readline()
    if not line:
        app.quit()
        return False
    words = line.strip().split(" ", 2)
    if words[0] == "withdraw":
        app.withdraw_notification(words[1])
        print("withdrawn %s" % words[1], flush=True)
        return True
    _send, ident, rest = words
    title, priority = rest.rsplit(" ", 1)
    notification = Gio.Notification.new(title)
    notification.set_body("from a GNotification")
    notification.set_priority(getattr(Gio.NotificationPriority, priority.upper()))
    notification.set_default_action("app.open")
    notification.add_button("Acknowledge", "app.ack")
    app.send_notification(ident, notification)
    print("sent %s" % ident, flush=True)
    return True


def on_activate(_app):
    app.hold()
    GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, on_input)


app.connect("activate", on_activate)
app.run([])
