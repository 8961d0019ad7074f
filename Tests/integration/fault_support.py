#!/usr/bin/python3
"""Helpers for the fault, flood and security tests (issue 6): test_faults.py, test_flood.py,
test_security.py.

Import what you need into a test module (fixtures by name, like focus_support.py):

* ``Flood``            several application connections pipelining ``Notify`` asynchronously from
                       the test process; records which calls were answered (the ID) and which
                       failed, so "acknowledged" is known exactly, even when the bridge is killed
                       mid-flood.
* ``private_bus_address(bridge)``  the address of the private bus a spawn-mode bridge started
                       (from its log line "private bus for the daemon at ...").
* ``SpawnedFakes``     watches the fake daemons a spawn-mode bridge runs on its private bus (each
                       restart is a new instance): their recorded calls, per instance, and their PIDs.
* ``SPAWN_FAKE``       the spawn-mode command that runs fake_daemon.py on the bridge's private bus.
* ``Pinger``           a separate process that pings a bus name every few milliseconds and reports
                       each round trip (latency measured outside the busy test process).
* ``fail_writes``      an LD_PRELOAD shim (built with cc at test time, skipped without one) that
                       makes every write to the state database fail with ENOSPC or EROFS while a
                       trigger file exists: a full or read-only disk, also for root.
* ``MultiUserBus``     a private bus that admits every user (``<allow user="*"/>``), so a test can
                       call the bridge as user ``nobody``.

Run as a program, this file is also the helper executable of those fixtures:

    fault_support.py spawn-fake [fake_daemon args...]   fake_daemon.py on $DBUS_SESSION_BUS_ADDRESS
    fault_support.py ping ADDRESS DEST PATH [DEST2@]IFACE.METHOD[,...] INTERVAL_MS
"""

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PYTHON = "/usr/bin/python3"
FAKE_DAEMON = str(HERE / "fake_daemon.py")

# The spawn-mode daemon command: the fake daemon on whatever bus the bridge gives it.
SPAWN_FAKE = [PYTHON, str(Path(__file__).resolve()), "spawn-fake"]


def _main(argv):
    if argv[:1] == ["spawn-fake"]:
        address = os.environ.get("DBUS_SESSION_BUS_ADDRESS", "")
        if not address:
            print("spawn-fake: DBUS_SESSION_BUS_ADDRESS is not set", file=sys.stderr)
            return 2
        os.execv(PYTHON, [PYTHON, FAKE_DAEMON, "--address", address, *argv[1:]])
    if argv[:1] == ["ping"] and len(argv) == 6:
        return _ping_main(*argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


def _ping_main(address, dest, path, methods, interval_ms):
    """Pings until stdin closes; one JSON line per call: {"m": method, "t": start, "ms": rtt}
    or {"m": method, "t": start, "error": text}."""
    import gi
    gi.require_version("Gio", "2.0")
    from gi.repository import Gio, GLib

    conn = Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
        None, None)
    calls = []
    for m in methods.split(","):
        target, _, method = m.rpartition("@")     # "[DEST@]IFACE.METHOD"
        iface, member = method.rsplit(".", 1)
        calls.append((target or dest, "/org/freedesktop/DBus" if target == "org.freedesktop.DBus" else path,
                      iface, member, m))
    interval = int(interval_ms) / 1000.0
    print(json.dumps({"ready": True}), flush=True)
    while True:
        for target, opath, iface, member, label in calls:
            t0 = time.monotonic()
            try:
                conn.call_sync(target, opath, iface, member, None, None, Gio.DBusCallFlags.NONE, 5000, None)
                line = {"m": label, "t": t0, "ms": (time.monotonic() - t0) * 1000.0}
            except GLib.Error as exc:
                line = {"m": label, "t": t0, "error": exc.message, "ms": (time.monotonic() - t0) * 1000.0}
            try:
                print(json.dumps(line), flush=True)
            except BrokenPipeError:
                return 0
        r, _, _ = select.select([sys.stdin], [], [], interval)
        if r and not sys.stdin.buffer.read1(4096):
            return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))


# ----------------------------------------------------------------------------- test-side helpers
import pytest  # noqa: E402

from gi.repository import Gio, GLib  # noqa: E402

from shared_support import build_preload_shim  # noqa: E402

from conftest import (DBUS_NAME, DBUS_PATH, FAKE_IFACE, FAKE_PATH, NOTIF_IFACE, NOTIF_NAME, NOTIF_PATH,  # noqa: E402
                      BUS_CONFIG, LineReader, PrivateBus, connect, pump_until)


# --------------------------------------------------------------------------- a flood of Notify
class Flood:
    """`clients` (conftest.Client objects) each send `per_client` notifications with `window`
    calls outstanding at a time, asynchronously, from the test's main loop. Summaries are
    unique ("<label> c<k> n<i>") so nothing is coalesced as a duplicate.

    After `run()` (or pumping yourself until `done()`): `acked` maps summary -> (id, app, client
    index) for every call that got an ID; `failed` maps summary -> error text."""

    def __init__(self, clients, per_client, apps, label="flood", window=16, on_ack=None, timeout_ms=20000,
                 hints=None):
        self.clients = list(clients)
        self.per_client = per_client
        self.apps = list(apps)           # app name of client k: apps[k % len(apps)]
        self.label = label
        self.window = window
        self.on_ack = on_ack
        self.timeout_ms = timeout_ms
        self.hints = hints or {}
        self.sent = [0] * len(self.clients)
        self.outstanding = [0] * len(self.clients)
        self.acked = {}
        self.ack_order = []
        self.failed = {}
        self.stopped = False
        self.latencies = []
        self.started_at = None

    def summary(self, k, i):
        return "%s c%d n%d" % (self.label, k, i)

    def app(self, k):
        return self.apps[k % len(self.apps)]

    def start(self):
        self.started_at = time.monotonic()
        for k in range(len(self.clients)):
            self._fill(k)

    def stop_sending(self):
        self.stopped = True

    def _fill(self, k):
        while not self.stopped and self.outstanding[k] < self.window and self.sent[k] < self.per_client:
            i = self.sent[k]
            self.sent[k] += 1
            self.outstanding[k] += 1
            summary = self.summary(k, i)
            c = self.clients[k]
            params = c.notify_params(summary, "body of " + summary, app=self.app(k), hints=self.hints)
            c.conn.call(NOTIF_NAME, NOTIF_PATH, NOTIF_IFACE, "Notify", params, GLib.VariantType("(u)"),
                        Gio.DBusCallFlags.NONE, self.timeout_ms, None, self._done, (k, summary, time.monotonic()))

    def _done(self, conn, res, data):
        k, summary, t0 = data
        self.outstanding[k] -= 1
        try:
            (nid,) = conn.call_finish(res).unpack()
        except GLib.Error as exc:
            self.failed[summary] = exc.message
        else:
            self.latencies.append(time.monotonic() - t0)
            self.acked[summary] = (nid, self.app(k), k)
            self.ack_order.append(summary)
            if self.on_ack:
                self.on_ack(self, summary, nid)
        self._fill(k)

    def done(self):
        return all(o == 0 for o in self.outstanding) and (
            self.stopped or all(s == self.per_client for s in self.sent))

    def run(self, timeout):
        """start() and pump the main loop until every call was answered (bounded)."""
        self.start()
        if not pump_until(self.done, timeout):
            raise AssertionError("flood %r not answered within %.0f s: sent %r, outstanding %r, acked %d" % (
                self.label, timeout, self.sent, self.outstanding, len(self.acked)))
        return self

    def ids(self):
        return {summary: v[0] for summary, v in self.acked.items()}


# --------------------------------------------------------------------------- spawn mode
def private_bus_address(bridge, timeout=10.0):
    """The private bus of a spawn-mode bridge, from its log line."""
    deadline = time.monotonic() + timeout
    while True:
        for line in bridge.stderr().splitlines():
            if "private bus for the daemon at " in line:
                return line.split("private bus for the daemon at ", 1)[1].strip()
        if time.monotonic() > deadline:
            raise AssertionError("no 'private bus for the daemon at' line in the bridge's stderr:\n" +
                                 bridge.stderr()[-2000:])
        pump_until(lambda: False, 0.05)


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


# --------------------------------------------------------------------------- pinging a daemon
class Pinger:
    """A separate process pinging `dest` on the bus at `address` every `interval_ms`."""

    def __init__(self, procs, address, dest, path, methods, interval_ms=20):
        self.proc = procs.spawn([PYTHON, str(Path(__file__).resolve()), "ping", address, dest, path,
                                 ",".join(methods), str(interval_ms)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.out = LineReader(self.proc.stdout)
        line = self.out.get(10)
        if not line or not json.loads(line).get("ready"):
            raise RuntimeError("pinger did not start: %r %s" % (line, self.proc.stderr.read1(4000) if line is None else ""))

    def stop(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        time.sleep(0.05)  # let the reader thread take the last lines
        return [json.loads(l) for l in self.out.lines if l.startswith("{") and '"m"' in l]


# --------------------------------------------------------------------------- full / read-only disk
FAIL_WRITES_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* While the file named by FOCUS_TEST_FAIL_TRIGGER exists, every write to a file whose path
   contains FOCUS_TEST_FAIL_MATCH fails with errno FOCUS_TEST_FAIL_ERRNO (a full disk: ENOSPC,
   a read-only one: EROFS). Nothing else is touched. */
static int should_fail(int fd) {
    const char *trigger = getenv("FOCUS_TEST_FAIL_TRIGGER");
    const char *match = getenv("FOCUS_TEST_FAIL_MATCH");
    if (!trigger || !match || access(trigger, F_OK) != 0) return 0;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    if (!strstr(path, match)) return 0;
    const char *e = getenv("FOCUS_TEST_FAIL_ERRNO");
    errno = e ? atoi(e) : ENOSPC;
    return 1;
}

#define REAL(name) static __typeof__(name) *real_##name; \
    if (!real_##name) real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t count) {
    REAL(write);
    if (should_fail(fd)) return -1;
    return real_write(fd, buf, count);
}
ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
    REAL(pwrite);
    if (should_fail(fd)) return -1;
    return real_pwrite(fd, buf, count, offset);
}
ssize_t pwrite64(int fd, const void *buf, size_t count, off64_t offset) {
    REAL(pwrite64);
    if (should_fail(fd)) return -1;
    return real_pwrite64(fd, buf, count, offset);
}
ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
    REAL(writev);
    if (should_fail(fd)) return -1;
    return real_writev(fd, iov, iovcnt);
}
ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset) {
    REAL(pwritev);
    if (should_fail(fd)) return -1;
    return real_pwritev(fd, iov, iovcnt, offset);
}
int ftruncate(int fd, off_t length) {
    REAL(ftruncate);
    if (should_fail(fd)) return -1;
    return real_ftruncate(fd, length);
}
int ftruncate64(int fd, off64_t length) {
    REAL(ftruncate64);
    if (should_fail(fd)) return -1;
    return real_ftruncate64(fd, length);
}
int fallocate(int fd, int mode, off_t offset, off_t len) {
    REAL(fallocate);
    if (should_fail(fd)) return -1;
    return real_fallocate(fd, mode, offset, len);
}
int posix_fallocate(int fd, off_t offset, off_t len) {
    REAL(posix_fallocate);
    if (should_fail(fd)) return errno;
    return real_posix_fallocate(fd, offset, len);
}
"""


@pytest.fixture(scope="session")
def fail_writes_lib(tmp_path_factory):
    return build_preload_shim(tmp_path_factory, "failwrites", FAIL_WRITES_C, "failing-writes shim", missing=pytest.fail)


@pytest.fixture
def fail_writes(fail_writes_lib, tmp_path):
    """fail_writes(errno) -> (extra_env for bridge_factory, trigger Path). Create the trigger
    file to make writes to state.sqlite3* fail; remove it to give the disk back."""

    def make(err):
        trigger = tmp_path / ("disk-fails-%d" % err)
        env = {"LD_PRELOAD": str(fail_writes_lib), "FOCUS_TEST_FAIL_TRIGGER": str(trigger),
               "FOCUS_TEST_FAIL_MATCH": "state.sqlite3", "FOCUS_TEST_FAIL_ERRNO": str(err)}
        return env, trigger

    return make


# --------------------------------------------------------------------------- other users
MULTI_USER_BUS_CONFIG = BUS_CONFIG.replace(
    '<policy context="default">',
    '<policy context="default">\n    <!-- any local user may connect: the bridge itself must tell them apart -->\n'
    '    <allow user="*"/>')
assert '<allow user="*"/>' in MULTI_USER_BUS_CONFIG


class MultiUserBus(PrivateBus):
    """Like conftest's PrivateBus, but every user may connect (EXTERNAL auth still tells the
    bridge who the caller is)."""

    def __init__(self, tmpdir, label, procs):
        import conftest
        saved = conftest.BUS_CONFIG
        conftest.BUS_CONFIG = MULTI_USER_BUS_CONFIG
        try:
            # PrivateBus reads the module global when it writes its config file
            super().__init__(tmpdir, label, procs)
        finally:
            conftest.BUS_CONFIG = saved
        assert '<allow user="*"/>' in self.config.read_text()


def run_as_nobody(argv, env=None, timeout=10):
    """Runs argv as user nobody (skips when that is impossible here)."""
    import pwd
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user nobody")
    if os.geteuid() != 0:
        pytest.skip("not root: cannot run a command as nobody")
    env = dict(env or os.environ)
    env.update(HOME="/nonexistent", USER="nobody", LOGNAME="nobody")
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout,
                          user=nobody.pw_uid, group=nobody.pw_gid, extra_groups=[], cwd="/")

