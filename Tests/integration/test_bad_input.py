"""Bad input never crashes the bridge: every call is answered per the spec and the
bridge keeps serving (the teardown also checks it still exits 0 on SIGTERM)."""

import json

import pytest
from gi.repository import Gio, GLib

from support.names import NOTIF_IFACE, NOTIF_NAME, NOTIF_PATH
from support.waiting import pump_until

TEST_TIMEOUT = 30

_serial = [0]


def assert_still_serving(bridge, client, fake):
    _serial[0] += 1
    summary = "still serving %d" % _serial[0]
    nid = client.notify(summary, app="Health Check")
    assert nid > 0
    fake.wait_notify(summary, timeout=10)
    assert bridge.alive()


def test_urgency_as_a_string(bridge, fake_daemon, client):
    assert client.notify("string urgency", hints={"urgency": GLib.Variant("s", "critical")}) > 0
    assert client.notify("huge urgency", hints={"urgency": GLib.Variant("u", 4000000000)}) > 0
    assert client.notify("negative urgency", hints={"urgency": GLib.Variant("i", -5)}) > 0
    assert_still_serving(bridge, client, fake_daemon)


@pytest.mark.parametrize("image", [
    GLib.Variant("(iiibiiay)", (100, 100, 400, True, 8, 4, b"\x01" * 10)),     # too few bytes
    GLib.Variant("(iiibiiay)", (-4, 0, -16, True, 8, 4, b"")),                 # negative sizes
    GLib.Variant("(iiibiiay)", (2 ** 31 - 1, 2 ** 31 - 1, 2 ** 31 - 1, False, 64, 9, b"\x00")),
    GLib.Variant("s", "not an image"),
    GLib.Variant("(iii)", (1, 2, 3)),
    GLib.Variant("ay", b"\x89PNG"),
], ids=["short-data", "negative", "overflow", "string", "wrong-tuple", "bytes"])
def test_broken_image_data(bridge, fake_daemon, client, image):
    assert client.notify("broken image", hints={"image-data": image}) > 0
    assert_still_serving(bridge, client, fake_daemon)


def test_wrong_hint_types(bridge, fake_daemon, client):
    hints = {
        "desktop-entry": GLib.Variant("i", 5),
        "sender-pid": GLib.Variant("s", "not a pid"),
        "category": GLib.Variant("u", 7),
        "transient": GLib.Variant("s", "yes"),
        "resident": GLib.Variant("ay", b"\x01"),
        "value": GLib.Variant("s", "50%"),
        "image-path": GLib.Variant("i", 0),
        "x-focus-interruption-level": GLib.Variant("i", 3),
        "x-focus-destructive": GLib.Variant("s", "delete"),
        "x-focus-relevance": GLib.Variant("s", "high"),
        "": GLib.Variant("s", "empty key"),
    }
    assert client.notify("wrong types", hints=hints) > 0
    assert_still_serving(bridge, client, fake_daemon)


def test_one_mebibyte_body(bridge, fake_daemon, client):
    body = ("0123456789abcdef" * 65536)
    assert len(body) == 1 << 20
    nid, took = client.timed_notify("big body", body, timeout_ms=15000)
    assert nid > 0
    rec = fake_daemon.wait_notify("big body", timeout=15)
    assert rec["body"] == body, "the 1 MiB body was changed (len %d)" % len(rec["body"])
    assert_still_serving(bridge, client, fake_daemon)


def test_five_hundred_actions(bridge, fake_daemon, client):
    actions = []
    for i in range(500):
        actions += ["key%d" % i, "Label %d" % i]
    assert client.notify("many actions", actions=actions) > 0
    assert_still_serving(bridge, client, fake_daemon)


@pytest.mark.parametrize("actions", [
    ["lonely"],
    ["a", "A", "b"],
    ["", "No key", "x", ""],
    ["dup", "One", "dup", "Two"],
], ids=["one-element", "odd", "empty-parts", "duplicate-keys"])
def test_malformed_action_arrays(bridge, fake_daemon, client, actions):
    assert client.notify("odd actions", actions=actions) > 0
    assert_still_serving(bridge, client, fake_daemon)


def test_unknown_ids_for_close_and_replace(bridge, fake_daemon, client):
    for bogus in (0, 1, 999999, 2 ** 32 - 1):
        client.close(bogus)
    a = client.notify("replaces max", replaces_id=2 ** 32 - 1)
    b = client.notify("replaces big", replaces_id=999999)
    assert 0 not in (a, b) and a != b and a != 2 ** 32 - 1 and b != 999999
    assert_still_serving(bridge, client, fake_daemon)


def test_wrong_signature_gets_an_error_not_silence(bridge, fake_daemon, client):
    with pytest.raises(GLib.Error) as info:
        client.conn.call_sync(NOTIF_NAME, NOTIF_PATH, NOTIF_IFACE, "Notify", GLib.Variant("(s)", ("only",)),
                              None, Gio.DBusCallFlags.NONE, 5000, None)
    assert "Timeout" not in str(info.value)
    with pytest.raises(GLib.Error) as info:
        client.conn.call_sync(NOTIF_NAME, NOTIF_PATH, NOTIF_IFACE, "NoSuchMethod", None,
                              None, Gio.DBusCallFlags.NONE, 5000, None)
    assert "Timeout" not in str(info.value)
    assert_still_serving(bridge, client, fake_daemon)


def test_two_thousand_pipelined_notify_calls(bridge, fake_daemon, client, focusctl):
    n = 2000
    replies, errors = {}, []

    def done(conn, res, i):
        try:
            replies[i] = conn.call_finish(res).unpack()[0]
        except GLib.Error as e:
            errors.append((i, e.message))

    for i in range(n):
        client.conn.call(NOTIF_NAME, NOTIF_PATH, NOTIF_IFACE, "Notify",
                         client.notify_params("pipelined %d" % i, app="Flooder"),
                         GLib.VariantType("(u)"), Gio.DBusCallFlags.NONE, 20000, None, done, i)
    pump_until(lambda: len(replies) + len(errors) >= n, 20)
    assert not errors, errors[:5]
    assert len(replies) == n, "only %d of %d Notify calls answered" % (len(replies), n)
    ids = set(replies.values())
    assert len(ids) == n and 0 not in ids, "IDs not distinct"
    in_order = [replies[i] for i in range(n)]
    assert in_order == sorted(in_order), "IDs of pipelined calls are not increasing"

    # History lists at most the newest 1000 (focus-bridge(1), Bounds): those, all of them
    newest = set(in_order[-1000:])
    hist = client.history(5000, "Flooder")
    assert newest == {e["id"] for e in hist}, "%d notifications missing from History" % len(newest - {e["id"] for e in hist})
    r = focusctl("history", "--json", "--limit", "1000")
    assert r.returncode == 0, r.stderr
    assert newest == {e["id"] for e in json.loads(r.stdout)}
    assert client.status()["counts"]["received"] == n
    assert_still_serving(bridge, client, fake_daemon)
