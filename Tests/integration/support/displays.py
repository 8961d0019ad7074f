"""Displays for the daemons that draw: Xvfb, and a headless sway for the Wayland ones.

* ``xvfb``          an Xvfb display for the whole session (``-displayfd``: never a fixed number);
  ``start_xvfb``    one of a rig's own (desktop.DesktopSession);
* ``SwaySession``   mako and swaync need layer-shell: a headless sway. sway refuses to run as
                    root, so as root the whole compositor runs as user nobody (``setpriv``) in
                    folders of its own; the test's processes stay root and reach its socket by
                    absolute path (``WAYLAND_DISPLAY=/…/wayland-1``);
* ``build_vclick``  ../shared/tools/vclick (a wlr virtual pointer, as the headless output has no
                    pointer), built once per session into a temporary folder.
"""

import os
import pwd
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from support.processes import REPO, Procs, read_first_line

VCLICK_SRC = REPO.parent / "shared" / "tools" / "vclick"


# --------------------------------------------------------------------------- X
def start_xvfb(procs, log_path):
    """An Xvfb display of its own (-displayfd: never a fixed number), started by `procs`;
    returns (":N", proc). Fails the test when it does not start."""
    if not shutil.which("Xvfb"):
        pytest.skip("Xvfb not installed")
    rfd, wfd = os.pipe()
    proc = procs.spawn(["Xvfb", "-displayfd", str(wfd), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                       pass_fds=(wfd,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=open(log_path, "ab"))
    os.close(wfd)
    try:
        number = read_first_line(proc, rfd, "Xvfb", 15)
    except RuntimeError:
        pytest.fail("Xvfb did not start: %s" % Path(log_path).read_text()[-500:], pytrace=False)
    finally:
        os.close(rfd)
    return ":" + number, proc


@pytest.fixture(scope="session")
def xvfb(tmp_path_factory):
    """The display (":N") of an Xvfb for the dunst tests and the X11 daemons."""
    if not shutil.which("Xvfb") or not shutil.which("xdpyinfo"):
        pytest.skip("Xvfb/xdpyinfo not installed")
    logdir = tmp_path_factory.mktemp("xvfb")
    procs = Procs()
    try:
        display, proc = start_xvfb(procs, logdir / "xvfb.log")
    except pytest.fail.Exception as exc:
        procs.cleanup()
        pytest.skip(str(exc))
    env = dict(os.environ, DISPLAY=display)
    deadline = time.monotonic() + 10
    while subprocess.run(["xdpyinfo"], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, timeout=5).returncode != 0:
        if time.monotonic() > deadline or proc.poll() is not None:
            procs.cleanup()
            pytest.skip("Xvfb display %s never answered xdpyinfo" % display)
        time.sleep(0.05)  # a bounded poll of an external tool: nothing to await
    yield display
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        procs.cleanup()


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
