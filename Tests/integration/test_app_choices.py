"""Choices made where the notification is: quick actions on the notification,
the first-Time-Sensitive question, per-app choices from focusctl that win over the file,
mutes that end on time and survive restarts, and marketing notifications — through the real
bridge, real clients (notify-send, focusctl) and the recording fake daemon; the quick action
through real dunst's own context menu is in test_dunst_choices.py."""

import subprocess
from pathlib import Path

from gi.repository import GLib

from support.focus import byte
from support.focusctl import fc_json, fc_ok, history_of, next_json, status
from support.processes import PYTHON, LineReader, session_env
from support.waiting import wait_until

TEST_TIMEOUT = 60

MUTE = "x-focus-quick.mute-hour"
TURN_OFF = "x-focus-quick.turn-off-time-sensitive"
QUESTION = "Time Sensitive notifications from %s"


def urgent():
    return {"urgency": byte(2)}


def pairs(rec):
    return list(zip(rec["actions"][::2], rec["actions"][1::2]))


def app_entry(focusctl, name):
    entries = [a for a in fc_json(focusctl, "apps", "--json") if a["app"].lower() == name.lower()]
    assert entries, "focusctl apps does not list %s" % name
    return entries[0]


def questions(fake_daemon):
    return [n for n in fake_daemon.notifies() if n["summary"].startswith("Time Sensitive notifications from")]


# --------------------------------------------------------------------------- quick actions
def test_quick_actions_come_after_the_apps_own_and_the_app_never_hears_them(bridge, client, fake_daemon, focusctl):
    nid = client.notify("Build done", "all green", app="CI", actions=["open", "Open", "default", ""])
    rec = fake_daemon.wait_notify("Build done")
    assert pairs(rec) == [("default", ""), ("open", "Open"), (MUTE, "Mute 1 Hour")], "quick actions after the app's own"

    fake_daemon.action(rec["daemon_id"], MUTE)
    closed = client.wait_signal("NotificationClosed", nid)
    assert closed.args[1] == 2, "a quick action closes the notification as dismissed"
    assert not client.got("ActionInvoked", nid), "the app heard the bridge's own key"
    assert fake_daemon.wait_call("CloseNotification", id=rec["daemon_id"]), "the daemon's copy stays on screen"

    mutes = status(focusctl)["mutes"]
    assert [m["app"] for m in mutes] == ["CI"], mutes
    explained = fc_json(focusctl, "explain", "--json", "--app", "Deploy", "--action", "open=Open")
    assert [a["label"] for a in explained["actions"]] == ["Open", "Mute 1 Hour"], "explain lists the quick actions"
    assert "CI" in fc_ok(focusctl, "mute", "--list").stdout


def test_turn_off_time_sensitive_from_the_notification(bridge, client, fake_daemon, focusctl):
    client.notify("On call", "pager", app="Pager", hints=urgent())
    rec = fake_daemon.wait_notify("On call")
    assert pairs(rec)[-2:] == [(MUTE, "Mute 1 Hour"), (TURN_OFF, "Turn Off Time Sensitive")], pairs(rec)
    fake_daemon.action(rec["daemon_id"], TURN_OFF)
    wait_until(lambda: app_entry(focusctl, "Pager")["settings"]["time-sensitive"]["value"] == "off", 5,
               message="Turn Off Time Sensitive made no choice")
    setting = app_entry(focusctl, "Pager")["settings"]["time-sensitive"]
    assert setting["source"] == "choice" and setting["made"], setting

    nid = client.notify("On call again", "pager", app="Pager", hints=urgent())
    again = fake_daemon.wait_notify("On call again")
    assert history_of(focusctl, nid)["level"] == "active"
    assert again["hints"]["urgency"] == "byte 0x01", "no longer time-sensitive: urgency normal"
    assert (TURN_OFF, "Turn Off Time Sensitive") not in pairs(again)


def test_no_quick_actions_where_the_app_needs_every_slot_or_they_are_off(focus_bridge, client, fake_daemon):
    focus_bridge("""
        [apps."Quiet"]
        quick-actions = []
        """)
    client.notify("Four", "", app="Busy", actions=["a", "A", "b", "B", "c", "C", "d", "D"])
    assert [k for k, _ in pairs(fake_daemon.wait_notify("Four"))] == ["a", "b", "c", "d"]
    client.notify("None wanted", "", app="Quiet")
    assert fake_daemon.wait_notify("None wanted")["actions"] == []


# --------------------------------------------------------------------------- the question
def test_the_first_time_sensitive_notification_asks_once_ever(focus_bridge, bridge_factory, client, fake_daemon,
                                                             focusctl, make_client):
    b = focus_bridge("")
    client.notify("Incoming call", "Ann", app="Phone", hints=urgent())
    fake_daemon.wait_notify("Incoming call")
    ask = fake_daemon.wait_notify(QUESTION % "Phone")
    assert ask["app_name"] == "FocusBridge"
    assert "break through a Focus and the scheduled summary" in ask["body"]
    assert pairs(ask) == [("keep", "Keep"), ("turn-off", "Turn Off")], "no quick actions on the bridge's own"
    assert app_entry(focusctl, "Phone")["time-sensitive-question"] == "asked"

    client.notify("Second call", "Bob", app="Phone", hints=urgent())
    fake_daemon.wait_notify("Second call")
    fake_daemon.action(ask["daemon_id"], "turn-off")
    wait_until(lambda: app_entry(focusctl, "Phone")["time-sensitive-question"] == "turn-off", 5,
               message="Turn Off was not recorded")
    assert app_entry(focusctl, "Phone")["settings"]["time-sensitive"]["value"] == "off"
    assert len(questions(fake_daemon)) == 1, "asked twice"

    # A restart asks no more (and keeps the choice).
    b.stop()
    bridge_factory()
    c2 = make_client("after restart")
    wait_until(lambda: c2.status()["downstream"]["connected"], 10)
    fc_ok(focusctl, "app", "Phone", "reset", "time-sensitive")
    nid = c2.notify("Third call", "Cy", app="Phone", hints=urgent())
    fake_daemon.wait_notify("Third call")
    assert history_of(focusctl, nid)["level"] == "time-sensitive"
    c2.notify("after the third", "", app="Marker")
    fake_daemon.wait_notify("after the third")
    assert len(questions(fake_daemon)) == 1, "asked again after a restart"


def test_no_question_for_an_entitled_critical_app(focus_bridge, client, fake_daemon):
    focus_bridge("""
        [apps."Alarm"]
        critical = true
        """)
    client.notify("Fire", "", app="Alarm", hints={"x-focus-interruption-level": GLib.Variant("s", "time-sensitive")})
    fake_daemon.wait_notify("Fire")
    client.notify("after", "", app="Other")
    fake_daemon.wait_notify("after")
    assert questions(fake_daemon) == [], "an app entitled to critical was asked"


def test_no_question_when_turned_off(focus_bridge, client, fake_daemon):
    focus_bridge("""
        [general]
        explain-time-sensitive = false
        """)
    client.notify("Call", "", app="Phone", hints=urgent())
    fake_daemon.wait_notify("Call")
    client.notify("after", "", app="Other")
    fake_daemon.wait_notify("after")
    assert questions(fake_daemon) == []


def test_the_question_waits_for_a_focus_that_would_hold_it(focus_bridge, client, fake_daemon, focusctl):
    focus_bridge("""
        [focus.work]
        apps = []
        time-sensitive = true
        """)
    fc_ok(focusctl, "focus", "on", "work")
    client.notify("Page", "db down", app="Pager", hints=urgent())
    fake_daemon.wait_notify("Page")
    client.notify("after", "", app="Other", hints=urgent())
    fake_daemon.wait_notify("after")
    assert questions(fake_daemon) == [], "asked during a Focus that holds the bridge's own notifications"
    assert app_entry(focusctl, "Pager")["time-sensitive-question"] == "pending"
    fc_ok(focusctl, "focus", "off")
    asks = [fake_daemon.wait_notify(QUESTION % name) for name in ("Pager", "Other")]
    assert all(a["app_name"] == "FocusBridge" for a in asks)


# --------------------------------------------------------------------------- focusctl app
def test_a_choice_wins_over_the_file_until_reset_and_survives_a_restart(focus_bridge, bridge_factory, client,
                                                                        fake_daemon, focusctl, config):
    path = config("""
        [apps."Shop"]
        delivery = "immediate"
        """)
    b = focus_bridge()
    client.notify("hello", "", app="Shop")
    fake_daemon.wait_notify("hello")
    entry = app_entry(focusctl, "shop")
    assert entry["settings"]["delivery"] == {"value": "immediate", "source": "config", "at": "%s:6" % path, "made": None}

    r = fc_ok(focusctl, "app", "shop", "delivery", "off")
    assert r.stdout.strip() == ("Shop: delivery is off (your choice; it wins over the configuration until "
                                "`focusctl app Shop reset delivery`)")
    nid = client.notify("dropped now", "", app="Shop")
    assert history_of(focusctl, nid)["decision"] == "dropped"
    explained = fc_json(focusctl, "explain", "--json", "--app", "Shop")
    assert any(line.startswith("choice: delivery off for Shop") for line in explained["trace"]), explained["trace"]

    b.stop()
    focus_bridge()
    assert app_entry(focusctl, "Shop")["settings"]["delivery"]["source"] == "choice", "the choice did not survive"
    assert fc_ok(focusctl, "app", "Shop", "reset").stdout.strip() == "Shop: delivery back to the configuration."
    assert app_entry(focusctl, "Shop")["settings"]["delivery"]["source"] == "config"
    assert "nothing changed" in fc_ok(focusctl, "app", "Shop", "reset", "delivery").stdout


def test_unknown_apps_keys_and_values_get_one_sentence(bridge, client, fake_daemon, focusctl):
    client.notify("hi", "", app="Thunderbird")
    fake_daemon.wait_notify("hi")
    r = focusctl("app", "Thunderbrid", "delivery", "summary")
    assert r.returncode == 1
    assert 'did you mean "Thunderbird"?' in r.stderr and "--new" in r.stderr, r.stderr
    r = focusctl("app", "Thunderbird", "delivry", "summary")
    assert r.returncode == 1 and 'did you mean "delivery"?' in r.stderr, r.stderr
    r = focusctl("app", "Thunderbird", "time-sensitive", "maybe")
    assert r.returncode == 1 and "`time-sensitive` is on or off" in r.stderr, r.stderr
    r = focusctl("app", "Thunderbird", "delivery")
    assert r.returncode != 0 and "Give a value for delivery" in r.stderr, r.stderr
    fc_ok(focusctl, "app", "NotYetSeen", "marketing", "on", "--new")
    assert app_entry(focusctl, "NotYetSeen")["settings"]["marketing"]["value"] == "on"
    r = focusctl("mute", "FocusBridge", "--new")
    assert r.returncode == 1 and "own notifications" in r.stderr, r.stderr


# --------------------------------------------------------------------------- mute
def test_a_muted_app_is_recorded_never_shown_and_its_id_ends(focus_bridge, client, fake_daemon, focusctl, bus, procs,
                                                             watch):
    focus_bridge("""
        [apps."Chat"]
        critical = true
        """)
    client.notify("seen", "", app="Chat")
    fake_daemon.wait_notify("seen")
    out = fc_ok(focusctl, "mute", "Chat", "--for", "30m").stdout
    assert out.startswith("Chat is muted until "), out
    muted_line = [line for line in fc_ok(focusctl, "status").stdout.splitlines() if line.startswith("Muted")]
    assert muted_line and "Chat until" in muted_line[0], muted_line
    assert "Muted: Chat until" in next_json(watch("--waybar"))["tooltip"]
    p = procs.spawn(["notify-send", "-a", "Chat", "--wait", "Muted message"], env=session_env(bus.address),
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.wait(10) == 0, "notify-send --wait never heard its muted notification end"
    rows = [r for r in fc_json(focusctl, "history", "--json") if r["summary"] == "Muted message"]
    assert rows and rows[0]["decision"] == "muted" and rows[0]["close-reason"] == 2, rows
    client.notify("after", "", app="Other")
    fake_daemon.wait_notify("after")
    assert "Muted message" not in [n["summary"] for n in fake_daemon.notifies()]
    # Critical from an app entitled to it still breaks through.
    nid = client.notify("Server on fire", "", app="Chat", hints={"x-focus-interruption-level": GLib.Variant("s", "critical")})
    fake_daemon.wait_notify("Server on fire")
    assert history_of(focusctl, nid)["decision"] == "delivered"
    assert fc_ok(focusctl, "unmute", "Chat").stdout.strip() == "Chat is no longer muted."
    assert status(focusctl)["mutes"] == []


def test_a_mute_keeps_urgent_notifications_quiet_and_says_so(focus_bridge, client, fake_daemon, focusctl):
    """`notify-send -u critical` is the time-sensitive level: a mute keeps it quiet, and the
    mute says so; only an app entitled to the critical level breaks through."""
    focus_bridge("")
    client.notify("seen", "", app="Noisy")
    fake_daemon.wait_notify("seen")
    out = fc_ok(focusctl, "mute", "Noisy").stdout
    assert "urgent ones (notify-send -u critical) too" in out and "critical = true" in out, out
    nid = client.notify("URGENT SALE", "", app="Noisy", hints={"urgency": GLib.Variant("y", 2)})
    row = history_of(focusctl, nid)
    assert row["decision"] == "muted" and row["level"] == "time-sensitive", row
    trace = fc_json(focusctl, "explain", "--json", "--app", "Noisy", "--urgency", "critical")["trace"]
    assert any("urgent ones too" in line for line in trace), trace
    client.notify("after", "", app="Other")
    fake_daemon.wait_notify("after")
    assert "URGENT SALE" not in [n["summary"] for n in fake_daemon.notifies()]


def test_a_mute_survives_a_restart_and_ends_on_time(focus_bridge, client, fake_daemon, focusctl, make_client, watch):
    b = focus_bridge("")
    client.notify("seen", "", app="Game")
    fake_daemon.wait_notify("seen")
    fc_ok(focusctl, "mute", "Game", "--for", "3s")
    b.stop()
    focus_bridge()
    assert [m["app"] for m in status(focusctl)["mutes"]] == ["Game"], "the mute did not survive a restart"
    # Ends on time, by the bridge's own timer: StateChanged tells a watcher.
    reader = watch()
    assert [m["app"] for m in next_json(reader)["mutes"]] == ["Game"]
    assert next_json(reader, timeout=10, what="the end of the mute")["mutes"] == []
    c = make_client("after the mute")
    c.notify("unmuted", "", app="Game")
    fake_daemon.wait_notify("unmuted")


# --------------------------------------------------------------------------- marketing
def test_marketing_is_dropped_unless_allowed_then_passive_and_never_through_a_focus(focus_bridge, client, fake_daemon,
                                                                                   focusctl):
    focus_bridge("""
        [focus.work]
        apps = ["Shop"]
        """)
    ad = {"x-focus-marketing": GLib.Variant("b", True), "urgency": byte(2)}
    nid = client.notify("50% off", "today only", app="Shop", hints=ad)
    assert history_of(focusctl, nid)["decision"] == "dropped"
    fc_ok(focusctl, "app", "Shop", "marketing", "on")
    nid = client.notify("40% off", "", app="Shop", hints=ad)
    rec = fake_daemon.wait_notify("40% off")
    assert history_of(focusctl, nid)["level"] == "passive" and rec["hints"]["urgency"] == "byte 0x00"
    fc_ok(focusctl, "focus", "on", "work")
    nid = client.notify("30% off", "", app="Shop", hints=ad)
    assert history_of(focusctl, nid)["decision"] == "held-focus", "marketing broke through a Focus that allows the app"


# --------------------------------------------------------------------------- GNotification
def test_a_gnotification_app_gets_quick_actions_it_never_hears(bridge, fake_daemon, focusctl, bus, procs):
    """A GTK app's GNotification (GLib's freedesktop backend): urgent is time-sensitive, so it
    gets both quick actions after its own button; Turn Off Time Sensitive turns it off for the
    app (its desktop entry), and the app hears only its own actions."""
    app = procs.spawn([PYTHON, str(Path(__file__).parent / "support" / "gnotification_client.py"), "org.example.Pager"],
                      env=session_env(bus.address), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                      stderr=subprocess.DEVNULL)
    out = LineReader(app.stdout)
    app.stdin.write(b"send page Database down urgent\n")
    app.stdin.flush()
    assert out.get(10) == "sent page"
    rec = fake_daemon.wait_notify("Database down")
    assert pairs(rec)[-3:] == [("app.ack", "Acknowledge"), (MUTE, "Mute 1 Hour"), (TURN_OFF, "Turn Off Time Sensitive")], rec
    fake_daemon.action(rec["daemon_id"], TURN_OFF)
    wait_until(lambda: app_entry(focusctl, "org.example.Pager")["settings"]["time-sensitive"]["value"] == "off", 5,
               message="Turn Off Time Sensitive made no choice for the GNotification's app")

    app.stdin.write(b"send again Database still down urgent\n")
    app.stdin.flush()
    assert out.get(10) == "sent again"
    again = fake_daemon.wait_notify("Database still down")
    assert (TURN_OFF, "Turn Off Time Sensitive") not in pairs(again)
    fake_daemon.action(again["daemon_id"], "app.ack")
    assert out.get(10) == "activated ack", "the app's own button never reached it"
    assert out.lines == ["sent page", "sent again", "activated ack"], "the app heard a quick action: %r" % out.lines
