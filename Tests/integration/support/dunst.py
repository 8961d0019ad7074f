"""dunst 1.9 behind the bridge: spawned by it on the session's Xvfb, with dunstctl at hand.

* ``dunstrc``  a test configuration (few popups, no merging, no timeouts, a history);
* ``dunst``    the bridge in spawn mode in front of dunst, and a client (``Dunst``).
"""

import json
import os
import shutil
import stat

import pytest

from support.bridge import wait_connected
from support.processes import run, session_env

DUNSTRC = """[global]
    notification_limit = 5
    stack_duplicates = false
    idle_threshold = 0
    history_length = 100
    sticky_history = yes
    show_indicators = no
    font = Monospace 8
    format = "%s %b"
    mouse_left_click = close_current
[urgency_low]
    timeout = 0
[urgency_normal]
    timeout = 0
[urgency_critical]
    timeout = 0
"""


@pytest.fixture
def dunstrc(tmp_path):
    if not shutil.which("dunst"):
        pytest.skip("dunst not installed")
    path = tmp_path / ("dunstrc-%d" % os.getpid())
    path.write_text(DUNSTRC)
    return path


def pick_from_menu(dunstrc, folder, label):
    """Makes dunst's context menu (`dunstctl context`) a script that picks the first line with
    `label`, in place of dmenu; returns the file that keeps the lines dunst offered."""
    offered = folder / "menu-input.txt"
    menu = folder / "pick-menu.sh"
    # dunst writes the menu's lines to the program's input and reads back the chosen one.
    menu.write_text("#!/bin/sh\ntee %s | grep -m1 '%s'\n" % (offered, label))
    menu.chmod(menu.stat().st_mode | stat.S_IXUSR)
    dunstrc.write_text(dunstrc.read_text().replace("[global]\n", "[global]\n    dmenu = %s\n" % menu, 1))
    return offered


class Dunst:
    """dunst spawned by the bridge: the bridge, a client, the environment and `ctl` (dunstctl)."""

    def __init__(self, bridge_factory, xvfb, dunstrc, make_client, bus, client_name):
        self.bridge = bridge_factory("spawn", command=["dunst", "-config", str(dunstrc)], display=xvfb)
        self.client = make_client(client_name)
        wait_connected(self.client, 15)
        self.env = session_env(bus.address, display=xvfb)
        self.rc = dunstrc

    def ctl(self, *args):
        r = run(["dunstctl", *args], self.env, timeout=10)
        assert r.returncode == 0, "dunstctl %s failed: %s" % (" ".join(args), r.stderr)
        return r.stdout

    def count(self, what):
        return int(self.ctl("count", what).strip())

    def displayed(self):
        return self.count("displayed")

    def history(self):
        return [{k: v.get("data") for k, v in item.items()} for item in json.loads(self.ctl("history"))["data"][0]]


@pytest.fixture
def dunst(bridge_factory, xvfb, dunstrc, make_client, bus):
    """The bridge in spawn mode in front of dunst on the session's Xvfb, and a client."""
    return Dunst(bridge_factory, xvfb, dunstrc, make_client, bus, "dunst client")
