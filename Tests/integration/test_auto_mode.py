"""`auto` mode decides right, and says why: `focus-bridge --print-downstream` under
controlled environments (XDG_CURRENT_DESKTOP, PATH, who is on the private session bus),
and the real start-up where it matters (GNOME behind the bridge; a standalone daemon
already owning the name).

A "standalone daemon" owning org.freedesktop.Notifications is recognised by its
executable's name, as the bridge reads it from /proc: the fake daemon is run by a copy
of Debian's python named after the daemon (mako, gjs-console), and, where dunst and
Xvfb are installed, real dunst is used too.
"""

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from conftest import (BRIDGE_BIN, FAKE_DAEMON, NOTIF_NAME, PYTHON, LineReader, require_binary,
                      session_env, wait_for_name)

TEST_TIMEOUT = 60

XFCE4_NOTIFYD_PATHS = ["/usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd",
                       "/usr/lib/xfce4/notifyd/xfce4-notifyd", "/usr/libexec/xfce4/notifyd/xfce4-notifyd"]


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


def print_downstream(bus, tmp_path, *args, desktop=None, path=None):
    """Runs `focus-bridge --print-downstream ARGS` on `bus` with an empty config folder;
    returns (exit status, stdout lines, stderr lines)."""
    require_binary(BRIDGE_BIN, "focus-bridge")
    config_home = tmp_path / "print-config"
    config_home.mkdir(exist_ok=True)
    extra = {"XDG_CONFIG_HOME": config_home, "XDG_STATE_HOME": tmp_path / "print-state"}
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


def test_gnome_variables_without_gnome_shell_fall_through(bus, fake_path, tmp_path):
    path = fake_path("dunst")
    code, out, err = print_downstream(bus, tmp_path, desktop="GNOME", path=path)
    assert code == 0, err
    assert out == [out[0]] and out[0].startswith("spawn: %s/dunst (" % path), out
    assert "org.gnome.Shell is not on the session bus" in out[0]


def test_gnome_shell_without_a_gnome_session_is_not_used(bus, fake_daemon_factory, fake_path, tmp_path):
    fake_daemon_factory(bus=bus, name="org.gnome.Shell")
    path = fake_path("mako")
    code, out, _ = print_downstream(bus, tmp_path, desktop="sway", path=path)
    assert code == 0
    assert out[0].startswith("spawn: %s/mako (" % path) and "XDG_CURRENT_DESKTOP=sway" in out[0], out


def test_gnome_behind_the_bridge_with_replace(bus, fake_daemon_factory, bridge_factory, procs, tmp_path,
                                              fake_path, make_client):
    """GNOME Shell's front service owns the name and allows replacement; --replace takes it,
    and notifications go to org.gnome.Shell."""
    shell = fake_daemon_factory(bus=bus, name="org.gnome.Shell")
    front = Impostor("gjs-console", bus, procs, tmp_path, allow_replacement=True)
    env = dict(desktop="GNOME:GNOME-Classic", path=fake_path("dunst"))

    code, out, err = print_downstream(bus, tmp_path, **env)
    assert code == 1 and out[0].startswith("name: org.gnome.Shell ("), (out, err)
    sentence = one_sentence(err)
    assert "GNOME Shell" in sentence and "PID %d" % front.pid in sentence and "--replace" in sentence

    code, out, err = print_downstream(bus, tmp_path, "--replace", **env)
    assert code == 0 and out[0].startswith("name: org.gnome.Shell ("), (out, err)
    assert "--replace takes it over" in one_sentence(err)

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
    assert "mako is the first installed of dunst, mako, swaync, xfce4-notifyd" in out[0]

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
    if any(os.access(p, os.X_OK) for p in XFCE4_NOTIFYD_PATHS):
        pytest.skip("xfce4-notifyd is installed outside PATH here")
    code, out, err = print_downstream(bus, tmp_path, desktop="", path=fake_path())
    assert code == 0 and err == [], err
    assert out[0].startswith("log: standard output (") and "none of dunst, mako, swaync, xfce4-notifyd" in out[0], out


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
    assert code == 1 and out == [], (out, err)
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
    assert code == 1 and out == [], (out, err)
    sentence = one_sentence(err)
    assert "owned by dunst (PID %d, %s)" % (pid, owner) in sentence and "runs dunst itself" in sentence
    dunst.send_signal(signal.SIGTERM)
    dunst.wait(10)


def test_reason_is_logged_at_start(bridge_factory, fake_path, make_client):
    path = fake_path()
    if any(os.access(p, os.X_OK) for p in XFCE4_NOTIFYD_PATHS):
        pytest.skip("xfce4-notifyd is installed outside PATH here")
    bridge = bridge_factory(mode=None, extra_env={"XDG_CURRENT_DESKTOP": "sway", "PATH": path})
    # A reply from the main loop: start-up is over (and its log written).
    assert make_client().status()["downstream"]["mode"] == "log"
    assert re.search(r"downstream: log \(auto: not a GNOME session", bridge.stderr()), bridge.stderr_tail()
