"""A real daemon: dunst 1.9 under Xvfb, spawned and supervised by the bridge
(`--downstream spawn -- dunst -config FILE`). dunstctl talks to the bridge's bus name,
i.e. through passthrough."""

import os
import signal
import subprocess


from support.bridge import wait_connected
from support.waiting import wait_until

TEST_TIMEOUT = 30


def dunst_pids(dunstrc):
    """PIDs of dunst processes started with our (unique) config path; the bridge's own
    command line contains the path too, so match on the executable."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                argv = f.read().split(b"\0")
            with open("/proc/%s/comm" % entry) as f:
                comm = f.read().strip()
        except OSError:
            continue
        if comm == "dunst" and str(dunstrc).encode() in argv:
            pids.append(int(entry))
    return pids


def alive(pid):
    """Running (a zombie waiting for a reaper counts as gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def children_of(pid):
    kids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(entry))
    return kids


def wait_displayed(d, n=1):
    wait_until(lambda: d.displayed() >= n, 10, message="dunst never displayed %d notification(s)" % n)


def history_summaries(d):
    return [h["summary"] for h in d.history()]


def test_notification_through_the_bridge_reaches_dunst(dunst):
    c = dunst.client
    assert "body-markup" in c.capabilities(), "capabilities are not dunst's: %r" % c.capabilities()
    bid = c.notify("Hello dunst", "through the bridge", app="DunstTest")
    wait_displayed(dunst)
    dunst.ctl("close-all")
    hist = wait_until(lambda: [h for h in dunst.history() if h["summary"] == "Hello dunst"], 10,
                      message="not in dunstctl history")
    assert hist[0]["body"] == "through the bridge" and hist[0]["appname"] == "DunstTest"
    # dunst tells only its caller (the bridge); the bridge must tell the app
    assert c.wait_signal("NotificationClosed", bid, timeout=10).args[0] == bid


def test_apps_and_dunstctl_see_dunst_not_the_bridge(dunst):
    name, vendor, version, spec = dunst.client.server_information()
    assert (name, vendor) == ("dunst", "knopwob"), (name, vendor)
    r = subprocess.run(["dunst", "-v"], capture_output=True, text=True, timeout=10)
    assert version in r.stdout + r.stderr, "GetServerInformation's version %r is not dunst's: %r" % (version, r.stdout)
    # dunstctl debug reads the server information from the name the bridge owns
    assert "dunst" in dunst.ctl("debug") and "FocusBridge" not in dunst.ctl("debug")


def test_dunst_paused_with_dunstctl_shows_in_status(dunst):
    c = dunst.client
    wait_until(lambda: c.status()["downstream"]["daemon-dnd"] is not None, 10,
               message="the bridge never read dunst's pause")
    assert c.status()["downstream"]["daemon-dnd"]["on"] is False
    dunst.ctl("set-paused", "true")
    wait_until(lambda: c.status()["downstream"]["daemon-dnd"]["on"], 10, message="status never showed dunst paused")
    dunst.ctl("set-paused", "false")
    wait_until(lambda: c.status()["downstream"]["daemon-dnd"]["on"] is False, 10,
               message="status kept dunst paused")


def test_dunstctl_action_invokes_the_default_action(dunst, procs):
    p = procs.spawn(["notify-send", "-A", "default=Open", "--wait", "Click me"], env=dunst.env,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_displayed(dunst)
    dunst.ctl("action", "0")
    out, err = p.communicate(timeout=10)
    assert out.strip() == "default", (out, err)
    assert p.returncode == 0, err


def test_dunst_killed_is_restarted_and_used(dunst):
    c = dunst.client
    pids = dunst_pids(dunst.rc)
    assert len(pids) == 1, "expected one dunst, found %r" % pids
    bid = c.notify("before the crash")
    wait_displayed(dunst)
    os.kill(pids[0], signal.SIGKILL)
    assert c.wait_signal("NotificationClosed", bid, timeout=10).args == (bid, 4)
    new = wait_until(lambda: [p for p in dunst_pids(dunst.rc) if p != pids[0]], 15,
                     message="dunst was not restarted after kill -9")
    assert len(new) == 1
    wait_connected(c, 15)
    c.notify("after the restart", app="Survivor")
    wait_displayed(dunst)
    dunst.ctl("close-all")
    wait_until(lambda: "after the restart" in history_summaries(dunst), 10,
               message="the notification after the restart never reached the new dunst")


def test_sigterm_stops_dunst_and_its_private_bus(dunst):
    kids = children_of(dunst.bridge.pid)
    assert dunst_pids(dunst.rc), "dunst not running"
    assert any(open("/proc/%d/comm" % k).read().strip() == "dbus-daemon" for k in kids
               if os.path.exists("/proc/%d/comm" % k)), "no private dbus-daemon among %r" % kids
    assert dunst.bridge.stop() == 0
    wait_until(lambda: not dunst_pids(dunst.rc), 5, message="dunst outlived the bridge")
    wait_until(lambda: not [k for k in kids if alive(k)], 5,
               message="children of the bridge outlived it: %r" % kids)
