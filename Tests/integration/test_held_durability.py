"""Held means safe (focus-bridge.toml(5), DELIVERY; docs/RELIABILITY.md): what was acknowledged while held survives kill -9 and
is still delivered; a held notification can be replaced and closed by its app like any other."""

import signal

from support.clients import settle
from support.focus import assert_digest_shape, assert_not_forwarded, d, far_time, forwarded_summaries
from support.focusctl import decisions, fc_json, fc_ok, history_of, status

TEST_TIMEOUT = 40

CONFIG = """
[summary]
times = ["%s"]

[apps."News"]
delivery = "summary"

[focus.work]
apps = ["Mail"]
"""


def test_kill_9_with_50_held_loses_none(focus_bridge, fake_daemon, client, focusctl, marker):
    b1 = focus_bridge(CONFIG % far_time())
    ids = [client.notify("Story %02d" % i, "body %d" % i, app="News", actions=["open", "Open"],
                         hints={"x-focus-relevance": d(i / 100.0)}) for i in range(50)]
    assert len(set(ids)) == 50
    b1.stop(sig=signal.SIGKILL)

    focus_bridge()
    st = status(focusctl)
    assert st["counts"]["held-summary"] == 50, st["counts"]
    summary = fc_json(focusctl, "summary", "--json")
    assert summary["count"] == 50
    assert [i["id"] for i in summary["items"]] == ids[::-1], "not all held, or not most relevant first"
    assert summary["items"][0]["summary"] == "Story 49" and summary["items"][0]["body"] == "body 49"
    assert_not_forwarded(fake_daemon, marker, *("Story %02d" % i for i in range(50)))

    r = fc_ok(focusctl, "summary", "deliver")
    assert "50" in r.stdout, r.stdout
    digest = fake_daemon.wait_notify("Notification Summary")
    lines = assert_digest_shape(digest, "Notification Summary")
    assert lines == ["News — Story %02d" % i for i in (49, 48, 47, 46, 45)] + ["and 45 more from 1 app"], lines
    fake_daemon.action(digest["daemon_id"], "show-all")
    fake_daemon.wait_call("Notify", timeout=10, count=50, app_name="News")
    replayed = [n for n in fake_daemon.notifies() if n["app_name"] == "News"]
    assert sorted(n["summary"] for n in replayed) == ["Story %02d" % i for i in range(50)]
    assert all(n["actions"] == ["open", "Open"] for n in replayed)
    # still the original app's, with its own IDs, across the crash
    last = [n for n in replayed if n["summary"] == "Story 07"][0]
    fake_daemon.action(last["daemon_id"], "open")
    assert client.wait_signal("ActionInvoked", ids[7]).args == (ids[7], "open")
    assert status(focusctl)["counts"]["held-summary"] == 0


def test_kill_9_keeps_the_manual_focus_and_what_it_held(focus_bridge, fake_daemon, client, focusctl, marker):
    b1 = focus_bridge(CONFIG % far_time())
    fc_ok(focusctl, "focus", "on", "work")
    ids = [client.notify("Held %d" % i, app="Shop") for i in range(3)]
    b1.stop(sig=signal.SIGKILL)

    focus_bridge()
    st = status(focusctl)
    assert st["focus"] is not None and st["focus"]["name"] == "work" and st["focus"]["source"] == "manual", st
    assert st["counts"]["held-focus"] == 3
    assert decisions(focusctl, ids) == {i: "held-focus" for i in ids}
    client.notify("held after the restart", app="Shop")
    assert_not_forwarded(fake_daemon, marker, "Held 0", "held after the restart")
    fc_ok(focusctl, "focus", "off")
    rec = fake_daemon.wait_notify("While work was on")
    assert sorted(assert_digest_shape(rec, "While work was on")) == sorted(
        ["Shop — Held %d" % i for i in range(3)] + ["Shop — held after the restart"]), rec["body"]


def test_replacing_a_held_notification_updates_it(focus_bridge, fake_daemon, client, make_client, focusctl, marker):
    focus_bridge(CONFIG % far_time())
    nid = client.notify("Draft headline", "first", app="News")
    assert client.notify("Final headline", "second", app="News", replaces_id=nid) == nid
    summary = fc_json(focusctl, "summary", "--json")
    assert summary["count"] == 1, summary
    assert (summary["items"][0]["id"], summary["items"][0]["summary"], summary["items"][0]["body"]) == \
        (nid, "Final headline", "second")
    assert "Draft headline" not in summary["digest"]["body"]
    assert history_of(focusctl, nid)["decision"] == "held-summary"
    # a later process of the same app (notify-send -r ID) may replace it too
    other = make_client("same app, new process")
    assert other.notify("Final headline, corrected", "third", app="News", replaces_id=nid) == nid
    assert fc_json(focusctl, "summary", "--json")["items"][0]["summary"] == "Final headline, corrected"
    assert_not_forwarded(fake_daemon, marker, "Draft headline", "Final headline", "Final headline, corrected")
    fc_ok(focusctl, "summary", "deliver")
    rec = fake_daemon.wait_notify("Notification Summary")
    assert rec["body"] == "News — Final headline, corrected"

    # the same for one held by a Focus
    fc_ok(focusctl, "focus", "on", "work")
    fid = client.notify("Cart reminder", app="Shop")
    assert client.notify("Cart reminder (2 items)", app="Shop", replaces_id=fid) == fid
    assert status(focusctl)["counts"]["held-focus"] == 1
    assert history_of(focusctl, fid)["decision"] == "held-focus"
    fc_ok(focusctl, "focus", "off")
    assert fake_daemon.wait_notify("While work was on")["body"] == "Shop — Cart reminder (2 items)"


def test_closing_a_held_notification_removes_it_with_reason_3(focus_bridge, fake_daemon, client, client2,
                                                               focusctl, marker):
    focus_bridge(CONFIG % far_time())
    keep = client.notify("Keep me", app="News")
    gone = client.notify("Close me", app="News")
    client2.notify("bystander", app="Bystander")
    assert fc_json(focusctl, "summary", "--json")["count"] == 2
    client.close(gone)
    assert client.wait_signal("NotificationClosed", gone).args == (gone, 3)
    settle(client2)
    assert client2.got("NotificationClosed") == [], "NotificationClosed leaked to another app"
    summary = fc_json(focusctl, "summary", "--json")
    assert [i["id"] for i in summary["items"]] == [keep], summary
    assert status(focusctl)["counts"]["held-summary"] == 1
    row = history_of(focusctl, gone)
    assert row["closed"] is not None and row["close-reason"] == 3, row

    # the same for one held by a Focus
    fc_ok(focusctl, "focus", "on", "work")
    fid = client.notify("Close me too", app="Shop")
    client.close(fid)
    assert client.wait_signal("NotificationClosed", fid).args == (fid, 3)
    assert status(focusctl)["counts"]["held-focus"] == 0
    fc_ok(focusctl, "focus", "off")   # nothing held: no digest
    fc_ok(focusctl, "summary", "deliver")
    assert fake_daemon.wait_notify("Notification Summary")["body"] == "News — Keep me"
    assert_not_forwarded(fake_daemon, marker, "Close me", "Close me too", "While work was on")
    assert "Close me" not in forwarded_summaries(fake_daemon)


def test_kill_9_after_the_digest_went_out_loses_nothing(focus_bridge, fake_daemon, client, focusctl):
    b1 = focus_bridge(CONFIG % far_time())
    ids = [client.notify("Pending %d" % i, app="News") for i in range(3)]
    fc_ok(focusctl, "summary", "deliver")
    fake_daemon.wait_notify("Notification Summary")
    b1.stop(sig=signal.SIGKILL)      # before anyone chose Show All or Dismiss

    focus_bridge()
    summary = fc_json(focusctl, "summary", "--json")
    assert sorted(i["id"] for i in summary["items"]) == sorted(ids), summary
    fake_daemon.clear()
    fc_ok(focusctl, "summary", "deliver")
    digest = fake_daemon.wait_notify("Notification Summary")
    fake_daemon.action(digest["daemon_id"], "show-all")
    fake_daemon.wait_call("Notify", count=3, app_name="News")
    assert sorted(n["summary"] for n in fake_daemon.notifies() if n["app_name"] == "News") == \
        ["Pending %d" % i for i in range(3)]
