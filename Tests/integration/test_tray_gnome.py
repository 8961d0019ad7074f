"""The tray switch in GNOME Shell 43 with the AppIndicator extension (Debian's
gnome-shell-extension-appindicator, uuid ubuntu-appindicators@ubuntu.com), headless, as
test_gnome.py runs the shell. The extension is the StatusNotifierWatcher: the bridge registers
with it, the extension puts an indicator in the top bar with our icon and builds its menu from
our dbusmenu; activating the menu's "work" item turns that Focus on. Read and clicked through
org.gnome.Shell.Eval (unsafe mode). Skipped when GNOME Shell or the extension is missing."""

import json
import shutil
from pathlib import Path

import pytest

import signal
import subprocess

from gi.repository import Gio, GLib

from support.desktop import DesktopSession
from support.waiting import bounded_poll

TEST_TIMEOUT = 60
APPINDICATOR = "ubuntu-appindicators@ubuntu.com"
SHELL = "org.gnome.Shell"
# as in test_gnome.py: the one-line extension that lets org.gnome.Shell.Eval run, and the only
# activation files the shell needs
EXTENSION_UUID = "unsafe-mode@focusbridge.test"
SERVICES = ["org.gnome.Shell.Notifications", "ca.desrt.dconf", "org.a11y.Bus"]


class GnomeShell:
    def __init__(self, session):
        self.session = session
        self.proc = session.spawn(["gnome-shell", "--headless", "--virtual-monitor", "1280x800", "--wayland",
                                   "--no-x11"], "gnome-shell.log")

    def eval(self, js):
        ok, out = self.session.bus.conn.call_sync(
            SHELL, "/org/gnome/Shell", "org.gnome.Shell", "Eval", GLib.Variant("(s)", (js,)),
            GLib.VariantType("(bs)"), Gio.DBusCallFlags.NONE, 5000, None).unpack()
        if not ok:
            raise AssertionError("org.gnome.Shell.Eval failed: %s" % out)
        return json.loads(out) if out else None

    def stop(self):
        """SIGTERM; gnome-shell 43 segfaults on its way out (harmless)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
CONFIG = """
[focus.work]
apps = ["Mail"]
"""

INDICATORS = """(() => {
    const r = [];
    for (const [key, icon] of Object.entries(imports.ui.main.panel.statusArea))
        if (icon && icon._indicator && icon._indicator._proxy)
            r.push({key, id: icon._indicator.id, visible: icon.visible,
                    icon: icon._indicator._proxy.IconName,
                    items: icon.menu._getMenuItems().map(i => (i.label && i.label.text) || null)});
    return r; })()"""


@pytest.fixture
def gnome(tmp_path):
    for tool in ("gnome-shell", "gjs", "gsettings"):
        if not shutil.which(tool):
            pytest.skip("%s not installed (apt-get install gnome-shell gjs)" % tool)
    if not Path("/usr/share/gnome-shell/extensions/%s" % APPINDICATOR).is_dir():
        pytest.skip("the AppIndicator extension is not installed (gnome-shell-extension-appindicator)")
    session = DesktopSession(tmp_path / "gnome", "gnome", SERVICES,
                             desktop_env={"XDG_CURRENT_DESKTOP": "GNOME", "XDG_SESSION_TYPE": "wayland"})
    shell = None
    try:
        ext = session.dirs["XDG_DATA_HOME"] / "gnome-shell" / "extensions" / EXTENSION_UUID
        ext.mkdir(parents=True)
        (ext / "metadata.json").write_text(json.dumps({
            "uuid": EXTENSION_UUID, "name": "Unsafe mode for FocusBridge's tests",
            "description": "Lets org.gnome.Shell.Eval run", "shell-version": ["43"]}))
        (ext / "extension.js").write_text(
            "function init() { return { enable() { global.context.unsafe_mode = true; },"
            " disable() { global.context.unsafe_mode = false; } }; }\n")
        r = session.run(["gsettings", "set", "org.gnome.shell", "enabled-extensions",
                         "['%s', '%s']" % (EXTENSION_UUID, APPINDICATOR)])
        assert r.returncode == 0, r.stderr
        session.write_config(CONFIG)
        session.bridge = session.start_bridge("--downstream", "log")
        shell = GnomeShell(session)
        session.shell = shell
        bounded_poll(lambda: session.bus.owner(SHELL), 20, "gnome-shell never owned %s" % SHELL)
        bounded_poll(lambda: shell.eval("global.context.unsafe_mode") is True, 20,
                     "GNOME Shell never went into unsafe mode (the extension):\n" + session.log_tails())
        yield session
    finally:
        if shell is not None:
            shell.stop()
        session.stop()


def test_gnome_appindicator_shows_the_switch_and_its_menu_turns_a_focus_on(gnome):
    shell, bridge = gnome.shell, gnome.bridge
    bounded_poll(lambda: "registered with the tray" in bridge.stderr(), 20,
                 "the bridge never registered with the AppIndicator extension")

    def ours():
        found = [i for i in shell.eval(INDICATORS) if i["id"] == "focus-bridge"]
        return found[0] if found and found[0]["visible"] and "work" in found[0]["items"] else None

    indicator = bounded_poll(ours, 20, "no FocusBridge indicator with its menu in the top bar")
    assert indicator["icon"] == "preferences-system-notifications-symbolic", indicator
    assert indicator["items"][:3] == ["work", "dnd", "Off"], indicator["items"]
    assert "Silent" in indicator["items"] and "Reload Configuration" in indicator["items"], indicator["items"]

    # what a click on the menu's "work" does: the item's activate
    clicked = shell.eval("""(() => {
        const icon = imports.ui.main.panel.statusArea[%s];
        const item = icon.menu._getMenuItems().find(i => i.label && i.label.text === 'work');
        const Clutter = imports.gi.Clutter;
        item.activate(Clutter.Event.new(Clutter.EventType.BUTTON_RELEASE));
        return true; })()""" % json.dumps(indicator["key"]))
    assert clicked is True
    client = gnome.client("gnome tray watcher")
    bounded_poll(lambda: (client.status()["focus"] or {}).get("name") == "work", 10,
                 "the menu's work did not turn the Focus on")
    bounded_poll(lambda: ours() and ours()["icon"] == "notification-disabled-symbolic", 10,
                 "the indicator's icon did not follow the Focus")
