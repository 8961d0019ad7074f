"""`auto` mode decides right, and says why: `focus-bridge --print-downstream` under
controlled environments (XDG_CURRENT_DESKTOP, PATH, who is on the private session bus),
and the real start-up where it matters (GNOME behind the bridge; a standalone daemon
already owning the name).

A "standalone daemon" owning org.freedesktop.Notifications is recognised by its
executable's name, as the bridge reads it from /proc: the fake daemon is run by a copy
of Debian's python named after the daemon (mako, gjs-console), and, where dunst and
Xvfb are installed, real dunst is used too.
"""

import glob
import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from gi.repository import Gio, GLib

from support.buses import connect, wait_for_name
from support.names import NOTIF_NAME
from support.processes import BRIDGE_BIN, FAKE_DAEMON, PYTHON, LineReader, require_binary, session_env
from support.waiting import wait_until

TEST_TIMEOUT = 60

# Where auto mode looks for daemons outside PATH (focus-bridge(1), ENVIRONMENT).
LIBRARY_VARIABLE = "FOCUS_BRIDGE_DAEMON_LIBRARY_PATH"
KNOWN_DAEMONS = "dunst, mako, swaync, xfce4-notifyd, notification-daemon, lxqt-notificationd"


@pytest.fixture
def fake_path(tmp_path):
    """make(*names) -> a PATH folder holding executables with those names (never run)."""
    def make(*names):
        folder = tmp_path / ("path-%s" % "-".join(names) if names else "path-empty")
        folder.mkdir(exist_ok=True)
        for name in names:
            exe = folder / name
            exe.write_text("#!/bin/sh\necho 'a stand-in, not to be run' >&2\nexit 1\n")
            exe.chmod(0o755)
        return str(folder)
    return make


def print_downstream(bus, tmp_path, *args, desktop=None, path=None, library=""):
    """Runs `focus-bridge --print-downstream ARGS` on `bus` with an empty config folder;
    returns (exit status, stdout lines, stderr lines). The daemons' library folders are
    `library` (default: none, so what the machine has installed there does not count;
    None: the standard folders)."""
    require_binary(BRIDGE_BIN, "focus-bridge")
    config_home = tmp_path / "print-config"
    config_home.mkdir(exist_ok=True)
    extra = {"XDG_CONFIG_HOME": config_home, "XDG_STATE_HOME": tmp_path / "print-state"}
    if library is not None:
        extra[LIBRARY_VARIABLE] = library
    if desktop is not None:
        extra["XDG_CURRENT_DESKTOP"] = desktop
    if path is not None:
        extra["PATH"] = path
    env = session_env(bus.address, **extra)
    r = subprocess.run([BRIDGE_BIN, "--print-downstream", *args], env=env, capture_output=True, text=True,
                       timeout=20, stdin=subprocess.DEVNULL)
    return r.returncode, r.stdout.splitlines(), r.stderr.splitlines()


class Impostor:
    """The fake daemon (fake_daemon.py) run by a copy of python named `name`, owning `bus_name`
    on `bus`: to the bridge it looks like the program `name`."""

    def __init__(self, name, bus, procs, tmp_path, bus_name=NOTIF_NAME, allow_replacement=False):
        folder = tmp_path / "impostors"
        folder.mkdir(exist_ok=True)
        exe = folder / name
        if not exe.exists():
            shutil.copy2(os.path.realpath(PYTHON), exe)
        argv = [str(exe), FAKE_DAEMON, "--address", bus.address, "--name", bus_name]
        if allow_replacement:
            argv.append("--allow-replacement")
        self.log = tmp_path / ("impostor-%s.log" % name)
        self.proc = procs.spawn(argv, stdout=subprocess.PIPE, stderr=open(self.log, "ab"))
        self.out = LineReader(self.proc.stdout)
        line = self.out.wait_for(lambda l: l.startswith(("READY", "NAME-TAKEN")), 15)
        if not line or not line.startswith("READY"):
            raise RuntimeError("impostor %s did not start (%r): %s" % (name, line, self.log.read_text()))
        self.unique_name = line.split()[1]
        self.pid = self.proc.pid


def one_sentence(lines):
    """The single 'focus-bridge: ...' line of stderr."""
    sentences = [l for l in lines if l.startswith("focus-bridge: ")]
    assert len(sentences) == 1, "expected one sentence, got %r" % lines
    return sentences[0]


# --------------------------------------------------------------------------- GNOME
def test_gnome_session_with_gnome_shell_forwards_to_it(bus, fake_daemon_factory, fake_path, tmp_path):
    fake_daemon_factory(bus=bus, name="org.gnome.Shell")
    code, out, err = print_downstream(bus, tmp_path, desktop="ubuntu:GNOME", path=fake_path("dunst"))
    assert code == 0, err
    assert err == []
    assert len(out) == 1 and out[0].startswith("name: org.gnome.Shell ("), out
    assert "GNOME" in out[0] and "org.gnome.Shell" in out[0]


def test_a_gnome_session_waits_for_gnome_shell_rather_than_run_dunst(bus, fake_path, tmp_path):
    """The bridge starts before the shell (the only order that works, test_gnome.py): auto
    forwards to org.gnome.Shell once it is there, and runs no other daemon meanwhile."""
    path = fake_path("dunst")
    code, out, err = print_downstream(bus, tmp_path, desktop="GNOME", path=path)
    assert code == 0, err
    assert out == [out[0]] and out[0].startswith("name: org.gnome.Shell ("), out
    assert "once it is on the session bus" in out[0]
    code, out, err = print_downstream(bus, tmp_path, desktop="KDE", path=path)
    assert code == 0 and out[0].startswith("name: org.kde.plasmashell ("), (out, err)


def test_gnome_shell_without_a_gnome_session_is_not_used(bus, fake_daemon_factory, fake_path, tmp_path):
    fake_daemon_factory(bus=bus, name="org.gnome.Shell")
    path = fake_path("mako")
    code, out, _ = print_downstream(bus, tmp_path, desktop="sway", path=path)
    assert code == 0
    assert out[0].startswith("spawn: %s/mako (" % path) and "XDG_CURRENT_DESKTOP=sway" in out[0], out


def test_gnome_behind_the_bridge_with_replace(bus, fake_daemon_factory, bridge_factory, procs, tmp_path,
                                              fake_path, make_client):
    """GNOME 43's front service never allows replacement (test_gnome.py): focus-bridge says to
    start before the shell. Were a front service to allow it, --replace would take the name and
    notifications would go to org.gnome.Shell."""
    shell = fake_daemon_factory(bus=bus, name="org.gnome.Shell")
    front = Impostor("gjs-console", bus, procs, tmp_path, allow_replacement=True)
    env = dict(desktop="GNOME:GNOME-Classic", path=fake_path("dunst"))

    code, out, err = print_downstream(bus, tmp_path, **env)
    assert code == 1 and out[0].startswith("name: org.gnome.Shell ("), (out, err)
    sentence = one_sentence(err)
    assert "GNOME Shell" in sentence and "PID %d" % front.pid in sentence and "before GNOME Shell starts" in sentence

    bridge = bridge_factory(mode=None, args=["--replace"],
                            extra_env={"XDG_CURRENT_DESKTOP": "GNOME:GNOME-Classic", "PATH": env["path"]})
    assert front.out.wait_for(lambda l: l == "NAME-LOST", 10), "the front service kept the name"
    assert bus.pid_of(NOTIF_NAME) == bridge.pid
    client = make_client()
    nid = client.notify("to the shell", app="gnome-test")
    assert shell.wait_notify("to the shell", timeout=10)["app_name"] == "gnome-test"
    assert nid >= 1
    assert client.status()["downstream"]["mode"] == "name"


# --------------------------------------------------------------------------- installed daemons
def test_first_installed_daemon_is_spawned(bus, fake_path, tmp_path):
    path = fake_path("swaync", "mako")
    code, out, err = print_downstream(bus, tmp_path, desktop="sway", path=path)
    assert code == 0 and err == [], err
    assert out[0].startswith("spawn: %s/mako (" % path), out
    assert "mako is the first installed of " + KNOWN_DAEMONS in out[0]

    path = fake_path("mako", "dunst")
    code, out, _ = print_downstream(bus, tmp_path, desktop="sway", path=path)
    assert out[0].startswith("spawn: %s/dunst (" % path), out


def test_configured_command_wins_over_the_installed_daemons(bus, fake_path, tmp_path):
    cfg = tmp_path / "print-config" / "focus-bridge" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text('[downstream]\ncommand = ["swaync", "--skip-system-css"]\n')
    code, out, _ = print_downstream(bus, tmp_path, desktop="sway", path=fake_path("dunst"))
    assert code == 0
    assert out[0].startswith("spawn: swaync --skip-system-css (") and "the configured command" in out[0], out


def test_nothing_installed_means_log(bus, fake_path, tmp_path):
    code, out, err = print_downstream(bus, tmp_path, desktop="", path=fake_path())
    assert code == 0 and err == [], err
    assert out[0].startswith("log: standard output (") and "none of " + KNOWN_DAEMONS in out[0], out


def test_explicit_mode_is_reported_as_asked(bus, tmp_path):
    code, out, _ = print_downstream(bus, tmp_path, "--downstream", "name", "--downstream-name", "org.example.N")
    assert code == 0 and out == ["name: org.example.N (name mode was asked for)"]
    code, out, err = print_downstream(bus, tmp_path, "--downstream", "address")
    assert code == 1 and out == [] and "needs an address" in one_sentence(err)


# --------------------------------------------------------------------------- a daemon in the way
def test_running_standalone_daemon_gets_one_sentence(bus, procs, tmp_path, fake_path, bridge_factory):
    mako = Impostor("mako", bus, procs, tmp_path)
    path = fake_path("mako")

    code, out, err = print_downstream(bus, tmp_path, desktop="sway", path=path)
    # The plan once mako is stopped is printed all the same; the sentence says what is in the way.
    assert code == 1 and out == ["spawn: %s/mako (auto: not a GNOME or Plasma session (XDG_CURRENT_DESKTOP=sway); "
                                 "mako is the first installed of %s)" % (path, KNOWN_DAEMONS)], (out, err)
    sentence = one_sentence(err)
    assert "org.freedesktop.Notifications is owned by mako (PID %d, %s)" % (mako.pid, mako.unique_name) in sentence
    assert "behind the bridge" in sentence and "focus-bridge(1)" in sentence
    assert sentence.endswith(".") and sentence.count(". ") == 0, "more than one sentence: " + sentence

    # --replace does not help with a daemon that never hands the name over.
    code, _, err = print_downstream(bus, tmp_path, "--replace", desktop="sway", path=path)
    assert code == 1 and "owned by mako" in one_sentence(err)

    # Starting for real: exit 1 with one sentence naming mako and its PID; mako keeps the name.
    # (The real PATH after the stand-in: spawn mode needs dbus-daemon.)
    bridge = bridge_factory(mode=None, wait=False,
                            extra_env={"XDG_CURRENT_DESKTOP": "sway", "PATH": path + ":/usr/bin:/bin"})
    try:
        code = bridge.proc.wait(20)
    except subprocess.TimeoutExpired:
        pytest.fail("focus-bridge kept running although mako owns the name:\n" + bridge.stderr_tail())
    bridge.stopped = True
    assert code == 1
    sentence = one_sentence(bridge.stderr().splitlines())
    assert "mako" in sentence and str(mako.pid) in sentence and "behind" in sentence
    assert mako.proc.poll() is None and bus.owner(NOTIF_NAME) == mako.unique_name


def test_other_owner_is_named_and_replace_is_offered(bus, fake_daemon_factory, tmp_path, fake_path):
    other = fake_daemon_factory("--allow-replacement", bus=bus, name=NOTIF_NAME)
    path = fake_path("dunst")
    code, out, err = print_downstream(bus, tmp_path, desktop="sway", path=path)
    assert code == 1 and out[0].startswith("spawn: %s/dunst (" % path), (out, err)
    sentence = one_sentence(err)
    assert "PID %d, %s" % (other.pid, other.unique_name) in sentence and "--replace" in sentence

    code, out, err = print_downstream(bus, tmp_path, "--replace", desktop="sway", path=path)
    assert code == 0 and "--replace takes it over if it allows replacement" in one_sentence(err)


def test_running_dunst_gets_the_sentence(bus, xvfb, dunstrc, procs, tmp_path):
    env = session_env(bus.address, display=xvfb)
    dunst = procs.spawn(["dunst", "-config", str(dunstrc)], env=env, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
    owner = wait_for_name(bus.conn, NOTIF_NAME, 15, dunst)
    if not owner:
        pytest.skip("dunst did not own the name on the private bus")
    pid = bus.pid_of(NOTIF_NAME)
    code, out, err = print_downstream(bus, tmp_path, desktop="i3", path="/usr/bin:/bin")
    assert code == 1 and len(out) == 1 and out[0].startswith("spawn: /usr/bin/dunst ("), (out, err)
    sentence = one_sentence(err)
    assert "owned by dunst (PID %d, %s)" % (pid, owner) in sentence and "runs dunst itself" in sentence
    dunst.send_signal(signal.SIGTERM)
    dunst.wait(10)


def test_reason_is_logged_at_start(bridge_factory, fake_path, make_client):
    path = fake_path()
    bridge = bridge_factory(mode=None, extra_env={"XDG_CURRENT_DESKTOP": "sway", "PATH": path, LIBRARY_VARIABLE: ""})
    # A reply from the main loop: start-up is over (and its log written).
    assert make_client().status()["downstream"]["mode"] == "log"
    assert re.search(r"downstream: log \(auto: not a GNOME or Plasma session", bridge.stderr()), bridge.stderr_tail()


# --------------------------------------------------------------------------- known daemons
def daemon_script(path, *fake_args):
    """An executable at `path` that runs the recording fake daemon on the bus of
    DBUS_SESSION_BUS_ADDRESS (the bridge's private bus), as a real daemon would."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('#!/bin/sh\nexec %s %s %s\n' % (PYTHON, FAKE_DAEMON, " ".join(fake_args)))
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def bare_path(tmp_path):
    """A PATH folder holding only dbus-daemon (spawn mode needs it), so the daemons installed
    on this machine are not found."""
    folder = tmp_path / "bare-path"
    folder.mkdir()
    (folder / "dbus-daemon").symlink_to(shutil.which("dbus-daemon"))
    return folder


def test_notification_daemon_is_found_in_its_library_folder(bus, bridge_factory, bare_path, tmp_path, make_client):
    """notification-daemon is not on PATH: Debian installs it in
    /usr/lib/notification-daemon/; auto mode finds it there and runs it behind the bridge."""
    library = tmp_path / "lib"
    exe = daemon_script(library / "notification-daemon" / "notification-daemon", "--first-id", "5000")
    code, out, err = print_downstream(bus, tmp_path, desktop="MATE", path=str(bare_path), library=str(library))
    assert code == 0 and err == [], err
    assert out == ["spawn: %s (auto: not a GNOME or Plasma session (XDG_CURRENT_DESKTOP=MATE); notification-daemon is "
                   "the first installed of %s)" % (exe, KNOWN_DAEMONS)], out

    bridge = bridge_factory(mode=None, extra_env={"XDG_CURRENT_DESKTOP": "MATE", "PATH": str(bare_path),
                                                   LIBRARY_VARIABLE: str(library)})
    # The fake daemon says READY on its standard output, which is the bridge's.
    assert bridge.out.wait_for(lambda l: l.startswith("READY "), 15), bridge.stderr_tail()
    client = make_client()
    wait_until(lambda: client.status()["downstream"]["connected"], 10, message="never connected")
    status = client.status()["downstream"]
    assert status["mode"] == "spawn" and status["target"] == exe and status["problem"] is None, status


NOTIFICATION_DAEMON = "/usr/lib/notification-daemon/notification-daemon"


def test_the_standard_library_folders_hold_the_installed_daemons(bus, fake_path, tmp_path):
    """With nothing on PATH, the real library folders: xfce4-notifyd in the multiarch folder,
    else notification-daemon in /usr/lib (whichever Debian packages are installed)."""
    found = sorted(glob.glob("/usr/lib/*-linux-*/xfce4/notifyd/xfce4-notifyd"))
    if os.access(NOTIFICATION_DAEMON, os.X_OK):
        found.append(NOTIFICATION_DAEMON)
    if not found:
        pytest.skip("neither xfce4-notifyd nor notification-daemon is installed")
    code, out, _ = print_downstream(bus, tmp_path, desktop="MATE", path=fake_path(), library=None)
    assert code == 0 and out[0].startswith("spawn: %s (" % found[0]), out


def test_replace_runs_the_real_notification_daemon_behind_the_bridge(bus, xvfb, procs, bridge_factory, bare_path,
                                                                     tmp_path, make_client):
    """notification-daemon, started as D-Bus activation starts it, owns the name and allows
    replacement: --replace takes it, and the same notification-daemon runs behind the bridge."""
    if not os.access(NOTIFICATION_DAEMON, os.X_OK):
        pytest.skip("notification-daemon is not installed")
    old = procs.spawn([NOTIFICATION_DAEMON], env=session_env(bus.address, display=xvfb), stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL)
    if not wait_for_name(bus.conn, NOTIF_NAME, 15, old):
        pytest.skip("notification-daemon did not own the name on the private bus")
    code, out, err = print_downstream(bus, tmp_path, desktop="MATE", path=str(bare_path))
    assert code == 1 and "--replace" in one_sentence(err), err

    bridge = bridge_factory(mode=None, args=["--replace"], display=xvfb,
                            extra_env={"XDG_CURRENT_DESKTOP": "MATE", "PATH": str(bare_path), LIBRARY_VARIABLE: ""})
    old.wait(10)  # it exits when it loses the name
    client = make_client()
    wait_until(lambda: client.status()["downstream"]["connected"], 15,
               message="notification-daemon never served behind the bridge:\n" + bridge.stderr_tail())
    assert client.status()["downstream"]["target"] == NOTIFICATION_DAEMON
    assert "action-icons" in client.capabilities(), "not notification-daemon's capabilities"
    log = bridge.stderr()
    assert re.search(r"--replace took org\.freedesktop\.Notifications from notification-daemon \(PID %d, "
                     r"[^)]*\); running it behind the bridge: %s$" % (old.pid, NOTIFICATION_DAEMON), log, re.M), log


def test_swaync_control_name_is_passed_through_without_configuration(bus, bridge_factory, bare_path, make_client):
    """swaync-client talks to org.erikreider.swaync.cc: auto mode owns it and passes it through.
    The stand-in swaync runs two fake daemons on the private bus: one as the notification
    daemon, one owning swaync's control name."""
    script = bare_path / "swaync"
    script.write_text("#!/bin/sh\n"
                      "trap 'kill $A $B; exit 0' TERM INT\n"
                      "%(py)s %(fake)s --name org.erikreider.swaync.cc --first-id 6500 & A=$!\n"
                      "%(py)s %(fake)s --first-id 6000 & B=$!\n"
                      "wait\n" % {"py": PYTHON, "fake": FAKE_DAEMON})
    script.chmod(0o755)
    bridge = bridge_factory(mode=None, extra_env={"XDG_CURRENT_DESKTOP": "sway", "PATH": str(bare_path),
                                                   LIBRARY_VARIABLE: ""})
    # Owned right after the bridge's own names.
    assert wait_for_name(bus.conn, "org.erikreider.swaync.cc", 10, bridge.proc) == bridge.unique_name
    assert make_client().status()["downstream"]["target"] == str(script)
    # Both fakes say READY on the bridge's standard output once they own their names.
    assert bridge.out.wait_for(lambda l: l.startswith("READY "), 15)
    assert bridge.out.wait_for(lambda l: l.startswith("READY "), 15)
    reply = bus.conn.call_sync("org.erikreider.swaync.cc", "/org/freedesktop/Notifications", "org.dunstproject.cmd0",
                               "Echo", GLib.Variant("(s)", ("swaync-client -c",)), GLib.VariantType("(s)"),
                               Gio.DBusCallFlags.NONE, 5000, None)
    assert "swaync-client -c" in reply.unpack()[0]


# --------------------------------------------------------------------------- --replace
def test_replace_runs_the_evicted_daemon_behind_the_bridge(bus, procs, bridge_factory, bare_path, tmp_path,
                                                           make_client):
    """An owner that allows replacement (notification-daemon does) is what the user had:
    --replace reads its command line before it goes, runs the same command on the private
    bus, and says so in one line."""
    argv = [PYTHON, FAKE_DAEMON, "--allow-replacement", "--first-id", "7000"]
    old = procs.spawn(argv, env=session_env(bus.address), stdout=subprocess.PIPE,
                      stderr=open(tmp_path / "evicted.log", "ab"))
    old_out = LineReader(old.stdout)
    assert old_out.wait_for(lambda l: l.startswith("READY "), 15)
    env = {"XDG_CURRENT_DESKTOP": "sway", "PATH": str(bare_path), LIBRARY_VARIABLE: ""}

    code, out, err = print_downstream(bus, tmp_path, "--replace", desktop="sway", path=str(bare_path))
    assert code == 0 and len(out) == 1, (out, err)
    assert out[0].startswith("spawn: %s (" % " ".join(argv)), out
    assert "--replace takes org.freedesktop.Notifications from" in out[0] and "PID %d" % old.pid in out[0]
    assert "runs the same command behind the bridge" in one_sentence(err)

    bridge = bridge_factory(mode=None, args=["--replace"], extra_env=env)
    assert old_out.wait_for(lambda l: l == "NAME-LOST", 10), "the old owner kept the name"
    ready = bridge.out.wait_for(lambda l: l.startswith("READY "), 15)
    assert ready, "the evicted command was not run behind the bridge:\n" + bridge.stderr_tail()
    lines = [l for l in bridge.stderr().splitlines() if "--replace took" in l]
    assert len(lines) == 1, bridge.stderr_tail()
    assert "PID %d" % old.pid in lines[0] and "running it behind the bridge: " + " ".join(argv) in lines[0]

    # Notifications reach the same daemon, now on the bridge's private bus.
    address = re.search(r"private bus for the daemon at (\S+)", bridge.stderr()).group(1)
    client = make_client()
    wait_until(lambda: client.status()["downstream"]["connected"], 10, message="never connected")
    client.notify("behind the bridge")
    private = connect(address)
    unique = ready.split()[1]

    def recorded():
        reply = private.call_sync(unique, "/org/focusbridge/Test", "org.focusbridge.Test.FakeDaemon", "GetCalls",
                                  None, GLib.VariantType("(s)"), Gio.DBusCallFlags.NONE, 5000, None)
        return [c for c in json.loads(reply.unpack()[0]) if c["method"] == "Notify"]
    wait_until(lambda: [c for c in recorded() if c["summary"] == "behind the bridge"], 10,
               message="the notification did not reach the daemon behind the bridge")
    private.close_sync(None)
