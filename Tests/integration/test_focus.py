"""Focus through the real bridge (focus-bridge.toml(5), DELIVERY; focusctl(1); focusctl(1); focus-bridge.toml(5)):
what a Focus holds is not forwarded and is listed at once; what breaks through is forwarded;
when the Focus ends, what it held comes as a digest, a replay, or not at all."""

import base64
import time
from datetime import timedelta

from gi.repository import GLib

from support.focus import (around_now, assert_digest_shape, assert_not_forwarded, away_from_now, byte,
                           critical_hints, forwarded_summaries, hhmm, local_now, parse_ts, s)
from support.focusctl import decisions, fc_json, fc_ok, history_of, next_json, status
from support.names import NOTIF_NAME
from support.waiting import wait_until

TEST_TIMEOUT = 30

WORK = """
[focus.work]
apps = ["Mail"]
people = ["Team Lead"]
"""


def test_manual_focus_holds_and_lists_at_once(focus_bridge, fake_daemon, client, focusctl, marker):
    focus_bridge(WORK)
    st = status(focusctl)
    assert st["focus"] is None and st["counts"]["held-focus"] == 0
    until = hhmm(local_now() + timedelta(hours=2))
    r = fc_ok(focusctl, "focus", "on", "work", "--until", until)
    assert "work" in r.stdout, r.stdout
    focus = status(focusctl)["focus"]
    assert focus["name"] == "work" and focus["source"] == "manual", focus
    assert hhmm(parse_ts(focus["until"]).astimezone()) == until, focus

    nid = client.notify("Sale ends soon", "50% off", app="Shop")
    # available as soon as it arrives: no waiting, the Notify reply is enough
    row = history_of(focusctl, nid)
    assert (row["app"], row["summary"], row["decision"]) == ("Shop", "Sale ends soon", "held-focus"), row
    assert status(focusctl)["counts"]["held-focus"] == 1
    assert_not_forwarded(fake_daemon, marker, "Sale ends soon")
    assert status(focusctl)["counts"]["held-focus"] == 1


def test_what_breaks_through_a_focus(focus_bridge, fake_daemon, client, focusctl, marker):
    focus_bridge(WORK)
    fc_ok(focusctl, "focus", "on", "work")
    through = {
        "urgent from a shop": dict(app="Shop", hints={"urgency": byte(2)}),            # time-sensitive
        "call ringing": dict(app="Phone", hints={"category": s("call.incoming")}),    # time-sensitive
        "new mail": dict(app="Mail"),                                                 # allowed app
        "chat message": dict(app="Chat", hints={"category": s("im.received"),
                                                "x-focus-sender": s("Team Lead")}),  # allowed person
        "Team Lead": dict(app="Chat", hints={"category": s("im.received")}),          # person = summary
    }
    held = {
        "shop news": dict(app="Shop"),
        "stranger's chat": dict(app="Chat", hints={"category": s("im.received"),
                                                   "x-focus-sender": s("Stranger")}),
        # not a communication notification: the person rule does not apply
        "ticket assigned": dict(app="Tracker", hints={"x-focus-sender": s("Team Lead")}),
        "low news": dict(app="Shop", hints={"urgency": byte(0)}),
    }
    ids = {}
    for summary, kw in list(through.items()) + list(held.items()):
        ids[summary] = client.notify(summary, "body", app=kw["app"], hints=kw.get("hints"))
    for summary in through:
        fake_daemon.wait_notify(summary)
    assert_not_forwarded(fake_daemon, marker, *held)
    got = decisions(focusctl, ids.values())
    assert {k: got[v] for k, v in ids.items()} == dict(
        [(k, "delivered") for k in through] + [(k, "held-focus") for k in held])
    assert status(focusctl)["counts"]["held-focus"] == len(held)


def test_scheduled_focus_covering_now_holds(focus_bridge, fake_daemon, client, focusctl, marker):
    start, end = around_now()
    focus_bridge(WORK + """
[[focus.work.schedule]]
start = "%s"
end = "%s"
""" % (start, end))
    focus = wait_until(lambda: status(focusctl)["focus"], 5, message="the scheduled Focus is not on")
    assert focus["name"] == "work" and focus["source"] == "scheduled", focus
    assert hhmm(parse_ts(focus["until"]).astimezone()) == end, focus
    held_id = client.notify("weekly newsletter", app="Newsletter")
    assert history_of(focusctl, held_id)["decision"] == "held-focus"
    client.notify("mail while working", app="Mail")
    fake_daemon.wait_notify("mail while working")
    assert_not_forwarded(fake_daemon, marker, "weekly newsletter")
    assert status(focusctl)["counts"]["held-focus"] == 1
    # a manual change wins over the schedule (until its next boundary), also when the
    # bridge looks at the schedules again
    fc_ok(focusctl, "focus", "off")
    assert fake_daemon.wait_notify("While work was on")["body"] == "Newsletter — weekly newsletter"
    fc_ok(focusctl, "reload")
    assert status(focusctl)["focus"] is None
    client.notify("after focus off", app="Newsletter")
    fake_daemon.wait_notify("after focus off")


def test_silence_focus_forwards_all_but_the_silenced(focus_bridge, fake_daemon, client, focusctl, marker):
    focus_bridge("""
[focus.gaming]
silence = ["Chat", "Mail"]
""")
    fc_ok(focusctl, "focus", "on", "gaming")
    a = client.notify("patch notes", app="Launcher")
    b = client.notify("from the chat", app="Chat")
    c = client.notify("from the mail", app="mail")        # app keys are case-insensitive
    fake_daemon.wait_notify("patch notes")
    assert_not_forwarded(fake_daemon, marker, "from the chat", "from the mail")
    assert decisions(focusctl, [a, b, c]) == {a: "delivered", b: "held-focus", c: "held-focus"}


def test_focus_without_time_sensitive_holds_urgent_ones(focus_bridge, fake_daemon, client, focusctl, marker):
    focus_bridge("""
[focus.sleep]
apps = []
time-sensitive = false
""")
    fc_ok(focusctl, "focus", "on", "sleep")
    urgent = client.notify("urgent but not critical", app="Shop", hints=critical_hints())
    ringing = client.notify("alarm", app="Clock", hints={"category": s("alarm.ringing")})
    assert_not_forwarded(fake_daemon, marker, "urgent but not critical", "alarm")   # marker: critical gets through
    assert decisions(focusctl, [urgent, ringing]) == {urgent: "held-focus", ringing: "held-focus"}
    assert history_of(focusctl, urgent)["level"] == "time-sensitive"


def test_focus_off_delivers_a_digest(focus_bridge, fake_daemon, client, focusctl, marker):
    focus_bridge(WORK)
    fc_ok(focusctl, "focus", "on", "work")
    client.notify("Order shipped", app="Shop")
    client.notify("New episode", app="Podcasts")
    assert_not_forwarded(fake_daemon, marker, "Order shipped", "New episode")
    assert status(focusctl)["counts"]["held-focus"] == 2
    r = fc_ok(focusctl, "focus", "off")
    assert r.stdout == "work is off; 2 held notifications were delivered in a digest.\n", r.stdout
    rec = fake_daemon.wait_notify("While work was on")
    lines = assert_digest_shape(rec, "While work was on")
    assert sorted(lines) == ["Podcasts — New episode", "Shop — Order shipped"], rec["body"]
    assert lines[0] == "Podcasts — New episode", "newest first at equal relevance and level: %r" % lines
    assert status(focusctl)["focus"] is None
    assert status(focusctl)["counts"]["held-focus"] == 0
    # only the digest: the held ones are not forwarded as themselves ...
    assert_not_forwarded(fake_daemon, marker, "Order shipped", "New episode")
    # ... until the user chooses Show All on it
    fake_daemon.action(rec["daemon_id"], "show-all")
    fake_daemon.wait_notify("Order shipped")
    fake_daemon.wait_notify("New episode")


PIXELS = bytes(range(64))


def replay_hints():
    return {
        "category": s("email.arrived"),
        "x-vendor-thing": s("kept ✓"),
        "x-vendor-count": GLib.Variant("i", 42),
        "image-data": GLib.Variant("(iiibiiay)", (4, 4, 16, True, 8, 4, PIXELS)),
        "x-focus-relevance": GLib.Variant("d", 0.7),
    }


def assert_replayed_as_itself(rec, sent_hints, actions):
    assert rec["actions"] == actions, rec["actions"]
    for key, value in sent_hints.items():
        if key.startswith("x-focus-"):
            assert key not in rec["hints"], "own hint %s forwarded" % key
            continue
        assert rec["hints"].get(key) == value.print_(True), (key, rec["hints"].get(key))
        assert rec["hint_types"][key] == value.get_type_string(), key
    if "image-data" in sent_hints:
        assert base64.b64decode(rec["images"]["image-data"]["data_b64"]) == PIXELS


def test_after_focus_replay_forwards_each_as_itself(focus_bridge, fake_daemon, client, focusctl, marker):
    focus_bridge('[general]\nafter-focus = "replay"\n' + WORK)
    fc_ok(focusctl, "focus", "on", "work")
    actions = ["open", "Open", "archive", "Archive"]
    a = client.notify("Invoice 42", "due Friday", app="Billing", icon="mail-unread",
                      actions=actions, hints=replay_hints(), timeout=9000)
    b = client.notify("Second held", "plain", app="Shop")
    assert_not_forwarded(fake_daemon, marker, "Invoice 42", "Second held")
    fc_ok(focusctl, "focus", "off")
    rec = fake_daemon.wait_notify("Invoice 42")
    fake_daemon.wait_notify("Second held")
    assert (rec["app_name"], rec["body"], rec["app_icon"], rec["expire_timeout"]) == \
        ("Billing", "due Friday", "mail-unread", 9000)
    assert_replayed_as_itself(rec, replay_hints(), actions)
    assert "While work was on" not in forwarded_summaries(fake_daemon)
    # its actions are its own: the app hears its own key for its own ID
    fake_daemon.action(rec["daemon_id"], "archive")
    assert client.wait_signal("ActionInvoked", a).args == (a, "archive")
    assert status(focusctl)["counts"]["held-focus"] == 0
    assert b != a


def test_after_focus_none_keeps_them_in_history_only(focus_bridge, fake_daemon, client, focusctl, marker):
    focus_bridge('[general]\nafter-focus = "none"\n' + WORK)
    fc_ok(focusctl, "focus", "on", "work")
    nid = client.notify("Quiet one", app="Shop")
    assert_not_forwarded(fake_daemon, marker, "Quiet one")
    fc_ok(focusctl, "focus", "off")
    wait_until(lambda: status(focusctl)["counts"]["held-focus"] == 0, 5,
               message="the Focus ended but its notification is still counted as held")
    assert_not_forwarded(fake_daemon, marker, "Quiet one", "While work was on")
    row = history_of(focusctl, nid)
    assert (row["summary"], row["decision"]) == ("Quiet one", "held-focus"), row


def test_focus_for_a_duration_ends_by_itself(focus_bridge, fake_daemon, client, focusctl, marker):
    focus_bridge(WORK)
    fc_ok(focusctl, "focus", "on", "work", "--for", "2s")
    wall0, mono0 = time.time(), time.monotonic()
    focus = status(focusctl)["focus"]
    assert focus["name"] == "work" and focus["until"] is not None, focus
    until = parse_ts(focus["until"])
    assert 0 < (until - parse_ts(focus["since"])).total_seconds() <= 3, focus
    client.notify("held for two seconds", app="Shop")
    assert_not_forwarded(fake_daemon, marker, "held for two seconds")
    rec = fake_daemon.wait_notify("While work was on", timeout=8)
    assert rec["body"] == "Shop — held for two seconds"
    # on time: within a second of its end (focus-bridge.toml(5), DELIVERY); both processes use CLOCK_MONOTONIC
    late = rec["time"] - (mono0 + (until.timestamp() - wall0))
    assert -0.3 <= late <= 1.2, "the Focus ended %.2f s off its end time" % late
    assert status(focusctl)["focus"] is None


def test_one_focus_at_a_time(focus_bridge, fake_daemon, client, focusctl, marker):
    focus_bridge(WORK + """
[focus.sleep]
apps = []
""")
    fc_ok(focusctl, "focus", "on", "work")
    client.notify("held by work", app="Shop")
    assert_not_forwarded(fake_daemon, marker, "held by work")
    fc_ok(focusctl, "focus", "on", "sleep")
    assert status(focusctl)["focus"]["name"] == "sleep"
    rec = fake_daemon.wait_notify("While work was on")
    assert rec["body"] == "Shop — held by work"
    r = focusctl("focus", "on", "nonexistent")
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "work" in r.stderr and "sleep" in r.stderr, r.stderr


def test_focus_list_json(focus_bridge, focusctl):
    off_start, off_end = away_from_now()
    focus_bridge("""
[focus.work]
apps = ["Mail", "Slack"]
people = ["Team Lead"]
[[focus.work.schedule]]
days = ["mon", "tue", "wed", "thu", "fri"]
start = "%s"
end = "%s"

[focus.gaming]
silence = ["Chat"]
time-sensitive = false
previews = "never"
""" % (off_start, off_end))
    rows = {f["name"]: f for f in fc_json(focusctl, "focus", "list", "--json")}
    assert set(rows) == {"work", "gaming", "dnd"}     # dnd: built in (test_focusctl.py)
    assert [rows[n]["built-in"] for n in ("work", "gaming", "dnd")] == [False, False, True]
    work, gaming = rows["work"], rows["gaming"]
    assert work["apps"] == ["Mail", "Slack"] and "silence" not in work
    assert work["people"] == ["Team Lead"] and work["time-sensitive"] is True and work["previews"] is None
    assert work["schedule"] == [{"days": ["mon", "tue", "wed", "thu", "fri"], "start": off_start, "end": off_end}]
    assert gaming["silence"] == ["Chat"] and "apps" not in gaming
    assert gaming["time-sensitive"] is False and gaming["previews"] == "never" and gaming["schedule"] == []
    assert work["active"] is False and gaming["active"] is False
    fc_ok(focusctl, "focus", "on", "gaming")
    rows = {f["name"]: f for f in fc_json(focusctl, "focus", "list", "--json")}
    assert rows["gaming"]["active"] is True and rows["work"]["active"] is False
    human = fc_ok(focusctl, "focus", "list").stdout
    assert "work" in human and "gaming" in human


def test_watch_prints_one_line_per_change(focus_bridge, client, focusctl, watch):
    focus_bridge(WORK)
    lines = watch()
    first = next_json(lines, what="first line")
    assert first["focus"] is None and first["silent"] is False, first
    assert {"focus", "silent", "counts", "next-summary", "downstream"} <= set(first), sorted(first)

    fc_ok(focusctl, "focus", "on", "work")
    on = next_json(lines, what="line for focus on")
    assert on["focus"]["name"] == "work" and on["focus"]["source"] == "manual", on
    assert not {"received", "delivered", "queued", "in-flight"} & set(on["counts"]), on["counts"]

    client.notify("counted while watching", app="Shop")
    held = next_json(lines, what="line for the held count")
    assert held["counts"]["held-focus"] == 1 and held["focus"]["name"] == "work", held

    fc_ok(focusctl, "silent", "on")
    silent = next_json(lines, what="line for silent on")
    assert silent["silent"] is True and silent["focus"]["name"] == "work", silent

    fc_ok(focusctl, "focus", "off")
    off = next_json(lines, what="line for focus off")
    assert off["focus"] is None, off
    # the digest took the held one: a count of 0 comes in this line or the next one
    if off["counts"]["held-focus"] != 0:
        assert next_json(lines)["counts"]["held-focus"] == 0
    # a change that changes nothing prints nothing: the next line is the next real change
    fc_ok(focusctl, "silent", "on")
    fc_ok(focusctl, "silent", "off")
    again = next_json(lines, what="line for silent off")
    assert again["silent"] is False, (again, lines.lines)


def test_watch_waybar(focus_bridge, bridge_factory, focusctl, watch, bus):
    b = focus_bridge(WORK)
    lines = watch("--waybar")
    first = next_json(lines, what="first line")
    assert set(first) == {"text", "alt", "tooltip", "class"}, first
    assert (first["text"], first["alt"], first["class"]) == ("", "none", "none"), first
    assert first["tooltip"].split("\n") == ["No Focus", "Held: 0 for Focus, 0 for the summary",
                                            "Silent mode: off"], first
    until = hhmm(local_now() + timedelta(hours=2))
    fc_ok(focusctl, "focus", "on", "work", "--until", until)
    on = next_json(lines, what="line for focus on")
    assert (on["text"], on["alt"], on["class"]) == ("work", "focus", "focus"), on
    head = on["tooltip"].split("\n")[0]
    assert head.startswith("Focus: work until ") and head.endswith(until), on   # "Sun 00:30" when tomorrow
    fc_ok(focusctl, "silent", "on")
    assert next_json(lines)["tooltip"].endswith("Silent mode: on")
    fc_ok(focusctl, "focus", "off")
    off = next_json(lines, what="line for focus off")
    assert (off["text"], off["alt"], off["class"]) == ("", "silent", "silent"), off
    assert b.stop() == 0
    assert bus.owner(NOTIF_NAME) is None
    gone = next_json(lines, what="line for the bridge going away")
    assert (gone["alt"], gone["class"], gone["tooltip"]) == ("off", "off", "FocusBridge is not running"), gone


def config_path(bridge):
    return bridge.config_home / "focus-bridge" / "config.toml"


def test_config_gone_for_a_while_keeps_the_focus_and_what_it_holds(focus_bridge, fake_daemon, client, focusctl,
                                                                    marker, config):
    """Deleted, then written anew later than the 200 ms the bridge lets a save settle: the
    running configuration stays meanwhile (focus-bridge(1), Configuration changes)."""
    b = focus_bridge(WORK)
    fc_ok(focusctl, "focus", "on", "work")
    nid = client.notify("Sale ends soon", "50% off", app="Shop")
    config_path(b).unlink()
    wait_until(lambda: "is gone; the running configuration stays" in b.stderr(), 5,
               message="the bridge did not log that the configuration file went away")
    st = status(focusctl)
    assert st["focus"]["name"] == "work" and st["counts"]["held-focus"] == 1, st
    config(WORK)
    wait_until(lambda: "reloaded " in b.stderr(), 5, message="the file written anew was not loaded")
    st = status(focusctl)
    assert st["focus"]["name"] == "work" and st["counts"]["held-focus"] == 1, st
    assert history_of(focusctl, nid)["decision"] == "held-focus"
    assert_not_forwarded(fake_daemon, marker, "Sale ends soon", "While work was on")


def test_focusctl_reload_with_the_config_gone_means_the_defaults(focus_bridge, fake_daemon, client, focusctl):
    b = focus_bridge(WORK)
    fc_ok(focusctl, "focus", "on", "work")
    client.notify("Sale ends soon", "50% off", app="Shop")
    config_path(b).unlink()
    wait_until(lambda: "is gone; the running configuration stays" in b.stderr(), 5)
    fc_ok(focusctl, "reload")
    # no file is the default set-up: no Focus is defined, so work ends and what it held comes
    fake_daemon.wait_notify("While work was on")
    st = status(focusctl)
    assert st["focus"] is None and st["counts"]["held-focus"] == 0, st
