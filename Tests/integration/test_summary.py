"""The scheduled summary through the real bridge (focus-bridge.toml(5), DELIVERY; focusctl(1); focusctl(1)): an app with
`delivery = "summary"` is held and listed at once, most relevant first; `summary deliver` sends
one "Notification Summary"; Show All replays each held one as itself, its actions going to its
own app with its own key and ID; Dismiss drops them; a summary time missed while the bridge was
stopped is caught up at start."""

import base64
from datetime import datetime, timedelta, timezone

from gi.repository import GLib

from support.focus import (assert_digest_shape, assert_not_forwarded, byte, d, far_time, forwarded_summaries,
                           hhmm, local_now, parse_ts, s)
from support.focusctl import decisions, fc_json, fc_ok, history_of, status
from support.waiting import wait_until

TEST_TIMEOUT = 30


def news_config(times=None):
    return """
[summary]
times = [%s]

[apps."News"]
delivery = "summary"

[apps."Shop"]
delivery = "summary"
""" % ", ".join('"%s"' % t for t in (times or [far_time()]))


def test_summary_app_is_held_and_listed_most_relevant_first(focus_bridge, fake_daemon, client, focusctl, marker):
    focus_bridge(news_config())
    low = client.notify("Low relevance", "l", app="News", hints={"x-focus-relevance": d(0.2)})
    high = client.notify("High relevance", "h", app="News", hints={"x-focus-relevance": d(0.9)})
    plain = client.notify("No relevance", "p", app="News")
    mid = client.notify("Mid relevance", "m", app="Shop", hints={"x-focus-relevance": d(0.5)})
    # newest, but passive: at equal relevance the level comes before the age
    quiet = client.notify("Quiet and newest", "q", app="News", hints={"urgency": byte(0)})
    # listed at once
    assert decisions(focusctl, [low, high, plain, mid, quiet]) == {
        low: "held-summary", high: "held-summary", plain: "held-summary", mid: "held-summary",
        quiet: "held-summary"}
    summary = fc_json(focusctl, "summary", "--json")
    assert summary["count"] == 5
    assert [i["id"] for i in summary["items"]] == [high, mid, low, plain, quiet], summary["items"]
    assert [i["level"] for i in summary["items"]][-2:] == ["active", "passive"]
    first = summary["items"][0]
    assert (first["app"], first["summary"], first["body"], first["relevance"]) == ("News", "High relevance", "h", 0.9)
    assert summary["digest"]["title"] == "Notification Summary"
    assert summary["digest"]["body"].split("\n") == [
        "News — High relevance", "Shop — Mid relevance", "News — Low relevance", "News — No relevance",
        "News — Quiet and newest"]
    assert summary["next"] is not None
    st = status(focusctl)
    assert st["counts"]["held-summary"] == 5 and st["counts"]["held-focus"] == 0
    assert parse_ts(st["next-summary"]) == parse_ts(summary["next"])
    assert_not_forwarded(fake_daemon, marker, "Low relevance", "High relevance", "No relevance", "Mid relevance",
                         "Quiet and newest")
    human = fc_ok(focusctl, "summary").stdout
    assert "5 notifications" in human and "News — High relevance" in human, human


def test_summary_digest_lists_five_then_the_rest(focus_bridge, fake_daemon, client, focusctl):
    focus_bridge(news_config())
    for i in range(4):
        client.notify("News %d" % i, app="News", hints={"x-focus-relevance": d(0.9 - i * 0.1)})
    for i in range(3):
        client.notify("Deal %d" % i, app="Shop", hints={"x-focus-relevance": d(0.1)})
    r = fc_ok(focusctl, "summary", "deliver")
    assert "7" in r.stdout, r.stdout
    rec = fake_daemon.wait_notify("Notification Summary")
    lines = assert_digest_shape(rec, "Notification Summary")
    assert lines == ["News — News 0", "News — News 1", "News — News 2", "News — News 3", "Shop — Deal 2",
                     "and 2 more from 1 app"], lines
    assert status(focusctl)["counts"]["held-summary"] == 0


def replay_hints():
    return {
        "category": s("transfer.error"),
        "x-vendor-thing": s("kept ✓"),
        "x-vendor-list": GLib.Variant("as", ["a", "b"]),
        "image-data": GLib.Variant("(iiibiiay)", (2, 2, 8, True, 8, 4, bytes(range(16)))),
        "x-focus-relevance": d(0.4),
    }


def test_show_all_replays_each_and_relays_its_actions(focus_bridge, fake_daemon, make_client, focusctl, marker):
    focus_bridge(news_config())
    news, shop = make_client("news app"), make_client("shop app")
    news_actions = ["default", "Open", "read-later", "Read later"]
    shop_actions = ["track", "Track parcel"]
    n1 = news.notify("Election results", "all counted", app="News", icon="news", actions=news_actions,
                     hints=replay_hints(), timeout=12000)
    s1 = shop.notify("Parcel delayed", "tomorrow", app="Shop", actions=shop_actions)
    r = fc_ok(focusctl, "summary", "deliver")
    assert "2" in r.stdout, r.stdout
    digest = fake_daemon.wait_notify("Notification Summary")
    lines = assert_digest_shape(digest, "Notification Summary")
    assert lines == ["News — Election results", "Shop — Parcel delayed"], lines
    assert_not_forwarded(fake_daemon, marker, "Election results", "Parcel delayed")

    fake_daemon.action(digest["daemon_id"], "show-all")
    rec_n = fake_daemon.wait_notify("Election results")
    rec_s = fake_daemon.wait_notify("Parcel delayed")
    # each as itself: fields, actions, every hint (the bridge's own x-focus-* removed)
    assert (rec_n["app_name"], rec_n["body"], rec_n["app_icon"], rec_n["expire_timeout"]) == \
        ("News", "all counted", "news", 12000)
    assert rec_n["actions"] == news_actions and rec_s["actions"] == shop_actions
    for key, value in replay_hints().items():
        if key.startswith("x-focus-"):
            assert key not in rec_n["hints"], key
        else:
            assert rec_n["hints"].get(key) == value.print_(True), (key, rec_n["hints"].get(key))
    assert base64.b64decode(rec_n["images"]["image-data"]["data_b64"]) == bytes(range(16))

    # the daemon's action on a replayed one goes to the original connection, own key, own ID
    fake_daemon.action(rec_n["daemon_id"], "read-later")
    fake_daemon.action(rec_s["daemon_id"], "track")
    assert news.wait_signal("ActionInvoked", n1).args == (n1, "read-later")
    assert shop.wait_signal("ActionInvoked", s1).args == (s1, "track")
    assert news.got("ActionInvoked", s1) == [] and shop.got("ActionInvoked", n1) == []
    # closing the replayed one by the daemon reaches its app too
    fake_daemon.closed(rec_s["daemon_id"], 2)
    assert shop.wait_signal("NotificationClosed", s1).args == (s1, 2)
    st = status(focusctl)
    assert st["counts"]["held-summary"] == 0
    assert fc_json(focusctl, "summary", "--json")["count"] == 0


def test_dismiss_drops_them(focus_bridge, fake_daemon, client, focusctl, marker):
    focus_bridge(news_config())
    client.notify("Dismiss me 1", app="News")
    client.notify("Dismiss me 2", app="Shop")
    fc_ok(focusctl, "summary", "deliver")
    digest = fake_daemon.wait_notify("Notification Summary")
    fake_daemon.action(digest["daemon_id"], "dismiss")
    wait_until(lambda: fc_json(focusctl, "summary", "--json")["count"] == 0 and
               status(focusctl)["counts"]["held-summary"] == 0, 5,
               message="dismissed notifications are still held")
    assert_not_forwarded(fake_daemon, marker, "Dismiss me 1", "Dismiss me 2")
    r = fc_ok(focusctl, "summary", "deliver")
    assert "Nothing" in r.stdout, r.stdout
    marker()
    assert forwarded_summaries(fake_daemon).count("Notification Summary") == 1


def test_summary_app_exceptions_are_not_held(focus_bridge, fake_daemon, client, focusctl, marker):
    focus_bridge(news_config())
    cases = {
        "breaking: urgent": {"urgency": byte(2)},                                   # time-sensitive
        "message from the editor": {"category": s("im.received")},                # communication
        "downloading 40%": {"value": GLib.Variant("i", 40)},                         # progress
        "transient note": {"transient": GLib.Variant("b", True)},                     # transient
    }
    ids = {k: client.notify(k, app="News", hints=h) for k, h in cases.items()}
    held = client.notify("ordinary news", app="News")
    for summary in cases:
        fake_daemon.wait_notify(summary)
    assert_not_forwarded(fake_daemon, marker, "ordinary news")
    got = decisions(focusctl, list(ids.values()) + [held])
    assert {k: got[v] for k, v in ids.items()} == {k: "delivered" for k in cases}
    assert got[held] == "held-summary"
    assert fc_json(focusctl, "summary", "--json")["count"] == 1


def test_missed_summary_is_caught_up_at_start(bridge_factory, fake_daemon, config, client, focusctl, time_shift,
                                              make_client):
    # The bridge last ran five minutes ago (its wall clock is shifted back), holding two.
    config(news_config())
    b1 = bridge_factory(extra_env=time_shift(-300))
    a = client.notify("Morning headline", app="News")
    b = client.notify("Flash sale", app="Shop")
    assert decisions(focusctl, [a, b]) == {a: "held-summary", b: "held-summary"}
    lag = datetime.now(timezone.utc) - parse_ts(history_of(focusctl, a)["received"])
    assert lag.total_seconds() > 200, "the wall-clock shim is not in effect (received %s ago)" % lag
    assert b1.stop() == 0
    # A summary time a minute ago: it passed while the bridge was stopped.
    missed = hhmm(local_now() - timedelta(minutes=1))
    config(news_config([missed, far_time()]))
    bridge_factory()
    rec = fake_daemon.wait_notify("Notification Summary", timeout=5)
    assert sorted(assert_digest_shape(rec, "Notification Summary")) == ["News — Morning headline",
                                                                         "Shop — Flash sale"], rec["body"]
    assert status(focusctl)["counts"]["held-summary"] == 0
    # the new one waits for the next time
    c = client.notify("Evening headline", app="News")
    assert history_of(focusctl, c)["decision"] == "held-summary"
    assert fc_json(focusctl, "summary", "--json")["count"] == 1
