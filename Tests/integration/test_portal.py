"""Flatpak apps on GNOME (focus-bridge(1), GNOME): a sandboxed app notifies through the desktop
portal (xdg-desktop-portal 1.16), whose GNOME backend for notifications (xdg-desktop-portal-gtk
1.14) passes them to org.gtk.Notifications, which the bridge serves. The portal learns the app's
Flatpak ID from the sandbox itself (/proc/PID/root/.flatpak-info), so the bridge sees the real ID.

The app is played by an emulated Flatpak (support/sandbox.py, root only); GNOME Shell's GTK side
is the recording fake of test_gtk_door.py."""

import os
import shutil
import subprocess

import pytest

from support.buses import wait_for_name
from support.fakes import GTK_NAME, FakeGtkShell
from support.focusctl import fc_json, fc_ok
from support.processes import session_env
from support.sandbox import Sandbox
from support.waiting import wait_until

TEST_TIMEOUT = 60
PORTAL = "/usr/libexec/xdg-desktop-portal"
BACKEND = "/usr/libexec/xdg-desktop-portal-gtk"
PERMISSIONS = "/usr/libexec/xdg-permission-store"
APP = "org.example.Sandboxed"
CONFIG = """
[focus.work]
apps = ["org.example.Allowed"]
"""


@pytest.fixture
def portal(bus, procs, tmp_path, xvfb, focus_bridge):
    """The bridge (GNOME, its GTK door served), the fake shell, and the portal with its GTK
    backend on the test's bus; returns a function running AddNotification/RemoveNotification of
    the portal from inside the sandboxed app."""
    for program in (PORTAL, BACKEND, PERMISSIONS):
        if not os.access(program, os.X_OK):
            pytest.skip("%s not installed (apt-get install xdg-desktop-portal xdg-desktop-portal-gtk)" % program)
    data = tmp_path / "data"
    (data / "applications").mkdir(parents=True)
    for app_id in (APP, "org.example.Allowed"):
        (data / "applications" / (app_id + ".desktop")).write_text(
            "[Desktop Entry]\nType=Application\nName=%s\nExec=true\n" % app_id)
    env = {"XDG_CURRENT_DESKTOP": "GNOME", "XDG_DATA_HOME": str(data),
           "XDG_DATA_DIRS": "/usr/share", "XDG_RUNTIME_DIR": str(tmp_path / "runtime")}
    (tmp_path / "runtime").mkdir(mode=0o700)
    shell = FakeGtkShell(bus.address)
    focus_bridge(CONFIG, extra_env=env)
    portal_env = session_env(bus.address, display=xvfb, GTK_A11Y="none", **env)
    logs = []
    for program, name in ((PERMISSIONS, "org.freedesktop.impl.portal.PermissionStore"),
                          (BACKEND, "org.freedesktop.impl.portal.desktop.gtk"),
                          (PORTAL, "org.freedesktop.portal.Desktop")):
        log = tmp_path / (os.path.basename(program) + ".log")
        logs.append(log)
        proc = procs.spawn([program], env=portal_env, stdin=subprocess.DEVNULL, stdout=open(log, "ab"),
                           stderr=subprocess.STDOUT)
        if not wait_for_name(bus.conn, name, 15, proc):
            pytest.fail("%s never owned %s:\n%s" % (program, name, log.read_text()[-2000:]), pytrace=False)
    sandbox = Sandbox(tmp_path, APP)

    def call(method, *args):
        argv = ["gdbus", "call", "--address", bus.address, "--dest", "org.freedesktop.portal.Desktop",
                "--object-path", "/org/freedesktop/portal/desktop",
                "--method", "org.freedesktop.portal.Notification." + method, "--", *args]
        r = sandbox.run(argv, session_env(bus.address))
        assert r.returncode == 0, "the portal refused %s: %s\n%s" % (method, r.stderr,
                                                                     "\n".join(l.read_text()[-1000:] for l in logs))

    call.shell = shell
    yield call
    shell.dispose()


def rows_of(focusctl, title):
    return [r for r in fc_json(focusctl, "history", "--json", "--limit", "100") if r["summary"] == title]


def the_row(focusctl, title):
    return wait_until(lambda: rows_of(focusctl, title) and rows_of(focusctl, title)[0], 10,
                      message="%r never reached focusctl history through the portal" % title)


def test_a_flatpak_app_through_the_portal_is_its_flatpak_id(portal, focusctl):
    portal("AddNotification", "hello", "{'title': <'From the sandbox'>, 'body': <'via the portal'>}")
    got = portal.shell.wait_added("From the sandbox", timeout=10)
    assert got["app"] == APP, got
    row = the_row(focusctl, "From the sandbox")
    assert (row["app"], row["door"], row["decision"]) == (APP, "org.gtk.Notifications", "delivered"), row


def test_a_focus_holds_it_and_remove_notification_ends_it_unseen(portal, focusctl):
    fc_ok(focusctl, "focus", "on", "work")
    portal("AddNotification", "held", "{'title': <'Held from the sandbox'>}")
    assert the_row(focusctl, "Held from the sandbox")["decision"] == "held-focus"
    portal("RemoveNotification", "held")
    wait_until(lambda: the_row(focusctl, "Held from the sandbox")["close-reason"] == 3, 10,
               message="RemoveNotification through the portal did not end the held one")
    fc_ok(focusctl, "focus", "off")
    portal("AddNotification", "after", "{'title': <'After the Focus'>}")
    portal.shell.wait_added("After the Focus", timeout=10)
    assert portal.shell.added("Held from the sandbox") == [], "the withdrawn one was shown after all"
