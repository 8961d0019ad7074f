#!/usr/bin/python3
"""A session service: answers, refuses, holds calls until released, emits signals.
Owns the names given after the address; prints READY when it has them (test_session_relay.py).

    fake_session_service.py ADDRESS|- NAME...     (-: the bus that activated it)
"""
import sys
import gi
gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib

XML = """<node><interface name="org.example.SessionService">
  <method name="Echo"><arg direction="in" type="s"/><arg direction="out" type="s"/></method>
  <method name="Fail"><arg direction="in" type="s"/></method>
  <method name="Caller"><arg direction="out" type="s"/></method>
  <method name="Emit"><arg direction="in" type="s"/></method>
  <method name="Hold"><arg direction="out" type="s"/></method>
  <method name="Release"><arg direction="out" type="u"/></method>
  <method name="Held"><arg direction="out" type="u"/></method>
  <method name="ReadFd"><arg direction="in" type="h"/><arg direction="out" type="s"/></method>
  <signal name="Changed"><arg type="s"/></signal>
  <property name="Mood" type="s" access="read"/>
</interface></node>"""

address = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] != "-" else None
conn = (Gio.DBusConnection.new_for_address_sync(
    address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
    | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
    if address else Gio.bus_get_sync(Gio.BusType.STARTER, None))
held = []

def on_call(c, sender, path, iface, method, params, inv):
    if method == "Echo":
        inv.return_value(GLib.Variant("(s)", ("session%s:%s" % (path[len("/org/example/SessionService"):],
                                                                params.unpack()[0]),)))
    elif method == "Fail":
        inv.return_dbus_error("org.example.SessionService.Error.Refused", "refused: " + params.unpack()[0])
    elif method == "Caller":
        inv.return_value(GLib.Variant("(s)", (sender,)))
    elif method == "Emit":
        conn.emit_signal(None, path, "org.example.SessionService", "Changed",
                         GLib.Variant("(s)", (params.unpack()[0],)))
        inv.return_value(None)
    elif method == "Hold":
        held.append(inv)
    elif method == "ReadFd":
        import os
        fd = inv.get_message().get_unix_fd_list().get(params.unpack()[0])
        with os.fdopen(fd) as f:
            inv.return_value(GLib.Variant("(s)", (f.read(),)))
    elif method == "Held":
        inv.return_value(GLib.Variant("(u)", (len(held),)))
    elif method == "Release":
        n = len(held)
        for h in held:
            h.return_value(GLib.Variant("(s)", ("released",)))
        del held[:]
        inv.return_value(GLib.Variant("(u)", (n,)))

def get_property(c, sender, path, iface, prop):
    return GLib.Variant("s", "calm")

info = Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0]
for path in ("/org/example/SessionService", "/org/example/SessionService/sub"):
    conn.register_object(path, info, on_call, get_property, None)
for name in sys.argv[2:]:
    r = conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                       "RequestName", GLib.Variant("(su)", (name, 4)), GLib.VariantType("(u)"),
                       Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
    assert r == 1, (name, r)
print("READY", conn.get_unique_name(), flush=True)
GLib.MainLoop().run()
