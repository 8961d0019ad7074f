#!/usr/bin/python3
"""Pings bus names every few milliseconds and reports each round trip, from a process of its own
(latency measured outside the busy test process); flood.Pinger runs it.

    ping.py ADDRESS DEST PATH [DEST2@]IFACE.METHOD[,...] INTERVAL_MS

Pings until stdin closes; one JSON line per call: {"m": method, "t": start, "ms": rtt} or
{"m": method, "t": start, "error": text}, after a first line {"ready": true}.
"""

import json
import select
import sys
import time

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402


def main(address, dest, path, methods, interval_ms):
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
    if len(sys.argv) != 6:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
