"""State survives a restart: IDs are never reused, the store is private to the user."""

import signal
import sqlite3
import stat
import time

from support.names import CONTROL_NAME, NOTIF_NAME
from support.waiting import wait_until

TEST_TIMEOUT = 30


def mode_of(path):
    return stat.S_IMODE(path.stat().st_mode)


def test_ids_survive_a_clean_restart(bridge_factory, fake_daemon, make_client, bus):
    b1 = bridge_factory()
    c = make_client("before")
    before = [c.notify("before %d" % i, app="Restarter") for i in range(3)]
    assert b1.stop() == 0
    assert bus.owner(NOTIF_NAME) is None and bus.owner(CONTROL_NAME) is None, "names not released"
    bridge_factory()
    c2 = make_client("after")
    after = c2.notify("after restart", app="Restarter")
    assert after > max(before), "ID %d reused/reset after restart (earlier: %s)" % (after, before)
    fake_daemon.wait_notify("after restart")


def test_ids_survive_kill_9(bridge_factory, fake_daemon, make_client):
    b1 = bridge_factory()
    c = make_client("before")
    before = [c.notify("acked %d" % i) for i in range(5)]
    b1.stop(sig=signal.SIGKILL)
    bridge_factory()
    c2 = make_client("after")
    after = c2.notify("after crash")
    assert after > max(before), "acknowledged ID reused after a crash: %d <= %d" % (after, max(before))


def test_history_survives_a_restart(bridge_factory, fake_daemon, make_client):
    b1 = bridge_factory()
    c = make_client()
    bid = c.notify("remember me", "body kept", app="Historian")
    wait_until(lambda: any(e["id"] == bid for e in c.history(10)), 5)
    assert b1.stop() == 0
    bridge_factory()
    c2 = make_client()
    entries = [e for e in c2.history(50) if e["id"] == bid]
    assert entries and entries[0]["summary"] == "remember me" and entries[0]["app"] == "Historian"


def test_state_store_is_private(bridge, client):
    client.notify("make sure something is stored")
    db = bridge.state_dir / "state.sqlite3"
    wait_until(db.exists, 5, message="%s was not created" % db)
    assert mode_of(db) == 0o600, "state.sqlite3 has mode %o" % mode_of(db)
    assert mode_of(bridge.state_dir) == 0o700, "state folder has mode %o" % mode_of(bridge.state_dir)


def test_state_dir_option(bridge_factory, fake_daemon, make_client, tmp_path):
    d = tmp_path / "explicit-state"
    bridge_factory(args=["--state-dir", str(d)])
    make_client().notify("stored elsewhere")
    db = d / "state.sqlite3"
    wait_until(db.exists, 5, message="--state-dir not used: %s missing" % db)
    assert mode_of(db) == 0o600


def test_history_older_than_history_days_is_pruned_at_start(bridge_factory, fake_daemon, make_client, tmp_path):
    first = bridge_factory()
    assert first.stop() == 0
    now = time.time()
    db = sqlite3.connect(str(first.state_dir / "state.sqlite3"))   # written while the bridge is stopped
    try:
        db.executemany(
            "INSERT INTO history (id, app, summary, body, level, decision, received) "
            "VALUES (?, 'Old', ?, '', 'active', 'delivered', ?)",
            [(900001, "ten days old", now - 10 * 86400), (900002, "three days old", now - 3 * 86400),
             (900003, "yesterday", now - 86400)])
        db.commit()
    finally:
        db.close()
    config = tmp_path / "config" / "focus-bridge" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[general]\nhistory-days = 2\n")
    second = bridge_factory()
    summaries = [e["summary"] for e in make_client().history(50, "Old")]
    assert summaries == ["yesterday"], summaries
    assert "2 notifications older than 2 days forgotten" in second.stderr()
