#!/usr/bin/python3
"""Measures what docs/RELIABILITY.md reports: the bridge under hostile input.

    /usr/bin/python3 scripts/measure-bounds.py [--bridge .build/debug/focus-bridge]

Starts private buses, a sink fake daemon (Tests/integration/support/fake_daemon.py, unwatched) and the
bridge in address mode, then:

1. the hostile set: 200 Notify calls with distinct 1 MiB app names, then 400 with 1 MiB bodies
   (40 apps, under the rate limit, so all are delivered); resident memory before, at its peak
   (VmHWM) and once the burst is forwarded and settled; the state file's size;
2. History(limit=4294967295) on 240,000 history rows: how long a Notify sent right behind it
   waits, and resident memory after;
3. a 100 MB configuration file: how long `focus-bridge` takes to refuse it on reload (SIGHUP).
"""

import argparse
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "Tests" / "integration"))

from gi.repository import Gio, GLib  # noqa: E402

from support.buses import PrivateBus, wait_for_name  # noqa: E402
from support.clients import Client  # noqa: E402
from support.names import CONTROL_IFACE, CONTROL_NAME, CONTROL_PATH, NOTIF_IFACE, NOTIF_NAME, NOTIF_PATH  # noqa: E402
from support.processes import BRIDGE_BIN, FAKE_DAEMON, PYTHON, LineReader, Procs, session_env  # noqa: E402
from support.waiting import pump_until  # noqa: E402

MiB = 1 << 20


def memory_of(pid):
    fields = {}
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def send_all(conn, calls, window=16):
    answered, errors, outstanding = [], [], [0]

    def done(c, result, _data):
        outstanding[0] -= 1
        try:
            answered.append(c.call_finish(result).unpack()[0])
        except GLib.Error as error:
            errors.append(error.message)

    tried = 0
    for params in calls:
        pump_until(lambda: outstanding[0] < window, 60)
        outstanding[0] += 1
        tried += 1
        conn.call(NOTIF_NAME, NOTIF_PATH, NOTIF_IFACE, "Notify", params, GLib.VariantType("(u)"),
                  Gio.DBusCallFlags.NONE, 60000, None, done, None)
    pump_until(lambda: outstanding[0] == 0, 120)
    return tried, answered, errors


def notify(app, summary, body):
    return GLib.Variant("(susssasa{sv}i)", (app, 0, "", summary, body, [], {}, -1))


class Rig:
    def __init__(self, bridge_bin, tmp):
        self.tmp = Path(tmp)
        self.procs = Procs()
        self.bus = PrivateBus(self.tmp, "session", self.procs)
        self.daemon_bus = PrivateBus(self.tmp, "daemon", self.procs)
        sink = self.procs.spawn([PYTHON, FAKE_DAEMON, "--address", self.daemon_bus.address],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert LineReader(sink.stdout).wait_for(lambda line: line.startswith("READY"), 15)
        self.bridge_bin = bridge_bin
        self.bridge = None

    def start(self):
        env = session_env(self.bus.address, XDG_STATE_HOME=self.tmp / "state", XDG_CONFIG_HOME=self.tmp / "config")
        self.bridge = self.procs.spawn([self.bridge_bin, "--downstream", "address", "--downstream-address",
                                        self.daemon_bus.address], env=env, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=open(self.tmp / "bridge.stderr", "ab"))
        assert wait_for_name(self.bus.conn, CONTROL_NAME, 10, self.bridge)
        client = Client(self.bus.address)
        pump_until(lambda: client.status()["downstream"]["connected"], 10)
        return client

    def stop(self):
        self.bridge.send_signal(signal.SIGTERM)
        self.bridge.wait(10)

    @property
    def state(self):
        return self.tmp / "state" / "focus-bridge"

    def database_mib(self):
        return sum(p.stat().st_size for p in self.state.glob("state.sqlite3*")) / MiB


def hostile_set(rig):
    client = rig.start()
    client.notify("warm up")
    before, _ = memory_of(rig.bridge.pid)
    started = time.monotonic()
    names = (notify("A%03d" % i + "n" * (MiB - 4), "distinct app name %d" % i, "body") for i in range(200))
    bodies = (notify("Bodies%02d" % (i % 40), "body %d" % i, "%03d" % i + "b" * (MiB - 3)) for i in range(400))
    tried, answered, errors = send_all(client.conn, names)
    more = send_all(client.conn, bodies)
    tried, answered, errors = tried + more[0], answered + more[1], errors + more[2]
    took = time.monotonic() - started
    pump_until(lambda: (lambda c: c["queued"] == 0 and c["in-flight"] == 0)(client.status()["counts"]), 120)
    _, peak = memory_of(rig.bridge.pid)
    # settled: resident memory no longer falls (the heap is trimmed once the burst is forwarded)
    after, last = memory_of(rig.bridge.pid)[0], None
    deadline = time.monotonic() + 10
    while last != after and time.monotonic() < deadline:
        last = after
        pump_until(lambda: False, 1.0)
        after = memory_of(rig.bridge.pid)[0]
    given_up = (rig.tmp / "bridge.stderr").read_text().count(" given up")
    print("hostile set: %d calls tried, %d answered, %d errors, in %.1f s; %d forwarded, %d given up (past 64 MiB waiting)"
          % (tried, len(answered), len(errors), took, client.status()["counts"]["delivered"] - 1, given_up))
    print("  resident memory: before %.1f MiB, peak %.1f MiB, after %.1f MiB" % (before, peak, after))
    print("  state file (with WAL): %.1f MiB" % rig.database_mib())
    client.dispose()
    rig.stop()


def answered(got, conn, result):
    try:
        got["history"] = (time.monotonic(), conn.call_finish(result))
    except GLib.Error as error:
        got["history-error"] = error.message


def big_history(rig, rows=240_000):
    db = sqlite3.connect(str(rig.state / "state.sqlite3"))
    try:
        now = time.time()
        db.executemany("INSERT INTO history (id, app, summary, body, level, decision, received) "
                       "VALUES (?, 'Filler', ?, ?, 'active', 'delivered', ?)",
                       ((1_000_000 + i, "row %d" % i, "x" * 200, now - 3600 + i / 1000) for i in range(rows)))
        db.commit()
    finally:
        db.close()
    client = rig.start()
    other = Client(rig.bus.address, "notifier")
    before, _ = memory_of(rig.bridge.pid)
    got = {}
    started = time.monotonic()
    client.conn.call(CONTROL_NAME, CONTROL_PATH, CONTROL_IFACE, "History", GLib.Variant("(us)", (4294967295, "")),
                     GLib.VariantType("(s)"), Gio.DBusCallFlags.NONE, 120000, None,
                     lambda c, r, _d: answered(got, c, r), None)
    client.conn.flush_sync(None)
    other.conn.call(NOTIF_NAME, NOTIF_PATH, NOTIF_IFACE, "Notify", notify("Behind", "right behind History", ""),
                    GLib.VariantType("(u)"), Gio.DBusCallFlags.NONE, 120000, None,
                    lambda c, r, _d: got.update(notify=time.monotonic()), None)
    other.conn.flush_sync(None)
    pump_until(lambda: "history" in got and "notify" in got, 120)
    if "history" not in got:
        print("History(limit=4294967295) on %d rows: no answer; the bridge %s; a Notify behind it waited %s" % (
            rows, "exited %r" % rig.bridge.poll() if rig.bridge.poll() is not None else "is still running",
            "%.3f s" % (got["notify"] - started) if "notify" in got else "in vain"))
        print("  " + "\n  ".join((rig.tmp / "bridge.stderr").read_text().splitlines()[-3:]))
        return
    length = len(got["history"][1].unpack()[0])
    pump_until(lambda: False, 1.0)
    after, peak = memory_of(rig.bridge.pid)
    print("History(limit=4294967295) on %d rows: answered in %.3f s (%d bytes of JSON); a Notify behind it waited %.3f s"
          % (rows, got["history"][0] - started, length, got["notify"] - started))
    print("  resident memory: before %.1f MiB, peak %.1f MiB, after %.1f MiB" % (before, peak, after))
    client.dispose()
    other.dispose()
    rig.stop()


def big_config(rig):
    client = rig.start()
    config = rig.tmp / "config" / "focus-bridge" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    log = rig.tmp / "bridge.stderr"
    seen = log.read_text().count("configuration was not reloaded")
    with open(config, "wb") as f:
        f.write(b"# a 100 MB configuration\n")
        f.truncate(100 * 1000 * 1000)
    started = time.monotonic()
    rig.bridge.send_signal(signal.SIGHUP)
    pump_until(lambda: log.read_text().count("configuration was not reloaded") > seen, 300)
    refused = time.monotonic() - started
    _, took = client.timed_notify("after the refused reload")
    print("100 MB configuration: refused %.3f s after SIGHUP; a Notify then took %.3f s" % (refused, took))
    print("  " + [line for line in log.read_text().splitlines() if "not reloaded" in line][-1])
    client.dispose()
    rig.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bridge", default=BRIDGE_BIN)
    parser.add_argument("--skip", action="append", default=[], choices=["hostile", "history", "config"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="measure-bounds-") as tmp:
        rig = Rig(args.bridge, tmp)
        try:
            if "hostile" not in args.skip:
                hostile_set(rig)
            if "history" not in args.skip:
                if rig.bridge is None:
                    rig.start().dispose()
                    rig.stop()
                big_history(rig)
            if "config" not in args.skip:
                big_config(rig)
        finally:
            rig.procs.cleanup()
            rig.bus.stop()
            rig.daemon_bus.stop()


if __name__ == "__main__":
    os.environ.pop("PYTEST_CURRENT_TEST", None)
    main()
