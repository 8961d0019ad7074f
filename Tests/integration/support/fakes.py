"""Stand-ins the tests control: the recording fake notification daemon and a fake screen saver.

* ``fake_daemon``          fake_daemon.py (a separate process) on ``daemon_bus``, owning
                           org.freedesktop.Notifications; ``FakeDaemon`` is the test's handle on it:
                           what it recorded (``notifies``, ``wait_notify``, ``wait_call``), and what
                           it is told to do (delays, capabilities, signals);
* ``fake_daemon_factory``  more of them (``make(*args, bus=None, name=NOTIF_NAME)``);
* ``SPAWN_FAKE``           the spawn-mode command that runs fake_daemon.py on the bridge's private
                           bus; ``SpawnedFakes`` watches the instances the bridge runs there;
* ``screensaver_factory``  an org.freedesktop.ScreenSaver served by the test (``FakeScreenSaver``).
"""

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from gi.repository import Gio, GLib

from support.buses import bus_call, connect
from support.names import DBUS_NAME, DBUS_PATH, FAKE_IFACE, FAKE_PATH, NOTIF_IFACE, NOTIF_NAME, NOTIF_PATH
from support.processes import FAKE_DAEMON, PYTHON, SUPPORT, LineReader
from support.reports import attach_log
from support.waiting import pump_until, wait_until

# The spawn-mode daemon command: the fake daemon on whatever bus the bridge gives it
# (fake_daemon.py connects to $DBUS_SESSION_BUS_ADDRESS without --address).
SPAWN_FAKE = [PYTHON, FAKE_DAEMON]


# --------------------------------------------------------------------------- the fake daemon
class FakeDaemon:
    def __init__(self, bus, procs, logdir, args=(), name=NOTIF_NAME, node=None):
        self.bus = bus
        self.name = name
        self.log = Path(logdir) / ("fake-daemon-%d.log" % time.monotonic_ns())
        argv = [PYTHON, FAKE_DAEMON, "--address", bus.address, "--name", name, *args]
        self.proc = procs.spawn(argv, stdout=subprocess.PIPE, stderr=open(self.log, "ab"))
        self.pid = self.proc.pid
        self.out = LineReader(self.proc.stdout)
        line = self.out.wait_for(lambda l: l.startswith(("READY", "NAME-TAKEN")), 15)
        if not line or not line.startswith("READY"):
            self.proc.kill()
            raise RuntimeError("fake daemon did not start (%r): %s" % (line, self.log.read_text()))
        self.unique_name = line.split()[1]
        self.ctl = connect(bus.address)
        self.events = []
        self._seqs = set()
        self.ctl.signal_subscribe(self.unique_name, FAKE_IFACE, "Called", FAKE_PATH, None,
                                  Gio.DBusSignalFlags.NONE, self._on_called)
        self._call("Watch")
        # whatever was recorded before Watch (the bridge may be quicker than us) is not
        # signalled: fetch it once; later calls arrive as Called signals (deduplicated by seq)
        for entry in self.calls():
            self._add_event(entry)
        self.events.sort(key=lambda e: e["seq"])
        if node is not None:
            attach_log(node, "fake daemon stderr", self.log)

    def _add_event(self, entry):
        if entry["seq"] not in self._seqs:
            self._seqs.add(entry["seq"])
            self.events.append(entry)

    def _on_called(self, _c, _s, _p, _i, _m, params):
        self._add_event(json.loads(params.unpack()[0]))

    def _call(self, method, params=None, reply_type=None, timeout_ms=15000):
        reply = self.ctl.call_sync(self.unique_name, FAKE_PATH, FAKE_IFACE, method, params,
                                   GLib.VariantType(reply_type) if reply_type else None,
                                   Gio.DBusCallFlags.NONE, timeout_ms, None)
        return reply.unpack() if reply is not None else None

    # -- recorded calls --------------------------------------------------------
    def calls(self, method=None):
        all_calls = json.loads(self._call("GetCalls", None, "(s)")[0])
        return [c for c in all_calls if method is None or c["method"] == method]

    def notifies(self):
        return self.calls("Notify")

    def clear(self):
        self._call("ClearCalls")
        self.events = []

    def stats(self):
        return json.loads(self._call("GetStats", None, "(s)")[0])

    def seen(self, method=None, **match):
        return [e for e in self.events
                if (method is None or e["method"] == method)
                and all(e.get(k) == v for k, v in match.items())]

    def wait_call(self, method, timeout=5.0, count=1, **match):
        """Wait (main loop, bounded) until `count` calls of `method` matching `match`
        were recorded; returns the last of them."""
        found = pump_until(lambda: len(self.seen(method, **match)) >= count and self.seen(method, **match), timeout)
        if not found:
            raise AssertionError("fake daemon: %d× %s %r not received within %.1f s; got %r" % (
                count, method, match, timeout,
                [(e["method"], e.get("summary", e.get("id"))) for e in self.events][-20:]))
        return found[count - 1]

    def wait_notify(self, summary, timeout=5.0, **match):
        return self.wait_call("Notify", timeout, summary=summary, **match)

    # -- control ---------------------------------------------------------------
    def set_delay(self, seconds, blocking=True):
        self._call("SetDelay", GLib.Variant("(db)", (seconds, blocking)))

    def set_capabilities(self, caps):
        self._call("SetCapabilities", GLib.Variant("(as)", (list(caps),)))

    def set_style(self, style):
        self._call("SetSignalStyle", GLib.Variant("(s)", (style,)))

    def action(self, did, key, token="", style=""):
        self._call("EmitActionInvoked", GLib.Variant("(usss)", (did, key, token, style)))

    def activation_token(self, did, token, style=""):
        self._call("EmitActivationToken", GLib.Variant("(uss)", (did, token, style)))

    def closed(self, did, reason=2, style=""):
        self._call("EmitNotificationClosed", GLib.Variant("(uus)", (did, reason, style)))

    def replied(self, did, text, style=""):
        self._call("EmitNotificationReplied", GLib.Variant("(uss)", (did, text, style)))

    def vendor_signal(self, text):
        self._call("EmitVendorSignal", GLib.Variant("(s)", (text,)))

    # -- lifetime --------------------------------------------------------------
    def alive(self):
        return self.proc.poll() is None

    def stop(self, sig=signal.SIGTERM, timeout=1.5):
        """SIGTERM; a fake daemon blocked in a delay gets SIGKILL after `timeout`."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        try:
            self.ctl.close_sync(None)
        except GLib.Error:
            pass
        return self.proc.returncode

    def kill(self):
        return self.stop(signal.SIGKILL)


@pytest.fixture
def fake_daemon_factory(daemon_bus, procs, tmp_path, request):
    made = []

    def make(*args, bus=None, name=NOTIF_NAME):
        fd = FakeDaemon(bus or daemon_bus, procs, tmp_path, args, name=name, node=request.node)
        made.append(fd)
        return fd

    yield make
    for fd in made:
        fd.stop()


@pytest.fixture
def fake_daemon(fake_daemon_factory):
    return fake_daemon_factory()


# --------------------------------------------------------------------------- spawn mode
class SpawnedFakes:
    """The fake daemons a spawn-mode bridge runs on its private bus, instance by instance.

    Every owner of org.freedesktop.Notifications there is an instance: it is asked to Watch
    (its later calls arrive as Called signals, which survive its death) and for the calls it
    recorded before. `instances` lists {"name", "pid", "events", "watched"} in order of
    appearance."""

    def __init__(self, address):
        self.address = address
        self.conn = connect(address)
        self.instances = []
        self._by_name = {}
        self._seqs = {}
        self.conn.signal_subscribe(None, FAKE_IFACE, "Called", FAKE_PATH, None, Gio.DBusSignalFlags.NONE,
                                   self._on_called)
        owner = self._owner()
        if owner:
            self._adopt(owner)

    def _owner(self):
        try:
            return self.conn.call_sync(DBUS_NAME, DBUS_PATH, "org.freedesktop.DBus", "GetNameOwner",
                                       GLib.Variant("(s)", (NOTIF_NAME,)), GLib.VariantType("(s)"),
                                       Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        except GLib.Error:
            return None

    def _on_called(self, _c, sender, _p, _i, _m, params):
        self._add(sender, json.loads(params.unpack()[0]))

    def _add(self, name, entry):
        inst = self._by_name.get(name)
        if inst is None:
            inst = {"name": name, "pid": None, "events": [], "watched": False}
            self._by_name[name] = inst
            self.instances.append(inst)
            self._seqs[name] = set()
        if entry is not None and entry["seq"] not in self._seqs[name]:
            self._seqs[name].add(entry["seq"])
            inst["events"].append(entry)
        return inst

    def _call(self, name, method, reply_type=None):
        return self.conn.call_sync(name, FAKE_PATH, FAKE_IFACE, method, None,
                                   GLib.VariantType(reply_type) if reply_type else None,
                                   Gio.DBusCallFlags.NONE, 10000, None)

    def _adopt(self, name):
        inst = self._add(name, None)
        if inst["watched"]:
            return inst
        pid = self.conn.call_sync(DBUS_NAME, DBUS_PATH, "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                                  GLib.Variant("(s)", (name,)), GLib.VariantType("(u)"),
                                  Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        inst["pid"] = pid
        self._call(name, "Watch")
        for entry in json.loads(self._call(name, "GetCalls", "(s)").unpack()[0]):
            self._add(name, entry)
        inst["events"].sort(key=lambda e: e["seq"])
        inst["watched"] = True
        return inst

    def current(self):
        """The instance owning the name now (adopted), or None."""
        owner = self._owner()
        if not owner:
            return None
        try:
            return self._adopt(owner)
        except GLib.Error:
            return None  # it died meanwhile

    def wait_new(self, after_pid, timeout):
        """Waits (bounded) for an instance whose PID differs from `after_pid`; returns it."""
        found = {}

        def check():
            inst = self.current()
            if inst and inst["pid"] != after_pid:
                found["i"] = inst
                return True
            return False

        pump_until(check, timeout)
        return found.get("i")

    @staticmethod
    def notifies(inst):
        return [e for e in inst["events"] if e["method"] == "Notify"]

    def close(self):
        try:
            self.conn.close_sync(None)
        except GLib.Error:
            pass


# --------------------------------------------------------------------------- screen lock
SCREENSAVER_NAME = "org.freedesktop.ScreenSaver"
SCREENSAVER_IFACE = "org.freedesktop.ScreenSaver"
SCREENSAVER_PATHS = ("/org/freedesktop/ScreenSaver", "/ScreenSaver")
SCREENSAVER_XML = (SUPPORT / "interfaces" / "org.freedesktop.ScreenSaver.xml").read_text()


class FakeScreenSaver:
    """org.freedesktop.ScreenSaver on its own connection to the bus, served by the test's
    main context: GetActive answers the lock state, set_locked() broadcasts ActiveChanged."""

    def __init__(self, address, locked=False):
        self.locked = locked
        self.get_active_calls = 0
        self.conn = connect(address)
        node = Gio.DBusNodeInfo.new_for_xml(SCREENSAVER_XML)
        self._regs = [self.conn.register_object(p, node.interfaces[0], self._on_call, None, None)
                      for p in SCREENSAVER_PATHS]
        (code,) = bus_call(self.conn, "RequestName", GLib.Variant("(su)", (SCREENSAVER_NAME, 4)), "(u)")
        assert code == 1, "could not own %s (%d)" % (SCREENSAVER_NAME, code)

    def _on_call(self, _conn, _sender, _path, _iface, method, _params, invocation):
        if method == "GetActive":
            self.get_active_calls += 1
            invocation.return_value(GLib.Variant("(b)", (self.locked,)))
        elif method == "GetActiveTime":
            invocation.return_value(GLib.Variant("(u)", (0,)))

    def wait_asked(self, timeout=5.0):
        """Wait until someone (the bridge) asked GetActive, then make sure the bridge has
        dispatched the answer before anything a test sends afterwards (sync)."""
        wait_until(lambda: self.get_active_calls > 0, timeout,
                   message="nobody asked org.freedesktop.ScreenSaver GetActive")
        self.sync()

    def set_locked(self, locked):
        self.locked = locked
        self.conn.emit_signal(None, SCREENSAVER_PATHS[0], SCREENSAVER_IFACE, "ActiveChanged",
                              GLib.Variant("(b)", (locked,)))
        self.sync()

    def sync(self):
        """A method call to the bridge from this connection: messages from one connection
        arrive in order, so once the bridge answers, it has dispatched what we sent before
        (the GetActive reply, the ActiveChanged signal)."""
        self.conn.flush_sync(None)
        self.conn.call_sync(NOTIF_NAME, NOTIF_PATH, NOTIF_IFACE, "GetServerInformation", None,
                            GLib.VariantType("(ssss)"), Gio.DBusCallFlags.NONE, 5000, None)

    def dispose(self):
        for r in self._regs:
            self.conn.unregister_object(r)
        try:
            self.conn.close_sync(None)
        except GLib.Error:
            pass


@pytest.fixture
def screensaver_factory(bus):
    made = []

    def make(locked=False):
        ss = FakeScreenSaver(bus.address, locked)
        made.append(ss)
        return ss

    yield make
    for ss in made:
        ss.dispose()


GTK_NAME = "org.gtk.Notifications"
GTK_PATH = "/org/gtk/Notifications"
GTK_XML = """<node><interface name="org.gtk.Notifications">
  <method name="AddNotification"><arg type="s" direction="in"/><arg type="s" direction="in"/>
    <arg type="a{sv}" direction="in"/></method>
  <method name="RemoveNotification"><arg type="s" direction="in"/><arg type="s" direction="in"/></method>
</interface></node>"""


def _unpack(value):
    """GLib.Variant.unpack, but an `ay` as bytes: a picture unpacked byte by byte takes minutes."""
    kind = value.get_type_string()
    if kind == "ay":
        return value.get_data_as_bytes().get_data()
    if kind == "v":
        return _unpack(value.get_variant())
    children = [value.get_child_value(i) for i in range(value.n_children())] if value.is_container() else None
    if children is None:
        return value.unpack()
    if kind.startswith("a{"):
        return {_unpack(entry.get_child_value(0)): _unpack(entry.get_child_value(1)) for entry in children}
    items = [_unpack(child) for child in children]
    return tuple(items) if kind.startswith("(") else items


class FakeGtkShell:
    """GNOME Shell's GTK side as the bridge reaches it: org.gtk.Notifications served at
    /org/gtk/Notifications on a connection owning org.gnome.Shell, on the test's main context.
    Records every call (`calls`: method, app ID, ID, the dictionary unpacked); answers
    org.gtk.Notifications.InvalidApp for the app IDs in `unknown_apps`, as the shell does for an
    app without a desktop file."""

    def __init__(self, address, also_own_gtk_name=False):
        self.calls = []
        self.unknown_apps = set()
        self.conn = connect(address)
        node = Gio.DBusNodeInfo.new_for_xml(GTK_XML)
        self._reg = self.conn.register_object(GTK_PATH, node.interfaces[0], self._on_call, None, None)
        for name in ["org.gnome.Shell"] + ([GTK_NAME] if also_own_gtk_name else []):
            # GNOME Shell asks as it does for org.gtk.Notifications: REPLACE, queued when taken.
            (code,) = bus_call(self.conn, "RequestName", GLib.Variant("(su)", (name, 2)), "(u)")
            assert code in (1, 2), "could not ask for %s (%d)" % (name, code)

    def _on_call(self, _conn, sender, _path, _iface, method, params, invocation):
        values = _unpack(params)
        if method == "AddNotification" and values[0] in self.unknown_apps:
            invocation.return_dbus_error("org.gtk.Notifications.InvalidApp",
                                         'The app by ID "%s" could not be found' % values[0])
            return
        self.calls.append({"method": method, "sender": sender, "app": values[0], "id": values[1],
                           "notification": values[2] if len(values) > 2 else None})
        invocation.return_value(None)

    def added(self, title=None):
        return [c for c in self.calls if c["method"] == "AddNotification"
                and (title is None or c["notification"].get("title") == title)]

    def wait_added(self, title, timeout=5.0):
        wait_until(lambda: self.added(title), timeout,
                   message="%r never reached the shell's org.gtk.Notifications; it has %r" % (
                       title, [c["notification"].get("title") for c in self.added()]))
        return self.added(title)[-1]

    def removed(self):
        return [(c["app"], c["id"]) for c in self.calls if c["method"] == "RemoveNotification"]

    def dispose(self):
        self.conn.unregister_object(self._reg)
        try:
            self.conn.close_sync(None)
        except GLib.Error:
            pass


@pytest.fixture
def gtk_shell(bus):
    shell = FakeGtkShell(bus.address)
    yield shell
    shell.dispose()
