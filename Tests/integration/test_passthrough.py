"""Vendor tools keep working: calls on the bridge's name to other interfaces (dunstctl's
org.dunstproject.cmd0, makoctl's fr.emersion.Mako, Properties on them) reach the daemon
and its replies, errors and signals come back."""

import time

import pytest
from gi.repository import Gio, GLib

from support.buses import wait_for_name
from support.names import NOTIF_PATH
from support.waiting import wait_until

TEST_TIMEOUT = 30

DUNST = "org.dunstproject.cmd0"
PROPS = "org.freedesktop.DBus.Properties"


def test_vendor_method_reaches_the_daemon_and_its_reply_comes_back(bridge, fake_daemon, client):
    assert client.call("Echo", GLib.Variant("(s)", ("hello ✓",)), "(s)", iface=DUNST) == ("fake:hello ✓",)
    rec = fake_daemon.wait_call("%s.Echo" % DUNST)
    assert rec["path"] == NOTIF_PATH
    client.call("Ping", None, None, iface=DUNST)
    fake_daemon.wait_call("%s.Ping" % DUNST)


def test_vendor_method_arguments_keep_their_types(bridge, fake_daemon, client):
    value = GLib.Variant("a{sv}", {
        "i64": GLib.Variant("x", -2 ** 40), "bytes": GLib.Variant("ay", b"\x00\xff"),
        "nested": GLib.Variant("v", GLib.Variant("(ub)", (7, True))),
        "list": GLib.Variant("aa{sv}", [{"k": GLib.Variant("s", "v")}]),
    })
    reply = client.conn.call_sync("org.freedesktop.Notifications", NOTIF_PATH, DUNST, "EchoVariant",
                                  GLib.Variant("(v)", (value,)), GLib.VariantType("(v)"),
                                  Gio.DBusCallFlags.NONE, 5000, None)
    assert reply.get_child_value(0).get_variant().print_(True) == value.print_(True)


def test_vendor_error_comes_back_as_the_same_error(bridge, fake_daemon, client):
    with pytest.raises(GLib.Error) as info:
        client.call("Fail", None, None, iface=DUNST)
    assert Gio.DBusError.get_remote_error(info.value) == "org.dunstproject.cmd0.Error.Fake"
    assert "fake failure as requested" in info.value.message


def test_properties_on_the_vendor_interface(bridge, fake_daemon, client):
    assert client.call("Get", GLib.Variant("(ss)", (DUNST, "paused")), "(v)", iface=PROPS) == (False,)
    client.call("Set", GLib.Variant("(ssv)", (DUNST, "paused", GLib.Variant("b", True))), None, iface=PROPS)
    assert client.call("Get", GLib.Variant("(ss)", (DUNST, "paused")), "(v)", iface=PROPS) == (True,)
    assert fake_daemon.wait_call("Set", property="paused")["value"] == "true"
    all_props = client.call("GetAll", GLib.Variant("(s)", (DUNST,)), "(a{sv})", iface=PROPS)[0]
    assert all_props["paused"] is True and all_props["version"] == "fake-1.0"


def test_method_on_another_object_path(bridge, fake_daemon, client):
    client.notify("listed by makoctl", app="Mako User")
    did = fake_daemon.wait_notify("listed by makoctl")["daemon_id"]
    items = client.call("ListNotifications", None, "(aa{sv})", path="/fr/emersion/Mako",
                        iface="fr.emersion.Mako")[0]
    assert {"id": did, "summary": "listed by makoctl", "app-name": "Mako User"} in items


def test_vendor_signals_are_rebroadcast(bridge, fake_daemon, client):
    client.subscribe(DUNST, NOTIF_PATH)
    client.subscribe(PROPS, NOTIF_PATH)
    fake_daemon.vendor_signal("vendor says hi")
    sig = client.wait_signal("FakeVendorSignal", interface=DUNST)
    assert sig.args == ("vendor says hi",) and sig.sender == bridge.unique_name and sig.path == NOTIF_PATH
    client.call("Set", GLib.Variant("(ssv)", (DUNST, "paused", GLib.Variant("b", True))), None, iface=PROPS)
    sig = client.wait_signal("PropertiesChanged", interface=PROPS)
    assert sig.args[0] == DUNST and sig.args[1] == {"paused": True}


def test_own_methods_answered_by_the_bridge_even_with_a_hung_daemon(bridge, fake_daemon, client):
    """GetCapabilities / GetServerInformation / Peer / Introspect are the bridge's own:
    answered at once even while the daemon hangs (clients call them before Notify)."""
    fake_daemon.set_delay(20.0, blocking=True)
    client.notify("hang the daemon")
    fake_daemon.wait_notify("hang the daemon")
    t0 = time.monotonic()
    assert client.server_information()[0] == "FakeDaemon"
    assert "x-fake-daemon" in client.capabilities()
    client.call("Ping", None, None, iface="org.freedesktop.DBus.Peer")
    client.call("Introspect", None, "(s)", iface="org.freedesktop.DBus.Introspectable")
    took = time.monotonic() - t0
    assert took < 0.5, "the bridge's own methods took %.2f s with a hung daemon" % took


def test_passthrough_without_a_daemon_answers_with_an_error(bridge_factory, client):
    bridge_factory()     # daemon bus up, nobody owns the name there
    t0 = time.monotonic()
    with pytest.raises(GLib.Error):
        client.call("Echo", GLib.Variant("(s)", ("anyone?",)), "(s)", iface=DUNST, timeout_ms=10000)
    assert time.monotonic() - t0 < 5, "a passthrough call with no daemon hung"
    assert client.server_information()[0] == "FocusBridge", "no daemon seen yet: the bridge answers for itself"


def test_passthrough_names_from_config(bridge_factory, fake_daemon, fake_daemon_factory, client, bus, tmp_path):
    extra = fake_daemon_factory(name="org.example.FakeVendor")
    cfg = tmp_path / "config" / "focus-bridge" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text('[downstream]\npassthrough-names = ["org.example.FakeVendor"]\n')
    bridge_factory()
    assert wait_for_name(bus.conn, "org.example.FakeVendor", 10), "bridge did not own a passthrough name"
    reply = client.call("Echo", GLib.Variant("(s)", ("via name",)), "(s)", dest="org.example.FakeVendor",
                        iface=DUNST)
    assert reply == ("fake:via name",)
    extra.wait_call("%s.Echo" % DUNST)
    items = client.call("ListNotifications", None, "(aa{sv})", dest="org.example.FakeVendor",
                        path="/fr/emersion/Mako", iface="fr.emersion.Mako")
    assert items == ([],)


def test_the_daemons_own_pause_is_shown_in_status(bridge, fake_daemon, client, focusctl):
    """dunstctl set-paused true (a Properties.Set passed through): focusctl status says the daemon
    holds back what the bridge delivers; read again after each passed-through
    call and on the daemon's signals, never polled."""
    assert client.status()["downstream"]["daemon-dnd"] == {"on": False, "how": "dunst paused (dunstctl set-paused)"}
    client.call("Set", GLib.Variant("(ssv)", (DUNST, "paused", GLib.Variant("b", True))), None, iface=PROPS)
    dnd = wait_until(lambda: client.status()["downstream"]["daemon-dnd"]["on"] and client.status()["downstream"]["daemon-dnd"],
                     5, message="status never showed the daemon paused")
    assert dnd["how"].startswith("dunst paused")
    out = focusctl("status").stdout
    assert "on: dunst paused (dunstctl set-paused); it shows nothing the bridge delivers" in out, out
    client.call("Set", GLib.Variant("(ssv)", (DUNST, "paused", GLib.Variant("b", False))), None, iface=PROPS)
    wait_until(lambda: client.status()["downstream"]["daemon-dnd"]["on"] is False, 5,
               message="status kept the daemon paused after it was unpaused")
