"""Nothing crashes, and nothing crash-loops (docs/RELIABILITY.md): absurd times at the
door (focusctl, D-Bus), poisoned values in the state file, a broken or busy state database, an
unusable environment, a clean stop in spawn mode, and the modes of the files in the state folder.
"""

import json
import os
import signal
import sqlite3
import stat
import subprocess

import pytest
from gi.repository import GLib

from support.bridge import private_bus_address, wait_connected
from support.buses import PrivateBus, bus_config, wait_for_name
from support.fakes import SPAWN_FAKE, SpawnedFakes
from support.focusctl import fc_ok, status
from support.names import CONTROL_IFACE, CONTROL_NAME, CONTROL_PATH, NOTIF_NAME
from support.processes import BRIDGE_BIN, FOCUSCTL_BIN, require_binary, run, session_env
from support.waiting import wait_until

WORK = """
[focus.work]
apps = ["Mail"]
"""


def control(client, method, params=None, reply="(s)"):
    out = client.call(method, params, reply, dest=CONTROL_NAME, path=CONTROL_PATH, iface=CONTROL_IFACE)
    return json.loads(out[0]) if reply == "(s)" else out[0]


def one_line(text):
    """The text is one line (a sentence), not a stack of Foundation or Swift runtime text."""
    lines = [l for l in text.splitlines() if l.strip()]
    assert len(lines) == 1, "expected one sentence, got:\n%s" % text
    assert "Fatal error" not in text and "NSCocoaErrorDomain" not in text and "Error Domain" not in text, text
    return lines[0]


def start_and_wait_exit(bridge_factory, timeout=10, **kw):
    """Starts a bridge that is expected to refuse: returns (exit code, stderr)."""
    b = bridge_factory(wait=False, **kw)
    try:
        code = b.proc.wait(timeout)
    except subprocess.TimeoutExpired:
        b.stop(signal.SIGKILL)
        pytest.fail("focus-bridge did not exit within %d s; stderr:\n%s" % (timeout, b.stderr_tail()))
    b.stopped = True
    return code, b.stderr()


# --------------------------------------------------------------------------- 1. times at the door
@pytest.mark.parametrize("duration", ["99999999999999d", "367d", "9" * 400 + "s"])
def test_focusctl_refuses_an_absurd_duration(focus_bridge, focusctl, duration):
    b = focus_bridge(WORK)
    r = focusctl("focus", "on", "work", "--for", duration)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    line = one_line(r.stderr)
    # a number too long for a Double is not a duration at all; the others are too long
    assert line.startswith("focusctl: --for takes ") and ("at most 366 days" in line or "a duration such as" in line), line
    assert b.alive(), "the bridge died:\n%s" % b.stderr_tail()
    assert status(focusctl)["focus"] is None
    # the longest allowed one works
    fc_ok(focusctl, "focus", "on", "work", "--for", "366d")
    assert status(focusctl)["focus"]["name"] == "work"


@pytest.mark.parametrize("seconds", [-5.0, 1e300, 366 * 86400 + 1])
def test_focus_on_over_dbus_refuses_an_absurd_duration(focus_bridge, client, seconds):
    b = focus_bridge(WORK)
    with pytest.raises(GLib.Error) as caught:
        control(client, "FocusOn", GLib.Variant("(sds)", ("work", seconds, "")))
    assert "org.focusbridge.Error.InvalidRequest" in caught.value.message, caught.value.message
    assert "366 days" in caught.value.message
    assert b.alive(), "the bridge died:\n%s" % b.stderr_tail()
    assert client.status()["focus"] is None
    assert control(client, "FocusOn", GLib.Variant("(sds)", ("work", 3600.0, "")))["focus"]["name"] == "work"


@pytest.mark.parametrize("seconds", [float("inf"), float("-inf"), float("nan")])
def test_focus_on_over_dbus_takes_no_nan_or_infinity(focus_bridge, client, seconds):
    b = focus_bridge(WORK)
    with pytest.raises(GLib.Error) as caught:
        control(client, "FocusOn", GLib.Variant("(sds)", ("work", seconds, "")))
    assert "org.freedesktop.DBus.Error.InvalidArgs" in caught.value.message, caught.value.message
    assert "finite number of seconds" in caught.value.message
    assert b.alive(), "the bridge died:\n%s" % b.stderr_tail()
    assert client.status()["focus"] is None


@pytest.mark.parametrize("seconds", [1e-9, 1e-6, 1e-4])
def test_focus_on_for_less_than_the_call_takes_is_answered(focus_bridge, client, seconds):
    """A Focus over about as soon as it is on: answered (with no Focus on when it ended
    before the answer was written), and over."""
    b = focus_bridge(WORK)
    for _ in range(5):
        answer = control(client, "FocusOn", GLib.Variant("(sds)", ("work", seconds, "")))
        assert answer["focus"] is None or answer["focus"]["name"] == "work", answer
        assert b.alive(), "the bridge died:\n%s" % b.stderr_tail()
        assert wait_until(lambda: client.status()["focus"] is None, 5)
    assert control(client, "FocusOn", GLib.Variant("(sds)", ("work", 3600.0, "")))["focus"]["name"] == "work"


# every value over the command-line tools, as anyone on the bus can send it: (argument, answered how)
DBUS_SEND_DURATIONS = [("1e-9", None), ("1e-4", None), ("0", None), ("-1", "InvalidRequest"),
                       ("1e300", "InvalidRequest"), ("nan", "InvalidArgs"), ("inf", "InvalidArgs"),
                       ("-inf", "InvalidArgs")]


def test_focus_on_over_dbus_send_answers_every_double(focus_bridge, bus):
    b = focus_bridge(WORK)
    env = session_env(bus.address)
    for value, error in DBUS_SEND_DURATIONS:
        r = run(["dbus-send", "--bus=" + bus.address, "--print-reply", "--reply-timeout=5000", "--dest=" + CONTROL_NAME,
                 CONTROL_PATH, CONTROL_IFACE + ".FocusOn", "string:work", "double:" + value, "string:"], env)
        if error is None:
            assert r.returncode == 0, (value, r.stdout, r.stderr)
        else:
            assert r.returncode != 0 and error in r.stderr, (value, r.stdout, r.stderr)
        assert "NoReply" not in r.stderr and "Disconnected" not in r.stderr, (value, r.stderr)
        assert b.alive(), "the bridge died at %s:\n%s" % (value, b.stderr_tail())
    # a finite one through gdbus, which reads the value as GVariant text
    for value in ["1e-09", "0.0001"]:
        r = run(["gdbus", "call", "--address", bus.address, "--dest", CONTROL_NAME, "--object-path", CONTROL_PATH,
                 "--method", CONTROL_IFACE + ".FocusOn", "work", value, ""], env)
        assert r.returncode == 0, (value, r.stdout, r.stderr)
    assert b.alive(), "the bridge died:\n%s" % b.stderr_tail()


def test_focus_on_over_gdbus_with_a_huge_double(focus_bridge, bus):
    b = focus_bridge(WORK)
    r = run(["gdbus", "call", "--address", bus.address, "--dest", CONTROL_NAME, "--object-path", CONTROL_PATH,
             "--method", CONTROL_IFACE + ".FocusOn", "work", "1e308", ""], session_env(bus.address))
    assert r.returncode != 0 and "InvalidRequest" in r.stderr, (r.stdout, r.stderr)
    assert b.alive(), "the bridge died:\n%s" % b.stderr_tail()


def state_db(b):
    return b.state_dir / "state.sqlite3"


def set_settings(path, **values):
    db = sqlite3.connect(str(path))
    try:
        with db:
            for key, value in values.items():
                db.execute("INSERT INTO setting (key, value) VALUES (?, ?) "
                           "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key.replace("_", "-"), value))
    finally:
        db.close()   # a connection left open keeps a lock the bridge's exclusive mode would wait for


POISON = [
    '{"state":{"on":{"_0":"work"}},"since":1e300,"until":1e308}',
    '{"state":{"on":{"_0":"work"}},"since":0,"until":-1e20}',
    '{"state":{"on":{"_0":"work"}},"since":800000000,"until":9e15}',
    '{"state":',
    '42',
]


@pytest.mark.parametrize("poison", POISON, ids=["huge", "negative", "year-285-million", "truncated", "number"])
def test_poisoned_stored_values_are_discarded_at_start(bridge_factory, fake_daemon, config, make_client, poison):
    config(WORK)
    b = bridge_factory()
    c = make_client()
    wait_connected(c)
    nid = c.notify("before", app="Mail")
    assert b.stop() == 0
    set_settings(state_db(b), manual_focus=poison, summary_checked="nan", id_high_water="-7 garbage")
    b2 = bridge_factory()
    c2 = make_client("after")
    wait_connected(c2)
    assert c2.status()["focus"] is None
    assert c2.notify("after", app="Mail") > nid, "an ID was given out again"
    log = b2.stderr()
    assert "manual Focus is not valid" in log and "summary check is not valid" in log \
        and "high-water mark is not valid" in log, log
    assert "Fatal error" not in log
    # the next start is clean: the bad values were replaced
    assert b2.stop() == 0
    b3 = bridge_factory()
    assert "manual Focus is not valid" not in b3.stderr()


def test_a_manual_focus_near_the_bound_survives_a_restart(focus_bridge, bridge_factory, focusctl):
    b = focus_bridge(WORK)
    fc_ok(focusctl, "focus", "on", "work", "--for", "366d")
    assert b.stop() == 0
    bridge_factory()
    assert status(focusctl)["focus"]["name"] == "work"


# --------------------------------------------------------------------------- 2. a broken state file
def broken_files(folder):
    return sorted(p.name for p in folder.iterdir() if ".broken-" in p.name)


@pytest.mark.parametrize("damage", ["random", "truncated"])
def test_a_broken_state_database_is_moved_aside(bridge_factory, fake_daemon, make_client, damage):
    b = bridge_factory()
    c = make_client()
    wait_connected(c)
    for i in range(300):
        c.notify("row %d" % i, "x" * 200, app="Filler")
    wait_until(lambda: len(c.history(1000)) >= 300, 10)
    assert b.stop() == 0
    db = state_db(b)
    # fold the WAL into the file first (closing the last connection does), so the damage hits the data
    folding = sqlite3.connect(str(db))
    folding.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    folding.close()
    assert not db.with_name("state.sqlite3-wal").exists()
    if damage == "random":
        db.write_bytes(os.urandom(64 * 1024))
    else:
        size = db.stat().st_size
        assert size > 16 * 1024, size
        with open(db, "r+b") as f:
            f.truncate(size // 2)
    b2 = bridge_factory()
    c2 = make_client("after")
    wait_connected(c2)
    nid = c2.notify("fresh", app="Filler")
    assert any(r["id"] == nid for r in c2.history(10))
    aside = broken_files(b.state_dir)
    assert aside and aside[0].startswith("state.sqlite3.broken-"), sorted(os.listdir(b.state_dir))
    lines = [l for l in b2.stderr().splitlines() if "moved aside" in l]
    assert len(lines) == 1 and str(db) in lines[0] and aside[0] in lines[0], b2.stderr()


# --------------------------------------------------------------------------- 3. a second bridge
def test_a_second_bridge_on_the_same_state_folder_names_the_first(bridge_factory, fake_daemon, bus):
    first = bridge_factory()
    code, err = start_and_wait_exit(bridge_factory, timeout=3)
    assert code != 0
    line = one_line(err)
    assert "PID %d" % first.pid in line and str(first.state_dir) in line, line
    assert "locked" not in line
    assert first.alive()
    assert not broken_files(first.state_dir), "a busy database was taken for a broken one"


# --------------------------------------------------------------------------- 4. the environment
def refuse(procs, tmp_path, env, args=()):
    p = procs.spawn([BRIDGE_BIN, "--downstream", "log", *args], env=env, stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, err = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail("focus-bridge did not refuse within 10 s")
    return p.returncode, err.decode("utf-8", "replace")


@pytest.fixture
def bridge_env(bus, tmp_path):
    require_binary(BRIDGE_BIN, "focus-bridge")
    return session_env(bus.address, XDG_STATE_HOME=tmp_path / "state", XDG_CONFIG_HOME=tmp_path / "config",
                       HOME=tmp_path / "home")


@pytest.mark.parametrize("value", [None, ""], ids=["unset", "empty"])
def test_no_home(procs, tmp_path, bridge_env, value):
    env = {k: v for k, v in bridge_env.items() if k not in ("HOME", "XDG_STATE_HOME")}
    if value is not None:
        env["HOME"] = value
    code, err = refuse(procs, tmp_path, env)
    assert code == 1
    assert "HOME is not set" in one_line(err)


@pytest.mark.parametrize("name", ["XDG_STATE_HOME", "XDG_CONFIG_HOME"])
def test_a_path_that_is_not_utf8(procs, tmp_path, bridge_env, name):
    env = {k.encode(): str(v).encode() for k, v in bridge_env.items()}
    env[name.encode()] = bytes(tmp_path) + b"/caf\xe9"
    code, err = refuse(procs, tmp_path, env)
    assert code == 1
    line = one_line(err)
    assert name in line and "UTF-8" in line, line


def test_a_state_folder_it_may_not_write(procs, tmp_path, bridge_env):
    """As root permissions do not stop a write: the bridge runs as nobody in a folder of root's.
    It starts all the same, its state in memory, and says so in one line (focus-bridge(1), THE
    STATE FOLDER)."""
    import pwd
    if os.geteuid() != 0:
        pytest.skip("needs root to run the bridge as nobody")
    nobody = pwd.getpwnam("nobody")
    folder = tmp_path / "state" / "focus-bridge"
    folder.mkdir(parents=True)
    os.chmod(tmp_path, 0o755)
    for p in (tmp_path / "state", folder):
        os.chmod(p, 0o755)
    bus = PrivateBus(tmp_path, "any-user", procs, config=bus_config(any_user=True))
    env = dict(bridge_env, HOME="/nonexistent", DBUS_SESSION_BUS_ADDRESS=bus.address)
    errors = tmp_path / "nobody.stderr"
    p = procs.spawn([BRIDGE_BIN, "--downstream", "log"], env=env, stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, stderr=open(errors, "wb"),
                    user=nobody.pw_uid, group=nobody.pw_gid, extra_groups=[], cwd="/")
    assert wait_for_name(bus.conn, NOTIF_NAME, 10, p), "not started: %s" % errors.read_text()
    p.send_signal(signal.SIGTERM)
    assert p.wait(10) == 0
    lines = [l for l in errors.read_text().splitlines() if str(folder) in l]
    assert len(lines) == 1, errors.read_text()
    assert ("not permitted" in lines[0] or "denied" in lines[0]) and "in memory" in lines[0], lines[0]


def test_no_session_bus_address(procs, tmp_path, bridge_env):
    env = {k: v for k, v in bridge_env.items() if k != "DBUS_SESSION_BUS_ADDRESS"}
    env["DISPLAY"] = ":424242"   # would invite GLib to autolaunch a bus through X11
    env["XDG_RUNTIME_DIR"] = str(tmp_path)
    code, err = refuse(procs, tmp_path, env)
    assert code == 1
    assert "DBUS_SESSION_BUS_ADDRESS" in one_line(err)


def test_focusctl_without_a_session_bus_address(tmp_path):
    require_binary(FOCUSCTL_BIN, "focusctl")
    env = {k: v for k, v in session_env("x").items() if k != "DBUS_SESSION_BUS_ADDRESS"}
    env.update(DISPLAY=":424242", XDG_RUNTIME_DIR=str(tmp_path))
    r = run([FOCUSCTL_BIN, "status"], env)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "DBUS_SESSION_BUS_ADDRESS" in one_line(r.stderr)


def test_check_config_on_a_missing_file(bus, tmp_path):
    require_binary(FOCUSCTL_BIN, "focusctl")
    env = session_env(bus.address, XDG_CONFIG_HOME=tmp_path / "config")
    missing = tmp_path / "nowhere.toml"
    r = run([FOCUSCTL_BIN, "check-config", str(missing)], env)
    assert r.returncode == 1 and "ok" not in r.stdout, (r.stdout, r.stderr)
    assert str(missing) in one_line(r.stderr)
    r = run([FOCUSCTL_BIN, "check-config", str(tmp_path)], env)
    assert r.returncode == 1 and "ok" not in r.stdout, (r.stdout, r.stderr)
    # the default file, absent: said so, not "ok"
    r = run([FOCUSCTL_BIN, "check-config"], env)
    assert r.returncode == 0 and ": ok" not in r.stdout and "defaults" in r.stdout, (r.stdout, r.stderr)


# --------------------------------------------------------------------------- 5. a clean stop
def test_sigterm_in_spawn_mode_logs_no_error(bridge_factory, config, make_client):
    b = bridge_factory("spawn", command=SPAWN_FAKE)
    fakes = SpawnedFakes(private_bus_address(b))
    assert fakes.wait_new(None, 15), "the fake daemon was not started"
    c = make_client()
    wait_connected(c, 15)
    c.notify("one", app="Mail")
    fakes.close()
    assert b.stop() == 0
    errors = [l for l in b.stderr().splitlines() if " error " in l or "exited with status" in l]
    assert not errors, "a clean stop logged:\n%s" % "\n".join(errors)


# --------------------------------------------------------------------------- 6. file modes
def test_every_file_in_the_state_folder_is_private(bridge_factory, make_client):
    b = bridge_factory("spawn", command=SPAWN_FAKE)
    fakes = SpawnedFakes(private_bus_address(b))
    assert fakes.wait_new(None, 15)
    c = make_client()
    wait_connected(c, 15)
    for i in range(20):
        c.notify("traffic %d" % i, app="Mail")
    wait_until(lambda: len(c.history(100)) >= 20, 10)
    names = sorted(os.listdir(b.state_dir))
    assert {"state.sqlite3", "state.sqlite3-wal", "private-bus.conf", "focus-bridge.lock"} <= set(names), names
    modes = {n: stat.S_IMODE(os.lstat(b.state_dir / n).st_mode) for n in names}
    loose = {n: oct(m) for n, m in modes.items() if m & 0o077}
    assert not loose, "files open to others in the state folder: %r" % loose
    assert stat.S_IMODE(os.stat(b.state_dir).st_mode) == 0o700
    fakes.close()


def test_a_symlinked_state_database_is_refused(bridge_factory, tmp_path):
    folder = tmp_path / "state" / "focus-bridge"
    folder.mkdir(parents=True)
    other = tmp_path / "somebody-elses.sqlite3"
    sqlite3.connect(str(other)).close()
    os.chmod(other, 0o644)
    (folder / "state.sqlite3").symlink_to(other)
    b = bridge_factory(mode="log")    # starts, its state in memory (focus-bridge(1), THE STATE FOLDER)
    lines = [l for l in b.stderr().splitlines() if "symbolic link" in l]
    assert len(lines) == 1 and str(other) in lines[0] and "in memory" in lines[0], b.stderr()
    assert not (tmp_path / "somebody-elses.sqlite3-wal").exists()
    assert b.stop() == 0
