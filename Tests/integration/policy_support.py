"""Shared helpers for the HIG-policy integration tests (issue 3): a bridge started with a
given config.toml in front of the recording fake daemon, readers for what the daemon
received, a fake org.freedesktop.ScreenSaver, and focusctl JSON helpers.

Import the fixtures by name into a test module (pytest finds them there):

    from policy_support import policy_bridge  # noqa: F401
"""

import json
import re
from pathlib import Path

import pytest
from gi.repository import Gio, GLib

from conftest import (
    NOTIF_IFACE,
    NOTIF_NAME,
    NOTIF_PATH,
    Client,
    bus_call,
    connect,
    wait_connected,
    wait_until,
)

SCREENSAVER_NAME = "org.freedesktop.ScreenSaver"
SCREENSAVER_IFACE = "org.freedesktop.ScreenSaver"
SCREENSAVER_PATHS = ("/org/freedesktop/ScreenSaver", "/ScreenSaver")

SCREENSAVER_XML = """
<node>
  <interface name="org.freedesktop.ScreenSaver">
    <method name="GetActive">
      <arg direction="out" type="b" name="active"/>
    </method>
    <method name="GetActiveTime">
      <arg direction="out" type="u" name="seconds"/>
    </method>
    <signal name="ActiveChanged">
      <arg type="b" name="new_value"/>
    </signal>
  </interface>
</node>
"""

MARKER = "\u26a0 "  # focus-bridge.toml(5), ACTIONS: the default destructive-marker


# --------------------------------------------------------------------------- config
def config_file(tmp_path):
    """Where the bridge of bridge_factory reads its configuration by default
    ($XDG_CONFIG_HOME/focus-bridge/config.toml with XDG_CONFIG_HOME=tmp/config)."""
    return Path(tmp_path) / "config" / "focus-bridge" / "config.toml"


def write_config(tmp_path, text):
    path = config_file(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def replace_file(path, text):
    """Save the way editors do: write a new file, then rename it over the old one."""
    path = Path(path)
    tmp = path.with_name("." + path.name + ".new")
    tmp.write_text(text)
    tmp.replace(path)


# --------------------------------------------------------------------------- the bridge
@pytest.fixture
def policy_bridge(bridge_factory, fake_daemon_factory, tmp_path):
    """start(config=None, caps=None, args=()) -> (bridge, fake_daemon).

    Writes `config` (TOML text) to the default config path first, starts a fake daemon
    (with capabilities `caps`, default fake_daemon.py's list, which lacks action-icons)
    and the bridge in address mode in front of it, and waits until the bridge reports the
    daemon connected (capabilities fetched)."""

    def start(config=None, caps=None, args=()):
        fd_args = ("--capabilities", ",".join(caps)) if caps is not None else ()
        fake = fake_daemon_factory(*fd_args)
        if config is not None:
            write_config(tmp_path, config)
        b = bridge_factory(args=args)
        watcher = Client(b.bus.address, "policy watcher")
        try:
            wait_connected(watcher, 10)
        finally:
            watcher.dispose()
        return b, fake

    return start


# --------------------------------------------------------------------------- what the daemon got
def forwarded_urgency(rec):
    """The urgency hint the daemon received, as an int; it must be a byte (spec 1.2)."""
    assert "urgency" in rec["hints"], "no urgency hint forwarded: %s" % sorted(rec["hints"])
    assert rec["hint_types"]["urgency"] == "y", "urgency forwarded as %r, not a byte (%s)" % (
        rec["hint_types"]["urgency"], rec["hints"]["urgency"])
    m = re.fullmatch(r"byte 0x([0-9a-f]{2})", rec["hints"]["urgency"])
    assert m, rec["hints"]["urgency"]
    return int(m.group(1), 16)


def sound_suppressed(rec):
    """True when the daemon was told not to play a sound (suppress-sound = true)."""
    if "suppress-sound" not in rec["hints"]:
        return False
    assert rec["hint_types"]["suppress-sound"] == "b", rec["hints"]
    return rec["hints"]["suppress-sound"] == "true"


QUICK_PREFIX = "x-focus-quick."
# The quick action every notification below critical gets where there is room
# (focus-bridge.toml(5), QUICK ACTIONS; test_app_choices.py tests them).
MUTE_HOUR = ["x-focus-quick.mute-hour", "Mute 1 Hour"]


def pairs(flat):
    """The forwarded (key, label) pairs of the app's own actions (the bridge's quick actions left out)."""
    return [(flat[i], flat[i + 1]) for i in range(0, len(flat) - 1, 2) if not flat[i].startswith(QUICK_PREFIX)]


def buttons(flat):
    """The forwarded (key, label) pairs that are the app's buttons: all but default,
    inline-reply and the bridge's quick actions."""
    return [p for p in pairs(flat) if p[0] not in ("default", "inline-reply")]


def history_row(client, nid, app=""):
    rows = [r for r in client.history(0, app) if r["id"] == nid]
    assert rows, "notification %d is not in the history" % nid
    return rows[0]


# --------------------------------------------------------------------------- focusctl
def fc_json(focusctl, *args):
    r = focusctl(*args)
    assert r.returncode == 0, "focusctl %s: exit %d\nstdout: %s\nstderr: %s" % (
        " ".join(args), r.returncode, r.stdout, r.stderr)
    return json.loads(r.stdout)


def first_output_line(result):
    """The first non-empty line focusctl/focus-bridge printed, stderr first."""
    for text in (result.stderr, result.stdout):
        for line in (text or "").splitlines():
            if line.strip():
                return line
    return ""


def location_line(text, path, anywhere=False):
    """The first line of `text` of the form PATH:LINE:COLUMN: message -> (line, column,
    message), or None. With anywhere=True the location may follow other words on the
    line (a log line: "... not reloaded: PATH:LINE:COLUMN: message")."""
    pat = re.compile(r"%s%s:(\d+):(\d+): (\S.*)$" % ("" if anywhere else "^", re.escape(str(path))))
    for line in (text or "").splitlines():
        m = pat.search(line.strip())
        if m:
            return int(m.group(1)), int(m.group(2)), m.group(3)
    return None


# --------------------------------------------------------------------------- screen lock
class FakeScreenSaver:
    """org.freedesktop.ScreenSaver on its own connection to the bus, served by the test's
    main context: GetActive answers the lock state, set_locked() broadcasts ActiveChanged."""

    def __init__(self, address, locked=False):
        self.locked = locked
        self.get_active_calls = 0
        self.conn = connect(address)
        node = Gio.DBusNodeInfo.new_for_xml(SCREENSAVER_XML)
        self._regs = [self.conn.register_object(p, node.interfaces[0], self._on_call, None, None)
                      for p in SCREENSAVER_PATHS]
        (code,) = bus_call(self.conn, "RequestName", GLib.Variant("(su)", (SCREENSAVER_NAME, 4)), "(u)")
        assert code == 1, "could not own %s (%d)" % (SCREENSAVER_NAME, code)

    def _on_call(self, _conn, _sender, _path, _iface, method, _params, invocation):
        if method == "GetActive":
            self.get_active_calls += 1
            invocation.return_value(GLib.Variant("(b)", (self.locked,)))
        elif method == "GetActiveTime":
            invocation.return_value(GLib.Variant("(u)", (0,)))

    def wait_asked(self, timeout=5.0):
        """Wait until someone (the bridge) asked GetActive, then make sure the bridge has
        dispatched the answer before anything a test sends afterwards (sync)."""
        wait_until(lambda: self.get_active_calls > 0, timeout,
                   message="nobody asked org.freedesktop.ScreenSaver GetActive")
        self.sync()

    def set_locked(self, locked):
        self.locked = locked
        self.conn.emit_signal(None, SCREENSAVER_PATHS[0], SCREENSAVER_IFACE, "ActiveChanged",
                              GLib.Variant("(b)", (locked,)))
        self.sync()

    def sync(self):
        """A method call to the bridge from this connection: messages from one connection
        arrive in order, so once the bridge answers, it has dispatched what we sent before
        (the GetActive reply, the ActiveChanged signal)."""
        self.conn.flush_sync(None)
        self.conn.call_sync(NOTIF_NAME, NOTIF_PATH, NOTIF_IFACE, "GetServerInformation", None,
                            GLib.VariantType("(ssss)"), Gio.DBusCallFlags.NONE, 5000, None)

    def dispose(self):
        for r in self._regs:
            self.conn.unregister_object(r)
        try:
            self.conn.close_sync(None)
        except GLib.Error:
            pass


@pytest.fixture
def screensaver_factory(bus):
    made = []

    def make(locked=False):
        ss = FakeScreenSaver(bus.address, locked)
        made.append(ss)
        return ss

    yield make
    for ss in made:
        ss.dispose()
