"""The bridge in front of real GNOME Shell 43, headless: what a GNOME user notices.

Both doors: notify-send and libnotify through org.freedesktop.Notifications, and a real
GApplication (support/gnotification_client.py) through org.gtk.Notifications, which the bridge
owns before the shell asks for it and passes on to the shell's own GTK interface.

Start-up order (focus-bridge(1), GNOME): focus-bridge first, in `name` mode with org.gnome.Shell;
then gnome-shell, whose notification helper (`gjs org.gnome.Shell.Notifications`) asks for
org.freedesktop.Notifications without DO_NOT_QUEUE and waits in the queue. Notifications go
bridge → org.gnome.Shell /org/freedesktop/Notifications → the message tray, which the tests read
with org.gnome.Shell.Eval (unsafe mode, switched on by a one-line extension enabled through
gsettings before the shell starts). When the bridge stops, the helper takes the name back.

The shell is started once for the module (~3 s); the tests share it and run in file order: the
last ones stop the bridge. The shell's own notifications ("Logged in as a privileged user" as
root, "System was put in unsafe mode", "Screen Lock disabled") are ignored: every test looks for
its own titles only.
"""

import json
import re
import shutil
import signal
import subprocess

import pytest
from gi.repository import Gio, GLib

from support.buses import wait_for_name
from support.desktop import DesktopSession, unique_token
from support.names import NOTIF_NAME
from support.processes import BRIDGE_BIN, PYTHON, SUPPORT, LineReader
from support.waiting import bounded_poll, pump_until

TEST_TIMEOUT = 30
SHELL = "org.gnome.Shell"
HELPER = "org.gnome.Shell.Notifications"
EXTENSION_UUID = "unsafe-mode@focusbridge.test"
# The activation files the shell needs, and no other: not dunst's, mako's, swaync's or
# xfce4-notifyd's, which offer org.freedesktop.Notifications too.
SERVICES = ["org.gnome.Shell.Notifications", "ca.desrt.dconf", "org.a11y.Bus"]
CONFIG = """
[focus.work]
apps = ["Mail", "org.example.GtkMail"]
"""
GTK_NAME = "org.gtk.Notifications"
# A GApplication the shell knows (its desktop file), as every GTK app has one.
GTK_APP = "org.example.GtkMail"
# One the Focus of these tests does not allow.
GTK_NEWS = "org.example.GtkNews"
SHELL_NOTICES = ("Logged in as a privileged user", "System was put in unsafe mode", "Screen Lock disabled")


class GnomeShell:
    def __init__(self, session):
        self.session = session
        self.proc = session.spawn(["gnome-shell", "--headless", "--virtual-monitor", "1280x800", "--wayland",
                                   "--no-x11"], "gnome-shell.log")

    def eval(self, js):
        """org.gnome.Shell.Eval: the expression's value (the shell answers it as JSON)."""
        ok, out = self.session.bus.conn.call_sync(
            SHELL, "/org/gnome/Shell", "org.gnome.Shell", "Eval", GLib.Variant("(s)", (js,)),
            GLib.VariantType("(bs)"), Gio.DBusCallFlags.NONE, 5000, None).unpack()
        if not ok:
            raise AssertionError("org.gnome.Shell.Eval failed: %s" % out)
        return json.loads(out) if out else None

    def tray(self):
        """Every notification in the message tray: source (app) title, title, body, button labels."""
        return self.eval("""(() => {
            const r = [];
            for (const s of imports.ui.main.messageTray.getSources())
                for (const n of s.notifications)
                    r.push({source: s.title, title: n.title, body: n.bannerBodyText,
                            actions: n.actions.map(a => a.label)});
            return r; })()""")

    def titles(self):
        return [n["title"] for n in self.tray() if n["title"] not in SHELL_NOTICES]

    def find(self, title, timeout=10):
        """The tray's notification titled `title`, once it is there (bounded)."""
        def there():
            found = [n for n in self.tray() if n["title"] == title]
            return found[0] if found else None
        return bounded_poll(there, timeout, "%r never reached GNOME Shell's message tray; it holds %r" % (
            title, self.titles()))

    def gone(self, title, timeout=10):
        bounded_poll(lambda: title not in self.titles(), timeout,
                     "%r is still in GNOME Shell's message tray" % title)

    def on_notification(self, title, js_body):
        """Runs `js_body` with `n` bound to the tray's notification titled `title`; returns how
        many there were."""
        return self.eval("""(() => {
            let count = 0;
            for (const s of imports.ui.main.messageTray.getSources())
                for (const n of [...s.notifications])
                    if (n.title === %s) { count++; %s }
            return count; })()""" % (json.dumps(title), js_body))

    def click_button(self, title, label):
        """What a click on the button does: the action's callback."""
        assert self.on_notification(title, "n.actions.find(a => a.label === %s).callback();" % json.dumps(label)) == 1

    def click(self, title):
        """A click on the notification itself: its default action."""
        assert self.on_notification(title, "n.activate();") == 1

    def dismiss(self, title):
        """What the close button and swiping it away do."""
        assert self.on_notification(
            title, "n.destroy(imports.ui.messageTray.NotificationDestroyedReason.DISMISSED);") == 1

    def stop(self):
        """SIGTERM; gnome-shell 43 segfaults on its way out (harmless), so its status is not looked at."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


@pytest.fixture(scope="module")
def gnome(tmp_path_factory):
    for tool in ("gnome-shell", "gjs", "gsettings", "notify-send"):
        if not shutil.which(tool):
            pytest.skip("%s not installed (GNOME Shell tests: apt-get install gnome-shell gjs)" % tool)
    session = DesktopSession(tmp_path_factory.mktemp("gnome"), "gnome", SERVICES,
                             desktop_env={"XDG_CURRENT_DESKTOP": "GNOME", "XDG_SESSION_TYPE": "wayland"})
    shell = None
    try:
        # the unsafe-mode extension, enabled before the shell starts (gsettings → dconf, activated)
        ext = session.dirs["XDG_DATA_HOME"] / "gnome-shell" / "extensions" / EXTENSION_UUID
        ext.mkdir(parents=True)
        (ext / "metadata.json").write_text(json.dumps({
            "uuid": EXTENSION_UUID, "name": "Unsafe mode for FocusBridge's tests",
            "description": "Lets org.gnome.Shell.Eval run", "shell-version": ["43"]}))
        (ext / "extension.js").write_text(
            "function init() { return { enable() { global.context.unsafe_mode = true; },"
            " disable() { global.context.unsafe_mode = false; } }; }\n")
        r = session.run(["gsettings", "set", "org.gnome.shell", "enabled-extensions", "['%s']" % EXTENSION_UUID])
        assert r.returncode == 0, r.stderr
        session.write_config(CONFIG)
        apps = session.dirs["XDG_DATA_HOME"] / "applications"
        apps.mkdir(parents=True, exist_ok=True)
        for app_id, name in ((GTK_APP, "GTK Mail"), (GTK_NEWS, "GTK News")):
            (apps / (app_id + ".desktop")).write_text(
                "[Desktop Entry]\nType=Application\nName=%s\nExec=true\nDBusActivatable=false\n" % name)
        # what `auto` would choose in this GNOME session before the shell is up (see test below)
        session.auto_before_shell = session.run([BRIDGE_BIN, "--print-downstream"])
        session.bridge = session.start_bridge("--downstream", "name", "--downstream-name", SHELL)
        # an app that notifies before the shell is up: kept, and forwarded once the shell serves
        session.early_title = unique_token("Sent before the shell")
        session.client("early app").notify(session.early_title, "kept until GNOME Shell serves", app="Early")
        shell = GnomeShell(session)
        session.shell = shell
        if not wait_for_name(session.bus.conn, SHELL, 20, shell.proc):
            pytest.fail("gnome-shell never owned %s:\n%s" % (SHELL, session.log_tails()), pytrace=False)
        bounded_poll(lambda: shell.eval("global.context.unsafe_mode") is True, 20,
                     "GNOME Shell never went into unsafe mode (the extension):\n" + session.log_tails())
        bounded_poll(lambda: session.bus.owner(HELPER) in session.bus.queued(NOTIF_NAME)[1:], 20,
                     "GNOME Shell's notification helper never queued for %s:\n%s" % (NOTIF_NAME, session.log_tails()))
        client = session.client("gnome watcher")
        bounded_poll(lambda: client.status()["downstream"]["connected"], 20,
                     "the bridge never connected to GNOME Shell:\n" + session.log_tails())
        yield session
    finally:
        if shell is not None:
            shell.stop()
        session.stop()


@pytest.fixture(autouse=True)
def _logs_on_failure(request):
    """A failing test's report ends with the session's logs (the shell's, the bridge's)."""
    if "gnome" in request.fixturenames:
        request.node._fb_logs = list(request.getfixturevalue("gnome").logs)


# --------------------------------------------------------------------------- start-up order
def test_the_bridge_owns_the_name_and_gnomes_helper_waits_in_the_queue(gnome):
    bus = gnome.bus
    helper = bus.owner(HELPER)
    assert bus.owner(NOTIF_NAME) == gnome.bridge.unique_name
    assert bus.queued(NOTIF_NAME) == [gnome.bridge.unique_name, helper]
    with open("/proc/%d/cmdline" % bus.pid_of(helper), "rb") as f:
        argv = f.read().split(b"\0")
    assert b"org.gnome.Shell.Notifications" in argv[1], argv
    status = gnome.client("status").status()
    assert status["downstream"]["connected"] is True


def test_capabilities_and_server_information_are_gnome_shells_own(gnome):
    app = gnome.client("caps")
    shell_caps = app.call("GetCapabilities", None, "(as)", dest=SHELL)[0]
    assert sorted(app.capabilities()) == sorted(shell_caps)
    assert "actions" in shell_caps and "persistence" in shell_caps
    info = app.server_information()
    assert info == tuple(app.call("GetServerInformation", None, "(ssss)", dest=SHELL))
    assert info[0] == "gnome-shell" and re.match(r"43\.", info[2]), info


# --------------------------------------------------------------------------- the tray
def test_a_notification_sent_before_the_shell_was_up_reaches_the_tray(gnome):
    n = gnome.shell.find(gnome.early_title)
    assert n["source"] == "Early" and n["body"] == "kept until GNOME Shell serves", n


def test_notify_send_reaches_the_tray_under_the_apps_name(gnome):
    shell = gnome.shell
    title = unique_token("Build finished")
    gnome.notify_send("-a", "Builder", title, "all 312 tests passed")
    n = shell.find(title)
    assert n["body"] == "all 312 tests passed"
    assert n["source"] == "Builder", n


def test_a_button_clicked_in_the_tray_reaches_notify_send_waiting(gnome):
    shell = gnome.shell
    title = unique_token("Meeting in 5 minutes")
    p = gnome.notify_send("--wait", "-a", "Calendar", "-A", "join=Join", "-A", "snooze=Snooze", title, "Standup",
                          wait=True)
    n = shell.find(title)
    assert n["actions"] == ["Join", "Snooze", "Mute 1 Hour"], "the app's buttons, then the quick action: %r" % n
    shell.click_button(title, "Snooze")
    out, err = p.communicate(timeout=10)
    assert out.strip() == "snooze", (out, err)
    assert p.returncode == 0


def test_a_click_on_the_notification_is_its_default_action(gnome):
    shell = gnome.shell
    title = unique_token("New mail")
    p = gnome.notify_send("--wait", "-a", "Mail", "-A", "default=Open", title, "from the team lead", wait=True)
    n = shell.find(title)
    assert n["actions"] == ["Mute 1 Hour"], "the default action became a button, or no quick action: %r" % n
    shell.click(title)
    out, err = p.communicate(timeout=10)
    assert out.strip() == "default", (out, err)


def test_gnome_shows_at_most_three_buttons_and_the_destructive_one_goes_first(gnome):
    shell = gnome.shell
    title = unique_token("Spam suspected")
    app = gnome.client("buttons")
    app.notify(title, "four buttons", app="Mail",
               actions=["del", "Delete", "open", "Open", "reply", "Reply", "later", "Later"])
    n = shell.find(title)
    assert n["actions"] == ["Open", "Reply", "Later"], n


def test_dismissed_in_the_tray_closes_with_reason_2_for_the_app(gnome):
    shell = gnome.shell
    app = gnome.client("dismiss")
    title = unique_token("Download complete")
    nid = app.notify(title, "report.pdf", app="Files")
    shell.find(title)
    shell.dismiss(title)
    assert app.wait_signal("NotificationClosed", nid, timeout=10).args == (nid, 2)
    shell.gone(title)


def test_close_notification_through_the_bridge_removes_it_from_the_tray(gnome):
    shell = gnome.shell
    app = gnome.client("closer")
    title = unique_token("Uploading")
    nid = app.notify(title, "50 %", app="Files")
    shell.find(title)
    app.close(nid)
    shell.gone(title)
    assert app.wait_signal("NotificationClosed", nid, timeout=10).args == (nid, 3)


# --------------------------------------------------------------------------- Focus
def test_a_focus_holds_out_of_the_tray_and_its_digest_arrives_after(gnome):
    shell = gnome.shell
    held = unique_token("Sale ends tonight")
    allowed = unique_token("Reply from the team lead")
    gnome.focusctl("focus", "on", "work")
    try:
        gnome.notify_send("-a", "Shop", held, "50 % off")
        gnome.notify_send("-a", "Mail", allowed, "allowed by the Focus")
        # forwarding is in order: once the allowed one is in the tray, the held one would be too
        shell.find(allowed)
        assert held not in shell.titles()
        history = {h["summary"]: h["decision"] for h in gnome.client("history").history(limit=10)}
        assert history.get(held) == "held-focus", history
    finally:
        gnome.focusctl("focus", "off")
    digest = shell.find("While work was on")
    assert "Shop — %s" % held in digest["body"].split("\n"), digest
    assert held not in shell.titles(), "the held notification arrived as itself as well as in the digest"


# --------------------------------------------------------------------------- the GTK door
class GApplication:
    """A real GApplication of the session: GLib sends its GNotifications to org.gtk.Notifications
    (the bridge's), and GNOME Shell activates its actions on it directly."""

    def __init__(self, gnome, app_id=GTK_APP):
        self.proc = gnome.procs.spawn([PYTHON, str(SUPPORT / "gnotification_client.py"), app_id], env=gnome.env,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=open(gnome.log("gapplication.log"), "ab"))
        self.out = LineReader(self.proc.stdout)

    def command(self, line, answer):
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()
        got = self.out.get(10)
        assert got == answer, "the GApplication said %r to %r" % (got, line)

    def send(self, nid, title, priority="normal"):
        self.command("send %s %s %s" % (nid, title, priority), "sent %s" % nid)

    def withdraw(self, nid):
        self.command("withdraw %s" % nid, "withdrawn %s" % nid)

    def stop(self):
        self.proc.stdin.close()
        self.proc.wait(10)


@pytest.fixture
def gapp(gnome):
    app = GApplication(gnome)
    yield app
    app.stop()


def history_row(gnome, title):
    return bounded_poll(lambda: next((h for h in gnome.client("history").history(limit=50)
                                      if h["summary"] == title), None), 10, "%r is not in history" % title)


def test_the_bridge_owns_the_gtk_door_and_the_shell_waits_in_its_queue(gnome):
    bus = gnome.bus
    assert bus.owner(GTK_NAME) == gnome.bridge.unique_name
    assert bus.queued(GTK_NAME) == [gnome.bridge.unique_name, bus.owner(SHELL)]


def test_a_gnotification_reaches_the_tray_once_through_the_bridge(gnome, gapp):
    title = unique_token("GTK mail arrived")
    gapp.send("m1", title)
    n = gnome.shell.find(title)
    assert n["source"] == "GTK Mail" and n["body"] == "from a GNotification", n
    assert n["actions"] == ["Acknowledge"], n
    row = history_row(gnome, title)
    assert (row["app"], row["decision"], row["door"]) == (GTK_APP, "delivered", "org.gtk.Notifications"), row
    assert gnome.shell.titles().count(title) == 1


def test_a_button_in_the_tray_activates_the_gapplication(gnome, gapp):
    title = unique_token("GTK reminder")
    gapp.send("r1", title)
    gnome.shell.find(title)
    gnome.shell.click_button(title, "Acknowledge")
    assert gapp.out.get(10) == "activated ack"


def test_urgent_is_time_sensitive_and_critical_in_the_tray(gnome, gapp):
    title = unique_token("GTK server down")
    gapp.send("u1", title, "urgent")
    gnome.shell.find(title)
    assert gnome.shell.on_notification(title, "if (n.urgency !== imports.ui.messageTray.Urgency.CRITICAL) throw n.urgency;") == 1
    assert history_row(gnome, title)["level"] == "time-sensitive"


def test_a_focus_holds_a_gnotification_allows_another_and_show_all_adds_it(gnome, gapp):
    shell = gnome.shell
    news = GApplication(gnome, GTK_NEWS)
    held = unique_token("GTK newsletter")
    withdrawn = unique_token("GTK withdrawn")
    allowed = unique_token("GTK mail allowed during work")
    # an earlier test's digest, dismissed so that the tray has only this one's
    shell.on_notification("While work was on",
                          "n.destroy(imports.ui.messageTray.NotificationDestroyedReason.DISMISSED);")
    shell.gone("While work was on")
    gnome.focusctl("focus", "on", "work")
    try:
        news.send("h1", held)
        news.send("w1", withdrawn)
        news.withdraw("w1")
        gapp.send("a1", allowed)
        # forwarding is in order: once the allowed one is in the tray, the held ones would be too
        assert shell.find(allowed)["source"] == "GTK Mail"
        assert held not in shell.titles() and withdrawn not in shell.titles()
        assert history_row(gnome, held)["decision"] == "held-focus"
        assert history_row(gnome, allowed)["decision"] == "delivered"
        bounded_poll(lambda: history_row(gnome, withdrawn)["close-reason"] == 3, 10, "the withdrawn one never ended")
    finally:
        gnome.focusctl("focus", "off")
    digest = shell.find("While work was on")
    lines = digest["body"].split("\n")
    assert any(held in line for line in lines), digest
    assert not any(withdrawn in line for line in lines), "a withdrawn one is in the digest: %r" % digest
    shell.click_button("While work was on", "Show All")
    assert shell.find(held)["source"] == "GTK News"
    assert withdrawn not in shell.titles()
    news.stop()


# --------------------------------------------------------------------------- order facts
def test_auto_mode_before_the_shell_is_up_chooses_gnome_and_waits_for_it(gnome):
    """What `auto` chose in this GNOME session (XDG_CURRENT_DESKTOP=GNOME) with the bridge started
    first, as the start-up order needs: org.gnome.Shell is not on the bus yet, and auto forwards
    to it all the same, once it is there — not to dunst meanwhile."""
    r = gnome.auto_before_shell
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("name: org.gnome.Shell"), r.stdout
    assert "once it is on the session bus" in r.stdout, r.stdout


def stop_the_bridge(gnome):
    """Stops the module's bridge (once) and waits until somebody else owns the name; returns the
    bridge's exit status and the new owner."""
    bridge = gnome.bridge
    if not bridge.stopped:
        bridge.stop()
    owner = pump_until(lambda: gnome.bus.owner(NOTIF_NAME), 10)
    return bridge.returncode, owner


def test_when_the_bridge_stops_gnome_takes_the_name_back_and_shows_notifications(gnome):
    shell = gnome.shell
    helper = gnome.bus.owner(HELPER)
    status, owner = stop_the_bridge(gnome)
    assert status == 0, gnome.bridge.stderr_tail()
    assert owner == helper, "after the bridge stopped %s is owned by %r, not GNOME's helper %s" % (
        NOTIF_NAME, owner, helper)
    title = unique_token("Straight to GNOME")
    gnome.notify_send("-a", "Terminal", title, "no bridge in between")
    assert shell.find(title)["source"] == "Terminal"
    assert gnome.bus.owner(GTK_NAME) == gnome.bus.owner(SHELL), "the shell never got org.gtk.Notifications back"


def test_started_after_gnome_the_bridge_cannot_take_the_name_even_with_replace(gnome):
    """GNOME 43's helper owns the name without ALLOW_REPLACEMENT: --replace only queues behind it,
    and the bridge exits with one sentence. So the bridge must start before the shell."""
    helper = gnome.bus.owner(HELPER)
    assert stop_the_bridge(gnome)[1] == helper
    late = gnome.start_bridge("--replace", "--downstream", "name", "--downstream-name", SHELL, wait=False,
                              label="late-bridge")
    try:
        late.proc.wait(10)
    except subprocess.TimeoutExpired:
        late.stop(signal.SIGKILL)
        pytest.fail("a bridge started after GNOME Shell with --replace kept running")
    assert late.proc.returncode != 0
    err = late.stderr()
    assert "GNOME Shell's notification service" in err and "gjs" in err, err
    assert gnome.bus.owner(NOTIF_NAME) == helper


def test_print_downstream_replace_tells_the_truth_about_gnome(gnome):
    """GNOME 43's helper never allows replacement: --print-downstream says so and sends the user
    to the start-up order that works, not to --replace."""
    assert stop_the_bridge(gnome)[1] == gnome.bus.owner(HELPER)
    r = gnome.run([BRIDGE_BIN, "--print-downstream", "--replace", "--downstream", "name",
                   "--downstream-name", SHELL])
    assert r.returncode == 1, (r.stdout, r.stderr)
    # and without --replace it should not send the user to --replace
    r = gnome.run([BRIDGE_BIN, "--print-downstream", "--downstream", "name", "--downstream-name", SHELL])
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "with --replace" not in r.stderr and "before GNOME Shell starts" in r.stderr, r.stderr
