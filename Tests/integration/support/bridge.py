"""The bridge under test: the real focus-bridge binary (FOCUS_BRIDGE_BIN overrides the path).

* ``bridge``          in address mode, in front of ``fake_daemon``, connected to it;
* ``bridge_factory``  ``start(mode="address", args=(), command=None, ...)`` for other modes and
                      restarts; every bridge still running at teardown gets SIGTERM and must exit 0;
* ``launch_bridge``   the same for a rig with buses of its own (desktop.DesktopSession).
"""

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from support.buses import wait_for_name
from support.clients import Client
from support.names import CONTROL_NAME, NOTIF_NAME
from support.processes import BRIDGE_BIN, LineReader, require_binary, session_env
from support.reports import attach_log
from support.waiting import pump_until, wait_until

# INTERFACES.md: GetCapabilities before any daemon was seen.
CAPS_BEFORE_DAEMON = ["actions", "body"]


class Bridge:
    def __init__(self, proc, bus, argv, env, stderr_path, stdout_reader, state_home, config_home):
        self.proc = proc
        self.pid = proc.pid
        self.bus = bus
        self.argv = argv
        self.env = env
        self.stderr_path = stderr_path
        self.out = stdout_reader
        self.state_home = Path(state_home)
        self.config_home = Path(config_home)
        # The connection owning org.freedesktop.Notifications (sd-bus: the hot path, the
        # passthrough names), and the one owning the control name (`VariantConnection`: Control1, the tray,
        # the badges, the session relays): docs/ARCHITECTURE.md, "Two connections".
        self.unique_name = None
        self.control_name = None
        self.stopped = False
        self.returncode = None

    @property
    def state_dir(self):
        return self.state_home / "focus-bridge"

    def stderr(self):
        try:
            return Path(self.stderr_path).read_text(errors="replace")
        except OSError:
            return ""

    def stderr_tail(self, n=25):
        """The last lines of stderr without the Swift crash report's register/image dump."""
        keep = [l for l in self.stderr().splitlines()
                if l.strip() and not re.match(r"\s*(r[a-z0-9]{1,2}|[cdefgs]s|rflags|0x[0-9a-f]+)\s", l)
                and not re.match(r"\s*\d+\s+0x[0-9a-f]+", l)]
        return "\n".join(keep[-n:])

    def alive(self):
        return self.proc.poll() is None

    def stop(self, sig=signal.SIGTERM, timeout=10):
        """SIGTERM and wait (bounded); returns the exit code."""
        if not self.stopped:
            self.stopped = True
            if self.proc.poll() is None:
                self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait(5)
                self.returncode = "hung after %s (killed)" % signal.Signals(sig).name
                return self.returncode
            self.returncode = self.proc.returncode
        return self.returncode


def launch_bridge(procs, bus, argv, env, stderr_path, stdout_path, state_home, config_home, wait=True,
                  timeout=10.0):
    """Starts `argv` (focus-bridge and its arguments) serving `bus`; with `wait`, waits until it
    owns its names there (await_names)."""
    require_binary(BRIDGE_BIN, "focus-bridge")
    proc = procs.spawn(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=open(stderr_path, "ab"))
    b = Bridge(proc, bus, argv, env, stderr_path, LineReader(proc.stdout, stdout_path), state_home, config_home)
    return await_names(b, timeout) if wait else b


def await_names(b, timeout=10.0):
    """Waits (bounded) until bridge `b` owns both of its names on its bus, or fails the test with
    its stderr (and kills it)."""
    owner = wait_for_name(b.bus.conn, NOTIF_NAME, timeout, b.proc)
    if not owner or b.proc.poll() is not None:
        b.stop(signal.SIGKILL)
        pytest.fail("focus-bridge did not own %s within %.0f s (exit %r); stderr:\n%s" % (
            NOTIF_NAME, timeout, b.proc.poll(), b.stderr_tail()), pytrace=False)
    control = wait_for_name(b.bus.conn, CONTROL_NAME, timeout, b.proc)
    if not control:
        b.stop(signal.SIGKILL)
        pytest.fail("focus-bridge did not own %s within %.0f s; stderr:\n%s" % (
            CONTROL_NAME, timeout, b.stderr_tail()), pytrace=False)
    b.unique_name = owner
    b.control_name = control
    return b


@pytest.fixture
def bridge_factory(bus, daemon_bus, procs, tmp_path, request):
    """start(mode="address", args=(), command=None, ...) -> Bridge.

    Defaults: XDG_STATE_HOME=tmp/state and XDG_CONFIG_HOME=tmp/config (the same for
    every bridge of a test, so a second start reuses the state); address mode points
    at `daemon_bus`. Waits (bounded) until both bus names are owned unless wait=False.
    At teardown every bridge still running gets SIGTERM and must exit 0."""
    require_binary(BRIDGE_BIN, "focus-bridge")
    started = []
    counter = [0]

    def start(mode="address", args=(), command=None, *, state_home=None, config_home=None,
              downstream_address=None, display=None, wait=True, timeout=10.0, extra_env=None):
        counter[0] += 1
        state_home = Path(state_home or tmp_path / "state")
        config_home = Path(config_home or tmp_path / "config")
        state_home.mkdir(parents=True, exist_ok=True)
        config_home.mkdir(parents=True, exist_ok=True)
        argv = [BRIDGE_BIN]
        if mode is not None:
            argv += ["--downstream", mode]
        if mode == "address":
            argv += ["--downstream-address", downstream_address or daemon_bus.address]
        argv += list(args)
        if command:
            argv += ["--"] + list(command)
        env = session_env(bus.address, display=display, XDG_STATE_HOME=state_home,
                          XDG_CONFIG_HOME=config_home, **(extra_env or {}))
        stderr_path = tmp_path / ("bridge-%d.stderr" % counter[0])
        stdout_path = tmp_path / ("bridge-%d.stdout" % counter[0])
        # attached before it starts: a bridge that fails to start shows its stderr too
        attach_log(request.node, "focus-bridge #%d stderr (%s)" % (counter[0], " ".join(argv[1:])), stderr_path)
        b = launch_bridge(procs, bus, argv, env, stderr_path, stdout_path, state_home, config_home,
                          wait=False)
        started.append(b)
        if wait:
            await_names(b, timeout)
        return b

    yield start

    problems = []
    for b in started:
        if b.stopped:
            continue
        rc = b.stop()
        if rc != 0:
            problems.append("focus-bridge pid %d (%s) exited %r on SIGTERM; stderr tail:\n%s" % (
                b.pid, " ".join(b.argv[1:]), rc, b.stderr()[-2000:]))
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


@pytest.fixture
def bridge(bridge_factory, fake_daemon):
    """The bridge in address mode, in front of a running fake daemon, connected to it
    (Status says so: capabilities fetched, daemon signals subscribed)."""
    b = bridge_factory()
    watcher = Client(b.bus.address, "fixture watcher")
    try:
        wait_connected(watcher, 10)
    finally:
        watcher.dispose()
    return b


def wait_connected(client, timeout=10.0, connected=True):
    return wait_until(lambda: client.status()["downstream"]["connected"] is connected, timeout,
                      message="bridge's Status never reported downstream connected=%s" % connected)


def private_bus_address(bridge, timeout=10.0):
    """The private bus of a spawn-mode bridge, from its log line."""
    deadline = time.monotonic() + timeout
    while True:
        for line in bridge.stderr().splitlines():
            if "private bus for the daemon at " in line:
                return line.split("private bus for the daemon at ", 1)[1].strip()
        if time.monotonic() > deadline:
            raise AssertionError("no 'private bus for the daemon at' line in the bridge's stderr:\n" +
                                 bridge.stderr()[-2000:])
        pump_until(lambda: False, 0.05)
