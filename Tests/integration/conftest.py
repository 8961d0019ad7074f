"""Fixtures and helpers for FocusBridge's integration tests.

Everything runs on private buses started here (never the real session bus, never
`dbus-daemon --session`, which would auto-activate a real notification daemon):

* ``bus``         the "session bus" the bridge serves and the test clients talk on;
* ``daemon_bus``  an independent bus on which the fake notification daemon lives
                  (the bridge runs with ``--downstream address --downstream-address``);
* ``fake_daemon`` a recording fake daemon (fake_daemon.py, a separate process);
* ``bridge``      the real focus-bridge binary (env FOCUS_BRIDGE_BIN overrides the path),
                  started with ``bridge_factory`` for other modes / restarts;
* ``xvfb``        an Xvfb display for the dunst tests.

Waiting is always bounded: signals are awaited by iterating the GLib main context
with a deadline; ``wait_until`` polls only where nothing can be awaited.
"""

import errno
import faulthandler
import json
import os
import queue
import re
import select
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import gi

gi.require_version("Gio", "2.0")
gi.require_version("GLib", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
BRIDGE_BIN = os.environ.get("FOCUS_BRIDGE_BIN", str(REPO / ".build" / "debug" / "focus-bridge"))
FOCUSCTL_BIN = os.environ.get("FOCUSCTL_BIN", str(Path(BRIDGE_BIN).parent / "focusctl"))
PYTHON = "/usr/bin/python3"
FAKE_DAEMON = str(HERE / "fake_daemon.py")

NOTIF_NAME = "org.freedesktop.Notifications"
NOTIF_PATH = "/org/freedesktop/Notifications"
NOTIF_IFACE = "org.freedesktop.Notifications"
CONTROL_NAME = "org.focusbridge.FocusBridge"
CONTROL_PATH = "/org/focusbridge/FocusBridge"
CONTROL_IFACE = "org.focusbridge.Control1"
FAKE_PATH = "/org/focusbridge/Test"
FAKE_IFACE = "org.focusbridge.Test.FakeDaemon"
DBUS_NAME = "org.freedesktop.DBus"
DBUS_PATH = "/org/freedesktop/DBus"

# INTERFACES.md: GetCapabilities before any daemon was seen.
CAPS_BEFORE_DAEMON = ["actions", "body"]

DEFAULT_TEST_TIMEOUT = 30  # seconds; a module may set TEST_TIMEOUT = N

# How many times slower than a plain debug build the binaries under test are: `make
# test-sanitize` sets it for ThreadSanitizer, whose bridge also takes CPU from the other
# processes of a test on a small machine. Bounds on how long something may take are multiplied
# by it where a test says so (never a sleep).
SLOWDOWN = float(os.environ.get("FOCUS_TEST_SLOWDOWN") or 1)

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:tmpdir=/tmp</listen>
  <auth>EXTERNAL</auth>
  <!-- deliberately no <servicedir>: nothing is ever auto-activated on this bus -->
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
  <limit name="max_incoming_bytes">1000000000</limit>
  <limit name="max_outgoing_bytes">1000000000</limit>
  <limit name="max_message_size">1000000000</limit>
  <limit name="max_completed_connections">100000</limit>
  <limit name="max_incomplete_connections">10000</limit>
  <limit name="max_connections_per_user">100000</limit>
  <limit name="max_names_per_connection">50000</limit>
  <limit name="max_match_rules_per_connection">50000</limit>
  <limit name="max_replies_per_connection">50000</limit>
</busconfig>
"""


# --------------------------------------------------------------------------- timeouts
@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)
    if rep.failed and rep.when in ("call", "setup", "teardown"):
        for label, path in getattr(item, "_fb_logs", []):
            try:
                text = Path(path).read_text(errors="replace")
            except OSError:
                continue
            lines = text.splitlines()
            if len(lines) > 60:
                lines = ["... (%d lines cut)" % (len(lines) - 60)] + lines[-60:]
            rep.sections.append((label, "\n".join(lines)))


class TestTimeout(Exception):
    pass


# --------------------------------------------------------------------------- sanitizers
# Under `make test-sanitize` the binaries are built with AddressSanitizer or ThreadSanitizer
# (ASAN_OPTIONS / TSAN_OPTIONS are set). Their reports are sent to files in a folder of
# their own (log_path), so that a report from any of our processes fails the test that was
# running: also one from a bridge the test then kills with SIGKILL, or from a
# `focusctl watch` whose stderr is not kept.
def _sanitizer_log_dir():
    names = [n for n in ("ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS") if n in os.environ]
    if not names:
        return None
    import tempfile
    folder = Path(tempfile.mkdtemp(prefix="focus-bridge-sanitizer-"))
    for name in names:
        options = [o for o in os.environ[name].split(":") if o and not o.startswith("log_path=")]
        os.environ[name] = ":".join(options + ["log_path=%s" % (folder / "report")])
    return folder


SANITIZER_LOG_DIR = _sanitizer_log_dir()
_reported_sanitizer_files = set()


def sanitizer_reports(seen=()):
    """The sanitizer report files not in `seen` (names), as {name: text}."""
    if SANITIZER_LOG_DIR is None:
        return {}
    found = {}
    for path in sorted(SANITIZER_LOG_DIR.iterdir()):
        if path.name not in seen:
            found[path.name] = path.read_text(errors="replace")
    return found


@pytest.fixture(autouse=True)
def _no_sanitizer_reports():
    """Fails the test (at teardown, once every process it started has exited) when one of
    them wrote a sanitizer report. Autouse fixtures are set up first, so torn down last."""
    if SANITIZER_LOG_DIR is None:
        yield
        return
    before = set(sanitizer_reports())
    yield
    new = sanitizer_reports(before)
    _reported_sanitizer_files.update(new)
    if new:
        texts = []
        for name, text in new.items():
            lines = text.splitlines()
            if len(lines) > 120:
                lines = lines[:120] + ["... (%d lines cut)" % (len(lines) - 120)]
            texts.append("%s/%s:\n%s" % (SANITIZER_LOG_DIR, name, "\n".join(lines)))
        pytest.fail("sanitizer report(s) from a process of this test:\n" + "\n\n".join(texts),
                    pytrace=False)


def pytest_sessionfinish(session, exitstatus):
    """A report no test was failed for (written outside every test) fails the run; the
    folder is removed when it holds no report."""
    if SANITIZER_LOG_DIR is None:
        return
    stray = sanitizer_reports(_reported_sanitizer_files)
    if stray:
        print("\nsanitizer report(s) written outside any test, in %s: %s" % (
            SANITIZER_LOG_DIR, ", ".join(stray)))
        session.exitstatus = 1
    elif not _reported_sanitizer_files:
        shutil.rmtree(SANITIZER_LOG_DIR, ignore_errors=True)


@pytest.fixture(autouse=True)
def _bounded_test(request):
    """Every test (setup + call + teardown) is bounded: TEST_TIMEOUT of its module,
    default 30 s. SIGALRM raises in the test; a hard faulthandler exit backs it up."""
    limit = int(getattr(request.module, "TEST_TIMEOUT", DEFAULT_TEST_TIMEOUT))

    def on_alarm(signum, frame):
        raise TestTimeout("test exceeded its %d s bound" % limit)

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(limit)
    faulthandler.dump_traceback_later(limit + 60, exit=True)
    try:
        yield
    finally:
        signal.alarm(0)
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGALRM, old)


# --------------------------------------------------------------------------- main loop
def main_context():
    return GLib.MainContext.default()


def drain():
    """Dispatch everything already queued on the main context (no waiting)."""
    ctx = main_context()
    n = 0
    while ctx.pending() and n < 100000:
        ctx.iteration(False)
        n += 1


def pump_until(predicate, timeout):
    """Iterate the GLib main context until predicate() is true or the deadline passes.
    Wakes at least every 50 ms so predicates on non-GLib state are seen too."""
    ctx = main_context()
    deadline = time.monotonic() + timeout
    while True:
        drain()
        result = predicate()
        if result:
            return result
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return result
        src = GLib.timeout_source_new(max(1, int(min(remaining, 0.05) * 1000)))
        src.set_callback(lambda *a: False)
        src.attach(ctx)
        try:
            ctx.iteration(True)
        finally:
            src.destroy()


def pump_for(seconds):
    pump_until(lambda: False, seconds)


def wait_until(predicate, timeout=5.0, interval=0.05, message=None):
    """Bounded poll, for things nothing signals (files, history rows, process state).
    Keeps the main context running meanwhile. Returns the predicate's value; fails
    the test with `message` when it never became true."""
    deadline = time.monotonic() + timeout
    last_exc = None
    while True:
        try:
            value = predicate()
            if value:
                return value
        except Exception as exc:  # noqa: BLE001 - retried until the deadline
            last_exc = exc
        if time.monotonic() >= deadline:
            detail = " (last error: %r)" % (last_exc,) if last_exc else ""
            pytest.fail((message or "condition not met within %.1f s" % timeout) + detail)
        pump_for(interval)


# --------------------------------------------------------------------------- processes
class LineReader:
    """Drains a pipe on a thread; lines are kept and can be awaited with a bound."""

    def __init__(self, stream, tee_path=None):
        self.lines = []
        self._q = queue.Queue()
        self._tee = open(tee_path, "a", buffering=1) if tee_path else None
        self._t = threading.Thread(target=self._run, args=(stream,), daemon=True)
        self._t.start()

    def _run(self, stream):
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.lines.append(line)
            if self._tee:
                self._tee.write(line + "\n")
            self._q.put(line)
        self._q.put(None)

    def get(self, timeout):
        """Next unread line, or None at EOF/timeout."""
        try:
            return self._q.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None

    def wait_for(self, predicate, timeout):
        deadline = time.monotonic() + timeout
        while True:
            line = self.get(deadline - time.monotonic())
            if line is None:
                return None
            if predicate(line):
                return line


class Procs:
    """Every process a test starts; whatever is still alive at teardown is killed."""

    def __init__(self):
        self.procs = []

    def spawn(self, argv, **kw):
        kw.setdefault("start_new_session", True)
        deadline = time.monotonic() + 10
        while True:
            try:
                proc = subprocess.Popen(argv, **kw)
                break
            except OSError as exc:
                # "Text file busy": the binary is being relinked by a build right now
                if exc.errno != errno.ETXTBSY or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.procs.append(proc)
        return proc

    def cleanup(self):
        for proc in reversed(self.procs):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    proc.kill()
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    pass


@pytest.fixture
def procs():
    p = Procs()
    yield p
    p.cleanup()


def session_env(bus_address, display=None, **extra):
    env = dict(os.environ)
    for k in ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_CURRENT_DESKTOP",
              "XDG_SESSION_DESKTOP", "DESKTOP_SESSION", "GNOME_DESKTOP_SESSION_ID",
              "FOCUS_BRIDGE_BIN", "PYTEST_CURRENT_TEST", "SWAYSOCK", "I3SOCK", "HYPRLAND_INSTANCE_SIGNATURE"):
        env.pop(k, None)
    env["DBUS_SESSION_BUS_ADDRESS"] = bus_address
    env["NO_AT_BRIDGE"] = "1"
    if display:
        env["DISPLAY"] = display
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run(argv, env, timeout=10, **kw):
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout, **kw)


# --------------------------------------------------------------------------- buses
def connect(address):
    conn = Gio.DBusConnection.new_for_address_sync(
        address,
        Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
        None,
        None,
    )
    conn.set_exit_on_close(False)
    return conn


def bus_call(conn, method, params=None, reply_type=None, timeout_ms=5000):
    return conn.call_sync(
        DBUS_NAME, DBUS_PATH, "org.freedesktop.DBus", method, params,
        GLib.VariantType(reply_type) if reply_type else None,
        Gio.DBusCallFlags.NONE, timeout_ms, None,
    ).unpack()


def name_owner(conn, name):
    try:
        return bus_call(conn, "GetNameOwner", GLib.Variant("(s)", (name,)), "(s)")[0]
    except GLib.Error:
        return None


def connection_pid(conn, name):
    return bus_call(conn, "GetConnectionUnixProcessID", GLib.Variant("(s)", (name,)), "(u)")[0]


def wait_for_name(conn, name, timeout=10.0, proc=None):
    """Wait (bounded, NameOwnerChanged, no sleeps) until `name` has an owner on conn's
    bus; returns the owner's unique name, or None (timeout, or `proc` exited)."""
    seen = {}

    def on_noc(_c, _s, _p, _i, _m, params):
        n, _old, new = params.unpack()
        if n == name:
            seen["owner"] = new or None

    sid = conn.signal_subscribe(DBUS_NAME, "org.freedesktop.DBus", "NameOwnerChanged", DBUS_PATH,
                                name, Gio.DBusSignalFlags.NONE, on_noc)
    try:
        owner = name_owner(conn, name)  # after AddMatch: no gap
        if owner:
            return owner
        pump_until(lambda: seen.get("owner") or (proc is not None and proc.poll() is not None), timeout)
        return seen.get("owner") or name_owner(conn, name)
    finally:
        conn.signal_unsubscribe(sid)


class PrivateBus:
    def __init__(self, tmpdir, label, procs):
        self.label = label
        self.config = Path(tmpdir) / ("%s-bus.conf" % label)
        self.config.write_text(BUS_CONFIG)
        self.proc = procs.spawn(
            ["dbus-daemon", "--config-file=%s" % self.config, "--nofork", "--print-address=1"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        fd = self.proc.stdout.fileno()
        buf = b""
        deadline = time.monotonic() + 10
        while b"\n" not in buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.proc.poll() is not None:
                raise RuntimeError("dbus-daemon (%s) did not print its address" % label)
            r, _, _ = select.select([fd], [], [], remaining)
            if r:
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                buf += chunk
        self.address = buf.split(b"\n")[0].decode().strip()
        if not self.address:
            raise RuntimeError("dbus-daemon (%s) gave no address" % label)
        self._conn = None

    @property
    def conn(self):
        """A watcher connection of the test's own on this bus."""
        if self._conn is None:
            self._conn = connect(self.address)
        return self._conn

    def owner(self, name):
        return name_owner(self.conn, name)

    def pid_of(self, name):
        return connection_pid(self.conn, name)

    def stop(self):
        if self._conn is not None:
            try:
                self._conn.close_sync(None)
            except GLib.Error:
                pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


@pytest.fixture
def bus(tmp_path, procs):
    b = PrivateBus(tmp_path, "session", procs)
    yield b
    b.stop()


@pytest.fixture
def daemon_bus(tmp_path, procs):
    b = PrivateBus(tmp_path, "daemon", procs)
    yield b
    b.stop()


# --------------------------------------------------------------------------- clients
@dataclass
class Signal:
    sender: str
    path: str
    interface: str
    member: str
    args: tuple
    when: float = field(default_factory=time.monotonic)


class Client:
    """One application: its own connection to the bus, recording the signals it gets
    from org.freedesktop.Notifications (unicast or broadcast alike)."""

    def __init__(self, address, label="client"):
        self.label = label
        self.address = address
        self.conn = connect(address)
        self.unique_name = self.conn.get_unique_name()
        self.signals = []
        self._subs = []
        self.subscribe(NOTIF_IFACE, NOTIF_PATH)

    def subscribe(self, interface, path=None, member=None, sender=None):
        sid = self.conn.signal_subscribe(sender, interface, member, path, None,
                                         Gio.DBusSignalFlags.NONE, self._on_signal)
        self._subs.append(sid)
        # a round trip to the bus: the AddMatch above is in effect once this returns
        bus_call(self.conn, "GetId", None, "(s)")
        return sid

    def _on_signal(self, _conn, sender, path, iface, member, params):
        self.signals.append(Signal(sender, path, iface, member, params.unpack()))

    # -- calls ---------------------------------------------------------------
    def call(self, method, params=None, reply_type=None, *, dest=NOTIF_NAME, path=NOTIF_PATH,
             iface=NOTIF_IFACE, timeout_ms=5000):
        reply = self.conn.call_sync(dest, path, iface, method, params,
                                    GLib.VariantType(reply_type) if reply_type else None,
                                    Gio.DBusCallFlags.NONE, timeout_ms, None)
        return reply.unpack() if reply is not None else None

    @staticmethod
    def notify_params(summary="Summary", body="Body", app="test-app", replaces_id=0, icon="",
                      actions=(), hints=None, timeout=-1):
        return GLib.Variant("(susssasa{sv}i)", (app, replaces_id, icon, summary, body,
                                                 list(actions), dict(hints or {}), timeout))

    def notify(self, summary="Summary", body="Body", app="test-app", replaces_id=0, icon="",
               actions=(), hints=None, timeout=-1, timeout_ms=5000):
        params = self.notify_params(summary, body, app, replaces_id, icon, actions, hints, timeout)
        return self.call("Notify", params, "(u)", timeout_ms=timeout_ms)[0]

    def timed_notify(self, *a, **kw):
        t0 = time.monotonic()
        nid = self.notify(*a, **kw)
        return nid, time.monotonic() - t0

    def notify_raw(self, params, timeout_ms=5000):
        """Notify with an already built tuple variant (for malformed input)."""
        reply = self.conn.call_sync(NOTIF_NAME, NOTIF_PATH, NOTIF_IFACE, "Notify", params, None,
                                    Gio.DBusCallFlags.NONE, timeout_ms, None)
        return reply.unpack()

    def close(self, nid):
        self.call("CloseNotification", GLib.Variant("(u)", (nid,)))

    def capabilities(self):
        return list(self.call("GetCapabilities", None, "(as)")[0])

    def server_information(self):
        return tuple(self.call("GetServerInformation", None, "(ssss)"))

    def round_trip(self):
        """A call through the bridge's main loop: everything the bridge sent us before
        answering has been received once this returns."""
        self.server_information()
        drain()

    # -- control interface (org.focusbridge.Control1) -------------------------
    def status(self):
        return json.loads(self.call("Status", None, "(s)", dest=CONTROL_NAME, path=CONTROL_PATH,
                                    iface=CONTROL_IFACE)[0])

    def history(self, limit=0, app=""):
        return json.loads(self.call("History", GLib.Variant("(us)", (limit, app)), "(s)",
                                    dest=CONTROL_NAME, path=CONTROL_PATH, iface=CONTROL_IFACE,
                                    timeout_ms=15000)[0])

    # -- signals -------------------------------------------------------------
    def got(self, member, nid=None, interface=NOTIF_IFACE):
        return [s for s in self.signals
                if s.member == member and s.interface == interface and (nid is None or s.args[0] == nid)]

    def wait_signal(self, member, nid=None, timeout=5.0, interface=NOTIF_IFACE, count=1):
        found = pump_until(lambda: len(self.got(member, nid, interface)) >= count and self.got(member, nid, interface),
                           timeout)
        if not found:
            raise AssertionError("%s: no %s signal%s within %.1f s; got: %r" % (
                self.label, member, "" if nid is None else " for id %d" % nid, timeout,
                [(s.member, s.args) for s in self.signals]))
        return found[count - 1]

    def dispose(self):
        for sid in self._subs:
            self.conn.signal_unsubscribe(sid)
        self._subs = []
        try:
            self.conn.close_sync(None)
        except GLib.Error:
            pass


def settle(*clients):
    """Make "must NOT arrive" assertions sound: a round trip through the bridge from each
    client, so anything sent to it earlier has been received and dispatched."""
    for c in clients:
        c.round_trip()
    drain()


@pytest.fixture
def make_client(bus):
    made = []

    def make(label="client", address=None):
        c = Client(address or bus.address, label)
        made.append(c)
        return c

    yield make
    for c in made:
        c.dispose()


@pytest.fixture
def client(make_client):
    return make_client("client")


@pytest.fixture
def client2(make_client):
    return make_client("client2")


# --------------------------------------------------------------------------- fake daemon
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
            node._fb_logs = getattr(node, "_fb_logs", []) + [("fake daemon stderr", str(self.log))]

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


# --------------------------------------------------------------------------- the bridge
def require_binary(path, what):
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.skip("%s not built yet: %s" % (what, path))


class Bridge:
    def __init__(self, proc, bus, argv, env, stderr_path, stdout_reader, state_home, config_home):
        self.proc = proc
        self.pid = proc.pid
        self.bus = bus
        self.argv = argv
        self.env = env
        self.stderr_path = stderr_path
        self.out = stdout_reader
        self.state_home = Path(state_home)
        self.config_home = Path(config_home)
        self.unique_name = None
        self.stopped = False
        self.returncode = None

    @property
    def state_dir(self):
        return self.state_home / "focus-bridge"

    def stderr(self):
        try:
            return Path(self.stderr_path).read_text(errors="replace")
        except OSError:
            return ""

    def stderr_tail(self, n=25):
        """The last lines of stderr without the Swift crash report's register/image dump."""
        keep = [l for l in self.stderr().splitlines()
                if l.strip() and not re.match(r"\s*(r[a-z0-9]{1,2}|[cdefgs]s|rflags|0x[0-9a-f]+)\s", l)
                and not re.match(r"\s*\d+\s+0x[0-9a-f]+", l)]
        return "\n".join(keep[-n:])

    def alive(self):
        return self.proc.poll() is None

    def stop(self, sig=signal.SIGTERM, timeout=10):
        """SIGTERM and wait (bounded); returns the exit code."""
        if not self.stopped:
            self.stopped = True
            if self.proc.poll() is None:
                self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(5)
                self.returncode = "hung after %s (killed)" % signal.Signals(sig).name
                return self.returncode
            self.returncode = self.proc.returncode
        return self.returncode


@pytest.fixture
def bridge_factory(bus, daemon_bus, procs, tmp_path, request):
    """start(mode="address", args=(), command=None, ...) -> Bridge.

    Defaults: XDG_STATE_HOME=tmp/state and XDG_CONFIG_HOME=tmp/config (the same for
    every bridge of a test, so a second start reuses the state); address mode points
    at `daemon_bus`. Waits (bounded) until both bus names are owned unless wait=False.
    At teardown every bridge still running gets SIGTERM and must exit 0."""
    require_binary(BRIDGE_BIN, "focus-bridge")
    started = []
    counter = [0]

    def start(mode="address", args=(), command=None, *, state_home=None, config_home=None,
              downstream_address=None, display=None, wait=True, timeout=10.0, extra_env=None):
        counter[0] += 1
        state_home = Path(state_home or tmp_path / "state")
        config_home = Path(config_home or tmp_path / "config")
        state_home.mkdir(parents=True, exist_ok=True)
        config_home.mkdir(parents=True, exist_ok=True)
        argv = [BRIDGE_BIN]
        if mode is not None:
            argv += ["--downstream", mode]
        if mode == "address":
            argv += ["--downstream-address", downstream_address or daemon_bus.address]
        argv += list(args)
        if command:
            argv += ["--"] + list(command)
        env = session_env(bus.address, display=display, XDG_STATE_HOME=state_home,
                          XDG_CONFIG_HOME=config_home, **(extra_env or {}))
        stderr_path = tmp_path / ("bridge-%d.stderr" % counter[0])
        stdout_path = tmp_path / ("bridge-%d.stdout" % counter[0])
        proc = procs.spawn(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=open(stderr_path, "ab"))
        b = Bridge(proc, bus, argv, env, stderr_path, LineReader(proc.stdout, stdout_path),
                   state_home, config_home)
        started.append(b)
        request.node._fb_logs = getattr(request.node, "_fb_logs", []) + [
            ("focus-bridge #%d stderr (%s)" % (counter[0], " ".join(argv[1:])), str(stderr_path))]
        if wait:
            owner = wait_for_name(bus.conn, NOTIF_NAME, timeout, proc)
            if not owner or proc.poll() is not None:
                b.stop(signal.SIGKILL)
                pytest.fail("focus-bridge did not own %s within %.0f s (exit %r); stderr:\n%s" % (
                    NOTIF_NAME, timeout, proc.poll(), b.stderr_tail()), pytrace=False)
            if not wait_for_name(bus.conn, CONTROL_NAME, timeout, proc):
                b.stop(signal.SIGKILL)
                pytest.fail("focus-bridge did not own %s within %.0f s; stderr:\n%s" % (
                    CONTROL_NAME, timeout, b.stderr_tail()), pytrace=False)
            b.unique_name = owner
        return b

    yield start

    problems = []
    for b in started:
        if b.stopped:
            continue
        rc = b.stop()
        if rc != 0:
            problems.append("focus-bridge pid %d (%s) exited %r on SIGTERM; stderr tail:\n%s" % (
                b.pid, " ".join(b.argv[1:]), rc, b.stderr()[-2000:]))
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture
def bridge(bridge_factory, fake_daemon):
    """The bridge in address mode, in front of a running fake daemon, connected to it
    (Status says so: capabilities fetched, daemon signals subscribed)."""
    b = bridge_factory()
    watcher = Client(b.bus.address, "fixture watcher")
    try:
        wait_connected(watcher, 10)
    finally:
        watcher.dispose()
    return b


def wait_connected(client, timeout=10.0, connected=True):
    return wait_until(lambda: client.status()["downstream"]["connected"] is connected, timeout,
                      message="bridge's Status never reported downstream connected=%s" % connected)


# --------------------------------------------------------------------------- focusctl
@pytest.fixture
def focusctl(bus):
    require_binary(FOCUSCTL_BIN, "focusctl")
    env = session_env(bus.address)

    def fc(*args, timeout=15, env_override=None):
        return run([FOCUSCTL_BIN, *args], env_override or env, timeout=timeout)

    return fc


# --------------------------------------------------------------------------- X and dunst
@pytest.fixture(scope="session")
def xvfb(tmp_path_factory):
    if not shutil.which("Xvfb") or not shutil.which("xdpyinfo"):
        pytest.skip("Xvfb/xdpyinfo not installed")
    logdir = tmp_path_factory.mktemp("xvfb")
    rfd, wfd = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(wfd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(wfd,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=open(logdir / "xvfb.log", "ab"), start_new_session=True,
    )
    os.close(wfd)
    buf = b""
    deadline = time.monotonic() + 15
    try:
        while b"\n" not in buf and time.monotonic() < deadline and proc.poll() is None:
            r, _, _ = select.select([rfd], [], [], max(0.0, deadline - time.monotonic()))
            if r:
                chunk = os.read(rfd, 64)
                if not chunk:
                    break
                buf += chunk
    finally:
        os.close(rfd)
    if not buf.strip():
        proc.kill()
        pytest.skip("Xvfb did not start: %s" % (logdir / "xvfb.log").read_text()[-500:])
    display = ":" + buf.decode().strip()
    env = dict(os.environ, DISPLAY=display)
    deadline = time.monotonic() + 10
    while subprocess.run(["xdpyinfo"], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, timeout=5).returncode != 0:
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            pytest.skip("Xvfb display %s never answered xdpyinfo" % display)
        time.sleep(0.05)  # a bounded poll of an external tool: nothing to await
    yield display
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()


DUNSTRC = """[global]
    notification_limit = 5
    stack_duplicates = false
    idle_threshold = 0
    history_length = 100
    sticky_history = yes
    show_indicators = no
    font = Monospace 8
    format = "%s %b"
    mouse_left_click = close_current
[urgency_low]
    timeout = 0
[urgency_normal]
    timeout = 0
[urgency_critical]
    timeout = 0
"""


@pytest.fixture
def dunstrc(tmp_path):
    if not shutil.which("dunst"):
        pytest.skip("dunst not installed")
    path = tmp_path / ("dunstrc-%d" % os.getpid())
    path.write_text(DUNSTRC)
    return path
