"""The programs under test and every process a test starts.

* ``BRIDGE_BIN`` / ``FOCUSCTL_BIN``: the binaries (``FOCUS_BRIDGE_BIN`` / ``FOCUSCTL_BIN`` override
  them; a binary not built skips the test, ``require_binary``);
* ``procs``: a test's ``Procs``, which kills at teardown whatever the test started and left running;
* ``LineReader``: a process's output, line by line, awaited with a bound;
* ``session_env``: the environment of a program of the test's session (its bus, nothing of ours);
* ``memory_of``: a process's resident and peak memory.
"""

import errno
import os
import queue
import select
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

SUPPORT = Path(__file__).resolve().parent
REPO = SUPPORT.parent.parent.parent
BRIDGE_BIN = os.environ.get("FOCUS_BRIDGE_BIN", str(REPO / ".build" / "debug" / "focus-bridge"))
FOCUSCTL_BIN = os.environ.get("FOCUSCTL_BIN", str(Path(BRIDGE_BIN).parent / "focusctl"))
# Debian's python: it has python3-gi (the python3 first on PATH may not)
PYTHON = "/usr/bin/python3"
FAKE_DAEMON = str(SUPPORT / "fake_daemon.py")


def require_binary(path, what):
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.skip("%s not built yet: %s" % (what, path))


class LineReader:
    """Drains a pipe on a thread; lines are kept and can be awaited with a bound."""

    def __init__(self, stream, tee_path=None):
        self.lines = []
        self._q = queue.Queue()
        self._tee = open(tee_path, "a", buffering=1) if tee_path else None
        self._t = threading.Thread(target=self._run, args=(stream,), daemon=True)
        self._t.start()

    def _run(self, stream):
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.lines.append(line)
            if self._tee:
                self._tee.write(line + "\n")
            self._q.put(line)
        self._q.put(None)

    def get(self, timeout):
        """Next unread line, or None at EOF/timeout."""
        try:
            return self._q.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None

    def join(self, timeout):
        """Waits (bounded) until the pipe reached EOF and every line was read."""
        self._t.join(timeout)

    def wait_for(self, predicate, timeout):
        deadline = time.monotonic() + timeout
        while True:
            line = self.get(deadline - time.monotonic())
            if line is None:
                return None
            if predicate(line):
                return line


class Procs:
    """Every process a test starts; whatever is still alive at teardown is killed."""

    def __init__(self):
        self.procs = []

    def spawn(self, argv, **kw):
        kw.setdefault("start_new_session", True)
        deadline = time.monotonic() + 10
        while True:
            try:
                proc = subprocess.Popen(argv, **kw)
                break
            except OSError as exc:
                # "Text file busy": the binary is being relinked by a build right now
                if exc.errno != errno.ETXTBSY or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.procs.append(proc)
        return proc

    def cleanup(self):
        for proc in reversed(self.procs):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    proc.kill()
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    pass


@pytest.fixture
def procs():
    p = Procs()
    yield p
    p.cleanup()


def session_env(bus_address, display=None, **extra):
    env = dict(os.environ)
    for k in ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_CURRENT_DESKTOP",
              "XDG_SESSION_DESKTOP", "DESKTOP_SESSION", "GNOME_DESKTOP_SESSION_ID",
              "FOCUS_BRIDGE_BIN", "PYTEST_CURRENT_TEST", "SWAYSOCK", "I3SOCK", "HYPRLAND_INSTANCE_SIGNATURE"):
        env.pop(k, None)
    env["DBUS_SESSION_BUS_ADDRESS"] = bus_address
    env["NO_AT_BRIDGE"] = "1"
    if display:
        env["DISPLAY"] = display
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run(argv, env, timeout=10, **kw):
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout, **kw)


def run_as_nobody(argv, env=None, timeout=10):
    """Runs argv as user nobody (skips when that is impossible here)."""
    import pwd
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user nobody")
    if os.geteuid() != 0:
        pytest.skip("not root: cannot run a command as nobody")
    env = dict(env or os.environ)
    env.update(HOME="/nonexistent", USER="nobody", LOGNAME="nobody")
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout,
                          user=nobody.pw_uid, group=nobody.pw_gid, extra_groups=[], cwd="/")


def read_first_line(proc, fd, what, timeout):
    """The first line a starting process writes to `fd` (its address, its display), bounded;
    raises RuntimeError when it exits or says nothing in time."""
    buf = b""
    deadline = time.monotonic() + timeout
    while b"\n" not in buf:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or proc.poll() is not None:
            break
        if select.select([fd], [], [], remaining)[0]:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            buf += chunk
    line = buf.split(b"\n")[0].decode().strip()
    if not line:
        raise RuntimeError("%s said nothing within %.0f s (exit %r)" % (what, timeout, proc.poll()))
    return line


def memory_of(pid):
    """(VmRSS, VmHWM) of a process in MiB."""
    fields = {}
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            key, _, value = line.partition(":")
            fields[key] = value
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024
