"""End to end through real dunst 1.9 under Xvfb, spawned by the bridge: during a Focus, held
notifications never reach dunst's screen or history; when the Focus ends, the digest is on
screen."""


import pytest

from support.dunst import Dunst
from support.focusctl import fc_ok, status
from support.waiting import wait_until

TEST_TIMEOUT = 40


@pytest.fixture
def dunst_focus(bridge_factory, config, xvfb, dunstrc, make_client, bus):
    config("""
[focus.work]
apps = ["Mail"]
""")
    return Dunst(bridge_factory, xvfb, dunstrc, make_client, bus, "dunst focus client")


def test_held_never_reach_dunst_and_the_digest_does(dunst_focus, focusctl):
    d = dunst_focus
    c = d.client
    assert d.count("displayed") == 0 and d.count("history") == 0
    fc_ok(focusctl, "focus", "on", "work")
    for i in range(3):
        c.notify("Held from the shop %d" % i, "later", app="Shop")
    assert status(focusctl)["counts"]["held-focus"] == 3
    # one that breaks through: forwarding is in order, so once dunst has it, it has had
    # every notification sent before it
    c.notify("Mail gets through", "now", app="Mail")
    wait_until(lambda: d.count("displayed") >= 1, 10, message="dunst never displayed the allowed one")
    assert d.count("displayed") == 1 and d.count("waiting") == 0, "held notifications reached dunst"
    closed_until(d, "Mail gets through")
    assert summaries(d) == ["Mail gets through"], "dunst history grew by held notifications"
    assert d.count("displayed") == 0 and d.count("waiting") == 0

    fc_ok(focusctl, "focus", "off")
    wait_until(lambda: d.count("displayed") >= 1, 10, message="the digest never appeared on dunst's screen")
    assert d.count("displayed") == 1, "more than the digest appeared: %d" % d.count("displayed")
    closed_until(d, "While work was on")
    digest = [h for h in d.history() if h["summary"] == "While work was on"][0]
    assert digest["appname"] == "FocusBridge", digest
    assert sorted(digest["body"].split("\n")) == ["Shop — Held from the shop %d" % i for i in range(3)], digest
    assert sorted(summaries(d)) == ["Mail gets through", "While work was on"]


def summaries(d):
    return [h["summary"] for h in d.history()]


def closed_until(d, summary):
    """Close what dunst shows (dunstctl history lists closed ones only) until `summary` is
    in its history."""
    def closed():
        d.ctl("close-all")
        return summary in summaries(d)
    wait_until(closed, 10, message="%r never reached dunst's history" % summary)
