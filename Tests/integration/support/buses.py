"""Private D-Bus buses, and talking to a bus.

Every bus here is a dbus-daemon started with the configuration spawn mode uses,
``dbus/focus-bridge-private-bus.conf`` (read from the repository, so the tests run on the bus the
bridge gives its daemon): type session, ``unix:tmpdir=/tmp``, EXTERNAL auth, allow-all policy
and **no service directories**, so nothing is ever auto-activated (``dbus-daemon --session``
would start a real notification daemon from Debian's activation files). ``bus_config`` changes
it where a test needs more (a fixed socket, a service folder of its own, every user admitted).

* ``bus``         the "session bus" the bridge serves and the test clients talk on;
* ``daemon_bus``  an independent bus on which the fake notification daemon lives
                  (the bridge runs with ``--downstream address --downstream-address``).
"""

import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from gi.repository import Gio, GLib

from support.names import DBUS_NAME, DBUS_PATH
from support.processes import REPO, read_first_line
from support.waiting import pump_until

DBUS_DIR = REPO / "dbus"
PRIVATE_BUS_CONFIG_FILE = DBUS_DIR / "focus-bridge-private-bus.conf"

# Where Debian keeps the session bus's activation files (copied from, never used as a servicedir).
SERVICE_DIRS = [Path("/usr/share/dbus-1/services"), Path("/usr/local/share/dbus-1/services")]


def bus_config(*, kind="session", listen=None, service_dirs=(), any_user=False):
    """The text of dbus/focus-bridge-private-bus.conf, changed as asked: `kind` ("system"), `listen`
    (an address such as unix:path=…), `service_dirs` (folders of activation files), `any_user`
    (every local user may connect; EXTERNAL auth still tells the callers apart)."""
    text = PRIVATE_BUS_CONFIG_FILE.read_text()

    def change(old, new):
        nonlocal text
        assert text.count(old) == 1, "%s no longer holds %r once" % (PRIVATE_BUS_CONFIG_FILE, old)
        text = text.replace(old, new)

    if kind != "session":
        change("<type>session</type>", "<type>%s</type>" % kind)
    if listen:
        change("<listen>unix:tmpdir=/tmp</listen>", "<listen>%s</listen>" % listen)
    if service_dirs:
        change("<auth>EXTERNAL</auth>", "<auth>EXTERNAL</auth>\n"
               + "".join("\n  <servicedir>%s</servicedir>" % d for d in service_dirs))
    if any_user:
        change('<policy context="default">', '<policy context="default">\n    <allow user="*"/>')
    return text


BUS_CONFIG = bus_config()


# --------------------------------------------------------------------------- calls
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


# --------------------------------------------------------------------------- buses
class PrivateBus:
    """A dbus-daemon of the test's (`config`: the text of its configuration, default BUS_CONFIG),
    started by `procs` with `env` (what it activates inherits it)."""

    def __init__(self, tmpdir, label, procs, config=None, env=None):
        self.label = label
        self.config = Path(tmpdir) / ("%s-bus.conf" % label)
        self.config.write_text(config if config is not None else BUS_CONFIG)
        self.proc = procs.spawn(
            ["dbus-daemon", "--config-file=%s" % self.config, "--nofork", "--print-address=1"],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        self.address = read_first_line(self.proc, self.proc.stdout.fileno(), "dbus-daemon (%s)" % label, 10)
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

    def queued(self, name):
        """The unique names owning `name` and waiting for it, owner first (ListQueuedOwners)."""
        try:
            return list(bus_call(self.conn, "ListQueuedOwners", GLib.Variant("(s)", (name,)), "(as)")[0])
        except GLib.Error:
            return []

    def connection_pids(self):
        """The PIDs of every connection but ours."""
        pids = set()
        for name in bus_call(self.conn, "ListNames", None, "(as)")[0]:
            if name.startswith(":") and name != self.conn.get_unique_name():
                try:
                    pids.add(self.pid_of(name))
                except GLib.Error:
                    pass
        return pids

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


class MultiUserBus(PrivateBus):
    """Like PrivateBus, but every user may connect (EXTERNAL auth still tells the bridge who the
    caller is)."""

    def __init__(self, tmpdir, label, procs):
        super().__init__(tmpdir, label, procs, config=bus_config(any_user=True))
        assert '<allow user="*"/>' in self.config.read_text()


class ServiceBus(PrivateBus):
    """A bus of a desktop session (desktop.DesktopSession): `kind` "session" or "system", every user
    admitted, activating only copies of the installed activation files of `services` (bus names),
    with `env` (what it activates inherits it). `stop()` ends what it activated too."""

    def __init__(self, root, label, procs, env, kind="session", services=()):
        folder = Path(root) / ("%s-services" % label)
        folder.mkdir(parents=True, exist_ok=True)
        for name in services:
            shutil.copy(find_service_file(name), folder / ("%s.service" % name))
        self.service_dir = folder
        config = bus_config(kind=kind, service_dirs=[folder] if services else (), any_user=True)
        super().__init__(root, label, procs, config=config, env=env)
        self.conn  # connected now, while the bus is fresh

    def stop(self):
        """Stops what the bus activated (reparented: found by their connections), then the bus."""
        if self.proc.poll() is None:
            try:
                pids = self.connection_pids()
            except GLib.Error:
                pids = set()
            for pid in pids - {os.getpid()}:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        super().stop()


def find_service_file(name):
    for folder in SERVICE_DIRS:
        path = folder / ("%s.service" % name)
        if path.is_file():
            return path
    raise FileNotFoundError("no activation file for %s in %s" % (name, ", ".join(map(str, SERVICE_DIRS))))


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
