"""Floods (docs/BENCHMARKS.md): 10 clients × 1,000 notifications
through the bridge to real dunst (spawn mode, under Xvfb). dunst keeps answering Ping within
100 ms throughout (all but 1 % of pings, none past 300 ms: the machine is shared) — pinged directly on the bridge's private bus, from a separate process — and
every notification is accounted for in history (delivered, collapsed or held)."""

import contextlib
import os
from collections import Counter

from support.bridge import private_bus_address
from support.flood import Flood, Pinger
from support.names import NOTIF_NAME, NOTIF_PATH
from support.waiting import SLOWDOWN, pump_for, wait_until

TEST_TIMEOUT = 60

PING_BOUND_MS = 100.0       # org.freedesktop.DBus.Peer.Ping: the bridge answers within 100 ms under a flood
MAIN_LOOP_BOUND_MS = 500.0  # dunst's own Ping (its main loop); measured here: median ~10 ms, worst 60-190 ms
# Paused dunst flooded directly (10 x 1,000 pipelined) hangs: every Ping times out after 5 s and
# Notify calls fail (measured here). Through the bridge it answers; on this
# shared 2-CPU machine single stalls of 0.2-1.2 s were seen (none when flooding it directly with the
# same 8-in-flight pattern on an idle machine). The bound says "does not hang".
PAUSED_BOUND_MS = 3000.0
# Under ThreadSanitizer the bridge needs several times the CPU per notification; on 2 cores
# that starves dunst and its bus now and then (single Peer.Ping stalls of 190-205 ms were seen,
# none past 20 ms in runs of this test alone): the bounds grow with FOCUS_TEST_SLOWDOWN.
PING_BOUND_MS, MAIN_LOOP_BOUND_MS, PAUSED_BOUND_MS = (
    b * SLOWDOWN for b in (PING_BOUND_MS, MAIN_LOOP_BOUND_MS, PAUSED_BOUND_MS))
# Peer.Ping is answered by GDBus's worker thread even when dunst's main loop is stuck; dunst's
# own cmd0.Ping is dispatched by its main loop, the one that draws and takes Notify.
PINGS = ["org.freedesktop.DBus.Peer.Ping", "org.dunstproject.cmd0.Ping"]
BUS_PING = "org.freedesktop.DBus@org.freedesktop.DBus.Peer.Ping"   # the private bus itself, for comparison
ACCOUNTED = {"delivered", "collapsed", "held-focus", "held-summary"}


def warm_up(dunst, client):
    """dunst's first notification loads fonts and icon themes (a one-time stall of its main
    loop, not the flood's doing): have it draw one before measuring."""
    client.notify("warm-up", "before the flood", app="WarmUp")
    wait_until(lambda: dunst.displayed() >= 1, 10, message="dunst never showed the warm-up notification")
    dunst.ctl("close-all")
    wait_until(lambda: dunst.displayed() == 0, 10, message="dunst did not close the warm-up notification")


@contextlib.contextmanager
def load_generator_niced():
    """The test process plays 10 applications; on a small machine it must not starve the bridge
    and dunst of CPU (nice 10 while it floods, as root only)."""
    old = os.getpriority(os.PRIO_PROCESS, 0)
    try:
        os.setpriority(os.PRIO_PROCESS, 0, 10)
    except OSError:
        pass
    try:
        yield
    finally:
        try:
            os.setpriority(os.PRIO_PROCESS, 0, old)
        except OSError:
            pass


def assert_pings(pings, bounds=(PING_BOUND_MS, MAIN_LOOP_BOUND_MS)):
    """Each ping within its bound — but for 1 % of them, and none past three times the bound:
    on this shared 2-core machine a single ping of 119-165 ms was seen now and then while other
    builds loaded both cores (the pinger, the bus and dunst all wait for the scheduler). A dunst
    that stops answering misses many pings, or one by far: both still fail."""
    for method, bound in zip(PINGS, bounds):
        times = sorted(p["ms"] for p in pings if p["m"] == method)
        slow = [round(t, 1) for t in times if t >= bound]
        assert times, "no %s measured" % method
        assert len(slow) <= len(times) // 100 and (not slow or slow[-1] < 3 * bound), (
            "%s took >= %.0f ms %d time(s) of %d during the flood (worst %.1f ms, median %.1f ms)" % (
                method, bound, len(slow), len(times), times[-1], times[len(times) // 2]))


def summarise(pings, flood):
    """One line per ping target (shown with pytest -s and on a failure)."""
    lines = []
    for method in PINGS + [BUS_PING]:
        ms = sorted(p["ms"] for p in pings if p["m"] == method and "error" not in p)
        if ms:
            lines.append("%s: %d pings, median %.2f ms, max %.2f ms" % (method, len(ms), ms[len(ms) // 2], ms[-1]))
    lines.append("slow (> 40 ms; s after the flood began, ms): %r" % [
        (round(p["t"] - flood.started_at, 2), p["m"].rsplit(".", 2)[-2], round(p["ms"])) for p in pings if p["ms"] > 40])
    print("\n".join(lines))
    return "\n".join(lines)


def flood_dunst(dunst, make_client, procs, label):
    """10 clients x 1,000 Notify through the bridge while a separate process pings dunst on the
    private bus; returns (flood, pings) once the bridge has sent dunst all it will."""
    address = private_bus_address(dunst.bridge)
    pinger = Pinger(procs, address, NOTIF_NAME, NOTIF_PATH, PINGS + [BUS_PING], interval_ms=20)
    apps = ["%s%02d" % (label, k) for k in range(10)]
    clients = [make_client("%s client %d" % (label, k)) for k in range(10)]
    with load_generator_niced():
        flood = Flood(clients, per_client=1000, apps=apps, label=label, window=16).run(40)
    assert not flood.failed, "Notify failed during the flood: %r" % list(flood.failed.items())[:5]
    wait_until(lambda: (lambda n: n["queued"] == 0 and n["in-flight"] == 0)(clients[0].status()["counts"]), 30,
               message="the bridge's forward queue never drained")
    pump_for(0.3)
    pings = pinger.stop()
    assert len(pings) > 20, "too few pings: %r" % pings[:5]
    errors = [p for p in pings if "error" in p]
    assert not errors, "dunst did not answer Ping: %r\n%s" % (errors[:5], summarise(pings, flood))
    return flood, pings, clients[0]


def assert_all_in_history(client, flood):
    rows = []
    for app in flood.apps:
        got = client.history(5000, app)
        assert len(got) == 1000, "%s: %d history rows for 1000 notifications" % (app, len(got))
        rows += got
    ids = [r["id"] for r in rows]
    assert len(set(ids)) == 10000, "duplicate IDs in history: %r" % [i for i, n in Counter(ids).items() if n > 1][:5]
    decisions = Counter(r["decision"] for r in rows)
    assert set(decisions) <= ACCOUNTED, decisions
    assert decisions["collapsed"] > 0, "the flood was not collapsed: %r" % decisions
    by_id = {r["id"]: r for r in rows}
    wrong = [(s, nid) for s, (nid, app, _k) in flood.acked.items()
             if nid not in by_id or by_id[nid]["summary"] != s or by_id[nid]["app"] != app]
    assert not wrong, "acknowledged notifications missing or different in history: %r" % wrong[:5]
    return decisions


def test_ten_clients_flood_dunst_which_keeps_answering_and_all_is_in_history(dunst, make_client, procs):
    warm_up(dunst, dunst.client)
    flood, pings, c = flood_dunst(dunst, make_client, procs, "Flood")
    summarise(pings, flood)
    assert_pings(pings)
    assert dunst.bridge.alive()
    assert_all_in_history(c, flood)
    assert dunst.displayed() >= 1


def test_paused_dunst_flooded_through_the_bridge_does_not_hang(dunst, make_client, procs):
    """Dunst paused (dunstctl set-paused true) and flooded with pipelined Notify stops answering
    even Ping. Through the bridge (at most 8 in flight, the excess collapsed)
    it keeps answering, and shows what it holds once unpaused."""
    warm_up(dunst, dunst.client)
    dunst.ctl("set-paused", "true")
    assert dunst.ctl("is-paused").strip() == "true"
    flood, pings, c = flood_dunst(dunst, make_client, procs, "Paused")
    summarise(pings, flood)
    assert_pings(pings, (PAUSED_BOUND_MS, PAUSED_BOUND_MS))
    dunst.ctl("set-paused", "false")
    wait_until(lambda: dunst.displayed() >= 1, 10, message="unpaused dunst shows nothing")
    assert_all_in_history(c, flood)
