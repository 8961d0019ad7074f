"""What reaches the notification daemon is what the application sent (INTERFACES.md,
"Forwarded Notify"), and the bridge presents itself as FocusBridge with the daemon's
capabilities."""

import base64
import os

import pytest
from gi.repository import Gio, GLib

from support.bridge import CAPS_BEFORE_DAEMON
from support.names import NOTIF_IFACE, NOTIF_PATH
from support.policy import MUTE_HOUR
from support.waiting import wait_until

TEST_TIMEOUT = 30

# 4×4 RGBA, every byte different from its neighbours, zero bytes included
PIXELS = bytes((x * 37 + y * 101 + c * 59) % 256 for y in range(4) for x in range(4) for c in range(4))
assert len(PIXELS) == 64 and 0 in PIXELS


def rich_hints():
    return {
        "image-data": GLib.Variant("(iiibiiay)", (4, 4, 16, True, 8, 4, PIXELS)),
        "urgency": GLib.Variant("y", 1),
        "category": GLib.Variant("s", "email.arrived"),
        "resident": GLib.Variant("b", True),
        "sound-name": GLib.Variant("s", "message-new-email"),
        "image-path": GLib.Variant("s", "file:///usr/share/pixmaps/debian-logo.png"),
        "x-vendor-dict": GLib.Variant("a{sv}", {
            "count": GLib.Variant("i", 3),
            "label": GLib.Variant("s", "ünïcødé ✓"),
            "nested": GLib.Variant("a{sv}", {"deep": GLib.Variant("t", 2 ** 63)}),
        }),
        "x-kde-origin-name": GLib.Variant("s", "work account"),
        "x-canonical-private-synchronous": GLib.Variant("s", "volume"),
        "x-vendor-int16": GLib.Variant("n", -7),
        "x-vendor-uint64": GLib.Variant("t", 2 ** 64 - 1),
        "x-vendor-double": GLib.Variant("d", 0.1),
        "x-vendor-strv": GLib.Variant("as", ["a", "", "c"]),
        "x-vendor-bytes": GLib.Variant("ay", b"\x00\x01\xff"),
        "x-vendor-objpath": GLib.Variant("o", "/org/example/Thing"),
        "x-vendor-variant": GLib.Variant("v", GLib.Variant("u", 5)),
        "x-vendor-int32": GLib.Variant("i", -2 ** 31),
        "x-vendor-uint32": GLib.Variant("u", 2 ** 32 - 1),
        "x-vendor-int64": GLib.Variant("x", -2 ** 63),
        "x-vendor-structs": GLib.Variant("a(is)", [(1, "one"), (-2, "")]),
        "x-vendor-empty": GLib.Variant("a{sv}", {}),
    }


# INTERFACES.md: desktop-entry and sender-pid may be added. focus-bridge.toml(5), INTERRUPTION LEVELS: the level
# reaches the daemon as urgency ("active → urgency 1"), so a notification sent without
# urgency (level active) may get urgency 1 — and nothing else.
ADDED_BY_BRIDGE = {"sender-pid", "desktop-entry", "urgency"}


def assert_hints_untouched(sent, record):
    for key, value in sent.items():
        assert key in record["hints"], "hint %r was not forwarded (got %s)" % (key, sorted(record["hints"]))
        assert record["hint_types"][key] == value.get_type_string(), key
        assert record["hints"][key] == value.print_(True), "hint %r changed on the way" % key
    extra = set(record["hints"]) - set(sent)
    assert extra <= ADDED_BY_BRIDGE, "the bridge added hints %s" % sorted(extra - ADDED_BY_BRIDGE)
    if "urgency" in extra:
        assert record["hints"]["urgency"] == "byte 0x01", "an active notification forwarded with urgency %s" % (
            record["hints"]["urgency"])


def test_fields_and_every_hint_forwarded_untouched(bridge, fake_daemon, client):
    hints = rich_hints()
    body = "Line one\nline <b>two</b> &amp; <i>three</i> — 🎉"
    actions = ["default", "Open", "reply", "Reply", "archive", "Archive"]
    bid = client.notify("Mail from Ann", body, app="Mail Reader", icon="mail-unread",
                        actions=actions, hints=hints, timeout=7000)
    rec = fake_daemon.wait_notify("Mail from Ann")
    assert rec["app_name"] == "Mail Reader"
    assert rec["app_icon"] == "mail-unread"
    assert rec["body"] == body
    assert rec["actions"] == actions + MUTE_HOUR, "the app's actions, then the bridge's quick action"
    assert rec["expire_timeout"] == 7000
    assert rec["replaces_id"] == 0
    assert bid != rec["daemon_id"]
    assert_hints_untouched(hints, rec)
    img = rec["images"]["image-data"]
    assert (img["width"], img["height"], img["rowstride"], img["has_alpha"],
            img["bits_per_sample"], img["channels"]) == (4, 4, 16, True, 8, 4)
    assert base64.b64decode(img["data_b64"]) == PIXELS, "image-data pixels changed byte-wise"


@pytest.mark.parametrize("name", sorted(rich_hints()))
def test_each_hint_alone_forwarded_untouched(bridge, fake_daemon, client, name):
    """One hint per notification, so a failure names the hint type at fault."""
    hints = {name: rich_hints()[name]}
    client.notify("only %s" % name, hints=hints)
    assert_hints_untouched(hints, fake_daemon.wait_notify("only %s" % name))


@pytest.mark.parametrize("timeout", [-1, 0, 1, 2 ** 31 - 1])
def test_expire_timeout_forwarded(bridge, fake_daemon, client, timeout):
    client.notify("timeout %d" % timeout, timeout=timeout)
    assert fake_daemon.wait_notify("timeout %d" % timeout)["expire_timeout"] == timeout


def test_legacy_image_hint_names_forwarded_byte_for_byte(bridge, fake_daemon, client):
    hints = {
        "image_data": GLib.Variant("(iiibiiay)", (4, 4, 16, True, 8, 4, PIXELS)),
        "icon_data": GLib.Variant("(iiibiiay)", (2, 2, 8, True, 8, 4, PIXELS[:16])),
    }
    client.notify("legacy images", hints=hints)
    rec = fake_daemon.wait_notify("legacy images")
    assert_hints_untouched(hints, rec)
    assert base64.b64decode(rec["images"]["image_data"]["data_b64"]) == PIXELS
    assert base64.b64decode(rec["images"]["icon_data"]["data_b64"]) == PIXELS[:16]


def test_sender_pid_added_when_missing(bridge, fake_daemon, client):
    client.notify("no pid given")
    rec = fake_daemon.wait_notify("no pid given")
    # the daemon must credit the application, not the bridge: int64 pid of the sender
    assert rec["hint_types"].get("sender-pid") == "x", rec["hints"]
    assert rec["hints"]["sender-pid"] == GLib.Variant("x", os.getpid()).print_(True)


def test_sender_pid_given_by_client_is_kept(bridge, fake_daemon, client):
    hints = {"sender-pid": GLib.Variant("x", 4242)}
    client.notify("pid given", hints=hints)
    rec = fake_daemon.wait_notify("pid given")
    assert rec["hints"]["sender-pid"] == "int64 4242"


def test_desktop_entry_given_by_client_is_kept(bridge, fake_daemon, client):
    hints = {"desktop-entry": GLib.Variant("s", "org.example.Mailer")}
    client.notify("with desktop entry", hints=hints)
    rec = fake_daemon.wait_notify("with desktop entry")
    assert rec["hints"]["desktop-entry"] == "'org.example.Mailer'"


def test_desktop_entry_if_added_is_a_string(bridge, fake_daemon, client):
    """A plain process (not Flatpak, no app scope) has no known desktop entry; if the
    bridge does add one, it must be a well-formed string hint."""
    client.notify("no desktop entry", app="Plain")
    rec = fake_daemon.wait_notify("no desktop entry")
    if "desktop-entry" in rec["hints"]:
        assert rec["hint_types"]["desktop-entry"] == "s"
        assert rec["hints"]["desktop-entry"] not in ("''",)


def test_capabilities_are_the_daemons(bridge_factory, fake_daemon_factory, client):
    caps = ["actions", "body", "body-markup", "x-only-this-daemon"]
    fake_daemon_factory("--capabilities", ",".join(caps))
    bridge_factory()
    got = wait_until(lambda: client.capabilities() != CAPS_BEFORE_DAEMON and client.capabilities(), 5,
                     message="GetCapabilities never showed the daemon's list")
    assert sorted(got) == sorted(caps)


def test_server_information_is_the_daemons(bridge, client, fake_daemon, focusctl):
    """Apps that adapt to the daemon by its name see the real one (focus-bridge(1), BEHAVIOUR); the bridge
    answers from what it asked on connecting, so a hung daemon does not make it slow."""
    assert client.server_information() == ("FakeDaemon", "FocusBridgeTests", "1.0", "1.2")
    st = client.status()
    assert st["downstream"]["daemon"] == {"name": "FakeDaemon", "vendor": "FocusBridgeTests", "version": "1.0",
                                          "spec-version": "1.2"}, st["downstream"]
    assert st["version"] and st["version"] != "1.0"
    assert st["downstream"]["capabilities"] == client.capabilities()
    out = focusctl("status").stdout
    assert "FakeDaemon 1.0 (FocusBridgeTests), spec 1.2" in out and "FocusBridge %s" % st["version"] in out, out


def test_server_information_before_any_daemon_is_the_bridges(bridge_factory, client):
    bridge_factory()     # the daemon's bus is up, but no daemon on it
    assert client.server_information()[:2] == ("FocusBridge", "FocusBridge")
    assert client.status()["downstream"]["daemon"] is None


def test_introspectable_and_peer(bridge, client):
    xml = client.call("Introspect", None, "(s)", iface="org.freedesktop.DBus.Introspectable")[0]
    node = Gio.DBusNodeInfo.new_for_xml(xml)
    iface = node.lookup_interface(NOTIF_IFACE)
    assert iface is not None, xml
    methods = {m.name for m in iface.methods}
    assert {"Notify", "CloseNotification", "GetCapabilities", "GetServerInformation"} <= methods
    sigs = {s.name for s in iface.signals}
    assert {"NotificationClosed", "ActionInvoked", "ActivationToken"} <= sigs
    notify = iface.lookup_method("Notify")
    assert "".join(a.signature for a in notify.in_args) == "susssasa{sv}i"
    assert "".join(a.signature for a in notify.out_args) == "u"
    client.call("Ping", None, None, iface="org.freedesktop.DBus.Peer")
    root = client.call("Introspect", None, "(s)", path="/", iface="org.freedesktop.DBus.Introspectable")[0]
    assert "org" in root or NOTIF_PATH in root


def test_own_x_focus_hints_are_stripped(bridge, fake_daemon, client):
    """focus-bridge.toml(5), INTERRUPTION LEVELS: the bridge strips its own x-focus-* hints; every other hint passes."""
    hints = {
        "x-focus-interruption-level": GLib.Variant("s", "active"),
        "x-focus-relevance": GLib.Variant("d", 0.5),
        "x-focus-sender": GLib.Variant("s", "Ann"),
        "x-focusing-camera": GLib.Variant("s", "not ours: no dash after focus"),
        "x-vendor": GLib.Variant("s", "kept"),
    }
    client.notify("with x-focus hints", hints=hints)
    rec = fake_daemon.wait_notify("with x-focus hints")
    assert not [k for k in rec["hints"] if k.startswith("x-focus-")], rec["hints"]
    assert rec["hints"]["x-vendor"] == "'kept'"
    assert rec["hints"]["x-focusing-camera"] == "'not ours: no dash after focus'"
