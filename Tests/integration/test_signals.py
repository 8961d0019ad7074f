"""Daemon signals come back to the application that sent the notification, with the
bridge's ID, and to nobody else — whether the daemon sends them only to its caller
(dunst) or broadcasts them (xfce4-notifyd, mako, swaync, notification-daemon)."""

import pytest

from support.clients import settle
from support.names import NOTIF_PATH

TEST_TIMEOUT = 30


@pytest.fixture(params=["unicast", "broadcast"])
def style(request, bridge, fake_daemon):
    fake_daemon.set_style(request.param)
    return request.param


def deliver(client, fake, summary, **kw):
    bid = client.notify(summary, **kw)
    did = fake.wait_notify(summary)["daemon_id"]
    assert bid != did
    return bid, did


@pytest.fixture
def bystander(client2):
    """Another application with a notification of its own (so it listens, as a real one
    would, and a broadcast would reach it)."""
    client2.notify("bystander's own", app="Bystander")
    return client2


def assert_only_sender_got(member, sender, bystander, bid, count=1):
    settle(bystander, sender)
    assert bystander.got(member) == [], "%s leaked to another application: %r" % (
        member, [(s.args, s.sender) for s in bystander.got(member)])
    assert len(sender.got(member, bid)) == count, "%s relayed %d times" % (member, len(sender.got(member, bid)))


def test_action_invoked_reaches_only_the_sender(style, bridge, fake_daemon, client, bystander):
    bid, did = deliver(client, fake_daemon, "question", actions=["yes", "Yes", "no", "No"])
    fake_daemon.action(did, "yes")
    sig = client.wait_signal("ActionInvoked", bid)
    assert sig.args == (bid, "yes")
    assert sig.sender == bridge.unique_name and sig.path == NOTIF_PATH
    assert client.got("ActionInvoked", did) == []  # never the daemon's ID
    assert_only_sender_got("ActionInvoked", client, bystander, bid)


def test_activation_token_arrives_before_its_action(style, bridge, fake_daemon, client, bystander):
    bid, did = deliver(client, fake_daemon, "open me", actions=["default", "Open"])
    fake_daemon.action(did, "default", token="xdg-activation-token-1234")
    client.wait_signal("ActionInvoked", bid)
    members = [(s.member, s.args) for s in client.signals if s.args[0] == bid]
    assert ("ActivationToken", (bid, "xdg-activation-token-1234")) in members, members
    assert members.index(("ActivationToken", (bid, "xdg-activation-token-1234"))) < \
        members.index(("ActionInvoked", (bid, "default"))), members
    assert_only_sender_got("ActivationToken", client, bystander, bid)
    assert_only_sender_got("ActionInvoked", client, bystander, bid)


def test_notification_closed_by_daemon_reaches_only_the_sender(style, bridge, fake_daemon, client, bystander):
    bid, did = deliver(client, fake_daemon, "dismiss me")
    fake_daemon.closed(did, 2)
    sig = client.wait_signal("NotificationClosed", bid)
    assert sig.args == (bid, 2)
    assert sig.sender == bridge.unique_name
    assert_only_sender_got("NotificationClosed", client, bystander, bid)


@pytest.mark.parametrize("reason", [1, 3, 4])
def test_notification_closed_reason_kept(bridge, fake_daemon, client, reason):
    bid, did = deliver(client, fake_daemon, "closed with %d" % reason)
    fake_daemon.closed(did, reason)
    assert client.wait_signal("NotificationClosed", bid).args == (bid, reason)


def test_notification_replied_reaches_only_the_sender(style, bridge, fake_daemon, client, bystander):
    bid, did = deliver(client, fake_daemon, "chat", actions=["inline-reply", "Reply"])
    fake_daemon.replied(did, "on my way ✓")
    assert client.wait_signal("NotificationReplied", bid).args == (bid, "on my way ✓")
    assert_only_sender_got("NotificationReplied", client, bystander, bid)


def test_signals_go_to_every_connection_that_holds_the_id(style, bridge, fake_daemon, make_client, bystander):
    """A second process replaced the notification (`notify-send -r`): both hold its ID, both
    hear of it (focus-bridge(1), BEHAVIOUR, every holder), nobody else does."""
    first = make_client("first process")
    second = make_client("second process")
    bid, did = deliver(first, fake_daemon, "progress 1/2", app="Downloader")
    assert second.notify("progress 2/2", app="Downloader", replaces_id=bid) == bid
    fake_daemon.wait_notify("progress 2/2")
    fake_daemon.action(did, "default")
    for c in (first, second):
        assert c.wait_signal("ActionInvoked", bid).args == (bid, "default")
    settle(first, second, bystander)
    assert bystander.got("ActionInvoked") == []


def test_signal_for_unknown_daemon_id_reaches_nobody(style, bridge, fake_daemon, client, bystander):
    bid, did = deliver(client, fake_daemon, "known one")
    fake_daemon.action(did + 500, "ghost")
    fake_daemon.closed(did + 501, 2)
    # a real signal after the ghosts: once it arrived, the ghosts would have too
    fake_daemon.action(did, "real")
    client.wait_signal("ActionInvoked", bid)
    settle(client, bystander)
    assert [s.args for s in client.got("ActionInvoked")] == [(bid, "real")]
    assert client.got("NotificationClosed") == []
    assert bystander.got("ActionInvoked") == [] and bystander.got("NotificationClosed") == []


def test_several_apps_each_get_their_own(style, bridge, fake_daemon, make_client):
    apps = [make_client("app%d" % i) for i in range(3)]
    pairs = [deliver(c, fake_daemon, "for app %d" % i, app="App%d" % i) for i, c in enumerate(apps)]
    for (bid, did), i in zip(pairs, range(3)):
        fake_daemon.action(did, "key%d" % i)
    for (bid, _), i, c in zip(pairs, range(3), apps):
        assert c.wait_signal("ActionInvoked", bid).args == (bid, "key%d" % i)
    settle(*apps)
    for (bid, _), c in zip(pairs, apps):
        assert [s.args[0] for s in c.got("ActionInvoked")] == [bid]
