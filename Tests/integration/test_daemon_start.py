"""A daemon command that cannot start is a clear state: tried a few times with
back-off, one log line per attempt, `focusctl status` says why, and then the bridge falls
back: to the next installed daemon in auto mode, to log mode when none is left.

The daemons are stand-ins in a PATH folder that holds nothing else but dbus-daemon (and no
library folders), so what this machine has installed does not count: a `dunst` that exits 1
at once, and a `mako` that is the recording fake daemon.
"""

import json
import shutil
import subprocess

import pytest

from support.processes import FAKE_DAEMON, PYTHON
from support.waiting import wait_until

TEST_TIMEOUT = 60

LIBRARY_VARIABLE = "FOCUS_BRIDGE_DAEMON_LIBRARY_PATH"
ATTEMPTS = 5  # StartAttempts.limit, documented in focus-bridge(1)


@pytest.fixture
def daemons(tmp_path):
    """make(failing=[names], working=[names]) -> (the environment for the bridge, the folder)."""
    folder = tmp_path / "daemons"
    folder.mkdir()
    (folder / "dbus-daemon").symlink_to(shutil.which("dbus-daemon"))

    def make(failing=(), working=()):
        for name in failing:
            exe = folder / name
            exe.write_text("#!/bin/sh\nexit 1\n")
            exe.chmod(0o755)
        for name in working:
            exe = folder / name
            exe.write_text("#!/bin/sh\nexec %s %s --first-id 4000\n" % (PYTHON, FAKE_DAEMON))
            exe.chmod(0o755)
        return {"XDG_CURRENT_DESKTOP": "sway", "PATH": str(folder), LIBRARY_VARIABLE: ""}, folder
    return make


def cannot_start_lines(bridge):
    return [l for l in bridge.stderr().splitlines() if "cannot start" in l]


def bridge_lines_after_start(bridge):
    """The bridge's own log lines after it began serving (the daemons' own output left out)."""
    lines = [l for l in bridge.stderr().splitlines() if " focus-bridge: " in l]
    start = next(i for i, l in enumerate(lines) if "serving org.freedesktop.Notifications" in l)
    return lines[start + 1:]


# Owns the name on its bus, then exits before it answers anything: what mako does without a
# Wayland display. libdbus (dbus-python), like mako's sd-bus, answers nothing while no main
# loop runs; GDBus would answer from its worker thread.
OWNS_THE_NAME_THEN_EXITS = """#!%s
import sys
import dbus
bus = dbus.SessionBus()
bus.request_name("org.freedesktop.Notifications", dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
print("failed to create display", file=sys.stderr)
sys.exit(1)
""" % PYTHON


def test_a_daemon_that_cannot_start_falls_back_to_log_mode(bridge_factory, daemons, make_client, focusctl):
    env, folder = daemons(failing=["dunst"])
    dunst = str(folder / "dunst")
    bridge = bridge_factory(mode=None, extra_env=env)
    client = make_client()
    nid = client.notify("while dunst cannot start")

    # While it is retried: spawn mode, not connected, and the reason in the status.
    wait_until(lambda: client.status()["downstream"]["problem"] is not None, 10,
               message="the status never told why the daemon is not there")
    # Then the log: the notification that waited is printed there.
    line = bridge.out.wait_for(lambda l: l.startswith("notify id=%d " % nid), 20)
    assert line and '"while dunst cannot start"' in line, bridge.stderr_tail()

    # It waited for a daemon, then only the log printed it: history does not say delivered.
    wait_until(lambda: [r for r in client.history(0, "") if r["id"] == nid and r["fate"] == "logged"], 5,
               message="history never said notification %d was only logged" % nid)

    status = client.status()["downstream"]
    assert status["mode"] == "log" and status["connected"] is True, status
    assert status["problem"] == ("cannot start %s: it exited with status 1 before it served notifications "
                                 "(%d attempts); fell back to log mode" % (dunst, ATTEMPTS)), status

    # One log line per attempt, no more: the bridge does not retry the command forever.
    lines = cannot_start_lines(bridge)
    assert len(lines) == ATTEMPTS, "\n".join(lines)
    assert all(dunst in l for l in lines)
    assert "attempt 1 of %d" % ATTEMPTS in lines[0] and "fell back to log mode" in lines[-1]

    # focusctl shows it to people and to programs (man focusctl(1), JSON OUTPUT).
    r = focusctl("status")
    assert r.returncode == 0 and "cannot start %s" % dunst in r.stdout, r.stdout + r.stderr
    r = focusctl("status", "--json")
    assert json.loads(r.stdout)["downstream"]["problem"] == status["problem"]


def test_auto_mode_falls_back_to_the_next_installed_daemon(bridge_factory, daemons, make_client):
    env, folder = daemons(failing=["dunst"], working=["mako"])
    bridge = bridge_factory(mode=None, extra_env=env)
    # mako (the fake daemon) says READY on its standard output, which is the bridge's.
    assert bridge.out.wait_for(lambda l: l.startswith("READY "), 20), bridge.stderr_tail()
    client = make_client()
    wait_until(lambda: client.status()["downstream"]["connected"], 10, message="mako never connected")
    status = client.status()["downstream"]
    assert status["mode"] == "spawn" and status["target"] == str(folder / "mako"), status
    assert status["problem"].startswith("cannot start %s: " % (folder / "dunst")), status
    assert status["problem"].endswith("; runs mako instead"), status
    lines = cannot_start_lines(bridge)
    assert len(lines) == ATTEMPTS and "trying %s instead" % (folder / "mako") in lines[-1], "\n".join(lines)


def test_a_command_that_cannot_be_run_is_said_so(bridge_factory, daemons, make_client, tmp_path):
    """A configured command whose program does not exist: the reason is the system's, and
    a configured command falls back to the log at once (no other daemon is tried)."""
    env, _ = daemons(working=["dunst"])
    missing = str(tmp_path / "no-such-daemon")
    bridge = bridge_factory(mode="spawn", command=[missing, "--flag"], extra_env=env)
    client = make_client()
    wait_until(lambda: client.status()["downstream"]["mode"] == "log", 20,
               message="never fell back to log mode:\n" + bridge.stderr_tail())
    problem = client.status()["downstream"]["problem"]
    assert problem.startswith("cannot start %s --flag: " % missing) and "No such file" in problem, problem
    assert len(cannot_start_lines(bridge)) == ATTEMPTS
    assert not [l for l in bridge.out.lines if l.startswith("READY ")], "the installed dunst was run"


def test_a_daemon_that_owns_the_name_and_exits_cannot_start_either(bridge_factory, daemons, make_client):
    """Owning the name is not starting: mako owns it before it finds no Wayland display and
    exits. The daemon must answer on its bus to count as started; one log line per attempt."""
    env, folder = daemons()
    exe = folder / "mako"
    exe.write_text(OWNS_THE_NAME_THEN_EXITS)
    exe.chmod(0o755)
    bridge = bridge_factory(mode=None, extra_env=env)
    client = make_client()
    wait_until(lambda: client.status()["downstream"]["mode"] == "log", 20,
               message="never fell back to log mode:\n" + bridge.stderr_tail())
    assert client.status()["downstream"]["problem"].startswith("cannot start %s: it exited with status 1" % exe)
    lines = bridge_lines_after_start(bridge)
    assert len(lines) == ATTEMPTS and all("cannot start" in l for l in lines), "\n".join(lines)
    assert bridge.stderr().count("failed to create display") == ATTEMPTS, "the daemon's own words stay in the log"


@pytest.mark.parametrize("display", [None, ":99"], ids=["no-display", "display"])
def test_every_command_that_cannot_start_is_kept_first_first_with_the_likely_cause(
        bridge_factory, daemons, make_client, focusctl, display):
    """Without a display no daemon can start: status keeps every command given up on, the
    first (dunst, the one that mattered) first, and names the likely cause; with a display set
    the cause is not claimed."""
    env, folder = daemons(failing=["dunst", "mako"])
    env["INVOCATION_ID"] = ""  # not started by a systemd unit
    bridge = bridge_factory(mode=None, display=display, extra_env=env)
    client = make_client()
    wait_until(lambda: client.status()["downstream"]["mode"] == "log", 30,
               message="never fell back to log mode:\n" + bridge.stderr_tail())
    down = client.status()["downstream"]
    dunst, mako = str(folder / "dunst"), str(folder / "mako")
    reason = "it exited with status 1 before it served notifications"
    assert down["failures"] == [{"command": dunst, "reason": reason, "attempts": ATTEMPTS},
                                {"command": mako, "reason": reason, "attempts": ATTEMPTS}], down
    assert down["problem"] == ("cannot start %s: %s (%d attempts); cannot start %s: %s (%d attempts); "
                               "fell back to log mode" % (dunst, reason, ATTEMPTS, mako, reason, ATTEMPTS)), down
    r = focusctl("status")
    assert r.returncode == 0 and "cannot start %s" % dunst in r.stdout, r.stdout + r.stderr
    if display is None:
        assert down["cause"].startswith("neither DISPLAY nor WAYLAND_DISPLAY is set"), down
        assert "exec focus-bridge" in down["cause"], down
        assert "Likely cause  neither DISPLAY" in r.stdout, r.stdout
    else:
        assert down["cause"] is None, down
        assert "Likely cause" not in r.stdout, r.stdout
    # One log line per attempt still, the last one saying what happened and why likely.
    lines = cannot_start_lines(bridge)
    assert len(lines) == 2 * ATTEMPTS and "fell back to log mode" in lines[-1], "\n".join(lines)
    assert ("likely cause: neither DISPLAY" in lines[-1]) == (display is None), lines[-1]
