"""Delivery and presentation through the real bridge (focus-bridge.toml(5), DELIVERY): duplicates
coalesced, per-app delivery "off", silent mode (persisted, toggled, in status), and hidden
previews — "never" globally and per app, "when-unlocked" following a fake
org.freedesktop.ScreenSaver."""

import base64

from gi.repository import Gio, GLib

from support.bridge import wait_connected
from support.buses import PrivateBus, connect
from support.names import CONTROL_NAME, CONTROL_PATH
from support.clients import settle
from support.focusctl import fc_json
from support.policy import forwarded_urgency, history_row, sound_suppressed
from support.waiting import pump_for, wait_until

TEST_TIMEOUT = 30

PIXELS = bytes(range(64))


# --------------------------------------------------------------------------- duplicates
def test_identical_notification_replaces_the_open_one(policy_bridge, client):
    _b, fake = policy_bridge()
    first = client.notify("Build finished", "project x: ok", app="CI")
    rec1 = fake.wait_notify("Build finished")
    second = client.notify("Build finished", "project x: ok", app="CI")
    rec2 = fake.wait_call("Notify", count=2, summary="Build finished")
    assert second == first, "the duplicate must keep the bridge ID of the one it replaces"
    assert rec2["replaces_id"] == rec1["daemon_id"], "the daemon must be asked to replace, not to add"
    assert rec2["daemon_id"] == rec1["daemon_id"]
    assert fake.stats()["live"] == [rec1["daemon_id"]], "two on screen instead of one"
    rows = [r for r in client.history(0, "CI")]
    assert [r["decision"] for r in rows][:2] == ["coalesced", "delivered"], rows


def test_different_body_or_app_is_not_a_duplicate(policy_bridge, make_client):
    _b, fake = policy_bridge()
    a, b = make_client("a"), make_client("b")
    n1 = a.notify("Same title", "body one", app="CI")
    n2 = a.notify("Same title", "body two", app="CI")
    n3 = b.notify("Same title", "body one", app="Other")
    fake.wait_call("Notify", count=3, summary="Same title")
    assert len({n1, n2, n3}) == 3
    recs = fake.seen("Notify", summary="Same title")
    assert [r["replaces_id"] for r in recs] == [0, 0, 0], recs


def test_back_to_back_duplicates_with_a_slow_daemon_leave_one_on_screen(policy_bridge, client):
    """The second arrives before the daemon has answered the first (so its daemon ID is
    not known yet): still one notification on screen, not two."""
    _b, fake = policy_bridge()
    fake.set_delay(0.3, False)
    first = client.notify("Download complete", "file.iso", app="Browser")
    second = client.notify("Download complete", "file.iso", app="Browser")
    assert second == first
    rec2 = fake.wait_call("Notify", count=2, summary="Download complete")
    rec1 = fake.seen("Notify", summary="Download complete")[0]
    assert rec2["replaces_id"] == rec1["daemon_id"], (rec1["daemon_id"], rec2["replaces_id"])
    wait_until(lambda: fake.stats()["outstanding"] == 0, 5)
    assert fake.stats()["live"] == [rec1["daemon_id"]]


def test_duplicate_after_close_pops_up_anew(policy_bridge, client):
    _b, fake = policy_bridge()
    first = client.notify("Backup done", "42 files", app="Backup")
    rec1 = fake.wait_notify("Backup done")
    fake.closed(rec1["daemon_id"], 2)  # the user dismissed it
    client.wait_signal("NotificationClosed", first)
    again = client.notify("Backup done", "42 files", app="Backup")
    rec2 = fake.wait_call("Notify", count=2, summary="Backup done")
    assert again != first
    assert rec2["replaces_id"] == 0 and rec2["daemon_id"] != rec1["daemon_id"]
    assert history_row(client, again)["decision"] == "delivered"


def test_duplicate_after_the_app_closed_it_pops_up_anew(policy_bridge, client):
    _b, fake = policy_bridge()
    first = client.notify("Sync done", app="Sync")
    fake.wait_notify("Sync done")
    client.close(first)
    client.wait_signal("NotificationClosed", first)
    again = client.notify("Sync done", app="Sync")
    rec2 = fake.wait_call("Notify", count=2, summary="Sync done")
    assert again != first and rec2["replaces_id"] == 0


def test_duplicate_outside_the_window_pops_up_anew(policy_bridge, client):
    _b, fake = policy_bridge("[general]\ncoalesce-seconds = 1\n")
    first = client.notify("Tick", app="Clock")
    rec1 = fake.wait_notify("Tick")
    second = client.notify("Tick", app="Clock")
    assert second == first, "within coalesce-seconds = 1 it is a duplicate"
    pump_for(1.3)  # the window is wall-clock time: nothing to await
    third = client.notify("Tick", app="Clock")
    rec3 = fake.wait_call("Notify", count=3, summary="Tick")
    assert third != first and rec3["replaces_id"] == 0 and rec3["daemon_id"] != rec1["daemon_id"]


# --------------------------------------------------------------------------- delivery off
def test_delivery_off_is_dropped(policy_bridge, client):
    _b, fake = policy_bridge('[apps."Nagware"]\ndelivery = "off"\n')
    nid = client.notify("Buy the pro version", app="Nagware")
    assert nid != 0
    client.notify("after the nag", app="Quiet")
    fake.wait_notify("after the nag")
    settle(client)
    assert not fake.seen("Notify", summary="Buy the pro version"), "a delivery = off app reached the daemon"
    row = history_row(client, nid)
    assert row["decision"] == "dropped" and row["app"] == "Nagware"


def test_delivery_off_matches_desktop_entry_any_case(policy_bridge, client):
    _b, fake = policy_bridge('[apps."org.example.Nagware"]\ndelivery = "off"\n')
    nid = client.notify("nag by entry", app="Nag Ware",
                        hints={"desktop-entry": GLib.Variant("s", "org.example.nagware")})
    client.notify("after the entry nag", app="Quiet")
    fake.wait_notify("after the entry nag")
    settle(client)
    assert not fake.seen("Notify", summary="nag by entry")
    assert history_row(client, nid)["decision"] == "dropped"


# --------------------------------------------------------------------------- silent mode
SILENT_CONFIG = '[apps."Siren"]\ncritical = true\n'


def test_silent_mode_suppresses_sound_but_not_critical(policy_bridge, client, focusctl):
    _b, fake = policy_bridge(SILENT_CONFIG)
    r = focusctl("silent", "on")
    assert r.returncode == 0, r.stderr
    sent = {
        "silent active": ("Chat", {}),
        "silent time-sensitive": ("Phone", {"category": GLib.Variant("s", "call.incoming")}),
        "silent passive": ("Weather", {"urgency": GLib.Variant("y", 0)}),
        "silent urgency 2 not entitled": ("Chat", {"urgency": GLib.Variant("y", 2)}),
        "silent critical": ("Siren", {"urgency": GLib.Variant("y", 2)}),
    }
    for summary, (app, hints) in sent.items():
        client.notify(summary, app=app, hints=hints)
    for summary in sent:
        rec = fake.wait_notify(summary)
        if summary == "silent critical":
            assert not sound_suppressed(rec), "critical must keep its sound in silent mode: %s" % rec["hints"]
            assert forwarded_urgency(rec) == 2
        else:
            assert sound_suppressed(rec), "%s: no suppress-sound in silent mode: %s" % (summary, rec["hints"])
    # silent mode does not change the level's urgency
    assert forwarded_urgency(fake.wait_notify("silent active")) == 1
    assert forwarded_urgency(fake.wait_notify("silent passive")) == 0


def test_silent_mode_off_again(policy_bridge, client, focusctl):
    _b, fake = policy_bridge()
    assert focusctl("silent", "on").returncode == 0
    assert focusctl("silent", "off").returncode == 0
    client.notify("after silent off", app="Chat")
    assert not sound_suppressed(fake.wait_notify("after silent off"))
    assert fc_json(focusctl, "status", "--json")["silent"] is False


def test_silent_mode_in_status(policy_bridge, focusctl):
    policy_bridge()
    assert fc_json(focusctl, "status", "--json")["silent"] is False
    assert focusctl("silent", "on").returncode == 0
    assert fc_json(focusctl, "status", "--json")["silent"] is True
    human = focusctl("status")
    assert human.returncode == 0
    line = [l for l in human.stdout.splitlines() if "silent" in l.lower()]
    assert line and "on" in line[0].lower(), "human status does not show silent mode on:\n%s" % human.stdout


def test_silent_toggle(policy_bridge, client, focusctl):
    _b, fake = policy_bridge()
    r = focusctl("silent", "toggle")
    assert r.returncode == 0, r.stderr
    assert fc_json(focusctl, "status", "--json")["silent"] is True
    client.notify("toggled on", app="Chat")
    assert sound_suppressed(fake.wait_notify("toggled on"))
    assert focusctl("silent", "toggle").returncode == 0
    assert fc_json(focusctl, "status", "--json")["silent"] is False
    client.notify("toggled off", app="Chat")
    assert not sound_suppressed(fake.wait_notify("toggled off"))


def test_silent_mode_survives_a_restart(policy_bridge, bridge_factory, client, focusctl):
    bridge, fake = policy_bridge()
    assert focusctl("silent", "on").returncode == 0
    assert bridge.stop() == 0
    bridge_factory()
    wait_connected(client)
    assert fc_json(focusctl, "status", "--json")["silent"] is True
    client.notify("after restart", app="Chat")
    assert sound_suppressed(fake.wait_notify("after restart")), "silent mode was forgotten across a restart"


def test_silent_mode_bad_argument(policy_bridge, focusctl):
    policy_bridge()
    r = focusctl("silent", "maybe")
    assert r.returncode != 0
    assert fc_json(focusctl, "status", "--json")["silent"] is False


# --------------------------------------------------------------------------- hidden previews
IMAGE_HINTS = {
    "image-data": GLib.Variant("(iiibiiay)", (4, 4, 16, True, 8, 4, PIXELS)),
    "image_data": GLib.Variant("(iiibiiay)", (4, 4, 16, True, 8, 4, PIXELS)),
    "icon_data": GLib.Variant("(iiibiiay)", (4, 4, 16, True, 8, 4, PIXELS)),
    "image-path": GLib.Variant("s", "file:///tmp/secret-photo.png"),
}


def secret(summary, placeholder=None, extra=None):
    hints = dict(IMAGE_HINTS)
    hints["category"] = GLib.Variant("s", "im.received")
    if placeholder is not None:
        hints["x-focus-preview-placeholder"] = GLib.Variant("s", placeholder)
    hints.update(extra or {})
    return dict(summary=summary, body="the secret body of " + summary, hints=hints)


def assert_hidden(rec, app_name, body="Notification"):
    assert rec["summary"] == app_name, "hidden preview: summary should be the app's name, got %r" % rec["summary"]
    assert rec["body"] == body, "hidden preview: body should be %r, got %r" % (body, rec["body"])
    leaked = [k for k in IMAGE_HINTS if k in rec["hints"]]
    assert not leaked, "image hints forwarded with a hidden preview: %s" % leaked
    assert not [k for k in rec["hints"] if k.startswith("x-focus-")]
    assert rec["hints"].get("category") == "'im.received'", "other hints must stay"


def assert_shown(rec, summary):
    assert rec["summary"] == summary
    assert rec["body"] == "the secret body of " + summary
    for k, v in IMAGE_HINTS.items():
        assert rec["hints"].get(k) == v.print_(True), "image hint %s not forwarded untouched" % k
    assert base64.b64decode(rec["images"]["image-data"]["data_b64"]) == PIXELS


def test_previews_never_globally(policy_bridge, client):
    _b, fake = policy_bridge('[general]\npreviews = "never"\n')
    client.notify(app="Messenger", **secret("Ann: see you at 8"))
    client.notify(app="Messenger", **secret("Bob: the code is 1234", placeholder="New message"))
    assert_hidden(fake.wait_call("Notify", count=1), "Messenger")
    rec2 = fake.wait_call("Notify", count=2)
    assert_hidden(rec2, "Messenger", body="New message")


def test_previews_never_for_one_app(policy_bridge, client):
    _b, fake = policy_bridge('[apps."Bank"]\npreviews = "never"\n')
    client.notify(app="Bank", **secret("You received 1000 EUR"))
    client.notify(app="Weather", **secret("Rain at 5"))
    hidden = fake.wait_call("Notify", app_name="Bank")
    assert_hidden(hidden, "Bank")
    assert_shown(fake.wait_notify("Rain at 5"), "Rain at 5")


def test_app_previews_always_overrides_global_never(policy_bridge, client):
    _b, fake = policy_bridge('[general]\npreviews = "never"\n[apps."Weather"]\npreviews = "always"\n')
    client.notify(app="Weather", **secret("Sunny"))
    assert_shown(fake.wait_notify("Sunny"), "Sunny")


def test_hidden_preview_summary_is_the_app_name_not_the_desktop_entry(policy_bridge, client):
    _b, fake = policy_bridge('[apps."org.example.Bank"]\npreviews = "never"\n')
    kw = secret("Balance low", extra={"desktop-entry": GLib.Variant("s", "org.example.Bank")})
    client.notify(app="My Bank", **kw)
    rec = fake.wait_call("Notify", app_name="My Bank")
    assert_hidden(rec, "My Bank")


def test_previews_always_is_the_default(policy_bridge, client):
    _b, fake = policy_bridge()
    client.notify(app="Messenger", **secret("Default shows"))
    assert_shown(fake.wait_notify("Default shows"), "Default shows")


WHEN_UNLOCKED = '[general]\npreviews = "when-unlocked"\n'


def bridge_sees_locked(focusctl, locked):
    """Waits until the bridge has taken in the screensaver's state. The screensaver's answer and
    signals reach the bridge on another connection than the apps' Notify calls, so a Notify sent
    right after the signal may be read first; explain asks on the connection the signal came on,
    after it."""
    wait_until(lambda: fc_json(focusctl, "explain", "--json", "--app", "Messenger")["preview-hidden"] is locked, 10,
               message=f"the bridge did not see the screen {'locked' if locked else 'unlocked'}")


def test_when_unlocked_follows_the_screensaver(policy_bridge, screensaver_factory, client, focusctl):
    ss = screensaver_factory(locked=True)
    _b, fake = policy_bridge(WHEN_UNLOCKED)
    ss.wait_asked()  # the bridge asked GetActive at start: locked
    bridge_sees_locked(focusctl, True)
    client.notify(app="Messenger", **secret("while locked at start"))
    assert_hidden(fake.wait_call("Notify", count=1), "Messenger")

    ss.set_locked(False)
    bridge_sees_locked(focusctl, False)
    client.notify(app="Messenger", **secret("after unlocking"))
    assert_shown(fake.wait_notify("after unlocking"), "after unlocking")

    ss.set_locked(True)
    bridge_sees_locked(focusctl, True)
    client.notify(app="Messenger", **secret("after locking again", placeholder="1 new message"))
    assert_hidden(fake.wait_call("Notify", count=3), "Messenger", body="1 new message")


def test_when_unlocked_shown_while_unlocked_at_start(policy_bridge, screensaver_factory, client, focusctl):
    ss = screensaver_factory(locked=False)
    _b, fake = policy_bridge(WHEN_UNLOCKED)
    ss.wait_asked()
    bridge_sees_locked(focusctl, False)
    client.notify(app="Messenger", **secret("unlocked at start"))
    assert_shown(fake.wait_notify("unlocked at start"), "unlocked at start")
    ss.set_locked(True)
    bridge_sees_locked(focusctl, True)
    client.notify(app="Messenger", **secret("locked later"))
    assert_hidden(fake.wait_call("Notify", count=2), "Messenger")


def test_when_unlocked_per_app_only(policy_bridge, screensaver_factory, client, focusctl):
    ss = screensaver_factory(locked=True)
    _b, fake = policy_bridge('[apps."Messenger"]\npreviews = "when-unlocked"\n')
    ss.wait_asked()
    bridge_sees_locked(focusctl, True)
    client.notify(app="Messenger", **secret("messenger while locked"))
    client.notify(app="Weather", **secret("weather while locked"))
    assert_hidden(fake.wait_call("Notify", app_name="Messenger"), "Messenger")
    assert_shown(fake.wait_notify("weather while locked"), "weather while locked")


def forge_active_changed(address, locked):
    """ActiveChanged from a connection that owns no name, then a Ping to the bridge's control
    connection (where the lock is followed) from the same one: once answered, the bridge has
    dispatched the forged signal."""
    forger = connect(address)
    forger.emit_signal(None, "/org/freedesktop/ScreenSaver", "org.freedesktop.ScreenSaver", "ActiveChanged",
                       GLib.Variant("(b)", (locked,)))
    forger.flush_sync(None)
    forger.call_sync(CONTROL_NAME, CONTROL_PATH, "org.freedesktop.DBus.Peer", "Ping", None, None,
                     Gio.DBusCallFlags.NONE, 5000, None)
    forger.close_sync(None)


def test_only_the_screensaver_that_owns_its_name_says_the_screen_is_locked(policy_bridge, screensaver_factory,
                                                                          client, focusctl, bus):
    ss = screensaver_factory(locked=True)
    _b, fake = policy_bridge(WHEN_UNLOCKED)
    ss.wait_asked()
    bridge_sees_locked(focusctl, True)
    forge_active_changed(bus.address, False)
    assert fc_json(focusctl, "explain", "--json", "--app", "Messenger")["preview-hidden"] is True, \
        "a forged ActiveChanged(false) unlocked the screen"
    client.notify(app="Messenger", **secret("after a forged unlock"))
    assert_hidden(fake.wait_call("Notify", count=1), "Messenger")

    ss.set_locked(False)
    bridge_sees_locked(focusctl, False)
    forge_active_changed(bus.address, True)
    assert fc_json(focusctl, "explain", "--json", "--app", "Messenger")["preview-hidden"] is False, \
        "a forged ActiveChanged(true) locked the screen"

    # the screen saver going away takes its lock with it; a new one is asked again
    ss.set_locked(True)
    bridge_sees_locked(focusctl, True)
    ss.dispose()
    bridge_sees_locked(focusctl, False)
    again = screensaver_factory(locked=True)
    again.wait_asked()
    bridge_sees_locked(focusctl, True)


LOGIND_XML = """<node>
<interface name="org.freedesktop.login1.Manager">
  <method name="GetSession"><arg type="s" direction="in"/><arg type="o" direction="out"/></method>
</interface>
<interface name="org.freedesktop.login1.Session">
  <property name="LockedHint" type="b" access="read"/>
</interface>
</node>"""
SESSION_PATH = "/org/freedesktop/login1/session/_32"


class FakeLogind:
    """org.freedesktop.login1 on a system bus of the test's: GetSession("auto") gives one session,
    whose LockedHint is read and announced with PropertiesChanged."""

    def __init__(self, address, locked=False):
        self.locked = locked
        self.conn = connect(address)
        node = Gio.DBusNodeInfo.new_for_xml(LOGIND_XML)
        self.conn.register_object("/org/freedesktop/login1", node.interfaces[0], self._on_call, None, None)
        self.conn.register_object(SESSION_PATH, node.interfaces[1], None, self._get, None)
        self.conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                            GLib.Variant("(su)", ("org.freedesktop.login1", 4)), GLib.VariantType("(u)"),
                            Gio.DBusCallFlags.NONE, 5000, None)

    def _on_call(self, _conn, _sender, _path, _iface, method, _params, invocation):
        invocation.return_value(GLib.Variant("(o)", (SESSION_PATH,)))

    def _get(self, _conn, _sender, _path, _iface, prop):
        return GLib.Variant("b", self.locked)

    def set_locked(self, locked):
        self.locked = locked
        self.conn.emit_signal(None, SESSION_PATH, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                              GLib.Variant("(sa{sv}as)", ("org.freedesktop.login1.Session",
                                                          {"LockedHint": GLib.Variant("b", locked)}, [])))
        self.conn.flush_sync(None)


def ping_bridge_from(conn, pid):
    """Pings each of the bridge's connections to `conn`'s bus from `conn`: messages from one
    connection arrive in order, so once answered the bridge has dispatched what `conn` sent."""
    (names,) = conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames",
                              None, GLib.VariantType("(as)"), Gio.DBusCallFlags.NONE, 5000, None).unpack()
    pinged = 0
    for name in names:
        if not name.startswith(":"):
            continue
        (owner_pid,) = conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                      "GetConnectionUnixProcessID", GLib.Variant("(s)", (name,)),
                                      GLib.VariantType("(u)"), Gio.DBusCallFlags.NONE, 5000, None).unpack()
        if owner_pid == pid:
            conn.call_sync(name, "/", "org.freedesktop.DBus.Peer", "Ping", None, None, Gio.DBusCallFlags.NONE, 5000, None)
            pinged += 1
    assert pinged > 0, "the bridge has no connection to that bus"


def test_loginds_locked_hint_of_the_session_locks_too(policy_bridge, client, focusctl, tmp_path, procs):
    system = PrivateBus(tmp_path, "system", procs)
    logind = FakeLogind(system.address, locked=True)
    b, fake = policy_bridge(WHEN_UNLOCKED, extra_env={"DBUS_SYSTEM_BUS_ADDRESS": system.address})
    bridge_sees_locked(focusctl, True)
    client.notify(app="Messenger", **secret("locked by logind"))
    assert_hidden(fake.wait_call("Notify", count=1), "Messenger")
    logind.set_locked(False)
    bridge_sees_locked(focusctl, False)
    # another connection on the system bus cannot say it
    forger = connect(system.address)
    forger.emit_signal(None, SESSION_PATH, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                       GLib.Variant("(sa{sv}as)", ("org.freedesktop.login1.Session",
                                                   {"LockedHint": GLib.Variant("b", True)}, [])))
    ping_bridge_from(forger, b.proc.pid)
    assert fc_json(focusctl, "explain", "--json", "--app", "Messenger")["preview-hidden"] is False
    logind.set_locked(True)
    bridge_sees_locked(focusctl, True)
    system.stop()


def test_when_unlocked_without_a_screensaver_shows(policy_bridge, client):
    _b, fake = policy_bridge(WHEN_UNLOCKED)
    client.notify(app="Messenger", **secret("no screensaver"))
    assert_shown(fake.wait_notify("no screensaver"), "no screensaver")


def test_explain_reports_hidden_preview(policy_bridge, screensaver_factory, focusctl):
    ss = screensaver_factory(locked=True)
    policy_bridge(WHEN_UNLOCKED)
    ss.wait_asked()
    assert fc_json(focusctl, "explain", "--json", "--app", "Messenger")["preview-hidden"] is True
    ss.set_locked(False)
    assert fc_json(focusctl, "explain", "--json", "--app", "Messenger")["preview-hidden"] is False
