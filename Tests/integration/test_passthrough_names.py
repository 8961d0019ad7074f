"""Vendor control tools through the bridge, as users run them.

* swaync-client: swaync owns org.freedesktop.Notifications *and* org.erikreider.swaync.cc on
  one connection, and swaync-client talks to the second name. With
  `[downstream] passthrough-names = ["org.erikreider.swaync.cc"]` the bridge owns that name on
  the session bus and passes every call through to the daemon's bus, and the daemon's signals
  (swaync's `SubscribeV2`, which swaync-client --subscribe and waybar listen to) come back
  from the name. A fake swaync (below) stands in, on the daemon's bus.
* makoctl: mako serves fr.emersion.Mako at /fr/emersion/Mako under the name
  org.freedesktop.Notifications; the recording fake daemon (fake_daemon.py) serves it too.
"""

import subprocess

import pytest
from gi.repository import GLib

from support.buses import wait_for_name
from support.names import NOTIF_NAME
from support.processes import PYTHON, SUPPORT, LineReader

SWAYNC = "org.erikreider.swaync.cc"
SWAYNC_PATH = "/org/erikreider/swaync/cc"
MAKO_PATH = "/fr/emersion/Mako"
MAKO = "fr.emersion.Mako"



@pytest.fixture
def fake_swaync(daemon_bus, procs, tmp_path):
    log = tmp_path / "fake-swaync.log"
    proc = procs.spawn([PYTHON, str(SUPPORT / "fake_swaync.py"), daemon_bus.address], stdout=subprocess.PIPE, stderr=open(log, "ab"))
    out = LineReader(proc.stdout)
    line = out.wait_for(lambda l: l.startswith(("READY", "NAME-TAKEN")), 15)
    if not line or not line.startswith("READY"):
        pytest.fail("fake swaync did not start (%r): %s" % (line, log.read_text()))
    return proc


@pytest.fixture
def swaync_bridge(fake_swaync, bridge_factory, bus, tmp_path):
    cfg = tmp_path / "config" / "focus-bridge" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text('[downstream]\npassthrough-names = ["%s"]\n' % SWAYNC)
    bridge = bridge_factory()
    assert wait_for_name(bus.conn, SWAYNC, 10, bridge.proc) == bridge.unique_name, \
        "the bridge does not own %s" % SWAYNC
    return bridge


def cc(client, method, params=None, reply_type=None):
    return client.call(method, params, reply_type, dest=SWAYNC, path=SWAYNC_PATH, iface=SWAYNC)


def test_swaync_client_calls_reach_swaync(swaync_bridge, client):
    assert cc(client, "GetDnd", None, "(b)") == (False,)
    assert cc(client, "ToggleDnd", None, "(b)") == (True,)
    assert cc(client, "GetDnd", None, "(b)") == (True,)
    cc(client, "SetDnd", GLib.Variant("(b)", (False,)))
    assert cc(client, "GetDnd", None, "(b)") == (False,)


def test_swaync_subscription_signals_come_from_its_name(swaync_bridge, client):
    client.subscribe(SWAYNC, SWAYNC_PATH, "SubscribeV2", sender=SWAYNC)
    cc(client, "ToggleDnd", None, "(b)")
    sig = client.wait_signal("SubscribeV2", interface=SWAYNC)
    assert sig.args == (0, True, False, False)
    assert sig.sender == swaync_bridge.unique_name and sig.path == SWAYNC_PATH


def test_swaync_sees_the_notifications_and_closes_them(swaync_bridge, client):
    client.subscribe(SWAYNC, SWAYNC_PATH, "SubscribeV2", sender=SWAYNC)
    nid = client.notify("for swaync", app="chat")
    # The notification reaches swaync asynchronously; its count signal says when.
    client.wait_signal("SubscribeV2", interface=SWAYNC)
    assert cc(client, "NotificationCount", None, "(u)") == (1,)
    # swaync-client --close-all: swaync broadcasts NotificationClosed with its own ID;
    # the app gets it once, with the bridge's ID.
    cc(client, "CloseAllNotifications")
    sig = client.wait_signal("NotificationClosed", nid)
    assert sig.args == (nid, 2) and sig.sender == swaync_bridge.unique_name
    assert [s.args for s in client.got("NotificationClosed")] == [(nid, 2)]


def test_swaync_errors_come_back(swaync_bridge, client):
    with pytest.raises(GLib.Error) as error:
        client.call("NoSuchMethod", None, None, dest=SWAYNC, path=SWAYNC_PATH, iface=SWAYNC)
    assert "UnknownMethod" in error.value.message or "NoSuchMethod" in error.value.message
    # The bridge itself is fine.
    assert len(client.server_information()) == 4


def test_makoctl_on_another_object_path(bridge, fake_daemon, client):
    nid = client.notify("listed by makoctl", app="Mako User")
    did = fake_daemon.wait_notify("listed by makoctl")["daemon_id"]
    items = client.call("ListNotifications", None, "(aa{sv})", dest=NOTIF_NAME, path=MAKO_PATH, iface=MAKO)[0]
    assert {"id": did, "summary": "listed by makoctl", "app-name": "Mako User"} in items
    # makoctl dismiss --all: mako closes them; the app hears of its own, by the bridge's ID.
    client.call("DismissAllNotifications", None, None, dest=NOTIF_NAME, path=MAKO_PATH, iface=MAKO)
    assert fake_daemon.wait_call("%s.DismissAllNotifications" % MAKO)["path"] == MAKO_PATH
    sig = client.wait_signal("NotificationClosed", nid)
    assert sig.args == (nid, 2)
    assert client.call("ListNotifications", None, "(aa{sv})", dest=NOTIF_NAME, path=MAKO_PATH,
                       iface=MAKO) == ([],)
