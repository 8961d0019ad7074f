"""The real notification daemons behind the bridge (test_interop.py, README.md's "Works with"
table): how each is run, clicked, listed and silenced. X11 daemons (dunst, xfce4-notifyd,
notification-daemon, lxqt-notificationd) draw on the session's Xvfb; Wayland daemons (mako,
swaync) on a headless sway (displays.SwaySession).
"""

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

# --------------------------------------------------------------------------- daemons
@dataclass
class Daemon:
    """How one daemon is run, clicked, listed and silenced.

    click: "button" — the action is a button in the popup, found as the part of the popup that
    changes when only the button's label changes; "popup-middle" — a middle click on the popup
    runs its only action (dunst's do_action); "popup-default" — a left click on the popup
    runs the action named "default" (mako: no buttons, non-default keys need makoctl).
    """
    id: str
    package: str
    executable: str
    display: str  # "x11" | "wayland"
    click: str
    dnd: str = None  # how its own DND is switched; None: it has none
    dnd_xfail: str = None  # reason the DND check cannot pass yet
    close_xfail: str = None  # reason the popup stays drawn after CloseNotification
    no_dnd: str = None  # why there is no DND check (dnd None)


DAEMONS = [
    Daemon("dunst", "dunst", "dunst", "x11", "popup-middle", dnd="dunstctl set-paused true"),
    Daemon("mako", "mako-notifier", "mako", "wayland", "popup-default", dnd="makoctl mode -a do-not-disturb"),
    Daemon("swaync", "sway-notification-center", "swaync", "wayland", "button", dnd="swaync-client -dn",
           dnd_xfail="swaync keeps Do Not Disturb in GSettings (dconf, ca.desrt.dconf), which the "
                     "daemon's private bus cannot reach without the session-services relay (this "
                     "build does not know [downstream] session-names): swaync-client -dn answers false"),
    Daemon("xfce4-notifyd", "xfce4-notifyd", "/usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd", "x11",
           "button", dnd="xfconf-query -c xfce4-notifyd -p /do-not-disturb -s true",
           dnd_xfail="xfce4-notifyd reads Do Not Disturb from xfconf (org.xfce.Xfconf on the session "
                     "bus), which the daemon's private bus cannot reach without the session-services "
                     "relay (this build does not know [downstream] session-names)"),
    Daemon("notification-daemon", "notification-daemon", "/usr/lib/notification-daemon/notification-daemon",
           "x11", "button",
           close_xfail="notification-daemon 3.20 answers CloseNotification and emits "
                       "NotificationClosed(id, 3) but leaves the popup drawn (under Xvfb without a "
                       "window manager), also when no bridge is in between",
           no_dnd="notification-daemon has no Do Not Disturb"),
    Daemon("lxqt-notificationd", "lxqt-notificationd", "lxqt-notificationd", "x11", "button",
           no_dnd="lxqt-notificationd's Do Not Disturb has no command-line switch (only the "
                  "lxqt-config-notificationd dialog and the LXQt panel)"),
]


def installed(daemon):
    exe = daemon.executable
    return os.access(exe, os.X_OK) if exe.startswith("/") else shutil.which(exe) is not None


DUNSTRC = """[global]
    notification_limit = 5
    stack_duplicates = false
    idle_threshold = 0
    show_indicators = no
    font = Monospace 8
    format = "<b>%s</b>\\n%b"
    mouse_left_click = close_current
    mouse_middle_click = do_action
[urgency_low]
    timeout = 0
[urgency_normal]
    timeout = 0
[urgency_critical]
    timeout = 0
"""

MAKO_CONFIG = """default-timeout=0
max-visible=5
[mode=do-not-disturb]
invisible=1
"""


def daemon_command(daemon, folder):
    """The daemon's argv behind the bridge, with a test configuration written into `folder`
    where the daemon takes one (popups stay until closed; no animations)."""
    folder = Path(folder)
    if daemon.id == "dunst":
        (folder / "dunstrc").write_text(DUNSTRC)
        return ["dunst", "-config", str(folder / "dunstrc")]
    if daemon.id == "mako":
        (folder / "mako.conf").write_text(MAKO_CONFIG)
        return ["mako", "-c", str(folder / "mako.conf")]
    if daemon.id == "swaync":
        stock = Path("/etc/xdg/swaync/config.json")
        config = json.loads(stock.read_text()) if stock.is_file() else {}
        config.update({"timeout": 0, "timeout-low": 0, "timeout-critical": 0, "transition-time": 0,
                       "scripts": {}, "notification-visibility": {}})
        config.pop("$schema", None)
        (folder / "swaync.json").write_text(json.dumps(config))
        argv = ["swaync", "-c", str(folder / "swaync.json")]
        if Path("/etc/xdg/swaync/style.css").is_file():
            argv += ["-s", "/etc/xdg/swaync/style.css"]
        return argv
    return [daemon.executable]
