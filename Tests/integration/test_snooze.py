"""Snooze (focus-bridge(1), SNOOZE; focusctl(1), snooze): a notification on screen leaves it for a
while and comes back as itself; its app is not told (no NotificationClosed: its ID stays alive,
it may still be replaced or closed), and the snooze is kept across a restart."""

import signal
import subprocess

from support.dunst import Dunst, pick_from_menu
from support.focus import assert_not_forwarded, far_time
from support.focusctl import fc_json, fc_ok, history_of, status
from support.processes import session_env
from support.waiting import wait_until

TEST_TIMEOUT = 40

QUICK = """
[general]
quick-actions = ["snooze-hour"]
"""


def forwarded(fake_daemon, summary):
    return [n for n in fake_daemon.notifies() if n["summary"] == summary]


def test_a_snoozed_one_leaves_the_screen_unknown_to_its_app_and_comes_back_as_itself(
        focus_bridge, fake_daemon, client, focusctl):
    focus_bridge("")
    nid = client.notify("Build failed", "main is red", app="CI", actions=["retry", "Retry", "default", "Open"])
    first = fake_daemon.wait_notify("Build failed")

    report = fc_json(focusctl, "snooze", str(nid), "--for", "2s", "--json")
    assert (report["action"], report["ids"]) == ("snooze", [nid]), report
    assert report["until"].endswith("Z"), report
    # The daemon's copy closes; the daemon's own NotificationClosed does not reach the app.
    closed = fake_daemon.wait_call("CloseNotification", id=first["daemon_id"])
    assert closed["known"], closed
    assert status(focusctl)["counts"]["snoozed"] == 1

    again = fake_daemon.wait_call("Notify", timeout=10, count=2, summary="Build failed")
    assert again["body"] == "main is red" and again["app_name"] == "CI"
    assert again["actions"] == first["actions"], "its actions come back with it, the quick ones too"
    assert not client.got("NotificationClosed", nid), "the app was told its notification closed"
    assert status(focusctl)["counts"]["snoozed"] == 0

    # As itself: its app hears its action under the ID it was given.
    fake_daemon.action(again["daemon_id"], "retry")
    assert client.wait_signal("ActionInvoked", nid).args == (nid, "retry")
    fate = history_of(focusctl, nid)["fate"]
    assert "snoozed until" in fate and "shown again" in fate, fate


def test_the_app_may_replace_or_close_a_snoozed_one(focus_bridge, fake_daemon, client, focusctl, marker):
    focus_bridge("")
    nid = client.notify("Download 10%", app="Files")
    fake_daemon.wait_notify("Download 10%")
    fc_ok(focusctl, "snooze", str(nid))
    assert client.notify("Download 90%", app="Files", replaces_id=nid) == nid
    assert_not_forwarded(fake_daemon, marker, "Download 90%")
    assert status(focusctl)["counts"]["snoozed"] == 1, "the update waits with it"
    assert "kept snoozed" in " ".join(fc_json(focusctl, "explain", str(nid), "--json")["then"]["trace"])

    # focusctl show ends the snooze early: the update, as itself.
    fc_ok(focusctl, "show", str(nid))
    shown = fake_daemon.wait_notify("Download 90%")
    fake_daemon.action(shown["daemon_id"], "default")
    assert client.wait_signal("ActionInvoked", nid).args == (nid, "default")

    other = client.notify("Meeting moved", app="Calendar")
    fake_daemon.wait_notify("Meeting moved")
    fc_ok(focusctl, "snooze", str(other), "--for", "1h")
    client.close(other)
    assert client.wait_signal("NotificationClosed", other).args == (other, 3)
    assert status(focusctl)["counts"]["snoozed"] == 0
    marker()
    assert len(forwarded(fake_daemon, "Meeting moved")) == 1, "a closed snoozed one came back"


def test_the_quick_action_snoozes_for_an_hour_and_the_app_never_hears_it(focus_bridge, fake_daemon, client, focusctl):
    focus_bridge(QUICK)
    nid = client.notify("Review requested", app="Forge", actions=["open", "Open"])
    rec = fake_daemon.wait_notify("Review requested")
    pairs = list(zip(rec["actions"][::2], rec["actions"][1::2]))
    assert ("x-focus-quick.snooze-hour", "Snooze 1 Hour") in pairs, pairs
    fake_daemon.action(rec["daemon_id"], "x-focus-quick.snooze-hour")
    # As dunst does after an action: it closes its copy, dismissed.
    fake_daemon.closed(rec["daemon_id"], 2)
    wait_until(lambda: status(focusctl)["counts"]["snoozed"] == 1, 5, message="the quick action did not snooze")
    client.round_trip()
    assert not client.got("ActionInvoked", nid) and not client.got("NotificationClosed", nid)
    assert "snoozed until" in history_of(focusctl, nid)["fate"]
    # Off by default: an app that did not ask for it does not get it.


def test_a_snooze_is_kept_across_a_restart_and_ends_on_time(focus_bridge, fake_daemon, client, focusctl):
    b1 = focus_bridge("")
    nid = client.notify("Pay the invoice", "due Friday", app="Bank")
    fake_daemon.wait_notify("Pay the invoice")
    later = client.notify("Call the plumber", app="Notes")
    fake_daemon.wait_notify("Call the plumber")
    fc_ok(focusctl, "snooze", str(later), "--for", "1h")
    fc_ok(focusctl, "snooze", str(nid), "--for", "3s")
    b1.stop(sig=signal.SIGKILL)

    focus_bridge()
    # Shown again by the new bridge's timer when its time came, as itself.
    again = fake_daemon.wait_call("Notify", timeout=10, count=2, summary="Pay the invoice")
    assert again["body"] == "due Friday"
    assert status(focusctl)["counts"]["snoozed"] == 1, "the hour-long one still waits"
    assert len(forwarded(fake_daemon, "Call the plumber")) == 1


def test_a_snooze_that_ends_under_a_focus_waits_for_it(focus_bridge, fake_daemon, client, focusctl, marker):
    focus_bridge("[focus.work]\napps = [\"Mail\"]\n")
    nid = client.notify("Lunch?", app="Chat")
    fake_daemon.wait_notify("Lunch?")
    fc_ok(focusctl, "snooze", str(nid), "--for", "2s")
    fc_ok(focusctl, "focus", "on", "work")
    wait_until(lambda: status(focusctl)["counts"]["held-focus"] == 1, 10,
               message="the snooze did not end, or what it ended was not held for the Focus")
    marker()
    assert len(forwarded(fake_daemon, "Lunch?")) == 1, "shown through the Focus"
    assert "held for work" in history_of(focusctl, nid)["fate"]
    fc_ok(focusctl, "focus", "off")
    fake_daemon.wait_notify("While work was on")


def test_what_cannot_be_snoozed_gets_one_sentence(focus_bridge, fake_daemon, client, focusctl):
    focus_bridge("[summary]\ntimes = [\"%s\"]\n[apps.\"News\"]\ndelivery = \"summary\"\n" % far_time())
    held = client.notify("Story", app="News")
    for args, words in [
        (("snooze", "999999"), "there is no notification 999999"),
        (("snooze", str(held)), "held for the summary"),
        (("snooze", "0"), "a whole number of 1 or more"),
        (("snooze", str(held), "--for", "soon"), "takes a duration"),
        (("snooze", str(held), "--for", "8d"), "to a week"),
    ]:
        r = focusctl(*args)
        assert r.returncode == 1, (args, r.returncode, r.stdout, r.stderr)
        assert words in r.stderr and len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
    assert status(focusctl)["counts"]["held-summary"] == 1, "a refused snooze changed nothing"


# --------------------------------------------------------------------------- real dunst
def test_snooze_one_hour_from_dunsts_menu_and_focusctl_snooze_in_front_of_dunst(
        bridge_factory, xvfb, dunstrc, make_client, bus, focusctl, tmp_path, config, procs):
    config(QUICK)
    menu_input = pick_from_menu(dunstrc, tmp_path, "Snooze 1 Hour")
    d = Dunst(bridge_factory, xvfb, dunstrc, make_client, bus, "dunst snooze client")

    # A real client that waits for its notification to close (notify-send --wait).
    waiting = procs.spawn(["notify-send", "--wait", "-A", "default=Show", "-A", "join=Join", "-a", "Calendar",
                           "Standup in 5", "room 2"],
                          env=session_env(bus.address), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: d.count("displayed") == 1, 10, message="dunst never displayed the notification")
    nid = [r["id"] for r in fc_json(focusctl, "history", "--json") if r["summary"] == "Standup in 5"][0]
    trace = fc_json(focusctl, "explain", str(nid), "--json")["then"]["trace"]
    assert any("Snooze 1 Hour" in line for line in trace), trace
    d.ctl("context")
    wait_until(lambda: status(focusctl)["counts"]["snoozed"] == 1, 10,
               message="picking Snooze 1 Hour in dunst's menu did not snooze it (menu: %r)" % (
                   menu_input.read_text() if menu_input.exists() else None))
    wait_until(lambda: d.count("displayed") == 0, 10, message="it stayed on dunst's screen")
    assert waiting.poll() is None, "notify-send was told its notification closed"

    # Shown again by focusctl show, as itself; snoozed again from focusctl, back when it ends.
    fc_ok(focusctl, "show", str(nid))
    wait_until(lambda: d.count("displayed") == 1, 10, message="the snoozed one did not come back to dunst")
    fc_ok(focusctl, "snooze", str(nid), "--for", "2s")
    wait_until(lambda: d.count("displayed") == 0, 10, message="focusctl snooze left it on dunst's screen")
    wait_until(lambda: d.count("displayed") == 1, 10, message="it did not come back when its snooze ended")
    assert waiting.poll() is None
    # Closing it in dunst ends notify-send's wait: the ID lived through both snoozes.
    d.ctl("close-all")
    out, _ = waiting.communicate(timeout=10)
    assert waiting.returncode == 0 and out.strip() == "", "notify-send heard an action: %r" % out
    fate = history_of(focusctl, nid)["fate"]
    assert fate.count("snoozed until") == 2 and "shown again" in fate and fate.endswith("dismissed"), fate
