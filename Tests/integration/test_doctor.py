"""`focusctl doctor` (focusctl(1), DOCTOR): one line per check, ✓ or ✗ with the sentence that
fixes it, exit 0 when nothing is wrong and 1 otherwise, `--json` with its documented keys. Run
against the real bridge on a private bus, with a session of its own: a HOME, XDG folders and
a runtime folder in the test's tmp folder, so nothing of this machine's own login counts (but
/usr/share/dbus-1/services, which the bus always reads, and this machine's daemons' files in it)."""

import json
import socket
from pathlib import Path

import pytest

from support.config_files import write_config
from support.processes import BRIDGE_BIN, FOCUSCTL_BIN, require_binary, run, session_env

TEST_TIMEOUT = 30

DUNST_ACTIVATION = "[D-BUS Service]\nName=org.freedesktop.Notifications\nExec=/usr/bin/dunst\n"


@pytest.fixture
def session(tmp_path):
    """A login of the test's own: HOME and the XDG folders under tmp_path, as the bridge of
    bridge_factory has them (XDG_CONFIG_HOME=tmp/config, XDG_STATE_HOME=tmp/state), sway as the
    window manager, no user systemd manager."""
    home = tmp_path / "home"
    run_dir = tmp_path / "run"
    for folder in (home, run_dir, tmp_path / "share", tmp_path / "etc-xdg"):
        folder.mkdir(parents=True, exist_ok=True)
    run_dir.chmod(0o700)
    return {
        "HOME": str(home), "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(home / ".local/share"), "XDG_RUNTIME_DIR": str(run_dir),
        "XDG_DATA_DIRS": str(tmp_path / "share"), "XDG_CONFIG_DIRS": str(tmp_path / "etc-xdg"),
        "SWAYSOCK": str(run_dir / "sway-ipc.sock"), "XDG_CURRENT_DESKTOP": "sway",
        "PATH": "%s:/usr/bin:/bin" % Path(BRIDGE_BIN).parent,
    }


def started_properly(session):
    """What a person who followed the README's window-manager path has: `exec focus-bridge` in
    sway's configuration, and FocusBridge's activation file first on the bus's search path."""
    config = Path(session["XDG_CONFIG_HOME"]) / "sway" / "config"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("# sway\nexec focus-bridge\nbindsym $mod+n exec makoctl dismiss\n")
    services = Path(session["XDG_DATA_HOME"]) / "dbus-1" / "services"
    services.mkdir(parents=True, exist_ok=True)
    (services / "org.freedesktop.Notifications.service").write_text(
        "[D-BUS Service]\nName=org.freedesktop.Notifications\nExec=%s\n" % BRIDGE_BIN)
    return config


@pytest.fixture
def doctor(bus, session):
    """doctor(*args, env=None) -> (CompletedProcess, the JSON report of the same run or None)."""
    require_binary(FOCUSCTL_BIN, "focusctl")

    def go(*args, env=None):
        env = env or session_env(bus.address, **session)
        human = run([FOCUSCTL_BIN, "doctor", *args], env)
        report = run([FOCUSCTL_BIN, "doctor", "--json", *args], env)
        assert report.returncode == human.returncode, (human, report)
        return human, json.loads(report.stdout)

    return go


def lines_by_check(result):
    """{check: [line, ...]} of the human output; every line is one check, ✓ or ✗."""
    found = {}
    for line in result.stdout.splitlines():
        assert line[:2] in ("✓ ", "✗ "), "not a check line: %r" % line
        found.setdefault(line[2:].split()[0], []).append(line)
    return found


def check(report, name):
    found = [c for c in report["checks"] if c["check"] == name]
    assert found, "no %s check in %s" % (name, [c["check"] for c in report["checks"]])
    return found[0]


def test_with_a_running_bridge_and_its_daemon_nothing_is_wrong(bridge, doctor, session):
    started_properly(session)
    result, report = doctor()
    assert result.returncode == 0, result.stdout + result.stderr
    assert report["ok"] is True and all(c["ok"] and c["fix"] is None for c in report["checks"]), report
    lines = lines_by_check(result)
    assert all(l.startswith("✓ ") for ls in lines.values() for l in ls), result.stdout
    assert ["bridge", "daemon", "config", "start", "activation", "other-daemon", "state", "log"] == \
        [c["check"] for c in report["checks"]], report
    assert check(report, "bridge")["found"].endswith("runs (PID %d) and owns org.freedesktop.Notifications" % bridge.pid)
    assert "connected (address: org.freedesktop.Notifications)" in check(report, "daemon")["found"]
    assert check(report, "start")["found"].endswith("sway/config:2 starts it (`exec focus-bridge`)"), report
    assert check(report, "state")["found"] == ("the state database in %s/focus-bridge is in use by focus-bridge and written"
                                               % session["XDG_STATE_HOME"])
    # The bridge's standard error is a file here (the rig's): said so, with how to read it.
    assert check(report, "log")["found"] == "its log: tail %s" % bridge.stderr_path


def test_a_stopped_bridge_and_another_owner_of_the_names(bus, fake_daemon_factory, doctor, session):
    started_properly(session)
    owner = fake_daemon_factory(bus=bus)
    gtk = fake_daemon_factory(bus=bus, name="org.gtk.Notifications")
    result, report = doctor()
    assert result.returncode == 1, result.stdout + result.stderr
    assert report["ok"] is False
    bridge = check(report, "bridge")
    assert not bridge["ok"]
    assert bridge["found"].startswith("focus-bridge is not running; org.freedesktop.Notifications is owned by "), bridge
    assert "(PID %d, %s)" % (owner.pid, owner.unique_name) in bridge["found"], bridge
    assert "and org.gtk.Notifications by " in bridge["found"] and "(PID %d, " % gtk.pid in bridge["found"], bridge
    # The sentence that puts that daemon behind the bridge, the same focus-bridge says at start.
    assert "see DAEMONS in focus-bridge(1)" in bridge["fix"] and "focus-bridge --downstream spawn --" in bridge["fix"], bridge
    started = run([BRIDGE_BIN, "--config", "/nonexistent"], session_env(bus.address, **session))
    assert started.returncode == 1 and bridge["fix"] in started.stderr, started.stderr
    # No daemon line without a bridge; the local checks all the same.
    assert "daemon" not in [c["check"] for c in report["checks"]]
    line = lines_by_check(result)["bridge"][0]
    assert line.startswith("✗ bridge") and " — " + bridge["fix"] in line, line


def test_a_stopped_bridge_with_the_name_free_says_how_to_start_it(doctor, session):
    result, report = doctor()
    assert result.returncode == 1
    bridge = check(report, "bridge")
    assert bridge["found"].startswith("focus-bridge is not running, and nothing owns org.freedesktop.Notifications"), bridge
    # No user manager runs this session: no systemctl advice, anywhere.
    assert bridge["fix"] == "start it: focus-bridge & (on sway)", bridge
    start = check(report, "start")
    assert not start["ok"] and "add `exec focus-bridge` in %s/sway/config" % session["XDG_CONFIG_HOME"] in start["fix"], start
    assert "systemctl" not in result.stdout, result.stdout


def test_a_user_manager_gets_the_unit_enabled(doctor, session, bus):
    """With a user systemd manager (its socket in the runtime folder) and the unit installed,
    the advice is systemctl's."""
    private = Path(session["XDG_RUNTIME_DIR"]) / "systemd" / "private"
    private.parent.mkdir()
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(private))
    unit = Path(session["XDG_DATA_HOME"]) / "systemd/user/focus-bridge.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("[Service]\nExecStart=focus-bridge\n")
    try:
        result, report = doctor()
        assert check(report, "start")["fix"] == "enable the unit: systemctl --user enable --now focus-bridge", report
        assert check(report, "bridge")["fix"] == "start it: systemctl --user start focus-bridge (on sway)", report
        # Enabled: the session starts it.
        wants = Path(session["XDG_CONFIG_HOME"]) / "systemd/user/graphical-session-pre.target.wants"
        wants.mkdir(parents=True)
        (wants / "focus-bridge.service").symlink_to(unit)
        _, report = doctor()
        assert check(report, "start")["ok"] and "focus-bridge.service is enabled" in check(report, "start")["found"]
    finally:
        listener.close()


def test_a_broken_config_gives_its_first_place(bridge, doctor, session, tmp_path, focusctl):
    started_properly(session)
    path = write_config(tmp_path, '[general]\ncoalesce-seconds = 60\n[apps."X"]\nlevle = "passive"\nmute = true\n')
    result, report = doctor()
    assert result.returncode == 1
    config = check(report, "config")
    assert config["found"] == ("the configuration does not load: %s:4:1: unknown key `levle` in [apps.X]; "
                               "did you mean `level`? (and 1 more)" % path), config
    assert "focusctl check-config lists every mistake" in config["fix"]
    assert [c["check"] for c in report["checks"] if not c["ok"]] == ["config"], report
    # The bridge refused it too (the file changed under it, or a reload): the status says so.
    assert focusctl("reload").returncode == 1
    status = json.loads(focusctl("status", "--json").stdout)
    assert status["config"]["refused"]["problems"][0] == config["found"].split("load: ", 1)[1].split(" (and")[0]


def test_without_a_session_bus_the_local_checks_still_run(doctor, session, tmp_path):
    started_properly(session)
    write_config(tmp_path, "[general]\nmax-actions = 9\n")
    env = session_env("unused", **session)
    env.pop("DBUS_SESSION_BUS_ADDRESS")
    result, report = doctor(env=env)
    assert result.returncode == 1, result.stdout + result.stderr
    names = [c["check"] for c in report["checks"]]
    assert names[0] == "session-bus" and "bridge" not in names and "daemon" not in names, names
    bus = check(report, "session-bus")
    assert not bus["ok"] and "no session bus" in bus["found"] and "DBUS_SESSION_BUS_ADDRESS" in bus["fix"], bus
    assert not check(report, "config")["ok"] and "max-actions" in check(report, "config")["found"]
    assert check(report, "start")["ok"] and check(report, "activation")["ok"], report
    assert check(report, "state")["found"].startswith("no state database yet"), report
    assert lines_by_check(result).keys() >= {"session-bus", "config", "start", "activation", "other-daemon", "state"}


def test_what_else_would_start_at_login(doctor, session):
    """Another daemon's line in sway's configuration and its activation file first on the search
    path: each a ✗ with its fix."""
    config = started_properly(session)
    config.write_text("exec focus-bridge\nexec mako\n")
    services = Path(session["XDG_RUNTIME_DIR"]) / "dbus-1" / "services"
    services.mkdir(parents=True)
    (services / "org.knopwob.dunst.service").write_text(DUNST_ACTIVATION)
    _, report = doctor()
    other = check(report, "other-daemon")
    assert other["found"] == "%s:2 starts mako at login (`exec mako`)" % config, other
    assert other["fix"] == "remove that line: focus-bridge runs mako behind itself"
    activation = check(report, "activation")
    assert not activation["ok"] and activation["found"].startswith(str(services / "org.knopwob.dunst.service")), activation
    assert activation["fix"] == "remove %s" % (services / "org.knopwob.dunst.service"), activation


def test_the_state_database_is_read_when_no_bridge_runs(doctor, session):
    state = Path(session["XDG_STATE_HOME"]) / "focus-bridge"
    state.mkdir(parents=True)
    (state / "state.sqlite3").write_bytes(b"this is not a database, " * 100)
    _, report = doctor()
    found = check(report, "state")
    assert not found["ok"] and found["found"].startswith("the state database %s/state.sqlite3 is broken" % state), found
    assert "moves the broken file aside" in found["fix"]
    assert (state / "state.sqlite3").read_bytes().startswith(b"this is not"), "doctor changed the file"
