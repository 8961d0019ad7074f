"""A state folder the bridge cannot write never stops it: a read-only disk at start (it owns
the names, delivers, keeps its state in memory, says what is wrong and moves it all to the folder
once it can), and a disk that fills while it runs (what is acknowledged waits in memory and is
written once there is room; what was held meanwhile is shown by Show All as itself). The disks are real: tmpfs mounts (root in the test's sandbox; the
tests skip, saying why, where mounting is not allowed)."""

import os
import subprocess

import pytest

from support.bridge import wait_connected
from support.clients import settle
from support.focus import far_time
from support.focusctl import fc_ok
from support.waiting import wait_until

TEST_TIMEOUT = 60

SUMMARY_CONFIG = """
[summary]
times = ["%s"]

[apps."Digest"]
delivery = "summary"
"""

# The folder (and the write that failed) is tried again this often here: 30 s by default.
RETRY = {"FOCUS_BRIDGE_STATE_RETRY_MS": "200"}


@pytest.fixture
def tmpfs(tmp_path):
    """mount(name, *options) -> Path: a tmpfs of the test's own, unmounted at the end."""
    mounted = []

    def mount(name, *options):
        path = tmp_path / name
        path.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join(options or ("rw",)), "tmpfs", str(path)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip("cannot mount a tmpfs here (%s); the state-disk tests need root or a mount namespace"
                        % done.stderr.strip())
        mounted.append(path)
        return path

    yield mount
    for path in reversed(mounted):
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def remount(path, option):
    subprocess.run(["mount", "-o", "remount,%s" % option, str(path)], check=True)


def fill(path):
    """Writes a file until the disk says it is full; returns it."""
    filler = path / "filler"
    with open(filler, "wb", buffering=0) as f:
        chunk = b"\0" * 65536
        try:
            while True:
                f.write(chunk)
        except OSError as error:
            assert error.errno == 28, error   # ENOSPC
    with open(path / "filler-tail", "wb", buffering=0) as f:   # the last partial block too
        try:
            while True:
                f.write(b"\0" * 512)
        except OSError:
            pass
    return filler


def summaries(client, limit=500):
    return [r["summary"] for r in client.history(limit)]


def test_a_read_only_state_disk_at_start_does_not_stop_the_bridge(bridge_factory, fake_daemon, config, make_client,
                                                                  tmpfs):
    config(SUMMARY_CONFIG % far_time())
    disk = tmpfs("state-disk", "ro", "size=4m")
    b = bridge_factory(state_home=disk, extra_env=RETRY)     # fails the test unless both names are owned
    c = make_client()
    wait_connected(c)

    first = c.notify("on a read-only disk", app="Writer")
    fake_daemon.wait_notify("on a read-only disk")
    held = c.notify("held on a read-only disk", app="Digest")
    assert c.status()["counts"]["held-summary"] == 1
    assert first in [r["id"] for r in c.history(10)]

    state = c.status()["state"]
    assert state["in-memory"] is True, state
    assert state["folder"] == str(disk / "focus-bridge")
    assert "Read-only file system" in state["problem"] and "--state-dir" in state["problem"], state["problem"]
    assert state["unwritten"] == 2, state      # both acknowledged, neither on disk
    lines = [l for l in b.stderr().splitlines() if "Read-only file system" in l]
    assert len(lines) == 1 and "in memory" in lines[0], "not one sentence about the state folder:\n%s" % (
        b.stderr_tail())
    # IDs without a state folder start high (past any stored counter), so a restart reuses none.
    assert first > 2 ** 31, first

    remount(disk, "rw")
    wait_until(lambda: c.status()["state"]["in-memory"] is False, 10,
               message="the state folder was not taken up once it could be written")
    state = c.status()["state"]
    assert state["problem"] is None and state["unwritten"] == 0, state
    assert (disk / "focus-bridge" / "state.sqlite3").exists()
    later = c.notify("after the disk became writable", app="Writer")
    fake_daemon.wait_notify("after the disk became writable")
    rows = summaries(c)
    assert rows[:3] == ["after the disk became writable", "held on a read-only disk", "on a read-only disk"], rows

    # What was held in memory is now durable: it is still held after a restart.
    assert b.stop() == 0
    bridge_factory(state_home=disk)
    c2 = make_client("after the restart")
    wait_connected(c2)
    assert c2.status()["counts"]["held-summary"] == 1, "the notification held in memory did not reach the disk"
    assert c2.notify("after the restart", app="Writer") > later > held > first
    assert fake_daemon.seen("Notify") and "held on a read-only disk" not in [
        n["summary"] for n in fake_daemon.seen("Notify")]


def test_a_full_state_disk_keeps_what_is_acknowledged_until_there_is_room(bridge_factory, fake_daemon, config,
                                                                          make_client, tmpfs):
    config(SUMMARY_CONFIG % far_time())
    disk = tmpfs("small-disk", "size=2m")
    b = bridge_factory(state_home=disk, extra_env=RETRY)
    c = make_client()
    wait_connected(c)
    c.notify("before the disk filled", app="Writer")
    fake_daemon.wait_notify("before the disk filled")

    filler = fill(disk)
    n = 300
    body = "x" * 400
    for i in range(n):
        c.notify("while full %03d" % i, body=body, app="Writer%03d" % i)   # one each: no flood limit
    fake_daemon.wait_notify("while full %03d" % (n - 1))
    c.notify("held while full", app="Digest")
    assert b.alive()
    status = c.status()
    assert status["counts"]["held-summary"] == 1, "the held notification was not kept held on a full disk"
    state = status["state"]
    assert state["in-memory"] is False
    assert state["problem"] and "full" in state["problem"] and "free space" in state["problem"], state
    assert state["unwritten"] > 0 and state["lost"] == 0, state

    filler.unlink()
    (disk / "filler-tail").unlink()
    c.notify("after there is room", app="Writer")
    fake_daemon.wait_notify("after there is room")
    wait_until(lambda: c.status()["state"]["unwritten"] == 0, 10, message="what waited in memory was never written")
    state = c.status()["state"]
    assert state["problem"] is None and state["lost"] == 0, state
    rows = summaries(c, 1000)
    missing = ["while full %03d" % i for i in range(n) if "while full %03d" % i not in rows]
    assert not missing, "%d of %d acknowledged notifications missing from history: %s" % (
        len(missing), n, missing[:5])
    assert rows[0] == "after there is room" and "held while full" in rows, rows[:3]
    assert any("are in history now" in l for l in b.stderr().splitlines()), b.stderr_tail()
    # and on disk: a restart finds them, and the held one still held
    assert b.stop() == 0
    bridge_factory(state_home=disk)
    c2 = make_client("after the restart")
    wait_connected(c2)
    assert c2.status()["counts"]["held-summary"] == 1
    assert "while full %03d" % (n - 1) in summaries(c2, 1000)


WORK = """
[focus.work]
apps = ["Mail"]
"""


def test_what_a_full_disk_held_is_shown_by_show_all_as_itself(bridge_factory, fake_daemon, config, make_client,
                                                              focusctl, tmpfs):
    """Held while the disk is full, never written: the digest's Show All still shows each one as
    itself, from memory, and none of their apps hears it closed."""
    config(WORK)
    disk = tmpfs("full-disk", "size=3m")
    b = bridge_factory(state_home=disk, extra_env=RETRY)
    c = make_client()
    wait_connected(c)
    fc_ok(focusctl, "focus", "on", "work")
    fill(disk)
    ids = [c.notify("held on a full disk %d" % i, body="body %d" % i, app="Shop", actions=["open", "Open"])
           for i in range(3)]
    status = c.status()
    assert status["counts"]["held-focus"] == 3, status["counts"]
    assert status["state"]["problem"] and "full" in status["state"]["problem"], status["state"]

    fc_ok(focusctl, "focus", "off")
    fake_daemon.wait_notify("While work was on")
    fc_ok(focusctl, "digest", "show-all")
    shown = [fake_daemon.wait_notify("held on a full disk %d" % i) for i in range(3)]
    assert [rec["body"] for rec in shown] == ["body 0", "body 1", "body 2"], shown
    assert all(rec["actions"] == ["open", "Open"] for rec in shown), shown
    settle(c)
    for nid in ids:
        assert c.got("NotificationClosed", nid) == [], "notification %d was closed: %s" % (nid, c.got("NotificationClosed", nid))
    assert "cannot be read" not in b.stderr(), b.stderr_tail()
    # each still the app's: its action reaches it under its own ID
    fake_daemon.action(shown[1]["daemon_id"], "open")
    c.wait_signal("ActionInvoked", ids[1])
    assert b.alive()
