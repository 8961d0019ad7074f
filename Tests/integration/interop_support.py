"""The rig for test_interop.py: real notification daemons behind the bridge, seen on a real screen.

* X11 daemons (dunst, xfce4-notifyd, notification-daemon, lxqt-notificationd) draw on the
  session's Xvfb (conftest's ``xvfb``); screenshots with ImageMagick's ``import -window root``,
  clicks with ``xdotool``.
* Wayland daemons (mako, swaync) need layer-shell: a headless sway (``SwaySession``). sway
  refuses to run as root, so as root the whole compositor runs as user nobody (``setpriv``) in
  folders of its own; the test's processes (the bridge, the daemon it spawns, grim, vclick) stay
  root and reach its socket by absolute path (``WAYLAND_DISPLAY=/…/wayland-1``). Screenshots with
  ``grim``; clicks with ``vclick`` (../shared/tools/vclick, built once per session into a
  temporary folder: a wlr virtual pointer, as the headless output has no pointer).

Screens are compared as raw RGB (PPM): a popup is where the screen differs from the screen
taken before it was sent; "gone" is the screen equal to that one again. Every wait polls the
screen with a bound (nothing signals a redraw).
"""

import json
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import REPO, pump_for

VCLICK_SRC = REPO.parent / "shared" / "tools" / "vclick"

# A pixel counts as changed when one of its channels moved by more than this: antialiasing
# noise and faint drop shadows stay out of popup boxes, text and borders do not.
CHANGED = 40


# --------------------------------------------------------------------------- images
@dataclass
class Shot:
    """One RGB screenshot (8-bit)."""
    width: int
    height: int
    data: bytes

    @classmethod
    def from_ppm(cls, blob):
        # P6 <w> <h> <maxval> then raw bytes; tokens separated by whitespace, no comments here
        fields, pos = [], 0
        while len(fields) < 4:
            while blob[pos:pos + 1].isspace():
                pos += 1
            start = pos
            while not blob[pos:pos + 1].isspace():
                pos += 1
            fields.append(blob[start:pos])
        pos += 1
        if fields[0] != b"P6" or int(fields[3]) != 255:
            raise ValueError("not an 8-bit binary PPM: %r" % fields)
        w, h = int(fields[1]), int(fields[2])
        data = blob[pos:pos + w * h * 3]
        if len(data) != w * h * 3:
            raise ValueError("short PPM: %d of %d bytes" % (len(data), w * h * 3))
        return cls(w, h, data)

    def row(self, y, x0=0, x1=None):
        x1 = self.width if x1 is None else x1
        base = y * self.width * 3
        return self.data[base + x0 * 3: base + x1 * 3]

    def changed_rows(self, other, box=None):
        """{y: [x, …]} of the pixels (inside box, if given) that differ by more than CHANGED."""
        x0, y0, x1, y1 = box or (0, 0, self.width, self.height)
        out = {}
        for y in range(y0, y1):
            a, b = self.row(y, x0, x1), other.row(y, x0, x1)
            if a == b:
                continue
            xs = [x0 + i // 3 for i in range(0, len(a), 3)
                  if max(abs(a[i] - b[i]), abs(a[i + 1] - b[i + 1]), abs(a[i + 2] - b[i + 2])) > CHANGED]
            if xs:
                out[y] = xs
        return out

    def diff(self, other, box=None):
        """(number of changed pixels, bounding box (x0, y0, x1, y1) exclusive, or None)."""
        rows = self.changed_rows(other, box)
        if not rows:
            return 0, None
        xs = [x for v in rows.values() for x in v]
        return len(xs), (min(xs), min(rows), max(xs) + 1, max(rows) + 1)

    def identical(self, other):
        return self.data == other.data

    def bands(self, other, min_gap=4):
        """The vertical runs of changed rows (y0, y1) separated by at least min_gap unchanged
        rows: stacked popups are separate bands, one popup is one."""
        ys = sorted(self.changed_rows(other))
        runs = []
        for y in ys:
            if runs and y - runs[-1][1] < min_gap:
                runs[-1][1] = y + 1
            else:
                runs.append([y, y + 1])
        return [tuple(r) for r in runs]

    def save_png(self, path):
        """Writes a PNG (zlib only) so a person can look at what a test saw."""
        import struct
        import zlib
        raw = b"".join(b"\x00" + self.row(y) for y in range(self.height))

        def chunk(kind, payload):
            c = struct.pack(">I", len(payload)) + kind + payload
            return c + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)

        png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0))
               + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))
        Path(path).write_bytes(png)
        return path


def center(box):
    x0, y0, x1, y1 = box
    return (x0 + x1) // 2, (y0 + y1) // 2


# --------------------------------------------------------------------------- screens
class Screen:
    """Screenshots and clicks on one display. `env` holds DISPLAY or WAYLAND_DISPLAY."""

    kind = None

    def __init__(self, env, shots_dir):
        self.env = env
        self.shots_dir = Path(shots_dir)
        self.shots_dir.mkdir(parents=True, exist_ok=True)
        self._n = 0

    def grab(self):
        r = subprocess.run(self.grab_argv(), env=self.env, capture_output=True, timeout=10)
        if r.returncode != 0:
            raise RuntimeError("%s failed: %s" % (self.grab_argv()[0], r.stderr.decode(errors="replace")[-500:]))
        return Shot.from_ppm(r.stdout)

    def keep(self, shot, label):
        """Saves a shot as PNG in the test's folder (looked at when a test fails)."""
        self._n += 1
        return shot.save_png(self.shots_dir / ("%02d-%s.png" % (self._n, label)))

    def wait_for(self, predicate, timeout, what, interval=0.1):
        """Grabs the screen until predicate(shot) is true (bounded); returns (shot, value).
        Fails the test with `what` (a string, or a function called then) and the last screen
        saved as PNG."""
        deadline = time.monotonic() + timeout
        while True:
            shot = self.grab()
            value = predicate(shot)
            if value:
                return shot, value
            if time.monotonic() >= deadline:
                path = self.keep(shot, "timeout")
                what = what() if callable(what) else what
                pytest.fail("%s within %.0f s (last screen: %s)" % (what, timeout, path), pytrace=False)
            pump_for(interval)

    def wait_popup(self, base, timeout=10, what="no popup was drawn", min_pixels=200):
        """Waits until the screen differs from `base` by at least min_pixels and is the same
        on two grabs in a row (drawn, not mid-animation); returns (shot, box)."""
        last = [None]

        def drawn(shot):
            count, box = shot.diff(base)
            prev, last[0] = last[0], shot
            if count >= min_pixels and prev is not None and prev.identical(shot):
                return box
            return None

        return self.wait_for(drawn, timeout, what)

    def wait_back_to(self, base, timeout=5, what="the popup did not go away"):
        """Waits until the screen is exactly `base` again."""
        return self.wait_for(lambda s: s.identical(base), timeout, what)[0]


class XScreen(Screen):
    kind = "x11"

    def grab_argv(self):
        return ["import", "-window", "root", "-depth", "8", "ppm:-"]

    def click(self, x, y, button="left"):
        number = {"left": "1", "middle": "2", "right": "3"}[button]
        r = subprocess.run(["xdotool", "mousemove", str(x), str(y), "click", number],
                           env=self.env, capture_output=True, text=True, timeout=10)
        assert r.returncode == 0, "xdotool failed: %s" % r.stderr
        # the pointer leaves the popups' corner: no hover effect on the next popup
        subprocess.run(["xdotool", "mousemove", "640", "790"], env=self.env, capture_output=True, timeout=10)


class WaylandScreen(Screen):
    kind = "wayland"

    def __init__(self, env, shots_dir, vclick):
        """vclick: the built binary (a Path), or why it could not be built (a str)."""
        super().__init__(env, shots_dir)
        self.vclick = vclick

    def grab_argv(self):
        return ["grim", "-t", "ppm", "-"]

    def click(self, x, y, button="left"):
        if not isinstance(self.vclick, Path):
            pytest.skip("no clicks on sway: vclick (../shared/tools/vclick): %s" % self.vclick)
        r = subprocess.run([str(self.vclick), str(x), str(y), button], env=self.env,
                           capture_output=True, text=True, timeout=15)
        assert r.returncode == 0, "vclick failed: %s" % r.stderr


def real_imagemagick():
    """ImageMagick's import (the `convert` on PATH may be a stand-in that has no import)."""
    return shutil.which("import") is not None


# --------------------------------------------------------------------------- sway
SWAY_CONFIG = """output HEADLESS-1 resolution 1280x800 bg #c0c0c0 solid_color
default_border none
"""


class SwaySession:
    """A headless sway, as user nobody when we are root. `socket` is the absolute path of its
    Wayland socket."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.runtime = self.folder / "run"
        self.home = self.folder / "home"
        self.runtime.mkdir(parents=True)
        self.home.mkdir()
        (self.folder / "config").write_text(SWAY_CONFIG)
        self.log = self.folder / "sway.log"
        env = {"PATH": "/usr/bin:/bin", "HOME": str(self.home), "XDG_RUNTIME_DIR": str(self.runtime),
               "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman"}
        argv = ["sway", "-c", str(self.folder / "config")]
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chmod(self.folder, 0o755)
            for p in (self.runtime, self.home, self.folder / "config"):
                os.chown(p, nobody.pw_uid, nobody.pw_gid)
            os.chmod(self.runtime, 0o700)
            argv = ["setpriv", "--reuid=%d" % nobody.pw_uid, "--regid=%d" % nobody.pw_gid,
                    "--clear-groups", "--"] + argv
        self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=open(self.log, "ab"),
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.socket = None
        deadline = time.monotonic() + 20
        while self.socket is None:
            # bounded poll: sway announces its socket only by creating it
            found = sorted(p for p in self.runtime.glob("wayland-*") if not p.name.endswith(".lock"))
            if found and self._grim_works(found[0]):
                self.socket = found[0]
                break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("headless sway did not start: %s" % self.log.read_text(errors="replace")[-1500:])
            time.sleep(0.05)

    @staticmethod
    def _grim_works(sock):
        env = dict(os.environ, WAYLAND_DISPLAY=str(sock))
        try:
            return subprocess.run(["grim", "-t", "ppm", "/dev/null"], env=env, capture_output=True,
                                  timeout=5).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            return False

    def stop(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
            except ProcessLookupError:
                pass


def build_vclick(folder):
    """Builds ../shared/tools/vclick into `folder`; returns the binary's path, or None with the
    reason why not."""
    script = VCLICK_SRC / "build.sh"
    if not script.is_file():
        return None, "%s not found (shared/ beside the clone)" % script
    for tool in ("wayland-scanner", "cc"):
        if not shutil.which(tool):
            return None, "%s not installed" % tool
    r = subprocess.run(["sh", str(script), str(folder)], capture_output=True, text=True, timeout=120)
    binary = Path(folder) / "vclick"
    if r.returncode != 0 or not binary.is_file():
        return None, "vclick build failed: %s" % (r.stdout + r.stderr)[-800:]
    return binary, None


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
