#!/usr/bin/python3
"""A recording fake notification daemon for FocusBridge's integration tests.

Run with Debian's /usr/bin/python3 (it needs python3-gi):

    /usr/bin/python3 fake_daemon.py [--address ADDRESS] [--capabilities a,b,c]
        [--delay SECONDS] [--blocking] [--signal-style unicast|broadcast]
        [--name NAME] [--allow-replacement] [--first-id N]

It connects to the bus at ADDRESS (default: $DBUS_SESSION_BUS_ADDRESS), owns NAME
(default org.freedesktop.Notifications) and serves:

* /org/freedesktop/Notifications, org.freedesktop.Notifications: Notify records every
  call with all arguments, typed (GLib.Variant.print_(True) of each hint, plus the raw
  bytes of every image hint); IDs start at --first-id (1000) so they differ from the
  bridge's; replaces_id of a live notification is honoured. CloseNotification records
  and emits NotificationClosed(id, 3) to the caller (or broadcast, per the signal style).
* /org/freedesktop/Notifications, org.dunstproject.cmd0: a dunstctl-like vendor
  interface (methods Ping, Echo, EchoVariant, Fail, NotificationCloseAll; properties
  paused (rw), displayedLength, version; signal FakeVendorSignal).
* /fr/emersion/Mako, fr.emersion.Mako: a makoctl-like interface on another object path.
* /org/focusbridge/Test, org.focusbridge.Test.FakeDaemon: the test-control interface
  (interfaces/org.focusbridge.Test.FakeDaemon.xml).

When the name is owned it prints "READY <unique-name>" on stdout. It exits 0 on SIGTERM
and when it loses the name (like dunst and friends), printing "NAME-LOST" first.
"""

import argparse
import base64
import json
import os
import signal
import sys
import time
from pathlib import Path

import gi

gi.require_version("Gio", "2.0")
gi.require_version("GLib", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

NOTIF_PATH = "/org/freedesktop/Notifications"
NOTIF_IFACE = "org.freedesktop.Notifications"
DUNST_IFACE = "org.dunstproject.cmd0"
MAKO_PATH = "/fr/emersion/Mako"
MAKO_IFACE = "fr.emersion.Mako"
TEST_PATH = "/org/focusbridge/Test"
TEST_IFACE = "org.focusbridge.Test.FakeDaemon"

DEFAULT_CAPS = [
    "actions", "body", "body-markup", "body-hyperlinks", "icon-static",
    "persistence", "inline-reply", "x-fake-daemon",
]

HERE = Path(__file__).resolve().parent
# The standard interface exactly as the bridge serves it (the repository's dbus/ folder); the fake
# daemon's own interfaces beside this file.
NOTIF_XML = (HERE.parent.parent.parent / "dbus" / "org.freedesktop.Notifications.xml").read_text()
VENDOR_XML = (HERE / "interfaces" / "org.dunstproject.cmd0.xml").read_text()
MAKO_XML = (HERE / "interfaces" / "fr.emersion.Mako.xml").read_text()
CONTROL_XML = (HERE / "interfaces" / "org.focusbridge.Test.FakeDaemon.xml").read_text()


def guarded(handler):
    """A bug in a handler answers the call with an error (and a traceback on stderr)
    instead of leaving the caller to time out."""

    def wrapper(self, conn, sender, path, iface, method, params, invocation):
        try:
            handler(self, conn, sender, path, iface, method, params, invocation)
        except Exception as exc:  # noqa: BLE001
            import traceback
            traceback.print_exc()
            invocation.return_dbus_error("org.focusbridge.Test.Error.FakeDaemonBug", repr(exc))

    return wrapper


IMAGE_TYPE = "(iiibiiay)"
IMAGE_HINTS = ("image-data", "image_data", "icon_data")


class FakeDaemon:
    def __init__(self, args):
        self.args = args
        self.caps = list(args.capabilities) if args.capabilities is not None else list(DEFAULT_CAPS)
        self.delay = args.delay
        self.blocking = args.blocking
        self.style = args.signal_style
        self.next_id = args.first_id
        self.live = {}  # daemon id -> {"sender", "summary", "app_name", "body"}
        self.calls = []
        self.seq = 0
        self.watchers = set()
        self.outstanding = 0
        self.max_outstanding = 0
        self.notify_count = 0
        self.paused = False
        self.loop = GLib.MainLoop()
        self.conn = Gio.DBusConnection.new_for_address_sync(
            args.address,
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
            | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None,
            None,
        )
        self.conn.set_exit_on_close(False)
        self.conn.connect("closed", lambda *a: self.quit(3))

        notif_node = Gio.DBusNodeInfo.new_for_xml(NOTIF_XML)
        vendor_node = Gio.DBusNodeInfo.new_for_xml(VENDOR_XML)
        mako_node = Gio.DBusNodeInfo.new_for_xml(MAKO_XML)
        control_node = Gio.DBusNodeInfo.new_for_xml(CONTROL_XML)
        def serve():
            self.conn.register_object(NOTIF_PATH, notif_node.interfaces[0], self.on_notif_call, None, None)
            self.conn.register_object(
                NOTIF_PATH, vendor_node.interfaces[0], self.on_dunst_call, self.on_dunst_get, self.on_dunst_set
            )
        # --serve-later plays a shell whose name appears before its notification object does
        self.serve = serve
        if not args.serve_later:
            serve()
        self.conn.register_object(MAKO_PATH, mako_node.interfaces[0], self.on_mako_call, None, None)
        self.conn.register_object(TEST_PATH, control_node.interfaces[0], self.on_control_call, None, None)
        self.conn.signal_subscribe(
            "org.freedesktop.DBus", "org.freedesktop.DBus", "NameLost", "/org/freedesktop/DBus",
            args.name, Gio.DBusSignalFlags.NONE, self.on_name_lost,
        )

        flags = 4  # DO_NOT_QUEUE, so we exit like the real daemons do
        if args.allow_replacement:
            flags |= 1
        reply = self.conn.call_sync(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
            GLib.Variant("(su)", (args.name, flags)), GLib.VariantType("(u)"),
            Gio.DBusCallFlags.NONE, 5000, None,
        )
        (code,) = reply.unpack()
        if code not in (1, 4):  # PRIMARY_OWNER, ALREADY_OWNER
            print("NAME-TAKEN %d" % code, flush=True)
            sys.exit(1)
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, self.on_sigterm)
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGINT, self.on_sigterm)
        print("READY %s" % self.conn.get_unique_name(), flush=True)

    # ---------------------------------------------------------------- helpers
    exit_code = 0

    def quit(self, code=0):
        self.exit_code = code
        self.loop.quit()
        return False

    def on_sigterm(self):
        self.quit(0)
        return False

    def on_name_lost(self, *args):
        print("NAME-LOST", flush=True)
        self.quit(0)

    def record(self, entry):
        self.seq += 1
        entry["seq"] = self.seq
        entry["time"] = time.monotonic()
        self.calls.append(entry)
        if self.watchers:
            payload = GLib.Variant("(s)", (json.dumps(entry),))
            for w in list(self.watchers):
                try:
                    self.conn.emit_signal(w, TEST_PATH, TEST_IFACE, "Called", payload)
                except GLib.Error:
                    self.watchers.discard(w)

    def emit(self, name, daemon_id, params, style):
        style = style or self.style
        if style == "broadcast":
            dest = None
        else:
            info = self.live.get(daemon_id)
            dest = info["sender"] if info else self.last_sender
            if dest is None:
                return
        self.conn.emit_signal(dest, NOTIF_PATH, NOTIF_IFACE, name, params)

    last_sender = None

    # --------------------------------------------- org.freedesktop.Notifications
    @guarded
    def on_notif_call(self, conn, sender, path, iface, method, params, invocation):
        if method == "Notify":
            self.handle_notify(sender, params, invocation)
        elif method == "CloseNotification":
            (did,) = params.unpack()
            known = did in self.live
            self.record({"method": "CloseNotification", "sender": sender, "id": did, "known": known})
            if known:
                self.emit("NotificationClosed", did, GLib.Variant("(uu)", (did, 3)), "")
                self.live.pop(did, None)
            invocation.return_value(None)
        elif method == "GetCapabilities":
            self.record({"method": "GetCapabilities", "sender": sender})
            invocation.return_value(GLib.Variant("(as)", (self.caps,)))
        elif method == "GetServerInformation":
            self.record({"method": "GetServerInformation", "sender": sender})
            invocation.return_value(GLib.Variant("(ssss)", ("FakeDaemon", "FocusBridgeTests", "1.0", "1.2")))
        else:  # pragma: no cover - GDBus rejects unknown methods itself
            invocation.return_dbus_error("org.freedesktop.DBus.Error.UnknownMethod", method)

    def handle_notify(self, sender, params, invocation):
        app_name = params.get_child_value(0).get_string()
        replaces_id = params.get_child_value(1).get_uint32()
        app_icon = params.get_child_value(2).get_string()
        summary = params.get_child_value(3).get_string()
        body = params.get_child_value(4).get_string()
        actions = list(params.get_child_value(5).get_strv())
        hints_v = params.get_child_value(6)
        expire = params.get_child_value(7).get_int32()
        hints, hint_types, images = {}, {}, {}
        for i in range(hints_v.n_children()):
            entry = hints_v.get_child_value(i)
            key = entry.get_child_value(0).get_string()
            value = entry.get_child_value(1).get_variant()
            hints[key] = value.print_(True)
            hint_types[key] = value.get_type_string()
            if value.get_type_string() == IMAGE_TYPE:
                w, h, rs, alpha, bps, ch = (value.get_child_value(j).unpack() for j in range(6))
                data = value.get_child_value(6).get_data_as_bytes().get_data()
                images[key] = {
                    "width": w, "height": h, "rowstride": rs, "has_alpha": alpha,
                    "bits_per_sample": bps, "channels": ch,
                    "data_b64": base64.b64encode(bytes(data)).decode("ascii"),
                }
        if replaces_id and replaces_id in self.live:
            did = replaces_id
        else:
            did = self.next_id
            self.next_id += 1
        self.live[did] = {"sender": sender, "summary": summary, "app_name": app_name, "body": body}
        self.last_sender = sender
        self.notify_count += 1
        self.outstanding += 1
        self.max_outstanding = max(self.max_outstanding, self.outstanding)
        self.record({
            "method": "Notify", "sender": sender, "daemon_id": did, "app_name": app_name,
            "replaces_id": replaces_id, "app_icon": app_icon, "summary": summary, "body": body,
            "actions": actions, "hints": hints, "hint_types": hint_types, "images": images,
            "expire_timeout": expire, "outstanding": self.outstanding,
        })

        def answer():
            self.outstanding -= 1
            invocation.return_value(GLib.Variant("(u)", (did,)))
            return False

        if self.delay > 0 and self.blocking:
            time.sleep(self.delay)
            answer()
        elif self.delay > 0:
            GLib.timeout_add(int(self.delay * 1000), answer)
        else:
            answer()

    # ---------------------------------------------------- org.dunstproject.cmd0
    @guarded
    def on_dunst_call(self, conn, sender, path, iface, method, params, invocation):
        args = params.unpack() if params is not None else ()
        self.record({"method": "%s.%s" % (iface, method), "sender": sender, "path": path,
                     "args": params.print_(True) if params is not None else "()"})
        if method == "Ping":
            invocation.return_value(None)
        elif method == "Echo":
            invocation.return_value(GLib.Variant("(s)", ("fake:" + args[0],)))
        elif method == "EchoVariant":
            invocation.return_value(GLib.Variant("(v)", (params.get_child_value(0).get_variant(),)))
        elif method == "Fail":
            invocation.return_dbus_error("org.dunstproject.cmd0.Error.Fake", "fake failure as requested")
        elif method == "NotificationCloseAll":
            for did in list(self.live):
                self.emit("NotificationClosed", did, GLib.Variant("(uu)", (did, 2)), "")
            self.live.clear()
            invocation.return_value(None)
        else:  # pragma: no cover
            invocation.return_dbus_error("org.freedesktop.DBus.Error.UnknownMethod", method)

    def on_dunst_get(self, conn, sender, path, iface, prop):
        self.record({"method": "Get", "sender": sender, "path": path, "interface": iface, "property": prop})
        if prop == "paused":
            return GLib.Variant("b", self.paused)
        if prop == "displayedLength":
            return GLib.Variant("u", len(self.live))
        if prop == "version":
            return GLib.Variant("s", "fake-1.0")
        return None

    def on_dunst_set(self, conn, sender, path, iface, prop, value):
        self.record({"method": "Set", "sender": sender, "path": path, "interface": iface,
                     "property": prop, "value": value.print_(True)})
        if prop == "paused":
            self.paused = value.get_boolean()
            conn.emit_signal(
                None, NOTIF_PATH, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                GLib.Variant("(sa{sv}as)", (DUNST_IFACE, {"paused": GLib.Variant("b", self.paused)}, [])),
            )
            return True
        return False

    # -------------------------------------------------------- fr.emersion.Mako
    @guarded
    def on_mako_call(self, conn, sender, path, iface, method, params, invocation):
        self.record({"method": "%s.%s" % (iface, method), "sender": sender, "path": path})
        if method == "ListNotifications":
            items = []
            for did, info in sorted(self.live.items()):
                items.append({
                    "id": GLib.Variant("u", did),
                    "summary": GLib.Variant("s", info["summary"]),
                    "app-name": GLib.Variant("s", info["app_name"]),
                })
            invocation.return_value(GLib.Variant("(aa{sv})", (items,)))
        elif method == "DismissAllNotifications":
            for did in list(self.live):
                self.emit("NotificationClosed", did, GLib.Variant("(uu)", (did, 2)), "")
            self.live.clear()
            invocation.return_value(None)

    # -------------------------------------------- org.focusbridge.Test.FakeDaemon
    @guarded
    def on_control_call(self, conn, sender, path, iface, method, params, invocation):
        a = params.unpack() if params is not None else ()
        if method == "GetCalls":
            invocation.return_value(GLib.Variant("(s)", (json.dumps(self.calls),)))
            return
        if method == "Serve":
            self.serve()
        elif method == "ClearCalls":
            self.calls = []
        elif method == "GetStats":
            stats = {"max_outstanding": self.max_outstanding, "outstanding": self.outstanding,
                     "notify_count": self.notify_count, "live": sorted(self.live),
                     "capabilities": self.caps, "delay": self.delay, "blocking": self.blocking,
                     "style": self.style, "pid": os.getpid()}
            invocation.return_value(GLib.Variant("(s)", (json.dumps(stats),)))
            return
        elif method == "SetDelay":
            self.delay, self.blocking = a
        elif method == "SetCapabilities":
            self.caps = list(a[0])
        elif method == "SetSignalStyle":
            if a[0] not in ("unicast", "broadcast"):
                invocation.return_dbus_error("org.focusbridge.Test.Error", "bad style %r" % a[0])
                return
            self.style = a[0]
        elif method == "EmitActionInvoked":
            did, key, token, style = a
            if token:
                self.emit("ActivationToken", did, GLib.Variant("(us)", (did, token)), style)
            self.emit("ActionInvoked", did, GLib.Variant("(us)", (did, key)), style)
        elif method == "EmitActivationToken":
            did, token, style = a
            self.emit("ActivationToken", did, GLib.Variant("(us)", (did, token)), style)
        elif method == "EmitNotificationClosed":
            did, reason, style = a
            self.emit("NotificationClosed", did, GLib.Variant("(uu)", (did, reason)), style)
            self.live.pop(did, None)
        elif method == "EmitNotificationReplied":
            did, text, style = a
            self.emit("NotificationReplied", did, GLib.Variant("(us)", (did, text)), style)
        elif method == "EmitVendorSignal":
            conn.emit_signal(None, NOTIF_PATH, DUNST_IFACE, "FakeVendorSignal", GLib.Variant("(s)", (a[0],)))
        elif method == "Watch":
            self.watchers.add(sender)
        elif method == "GetPid":
            invocation.return_value(GLib.Variant("(u)", (os.getpid(),)))
            return
        invocation.return_value(None)

    def run(self):
        self.loop.run()
        try:
            self.conn.flush_sync(None)
        except GLib.Error:
            pass
        return self.exit_code


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # Without --address: the session bus of the environment, as a real daemon (so the bridge
    # can run it again on its private bus: --replace, test_auto_mode.py).
    p.add_argument("--address", default=os.environ.get("DBUS_SESSION_BUS_ADDRESS"))
    p.add_argument("--name", default="org.freedesktop.Notifications")
    p.add_argument("--capabilities", type=lambda s: [c for c in s.split(",") if c], default=None)
    p.add_argument("--delay", type=float, default=0.0)
    p.add_argument("--blocking", action="store_true")
    p.add_argument("--signal-style", choices=("unicast", "broadcast"), default="unicast")
    p.add_argument("--allow-replacement", action="store_true")
    p.add_argument("--first-id", type=int, default=1000)
    p.add_argument("--serve-later", action="store_true")
    args = p.parse_args()
    if not args.address:
        p.error("no bus: give --address or set DBUS_SESSION_BUS_ADDRESS")
    sys.exit(FakeDaemon(args).run())


if __name__ == "__main__":
    main()
