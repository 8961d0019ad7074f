"""A headless desktop session for the GNOME Shell and Plasma tests (test_gnome.py, test_plasma.py).

What the shells need, headless, and the other tests do not:

* HOME and the XDG folders of a user of their own, set *before* the buses start: services the
  session bus activates inherit the bus's environment and would otherwise write under root's home;
* a system bus (a second dbus-daemon, DBUS_SYSTEM_BUS_ADDRESS): gnome-shell dies without one;
* a session bus whose service folder holds copies of only the activation files the shell needs
  (its own helpers, ca.desrt.dconf, org.a11y.Bus): never those of dunst, mako, swaync or
  xfce4-notifyd, which a stock session bus would start as soon as org.freedesktop.Notifications
  is free (buses.ServiceBus);
* the bridge started first, in `name` mode, then the shell.

Everything is started once per test module (`DesktopSession`, module-scoped fixtures in the test
files), so it keeps its own processes (processes.Procs) and stops them itself. Every wait is
bounded; a condition is awaited where one can be.
"""

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from gi.repository import GLib

from support.bridge import launch_bridge
from support.buses import ServiceBus, bus_call
from support.clients import Client
from support.displays import start_xvfb
from support.processes import BRIDGE_BIN, FOCUSCTL_BIN, LineReader, Procs, require_binary, session_env
from support.waiting import pump_until


class DesktopSession:
    """A user's session without the user: folders, a system bus, a session bus activating only
    `services`, the bridge, and the shell; with `x_display`, an Xvfb display first. `stop()` ends
    everything it started."""

    def __init__(self, root, label, services, desktop_env=None, x_display=False):
        self.root = Path(root)
        self.label = label
        self.procs = Procs()
        self.logs = []
        home = self.root / "home"
        self.home = home
        self.dirs = {
            "HOME": home,
            "XDG_CONFIG_HOME": home / ".config",
            "XDG_DATA_HOME": home / ".local" / "share",
            "XDG_CACHE_HOME": home / ".cache",
            "XDG_STATE_HOME": home / ".local" / "state",
            "XDG_RUNTIME_DIR": self.root / "runtime",
        }
        for path in self.dirs.values():
            path.mkdir(parents=True, exist_ok=True)
        os.chmod(self.dirs["XDG_RUNTIME_DIR"], 0o700)
        base = session_env("unix:path=/nonexistent")
        del base["DBUS_SESSION_BUS_ADDRESS"]
        base.pop("DBUS_SYSTEM_BUS_ADDRESS", None)
        base.update({k: str(v) for k, v in self.dirs.items()})
        base.update(desktop_env or {})
        self.display = None
        if x_display:
            # before the buses: what they activate (Qt programs) needs DISPLAY too
            self.display, _ = start_xvfb(self.procs, self.log("xvfb.log"))
            base["DISPLAY"] = self.display
        self.system_bus = ServiceBus(self.root, "system", self.procs, base, kind="system")
        base["DBUS_SYSTEM_BUS_ADDRESS"] = self.system_bus.address
        self.bus = ServiceBus(self.root, "session", self.procs, base, services=services)
        base["DBUS_SESSION_BUS_ADDRESS"] = self.bus.address
        self.env = base
        self.bridge = None
        self.clients = []

    @property
    def config_file(self):
        return self.dirs["XDG_CONFIG_HOME"] / "focus-bridge" / "config.toml"

    def write_config(self, text):
        self.config_file.parent.mkdir(parents=True, exist_ok=True)
        self.config_file.write_text(text)

    def log(self, name):
        path = self.root / name
        self.logs.append((name, str(path)))
        return path

    def spawn(self, argv, log_name, env=None, **kw):
        return self.procs.spawn(argv, env=env or self.env, stdin=subprocess.DEVNULL,
                                stdout=kw.pop("stdout", open(self.log(log_name), "ab")),
                                stderr=kw.pop("stderr", subprocess.STDOUT), **kw)

    def run(self, argv, timeout=10, env=None):
        return subprocess.run(argv, env=env or self.env, capture_output=True, text=True, timeout=timeout)

    # -- the bridge -----------------------------------------------------------
    def start_bridge(self, *args, wait=True, label="bridge"):
        return launch_bridge(self.procs, self.bus, [BRIDGE_BIN, *args], self.env, self.log("%s.stderr" % label),
                             self.log("%s.stdout" % label), self.dirs["XDG_STATE_HOME"],
                             self.dirs["XDG_CONFIG_HOME"], wait=wait)

    def client(self, label="app"):
        c = Client(self.bus.address, label)
        self.clients.append(c)
        return c

    def focusctl(self, *args, timeout=15):
        require_binary(FOCUSCTL_BIN, "focusctl")
        r = self.run([FOCUSCTL_BIN, *args], timeout=timeout)
        assert r.returncode == 0, "focusctl %s exited %d: %s%s" % (" ".join(args), r.returncode, r.stdout, r.stderr)
        return r.stdout

    def notify_send(self, *args, wait=False):
        """notify-send as a user runs it; with wait=True it is left running (Popen, stdout kept)."""
        argv = ["notify-send", *args]
        if wait:
            return self.procs.spawn(argv, env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
        r = self.run(argv)
        assert r.returncode == 0, "notify-send failed: %s" % r.stderr
        return r.stdout

    def watch_notifies(self, unique_name=None, *names):
        """A bus monitor (busctl monitor --json=short) that records every Notify call to the
        connection `unique_name` (or its well-known `names`) and its answer: see NotifyMonitor."""
        return NotifyMonitor(self, unique_name, names)

    # -- the end --------------------------------------------------------------
    def stop(self):
        for c in self.clients:
            c.dispose()
        self.clients = []
        if self.bridge is not None and not self.bridge.stopped:
            self.bridge.stop()
        self.bus.stop()
        self.system_bus.stop()
        self.procs.cleanup()

    def log_tails(self, n=40):
        parts = []
        for name, path in self.logs:
            try:
                lines = Path(path).read_text(errors="replace").splitlines()
            except OSError:
                continue
            if lines:
                parts.append("--- %s (last %d lines)\n%s" % (name, min(n, len(lines)), "\n".join(lines[-n:])))
        return "\n".join(parts)


class NotifyMonitor:
    """`busctl monitor` on the session bus: the Notify calls that reach the shell's connection and
    the IDs it answers with. busctl prints one JSON object per message."""

    def __init__(self, session, unique_name, names=()):
        if not shutil.which("busctl"):
            pytest.skip("busctl (systemd) not installed")
        self.destination = None
        self.names = set(names)
        if unique_name:
            self.set_daemon(unique_name)
        self.proc = session.procs.spawn(
            ["busctl", "--address=%s" % session.bus.address, "monitor", "--json=short"],
            env=session.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.out = LineReader(self.proc.stdout, session.log("busctl-monitor.json"))
        self.messages = []
        self._read = 0
        # busctl becomes a monitor (BecomeMonitor) once connected: a call made after that is seen.
        marker = "focus-bridge-test-marker-%d" % time.monotonic_ns()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            bus_call(session.bus.conn, "NameHasOwner", GLib.Variant("(s)", (marker,)), "(b)")
            if self._poll(lambda m: marker in json.dumps(m.get("payload", {})), 0.2):
                return
        pytest.fail("busctl monitor never saw a call on the session bus", pytrace=False)

    def set_daemon(self, unique_name):
        """The daemon's connection, once known (its signals are told apart by it)."""
        self.destination = unique_name
        self.names.add(unique_name)

    def _poll(self, predicate, timeout):
        deadline = time.monotonic() + timeout
        while True:
            for line in self.out.lines[self._read:]:
                self._read += 1
                try:
                    self.messages.append(json.loads(line))
                except ValueError:
                    continue
            if any(predicate(m) for m in self.messages):
                return True
            if time.monotonic() >= deadline:
                return False
            pump_until(lambda: False, 0.05)

    def notifies(self):
        """[(summary, reply_id or None)] of the Notify calls to the destination, in order."""
        self._poll(lambda m: False, 0)
        calls, replies = [], {}
        for m in self.messages:
            if m.get("type") == "method_call" and m.get("member") == "Notify" and m.get("destination") in self.names:
                data = m["payload"]["data"]
                calls.append((m.get("cookie"), m.get("sender"), data[3], data))
            elif m.get("type") == "method_return":
                # serials are per connection: (serial, caller) names one call
                replies[(m.get("reply_cookie"), m.get("destination"))] = m["payload"]["data"]
        out = []
        for cookie, sender, summary, data in calls:
            reply = replies.get((cookie, sender))
            out.append({"summary": summary, "body": data[4], "app": data[0], "actions": data[5],
                        "hints": data[6], "sender": sender, "id": reply[0] if reply else None})
        return out

    def calls(self, member):
        """[(arguments, reply or None)] of the calls of `member` to the destination, in order."""
        self._poll(lambda m: False, 0)
        calls, replies = [], {}
        for m in self.messages:
            if m.get("type") == "method_call" and m.get("member") == member and m.get("destination") in self.names:
                calls.append((m.get("cookie"), m.get("sender"), m.get("payload", {}).get("data", [])))
            elif m.get("type") == "method_return":
                replies[(m.get("reply_cookie"), m.get("destination"))] = m.get("payload", {}).get("data", [])
        return [(data, replies.get((cookie, sender))) for cookie, sender, data in calls]

    def wait_answered(self, summary, timeout=10):
        """The Notify call with `summary` once the destination answered it with an ID."""
        def answered():
            found = [n for n in self.notifies() if n["summary"] == summary and n["id"]]
            return found[-1] if found else None
        found = pump_until(answered, timeout)
        if not found:
            pytest.fail("no Notify %r answered by %s within %.0f s; seen: %r" % (
                summary, self.destination, timeout, [(n["summary"], n["id"]) for n in self.notifies()]),
                pytrace=False)
        return found

    def summaries(self):
        return [n["summary"] for n in self.notifies()]

    def closed_by_daemon(self, daemon_id):
        """The reasons of the NotificationClosed signals the daemon sent for its ID `daemon_id`."""
        self._poll(lambda m: False, 0)
        return [m["payload"]["data"][1] for m in self.messages
                if m.get("type") == "signal" and m.get("member") == "NotificationClosed"
                and m.get("sender") == self.destination and m["payload"]["data"][0] == daemon_id]


def unique_token(prefix):
    return "%s %d" % (prefix, time.monotonic_ns() % 10**9)
