"""The bridge's own ID space, mapped to the daemon's: replace and close act on the right
notification of the right application, and on nothing else."""

import shutil

import pytest
from gi.repository import GLib

from support.clients import settle
from support.names import NOTIF_NAME, NOTIF_PATH
from support.processes import run, session_env

TEST_TIMEOUT = 30


def test_ids_start_at_one_increase_and_differ_from_the_daemons(bridge, fake_daemon, client):
    ids = [client.notify("n%d" % i) for i in range(5)]
    assert ids[0] == 1, ids
    assert ids == sorted(set(ids)) and 0 not in ids, ids
    dids = [fake_daemon.wait_notify("n%d" % i)["daemon_id"] for i in range(5)]
    assert not set(ids) & set(dids), (ids, dids)


def test_replace_returns_the_same_id_and_replaces_on_the_daemon(bridge, fake_daemon, client):
    bid = client.notify("v1", app="Replacer")
    rec1 = fake_daemon.wait_notify("v1")
    assert rec1["replaces_id"] == 0
    assert client.notify("v2", app="Replacer", replaces_id=bid) == bid
    rec2 = fake_daemon.wait_notify("v2")
    assert rec2["replaces_id"] == rec1["daemon_id"], "replaces_id was not translated to the daemon's ID"
    assert rec2["daemon_id"] == rec1["daemon_id"]


def test_replace_sent_right_after_notify_still_replaces(bridge, fake_daemon, client):
    """A progress bar: the update follows at once, before the daemon has even answered
    the first Notify. It must still replace, not pop up a second notification."""
    bid = client.notify("progress 0%", app="Copier")
    for pct in (10, 20, 30):
        assert client.notify("progress %d%%" % pct, app="Copier", replaces_id=bid) == bid
    fake_daemon.wait_notify("progress 30%")
    # updates superseded before they were forwarded may be skipped (even the first);
    # what is forwarded must be one notification, replaced in place, ending at 30 %
    forwarded = [n for n in fake_daemon.notifies() if n["summary"].startswith("progress")]
    did = forwarded[0]["daemon_id"]
    assert forwarded[0]["replaces_id"] == 0
    assert forwarded[-1]["summary"] == "progress 30%"
    for rec in forwarded[1:]:
        assert rec["replaces_id"] == did, (rec["summary"], rec["replaces_id"], did)
    assert fake_daemon.stats()["live"].count(did) == 1
    assert len(fake_daemon.stats()["live"]) == 1, "the daemon shows more than one notification"


def test_close_is_translated_and_the_app_told(bridge, fake_daemon, client):
    bid = client.notify("to close")
    did = fake_daemon.wait_notify("to close")["daemon_id"]
    client.close(bid)
    fake_daemon.wait_call("CloseNotification", id=did)
    assert client.wait_signal("NotificationClosed", bid).args == (bid, 3)


def test_unknown_replaces_id_gives_a_new_id(bridge, fake_daemon, client):
    first = client.notify("first")
    nid = client.notify("with bogus replaces", replaces_id=987654)
    assert nid not in (0, 987654, first)
    assert nid > first
    rec = fake_daemon.wait_notify("with bogus replaces")
    assert rec["replaces_id"] == 0


def test_close_of_unknown_id_is_a_quiet_success(bridge, fake_daemon, client):
    client.close(424242)
    client.close(0)
    bid = client.notify("real")
    did = fake_daemon.wait_notify("real")["daemon_id"]
    client.close(bid)
    fake_daemon.wait_call("CloseNotification", id=did)
    # the bridge works in order: had it forwarded the bogus closes, they'd be recorded by now
    assert [c["id"] for c in fake_daemon.seen("CloseNotification")] == [did]


def test_a_script_of_the_same_user_closes_by_id(bridge, fake_daemon, bus):
    """As with the daemon alone: `id=$(notify-send -p …)`, then `gdbus call … CloseNotification
    $id` from another process (focus-bridge(1), BEHAVIOUR: unsandboxed processes of one user may close each
    other's notifications; other users and sandboxed apps may not — test_trust.py)."""
    env = session_env(bus.address)
    r = run(["notify-send", "-p", "-a", "Backup", "Backup running"], env)
    assert r.returncode == 0, r.stderr
    bid = int(r.stdout)
    did = fake_daemon.wait_notify("Backup running")["daemon_id"]
    r = run(["gdbus", "call", "--address", bus.address, "--dest", NOTIF_NAME, "--object-path", NOTIF_PATH,
             "--method", "org.freedesktop.Notifications.CloseNotification", str(bid)], env)
    assert r.returncode == 0, r.stderr
    fake_daemon.wait_call("CloseNotification", id=did)


def test_dunstify_closes_what_it_sent_from_another_process(bridge, fake_daemon, bus):
    if not shutil.which("dunstify"):
        pytest.skip("dunstify not installed")
    env = session_env(bus.address)
    r = run(["dunstify", "-a", "MyTool", "-p", "Working"], env)
    assert r.returncode == 0, r.stderr
    bid = int(r.stdout)
    did = fake_daemon.wait_notify("Working")["daemon_id"]
    r = run(["dunstify", "-C", str(bid)], env)
    assert r.returncode == 0, r.stderr
    fake_daemon.wait_call("CloseNotification", id=did)


def test_same_app_from_a_new_connection_can_replace(bridge, fake_daemon, make_client):
    """Like `notify-send -r ID` from a new process: same app key, new connection."""
    a = make_client("process 1")
    bid = a.notify("battery 20%", app="PowerApplet")
    did = fake_daemon.wait_notify("battery 20%")["daemon_id"]
    a.dispose()
    b = make_client("process 2")
    assert b.notify("battery 10%", app="PowerApplet", replaces_id=bid) == bid
    assert fake_daemon.wait_notify("battery 10%")["replaces_id"] == did


def test_same_app_from_a_new_connection_can_close(bridge, fake_daemon, make_client):
    a = make_client("process 1")
    bid = a.notify("closable", app="Closer", hints={"desktop-entry": GLib.Variant("s", "org.example.Closer")})
    did = fake_daemon.wait_notify("closable")["daemon_id"]
    b = make_client("process 2")
    b.notify("another", app="Closer", hints={"desktop-entry": GLib.Variant("s", "org.example.Closer")})
    b.close(bid)
    fake_daemon.wait_call("CloseNotification", id=did)
