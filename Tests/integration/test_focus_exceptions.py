"""The exceptions a strict Focus needs to be trusted (focus-bridge.toml(5), [focus.NAME];
focus-bridge(1), BEHAVIOUR): repeated calls, and apps asking for quiet (Inhibit, as Plasma
serves it)."""

import subprocess

from gi.repository import GLib

from support.focusctl import fc_json, fc_ok, history_of
from support.names import NOTIF_IFACE, NOTIF_PATH
from support.processes import session_env
from support.waiting import wait_until

TEST_TIMEOUT = 30

STRICT = """
[focus.strict]
time-sensitive = false
%s
"""


def notify_send(bus, *args):
    """notify-send as an app runs it; returns the ID it printed (-p)."""
    r = subprocess.run(["notify-send", "-p", *args], env=session_env(bus.address), capture_output=True, text=True,
                       timeout=10)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip())


def test_a_second_call_from_the_same_person_within_three_minutes_breaks_through(focus_bridge, fake_daemon, bus,
                                                                                focusctl):
    focus_bridge(STRICT % "")
    fc_ok(focusctl, "focus", "on", "strict")
    first = notify_send(bus, "-a", "Phone", "-c", "call.incoming", "Ada Lovelace", "is calling")
    assert history_of(focusctl, first)["decision"] == "held-focus"
    other = notify_send(bus, "-a", "Phone", "-c", "call.incoming", "Grace Hopper", "is calling")
    assert history_of(focusctl, other)["decision"] == "held-focus", "another person's first call"
    again = notify_send(bus, "-a", "Phone", "-c", "call.incoming", "Ada Lovelace", "is calling again")
    assert history_of(focusctl, again)["decision"] == "delivered"
    fake_daemon.wait_notify("Ada Lovelace")
    explained = fc_json(focusctl, "explain", str(again), "--json")
    assert any("a repeated call: Ada Lovelace called" in line for line in explained["then"]["trace"]), explained
    message = notify_send(bus, "-a", "Phone", "-c", "im.received", "Ada Lovelace", "a message, not a call")
    assert history_of(focusctl, message)["decision"] == "held-focus"


def test_repeated_calls_can_be_turned_off(focus_bridge, fake_daemon, bus, focusctl):
    focus_bridge(STRICT % "repeated-calls = false")
    fc_ok(focusctl, "focus", "on", "strict")
    ids = [notify_send(bus, "-a", "Phone", "-c", "call.incoming", "Ada Lovelace", "call %d" % n) for n in range(2)]
    assert [history_of(focusctl, nid)["decision"] for nid in ids] == ["held-focus", "held-focus"]


# --------------------------------------------------------------------------- Inhibit
PROPERTIES = "org.freedesktop.DBus.Properties"


def inhibit(app, entry="org.example.Slides", reason="Presenting"):
    return app.call("Inhibit", GLib.Variant("(ssa{sv})", (entry, reason, {})), "(u)")[0]


def inhibited(app):
    return app.call("Get", GLib.Variant("(ss)", (NOTIF_IFACE, "Inhibited")), "(v)", iface=PROPERTIES)[0]


def test_an_app_asking_for_quiet_holds_what_is_below_time_sensitive_until_it_is_done(
        focus_bridge, fake_daemon, bus, focusctl, make_client):
    focus_bridge("")
    slides, other, watcher = make_client("slides"), make_client("other app"), make_client("watcher")
    watcher.subscribe(PROPERTIES, NOTIF_PATH, "PropertiesChanged")
    assert inhibited(watcher) is False
    cookie = inhibit(slides)
    changed = watcher.wait_signal("PropertiesChanged", interface=PROPERTIES)
    assert changed.args == (NOTIF_IFACE, {"Inhibited": True}, []), changed.args
    assert inhibited(watcher) is True
    focus = fc_json(focusctl, "status", "--json")["focus"]
    assert (focus["name"], focus["source"]) == ("dnd", "inhibit"), focus
    assert "org.example.Slides: Presenting" in focus["reason"], focus

    held = notify_send(bus, "-a", "Chat", "Lunch?", "during the talk")
    assert history_of(focusctl, held)["decision"] == "held-focus"
    urgent = notify_send(bus, "-a", "Monitor", "-u", "critical", "Server down", "time-sensitive")
    assert history_of(focusctl, urgent)["decision"] == "delivered"

    other.call("UnInhibit", GLib.Variant("(u)", (cookie,)))  # not its own: no effect
    assert inhibited(watcher) is True
    slides.call("UnInhibit", GLib.Variant("(u)", (cookie,)))
    watcher.wait_signal("PropertiesChanged", interface=PROPERTIES, count=2)
    assert inhibited(watcher) is False
    digest = fake_daemon.wait_notify("While dnd was on")
    assert "Lunch?" in digest["body"], digest
    assert fc_json(focusctl, "status", "--json")["focus"] is None


def test_an_inhibition_ends_when_its_app_leaves_the_bus(focus_bridge, fake_daemon, focusctl, make_client):
    focus_bridge("")
    slides, watcher = make_client("slides"), make_client("watcher")
    inhibit(slides, "org.example.Call", "In a call")
    assert inhibited(watcher) is True
    slides.dispose()
    wait_until(lambda: inhibited(watcher) is False, 5, message="the inhibition outlived its connection")
    assert fc_json(focusctl, "status", "--json")["focus"] is None


def test_inhibitions_are_bounded_per_connection(focus_bridge, fake_daemon, make_client):
    focus_bridge("")
    greedy = make_client("greedy")
    for _ in range(16):
        inhibit(greedy)
    try:
        inhibit(greedy)
    except GLib.Error as error:
        assert "LimitsExceeded" in error.message, error.message
    else:
        raise AssertionError("a 17th inhibition of one connection was taken")


# --------------------------------------------------------------------------- while locked
def test_while_locked_hold_keeps_notifications_for_a_while_you_were_away_digest(
        focus_bridge, fake_daemon, bus, focusctl, screensaver_factory):
    ss = screensaver_factory(locked=False)
    focus_bridge('[general]\nwhile-locked = "hold"\n')
    ss.wait_asked()
    ss.set_locked(True)
    focus = wait_until(lambda: fc_json(focusctl, "status", "--json")["focus"], 5,
                       message="locking the screen turned no Do Not Disturb on")
    assert (focus["name"], focus["source"]) == ("dnd", "locked"), focus
    held = notify_send(bus, "-a", "Chat", "Coffee?", "while you were out")
    assert history_of(focusctl, held)["decision"] == "held-focus"
    urgent = notify_send(bus, "-a", "Monitor", "-u", "critical", "Disk full", "time-sensitive")
    assert history_of(focusctl, urgent)["decision"] == "delivered"
    ss.set_locked(False)
    digest = fake_daemon.wait_notify("While you were away")
    assert "Coffee?" in digest["body"], digest


def test_while_locked_show_is_the_default(focus_bridge, fake_daemon, bus, focusctl, screensaver_factory):
    ss = screensaver_factory(locked=True)
    focus_bridge("")
    ss.wait_asked()
    nid = notify_send(bus, "-a", "Chat", "Shown while locked", "as always")
    assert history_of(focusctl, nid)["decision"] == "delivered"
    assert fc_json(focusctl, "status", "--json")["focus"] is None
