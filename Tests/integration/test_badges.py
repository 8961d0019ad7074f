"""Badges (focus-bridge(1), BADGES): each app's unread count, published on
com.canonical.Unity.LauncherEntry as a dock reads it. A test dock (a Gio connection subscribed
to Update on the private bus, from any sender) sees the counts go up with delivered and held
notifications and down with a close, an action and a dismissal; an app that publishes its own
launcher entry is left alone."""

import pytest
from gi.repository import Gio, GLib

from support.buses import connect
from support.clients import settle
from support.focus import s
from support.focusctl import fc_ok
from support.names import NOTIF_IFACE, NOTIF_NAME, NOTIF_PATH
from support.waiting import pump_until, wait_until

TEST_TIMEOUT = 40

LAUNCHER_IFACE = "com.canonical.Unity.LauncherEntry"
LAUNCHER_PATH = "/org/focusbridge/LauncherEntry"
MAIL = "org.example.Mail"
MAIL_URI = "application://org.example.Mail.desktop"


class Dock:
    """What a dock (Plank, Dash to Dock, KDE's task manager) sees: every Update on the bus."""

    def __init__(self, address):
        self.conn = connect(address)
        self.updates = []  # (sender, path, uri, properties)
        self.sid = self.conn.signal_subscribe(None, LAUNCHER_IFACE, "Update", None, None,
                                              Gio.DBusSignalFlags.NONE, self._on_update)
        # a round trip to the bus: the match rule is in place once this returns
        self.conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
                            None, None, Gio.DBusCallFlags.NONE, 5000, None)

    def _on_update(self, _conn, sender, path, _iface, _member, params):
        uri, props = params.unpack()
        self.updates.append((sender, path, uri, props))

    def of(self, uri, sender=None):
        return [u for u in self.updates if u[2] == uri and (sender is None or u[0] == sender)]

    def count(self, uri):
        seen = self.of(uri)
        return seen[-1][3]["count"] if seen else None

    def wait_count(self, uri, count, timeout=5.0):
        if not pump_until(lambda: self.count(uri) == count, timeout):
            raise AssertionError("the dock never saw %s at %d; it saw %r" % (uri, count, self.of(uri)))
        return self.of(uri)[-1]

    def close(self):
        self.conn.signal_unsubscribe(self.sid)
        self.conn.close_sync(None)


@pytest.fixture
def dock(bus):
    d = Dock(bus.address)
    yield d
    d.close()


def mail(client, summary, **kw):
    hints = {"desktop-entry": s(MAIL)}
    hints.update(kw.pop("hints", {}))
    return client.notify(summary, "body", app="Mail", hints=hints, **kw)


def test_delivered_notifications_count_and_a_close_action_and_dismissal_uncount(
        focus_bridge, fake_daemon, client, dock):
    b = focus_bridge("")
    first = mail(client, "first")
    sender, path, uri, props = dock.wait_count(MAIL_URI, 1)
    assert (sender, path) == (b.control_name, LAUNCHER_PATH)
    assert props == {"count": 1, "count-visible": True}
    second = mail(client, "second")
    third = mail(client, "third")
    fourth = mail(client, "fourth")
    dock.wait_count(MAIL_URI, 4)

    client.close(first)                                   # closed by the app
    dock.wait_count(MAIL_URI, 3)
    did = fake_daemon.wait_notify("second")["daemon_id"]
    fake_daemon.action(did, "default")                    # acted upon
    dock.wait_count(MAIL_URI, 2)
    did = fake_daemon.wait_notify("third")["daemon_id"]
    fake_daemon.closed(did, reason=2)                     # dismissed by the person
    dock.wait_count(MAIL_URI, 1)
    did = fake_daemon.wait_notify("fourth")["daemon_id"]
    fake_daemon.closed(did, reason=1)                     # expired: still unread
    fifth = mail(client, "fifth")
    dock.wait_count(MAIL_URI, 2)
    client.close(fifth)
    client.close(fourth)                                  # already ended: nothing changes
    _, _, _, props = dock.wait_count(MAIL_URI, 1)
    assert props == {"count": 1, "count-visible": True}
    client.close(second)
    settle(client)
    counts = [u[3]["count"] for u in dock.of(MAIL_URI)]
    assert counts[-5:] == [3, 2, 1, 2, 1], counts
    # never the same count twice in a row: one signal per change
    assert all(a != b for a, b in zip(counts, counts[1:])), counts


def test_the_last_one_closed_hides_the_badge(focus_bridge, fake_daemon, client, dock):
    focus_bridge("")
    nid = mail(client, "only")
    dock.wait_count(MAIL_URI, 1)
    client.close(nid)
    _, _, _, props = dock.wait_count(MAIL_URI, 0)
    assert props == {"count": 0, "count-visible": False}


def test_held_notifications_count_until_the_digest_is_dismissed(focus_bridge, fake_daemon, client, dock, focusctl):
    focus_bridge("")
    fc_ok(focusctl, "focus", "on", "dnd")
    mail(client, "held one")
    mail(client, "held two")
    dock.wait_count(MAIL_URI, 2)
    assert not fake_daemon.seen("Notify", summary="held one")
    fc_ok(focusctl, "focus", "off")                      # after-focus = digest
    digest = fake_daemon.wait_call("Notify", app_name="FocusBridge")
    fake_daemon.action(digest["daemon_id"], "dismiss")
    dock.wait_count(MAIL_URI, 0)


def test_only_apps_with_a_desktop_entry_get_a_badge(bridge_factory, fake_daemon, client, dock, config, tmp_path):
    apps = tmp_path / "data" / "applications"
    apps.mkdir(parents=True)
    (apps / "org.example.Chat.desktop").write_text("[Desktop Entry]\nType=Application\nName=Chat\nExec=true\n")
    config("""
    [apps."org.example.Quiet"]
    badges = false
    """)
    b = bridge_factory(extra_env={"XDG_DATA_DIRS": str(tmp_path / "data"), "XDG_DATA_HOME": str(tmp_path / "none")})
    client.notify("no entry", "b", app="Random Tool")
    client.notify("off for this app", "b", app="Quiet", hints={"desktop-entry": s("org.example.Quiet")})
    client.notify("flatpak style", "b", app="org.example.Chat")    # an installed desktop ID
    dock.wait_count("application://org.example.Chat.desktop", 1)
    settle(client)
    assert {u[2] for u in dock.updates if u[0] == b.control_name} == {"application://org.example.Chat.desktop"}


def test_an_app_that_publishes_its_own_badge_is_left_alone(focus_bridge, fake_daemon, client, dock, make_client):
    b = focus_bridge("")
    own = "application://org.telegram.desktop.desktop"
    tg_id = client.notify("before", "b", app="Telegram", hints={"desktop-entry": s("org.telegram.desktop")})
    dock.wait_count(own, 1)

    telegram = make_client("telegram")
    telegram.conn.emit_signal(None, "/com/canonical/unity/launcherentry/1", LAUNCHER_IFACE, "Update",
                              GLib.Variant("(sa{sv})", (own, {"count": GLib.Variant("x", 7),
                                                             "count-visible": GLib.Variant("b", True)})))
    # the same connection's next call reaches the bridge after its signal did
    telegram.round_trip()
    client.close(tg_id)
    telegram.notify("after", "b", app="Telegram", hints={"desktop-entry": s("org.telegram.desktop")})
    mail(client, "marker")
    dock.wait_count(MAIL_URI, 1)
    settle(client, telegram)
    from_bridge = [u[3]["count"] for u in dock.of(own, sender=b.control_name)]
    assert from_bridge == [1], "the bridge kept publishing over the app's own badge: %r" % from_bridge
    assert dock.count(own) == 7

    # nothing an app sends on that interface troubles the bridge
    for params in [GLib.Variant("(s)", ("application://x.desktop",)),
                   GLib.Variant("(sa{sv})", ("not a uri", {})),
                   GLib.Variant("(sa{sv})", ("application://" + "x" * 5000, {}))]:
        telegram.conn.emit_signal(None, "/x", LAUNCHER_IFACE, "Update", params)
    telegram.round_trip()
    assert b.alive()


FORGER = """
import sys
from gi.repository import Gio, GLib
conn = Gio.DBusConnection.new_for_address_sync(
    sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
conn.emit_signal(None, "/com/canonical/unity/launcherentry/9", "com.canonical.Unity.LauncherEntry", "Update",
                 GLib.Variant("(sa{sv})", (sys.argv[2], {"count": GLib.Variant("x", 0),
                                                        "count-visible": GLib.Variant("b", False)})))
conn.flush_sync(None)
print(conn.get_unique_name(), flush=True)
sys.stdin.read()
"""


def test_a_forged_update_from_another_process_does_not_take_the_badge(focus_bridge, fake_daemon, client, dock,
                                                                       bus, procs):
    """Any connection can send an Update naming any app: one from a process that never sent
    that app's notifications (a forger, still on the bus when the bridge asks who it is) is
    ignored, and the bridge keeps publishing the app's count."""
    import select
    import subprocess
    import sys
    b = focus_bridge("")
    mail(client, "first")
    dock.wait_count(MAIL_URI, 1)
    forger = procs.spawn([sys.executable, "-c", FORGER, bus.address, MAIL_URI],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert select.select([forger.stdout], [], [], 10)[0], "the forger said nothing in 10 s"
        name = forger.stdout.readline().strip()
        assert name.startswith(":"), "the forger did not connect"
        # the dock saw the forged 0; the bridge got it no later than a call made after that
        dock.wait_count(MAIL_URI, 0)
        client.status()
        mail(client, "second")
        sender, _, _, _ = dock.wait_count(MAIL_URI, 2)
        assert sender == b.control_name
        said = "an Update for org.example.Mail from %s" % name
        wait_until(lambda: said in b.stderr(), 5, message="the log never said: " + said)
    finally:
        forger.stdin.close()
        forger.wait(10)


def test_badges_turned_off_on_reload_go_to_zero(focus_bridge, fake_daemon, client, dock, config, focusctl):
    focus_bridge("")
    mail(client, "one")
    dock.wait_count(MAIL_URI, 1)
    config("""
    [apps."org.example.Mail"]
    badges = false
    """)
    fc_ok(focusctl, "reload")
    dock.wait_count(MAIL_URI, 0)
    mail(client, "two")
    config("""
    [general]
    badges = true
    """)
    fc_ok(focusctl, "reload")
    client.notify("marker", "b", app="Chat", hints={"desktop-entry": s("org.example.Chat")})
    dock.wait_count("application://org.example.Chat.desktop", 1)
    settle(client)
    assert [u[3]["count"] for u in dock.of(MAIL_URI)] == [1, 0], "what came while off is not counted"
