"""The Time Sensitive review (focus-bridge(1), BEHAVIOUR; focusctl(1), REVIEW): apps whose
time-sensitive notifications were mostly left alone get one notification of the bridge's with
Keep and Turn Off — through the real bridge, a real client, focusctl, the recording fake daemon
(which acts, dismisses and expires as a person and a daemon would) and real dunst 1.9 under Xvfb.
The weekly run is caught up at start after the stored time of the last one is set a week back
(the state database, while the bridge is stopped); the same app is never reviewed twice in 7
days, across restarts too; a review waits for a Focus that would hold it."""

import sqlite3
import time
from contextlib import closing

from support.dunst import Dunst, pick_from_menu
from support.focus import byte, far_time
from support.focusctl import fc_json, fc_ok, history_of
from support.waiting import wait_until

TEST_TIMEOUT = 60

REVIEW = "Time Sensitive review: %s"
# No first question: each test is about the review alone.
QUIET = """
[general]
explain-time-sensitive = false
"""


def urgent():
    return {"urgency": byte(2)}


def pairs(rec):
    return list(zip(rec["actions"][::2], rec["actions"][1::2]))


def reviews(fake_daemon):
    return [n for n in fake_daemon.notifies() if n["summary"].startswith("Time Sensitive review: ")]


def review_json(focusctl):
    return fc_json(focusctl, "review", "--json")


def app_entry(focusctl, name):
    entries = [a for a in fc_json(focusctl, "apps", "--json") if a["app"].lower() == name.lower()]
    assert entries, "focusctl apps does not list %s" % name
    return entries[0]


def send(client, fake_daemon, focusctl, app, summary, outcome):
    """A time-sensitive notification of `app`, shown, then acted on, dismissed, expired or left
    open; its bridge ID once history has its outcome."""
    nid = client.notify(summary, "", app=app, hints=urgent(), actions=["default", ""])
    did = fake_daemon.wait_notify(summary)["daemon_id"]
    if outcome == "acted":
        fake_daemon.action(did, "default")
        client.wait_signal("ActionInvoked", nid)
    elif outcome in ("dismissed", "expired"):
        fake_daemon.closed(did, 2 if outcome == "dismissed" else 1)
        client.wait_signal("NotificationClosed", nid)
    wait_until(lambda: history_of(focusctl, nid)["outcome"] == outcome, 10,
               message="notification %d never had the outcome %s" % (nid, outcome))
    return nid


def sends(client, fake_daemon, focusctl, app, *outcomes):
    return [send(client, fake_daemon, focusctl, app, "%s %d" % (app, n), outcome) for n, outcome in enumerate(outcomes)]


def marker_through(client, fake_daemon, summary):
    """A notification after which anything sent before it has reached the daemon (forwarding
    keeps order): critical (the base config entitles Marker), so no Focus holds it."""
    client.notify(summary, "", app="Marker", hints=urgent())
    fake_daemon.wait_notify(summary)


def set_setting(bridge, key, value):
    """Writes a setting into the stopped bridge's state database (the running bridge holds it
    locked)."""
    with closing(sqlite3.connect(bridge.state_dir / "state.sqlite3")) as db, db:
        db.execute("INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                   (key, value))


def setting(bridge, key):
    with closing(sqlite3.connect(bridge.state_dir / "state.sqlite3")) as db:
        row = db.execute("SELECT value FROM setting WHERE key = ?", (key,)).fetchone()
    return row and row[0]


def week_ago():
    return str(time.time() - 8 * 86400)


# --------------------------------------------------------------------------- focusctl review
def test_review_lists_then_asks_and_turn_off_is_the_apps_choice(focus_bridge, client, fake_daemon, focusctl):
    focus_bridge(QUIET)
    # Pager: 4 sent, 1 acted on — due. Chat: half acted on — not. Alarm: 2 — too few.
    sends(client, fake_daemon, focusctl, "Pager", "acted", "dismissed", "expired", "expired")
    sends(client, fake_daemon, focusctl, "Chat", "acted", "acted", "dismissed", "expired")
    sends(client, fake_daemon, focusctl, "Alarm", "expired", "expired")
    for n in range(5):  # ignored, but not time-sensitive
        client.notify("Mail %d" % n, "", app="Mail")

    listed = review_json(focusctl)
    assert [(a["app"], a["sent"], a["acted"], a["state"]) for a in listed["apps"]] == [("Pager", 4, 1, "due")], listed
    assert listed["delivered"] is False and listed["reviewed"] == [] and listed["frequency"] == "weekly"
    assert listed["next"] is not None
    marker_through(client, fake_daemon, "after the list")
    assert reviews(fake_daemon) == [], "--json only lists"

    out = fc_ok(focusctl, "review").stdout
    assert "Time Sensitive review of the last 7 days:" in out, out
    assert [line.split() for line in out.splitlines() if "Pager" in line] == [
        ["Pager", "4", "sent,", "1", "acted", "on:", "asked", "now:", "Keep", "or", "Turn", "Off"]], out
    assert "Next weekly review: " in out, out
    ask = fake_daemon.wait_notify(REVIEW % "Pager")
    assert ask["app_name"] == "FocusBridge"
    assert ask["body"].startswith("Pager sent 4 Time Sensitive notifications in the last 7 days; you acted on 1."), ask
    assert pairs(ask) == [("keep", "Keep"), ("turn-off", "Turn Off")], "no quick actions on the bridge's own"
    assert ask["hints"]["urgency"] == "byte 0x01", "the bridge's own notification is active"

    # Once in 7 days: listed as reviewed, not asked again.
    again = review_json(focusctl)
    assert again["apps"] == [] and [(a["app"], a["state"]) for a in again["reviewed"]] == [("Pager", "delivered")]
    assert fc_ok(focusctl, "review").stdout.startswith("No app is due:")
    marker_through(client, fake_daemon, "after the second review")
    assert len(reviews(fake_daemon)) == 1, "asked twice"

    # Turn Off: the app's choice, as focusctl app shows; its next one arrives as active.
    fake_daemon.action(ask["daemon_id"], "turn-off")
    wait_until(lambda: app_entry(focusctl, "Pager")["settings"]["time-sensitive"]["value"] == "off", 5,
               message="Turn Off did not turn Time Sensitive off")
    shown = fc_ok(focusctl, "app", "Pager").stdout
    assert any(line.split()[:2] == ["time-sensitive", "off"] for line in shown.splitlines() if line.split()), shown
    fake_daemon.wait_call("CloseNotification", id=ask["daemon_id"])
    nid = client.notify("Pager later", "", app="Pager", hints=urgent())
    fake_daemon.wait_notify("Pager later")
    assert history_of(focusctl, nid)["level"] == "active"


def test_keep_changes_nothing_and_a_dismissed_review_asks_no_more(focus_bridge, client, fake_daemon, focusctl):
    focus_bridge(QUIET)
    sends(client, fake_daemon, focusctl, "Pager", "expired", "expired", "expired")
    sends(client, fake_daemon, focusctl, "Build", "dismissed", "dismissed", "dismissed")
    fc_ok(focusctl, "review")
    pager, build = fake_daemon.wait_notify(REVIEW % "Pager"), fake_daemon.wait_notify(REVIEW % "Build")
    assert pager["body"].startswith("Pager sent 3 Time Sensitive notifications in the last 7 days; you acted on 0.")
    fake_daemon.action(pager["daemon_id"], "keep")
    fake_daemon.wait_call("CloseNotification", id=pager["daemon_id"])
    fake_daemon.closed(build["daemon_id"], 2)      # dismissed unanswered
    assert app_entry(focusctl, "Pager")["settings"]["time-sensitive"]["value"] == "on"
    assert app_entry(focusctl, "Build")["settings"]["time-sensitive"]["value"] == "on"
    assert review_json(focusctl)["apps"] == []
    # The review's own notification is history too, and the report does not count it as an app's.
    rows = [r for r in fc_json(focusctl, "history", "--json") if r["summary"].startswith("Time Sensitive review")]
    assert {r["app"] for r in rows} == {"FocusBridge"} and len(rows) == 2, rows


def test_off_stops_the_weekly_review_but_not_the_command(focus_bridge, client, fake_daemon, focusctl):
    focus_bridge(QUIET + 'time-sensitive-review = "off"\n')
    sends(client, fake_daemon, focusctl, "Pager", "expired", "expired", "expired")
    listed = review_json(focusctl)
    assert listed["frequency"] == "off" and listed["next"] is None
    assert [a["app"] for a in listed["apps"]] == ["Pager"]
    out = fc_ok(focusctl, "review").stdout
    assert 'The weekly review is off (time-sensitive-review = "off")' in out, out
    fake_daemon.wait_notify(REVIEW % "Pager")


def test_a_history_longer_than_a_slice_is_counted_whole(focus_bridge, client, fake_daemon, focusctl):
    # The daemon reads history 500 rows per pass of its main loop: Pager's three are past the
    # first two slices of newer ones, and calls are answered between the slices.
    focus_bridge(QUIET + "rate-limit = 0\n")
    sends(client, fake_daemon, focusctl, "Pager", "expired", "expired", "expired")
    for n in range(1100):
        client.notify("Flood %d" % n, "", app="Flood")
    listed = review_json(focusctl)
    assert [(a["app"], a["sent"], a["acted"]) for a in listed["apps"]] == [("Pager", 3, 0)], listed


# --------------------------------------------------------------------------- the weekly run, restarts
def test_a_missed_weekly_review_is_caught_up_at_start_and_remembered_across_restarts(
        focus_bridge, bridge_factory, client, fake_daemon, focusctl, make_client):
    b1 = focus_bridge(QUIET)
    sends(client, fake_daemon, focusctl, "Pager", "expired", "dismissed", "expired")
    assert b1.stop() == 0
    first = float(setting(b1, "review-checked"))
    assert abs(first - time.time()) < 60, "the first start notes the time of the last look"
    assert reviews(fake_daemon) == [], "the first start catches nothing up"

    # The last look was more than a week ago: a Monday 10:00 passed while it was stopped.
    set_setting(b1, "review-checked", week_ago())
    b2 = bridge_factory()
    ask = fake_daemon.wait_notify(REVIEW % "Pager", timeout=10)
    assert ask["body"].startswith("Pager sent 3 Time Sensitive notifications in the last 7 days; you acted on 0.")
    wait_until(lambda: "Time Sensitive review: 1 app to ask about" in b2.stderr(), 5,
               message="no log line for the review: %s" % b2.stderr_tail())

    # Again a week "ago" and a restart: the review runs and asks about nothing (Pager was asked).
    assert b2.stop() == 0
    assert float(setting(b2, "review-checked")) > first
    assert "Pager" in setting(b2, "reviews")
    set_setting(b2, "review-checked", week_ago())
    b3 = bridge_factory()
    wait_until(lambda: "Time Sensitive review: 0 apps to ask about" in b3.stderr(), 10,
               message="the caught-up review did not run: %s" % b3.stderr_tail())
    c = make_client("after restarts")
    marker_through(c, fake_daemon, "after the restarts")
    assert len(reviews(fake_daemon)) == 1, "the same app reviewed twice in a week"
    listed = review_json(focusctl)
    assert listed["apps"] == [] and [(a["app"], a["state"]) for a in listed["reviewed"]] == [("Pager", "delivered")]


# --------------------------------------------------------------------------- a Focus
FOCUS = QUIET + """
[focus.work]
apps = []
time-sensitive = true
"""


def test_a_review_waits_for_the_focus_that_would_hold_it_across_a_restart(
        focus_bridge, bridge_factory, client, fake_daemon, focusctl, make_client):
    b1 = focus_bridge(FOCUS)
    fc_ok(focusctl, "focus", "on", "work")
    # Time-sensitive: they break through this Focus; the review of them would not.
    sends(client, fake_daemon, focusctl, "Pager", "dismissed", "dismissed", "expired")
    out = fc_ok(focusctl, "review").stdout
    assert "waits for the Focus to end, or the next summary" in out, out
    listed = review_json(focusctl)
    assert listed["apps"] == [] and [(a["app"], a["state"]) for a in listed["reviewed"]] == [("Pager", "waiting")]
    marker_through(client, fake_daemon, "during the Focus")
    assert reviews(fake_daemon) == [], "a review broke through a Focus that holds the bridge's own"

    # Remembered across a restart, still waiting (the Focus turned on by hand stays on).
    assert b1.stop() == 0
    bridge_factory()
    c = make_client("after the restart")
    marker_through(c, fake_daemon, "after the restart")
    assert reviews(fake_daemon) == []
    fc_ok(focusctl, "focus", "off")
    ask = fake_daemon.wait_notify(REVIEW % "Pager")
    assert ask["app_name"] == "FocusBridge"
    assert [(a["app"], a["state"]) for a in review_json(focusctl)["reviewed"]] == [("Pager", "delivered")]


def test_a_waiting_review_comes_with_the_scheduled_summary(focus_bridge, bridge_factory, client, fake_daemon,
                                                           focusctl, config, make_client):
    b1 = focus_bridge(FOCUS + '\n[summary]\ntimes = ["%s"]\n' % far_time())
    fc_ok(focusctl, "focus", "on", "work")
    sends(client, fake_daemon, focusctl, "Pager", "expired", "expired", "expired")
    fc_ok(focusctl, "review")
    assert b1.stop() == 0
    # A summary time passed while it was stopped: caught up at start, the Focus still on.
    set_setting(b1, "summary-checked", str(time.time() - 86400))
    bridge_factory()
    ask = fake_daemon.wait_notify(REVIEW % "Pager", timeout=10)
    assert ask["app_name"] == "FocusBridge"
    assert fc_json(focusctl, "status", "--json")["focus"]["name"] == "work"


def test_a_waiting_review_of_an_app_turned_off_meanwhile_is_not_sent(focus_bridge, client, fake_daemon, focusctl):
    focus_bridge(FOCUS)
    fc_ok(focusctl, "focus", "on", "work")
    sends(client, fake_daemon, focusctl, "Pager", "expired", "expired", "expired")
    fc_ok(focusctl, "review")
    fc_ok(focusctl, "app", "Pager", "time-sensitive", "off")
    fc_ok(focusctl, "focus", "off")
    marker_through(client, fake_daemon, "after the Focus")
    assert reviews(fake_daemon) == []
    assert review_json(focusctl)["reviewed"][0]["state"] == "delivered"


# --------------------------------------------------------------------------- real dunst
def test_the_review_through_real_dunst(bridge_factory, xvfb, dunstrc, make_client, bus, focusctl, config, tmp_path):
    """dunst 1.9 behind the bridge: the person acts (dunstctl action), dismisses (dunstctl close)
    and lets expire; the review is drawn by dunst, and Turn Off picked from dunst's own context menu
    (a scripted menu program in place of dmenu) turns Time Sensitive off."""
    config(QUIET)
    menu_input = pick_from_menu(dunstrc, tmp_path, "Turn Off")
    d = Dunst(bridge_factory, xvfb, dunstrc, make_client, bus, "dunst review client")
    c = d.client

    def on_screen(count):
        wait_until(lambda: d.displayed() == count, 10, message="dunst does not show %d notification(s)" % count)

    acted = c.notify("Page 1", "db slow", app="Pager", hints=urgent(), actions=["default", "Open"])
    on_screen(1)
    d.ctl("action", "0")
    c.wait_signal("ActionInvoked", acted, timeout=10)
    d.ctl("close")
    c.wait_signal("NotificationClosed", acted, timeout=10)
    dismissed = []
    for n in (2, 3):
        dismissed.append(c.notify("Page %d" % n, "db slow", app="Pager", hints=urgent()))
        on_screen(1)
        d.ctl("close")
        c.wait_signal("NotificationClosed", dismissed[-1], timeout=10)
    expired = c.notify("Page 4", "db slow", app="Pager", hints=urgent(), timeout=500)
    assert c.wait_signal("NotificationClosed", expired, timeout=10).args == (expired, 1)
    for nid, outcome in [(acted, "acted"), (dismissed[0], "dismissed"), (dismissed[1], "dismissed"),
                         (expired, "expired")]:
        wait_until(lambda: history_of(focusctl, nid)["outcome"] == outcome, 10,
                   message="notification %d never had the outcome %s" % (nid, outcome))

    assert [(a["app"], a["sent"], a["acted"]) for a in review_json(focusctl)["apps"]] == [("Pager", 4, 1)]
    fc_ok(focusctl, "review")
    on_screen(1)
    d.ctl("context")
    wait_until(lambda: app_entry(focusctl, "Pager")["settings"]["time-sensitive"]["value"] == "off", 10,
               message="Turn Off from dunst's menu did not turn Time Sensitive off (menu: %r)"
               % (menu_input.read_text() if menu_input.exists() else None))
    on_screen(0)
    d.ctl("close-all")
    assert [h["summary"] for h in d.history()][0] == REVIEW % "Pager", d.history()
    assert any("Turn Off" in line for line in menu_input.read_text().splitlines())
