"""The window in front: a real headless sway with a real `foot` window (sway's IPC),
and a real X11 window manager (openbox) under Xvfb with a real `xterm` (EWMH properties):
`focusctl status` names the window; a notification from the app in front is not shown
(`foreground`, its ID ends with reason 1); `while-fullscreen` turns a Focus on when the window
manager makes the window fullscreen, and off again after the grace period."""

import os
import pwd
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from support.displays import SwaySession
from support.focusctl import fc_json, history_of, status
from support.waiting import wait_until

TEST_TIMEOUT = 60

CONFIG = """
[focus.video]
while-fullscreen = true
"""


def windows(focusctl):
    return status(focusctl)["windows"]


def check_foreground_and_fullscreen(focusctl, client, fake_daemon, app, fullscreen, unfullscreen):
    """The shared half: the focused app's notifications are hidden; fullscreen turns video on."""
    nid = client.notify("from the app in front", "", app=app)
    closed = client.wait_signal("NotificationClosed", nid)
    assert closed.args[1] == 1, "a notification from the app in front ends as expired"
    row = history_of(focusctl, nid)
    assert row["decision"] == "foreground", row
    client.notify("from elsewhere", "", app="Mail")
    fake_daemon.wait_notify("from elsewhere")
    assert "from the app in front" not in [n["summary"] for n in fake_daemon.notifies()]
    explained = fc_json(focusctl, "explain", "--json", "--app", app)
    assert explained["decision"] == "foreground", explained["trace"]

    fullscreen()
    wait_until(lambda: (status(focusctl)["focus"] or {}).get("name") == "video", 10,
               message="while-fullscreen did not turn the Focus on: %r" % windows(focusctl))
    focus = status(focusctl)["focus"]
    assert focus["source"] == "window" and focus["reason"].endswith("is fullscreen"), focus
    assert "video is on (while " in fc_ok_text(focusctl, "status")
    nid = client.notify("held while fullscreen", "", app="Mail")
    assert history_of(focusctl, nid)["decision"] == "held-focus"
    unfullscreen()
    wait_until(lambda: status(focusctl)["focus"] is None, 15,
               message="the Focus stayed on after the fullscreen window went (grace is 5 s)")


def fc_ok_text(focusctl, *args):
    r = focusctl(*args)
    assert r.returncode == 0, r.stderr
    return r.stdout


# --------------------------------------------------------------------------- sway
@pytest.fixture
def sway(tmp_path):
    if not shutil.which("sway") or not shutil.which("foot"):
        pytest.skip("sway or foot not installed")
    folder = tempfile.mkdtemp(prefix="focus-bridge-sway-")  # nobody must reach it (tmp_path is root's)
    session = SwaySession(folder)
    yield session
    session.stop()
    shutil.rmtree(folder, ignore_errors=True)


def test_sway_the_window_in_front(sway, focus_bridge, config, client, fake_daemon, focusctl, procs, tmp_path):
    ipc = wait_until(lambda: sorted(sway.runtime.glob("sway-ipc.*.sock")), 10, message="sway made no IPC socket")[0]
    config(CONFIG)
    focus_bridge(extra_env={"SWAYSOCK": str(ipc)})
    assert windows(focusctl)["source"] == "sway"

    env = {"PATH": "/usr/bin:/bin", "HOME": str(sway.home), "XDG_RUNTIME_DIR": str(sway.runtime),
           "WAYLAND_DISPLAY": str(sway.socket)}
    argv = ["foot", "--app-id", "org.example.Terminal", "sh", "-c", "sleep 120"]
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        argv = ["setpriv", "--reuid=%d" % nobody.pw_uid, "--regid=%d" % nobody.pw_gid, "--clear-groups", "--"] + argv
    procs.spawn(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: windows(focusctl)["focused"] == "org.example.Terminal", 15,
               message="sway's focused window never reached the bridge: %r" % windows(focusctl))

    def swaymsg(*command):
        r = subprocess.run(["swaymsg", "-s", str(ipc), *command], capture_output=True, text=True, timeout=10)
        assert r.returncode == 0, r.stdout + r.stderr

    check_foreground_and_fullscreen(focusctl, client, fake_daemon, "org.example.Terminal.desktop",
                                    lambda: swaymsg("fullscreen", "enable"), lambda: swaymsg("fullscreen", "disable"))


# --------------------------------------------------------------------------- X11
@pytest.fixture
def x11(tmp_path, procs):
    """A display of its own (openbox changes the root window's properties), openbox on it."""
    for tool in ("Xvfb", "openbox", "xterm", "wmctrl"):
        if not shutil.which(tool):
            pytest.skip("%s not installed" % tool)
    rfd, wfd = os.pipe()
    xvfb = procs.spawn(["Xvfb", "-displayfd", str(wfd), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
                       pass_fds=(wfd,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=open(tmp_path / "xvfb.log", "ab"))
    os.close(wfd)
    # Xvfb writes the number, then a newline: read to it (closing early kills Xvfb with EPIPE).
    buf = b""
    deadline = time.monotonic() + 15
    while b"\n" not in buf and time.monotonic() < deadline:
        ready, _, _ = select.select([rfd], [], [], max(0.0, deadline - time.monotonic()))
        chunk = os.read(rfd, 64) if ready else b""
        if not chunk:
            break
        buf += chunk
    os.close(rfd)
    number = buf.decode().strip()
    if not number:
        pytest.skip("Xvfb did not start")
    display = ":" + number
    env = dict(os.environ, DISPLAY=display)
    procs.spawn(["openbox", "--sm-disable"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=open(tmp_path / "openbox.log", "ab"))
    last = []

    def managed():
        r = subprocess.run(["wmctrl", "-m"], env=env, capture_output=True, text=True, timeout=5)
        last[:] = [r.stderr]
        return r.returncode == 0
    wait_until(managed, 10, message="openbox did not start (display %s)" % display)
    return display, env


def test_x11_the_window_in_front(x11, focus_bridge, config, client, fake_daemon, focusctl, procs):
    display, env = x11
    config(CONFIG)
    focus_bridge(display=display)
    assert windows(focusctl)["source"] == "x11"
    procs.spawn(["xterm", "-class", "XTermTest", "-e", "sleep", "120"], env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: windows(focusctl)["focused"] == "xterm", 15,
               message="the X11 window in front never reached the bridge: %r" % windows(focusctl))

    def wmctrl(action):
        r = subprocess.run(["wmctrl", "-r", ":ACTIVE:", "-b", action + ",fullscreen"], env=env, capture_output=True,
                           text=True, timeout=10)
        assert r.returncode == 0, r.stderr

    check_foreground_and_fullscreen(focusctl, client, fake_daemon, "XTermTest",
                                    lambda: wmctrl("add"), lambda: wmctrl("remove"))


def test_without_a_window_system_it_says_so(bridge, focusctl):
    w = windows(focusctl)
    assert w["source"] == "off" and "no window system" in w["problem"], w
    assert any(line.startswith("Window") and "not known: no window system" in line
               for line in fc_ok_text(focusctl, "status").splitlines())


def test_sway_while_focused_and_a_manual_change(sway, focus_bridge, config, client, fake_daemon, focusctl, procs):
    ipc = wait_until(lambda: sorted(sway.runtime.glob("sway-ipc.*.sock")), 10, message="sway made no IPC socket")[0]
    config("""
        [focus.calls]
        while-focused = ["org.example.Call"]
        """)
    focus_bridge(extra_env={"SWAYSOCK": str(ipc)})
    env = {"PATH": "/usr/bin:/bin", "HOME": str(sway.home), "XDG_RUNTIME_DIR": str(sway.runtime),
           "WAYLAND_DISPLAY": str(sway.socket)}
    argv = ["foot", "--app-id", "org.example.Call", "sh", "-c", "sleep 120"]
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        argv = ["setpriv", "--reuid=%d" % nobody.pw_uid, "--regid=%d" % nobody.pw_gid, "--clear-groups", "--"] + argv
    call = procs.spawn(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: (status(focusctl)["focus"] or {}).get("name") == "calls", 15,
               message="while-focused did not turn the Focus on")
    assert status(focusctl)["focus"]["reason"] == "while org.example.Call is focused"
    # A manual change wins until the windows' condition changes.
    fc_ok_text(focusctl, "focus", "off")
    assert status(focusctl)["focus"] is None
    nid = client.notify("during the call", "", app="Mail")
    fake_daemon.wait_notify("during the call")
    assert history_of(focusctl, nid)["decision"] == "delivered"
    call.kill()
    wait_until(lambda: windows(focusctl)["focused"] is None, 10, message="the closed window stayed in front")
    assert status(focusctl)["focus"] is None
