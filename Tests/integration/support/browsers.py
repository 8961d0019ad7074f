"""Browsers as clients: their exact `Notify` calls played with gdbus, and real Chromium.

* ``chromium_argv`` / ``firefox_argv``  gdbus argv of the call Chromium 156 / Firefox ESR 153 make
                    for a page, for a test to run as it is
                    or inside a sandbox (``support.sandbox``); ``notify_id`` reads the ID answered;
* ``site_body``     the body Chromium writes: the site first (a link to the origin when the daemon
                    has ``body-hyperlinks``), a blank line, the page's text;
* ``Pages``         tiny pages that notify, each served on 127.0.0.1 on a port of its own;
* ``Chromium``      real Chromium under Xvfb with a profile of the test's, on the test's bus;
* ``managed_policy`` the managed policy that lets every page notify (written only as root).
"""

import http.server
import json
import os
import shutil
import signal
import subprocess
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest
from gi.repository import GLib

from support.names import NOTIF_IFACE, NOTIF_NAME, NOTIF_PATH
from support.processes import session_env
from support.reports import attach_log

CHROMIUM_ACTIONS = ["default", "Activate", "settings", "Settings"]
POLICY_FOLDER = Path("/etc/chromium/policies/managed")
POLICY_FILE = POLICY_FOLDER / "focusbridge-test.json"


def site_body(host, text, origin=None):
    """Chromium's body for a page of `host`: `<a href="ORIGIN/">HOST</a>` (`origin` given: the
    daemon has body-hyperlinks) or `HOST`, a blank line, then the page's text."""
    first = '<a href="%s/">%s</a>' % (origin, host) if origin else host
    return first + "\n\n" + text if text else first


def _notify_argv(address, app, icon, summary, body, actions, hints, timeout):
    text = lambda v: GLib.Variant("s", v).print_(False)  # noqa: E731 - one quoting rule for every string
    return ["gdbus", "call", "--address", address, "--dest", NOTIF_NAME, "--object-path", NOTIF_PATH,
            "--method", NOTIF_IFACE + ".Notify", "--",
            text(app), "0", text(icon), text(summary), text(body),
            GLib.Variant("as", actions).print_(False), hints, str(timeout)]


# Chrome, Brave and Edge are Chromium with another name: (desktop entry, app name) of each.
CHROMIUM_FAMILY = [("google-chrome", "Google Chrome"), ("brave-browser", "Brave"), ("microsoft-edge", "Microsoft Edge")]


def chromium_argv(address, summary, body, keep_on_screen=False, entry="chromium", app="Chromium"):
    """Chromium's call for a page: app "Chromium", its logo, the desktop entry, the icon twice,
    urgency 1 (uint32) and 25 s — urgency 2 and timeout 0 when the page sets requireInteraction."""
    image = "/tmp/org.chromium.Chromium.scoped_dir.Xy1234/.org.chromium.Chromium.AbCdEf"
    hints = "{'desktop-entry': <%s>, 'image-path': <%s>, 'image_path': <%s>, 'urgency': <uint32 %d>}" % (
        GLib.Variant("s", entry).print_(False), GLib.Variant("s", image).print_(False),
        GLib.Variant("s", image).print_(False), 2 if keep_on_screen else 1)
    return _notify_argv(address, app, "file:///tmp/org.chromium.Chromium.scoped_dir.Xy1234/logo.png",
                        summary, body, CHROMIUM_ACTIONS, hints, 0 if keep_on_screen else 25000)


def firefox_argv(address, summary, body, require_interaction=False):
    """Firefox ESR's call: app "Firefox", no icon, desktop entry firefox-esr, no urgency, the
    page's body as it is (no site), -1 — timeout 0 when the page sets requireInteraction."""
    hints = ("{'desktop-entry': <'firefox-esr'>, 'suppress-sound': <false>, "
             "'sender-pid': <int64 %d>}" % os.getpid())
    return _notify_argv(address, "Firefox", "", summary, body, ["default", "Activate"], hints,
                        0 if require_interaction else -1)


def notify_id(result):
    """The ID a gdbus Notify call printed (`(uint32 7,)`)."""
    assert result.returncode == 0, result.stderr
    return int(result.stdout.strip().strip("(,)").split()[-1])


# --------------------------------------------------------------------------- real Chromium
PAGE = """<!doctype html>
<title>page</title>
<script>
Notification.requestPermission().then(function () {
  new Notification(%(title)s, {body: %(body)s, requireInteraction: %(keep)s});
});
</script>
"""


class Pages:
    """Pages on 127.0.0.1, each on a port of its own, each sending one notification when it
    loads: `add(title, body, keep_on_screen)` returns its origin (`http://127.0.0.1:PORT`)."""

    def __init__(self):
        self.servers = []

    def add(self, title, body, keep_on_screen=False):
        page = (PAGE % {"title": json.dumps(title), "body": json.dumps(body),
                        "keep": "true" if keep_on_screen else "false"}).encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                if self.path != "/":
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.servers.append(server)
        return "http://127.0.0.1:%d" % server.server_address[1]

    def close(self):
        for server in self.servers:
            server.shutdown()
            server.server_close()


@contextmanager
def managed_policy():
    """Chromium's managed policy that lets pages notify (DefaultNotificationsSetting 1, "allow"),
    in the system's policy folder: only as root; removed afterwards unless it was there before."""
    if os.geteuid() != 0:
        pytest.skip("Chromium lets pages notify only with a managed policy in %s, written only as root" % POLICY_FOLDER)
    existed = POLICY_FILE.exists()
    POLICY_FOLDER.mkdir(parents=True, exist_ok=True)
    POLICY_FILE.write_text(json.dumps({"DefaultNotificationsSetting": 1}) + "\n")
    try:
        yield POLICY_FILE
    finally:
        if not existed:
            POLICY_FILE.unlink(missing_ok=True)


class Chromium:
    """Real Chromium (Debian's `chromium`) on display `display` and the test's bus, with a profile
    and home of its own, opening `urls` (each in a tab of its own)."""

    def __init__(self, procs, folder, display, bus_address, urls, node=None):
        binary = shutil.which("chromium")
        if not binary:
            pytest.skip("chromium not installed (make deps installs it)")
        self.log = Path(folder) / "chromium.log"
        home = Path(folder) / "chromium-home"
        home.mkdir()
        env = session_env(bus_address, display=display, HOME=home, XDG_CONFIG_HOME=home / "config",
                          XDG_CACHE_HOME=home / "cache", XDG_DATA_HOME=home / "data")
        argv = [binary, "--no-sandbox", "--user-data-dir=%s" % (home / "profile"), "--no-first-run",
                "--password-store=basic", "--no-default-browser-check", "--disable-background-networking",
                *urls]
        with open(self.log, "ab") as log:
            self.proc = procs.spawn(argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        if node is not None:
            attach_log(node, "chromium", self.log)

    def stop(self):
        """Ends Chromium with its helpers (its process group); `procs` kills what is left at teardown."""
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
