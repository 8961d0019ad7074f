"""The bridge in front of real plasmashell 5.27, under Xvfb: what a Plasma user notices.

Start-up order (focus-bridge(1), Plasma): focus-bridge first, in `name` mode with
org.kde.plasmashell; then plasmashell, which asks for org.freedesktop.Notifications with
REPLACE_EXISTING, is refused ("Failed to register Notification service on DBus"), does not queue,
and keeps serving /org/freedesktop/Notifications on its own connection, where the bridge forwards.

What reaches Plasma is seen on the bus (busctl monitor: the bridge's Notify to plasmashell,
answered with plasmashell's ID) and on the X screen (plasmashell's notification popup window).
Buttons are pressed as the popup does, with org.kde.NotificationManager.InvokeAction.

plasmashell is started once for the module (~5–15 s); the tests share it and run in file order:
the last ones stop the bridge.
"""

import re
import shutil
import subprocess

import pytest
from gi.repository import GLib

from support.buses import wait_for_name
from support.desktop import DesktopSession, unique_token
from support.names import NOTIF_NAME, NOTIF_PATH
from support.waiting import bounded_poll, pump_until

TEST_TIMEOUT = 30
PLASMA = "org.kde.plasmashell"
# What plasmashell needs activated, and no other: not plasma_waitforname
# (org.kde.plasma.Notifications.service, which offers org.freedesktop.Notifications), nor
# dunst's, mako's, swaync's or xfce4-notifyd's.
SERVICES = ["org.kde.ActivityManager", "org.kde.kded5", "org.a11y.Bus"]
PLASMA_ENV = {"QT_QPA_PLATFORM": "xcb", "XDG_CURRENT_DESKTOP": "KDE", "KDE_FULL_SESSION": "true",
              "KDE_SESSION_VERSION": "5", "XDG_SESSION_TYPE": "x11"}
CONFIG = """
[focus.work]
apps = ["Mail"]
"""


class Plasma:
    def __init__(self, session):
        self.session = session
        self.proc = session.spawn(["plasmashell", "--no-respawn"], "plasmashell.log")
        self.unique_name = None

    def invoke_action(self, plasma_id, key):
        """What a click on a button of plasmashell's popup does."""
        self.session.bus.conn.call_sync(self.unique_name, NOTIF_PATH, "org.kde.NotificationManager", "InvokeAction",
                                        GLib.Variant("(us)", (plasma_id, key)), None, 0, 5000, None)

    def popups(self):
        """The notification popups plasmashell shows on the X screen (window IDs)."""
        env = self.session.env
        r = subprocess.run(["xwininfo", "-root", "-children"], env=env, capture_output=True, text=True, timeout=10)
        found = []
        for wid in re.findall(r"^\s+(0x[0-9a-f]+) .*\(\"plasmashell\" \"plasmashell\"\)", r.stdout, re.M):
            kind = subprocess.run(["xprop", "-id", wid, "_NET_WM_WINDOW_TYPE"], env=env, capture_output=True,
                                  text=True, timeout=10).stdout
            if "_NET_WM_WINDOW_TYPE_NOTIFICATION" not in kind:
                continue
            info = subprocess.run(["xwininfo", "-id", wid], env=env, capture_output=True, text=True, timeout=10).stdout
            if "Map State: IsViewable" in info:
                found.append(wid)
        return found

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def require_plasma():
    for tool in ("plasmashell", "notify-send", "xwininfo", "xprop", "busctl"):
        if not shutil.which(tool):
            pytest.skip("%s not installed (Plasma tests: apt-get install plasma-workspace plasma-desktop)" % tool)


@pytest.fixture(scope="module")
def plasma(tmp_path_factory):
    require_plasma()
    session = DesktopSession(tmp_path_factory.mktemp("plasma"), "plasma", SERVICES, x_display=True,
                             desktop_env=PLASMA_ENV)
    shell = None
    try:
        session.write_config(CONFIG)
        session.bridge = session.start_bridge("--downstream", "name", "--downstream-name", PLASMA)
        # an app that notifies before the shell is up: kept, and forwarded once plasmashell serves
        session.monitor = session.watch_notifies(None, PLASMA)
        session.early_title = unique_token("Sent before the shell")
        session.client("early app").notify(session.early_title, "kept until plasmashell serves", app="Early")
        shell = Plasma(session)
        session.shell = shell
        owner = wait_for_name(session.bus.conn, PLASMA, 30, shell.proc)
        if not owner:
            pytest.fail("plasmashell never owned %s:\n%s" % (PLASMA, session.log_tails()), pytrace=False)
        shell.unique_name = owner
        client = session.client("plasma watcher")
        # plasmashell owns its name seconds before it serves notifications (the panel's applet)
        bounded_poll(lambda: client.status()["downstream"]["connected"], 40,
                     "the bridge never connected to plasmashell:\n" + session.log_tails())
        session.monitor.set_daemon(owner)
        yield session
    finally:
        if shell is not None:
            shell.stop()
        session.stop()


@pytest.fixture(autouse=True)
def _logs_on_failure(request):
    """A failing test's report ends with the session's logs (the shell's, the bridge's)."""
    if "plasma" in request.fixturenames:
        request.node._fb_logs = list(request.getfixturevalue("plasma").logs)


def plasma_call(plasma, method, reply_type):
    return plasma.client("direct").call(method, None, reply_type, dest=plasma.shell.unique_name)


# --------------------------------------------------------------------------- start-up order
def test_the_bridge_owns_the_name_and_plasmashell_serves_behind_it(plasma):
    bus = plasma.bus
    assert bus.owner(NOTIF_NAME) == plasma.bridge.unique_name
    # plasmashell asked for the name, was refused, and did not queue for it
    assert bus.queued(NOTIF_NAME) == [plasma.bridge.unique_name]
    assert "Failed to register Notification service" in (plasma.root / "plasmashell.log").read_text(errors="replace")
    name, vendor, version, spec = plasma_call(plasma, "GetServerInformation", "(ssss)")
    assert (name, vendor) == ("Plasma", "KDE") and re.match(r"5\.27\.", version), (name, vendor, version)


def test_capabilities_and_server_information_are_plasmashells_own(plasma):
    app = plasma.client("caps")
    own = plasma_call(plasma, "GetCapabilities", "(as)")[0]
    assert sorted(app.capabilities()) == sorted(own)
    assert "actions" in own and "inline-reply" in own
    assert app.server_information() == tuple(plasma_call(plasma, "GetServerInformation", "(ssss)"))


# --------------------------------------------------------------------------- the screen
def test_a_notification_sent_before_plasmashell_was_up_reaches_it(plasma):
    call = plasma.monitor.wait_answered(plasma.early_title)
    assert call["id"] > 0 and call["body"] == "kept until plasmashell serves", call


def test_notify_send_reaches_plasmashell_and_pops_up(plasma):
    before = set(plasma.shell.popups())
    title = unique_token("Build finished")
    plasma.notify_send("-a", "Builder", title, "all 312 tests passed")
    call = plasma.monitor.wait_answered(title)
    assert call["id"] > 0 and call["app"] == "Builder" and call["body"] == "all 312 tests passed", call
    bounded_poll(lambda: set(plasma.shell.popups()) - before, 10,
                 "plasmashell answered %r but no notification popup appeared on the X screen" % title)


def test_a_button_pressed_in_plasma_reaches_notify_send_waiting(plasma):
    title = unique_token("Meeting in 5 minutes")
    # -t 0: Plasma's popups of timeout -1 expire after a few seconds (NotificationClosed reason 1)
    p = plasma.notify_send("--wait", "-t", "0", "-a", "Calendar", "-A", "join=Join", "-A", "snooze=Snooze", title,
                           "Standup", wait=True)
    call = plasma.monitor.wait_answered(title)
    assert call["actions"] == ["join", "Join", "snooze", "Snooze", "x-focus-quick.mute-hour", "Mute 1 Hour"], call
    plasma.shell.invoke_action(call["id"], "snooze")
    out, err = p.communicate(timeout=10)
    assert out.strip() == "snooze", (out, err)


def test_close_notification_through_the_bridge_closes_it_in_plasma(plasma):
    app = plasma.client("closer")
    title = unique_token("Uploading")
    nid = app.notify(title, "50 %", app="Files", timeout=0)
    call = plasma.monitor.wait_answered(title)
    pid = call["id"]
    app.close(nid)
    assert app.wait_signal("NotificationClosed", nid, timeout=10).args == (nid, 3)
    # plasmashell itself said it closed it (its own broadcast, with its own ID)
    assert pump_until(lambda: plasma.monitor.closed_by_daemon(pid), 5) == [3]


# --------------------------------------------------------------------------- Focus
def test_a_focus_holds_before_plasma_and_its_digest_arrives_after(plasma):
    held = unique_token("Sale ends tonight")
    allowed = unique_token("Reply from the team lead")
    plasma.focusctl("focus", "on", "work")
    try:
        plasma.notify_send("-a", "Shop", held, "50 % off")
        plasma.notify_send("-a", "Mail", allowed, "allowed by the Focus")
        # forwarding is in order: once plasmashell answered the allowed one, it has seen the held one if ever
        plasma.monitor.wait_answered(allowed)
        assert held not in plasma.monitor.summaries()
    finally:
        plasma.focusctl("focus", "off")
    digest = plasma.monitor.wait_answered("While work was on")
    assert "Shop — %s" % held in digest["body"].split("\n"), digest
    assert held not in plasma.monitor.summaries()


# --------------------------------------------------------------------------- order facts
# --------------------------------------------------------------------------- asking for quiet
def test_an_app_asking_for_quiet_is_passed_on_to_plasma(plasma):
    """Plasma's own applet shows who asked for quiet (its external inhibitions): the bridge passes
    Inhibit on to plasmashell, and ends it there with plasmashell's own cookie when it ends."""
    slides = plasma.client("slides")
    cookie = slides.call("Inhibit", GLib.Variant("(ssa{sv})", ("org.example.Slides", "Presenting", {})), "(u)")[0]
    passed = pump_until(lambda: [c for c in plasma.monitor.calls("Inhibit") if c[1]], 10)
    assert passed, "the bridge never passed Inhibit on to plasmashell"
    (arguments, (plasma_cookie,)), = passed
    assert arguments[:2] == ["org.example.Slides", "Presenting"], arguments
    status = plasma.client("status").status()
    assert (status["focus"]["name"], status["focus"]["source"]) == ("dnd", "inhibit"), status["focus"]
    slides.call("UnInhibit", GLib.Variant("(u)", (cookie,)))
    ended = pump_until(lambda: plasma.monitor.calls("UnInhibit"), 10)
    assert ended and ended[0][0] == [plasma_cookie], "UnInhibit never reached plasmashell with its cookie: %r" % ended


def test_when_the_bridge_stops_plasma_does_not_take_the_name_back(plasma):
    bridge = plasma.bridge
    if not bridge.stopped:
        assert bridge.stop() == 0, bridge.stderr_tail()
    # plasmashell would have asked at once, when the name was released: nobody does
    assert pump_until(lambda: plasma.bus.owner(NOTIF_NAME), 1) is None
    assert plasma.shell.proc.poll() is None, "plasmashell exited"
    r = plasma.run(["notify-send", "Nobody listens"])
    assert r.returncode != 0 and "org.freedesktop.Notifications" in r.stderr, (r.returncode, r.stderr)


def test_a_bridge_started_again_serves_through_the_running_plasmashell(plasma):
    """What systemd's Restart= or D-Bus activation does after the bridge stopped: the name is free,
    the new bridge owns it and finds plasmashell still serving behind it."""
    if not plasma.bridge.stopped:
        plasma.bridge.stop()
    again = plasma.start_bridge("--downstream", "name", "--downstream-name", PLASMA, label="bridge-again")
    plasma.bridge = again
    client = plasma.client("after restart")
    bounded_poll(lambda: client.status()["downstream"]["connected"], 15,
                 "the restarted bridge never connected to plasmashell")
    title = unique_token("Back again")
    plasma.notify_send("-a", "Builder", title, "through the new bridge")
    assert plasma.monitor.wait_answered(title)["id"] > 0


def test_started_after_plasmashell_the_bridge_is_refused_with_one_sentence(tmp_path):
    """The other order: plasmashell owns the name first and never lets it go, not even to --replace."""
    require_plasma()
    session = DesktopSession(tmp_path, "plasma-first", SERVICES, x_display=True, desktop_env=PLASMA_ENV)
    shell = Plasma(session)
    try:
        owner = wait_for_name(session.bus.conn, NOTIF_NAME, 25, shell.proc)
        assert owner and session.bus.pid_of(owner) == shell.proc.pid, session.log_tails()
        for args in ([], ["--replace"]):
            late = session.start_bridge(*args, "--downstream", "name", "--downstream-name", PLASMA, wait=False,
                                        label="late-bridge%s" % "".join(args))
            try:
                late.proc.wait(10)
            except subprocess.TimeoutExpired:
                late.stop()
                pytest.fail("focus-bridge %s started after plasmashell kept running" % " ".join(args))
            assert late.proc.returncode != 0
            err = late.stderr()
            assert "plasmashell (PID %d" % shell.proc.pid in err and "before plasmashell" in err, err
            assert session.bus.owner(NOTIF_NAME) == owner
    finally:
        shell.stop()
        session.stop()
