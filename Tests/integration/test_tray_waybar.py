"""The tray switch in a real tray: waybar's tray module under a headless sway (as the interop
tests run it: sway as user nobody, screenshots with grim, clicks with ../shared/tools/vclick).
waybar is the StatusNotifierWatcher and the host: the bridge registers with it, the icon is
drawn in the bar, a click opens the dbusmenu menu (libdbusmenu-gtk) and a click on a Focus in it
turns that Focus on. Skipped when waybar, sway or grim is missing."""

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from support.buses import wait_for_name
from support.displays import SwaySession, build_vclick
from support.focusctl import status
from support.screens import WaylandScreen
from support.tray import WATCHER_NAME
from support.waiting import pump_for, wait_until

TEST_TIMEOUT = 90

WORK = """
[focus.work]
apps = ["Mail"]
"""

BAR_HEIGHT = 30
WAYBAR_CONFIG = {
    "layer": "top", "position": "top", "height": BAR_HEIGHT,
    "modules-left": [], "modules-center": [], "modules-right": ["tray"],
    "tray": {"icon-size": 24, "spacing": 8},
}
# a plain light bar (the symbolic icon is drawn black); the menu in GTK's default look (a rule
# on `*` would reach the menu too: `min-height: 0` flattens its check boxes to dashes)
WAYBAR_STYLE = """
window#waybar { background: #d0d0d0; color: #000000; font-family: sans-serif; font-size: 13px; }
#tray { padding: 0 8px; }
"""


@pytest.fixture
def sway():
    for tool in ("sway", "grim", "waybar", "setpriv"):
        if not shutil.which(tool):
            pytest.skip("%s is not installed (scripts/install-deps.sh installs it)" % tool)
    # outside pytest's folders: sway runs as nobody, who cannot enter them
    folder = tempfile.mkdtemp(prefix="focus-bridge-sway-")
    try:
        session = SwaySession(folder)
    except RuntimeError as error:
        pytest.fail(str(error), pytrace=False)
    yield session
    session.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def vclick(tmp_path):
    binary, why = build_vclick(tmp_path / "vclick")
    return binary or why


@pytest.fixture
def waybar(sway, bus, procs, tmp_path):
    folder = tmp_path / "waybar"
    folder.mkdir()
    (folder / "config").write_text(json.dumps(WAYBAR_CONFIG))
    (folder / "style.css").write_text(WAYBAR_STYLE)
    runtime = folder / "run"
    runtime.mkdir(mode=0o700)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(folder), "XDG_RUNTIME_DIR": str(runtime),
           "WAYLAND_DISPLAY": str(sway.socket), "DBUS_SESSION_BUS_ADDRESS": bus.address,
           "XDG_DATA_DIRS": "/usr/share", "GDK_BACKEND": "wayland", "NO_AT_BRIDGE": "1"}
    log = folder / "waybar.log"
    proc = procs.spawn(["waybar", "-c", str(folder / "config"), "-s", str(folder / "style.css")], env=env,
                       stdin=subprocess.DEVNULL, stdout=open(log, "ab"), stderr=subprocess.STDOUT)
    # waybar's tray is the watcher: it owns the name once its bar is up
    if not wait_for_name(bus.conn, WATCHER_NAME, 20, proc):
        pytest.fail("waybar did not own %s: %s" % (WATCHER_NAME, log.read_text(errors="replace")[-1500:]))
    return proc, log


def icon_box(shot, base):
    """The part of the bar that differs from `base` (the bar before the icon came)."""
    count, box = shot.diff(base, box=(0, 0, shot.width, BAR_HEIGHT))
    return box if count >= 20 else None


def test_waybar_shows_the_switch_and_a_click_in_its_menu_turns_a_focus_on(
        sway, vclick, waybar, bridge_factory, fake_daemon, config, focusctl, tmp_path):
    screen = WaylandScreen(dict(os.environ, WAYLAND_DISPLAY=str(sway.socket)), tmp_path / "shots", vclick)
    # the bar with an empty tray
    empty, _ = screen.wait_for(lambda s: s.diff(screen.grab(), box=(0, 0, s.width, BAR_HEIGHT))[0] == 0,
                               10, "the bar did not settle")
    screen.keep(empty, "empty-bar")

    config(WORK)
    b = bridge_factory()
    wait_until(lambda: "registered with the tray" in b.stderr(), 10,
               message=lambda: "the bridge did not register with waybar's tray:\n" + b.stderr_tail())
    shot, box = screen.wait_for(lambda s: icon_box(s, empty), 10, "waybar drew no icon for the tray switch")
    icon = screen.keep(shot, "icon")
    x0, y0, x1, y1 = box
    assert x1 - x0 <= 40 and y1 <= BAR_HEIGHT, box

    # a click on the icon opens the menu (ItemIsMenu); a click on its first item, "work"
    screen.click((x0 + x1) // 2, (y0 + y1) // 2)
    menu, menu_box = screen.wait_popup(shot, 10, "waybar opened no menu")
    screen.keep(menu, "menu")
    mx0, my0, mx1, my1 = menu_box
    assert my1 - my0 > 100, menu_box   # eight items, two of them separators
    first_item_y = my0 + 18
    screen.click((mx0 + mx1) // 2, first_item_y)
    wait_until(lambda: (status(focusctl)["focus"] or {}).get("name") == "work", 10,
               message="the click in waybar's menu did not turn work on")

    # the icon follows: the Focus icon is another picture
    after, _ = screen.wait_for(lambda s: not s.identical(shot) and s.diff(shot, box=(0, BAR_HEIGHT, s.width, s.height))[0] == 0
                               and s.diff(shot, box=(x0, y0, x1, y1))[0] > 0, 10,
                               "the icon did not change when the Focus came on")
    screen.keep(after, "focus-icon")

    # the menu again: it shows work chosen
    screen.click((x0 + x1) // 2, (y0 + y1) // 2)
    again, _ = screen.wait_popup(after, 10, "waybar opened no menu the second time")
    screen.keep(again, "menu-again")
    # the same menu, but the radio mark moved from Off to work
    moved, moved_box = again.diff(menu, box=(mx0, my0, mx0 + 40, my1))
    assert moved > 0 and moved_box[3] - moved_box[1] > 40, (moved, moved_box)   # two rows apart
