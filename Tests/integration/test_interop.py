"""Interop: every real notification daemon installed here, run by the
bridge in spawn mode (`focus-bridge --downstream spawn -- DAEMON`), checked on a real screen:

* shown    — the popup is drawn: the screen differs from the one taken before Notify;
* action   — a click on the popup (its button; for dunst and mako, which have none, the popup
             itself) reaches a waiting `notify-send --wait -A KEY=Label`, which prints KEY;
* close    — CloseNotification through the bridge removes the popup (the screen is exactly the
             empty one again) and the app gets NotificationClosed(id, 3);
* replace  — Notify with replaces_id keeps the ID and redraws the one popup with the new text;
* dnd      — the daemon's own Do Not Disturb, switched with its own tool through the bridge,
             keeps a new notification off the screen (and lets it through once switched off).
             swaync and xfce4-notifyd keep the switch in the session's dconf / xfconf: the test
             runs dconf-service / xfconfd on the session bus, as a desktop session does, and the
             bridge's session relay ([downstream] session-names) lets the daemon reach them; a
             build without the relay is expected to fail there (xfail).

A daemon whose package is not installed is skipped; scripts/install-deps.sh installs them all.
README.md's "Works with" table names the test behind each cell. Screens of each test are kept
as PNG files in its tmp folder. Helpers: support/screens.py, support/displays.py, support/real_daemons.py.
"""

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from support.bridge import wait_connected
from support.buses import wait_for_name
from support.displays import SwaySession, build_vclick
from support.processes import FOCUSCTL_BIN, run, session_env
from support.real_daemons import DAEMONS, daemon_command, installed
from support.screens import WaylandScreen, XScreen, center, real_imagemagick
from support.waiting import pump_for, wait_until

TEST_TIMEOUT = 45

SWAYNC_CC = "org.erikreider.swaync.cc"


# --------------------------------------------------------------------------- session-wide rigs
@pytest.fixture(scope="session")
def sway():
    for tool in ("sway", "grim", "setpriv"):
        if not subprocess.run(["sh", "-c", "command -v %s" % tool], capture_output=True).returncode == 0:
            pytest.skip("%s not installed: no headless sway for the Wayland daemons" % tool)
    folder = tempfile.mkdtemp(prefix="focus-bridge-sway-")
    try:
        session = SwaySession(folder)
    except RuntimeError as exc:
        pytest.fail(str(exc), pytrace=False)
    yield session
    session.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def vclick(tmp_path_factory):
    binary, why = build_vclick(tmp_path_factory.mktemp("vclick"))
    return binary or why


# --------------------------------------------------------------------------- one daemon behind the bridge
class Rig:
    """The bridge in spawn mode with one real daemon, a client app, the screen it draws on, the
    environment for the daemon's tools and for notify-send, and `base`: the empty screen."""

    def __init__(self, daemon, bridge, client, env, screen, procs):
        self.daemon = daemon
        self.bridge = bridge
        self.client = client
        self.env = env
        self.screen = screen
        self.procs = procs
        self.base = screen.grab()
        screen.keep(self.base, "empty")

    def notify(self, summary, body="", actions=(), replaces_id=0, urgency=None, timeout=0):
        hints = {}
        if urgency is not None:
            from gi.repository import GLib
            hints["urgency"] = GLib.Variant("y", urgency)
        # expire_timeout 0 (the default here): stays until closed, whatever the daemon's default
        return self.client.notify(summary, body, app="InteropTest", actions=actions,
                                  replaces_id=replaces_id, hints=hints, timeout=timeout)

    def tool(self, *argv, timeout=10):
        r = run(list(argv), self.env, timeout=timeout)
        assert r.returncode == 0, "%s failed (%d): %s %s" % (" ".join(argv), r.returncode, r.stdout, r.stderr)
        return r.stdout

    def notify_send_waiting(self, action, summary, body):
        """notify-send --wait -A ACTION: the app that waits for a click; returns the process."""
        return self.procs.spawn(["notify-send", "-t", "0", "-a", "InteropTest", "--wait", "-A", action,
                                 summary, body], env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    # -- the daemon's own listing, where it has one ---------------------------------------
    def listing(self):
        """Summaries the daemon itself says it holds (None: it has no listing tool)."""
        d = self.daemon.id
        if d == "mako":
            data = json.loads(self.tool("makoctl", "list"))["data"][0]
            return [n["summary"]["data"] for n in data]
        return None

    def describe(self):
        """The daemon's own view, for failure messages."""
        d = self.daemon.id
        try:
            if d == "dunst":
                return "dunstctl: paused %s, displayed %s, waiting %s" % tuple(
                    run(["dunstctl", *a], self.env).stdout.strip()
                    for a in (["is-paused"], ["count", "displayed"], ["count", "waiting"]))
            if d == "mako":
                return "makoctl: modes %r, list %r" % (run(["makoctl", "mode"], self.env).stdout.split(),
                                                       self.listing())
        except Exception as exc:  # noqa: BLE001 - only a description
            return "no state: %r" % exc
        return "no listing"

    def count(self):
        """How many notifications the daemon holds, by its own tool (None: no such tool)."""
        d = self.daemon.id
        if d == "dunst":
            return int(self.tool("dunstctl", "count", "displayed")) + int(self.tool("dunstctl", "count", "waiting"))
        if d == "mako":
            return len(self.listing())
        if d == "swaync":
            return int(self.tool("swaync-client", "-c").strip())
        return None


def _params():
    out = []
    for d in DAEMONS:
        marks = [] if installed(d) else [pytest.mark.skip(reason="%s not installed (package %s)" % (d.executable, d.package))]
        out.append(pytest.param(d, id=d.id, marks=marks))
    return out


@pytest.fixture(params=_params())
def rig(request, bridge_factory, make_client, bus, procs, tmp_path):
    daemon = request.param
    extra = {"HOME": tmp_path / "home", "XDG_CACHE_HOME": tmp_path / "cache",
             "XDG_DATA_HOME": tmp_path / "data", "XDG_RUNTIME_DIR": tmp_path / "run"}
    for folder in extra.values():
        folder.mkdir(mode=0o700, exist_ok=True)
    display = None
    if daemon.display == "x11":
        if not real_imagemagick() or not subprocess.run(["sh", "-c", "command -v xdotool"]).returncode == 0:
            pytest.skip("ImageMagick's import and xdotool are needed for the X11 daemons")
        display = request.getfixturevalue("xvfb")
    else:
        session = request.getfixturevalue("sway")
        extra["WAYLAND_DISPLAY"] = session.socket
    if daemon.id == "swaync":
        # swaync-client talks to its own name: the bridge owns it and passes it through
        cfg = tmp_path / "config" / "focus-bridge"
        cfg.mkdir(parents=True, exist_ok=True)
        (cfg / "config.toml").write_text('[downstream]\npassthrough-names = ["%s"]\n' % SWAYNC_CC)
    command = daemon_command(daemon, tmp_path)
    bridge = bridge_factory("spawn", command=command, display=display, extra_env=extra, timeout=15)
    client = make_client("%s app" % daemon.id)
    wait_connected(client, 20)
    env = session_env(bus.address, display=display, **extra)
    shots = tmp_path / "screens"
    if daemon.display == "x11":
        screen = XScreen(env, shots)
        # the pointer away from where popups are drawn: no hover effects
        subprocess.run(["xdotool", "mousemove", "640", "790"], env=env, capture_output=True, timeout=10)
    else:
        screen = WaylandScreen(env, shots, request.getfixturevalue("vclick"))
    return Rig(daemon, bridge, client, env, screen, procs)


def box_size(box):
    return box[2] - box[0], box[3] - box[1]


# --------------------------------------------------------------------------- the checks
def test_shown(rig):
    """A notification sent to the bridge is drawn by the daemon behind it."""
    rig.notify("Interop: shown", "drawn behind the bridge")
    shot, box = rig.screen.wait_popup(rig.base, what="%s drew no popup" % rig.daemon.id)
    rig.screen.keep(shot, "shown")
    w, h = box_size(box)
    assert 60 <= w <= 900 and 15 <= h <= 400, "not a popup's size: %r (box %r)" % ((w, h), box)
    assert len(shot.bands(rig.base)) == 1, "more than one popup drawn: %r" % (shot.bands(rig.base),)
    if rig.count() is not None:
        assert rig.count() == 1
    if rig.listing() is not None:
        assert rig.listing() == ["Interop: shown"]


def test_close(rig, request):
    """CloseNotification through the bridge takes the popup off the screen."""
    if rig.daemon.close_xfail:
        # only the screen check (pytest.fail) is expected to fail; an assertion is a real failure
        request.applymarker(pytest.mark.xfail(reason=rig.daemon.close_xfail, strict=True,
                                              raises=pytest.fail.Exception))
    nid = rig.notify("Interop: close me", "until the app closes it")
    shot, _ = rig.screen.wait_popup(rig.base, what="%s drew no popup" % rig.daemon.id)
    rig.screen.keep(shot, "before-close")
    rig.client.close(nid)
    assert rig.client.wait_signal("NotificationClosed", nid, timeout=10).args == (nid, 3)
    rig.screen.wait_back_to(rig.base, what="%s still shows the popup after CloseNotification" % rig.daemon.id)
    if rig.count() is not None:
        assert rig.count() == 0, "%s still holds the closed notification" % rig.daemon.id


def test_snooze_takes_the_popup_off_and_brings_it_back(rig, request):
    """focusctl snooze: the popup leaves the screen, its app hears nothing, and it is drawn again
    when the snooze ends (focusctl(1), snooze)."""
    if rig.daemon.close_xfail:
        # the snooze closes the daemon's copy with CloseNotification: the same screen check fails
        request.applymarker(pytest.mark.xfail(reason=rig.daemon.close_xfail, strict=True,
                                              raises=pytest.fail.Exception))
    nid = rig.notify("Interop: snooze me", "back in three seconds")
    shot, box = rig.screen.wait_popup(rig.base, what="%s drew no popup" % rig.daemon.id)
    rig.screen.keep(shot, "before-snooze")
    r = run([FOCUSCTL_BIN, "snooze", str(nid), "--for", "3s"], rig.env)
    assert r.returncode == 0, r.stderr
    rig.screen.wait_back_to(rig.base, what="%s still shows the popup after focusctl snooze" % rig.daemon.id)
    again, box_again = rig.screen.wait_popup(rig.base, timeout=15,
                                             what="%s did not draw the popup again when the snooze ended" % rig.daemon.id)
    rig.screen.keep(again, "after-snooze")
    (w, h), (w2, h2) = box_size(box), box_size(box_again)
    assert abs(w - w2) <= 4 and abs(h - h2) <= 4, "not the same popup: %r then %r" % (box, box_again)
    assert not rig.client.got("NotificationClosed", nid), "the app was told its snoozed notification closed"


def test_replace(rig):
    """replaces_id keeps the ID; the one popup is redrawn with the new (taller) text."""
    nid = rig.notify("Interop: replace me", "first text")
    first, box1 = rig.screen.wait_popup(rig.base, what="%s drew no popup" % rig.daemon.id)
    rig.screen.keep(first, "before-replace")
    again = rig.notify("Interop: replaced", "second text\nline two\nline three", replaces_id=nid)
    assert again == nid, "replaces_id %d answered with another ID %d" % (nid, again)
    last = [None]

    def redrawn(shot):
        prev, last[0] = last[0], shot
        if prev is None or not prev.identical(shot) or shot.identical(first):
            return None
        count, box = shot.diff(rig.base)
        return box if box and box_size(box)[1] > box_size(box1)[1] else None

    shot, box2 = rig.screen.wait_for(redrawn, 10, "%s did not redraw the popup taller with the new text"
                                     % rig.daemon.id)
    rig.screen.keep(shot, "replaced")
    bands = shot.bands(rig.base)
    assert len(bands) == 1, "replacing drew a second popup: bands %r" % (bands,)
    assert rig.client.got("NotificationClosed", nid) == [], "the replaced ID was closed"
    if rig.count() is not None:
        assert rig.count() == 1
    if rig.listing() is not None:
        assert rig.listing() == ["Interop: replaced"]


def test_action_clicked(rig):
    """A click on the popup reaches the app waiting on the action (notify-send --wait -A)."""
    d = rig.daemon
    summary, body = "Interop: the action button test", "click the button below"
    if d.click == "button":
        # Where is the button? The part of the popup that changes when only its label does.
        # (notification-daemon cannot be closed with CloseNotification, see test_close: its
        # first popup expires instead)
        nid = rig.notify(summary, body, actions=["key", "Keep"], timeout=2000 if d.close_xfail else 0)
        first, _ = rig.screen.wait_popup(rig.base, what="%s drew no popup" % d.id)
        if not d.close_xfail:
            rig.client.close(nid)
            rig.client.wait_signal("NotificationClosed", nid, timeout=10)
        rig.screen.wait_back_to(rig.base)
        app = rig.notify_send_waiting("key=Open", summary, body)
        shot, box = rig.screen.wait_popup(rig.base, what="%s drew no popup for notify-send" % d.id)
        count, button = shot.diff(first)
        assert button, "the label of %s's button changed nothing on the screen" % d.id
        _, popup = shot.diff(rig.base)
        bw, bh = box_size(button)
        pw, ph = box_size(popup)
        assert bw * bh < pw * ph / 2, "the label change moved the whole popup (%r in %r)" % (button, popup)
        target, key, mouse = center(button), "key", "left"
    else:
        # dunst and mako draw no buttons: a click on the popup runs its (default) action
        key = "key" if d.click == "popup-middle" else "default"
        app = rig.notify_send_waiting("%s=Open" % key, summary, body)
        shot, popup = rig.screen.wait_popup(rig.base, what="%s drew no popup for notify-send" % d.id)
        target, mouse = center(popup), ("middle" if d.click == "popup-middle" else "left")
    rig.screen.keep(shot, "before-click")
    rig.screen.click(*target, button=mouse)
    try:
        out, err = app.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        app.kill()
        out, err = app.communicate()
        path = rig.screen.keep(rig.screen.grab(), "after-click")
        pytest.fail("notify-send still waiting after a %s click at %r on %s (screen: %s)" % (
            mouse, target, d.id, path), pytrace=False)
    assert out.strip() == key, (out, err)


@pytest.mark.parametrize("rig", [p for p in _params() if p.id == "mako"], indirect=True)
def test_mako_named_action_with_makoctl(rig):
    """mako has no buttons: other actions than the default one are run with makoctl, which
    reaches mako through the bridge."""
    app = rig.notify_send_waiting("key=Label", "Interop: makoctl invoke", "a named action")
    rig.screen.wait_popup(rig.base, what="mako drew no popup")
    rig.tool("makoctl", "invoke", "key")
    out, err = app.communicate(timeout=10)
    assert out.strip() == "key", (out, err)


# --------------------------------------------------------------------------- Do Not Disturb
def _dnd_on(rig):
    d = rig.daemon.id
    if d == "dunst":
        rig.tool("dunstctl", "set-paused", "true")
        assert rig.tool("dunstctl", "is-paused").strip() == "true"
    elif d == "mako":
        rig.tool("makoctl", "mode", "-a", "do-not-disturb")
        assert "do-not-disturb" in rig.tool("makoctl", "mode").split()
    elif d == "swaync":
        # the session's dconf (a desktop session activates it; nothing does on the test bus)
        _session_service(rig, "/usr/libexec/dconf-service", "ca.desrt.dconf")
        # swaync-client answers the state after the change: DND is on when it says "true"
        answer = rig.tool("swaync-client", "-dn").strip()
        if answer != "true":
            pytest.fail("swaync-client -dn answered %r: Do Not Disturb did not switch on" % answer,
                        pytrace=False)
    elif d == "xfce4-notifyd":
        # the session's xfconfd (a desktop session activates it; nothing does on the test bus)
        _session_service(rig, "/usr/lib/x86_64-linux-gnu/xfce4/xfconf/xfconfd", "org.xfce.Xfconf")
        rig.tool("xfconf-query", "-c", "xfce4-notifyd", "-p", "/do-not-disturb", "-n", "-t", "bool", "-s", "true")


def _session_service(rig, executable, name):
    """Starts a service of the desktop session on the test's session bus and waits until it owns
    its name."""
    if not os.access(executable, os.X_OK):
        pytest.skip("%s not installed" % executable)
    proc = rig.procs.spawn([executable], env=rig.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait_for_name(rig.bridge.bus.conn, name, 10, proc):
        pytest.fail("%s did not own %s on the session bus" % (executable, name))


_relay = []


def bridge_relays_session_services():
    """Whether this build relays the session's services (dconf, xfconf, …) to the daemon's
    private bus: its configuration then knows `[downstream] session-names`."""
    if not _relay:
        with tempfile.TemporaryDirectory() as folder:
            probe = Path(folder) / "config.toml"
            probe.write_text("[downstream]\nsession-names = []\n")
            r = subprocess.run([FOCUSCTL_BIN, "check-config", str(probe)], capture_output=True, text=True,
                               timeout=30, env=dict(os.environ, XDG_CONFIG_HOME=folder))
            _relay.append(r.returncode == 0)
    return _relay[0]


def _dnd_off(rig):
    d = rig.daemon.id
    if d == "dunst":
        rig.tool("dunstctl", "set-paused", "false")
    elif d == "mako":
        rig.tool("makoctl", "mode", "-r", "do-not-disturb")
    elif d == "swaync":
        assert rig.tool("swaync-client", "-df").strip() == "false"
    elif d == "xfce4-notifyd":
        rig.tool("xfconf-query", "-c", "xfce4-notifyd", "-p", "/do-not-disturb", "-s", "false")


def _stays(screen, base, seconds):
    """The screen stays `base` for `seconds` (a bounded wait for something that must not come)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        shot = screen.grab()
        if not shot.identical(base):
            return shot
        pump_for(0.1)
    return None


def test_do_not_disturb(rig, request):
    """The daemon's own Do Not Disturb, switched with its own tool through the bridge, keeps a
    new notification off the screen; switched off, notifications are drawn again."""
    d = rig.daemon
    if d.dnd is None:
        pytest.skip(d.no_dnd)
    if d.dnd_xfail and not bridge_relays_session_services():
        # only "it was drawn" / "did not switch on" (pytest.fail) is expected; a tool that
        # fails is a real failure
        request.applymarker(pytest.mark.xfail(reason=d.dnd_xfail, strict=True, raises=pytest.fail.Exception))
    _dnd_on(rig)
    rig.notify("Interop: during DND", "must not pop up")
    if rig.count() is not None:
        # the daemon has it (its own count says so): DND, not a lost message, keeps it away
        wait_until(lambda: rig.count() == 1, 10, message="%s never got the notification" % d.id)
        drawn = _stays(rig.screen, rig.base, 1.5)
    else:
        # no listing: a critical notification (shown through DND) sent after it is the mark
        # that the daemon has handled the first one
        rig.notify("Interop: critical", "shown through DND", urgency=2)
        shot, _ = rig.screen.wait_popup(rig.base, what="%s drew nothing, not even the critical one" % d.id)
        # the first popup seen may be the first notification, drawn before the critical one:
        # wait until the screen has not changed for a second
        for _ in range(10):
            changed = _stays(rig.screen, shot, 1.0)
            if changed is None:
                break
            shot = changed
        drawn = shot if len(shot.bands(rig.base)) > 1 else None
        rig.screen.keep(shot, "during-dnd")
    if drawn is not None:
        path = rig.screen.keep(drawn, "drawn-during-dnd")
        pytest.fail("%s drew the notification although its DND was switched on (%s; screen %s)" % (
            d.id, d.dnd, path), pytrace=False)
    _dnd_off(rig)
    if d.id == "mako":
        # invisible notifications are drawn once the mode is off
        rig.screen.wait_popup(rig.base, what=lambda: "mako did not draw the held notification after DND (%s)"
                              % rig.describe())
    else:
        if d.id == "dunst":
            # dunst shows what it held back. (It does not always draw it until its next redraw:
            # dunst 1.9.0 under Xvfb, the same without the bridge; the next notification does.)
            wait_until(lambda: rig.tool("dunstctl", "count", "waiting").strip() == "0"
                       and rig.tool("dunstctl", "count", "displayed").strip() == "1", 10,
                       message="dunst did not show the held notification after DND (%s)" % rig.describe())
        before = rig.screen.grab()
        rig.notify("Interop: after DND", "pops up again")
        rig.screen.wait_popup(before, what="%s drew nothing after DND was switched off" % d.id)
