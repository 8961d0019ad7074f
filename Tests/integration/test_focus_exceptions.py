"""The exceptions a strict Focus needs to be trusted (focus-bridge.toml(5), [focus.NAME];
focus-bridge(1), BEHAVIOUR): repeated calls."""

import subprocess

from support.focusctl import fc_json, fc_ok, history_of
from support.processes import session_env

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
