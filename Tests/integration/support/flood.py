"""Load: floods of Notify from several applications, and latency measured while they run.

* ``Flood``   several application connections pipelining ``Notify`` asynchronously from the test
              process; records which calls were answered (the ID) and which failed, so
              "acknowledged" is known exactly, even when the bridge is killed mid-flood.
* ``Pinger``  a separate process (ping.py) that pings a bus name every few milliseconds and
              reports each round trip (latency measured outside the busy test process).
"""

import json
import subprocess
import time

from gi.repository import Gio, GLib

from support.names import NOTIF_IFACE, NOTIF_NAME, NOTIF_PATH
from support.processes import PYTHON, SUPPORT, LineReader
from support.waiting import pump_until


# --------------------------------------------------------------------------- a flood of Notify
class Flood:
    """`clients` (clients.Client objects) each send `per_client` notifications with `window`
    calls outstanding at a time, asynchronously, from the test's main loop. Summaries are
    unique ("<label> c<k> n<i>") so nothing is coalesced as a duplicate.

    After `run()` (or pumping yourself until `done()`): `acked` maps summary -> (id, app, client
    index) for every call that got an ID; `failed` maps summary -> error text."""

    def __init__(self, clients, per_client, apps, label="flood", window=16, on_ack=None, timeout_ms=20000,
                 hints=None, body=None):
        self.clients = list(clients)
        self.per_client = per_client
        self.apps = list(apps)           # app name of client k: apps[k % len(apps)]
        self.label = label
        self.window = window
        self.on_ack = on_ack
        self.timeout_ms = timeout_ms
        self.hints = hints or {}
        # One body for every call (`body`), with the hints, converted to GVariant once: a 100 KB
        # text takes the test process longer to convert than the bridge to handle.
        self.fixed = body is not None and (GLib.Variant("s", body), GLib.Variant("as", []),
                                           GLib.Variant("a{sv}", self.hints))
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
            if self.fixed:
                body, actions, hints = self.fixed
                params = GLib.Variant.new_tuple(GLib.Variant("s", self.app(k)), GLib.Variant("u", 0), GLib.Variant("s", ""),
                                                GLib.Variant("s", summary), body, actions, hints, GLib.Variant("i", -1))
            else:
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


# --------------------------------------------------------------------------- pinging a daemon
class Pinger:
    """A separate process pinging `dest` on the bus at `address` every `interval_ms`."""

    def __init__(self, procs, address, dest, path, methods, interval_ms=20):
        self.proc = procs.spawn([PYTHON, str(SUPPORT / "ping.py"), address, dest, path,
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
        self.out.join(5)  # the reader thread has taken the last lines
        return [json.loads(l) for l in self.out.lines if l.startswith("{") and '"m"' in l]
