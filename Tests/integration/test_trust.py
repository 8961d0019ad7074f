"""Trust follows the Unix user and the sandbox, never a name a client claims
(focus-bridge(1), BEHAVIOUR, "Ownership").

The bus here admits every user (support.buses.MultiUserBus), so calls from user `nobody` reach
the bridge and the bridge itself must refuse them. A Flatpak app is played the way Flatpak
runs one: a process whose root is a folder holding `/.flatpak-info` (a mount namespace and
chroot, as root), which the bridge reads through /proc/PID/root — never from app_name."""

import json
import os
import pwd
import shutil
import subprocess

import pytest
from gi.repository import Gio, GLib

from support.bridge import wait_connected
from support.buses import MultiUserBus
from support.clients import settle
from support.fifos import release
from support.focus import far_time
from support.names import CONTROL_IFACE, CONTROL_NAME, CONTROL_PATH, NOTIF_NAME, NOTIF_PATH
from support.processes import memory_of, run, run_as_nobody, session_env
from support.sandbox import Sandbox
from support.waiting import pump_for, pump_until

TEST_TIMEOUT = 45
DUNST = "org.dunstproject.cmd0"

SUMMARY = """
[summary]
times = ["%s"]

[apps."Digest"]
delivery = "summary"
"""


@pytest.fixture
def bus(tmp_path, procs):
    """Overrides support.buses' bus for this module: every user may connect."""
    b = MultiUserBus(tmp_path, "session-any-user", procs)
    yield b
    b.stop()


def gdbus_notify(bus, summary, app="Intruder", replaces=0):
    return ["gdbus", "call", "--address", bus.address, "--dest", NOTIF_NAME, "--object-path", NOTIF_PATH,
            "--method", "org.freedesktop.Notifications.Notify", "--", app, str(replaces), "", summary, "", "[]",
            "{}", "-1"]


def gdbus_close(bus, nid):
    return ["gdbus", "call", "--address", bus.address, "--dest", NOTIF_NAME, "--object-path", NOTIF_PATH,
            "--method", "org.freedesktop.Notifications.CloseNotification", str(nid)]


def returned_id(result):
    assert result.returncode == 0, result.stderr
    return int(result.stdout.strip().strip("(,)").split()[-1])


# --------------------------------------------------------------------------- another user
def test_another_user_can_neither_close_nor_replace(bridge, fake_daemon, client, bus):
    env = session_env(bus.address)
    nid = client.notify("one-time code 123456", app="Bank")
    did = fake_daemon.wait_notify("one-time code 123456")["daemon_id"]
    r = run_as_nobody(gdbus_close(bus, nid), env)
    assert r.returncode == 0, "someone else's ID is treated as unknown: a quiet success (%s)" % r.stderr
    got = returned_id(run_as_nobody(gdbus_notify(bus, "hijacked", app="Bank", replaces=nid), env))
    assert got != nid, "user nobody replaced root's notification"
    rec = fake_daemon.wait_notify("hijacked")
    assert rec["replaces_id"] == 0
    settle(client)
    assert fake_daemon.seen("CloseNotification", id=did) == [], "user nobody closed root's notification"
    assert client.got("NotificationClosed") == []


def test_another_user_can_neither_close_nor_replace_a_held_notification(bridge_factory, fake_daemon, config, client,
                                                                        bus):
    config(SUMMARY % far_time())
    bridge_factory()
    wait_connected(client)
    env = session_env(bus.address)
    nid = client.notify("owner's draft", "original body", app="Digest")
    run_as_nobody(gdbus_close(bus, nid), env)
    got = returned_id(run_as_nobody(gdbus_notify(bus, "hijacked", app="Digest", replaces=nid), env))
    assert got != nid, "another user replaced a held notification (same ID %d returned)" % nid
    summary = json.loads(client.call("Summary", None, "(s)", dest=CONTROL_NAME, path=CONTROL_PATH,
                                     iface=CONTROL_IFACE)[0])
    items = {i["id"]: i for i in summary["items"]}
    assert nid in items and items[nid]["summary"] == "owner's draft", items
    # the owner's close still works on its own ID
    client.close(nid)
    assert client.wait_signal("NotificationClosed", nid).args == (nid, 3)


# --------------------------------------------------------------------------- sandboxed apps
def test_a_sandboxed_app_cannot_close_or_replace_another_apps_notification(bridge, fake_daemon, client, bus,
                                                                           tmp_path):
    sandbox = Sandbox(tmp_path, "org.example.Sandboxed")
    env = session_env(bus.address)
    nid = client.notify("mail from the boss", app="Mail")
    did = fake_daemon.wait_notify("mail from the boss")["daemon_id"]
    # it claims to be Mail: the claim counts for nothing
    got = returned_id(sandbox.run(gdbus_notify(bus, "phishing", app="Mail", replaces=nid), env))
    assert got != nid, "a sandboxed app replaced another app's notification by claiming its name"
    r = sandbox.run(gdbus_close(bus, nid), env)
    assert r.returncode == 0, r.stderr
    rec = fake_daemon.wait_notify("phishing")
    assert rec["replaces_id"] == 0
    settle(client)
    assert fake_daemon.seen("CloseNotification", id=did) == [], "a sandboxed app closed another app's notification"


def test_a_sandboxed_app_acts_on_its_own_from_another_process(bridge, fake_daemon, client, bus, tmp_path):
    sandbox = Sandbox(tmp_path, "org.example.Sandboxed")
    env = session_env(bus.address)
    nid = returned_id(sandbox.run(gdbus_notify(bus, "download 10%", app="Downloader"), env))
    fake_daemon.wait_notify("download 10%")
    assert returned_id(sandbox.run(gdbus_notify(bus, "download 90%", app="Downloader", replaces=nid), env)) == nid
    did = fake_daemon.wait_notify("download 90%")["daemon_id"]
    # an unsandboxed process of the same user is not that app
    client.close(nid)
    assert returned_id(run(gdbus_notify(bus, "not yours", app="Downloader", replaces=nid), env)) != nid
    fake_daemon.wait_notify("not yours")
    assert fake_daemon.seen("CloseNotification", id=did) == []
    assert sandbox.run(gdbus_close(bus, nid), env).returncode == 0
    fake_daemon.wait_call("CloseNotification", id=did)


# --------------------------------------------------------------------------- a root of the sender's own
# Any process may enter a namespace of its own and chroot into a folder it chose; the bridge reads
# that folder's /.flatpak-info through /proc/PID/root, on its main loop.

def notify_from_a_root_whose_flatpak_info_is(make_info, bridge, fake_daemon, client, bus, focusctl, tmp_path, what):
    """A sandboxed sender whose /.flatpak-info `make_info(path)` made is answered, and a
    well-behaved client's Notify sent meanwhile is answered too; focusctl still answers."""
    sandbox = Sandbox(tmp_path, "org.example.Odd")
    info = sandbox.root / ".flatpak-info"
    info.unlink()
    make_info(info)
    odd = sandbox.start(gdbus_notify(bus, "from a root with %s" % what, app="Odd"), session_env(bus.address))
    try:
        # Sent while the odd sender's call may be in the bridge: answered all the same.
        nid = client.notify("meanwhile, a well-behaved client", app="Mail")
        assert nid > 0
        fake_daemon.wait_notify("meanwhile, a well-behaved client")
        try:
            out, err = odd.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            pytest.fail("the Notify of a sender whose /.flatpak-info is %s was not answered in 15 s" % what)
        Sandbox.skip_unless_started(odd.returncode, err)
        assert odd.returncode == 0, err
        fake_daemon.wait_notify("from a root with %s" % what)
        assert client.notify("and after it", app="Mail") > 0
        r = focusctl("status", timeout=10)
        assert r.returncode == 0, r.stderr
    finally:
        odd.kill()
        odd.wait()
        release(info)


def test_a_fifo_as_flatpak_info_blocks_nobody(bridge, fake_daemon, client, bus, focusctl, tmp_path):
    notify_from_a_root_whose_flatpak_info_is(os.mkfifo, bridge, fake_daemon, client, bus, focusctl, tmp_path,
                                             "a FIFO")
    assert bridge.alive()


def test_a_huge_sparse_flatpak_info_is_not_read(bridge, fake_daemon, client, bus, focusctl, tmp_path):
    def sparse(path):
        with open(path, "wb") as f:
            f.write(b"[Application]\nname=org.example.Huge\n")
            f.truncate(1 << 30)         # 1 GiB that takes no disk

    _, peak_before = memory_of(bridge.pid)
    notify_from_a_root_whose_flatpak_info_is(sparse, bridge, fake_daemon, client, bus, focusctl, tmp_path,
                                             "a 1 GiB sparse file")
    _, peak_after = memory_of(bridge.pid)
    assert peak_after - peak_before < 64, "the bridge's peak RSS grew by %.0f MiB" % (peak_after - peak_before)


# --------------------------------------------------------------------------- vendor passthrough
def test_vendor_calls_from_another_user_are_refused(bridge, fake_daemon, client, bus):
    env = session_env(bus.address)
    call = ["gdbus", "call", "--address", bus.address, "--dest", NOTIF_NAME, "--object-path", NOTIF_PATH,
            "--method", DUNST + ".Echo", "history with an OTP"]
    r = run_as_nobody(call, env)
    assert r.returncode != 0 and "org.freedesktop.DBus.Error.AccessDenied" in r.stderr, (r.stdout, r.stderr)
    r = run_as_nobody(["gdbus", "call", "--address", bus.address, "--dest", NOTIF_NAME, "--object-path", NOTIF_PATH,
                       "--method", "org.freedesktop.DBus.Properties.Set", DUNST, "paused", "<true>"], env)
    assert r.returncode != 0 and "AccessDenied" in r.stderr, (r.stdout, r.stderr)
    # the user's own dunstctl still works, and nothing of nobody's reached the daemon
    assert client.call("Echo", GLib.Variant("(s)", ("mine",)), "(s)", iface=DUNST) == ("fake:mine",)
    assert [c for c in fake_daemon.calls() if c.get("method", "").startswith(DUNST + ".Echo")
            and c.get("args", [None])[0] == "history with an OTP"] == []
    assert fake_daemon.seen("org.freedesktop.DBus.Properties.Set") == []


def test_vendor_calls_to_a_hung_daemon_are_bounded(bridge, fake_daemon, client):
    fake_daemon.set_delay(30.0, blocking=True)
    client.notify("hang the daemon")
    fake_daemon.wait_notify("hang the daemon")
    payload = "x" * (256 * 1024)
    results = {"ok": 0, "limits": 0, "other": []}
    pending = [0]

    def done(conn, res):
        pending[0] -= 1
        try:
            conn.call_finish(res)
            results["ok"] += 1
        except GLib.Error as e:
            if "LimitsExceeded" in e.message or "LimitsExceeded" in str(e):
                results["limits"] += 1
            else:
                results["other"].append(e.message)

    for _ in range(300):
        pending[0] += 1
        client.conn.call(NOTIF_NAME, NOTIF_PATH, DUNST, "Echo", GLib.Variant("(s)", (payload,)),
                         GLib.VariantType("(s)"), Gio.DBusCallFlags.NONE, 60000, None, done)
    # the calls past the bound are refused at once, while the daemon still hangs
    assert pump_until(lambda: results["limits"] >= 300 - 64, 20), results
    assert results["ok"] == 0 and not results["other"], results
    # and the bridge still answers its own methods
    assert client.server_information()[0] == "FakeDaemon"


# --------------------------------------------------------------------------- StateChanged
def test_state_changes_reach_the_users_own_watchers_only(bridge, client, bus, focusctl, watch):
    if not shutil.which("stdbuf"):
        pytest.skip("stdbuf not installed")
    env = session_env(bus.address)
    mine = watch()
    first = json.loads(mine.get(5))
    assert first["silent"] is False
    nobody = pwd.getpwnam("nobody")
    spy = subprocess.Popen(["stdbuf", "-oL", "gdbus", "monitor", "--address", bus.address, "--dest", CONTROL_NAME],
                           env=dict(env, HOME="/nonexistent"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, user=nobody.pw_uid, group=nobody.pw_gid, extra_groups=[], cwd="/")
    try:
        line = spy.stdout.readline()
        assert "Monitoring signals" in line, line
        assert focusctl("silent", "on").returncode == 0
        changed = json.loads(mine.get(5))
        assert changed["silent"] is True
        pump_for(0.5)   # had it been broadcast, the spy would have it by now
    finally:
        spy.terminate()
        out = spy.communicate(timeout=5)[0]
    assert "StateChanged" not in out, "another user saw the bridge's StateChanged: %s" % out[:500]
