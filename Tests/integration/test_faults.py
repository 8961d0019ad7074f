"""Faults (docs/RELIABILITY.md; docs/BENCHMARKS.md): the bridge killed with SIGKILL mid-flood, the
daemon killed five times mid-flood, a daemon that stops answering, and a state database on a
full or read-only disk. Nothing acknowledged is lost; Notify stays fast.

The random kill points come from FOCUS_FAULT_SEED (default: a fresh seed, printed on failure).
"""

import errno
import os
import random
import signal
import sqlite3
import time

import pytest

from support.bridge import private_bus_address, wait_connected
from support.fakes import SPAWN_FAKE, SpawnedFakes
from support.flood import Flood
from support.focus import far_time
from support.names import CONTROL_IFACE, CONTROL_NAME, CONTROL_PATH
from support.waiting import pump_for, pump_until, wait_until

TEST_TIMEOUT = 60

FAST = 0.5   # a bound on behaviour while the daemon is hung, not a benchmark

SEED = int(os.environ.get("FOCUS_FAULT_SEED", "0")) or random.SystemRandom().randrange(1, 2 ** 31)

SUMMARY_CONFIG = """
[summary]
times = ["%s"]

[apps."Digest"]
delivery = "summary"
"""


def control(client, method, params=None, reply="(s)"):
    import json
    out = client.call(method, params, reply, dest=CONTROL_NAME, path=CONTROL_PATH, iface=CONTROL_IFACE,
                      timeout_ms=20000)
    return json.loads(out[0]) if reply == "(s)" else out[0]


def all_history(bridge):
    """Every history row, read from the state file of the stopped `bridge` (History lists
    at most the newest 1000)."""
    assert bridge.stop() == 0
    db = sqlite3.connect(str(bridge.state_dir / "state.sqlite3"))
    try:
        return [{"id": i, "app": a, "summary": s, "decision": d}
                for i, a, s, d in db.execute("SELECT id, app, summary, decision FROM history ORDER BY row")]
    finally:
        db.close()


def all_held(bridge):
    """Every held notification, id -> summary, read from the state file of the stopped `bridge`
    (Summary lists at most 1000)."""
    assert bridge.stop() == 0
    db = sqlite3.connect(str(bridge.state_dir / "state.sqlite3"))
    try:
        return {i: s for i, s in db.execute("SELECT id, summary FROM held")}
    finally:
        db.close()


# --------------------------------------------------------------------------- kill -9 of the bridge
def test_bridge_killed_mid_flood_loses_nothing_acknowledged(bridge_factory, fake_daemon, config, make_client):
    """3 rounds: start, flood from 5 clients (3 delivered apps, 2 held by the summary),
    SIGKILL at a random moment, restart on the same state. Every Notify answered before a
    kill is in history; every answered held one is still held; IDs are never reused."""
    config(SUMMARY_CONFIG % far_time())
    rng = random.Random(SEED)
    apps = ["Alpha", "Beta", "Gamma", "Digest", "Digest"]
    acked = {}          # summary -> (id, app, round)
    kills = []
    for rnd in range(3):
        b = bridge_factory()
        clients = [make_client("round %d app %d" % (rnd, k)) for k in range(len(apps))]
        wait_connected(clients[0])
        threshold = rng.randint(30, 1700)
        state = {"killed": False}

        def on_ack(flood, summary, nid, b=b, threshold=threshold, state=state):
            if not state["killed"] and len(flood.acked) >= threshold:
                os.kill(b.pid, signal.SIGKILL)     # at once, from inside the flood
                state["killed"] = True
                flood.stop_sending()

        flood = Flood(clients, per_client=400, apps=apps, label="round %d" % rnd, window=24, on_ack=on_ack)
        flood.start()
        assert pump_until(flood.done, 30), "round %d: calls still unanswered: %r" % (rnd, flood.outstanding)
        assert state["killed"], "round %d: the flood ended before the kill point %d" % (rnd, threshold)
        assert b.stop(sig=signal.SIGKILL, timeout=5) == -signal.SIGKILL
        kills.append((threshold, len(flood.acked), len(flood.failed)))
        assert flood.acked, "round %d: nothing was acknowledged before the kill" % rnd
        for summary, (nid, app, _k) in flood.acked.items():
            acked[summary] = (nid, app, rnd)

    ids = [v[0] for v in acked.values()]
    where = "seed %d, kills (threshold, acked, unanswered) %r" % (SEED, kills)
    assert len(set(ids)) == len(ids), "an ID was given out twice across the crashes (%s)" % where
    assert 0 not in ids

    print("kill -9 of the bridge:", where, "held acknowledged:", sum(1 for v in acked.values() if v[1] == "Digest"))
    last = bridge_factory()
    c = make_client("after the crashes")
    wait_connected(c)
    held_acked = {v[0]: s for s, v in acked.items() if v[1] == "Digest"}
    assert held_acked, "no held notification was acknowledged (%s)" % where
    summary = control(c, "Summary")
    assert c.status()["counts"]["held-summary"] == summary["count"]
    # Summary lists at most 1000 items: what is held is read whole from the stopped bridge's file.
    still_held = all_held(last)
    lost = {nid: s for nid, s in held_acked.items() if still_held.get(nid) != s}
    assert not lost, "%d acknowledged held notification(s) no longer held after kill -9: %r (%s)" % (
        len(lost), sorted(lost.items())[:5], where)
    assert summary["count"] == len(still_held)
    # and the summary still comes, standing for all of them
    last = bridge_factory()
    c = make_client("after the look at the file")
    wait_connected(c)
    assert control(c, "DeliverSummary", reply="(u)") == len(still_held)
    fake_daemon.wait_notify("Notification Summary", timeout=10)

    history = {}
    for row in all_history(last):
        history.setdefault(row["id"], []).append(row)
    missing = sorted((v[0], s) for s, v in acked.items() if v[0] not in history)
    assert not missing, "%d acknowledged notification(s) missing from history after kill -9, e.g. %r (%s)" % (
        len(missing), missing[:5], where)
    wrong = [(s, v[0], history[v[0]][-1]["summary"]) for s, v in acked.items()
             if not any(r["summary"] == s and r["app"] == v[1] for r in history[v[0]])]
    assert not wrong, "history rows do not match what was acknowledged: %r (%s)" % (wrong[:5], where)
    for nid in held_acked:
        assert history[nid][-1]["decision"] == "held-summary", (nid, history[nid])
    # held but unacknowledged ones (committed, reply lost in the kill) may be held too; nothing else is
    assert set(still_held) <= set(history), "held items without a history row"


# --------------------------------------------------------------------------- kill -9 of the daemon
DAEMON_KILL_CONFIG = """
[general]
rate-limit = 0
"""


def test_daemon_killed_five_times_mid_flood_is_restarted_and_nothing_is_lost(bridge_factory, config, make_client):
    """spawn mode with the fake daemon as the command; kill -9 it five times while a flood is
    queued and in flight, and flood again while it is gone.

    What a user sees, for every notification the bridge acknowledged:
    * it is on screen in the daemon running at the end (received by that instance exactly
      once, and never reported closed), or
    * it was on screen in a daemon that then died (that instance received it) and its app
      was told NotificationClosed(id, 4) exactly once — and it does not pop up again later.
    Nothing else: no notification silently vanishes, none is shown twice."""
    config(DAEMON_KILL_CONFIG, base=False)
    b = bridge_factory("spawn", command=SPAWN_FAKE)
    fakes = SpawnedFakes(private_bus_address(b))
    inst = fakes.wait_new(None, 15)
    assert inst, "the bridge did not start the fake daemon on its private bus"
    apps = ["Mail", "Chat", "Build", "Calendar"]
    clients = [make_client("app %s" % a) for a in apps]
    wait_connected(clients[0], 15)
    floods = []
    pids = [inst["pid"]]
    for rnd in range(5):
        label = "kill %d" % rnd
        before = Flood(clients, per_client=120, apps=apps, label=label, window=16)
        before.start()
        floods.append(before)
        got = pump_until(lambda: sum(1 for e in SpawnedFakes.notifies(inst) if e["summary"].startswith(label + " "))
                         >= 25, 15)
        assert got, "round %d: the daemon received nothing of the flood" % rnd
        os.kill(inst["pid"], signal.SIGKILL)
        gap = Flood(clients, per_client=20, apps=apps, label="gap %d" % rnd, window=8)
        gap.start()
        floods.append(gap)
        new = fakes.wait_new(inst["pid"], 20)
        assert new, "round %d: the daemon was not restarted after kill -9 (bridge alive: %s)" % (rnd, b.alive())
        inst = new
        pids.append(inst["pid"])
        assert pump_until(lambda: before.done() and gap.done(), 20)
    last = Flood(clients, per_client=50, apps=apps, label="after", window=16).run(20)
    floods.append(last)
    assert len(set(pids)) == 6, "expected 6 daemon processes (5 restarts), got PIDs %r" % pids
    for pid in pids[:-1]:
        assert not os.path.exists("/proc/%d/status" % pid) or "zombie" in open("/proc/%d/status" % pid).read(), \
            "killed daemon %d still running" % pid

    acked = {}
    for f in floods:
        for s, (nid, app, k) in f.acked.items():
            acked[s] = (nid, clients[k])
    unanswered = {s: e for f in floods for s, e in f.failed.items()}
    assert not unanswered, "Notify failed while the daemon was killed: %r" % list(unanswered.items())[:5]
    assert len(acked) == sum(f.per_client * len(clients) for f in floods)

    final = inst

    def final_summaries():
        return [e["summary"] for e in SpawnedFakes.notifies(final)]

    def closed4(nid, client):
        return [s for s in client.got("NotificationClosed", nid) if s.args[1] == 4]

    def unaccounted():
        shown = set(final_summaries())
        return [s for s, (nid, c) in acked.items() if s not in shown and not closed4(nid, c)]

    pump_until(lambda: not unaccounted(), 20)
    earlier = {}
    for i in fakes.instances:
        if i is final:
            continue
        for e in SpawnedFakes.notifies(i):
            earlier.setdefault(e["summary"], []).append(i["pid"])
    lost = unaccounted()
    assert not lost, (
        "%d acknowledged notification(s) lost: neither shown by the running daemon nor reported closed "
        "(reason 4); %d of them had reached a daemon that was killed (e.g. %r), %d never reached any "
        "(e.g. %r); status: %r" % (
            len(lost), sum(1 for s in lost if s in earlier), [s for s in lost if s in earlier][:3],
            sum(1 for s in lost if s not in earlier), [s for s in lost if s not in earlier][:3],
            clients[0].status()["counts"]))

    shown = final_summaries()
    dup = sorted({s for s in shown if shown.count(s) > 1})
    assert not dup, "shown twice by the running daemon: %r" % dup[:5]
    both = [s for s, (nid, c) in acked.items() if s in shown and closed4(nid, c)]
    assert not both, "reported closed (4) and still shown by the running daemon: %r" % both[:5]
    for s, (nid, c) in acked.items():
        closes = c.got("NotificationClosed", nid)
        assert len(closes) <= 1, "%s: NotificationClosed sent %d times: %r" % (s, len(closes), [x.args for x in closes])
        if closes:
            assert closes[0].args == (nid, 4), (s, closes[0].args)
            assert s in earlier, "%s (id %d) reported closed (4) but no daemon ever received it" % (s, nid)
    closed_count = sum(1 for s, (nid, c) in acked.items() if closed4(nid, c))
    assert closed_count > 0, "no notification was on screen when a daemon died: the test did not test"
    counts = clients[0].status()["counts"]
    assert counts["queued"] == 0 and counts["in-flight"] == 0, counts


# --------------------------------------------------------------------------- SIGSTOP
def test_stopped_daemon_keeps_notify_fast_and_resumes_in_order(bridge, fake_daemon, client):
    client.notify("before the stop", app="Warmup")
    fake_daemon.wait_notify("before the stop")
    fake_daemon.clear()      # a call to the fake after its Notify handler: that reply is out
    wait_until(lambda: client.status()["counts"]["in-flight"] == 0, 5)
    os.kill(fake_daemon.pid, signal.SIGSTOP)
    try:
        slow = []
        t_end = time.monotonic() + 2.0     # the daemon stays stopped at least 2 s, Notify keeps coming
        n = 0
        while n < 40 or time.monotonic() < t_end:
            nid, took = client.timed_notify("stopped %02d" % n, app="Stopped%d" % (n % 4))
            assert nid > 0
            if took >= FAST:
                slow.append((n, round(took, 3)))
            n += 1
            pump_for(0.04)
        assert not slow, "Notify slow while the daemon does not answer: %r" % slow
        t0 = time.monotonic()
        info = client.server_information()
        counts = client.status()["counts"]
        assert time.monotonic() - t0 < FAST and info[0] == "FakeDaemon"
        assert counts["in-flight"] <= 8, counts
        assert counts["in-flight"] + counts["queued"] == n, counts
    finally:
        os.kill(fake_daemon.pid, signal.SIGCONT)
    fake_daemon.wait_notify("stopped %02d" % (n - 1), timeout=15)
    got = [e["summary"] for e in fake_daemon.seen("Notify")]
    assert got == ["stopped %02d" % i for i in range(n)], got
    assert fake_daemon.stats()["max_outstanding"] <= 8
    wait_until(lambda: client.status()["counts"]["queued"] == 0, 5)


# --------------------------------------------------------------------------- full / read-only disk
def error_lines(bridge, *words):
    return [l for l in bridge.stderr().splitlines()
            if all(w.lower() in l.lower() for w in words)]


@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EROFS], ids=["full", "read-only"])
def test_state_on_a_full_or_read_only_disk(bridge_factory, fake_daemon, config, make_client, fail_writes, err):
    config(SUMMARY_CONFIG % far_time())
    env, trigger = fail_writes(err)
    # what the disk refused is tried again every 200 ms here (5 s by default)
    b = bridge_factory(extra_env=dict(env, FOCUS_BRIDGE_STATE_RETRY_MS="200"))
    c = make_client()
    wait_connected(c)
    first = c.notify("before the disk fails", app="Writer")
    fake_daemon.wait_notify("before the disk fails")
    wait_until(lambda: any(r["id"] == first for r in c.history(10)), 5)

    trigger.touch()
    ids = []
    for i in range(5):
        nid, took = c.timed_notify("disk failing %d" % i, app="Writer")
        assert took < FAST, "Notify took %.2f s on a failing disk" % took
        ids.append(nid)
        fake_daemon.wait_notify("disk failing %d" % i)
    # one the summary holds: it stays held (in memory until the disk takes it), not shown
    held = c.notify("would be held", app="Digest")
    assert c.status()["counts"]["held-summary"] == 1
    assert b.alive()

    # a clear log line: an error, about the state database, saying why (SQLite's words)
    cause = {errno.ENOSPC: "full", errno.EROFS: "I/O error"}[err]
    lines = [l for l in error_lines(b, "state database") if " error " in l]
    assert lines, "no error line about the state database; stderr:\n%s" % b.stderr_tail()
    assert cause.lower() in lines[0].lower(), "the log line does not say what went wrong (%s): %r" % (cause, lines[0])
    assert any("held ones stay held" in l for l in lines), \
        "nothing logged about what waits in memory (%d):\n%s" % (held, "\n".join(lines))
    state = c.status()["state"]
    assert state["problem"] and state["unwritten"] >= 6 and state["lost"] == 0, state
    # a flood on the failing disk adds no line: one per failing operation, not one per notification
    before_flood = len(error_lines(b, "state database"))
    flood = Flood([c], per_client=400, apps=["Flooder"], label="flood on a failing disk", window=16).run(30)
    assert not flood.failed
    # every call was answered, so every batch was written (or failed to be) before its answer
    failing = error_lines(b, "state database")
    assert len(failing) == before_flood <= 4, \
        "%d log lines about the state database for %d notifications on a failing disk:\n%s" % (
            len(failing), len(flood.acked) + 6, "\n".join(failing[:10]))
    # the disk works again: recording resumes, and what was recorded before is still there
    trigger.unlink()
    after = c.notify("disk works again", app="Writer")
    fake_daemon.wait_notify("disk works again")
    wait_until(lambda: c.status()["state"]["unwritten"] == 0, 10, message="what waited in memory was never written")
    recovered = [l for l in error_lines(b, "works again") if "recording notifications in the state database" in l]
    assert len(recovered) == 1, "the recovery is said once: %r" % recovered
    rows = {r["id"]: r for r in c.history(1000)}
    assert after in rows and rows[after]["summary"] == "disk works again", \
        "history not recorded again once the disk works: %r" % sorted(rows)
    assert first in rows
    # nothing acknowledged on the failing disk is missing: it waited in memory and is written now
    rows = {r["id"] for r in c.history(1000)}
    missing = [nid for nid in ids + [held] + [v[0] for v in flood.acked.values()] if nid not in rows]
    assert not missing, "%d acknowledged notifications never reached history" % len(missing)
    assert c.status()["state"]["unwritten"] == 0
    assert fake_daemon.seen("Notify", summary="would be held") == [], "the held notification was shown"
    assert c.notify("one more", app="Later") > after


def test_ids_not_reused_after_a_full_disk(bridge_factory, fake_daemon, config, make_client, fail_writes):
    """IDs are reserved in blocks of 1024 (the high-water mark). A block reserved while the disk
    is full cannot be recorded; once the disk works again and the bridge is killed, the IDs
    given out from it must not be given out again (focus-bridge(1): never reused)."""
    config(DAEMON_KILL_CONFIG, base=False)
    env, trigger = fail_writes(errno.ENOSPC)
    b = bridge_factory(extra_env=env)
    c = make_client()
    wait_connected(c)
    trigger.touch()
    flood = Flood([c], per_client=1100, apps=["Counter"], label="full disk", window=32).run(40)
    trigger.unlink()
    tail = [c.notify("disk back %d" % i, app="Counter") for i in range(3)]
    given = sorted(v[0] for v in flood.acked.values()) + tail
    b.stop(sig=signal.SIGKILL)
    bridge_factory()
    c2 = make_client("after the restart")
    wait_connected(c2)
    nid = c2.notify("after the restart", app="Counter")
    assert nid > max(given), "ID %d given out again after a full disk and kill -9 (IDs up to %d were given)" % (
        nid, max(given))
