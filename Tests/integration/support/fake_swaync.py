#!/usr/bin/python3
"""A fake swaync: one connection owning org.freedesktop.Notifications and
org.erikreider.swaync.cc, like swaync. Broadcasts its signals, like swaync (test_passthrough_names.py).

    fake_swaync.py ADDRESS
"""
import sys
from pathlib import Path

import gi
gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib

NOTIF = (Path(__file__).resolve().parents[3] / "dbus" / "org.freedesktop.Notifications.xml").read_text()
CC = """<node><interface name="org.erikreider.swaync.cc">
  <method name="GetDnd"><arg direction="out" type="b"/></method>
  <method name="SetDnd"><arg direction="in" type="b"/></method>
  <method name="ToggleDnd"><arg direction="out" type="b"/></method>
  <method name="NotificationCount"><arg direction="out" type="u"/></method>
  <method name="CloseAllNotifications"/>
  <signal name="SubscribeV2"><arg type="u"/><arg type="b"/><arg type="b"/><arg type="b"/></signal>
</interface></node>"""

conn = Gio.DBusConnection.new_for_address_sync(
    sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
    | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
state = {"dnd": False, "live": [], "next": 500}

def subscribe():
    conn.emit_signal(None, "/org/erikreider/swaync/cc", "org.erikreider.swaync.cc", "SubscribeV2",
                     GLib.Variant("(ubbb)", (len(state["live"]), state["dnd"], False, False)))

def on_notif(c, sender, path, iface, method, params, inv):
    if method == "Notify":
        nid = state["next"]; state["next"] += 1
        state["live"].append(nid)
        inv.return_value(GLib.Variant("(u)", (nid,)))
        subscribe()
    elif method == "CloseNotification":
        inv.return_value(None)
    elif method == "GetCapabilities":
        inv.return_value(GLib.Variant("(as)", (["actions", "body", "x-swaync"],)))
    else:
        inv.return_value(GLib.Variant("(ssss)", ("swaync", "fake", "0", "1.2")))

def on_cc(c, sender, path, iface, method, params, inv):
    if method == "GetDnd":
        inv.return_value(GLib.Variant("(b)", (state["dnd"],)))
    elif method == "SetDnd":
        state["dnd"] = params.unpack()[0]
        inv.return_value(None)
        subscribe()
    elif method == "ToggleDnd":
        state["dnd"] = not state["dnd"]
        inv.return_value(GLib.Variant("(b)", (state["dnd"],)))
        subscribe()
    elif method == "NotificationCount":
        inv.return_value(GLib.Variant("(u)", (len(state["live"]),)))
    elif method == "CloseAllNotifications":
        for nid in state["live"]:
            conn.emit_signal(None, "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                             "NotificationClosed", GLib.Variant("(uu)", (nid, 2)))
        state["live"] = []
        inv.return_value(None)
        subscribe()

conn.register_object("/org/freedesktop/Notifications",
                     Gio.DBusNodeInfo.new_for_xml(NOTIF).interfaces[0], on_notif, None, None)
conn.register_object("/org/erikreider/swaync/cc", Gio.DBusNodeInfo.new_for_xml(CC).interfaces[0],
                     on_cc, None, None)
for name in ("org.freedesktop.Notifications", "org.erikreider.swaync.cc"):
    code = conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                          "RequestName", GLib.Variant("(su)", (name, 4)), GLib.VariantType("(u)"),
                          Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
    if code != 1:
        print("NAME-TAKEN", name, flush=True)
        sys.exit(1)
loop = GLib.MainLoop()
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 15, lambda: loop.quit() or False)
print("READY", conn.get_unique_name(), flush=True)
loop.run()
