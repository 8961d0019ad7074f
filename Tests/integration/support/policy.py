"""The HIG policy (interruption levels, presentation, actions): a bridge started with a given
config.toml in front of the recording fake daemon, and readers for what the daemon received.

* ``policy_bridge``  ``start(config=None, caps=None, args=()) -> (bridge, fake_daemon)``.
"""

import re

import pytest

from support.bridge import wait_connected
from support.clients import Client
from support.config_files import write_config

MARKER = "\u26a0 "  # focus-bridge.toml(5), ACTIONS: the default destructive-marker


@pytest.fixture
def policy_bridge(bridge_factory, fake_daemon_factory, tmp_path):
    """start(config=None, caps=None, args=()) -> (bridge, fake_daemon).

    Writes `config` (TOML text) to the default config path first, starts a fake daemon
    (with capabilities `caps`, default fake_daemon.py's list, which lacks action-icons)
    and the bridge in address mode in front of it, and waits until the bridge reports the
    daemon connected (capabilities fetched)."""

    def start(config=None, caps=None, args=(), extra_env=None):
        fd_args = ("--capabilities", ",".join(caps)) if caps is not None else ()
        fake = fake_daemon_factory(*fd_args)
        if config is not None:
            write_config(tmp_path, config)
        b = bridge_factory(args=args, extra_env=extra_env)
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
