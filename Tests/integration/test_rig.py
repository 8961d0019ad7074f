"""Self-tests of the rig: private buses and the fake daemon, no bridge involved.
If these fail, every other failure is suspect."""

import base64

from gi.repository import GLib

from support.buses import wait_for_name
from support.clients import Client
from support.names import NOTIF_NAME
from support.waiting import pump_until

TEST_TIMEOUT = 20


def test_private_buses_are_independent_and_activate_nothing(bus, daemon_bus):
    assert bus.address != daemon_bus.address
    # no service directories: a call to the unowned name fails at once instead of
    # auto-starting a real notification daemon
    c = Client(bus.address)
    try:
        c.capabilities()
    except GLib.Error as e:
        assert "ServiceUnknown" in str(e) or "NameHasNoOwner" in str(e), e
    else:
        raise AssertionError("something answered for %s on a fresh private bus" % NOTIF_NAME)
    finally:
        c.dispose()
    assert bus.owner(NOTIF_NAME) is None


def test_fake_daemon_records_typed_calls(daemon_bus, fake_daemon):
    c = Client(daemon_bus.address, "direct")
    try:
        pixels = bytes(range(64))
        image = GLib.Variant("(iiibiiay)", (4, 4, 16, True, 8, 4, pixels))
        did = c.notify("S", "B", app="A", icon="dialog-information", actions=["default", "Open"],
                       hints={"image-data": image, "urgency": GLib.Variant("y", 2)}, timeout=1234)
        assert did == 1000
        assert c.notify("S2", replaces_id=did) == did          # honours replaces_id
        assert c.notify("S3", replaces_id=4242) == 1001        # unknown: new id
        rec = fake_daemon.wait_notify("S")
        assert rec["daemon_id"] == 1000 and rec["app_name"] == "A" and rec["expire_timeout"] == 1234
        assert rec["actions"] == ["default", "Open"]
        assert rec["hints"]["urgency"] == GLib.Variant("y", 2).print_(True)
        assert rec["hint_types"]["image-data"] == "(iiibiiay)"
        assert base64.b64decode(rec["images"]["image-data"]["data_b64"]) == pixels
        assert rec["sender"] == c.unique_name
        assert [n["summary"] for n in fake_daemon.notifies()] == ["S", "S2", "S3"]
        assert c.capabilities() == fake_daemon.stats()["capabilities"]
    finally:
        c.dispose()


def test_fake_daemon_signal_styles(daemon_bus, fake_daemon):
    a = Client(daemon_bus.address, "a")
    b = Client(daemon_bus.address, "b")
    try:
        did = a.notify("x")
        fake_daemon.action(did, "go", token="tok")                    # unicast (default)
        a.wait_signal("ActionInvoked", did)
        assert [s.member for s in a.signals] == ["ActivationToken", "ActionInvoked"]
        # round trip to the fake daemon from b: nothing unicast to a reached b
        b.call("GetCapabilities", None, "(as)")
        pump_until(lambda: False, 0.05)
        assert b.signals == []
        fake_daemon.closed(did, 2, style="broadcast")
        b.wait_signal("NotificationClosed", did)
        a.wait_signal("NotificationClosed", did)
        a.close(did)  # already closed: recorded as unknown, no signal
        assert fake_daemon.wait_call("CloseNotification", id=did)["known"] is False
    finally:
        a.dispose()
        b.dispose()


def test_fake_daemon_vendor_interfaces(daemon_bus, fake_daemon):
    c = Client(daemon_bus.address)
    try:
        assert c.call("Echo", GLib.Variant("(s)", ("hi",)), "(s)",
                      iface="org.dunstproject.cmd0") == ("fake:hi",)
        assert c.call("Get", GLib.Variant("(ss)", ("org.dunstproject.cmd0", "paused")), "(v)",
                      iface="org.freedesktop.DBus.Properties") == (False,)
        assert c.call("ListNotifications", None, "(aa{sv})", path="/fr/emersion/Mako",
                      iface="fr.emersion.Mako") == ([],)
    finally:
        c.dispose()


def test_fake_daemon_exits_when_it_cannot_own_the_name(daemon_bus, fake_daemon, fake_daemon_factory):
    try:
        fake_daemon_factory()
    except RuntimeError as e:
        assert "NAME-TAKEN" in str(e)
    else:
        raise AssertionError("a second fake daemon started on a taken name")
    assert wait_for_name(daemon_bus.conn, NOTIF_NAME) == fake_daemon.unique_name
