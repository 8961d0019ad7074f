"""`name` mode: the daemon lives on the session bus under another name
(GNOME: org.gnome.Shell; Plasma: org.kde.plasmashell) and the bridge forwards to it there.

Such a daemon broadcasts its own ActionInvoked and NotificationClosed on the session bus, with
its own IDs, and no bus can stop that. Apps that match the sender of
org.freedesktop.Notifications — libnotify (notify-send), GLib's GNotification, Qt — hear each
signal once, from the bridge, with the bridge's ID; that is what these tests hold. An app that
listens without any sender match also sees the daemon's broadcasts: focus-bridge(1), DOWNSTREAM
MODES, says so."""

import shutil
import subprocess

import pytest
from gi.repository import Gio

from support.bridge import wait_connected
from support.buses import bus_call
from support.clients import settle
from support.names import NOTIF_IFACE, NOTIF_NAME, NOTIF_PATH
from support.processes import session_env
from support.waiting import wait_until

TEST_TIMEOUT = 30
DAEMON = "org.example.SessionDaemon"


@pytest.fixture
def name_mode(bridge_factory, fake_daemon_factory, bus, make_client):
    fake = fake_daemon_factory(bus=bus, name=DAEMON)
    bridge = bridge_factory("name", args=["--downstream-name", DAEMON])
    wait_connected(make_client("watcher"), 10)
    return bridge, fake


def sender_matched(client):
    """Subscribes as libnotify and GNotification do: signals from org.freedesktop.Notifications'
    owner only."""
    got = []
    client.conn.signal_subscribe(NOTIF_NAME, NOTIF_IFACE, None, NOTIF_PATH, None, Gio.DBusSignalFlags.NONE,
                                 lambda _c, _s, _p, _i, member, params: got.append((member, params.unpack())))
    bus_call(client.conn, "GetId", None, "(s)")
    return got


def test_apps_matching_the_sender_hear_each_signal_once_with_the_bridges_id(name_mode, make_client, bus):
    bridge, fake = name_mode
    app = make_client("app")
    got = sender_matched(app)
    nid = app.notify("open me", actions=["open", "Open"])
    rec = fake.wait_notify("open me")
    did = rec["daemon_id"]
    fake.action(did, "open", style="broadcast")
    fake.closed(did, 2, style="broadcast")
    app.wait_signal("NotificationClosed", nid)
    settle(app)
    assert got == [("ActionInvoked", (nid, "open")), ("NotificationClosed", (nid, 2))], got
    # nothing is asked of the session bus's vendor names in name mode (activation could start them)
    assert app.status()["downstream"]["daemon-dnd"] is None
    # the limitation the man page states: a listener with no sender match also hears the daemon
    heard_from = {s.sender for s in app.signals}
    assert heard_from == {bridge.unique_name, bus.owner(DAEMON)}, heard_from


def test_notify_send_wait_is_released_once_in_name_mode(name_mode, bus, procs):
    if not shutil.which("notify-send"):
        pytest.skip("notify-send not installed")
    _, fake = name_mode
    p = procs.spawn(["notify-send", "-A", "yes=Yes", "--wait", "Question"], env=session_env(bus.address),
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    did = fake.wait_notify("Question")["daemon_id"]
    fake.action(did, "yes", style="broadcast")
    fake.closed(did, 2, style="broadcast")
    out, err = p.communicate(timeout=10)
    assert out.strip() == "yes", (out, err)


def test_capabilities_follow_a_daemon_whose_name_comes_before_its_object(bridge_factory, fake_daemon_factory, bus,
                                                                        make_client):
    """GNOME's and Plasma's shells own their name before they serve /org/freedesktop/Notifications:
    the bridge asks again until they do, and only then forwards."""
    fake = fake_daemon_factory("--serve-later", "--capabilities", "actions,body,persistence,x-late", bus=bus,
                               name=DAEMON)
    b = bridge_factory("name", args=["--downstream-name", DAEMON])
    client = make_client()
    wait_until(lambda: "does not serve notifications yet" in b.stderr(), 5,
               message="the bridge never tried the daemon that is not serving yet")
    assert client.status()["downstream"]["connected"] is False
    assert "x-late" not in client.capabilities()
    nid = client.notify("sent before the daemon served")
    fake._call("Serve")
    wait_connected(client, 10)
    assert sorted(client.capabilities()) == ["actions", "body", "persistence", "x-late"]
    assert client.server_information()[0] == "FakeDaemon"
    rec = fake.wait_notify("sent before the daemon served")
    fake.closed(rec["daemon_id"], 1)
    assert client.wait_signal("NotificationClosed", nid).args == (nid, 1)
