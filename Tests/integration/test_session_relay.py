"""The session's services reach the daemon: `[downstream] session-names`.

In spawn mode the daemon runs on the bridge's private bus, which has none of the session's
services. For each name in `session-names` the bridge owns the name there, relays every call
made to it to the same name on the session bus (which starts the service there when it is
activatable) and emits the service's signals again on the private bus.

* A fake session service (below) on the test's session bus, listed in `session-names`, is
  called from the private bus (where the recording fake daemon runs): answers, errors, other
  paths and interfaces, calls by the owner's unique name, its signals, the bound on calls in
  flight; a name not listed stays unknown there.
* Real services, activated on a session bus that has a service folder with only their
  activation files: GSettings on the private bus writes through the session's dconf (what
  swaync does for Do Not Disturb) and hears the session's changes; `org.a11y.Bus.GetAddress`
  from the private bus answers the session's accessibility bus.
* Real daemons (skipped where not installed): xfce4-notifyd under Xvfb follows Do Not Disturb
  set in the session's xfconf; swaync in a headless sway (the session as user nobody) saves
  its Do Not Disturb in the session's dconf and hears it change there.
"""

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from gi.repository import Gio, GLib

from support.bridge import private_bus_address, wait_connected
from support.buses import PrivateBus, bus_config, connect, wait_for_name
from support.config_files import write_config
from support.fakes import SPAWN_FAKE, SpawnedFakes
from support.processes import (BRIDGE_BIN, FOCUSCTL_BIN, PYTHON, SUPPORT, LineReader, require_binary, run,
                               run_as_nobody, session_env)
from support.waiting import pump_until, wait_until

SERVICE = "org.example.SessionService"
SERVICE_PATH = "/org/example/SessionService"
SERVICE_IFACE = "org.example.SessionService"
UNLISTED = "org.example.Unlisted"
FAKE_SESSION_SERVICE = str(SUPPORT / "fake_session_service.py")



# --------------------------------------------------------------------------- helpers
def start_service(procs, tmp_path, address, *names):
    proc = procs.spawn([PYTHON, FAKE_SESSION_SERVICE, address, *names], stdout=subprocess.PIPE,
                       stderr=open(tmp_path / "session-service.log", "ab"))
    line = LineReader(proc.stdout).wait_for(lambda l: l.startswith("READY"), 10)
    assert line, "the fake session service did not start: %s" % (tmp_path / "session-service.log").read_text()
    return proc


def call(conn, dest, method, params=None, reply_type=None, path=SERVICE_PATH, iface=SERVICE_IFACE,
         timeout_ms=5000):
    reply = conn.call_sync(dest, path, iface, method, params,
                           GLib.VariantType(reply_type) if reply_type else None,
                           Gio.DBusCallFlags.NONE, timeout_ms, None)
    return reply.unpack() if reply is not None else None


def spawn_bridge(bridge_factory, **kw):
    """A spawn-mode bridge running the recording fake daemon; returns (bridge, private connection)."""
    b = bridge_factory("spawn", command=SPAWN_FAKE, **kw)
    address = private_bus_address(b)
    fakes = SpawnedFakes(address)
    assert fakes.wait_new(None, 15), "the fake daemon was not started on the private bus"
    fakes.close()
    return b, connect(address)


def wait_relayed(conn, name, bridge, timeout=10):
    owner = wait_for_name(conn, name, timeout)
    assert owner, "%s is not on the private bus; bridge stderr:\n%s" % (name, bridge.stderr_tail())
    return owner


class Listener:
    """Records the signals that reach one connection."""

    def __init__(self, conn, sender=None, interface=None):
        self.got = []
        conn.signal_subscribe(sender, interface, None, None, None, Gio.DBusSignalFlags.NONE, self._on)
        conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
                       None, None, Gio.DBusCallFlags.NONE, 5000, None)   # the match rule is in place

    def _on(self, _c, sender, path, iface, member, params):
        self.got.append((sender, path, iface, member, params.unpack()))


# --------------------------------------------------------------------------- the fake service
def test_calls_from_the_private_bus_reach_a_listed_session_service(bridge_factory, bus, procs, tmp_path):
    start_service(procs, tmp_path, bus.address, SERVICE, UNLISTED)
    write_config(tmp_path, '[downstream]\nsession-names = ["%s", "org.example.Absent"]\n' % SERVICE)
    b, private = spawn_bridge(bridge_factory)
    owner = wait_relayed(private, SERVICE, b)

    assert call(private, SERVICE, "Echo", GLib.Variant("(s)", ("hi",)), "(s)") == ("session:hi",)
    # any path and interface, and by the owner's unique name (as GDBus proxies call)
    assert call(private, SERVICE, "Echo", GLib.Variant("(s)", ("deep",)), "(s)",
                path=SERVICE_PATH + "/sub") == ("session/sub:deep",)
    assert call(private, owner, "Echo", GLib.Variant("(s)", ("unique",)), "(s)") == ("session:unique",)
    assert call(private, SERVICE, "Get", GLib.Variant("(ss)", (SERVICE_IFACE, "Mood")), "(v)",
                iface="org.freedesktop.DBus.Properties") == ("calm",)
    xml = call(private, SERVICE, "Introspect", None, "(s)", iface="org.freedesktop.DBus.Introspectable")[0]
    assert "org.example.SessionService" in xml and 'name="Hold"' in xml
    # the service sees the bridge's session connection calling, not anyone on the private bus
    assert call(private, SERVICE, "Caller", None, "(s)") == (b.unique_name,)

    # a file descriptor travels with the call
    reader, writer = os.pipe()
    os.write(writer, b"through the pipe")
    os.close(writer)
    fds = Gio.UnixFDList.new_from_array([reader])
    reply, _ = private.call_with_unix_fd_list_sync(SERVICE, SERVICE_PATH, SERVICE_IFACE, "ReadFd",
                                                   GLib.Variant("(h)", (0,)), GLib.VariantType("(s)"),
                                                   Gio.DBusCallFlags.NONE, 5000, fds, None)
    assert reply.unpack() == ("through the pipe",)

    # errors come back as errors, name and text kept
    with pytest.raises(GLib.Error) as refused:
        call(private, SERVICE, "Fail", GLib.Variant("(s)", ("no",)))
    assert Gio.DBusError.get_remote_error(refused.value) == "org.example.SessionService.Error.Refused"
    assert "refused: no" in refused.value.message
    with pytest.raises(GLib.Error) as unknown:
        call(private, SERVICE, "NoSuchMethod")
    assert Gio.DBusError.get_remote_error(unknown.value) == "org.freedesktop.DBus.Error.UnknownMethod"

    # a listed name the session lacks answers as the session bus does
    wait_relayed(private, "org.example.Absent", b)
    with pytest.raises(GLib.Error) as absent:
        call(private, "org.example.Absent", "Echo", GLib.Variant("(s)", ("x",)), "(s)")
    assert Gio.DBusError.get_remote_error(absent.value) == "org.freedesktop.DBus.Error.ServiceUnknown"

    # a name not listed is not there, although the session bus has it
    assert bus.owner(UNLISTED)
    with pytest.raises(GLib.Error) as unlisted:
        call(private, UNLISTED, "Echo", GLib.Variant("(s)", ("x",)), "(s)")
    assert Gio.DBusError.get_remote_error(unlisted.value) == "org.freedesktop.DBus.Error.ServiceUnknown"
    assert b.alive()


def test_the_services_signals_reach_the_private_bus(bridge_factory, bus, procs, tmp_path):
    # two processes: a signal is told apart by its sender's connection, not by a name
    start_service(procs, tmp_path, bus.address, SERVICE)
    start_service(procs, tmp_path, bus.address, UNLISTED)
    write_config(tmp_path, '[downstream]\nsession-names = ["%s"]\n' % SERVICE)
    b, private = spawn_bridge(bridge_factory)
    owner = wait_relayed(private, SERVICE, b)
    # as GDBus proxies and dconf subscribe: by the name, and by interface alone
    by_name = Listener(private, sender=SERVICE)
    by_iface = Listener(private, interface=SERVICE_IFACE)

    session = connect(bus.address)
    call(session, SERVICE, "Emit", GLib.Variant("(s)", ("first",)))
    call(session, SERVICE, "Emit", GLib.Variant("(s)", ("deeper",)), path=SERVICE_PATH + "/sub")
    # the unlisted service's signals stay on the session bus
    call(session, UNLISTED, "Emit", GLib.Variant("(s)", ("not for the daemon",)))
    call(session, SERVICE, "Emit", GLib.Variant("(s)", ("last",)))
    assert pump_until(lambda: len(by_name.got) >= 3 and len(by_iface.got) >= 3, 5), (by_name.got, by_iface.got)
    expected = [(owner, SERVICE_PATH, SERVICE_IFACE, "Changed", ("first",)),
                (owner, SERVICE_PATH + "/sub", SERVICE_IFACE, "Changed", ("deeper",)),
                (owner, SERVICE_PATH, SERVICE_IFACE, "Changed", ("last",))]
    assert by_name.got == expected
    assert by_iface.got == expected


def test_a_session_service_is_started_through_the_relay(bridge_factory, procs, tmp_path, session_with_services):
    """A name with an activation file on the session bus but not running: the first call from
    the private bus starts it there."""
    bus = session_with_services
    write_config(tmp_path, '[downstream]\nsession-names = ["%s"]\n' % SERVICE)
    b, private = spawn_bridge(bridge_factory, extra_env=bus.env_for_clients)
    wait_relayed(private, SERVICE, b)
    assert bus.owner(SERVICE) is None
    assert call(private, SERVICE, "Echo", GLib.Variant("(s)", ("wake up",)), "(s)", timeout_ms=10000) \
        == ("session:wake up",)
    assert bus.owner(SERVICE)


def test_another_user_cannot_reach_the_relay(bridge_factory, bus, procs, tmp_path):
    """The private bus admits the bridge's own user only: another user cannot even connect, so
    the relay gives nobody a way into the session's services."""
    start_service(procs, tmp_path, bus.address, SERVICE)
    write_config(tmp_path, '[downstream]\nsession-names = ["%s"]\n' % SERVICE)
    b, private = spawn_bridge(bridge_factory)
    wait_relayed(private, SERVICE, b)
    argv = ["gdbus", "call", "--address", private_bus_address(b), "--dest", SERVICE, "--object-path",
            SERVICE_PATH, "--method", SERVICE_IFACE + ".Echo", "intruder"]
    r = run_as_nobody(argv)
    assert r.returncode != 0 and "session:intruder" not in r.stdout, (r.stdout, r.stderr)
    assert call(private, SERVICE, "Echo", GLib.Variant("(s)", ("owner",)), "(s)") == ("session:owner",)


def test_calls_in_flight_are_bounded(bridge_factory, bus, procs, tmp_path):
    """A service that does not answer cannot make the bridge pile up calls: past 64 in flight
    the relay refuses at once; once the service answers, the relay works again."""
    start_service(procs, tmp_path, bus.address, SERVICE)
    write_config(tmp_path, '[downstream]\nsession-names = ["%s"]\n' % SERVICE)
    b, private = spawn_bridge(bridge_factory)
    wait_relayed(private, SERVICE, b)
    results = {}

    def done(conn, res, i):
        try:
            results[i] = conn.call_finish(res).unpack()[0]
        except GLib.Error as exc:
            results[i] = Gio.DBusError.get_remote_error(exc) or exc.message

    for i in range(70):
        private.call(SERVICE, SERVICE_PATH, SERVICE_IFACE, "Hold", None, GLib.VariantType("(s)"),
                     Gio.DBusCallFlags.NONE, 20000, None, done, i)
    assert pump_until(lambda: len(results) >= 6, 5), "the calls past the bound were not refused at once: %r" % results
    refused = [i for i, r in results.items() if r == "org.freedesktop.DBus.Error.LimitsExceeded"]
    assert len(refused) == 6, results
    session = connect(bus.address)
    assert pump_until(lambda: call(session, SERVICE, "Held", None, "(u)") == (64,), 5), \
        "the service does not hold the 64 calls relayed"
    assert call(session, SERVICE, "Release", None, "(u)") == (64,)
    assert pump_until(lambda: len(results) == 70, 5)
    assert sorted(r for r in results.values() if r == "released") == ["released"] * 64
    assert call(private, SERVICE, "Echo", GLib.Variant("(s)", ("again",)), "(s)") == ("session:again",)


def test_the_daemon_gets_the_sessions_environment(bridge_factory, tmp_path):
    """DISPLAY, WAYLAND_DISPLAY, XDG_* and AT_SPI_BUS_ADDRESS reach the daemon; only the bus
    address is its own."""
    env = {"DISPLAY": ":77", "WAYLAND_DISPLAY": "wayland-test", "XDG_RUNTIME_DIR": str(tmp_path / "run"),
           "XDG_CURRENT_DESKTOP": "sway", "XDG_DATA_DIRS": "/usr/share", "AT_SPI_BUS_ADDRESS": "unix:path=/nowhere"}
    b = bridge_factory("spawn", command=SPAWN_FAKE, extra_env=env)
    address = private_bus_address(b)
    fakes = SpawnedFakes(address)
    inst = fakes.wait_new(None, 15)
    assert inst
    daemon_env = dict(entry.split("=", 1) for entry in
                      Path("/proc/%d/environ" % inst["pid"]).read_text().split("\0") if "=" in entry)
    fakes.close()
    for key, value in env.items():
        assert daemon_env.get(key) == value, key
    assert daemon_env["DBUS_SESSION_BUS_ADDRESS"] == address


@pytest.mark.parametrize("names, words", [
    ('["org.freedesktop.Notifications"]', "cannot be relayed"),
    ('["dconf"]', "not a well-known bus name"),
    ('["org.erikreider.swaync.cc"]', "passthrough-names"),
])
def test_names_that_cannot_be_relayed_are_config_errors(tmp_path, names, words):
    require_binary(FOCUSCTL_BIN, "focusctl")
    path = tmp_path / "relay.toml"
    path.write_text('[downstream]\nmode = "spawn"\npassthrough-names = ["org.erikreider.swaync.cc"]\n'
                    'session-names = %s\n' % names)
    r = run([FOCUSCTL_BIN, "check-config", str(path)], session_env("unix:path=%s" % (tmp_path / "no-bus")))
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert (r.stderr + r.stdout).startswith("%s:4:17: `session-names`: " % path) and words in r.stdout + r.stderr, \
        (r.stdout, r.stderr)


# --------------------------------------------------------------------------- real services
SCHEMA = """<schemalist>
  <schema id="org.erikreider.swaync" path="/org/erikreider/swaync/">
    <key name="dnd-state" type="b"><default>false</default></key>
  </schema>
</schemalist>
"""


@pytest.fixture
def session_with_services(tmp_path, procs):
    """The test's session bus with a service folder holding only the activation files of dconf,
    the accessibility bus, xfconf and the fake session service, and the folders of a session (HOME,
    XDG_CONFIG_HOME as the bridge's, XDG_RUNTIME_DIR). Whatever it activated is killed at
    teardown (found by a marker in its environment)."""
    services = tmp_path / "services"
    services.mkdir()
    for name in ("ca.desrt.dconf.service", "org.a11y.Bus.service", "org.xfce.Xfconf.service"):
        source = Path("/usr/share/dbus-1/services") / name
        if source.exists():
            shutil.copy(source, services / name)
    (services / ("%s.service" % SERVICE)).write_text(
        "[D-BUS Service]\nName=%s\nExec=%s %s - %s\n" % (SERVICE, PYTHON, FAKE_SESSION_SERVICE, SERVICE))
    folders = {"HOME": tmp_path / "home", "XDG_CONFIG_HOME": tmp_path / "config",
               "XDG_RUNTIME_DIR": tmp_path / "run", "XDG_CACHE_HOME": tmp_path / "cache"}
    for folder in folders.values():
        folder.mkdir(mode=0o700, exist_ok=True)
    marker = "focus-relay-test-%d" % time.monotonic_ns()
    env = dict(os.environ, FOCUS_RELAY_TEST=marker, **{k: str(v) for k, v in folders.items()})
    for key in ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS", "NO_AT_BRIDGE"):
        env.pop(key, None)
    # the bus and what it activates run with `env`
    b = PrivateBus(tmp_path, "session-with-services", procs, config=bus_config(service_dirs=[services]), env=env)
    b.env_for_clients = {k: str(v) for k, v in folders.items() if k != "XDG_CONFIG_HOME"}
    b.client_env = dict(env, DBUS_SESSION_BUS_ADDRESS=b.address, GSETTINGS_BACKEND="dconf")
    yield b
    b.stop()
    for pid in _marked_processes(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _marked_processes(marker):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = Path("/proc/%s/environ" % entry).read_bytes()
        except OSError:
            continue
        if ("FOCUS_RELAY_TEST=%s" % marker).encode() in environ.split(b"\0"):
            found.append(int(entry))
    return found


@pytest.fixture
def bus(session_with_services):
    """The bridge serves the session bus that has the services."""
    return session_with_services


def needs(path, package):
    if not Path(path).exists():
        pytest.skip("%s not installed (%s)" % (package, path))


def test_gsettings_on_the_private_bus_writes_through_the_sessions_dconf(bridge_factory, session_with_services,
                                                                         tmp_path, procs):
    """swaync saves Do Not Disturb with GSettings: dconf's writer is the session's, so the
    setting lands in the user's dconf database, and changes made in the session are heard."""
    needs("/usr/libexec/dconf-service", "dconf-service")
    needs("/usr/lib/x86_64-linux-gnu/gio/modules/libdconfsettings.so", "dconf-gsettings-backend")
    bus = session_with_services
    schemas = tmp_path / "schemas"
    schemas.mkdir()
    (schemas / "org.erikreider.swaync.gschema.xml").write_text(SCHEMA)
    subprocess.run(["glib-compile-schemas", str(schemas)], check=True, timeout=10)
    b, private = spawn_bridge(bridge_factory, extra_env=bus.env_for_clients)
    private_address = private_bus_address(b)
    wait_relayed(private, "ca.desrt.dconf", b)
    on_private = dict(bus.client_env, DBUS_SESSION_BUS_ADDRESS=private_address, GSETTINGS_SCHEMA_DIR=str(schemas))
    on_session = dict(bus.client_env, GSETTINGS_SCHEMA_DIR=str(schemas))

    r = run(["gsettings", "set", "org.erikreider.swaync", "dnd-state", "true"], on_private)
    assert r.returncode == 0 and "dconf-WARNING" not in r.stderr, r.stderr
    assert bus.owner("ca.desrt.dconf"), "the write did not start dconf on the session bus"
    assert (tmp_path / "config" / "dconf" / "user").exists()
    r = run(["gsettings", "get", "org.erikreider.swaync", "dnd-state"], on_session)
    assert r.stdout.strip() == "true", (r.stdout, r.stderr)

    # a change made in the session reaches a watcher on the private bus (dconf's Notify signal)
    monitor = procs.spawn(["stdbuf", "-oL", "gsettings", "monitor", "org.erikreider.swaync", "dnd-state"], env=on_private,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = LineReader(monitor.stdout)
    # it is listening once it hears a write made from the private bus (bounded retries; dconf
    # announces only changes, so the value alternates)
    value = "true"
    for _ in range(20):
        value = "false" if value == "true" else "true"
        run(["gsettings", "set", "org.erikreider.swaync", "dnd-state", value], on_private)
        if out.wait_for(lambda l: "dnd-state" in l, 0.5):
            break
    else:
        pytest.fail("gsettings monitor on the private bus heard nothing: %r" % out.lines)
    value = "false" if value == "true" else "true"
    r = run(["gsettings", "set", "org.erikreider.swaync", "dnd-state", value], on_session)
    assert r.returncode == 0, r.stderr
    line = out.wait_for(lambda l: l.strip() == "dnd-state: %s" % value, 5)
    monitor.kill()
    assert line, "the session's change was not heard on the private bus: %r" % out.lines


def test_the_accessibility_bus_is_found_from_the_private_bus(bridge_factory, session_with_services):
    """GTK and Qt daemons ask org.a11y.Bus for the accessibility bus: they get the session's."""
    needs("/usr/libexec/at-spi-bus-launcher", "at-spi2-core")
    bus = session_with_services
    b, private = spawn_bridge(bridge_factory, extra_env=bus.env_for_clients)
    wait_relayed(private, "org.a11y.Bus", b)
    (address,) = call(private, "org.a11y.Bus", "GetAddress", None, "(s)", path="/org/a11y/bus",
                      iface="org.a11y.Bus", timeout_ms=10000)
    assert address.startswith("unix:")
    assert call(connect(bus.address), "org.a11y.Bus", "GetAddress", None, "(s)", path="/org/a11y/bus",
                iface="org.a11y.Bus") == (address,)
    (enabled,) = call(private, "org.a11y.Bus", "Get", GLib.Variant("(ss)", ("org.a11y.Status", "IsEnabled")),
                      "(v)", path="/org/a11y/bus", iface="org.freedesktop.DBus.Properties")
    assert enabled in (True, False)


XFCE4_NOTIFYD = "/usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd"


def popups(display):
    """The xfce4-notifyd windows on `display` bigger than its 10x10 leader: the popups."""
    out = subprocess.run(["xwininfo", "-root", "-tree"], env=dict(os.environ, DISPLAY=display),
                         capture_output=True, text=True, timeout=10).stdout
    found = []
    for line in out.splitlines():
        m = re.search(r'"xfce4-notifyd": \(.*\)\s+(\d+)x(\d+)\+', line)
        if m and (int(m.group(1)) > 10 or int(m.group(2)) > 10):
            found.append(line.strip())
    return found


def test_xfce4_notifyd_follows_do_not_disturb_set_in_the_sessions_xfconf(bridge_factory, session_with_services,
                                                                         xvfb, make_client):
    """Real xfce4-notifyd behind the bridge reads its settings from the session's xfconf
    (through the relay, by xfconfd's unique name) and hears them change: with Do Not Disturb
    switched on in the session it shows no popup, switched off again it does."""
    needs(XFCE4_NOTIFYD, "xfce4-notifyd")
    needs("/usr/share/dbus-1/services/org.xfce.Xfconf.service", "xfconf")
    for tool in ("xfconf-query", "xwininfo"):
        if not shutil.which(tool):
            pytest.skip("%s not installed" % tool)
    bus = session_with_services
    b = bridge_factory("spawn", command=[XFCE4_NOTIFYD], display=xvfb, extra_env=bus.env_for_clients)
    c = make_client()
    wait_connected(c, 15)

    def dnd(value):
        r = run(["xfconf-query", "-c", "xfce4-notifyd", "-p", "/do-not-disturb", "-n", "-t", "bool", "-s", value],
                bus.client_env)
        assert r.returncode == 0, r.stderr

    dnd("false")
    first = c.notify("shown", "Do Not Disturb is off", app="Tester")
    wait_until(lambda: popups(xvfb), 10, message="xfce4-notifyd showed no popup")
    c.close(first)
    wait_until(lambda: not popups(xvfb), 10, message="the popup did not close")

    dnd("true")
    c.notify("hidden", "Do Not Disturb is on", app="Tester")
    pump_until(lambda: popups(xvfb), 1.5)   # a popup comes within ~0.1 s when there is one
    assert not popups(xvfb), "xfce4-notifyd ignored the session's Do Not Disturb"

    dnd("false")
    c.notify("shown again", "Do Not Disturb is off again", app="Tester")
    wait_until(lambda: popups(xvfb), 10, message="xfce4-notifyd did not hear Do Not Disturb switched off")
    assert b.alive()


SWAYNC_SESSION = r'''
set -u
T=$1; BRIDGE=$2
export HOME=$T/home XDG_CONFIG_HOME=$T/config XDG_RUNTIME_DIR=$T/run XDG_STATE_HOME=$T/state XDG_CACHE_HOME=$T/cache
unset DISPLAY DBUS_SESSION_BUS_ADDRESS AT_SPI_BUS_ADDRESS NO_AT_BRIDGE WAYLAND_DISPLAY
dbus-daemon --config-file=$T/bus.conf --fork --print-address=1 --print-pid=1 > $T/bus.out 2> $T/bus.err \
    || { echo NO-BUS; exit 3; }
export DBUS_SESSION_BUS_ADDRESS=$(head -1 $T/bus.out)
BUS_PID=$(sed -n 2p $T/bus.out)
BRIDGE_PID=
WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman sway -c $T/sway.conf > $T/sway.log 2>&1 &
SWAY_PID=$!
trap '[ -n "$BRIDGE_PID" ] && kill $BRIDGE_PID && wait $BRIDGE_PID; kill $SWAY_PID $BUS_PID 2>/dev/null' EXIT
for i in $(seq 100); do [ -S $T/run/wayland-1 ] && break; sleep 0.1; done
[ -S $T/run/wayland-1 ] || { echo NO-SWAY; exit 4; }
export WAYLAND_DISPLAY=wayland-1
$BRIDGE --downstream spawn -- swaync > $T/bridge.out 2> $T/bridge.err &
BRIDGE_PID=$!
CC="gdbus call --session --timeout 5 -d org.erikreider.swaync.cc -o /org/erikreider/swaync/cc -m org.erikreider.swaync.cc"
for i in $(seq 100); do $CC.GetDnd > /dev/null 2>&1 && break; sleep 0.1; done
echo "before=$(timeout 5 swaync-client -D 2>&1)"
echo "toggled=$(timeout 5 swaync-client -d 2>&1)"
for i in $(seq 50); do [ "$(gsettings get org.erikreider.swaync dnd-state 2>&1)" = true ] && break; sleep 0.1; done
echo "session=$(gsettings get org.erikreider.swaync dnd-state 2>&1)"
gsettings set org.erikreider.swaync dnd-state false
for i in $(seq 50); do [ "$($CC.GetDnd 2>&1)" = "(false,)" ] && break; sleep 0.1; done
echo "heard=$(timeout 5 swaync-client -D 2>&1)"
'''


def test_swaync_do_not_disturb_reaches_the_sessions_dconf(tmp_path):
    """Real swaync behind the bridge, in a headless sway, the whole session as user nobody (sway
    refuses root): its Do Not Disturb switch, saved with GSettings, lands in the session's dconf,
    and a change made in the session reaches swaync."""
    for tool in ("sway", "swaync", "swaync-client", "setpriv", "gsettings"):
        if not shutil.which(tool):
            pytest.skip("%s not installed" % tool)
    needs("/usr/libexec/dconf-service", "dconf-service")
    needs("/usr/share/glib-2.0/schemas/org.erikreider.swaync.gschema.xml", "sway-notification-center")
    require_binary(BRIDGE_BIN, "focus-bridge")
    import pwd
    import tempfile
    if os.geteuid() != 0:
        pytest.skip("not root: cannot run the session as nobody")
    nobody = pwd.getpwnam("nobody")
    top = Path(tempfile.mkdtemp(prefix="focus-relay-swaync-", dir="/tmp"))   # nobody cannot reach tmp_path
    marker = "focus-relay-test-%d" % time.monotonic_ns()
    try:
        for folder in ("services", "home", "config/focus-bridge", "run", "state", "cache"):
            (top / folder).mkdir(parents=True, mode=0o700)
        for name in ("ca.desrt.dconf.service", "org.a11y.Bus.service"):
            if (Path("/usr/share/dbus-1/services") / name).exists():
                shutil.copy(Path("/usr/share/dbus-1/services") / name, top / "services")
        (top / "bus.conf").write_text(bus_config(service_dirs=[top / "services"]))
        (top / "config/focus-bridge/config.toml").write_text(
            '[downstream]\npassthrough-names = ["org.erikreider.swaync.cc"]\n')
        (top / "sway.conf").write_text("output HEADLESS-1 resolution 640x480 bg #203040 solid_color\n")
        (top / "session.sh").write_text(SWAYNC_SESSION)
        for path in [top] + list(top.rglob("*")):
            os.chown(path, nobody.pw_uid, nobody.pw_gid)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "FOCUS_RELAY_TEST": marker, "LANG": "C.UTF-8"}
        # files, not pipes: what the session starts may outlive the script and keep a pipe open
        out, err = top / "session.out", top / "session.err"
        try:
            subprocess.run(["setpriv", "--reuid=%d" % nobody.pw_uid, "--regid=%d" % nobody.pw_gid,
                            "--clear-groups", "--", "bash", str(top / "session.sh"), str(top), BRIDGE_BIN],
                           env=env, stdin=subprocess.DEVNULL, stdout=open(out, "w"), stderr=open(err, "w"),
                           timeout=25, cwd="/")
        except subprocess.TimeoutExpired:
            pytest.fail("the swaync session did not finish within 25 s: %s" % out.read_text())
        r = subprocess.CompletedProcess([], 0, out.read_text(), err.read_text())
        if "NO-SWAY" in r.stdout:
            pytest.skip("headless sway did not start here: %s" % (top / "sway.log").read_text()[-500:])
        log = (top / "bridge.err").read_text(errors="replace") if (top / "bridge.err").exists() else ""
        result = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)
        assert result.get("before") == "false", (r.stdout, r.stderr, log[-2000:])
        assert result.get("toggled") == "true", (r.stdout, log[-2000:])
        assert result.get("session") == "true", "swaync's Do Not Disturb did not reach the session's dconf: %r\n%s" % (
            r.stdout, log[-2000:])
        assert result.get("heard") == "false", "swaync did not hear the session's change: %r" % r.stdout
        assert "dconf-WARNING" not in log, log[-2000:]
        if (top / "services" / "org.a11y.Bus.service").exists():
            assert "org.a11y.Bus was not provided" not in log, log[-2000:]
    finally:
        for pid in _marked_processes(marker):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(top, ignore_errors=True)
