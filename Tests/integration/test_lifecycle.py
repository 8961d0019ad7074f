"""Every ID's life ends, exactly once (focus-bridge(1), BEHAVIOUR, "Every ID ends once").

Every ID the bridge hands out gets exactly one NotificationClosed to each connection that holds
it when its fate is final — collapsed, coalesced, dropped, dismissed from a digest, closed — or
stays alive. An app waiting on its ID (`notify-send --wait`, GNotification, Electron apps) is
always released: each path is tried with a real waiting `notify-send -w` where one fits, and
with recording clients that count the signals."""

import shutil
import subprocess

import pytest

from support.clients import settle
from support.focus import far_time
from support.focusctl import fc_ok, history_of, status
from support.processes import session_env
from support.waiting import wait_until

TEST_TIMEOUT = 45

RATE_LIMIT = """
[general]
rate-limit = 2
rate-limit-seconds = 3600
"""

SUMMARY = """
[summary]
times = ["%s"]

[apps."Digest"]
delivery = "summary"
"""

OFF = """
[apps."Muted"]
delivery = "off"
"""

FOCUS_NONE = """
[general]
after-focus = "none"

[focus.work]
apps = ["Mail"]
"""

FOCUS_REPLAY = """
[general]
after-focus = "replay"

[focus.work]
apps = ["Mail"]
"""


class Waiter:
    """`notify-send --wait`: a real app that blocks until its notification closes (its standard
    output line-buffered, so the ID it prints with --print-id is readable at once)."""

    def __init__(self, procs, bus, *args):
        if not shutil.which("notify-send"):
            pytest.skip("notify-send not installed")
        self.proc = procs.spawn(["stdbuf", "-oL", "notify-send", "--wait", "--print-id", *args], env=session_env(bus.address),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._id = None

    @property
    def id(self):
        """The ID it printed (read once it is out: notify-send prints it at once)."""
        if self._id is None:
            line = self.proc.stdout.readline()
            assert line.strip().isdigit(), "notify-send -p printed %r (stderr: %s)" % (line, self.proc.stderr.read())
            self._id = int(line)
        return self._id

    def waiting(self):
        return self.proc.poll() is None

    def assert_released(self, timeout=5.0):
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            pytest.fail("notify-send --wait for ID %s still waits after %.0f s: its notification never closed"
                        % (self._id, timeout), pytrace=False)
        assert self.proc.returncode == 0, self.proc.stderr.read()


def closes(client, nid):
    return [s.args for s in client.got("NotificationClosed", nid)]


def assert_closed_once(client, nid, reason):
    client.wait_signal("NotificationClosed", nid)
    settle(client)
    assert closes(client, nid) == [(nid, reason)], "%s: NotificationClosed for %d: %r" % (
        client.label, nid, closes(client, nid))


# --------------------------------------------------------------------------- collapsed
def test_collapsed_notifications_end_when_their_more_notification_closes(focus_bridge, fake_daemon, make_client,
                                                                         procs, bus):
    focus_bridge(RATE_LIMIT)
    app = make_client("flooding app")
    first = [app.notify("shown %d" % i, app="Flood") for i in range(2)]
    collapsed = app.notify("collapsed", app="Flood")
    waiter = Waiter(procs, bus, "-a", "Flood", "collapsed too")
    assert waiter.id > collapsed
    more = fake_daemon.wait_notify("1 more from Flood")
    wait_until(lambda: any(n["summary"] == "2 more from Flood" for n in fake_daemon.notifies()), 5,
               message="the 'more from' notification never counted the second one")
    settle(app)
    assert closes(app, collapsed) == [] and waiter.waiting(), "a collapsed notification ended before its 'more from'"
    # the person dismisses "2 more from Flood": everything it counted ends, once, for that reason
    fake_daemon.closed(more["daemon_id"], 2)
    assert_closed_once(app, collapsed, 2)
    waiter.assert_released()
    assert all(closes(app, nid) == [] for nid in first), "the shown ones are still on screen"


def test_replacing_a_collapsed_notification_keeps_its_id(focus_bridge, fake_daemon, client):
    focus_bridge(RATE_LIMIT)
    for i in range(2):
        client.notify("shown %d" % i, app="Flood")
    collapsed = client.notify("collapsed", app="Flood")
    fake_daemon.wait_notify("1 more from Flood")
    assert client.notify("the update", app="Flood", replaces_id=collapsed) == collapsed
    rec = fake_daemon.wait_notify("the update")
    # now shown as itself, it ends as itself
    fake_daemon.closed(rec["daemon_id"], 1)
    assert_closed_once(client, collapsed, 1)


def test_a_collapsed_notification_closed_by_its_app_ends_once(focus_bridge, fake_daemon, client):
    focus_bridge(RATE_LIMIT)
    for i in range(2):
        client.notify("shown %d" % i, app="Flood")
    collapsed = client.notify("collapsed", app="Flood")
    more = fake_daemon.wait_notify("1 more from Flood")
    client.close(collapsed)
    assert_closed_once(client, collapsed, 3)
    fake_daemon.closed(more["daemon_id"], 2)
    settle(client)
    assert closes(client, collapsed) == [(collapsed, 3)], "closed twice"


# --------------------------------------------------------------------------- coalesced
def test_every_connection_holding_a_coalesced_id_is_told_it_closed(bridge, fake_daemon, make_client, procs, bus):
    first = make_client("first sender")
    second = make_client("second sender")
    nid = first.notify("Disk almost full", "3% left", app="Disk")
    did = fake_daemon.wait_notify("Disk almost full")["daemon_id"]
    assert second.notify("Disk almost full", "3% left", app="Disk") == nid, "a duplicate gets the same ID"
    waiter = Waiter(procs, bus, "-a", "Disk", "Disk almost full", "3% left")
    assert waiter.id == nid
    wait_until(lambda: len(fake_daemon.seen("Notify", summary="Disk almost full")) == 3, 5)
    fake_daemon.closed(did, 2)
    for c in (first, second):
        assert_closed_once(c, nid, 2)
    waiter.assert_released()


def test_actions_of_a_coalesced_id_reach_every_holder(bridge, fake_daemon, make_client):
    first = make_client("first sender")
    second = make_client("second sender")
    nid = first.notify("Update ready", app="Updater", actions=["install", "Install"])
    assert second.notify("Update ready", app="Updater", actions=["install", "Install"]) == nid
    wait_until(lambda: len(fake_daemon.seen("Notify", summary="Update ready")) == 2, 5)
    did = fake_daemon.notifies()[-1]["daemon_id"]
    fake_daemon.action(did, "install")
    for c in (first, second):
        assert c.wait_signal("ActionInvoked", nid).args == (nid, "install")


# --------------------------------------------------------------------------- digests
def held_for_summary(focus_bridge, procs, bus, client):
    focus_bridge(SUMMARY % far_time())
    waiter = Waiter(procs, bus, "-a", "Digest", "held for the summary")
    nid = client.notify("held too", app="Digest")
    assert waiter.id != nid
    return waiter, nid


def test_dismiss_on_a_digest_ends_what_it_stood_for(focus_bridge, fake_daemon, client, procs, bus, focusctl):
    waiter, nid = held_for_summary(focus_bridge, procs, bus, client)
    fc_ok(focusctl, "summary", "deliver")
    digest = fake_daemon.wait_notify("Notification Summary")
    assert waiter.waiting()
    fake_daemon.action(digest["daemon_id"], "dismiss")
    assert_closed_once(client, nid, 2)
    waiter.assert_released()
    assert status(focusctl)["counts"]["held-summary"] == 0


def test_a_digest_closed_by_the_person_ends_what_it_stood_for(focus_bridge, fake_daemon, client, procs, bus,
                                                              focusctl):
    waiter, nid = held_for_summary(focus_bridge, procs, bus, client)
    fc_ok(focusctl, "summary", "deliver")
    digest = fake_daemon.wait_notify("Notification Summary")
    fake_daemon.closed(digest["daemon_id"], 2)
    assert_closed_once(client, nid, 2)
    waiter.assert_released()


def test_show_all_then_close_ends_each_replayed_one_once(focus_bridge, fake_daemon, client, procs, bus, focusctl):
    waiter, nid = held_for_summary(focus_bridge, procs, bus, client)
    fc_ok(focusctl, "summary", "deliver")
    digest = fake_daemon.wait_notify("Notification Summary")
    fake_daemon.action(digest["daemon_id"], "show-all")
    replayed = fake_daemon.wait_notify("held too")
    waited = fake_daemon.wait_notify("held for the summary")
    # the digest goes away (the bridge closes it): that ends nothing that was replayed
    fake_daemon.wait_call("CloseNotification", id=digest["daemon_id"])
    settle(client)
    assert closes(client, nid) == [] and waiter.waiting()
    fake_daemon.closed(replayed["daemon_id"], 2)
    fake_daemon.closed(waited["daemon_id"], 1)
    assert_closed_once(client, nid, 2)
    waiter.assert_released()


# --------------------------------------------------------------------------- held, replaced, closed
def test_a_held_notification_replaced_from_another_connection_ends_for_both(focus_bridge, fake_daemon, make_client,
                                                                           focusctl):
    focus_bridge(SUMMARY % far_time())
    first = make_client("first process")
    second = make_client("second process")
    nid = first.notify("draft", app="Digest")
    assert second.notify("draft, updated", app="Digest", replaces_id=nid) == nid
    second.close(nid)
    for c in (first, second):
        assert_closed_once(c, nid, 3)
    assert status(focusctl)["counts"]["held-summary"] == 0


def test_a_held_notification_closed_by_its_app_releases_a_waiting_sender(focus_bridge, client, procs, bus):
    focus_bridge(SUMMARY % far_time())
    waiter = Waiter(procs, bus, "-a", "Digest", "closed while held")
    client.close(waiter.id)
    waiter.assert_released()


def test_after_focus_none_ends_what_the_focus_held(focus_bridge, fake_daemon, client, procs, bus, focusctl):
    focus_bridge(FOCUS_NONE)
    fc_ok(focusctl, "focus", "on", "work")
    waiter = Waiter(procs, bus, "-a", "Browser", "held by work")
    nid = client.notify("also held", app="Browser")
    wait_until(lambda: status(focusctl)["counts"]["held-focus"] == 2, 5)
    fc_ok(focusctl, "focus", "off")
    assert_closed_once(client, nid, 2)
    waiter.assert_released()


def test_a_held_notification_whose_app_quit_is_still_delivered(focus_bridge, fake_daemon, make_client, focusctl):
    focus_bridge(FOCUS_REPLAY)
    fc_ok(focusctl, "focus", "on", "work")
    app = make_client("app that quits")
    app.notify("sent, then the app quit", app="Browser")
    wait_until(lambda: status(focusctl)["counts"]["held-focus"] == 1, 5)
    app.dispose()
    fc_ok(focusctl, "focus", "off")
    rec = fake_daemon.wait_notify("sent, then the app quit")
    fake_daemon.closed(rec["daemon_id"], 2)   # its signal goes nowhere; the bridge goes on
    other = make_client("another app")
    other.notify("after", app="Browser")
    fake_daemon.wait_notify("after")


# --------------------------------------------------------------------------- dropped
def test_an_app_turned_off_is_released_at_once(focus_bridge, fake_daemon, client, procs, bus, focusctl):
    focus_bridge(OFF)
    waiter = Waiter(procs, bus, "-a", "Muted", "never shown")
    waiter.assert_released()
    nid = client.notify("also never shown", app="Muted")
    assert_closed_once(client, nid, 2)
    assert history_of(focusctl, nid)["decision"] == "dropped"
    assert fake_daemon.seen("Notify", summary="never shown") == []
