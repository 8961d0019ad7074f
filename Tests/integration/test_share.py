"""Share Focus across devices through a synced folder (focus-bridge.toml(5), SHARE).

Each "device" is a real focus-bridge on a private bus of its own, with its own HOME and XDG
folders, in log mode (no daemon is needed to see the Focus). The folder-level tests give two
bridges the same folder (a perfect sync engine) or write into it the way a sync engine does:
temporary files renamed into place, conflict copies, files cut short, old versions put back.
The last test puts two real Syncthing instances (Debian's package) between two bridges, each
with its own folder, on loopback, configured through Syncthing's REST API.

"Not taken" is asserted soundly, without sleeping: each scan reads the whole folder, so once a
later change written after the debris (a "marker" device's file) was applied, the debris had
been looked at too.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import textwrap
import time
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from support.buses import PrivateBus, wait_for_name
from support.fifos import release
from support.names import CONTROL_NAME
from support.processes import BRIDGE_BIN, FOCUSCTL_BIN, LineReader, require_binary, run, session_env
from support.waiting import SLOWDOWN, wait_until

TEST_TIMEOUT = 150

FOCUSES = """\
[focus.work]
apps = []

[focus.dnd]
apps = []
"""


def stamp(dt):
    """The file format's times: ISO 8601 UTC with milliseconds."""
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (dt.microsecond // 1000)


def now():
    return datetime.now(timezone.utc)


class Device:
    """One machine: a focus-bridge with its own bus, HOME, XDG folders and [share] device name."""

    def __init__(self, root, name, folder, procs, extra_config=""):
        require_binary(BRIDGE_BIN, "focus-bridge")
        require_binary(FOCUSCTL_BIN, "focusctl")
        self.name = name
        self.home = Path(root) / name
        self.home.mkdir(parents=True, exist_ok=True)
        self.folder = Path(folder)
        self.procs = procs
        self.bus = PrivateBus(root, "bus-" + name, procs)
        self.config = self.home / ".config" / "focus-bridge" / "config.toml"
        self.config.parent.mkdir(parents=True, exist_ok=True)
        self.write_config(extra_config)
        self.env = session_env(self.bus.address, HOME=self.home, XDG_STATE_HOME=self.home / ".local" / "state",
                               XDG_CONFIG_HOME=self.home / ".config")
        self.log = self.home / "bridge.log"
        self.proc = None

    def write_config(self, extra=""):
        self.config.write_text(FOCUSES + textwrap.dedent("""
            [share]
            folder = "%s"
            device = "%s"
            """) % (self.folder, self.name) + textwrap.dedent(extra))

    def start(self):
        log = open(self.log, "ab")
        self.proc = self.procs.spawn([BRIDGE_BIN, "--downstream", "log"], env=self.env, stdin=subprocess.DEVNULL,
                                     stdout=log, stderr=log)
        assert wait_for_name(self.bus.conn, CONTROL_NAME, 10 * SLOWDOWN, self.proc), self.log.read_text()
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
            assert self.proc.returncode == 0, self.log_text()[-2000:]

    def ctl(self, *args):
        r = run([FOCUSCTL_BIN, *args], self.env, timeout=15)
        assert r.returncode == 0, "%s: focusctl %s: %s%s" % (self.name, " ".join(args), r.stdout, r.stderr)
        return r.stdout

    def status(self):
        return json.loads(self.ctl("status", "--json"))

    def focus(self):
        f = self.status()["focus"]
        return (f["name"], f["source"], f["device"]) if f else None

    def share(self):
        return json.loads(self.ctl("share", "status", "--json"))

    def log_text(self):
        return self.log.read_text(errors="replace")

    def own_file(self):
        return json.loads((self.folder / (self.name + ".json")).read_text())

    def wait_focus(self, expected, timeout=10):
        wait_until(lambda: self.focus() == expected, timeout=timeout * SLOWDOWN, interval=0.1,
                   message="%s: Focus %r (now %r)" % (self.name, expected, self.focus()))


@pytest.fixture
def devices(tmp_path, procs):
    made = []

    def make(name, folder, extra_config=""):
        d = Device(tmp_path, name, folder, procs, extra_config)
        made.append(d)
        return d

    yield make
    for d in made:
        d.stop()
        d.bus.stop()


def write_like_a_sync_engine(folder, name, data, tmp_name=None):
    """A temporary file in the folder, then a rename over the target, as Syncthing does."""
    tmp = Path(folder) / (tmp_name or ".syncthing.%s.tmp" % name)
    tmp.write_text(data if isinstance(data, str) else json.dumps(data))
    os.rename(tmp, Path(folder) / name)


def record(device, sequence, focus, changed, until=None, since=None, **extra):
    return dict({"device": device, "sequence": sequence, "focus": focus, "since": stamp(since or changed),
                 "until": stamp(until) if until else None, "changed": stamp(changed), "version": "0.1.0"}, **extra)


class Markers:
    """Changes from a device of the test's own ("marker"), each newer than the last: once one is
    applied, the folder was read after everything written before it."""

    def __init__(self, folder, device):
        self.folder, self.device, self.n = folder, device, 0

    def __call__(self, focus="dnd"):
        self.n += 1
        write_like_a_sync_engine(self.folder, "marker.json",
                                 record("marker", self.n, focus, now() + timedelta(milliseconds=self.n)))
        wait_until(lambda: {d["device"]: d["sequence"] for d in self.device.share()["devices"]}.get("marker") == self.n,
                   timeout=10 * SLOWDOWN, interval=0.05, message="%s read marker %d" % (self.device.name, self.n))
        assert self.device.focus() == ((focus, "shared", "marker") if focus else None)


# --------------------------------------------------------------------------- two bridges, one folder
def test_a_manual_change_at_one_device_is_applied_at_the_other(tmp_path, devices):
    folder = tmp_path / "Sync" / "focus-bridge"
    folder.mkdir(parents=True)
    laptop = devices("laptop", folder).start()
    desk = devices("desk", folder).start()
    laptop.ctl("focus", "on", "work", "--for", "1h")
    desk.wait_focus(("work", "shared", "laptop"))
    status = desk.status()["focus"]
    assert status["until"] == laptop.status()["focus"]["until"], "it ends when it ends at the laptop"
    assert "work is on until" in desk.ctl("status") and "(from laptop)." in desk.ctl("status")
    bar = desk.procs.spawn([FOCUSCTL_BIN, "watch", "--waybar"], env=desk.env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    line = LineReader(bar.stdout).get(10 * SLOWDOWN)
    bar.kill()
    assert line and json.loads(line)["tooltip"].split("\n")[0].endswith("(from laptop)"), line
    assert laptop.focus() == ("work", "manual", None)
    own = laptop.own_file()
    assert own["device"] == "laptop" and own["sequence"] == 1 and own["focus"] == "work"
    assert own["version"] and own["until"] and own["since"] and own["changed"]
    # Off at the desk: off at the laptop; scheduled Focus and held notifications stay local.
    desk.ctl("focus", "off")
    laptop.wait_focus(None)
    assert desk.own_file()["focus"] is None
    share = laptop.share()
    assert share["enabled"] and share["device"] == "laptop" and share["problem"] is None
    assert share["sequence"] == 1 and share["last-change"]["focus"] == "work"
    (seen,) = share["devices"]
    assert seen["device"] == "desk" and seen["applied"] is True and seen["last-change"]["focus"] is None
    assert seen["sequence"] == 1 and seen["seen"]
    text = laptop.ctl("share", "status")
    assert "desk" in text and "Focus off" in text and str(folder) in text
    # Each change once: the desk's file read again (touched by the engine) changes nothing.
    laptop.ctl("focus", "on", "work")
    desk.wait_focus(("work", "shared", "laptop"))
    os.utime(folder / "desk.json")
    marker = Markers(folder, laptop)
    marker("dnd")
    assert laptop.share()["devices"][0] == seen, "the desk's change was not taken again"
    # A restart keeps where the Focus came from.
    desk.wait_focus(("dnd", "shared", "marker"))
    desk.stop()
    desk.start()
    assert desk.focus() == ("dnd", "shared", "marker")
    assert "dnd is on (from marker)." in desk.ctl("status")


def test_the_newest_change_wins_and_an_older_one_is_ignored(tmp_path, devices):
    folder = tmp_path / "share"
    folder.mkdir()
    desk = devices("desk", folder).start()
    marker = Markers(folder, desk)
    desk.ctl("focus", "on", "work")
    # Made before the desk's own change, synced late: ignored, but seen.
    write_like_a_sync_engine(folder, "laptop.json", record("laptop", 1, "dnd", now() - timedelta(minutes=5)))
    marker("work")
    assert desk.focus() == ("work", "shared", "marker")
    seen = {d["device"]: d for d in desk.share()["devices"]}
    assert seen["laptop"]["applied"] is False and seen["laptop"]["sequence"] == 1
    # Replayed: an older sequence with a newer stamp is an old version put back.
    write_like_a_sync_engine(folder, "laptop.json", record("laptop", 3, "dnd", now()))
    desk.wait_focus(("dnd", "shared", "laptop"))
    write_like_a_sync_engine(folder, "laptop.json", record("laptop", 2, "work", now() + timedelta(seconds=1)))
    marker("dnd")
    marker(None)
    assert {d["device"]: d["sequence"] for d in desk.share()["devices"]}["laptop"] == 3
    # Stamped an hour in the future (a clock ahead): taken now, ending at its own until.
    ahead = now() + timedelta(hours=1)
    write_like_a_sync_engine(folder, "laptop.json", record("laptop", 4, "work", ahead, until=ahead + timedelta(hours=1)))
    desk.wait_focus(("work", "shared", "laptop"))
    focus = desk.status()["focus"]
    assert focus["until"] == stamp(ahead + timedelta(hours=1))
    assert focus["since"] <= stamp(now()), "it started here now, not in an hour"
    # A change made here afterwards still counts as newer everywhere (its order stamp is after
    # the one it saw), though the desk's own clock is an hour behind the laptop's.
    desk.ctl("focus", "off")
    own = desk.own_file()
    assert own["changed"] > stamp(ahead) and own["since"] < stamp(ahead)
    # Two devices at the same millisecond: the greater name wins.
    same = now() + timedelta(hours=2)
    write_like_a_sync_engine(folder, "aa.json", record("aa", 1, "work", same))
    write_like_a_sync_engine(folder, "zz.json", record("zz", 1, "dnd", same))
    desk.wait_focus(("dnd", "shared", "zz"))
    # ...in whichever order the files arrive.
    write_like_a_sync_engine(folder, "ab.json", record("ab", 1, "work", same))
    wait_until(lambda: "ab" in {d["device"] for d in desk.share()["devices"]}, timeout=10 * SLOWDOWN)
    assert {d["device"]: d for d in desk.share()["devices"]}["ab"]["applied"] is False
    assert desk.focus() == ("dnd", "shared", "zz")
    # A clock more than a day ahead is broken, not skewed: its change is ignored, said once.
    write_like_a_sync_engine(folder, "broken.json", record("broken", 1, "work", now() + timedelta(days=400)))
    wait_until(lambda: "broken" in {d["device"] for d in desk.share()["devices"]}, timeout=10 * SLOWDOWN)
    os.utime(folder / "broken.json")
    write_like_a_sync_engine(folder, "ab.json", record("ab", 2, None, now() - timedelta(hours=1)))
    wait_until(lambda: {d["device"]: d["sequence"] for d in desk.share()["devices"]}["ab"] == 2, timeout=10 * SLOWDOWN)
    assert desk.focus() == ("dnd", "shared", "zz")
    assert desk.log_text().count("the last change of broken is stamped more than a day ahead") == 1


def test_what_a_sync_engine_leaves_in_the_folder_is_ignored(tmp_path, devices):
    folder = tmp_path / "share"
    folder.mkdir()
    desk = devices("desk", folder).start()
    marker = Markers(folder, desk)
    later = now() + timedelta(minutes=10)
    good = json.dumps(record("laptop", 1, "work", later))
    # Conflict copies (Syncthing, Nextcloud, Dropbox), temporary and partial files.
    for name in ["laptop.sync-conflict-20261122-101500-ABCDEFG.json", "laptop (conflicted copy 2026-11-22).json",
                 "laptop (conflict 2026-11-22 101500).json", ".syncthing.laptop.json.tmp",
                 "~syncthing~laptop.json.tmp", "laptop.json~", ".laptop.json.part", "laptop.json.part"]:
        (folder / name).write_text(good)
    os.mkfifo(folder / "pipe.json")  # never read: it would block
    (folder / "folder.json").mkdir()
    marker()
    assert [d["device"] for d in desk.share()["devices"]] == ["marker"]
    log = desk.log_text()
    assert "conflict" not in log and "syncthing" not in log and ".part" not in log, "not even read"
    assert "pipe.json in %s is ignored: it is not a regular file" % folder in log
    # A file cut short while syncing: one log line, ignored, said once.
    (folder / "laptop.json").write_text(good[:40])
    marker()
    marker()
    assert desk.log_text().count("laptop.json in %s is ignored" % folder) == 1, desk.log_text()[-3000:]
    # Garbage, a huge file: ignored too; the bridge keeps serving.
    (folder / "laptop.json").write_bytes(os.urandom(3000))
    (folder / "big.json").write_text('{"device":"big","pad":"%s"}' % ("x" * 100_000))
    (folder / "deep.json").write_text("[" * 50_000)
    marker()
    log = desk.log_text()
    assert "big.json in %s is ignored: it is larger than 65536 bytes" % folder in log
    assert "deep.json in %s is ignored: it is not a JSON object" % folder in log
    assert [d["device"] for d in desk.share()["devices"]] == ["marker"]
    # A file of a newer version, with fields this one does not know: taken.
    write_like_a_sync_engine(folder, "laptop.json",
                             dict(record("laptop", 1, "work", later), colour="blue", schedule={"next": [1, 2]}))
    desk.wait_focus(("work", "shared", "laptop"))
    assert desk.proc.poll() is None


def test_a_missing_or_unwritable_folder_is_said_once_and_sharing_resumes(tmp_path, devices):
    folder = tmp_path / "not-yet" / "Sync" / "focus-bridge"
    desk = devices("desk", folder).start()
    desk.ctl("focus", "on", "work")
    problem = desk.share()["problem"]
    assert "does not exist" in problem and str(folder) in problem
    desk.ctl("focus", "off")
    assert desk.log_text().count("share folder %s does not exist" % folder) == 1
    # The folder appears (the sync engine made it): this device's file is written at once.
    folder.mkdir(parents=True)
    wait_until(lambda: (folder / "desk.json").exists(), timeout=10 * SLOWDOWN, message="desk.json written")
    assert desk.own_file()["sequence"] == 2 and desk.own_file()["focus"] is None
    wait_until(lambda: desk.share()["problem"] is None, timeout=5 * SLOWDOWN)
    # Not writable (its own file's place taken by a folder: as root, permissions do not stop
    # a write): said once, and written when the way is clear.
    deadline = time.monotonic() + 10
    while not (folder / "desk.json").is_dir():  # the bridge may write it again in between
        assert time.monotonic() < deadline
        try:
            (folder / "desk.json").unlink()
            (folder / "desk.json").mkdir()
        except (FileExistsError, FileNotFoundError):
            pass
    desk.ctl("focus", "on", "dnd")
    assert "cannot write" in desk.share()["problem"]
    desk.ctl("focus", "on", "work")
    assert desk.log_text().count("cannot write %s/desk.json" % folder) == 1
    (folder / "desk.json").rmdir()
    wait_until(lambda: (folder / "desk.json").is_file(), timeout=10 * SLOWDOWN, message="desk.json written again")
    assert desk.own_file()["sequence"] == 4 and desk.own_file()["focus"] == "work"
    assert desk.share()["problem"] is None
    # Removed while running: said once, back when it is.
    os.rename(folder, tmp_path / "moved-away")
    desk.ctl("focus", "off")
    assert "does not exist" in desk.share()["problem"]
    os.rename(tmp_path / "moved-away", folder)
    wait_until(lambda: desk.own_file()["sequence"] == 5, timeout=10 * SLOWDOWN, message="desk.json rewritten")


def test_a_fifo_or_a_link_at_the_temporary_name_neither_blocks_nor_misdirects_the_write(tmp_path, devices):
    folder = tmp_path / "share"
    folder.mkdir()
    desk = devices("desk", folder).start()
    temporary = folder / ".desk.json.tmp"
    wait_until(lambda: (folder / "desk.json").exists(), timeout=10 * SLOWDOWN, message="desk.json written at start")
    os.mkfifo(temporary)   # opened for writing, it would wait for a reader for good
    try:
        desk.ctl("focus", "on", "work")
        assert desk.focus() == ("work", "manual", None), "focusctl status answers"
        assert desk.own_file()["focus"] == "work" and desk.share()["problem"] is None
        assert not temporary.exists(), "the FIFO is replaced, never left behind"
        # A link there: removed, never written through.
        elsewhere = tmp_path / "elsewhere.txt"
        elsewhere.write_text("untouched")
        temporary.symlink_to(elsewhere)
        desk.ctl("focus", "off")
        assert elsewhere.read_text() == "untouched"
        assert desk.own_file()["focus"] is None and desk.share()["problem"] is None
        assert sorted(p.name for p in folder.iterdir()) == ["desk.json"]
    finally:
        release(temporary)


def test_share_forget_and_share_off(tmp_path, devices):
    folder = tmp_path / "share"
    folder.mkdir()
    desk = devices("desk", folder).start()
    marker = Markers(folder, desk)
    write_like_a_sync_engine(folder, "old-laptop.json", record("old-laptop", 7, None, now() - timedelta(days=30)))
    marker()
    assert {d["device"] for d in desk.share()["devices"]} == {"marker", "old-laptop"}
    out = desk.ctl("share", "forget", "old-laptop")
    assert "old-laptop is forgotten" in out
    assert {d["device"] for d in desk.share()["devices"]} == {"marker"}
    marker()
    assert {d["device"] for d in desk.share()["devices"]} == {"marker"}, "its unchanged file does not bring it back"
    r = run([FOCUSCTL_BIN, "share", "forget", "old-laptp"], desk.env)
    assert r.returncode == 1 and "no device \"old-laptp\"" in r.stderr and "old-laptop" not in r.stderr
    r = run([FOCUSCTL_BIN, "share", "forget", "markr"], desk.env)
    assert r.returncode == 1 and "did you mean 'marker'?" in r.stderr, r.stderr
    # [share] removed and reloaded: sharing is off, nothing more is written.
    desk.config.write_text(FOCUSES)
    desk.ctl("reload")
    assert desk.share()["enabled"] is False
    assert "Sharing is off" in desk.ctl("share")
    before = (folder / "desk.json").read_text()
    desk.ctl("focus", "on", "work")
    assert (folder / "desk.json").read_text() == before


def test_a_bad_share_table_is_refused_with_its_place(tmp_path):
    require_binary(FOCUSCTL_BIN, "focusctl")
    path = tmp_path / "config.toml"
    path.write_text('[share]\nfolder = "Sync/focus"\ndevice = "my laptop"\nfolde = 1\n')
    r = run([FOCUSCTL_BIN, "check-config", str(path)], dict(os.environ))
    assert r.returncode == 1
    assert "config.toml:2:10: `folder` must be an absolute path or start with ~/" in r.stdout + r.stderr
    assert "config.toml:3:10: `device`: a device name is 1 to 64 letters" in r.stdout + r.stderr
    assert "config.toml:4:1: unknown key `folde` in [share]; did you mean `folder`?" in r.stdout + r.stderr


# --------------------------------------------------------------------------- the real engine
SYNC_DELAY_S = 1  # fsWatcherDelayS: Syncthing sends a change this long after it saw it


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Syncthing:
    """One Syncthing instance with its own home, its GUI/REST API and its listener on loopback
    ports, no discovery, relays, NAT or usage reporting."""

    def __init__(self, root, name, procs):
        self.name, self.procs = name, procs
        self.home = Path(root) / ("syncthing-" + name)
        out = subprocess.run(["syncthing", "generate", "--home", str(self.home), "--no-default-folder",
                              "--skip-port-probing"], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stdout + out.stderr
        config = (self.home / "config.xml").read_text()
        self.api_key = re.search(r"<apikey>([^<]+)</apikey>", config).group(1)
        self.device_id = re.search(r'<device id="([A-Z0-9-]+)"', config).group(1)
        self.gui_port, self.port = free_port(), free_port()
        self.log = Path(root) / ("syncthing-%s.log" % name)
        self.proc = None

    def start(self):
        env = dict(os.environ, HOME=str(self.home), STNODEFAULTFOLDER="1", STNOUPGRADE="1", STNORESTART="1")
        self.proc = self.procs.spawn(
            ["syncthing", "serve", "--home", str(self.home), "--no-browser", "--no-restart", "--no-upgrade",
             "--gui-address", "http://127.0.0.1:%d" % self.gui_port, "--logflags", "3"],
            env=env, stdin=subprocess.DEVNULL, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)
        wait_until(self.answers, timeout=30 * SLOWDOWN, interval=0.2,
                   message="Syncthing %s answers on 127.0.0.1:%d (log: %s)" % (self.name, self.gui_port, self.log))
        return self

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()

    def api(self, method, path, body=None):
        request = urllib.request.Request("http://127.0.0.1:%d%s" % (self.gui_port, path), method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"X-API-Key": self.api_key, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read().decode()
            return json.loads(text) if text.strip() else None

    def answers(self):
        if self.proc.poll() is not None:
            raise AssertionError("Syncthing %s exited %s:\n%s" % (self.name, self.proc.returncode, self.log.read_text()[-3000:]))
        try:
            return self.api("GET", "/rest/system/ping") == {"ping": "pong"}
        except (urllib.error.URLError, ConnectionError, OSError):
            return False

    def configure(self, other, folder):
        self.api("PATCH", "/rest/config/options", {
            "listenAddresses": ["tcp://127.0.0.1:%d" % self.port], "globalAnnounceEnabled": False,
            "localAnnounceEnabled": False, "relaysEnabled": False, "natEnabled": False, "urAccepted": -1,
            "crashReportingEnabled": False, "autoUpgradeIntervalH": 0, "startBrowser": False,
            "reconnectionIntervalS": 1})
        self.api("POST", "/rest/config/devices", {
            "deviceID": other.device_id, "name": other.name, "addresses": ["tcp://127.0.0.1:%d" % other.port]})
        self.api("POST", "/rest/config/folders", {
            "id": "focus-bridge", "label": "focus-bridge", "path": str(folder), "type": "sendreceive",
            "devices": [{"deviceID": self.device_id}, {"deviceID": other.device_id}],
            "fsWatcherEnabled": True, "fsWatcherDelayS": SYNC_DELAY_S, "rescanIntervalS": 3600})

    def connected_to(self, other):
        try:
            connections = self.api("GET", "/rest/system/connections")["connections"]
        except (urllib.error.URLError, ConnectionError, OSError):
            return False
        return connections.get(other.device_id, {}).get("connected", False)


@pytest.fixture
def syncthing(tmp_path, procs):
    if shutil.which("syncthing") is None:
        pytest.skip("syncthing is not installed (make deps)")
    made = []

    def make(name):
        s = Syncthing(tmp_path, name, procs)
        made.append(s)
        return s

    yield make
    for s in made:
        s.stop()


def test_two_bridges_share_focus_through_two_syncthings(tmp_path, devices, syncthing):
    folders = {name: tmp_path / name / "Sync" / "focus-bridge" for name in ["laptop", "desk"]}
    for folder in folders.values():
        folder.mkdir(parents=True)
    sync = {name: syncthing(name) for name in folders}
    for name, st in sync.items():
        st.start()
    sync["laptop"].configure(sync["desk"], folders["laptop"])
    sync["desk"].configure(sync["laptop"], folders["desk"])
    wait_until(lambda: sync["laptop"].connected_to(sync["desk"]) and sync["desk"].connected_to(sync["laptop"]),
               timeout=60 * SLOWDOWN, interval=0.2, message="the two Syncthings connect")
    laptop = devices("laptop", folders["laptop"]).start()
    desk = devices("desk", folders["desk"]).start()
    # Each bridge's first file has reached the other folder: the folder is shared both ways.
    wait_until(lambda: (folders["desk"] / "laptop.json").exists() and (folders["laptop"] / "desk.json").exists(),
               timeout=30 * SLOWDOWN, interval=0.1, message="each device file synced")

    def propagation(change, device, expected):
        """Seconds from the change at one bridge to `expected` at the other (a bounded wait)."""
        started = time.monotonic()
        change()
        device.wait_focus(expected, timeout=SYNC_DELAY_S + 10)
        return time.monotonic() - started

    took = propagation(lambda: laptop.ctl("focus", "on", "work", "--for", "1h"), desk, ("work", "shared", "laptop"))
    assert "work is on until" in desk.ctl("status") and "(from laptop)." in desk.ctl("status")
    back = propagation(lambda: desk.ctl("focus", "off"), laptop, None)
    print("\nSyncthing, fsWatcherDelayS=%d: on at the laptop -> on at the desk in %.1f s; off at the desk -> "
          "off at the laptop in %.1f s" % (SYNC_DELAY_S, took, back))
    assert max(took, back) < SYNC_DELAY_S + 5 * SLOWDOWN, "slower than the sync delay and a few seconds"

    # The desk's Syncthing dies; a change at each device meanwhile, the desk's last.
    sync["desk"].kill()
    laptop.ctl("focus", "on", "work")
    wait_until(lambda: laptop.own_file()["sequence"] == 2, timeout=5)
    desk.ctl("focus", "on", "dnd", "--for", "2h")
    assert json.loads((folders["desk"] / "desk.json").read_text())["changed"] > laptop.own_file()["changed"]
    assert laptop.focus() == ("work", "manual", None) and desk.focus() == ("dnd", "manual", None)
    # Back: both converge on the newest change, the desk's.
    sync["desk"].start()
    wait_until(lambda: sync["desk"].connected_to(sync["laptop"]), timeout=60 * SLOWDOWN, interval=0.2,
               message="the desk's Syncthing connects again")
    laptop.wait_focus(("dnd", "shared", "desk"), timeout=30)
    assert desk.focus() == ("dnd", "manual", None)
    wait_until(lambda: {d["device"]: d["sequence"] for d in desk.share()["devices"]}.get("laptop") == 2,
               timeout=30 * SLOWDOWN, interval=0.2, message="the laptop's older change reached the desk")
    assert {d["device"]: d for d in desk.share()["devices"]}["laptop"]["applied"] is False
    assert desk.focus() == ("dnd", "manual", None), "the older change was not taken"
    for folder in folders.values():
        assert sorted(p.name for p in folder.iterdir() if not p.name.startswith(".st")) == ["desk.json", "laptop.json"], \
            sorted(p.name for p in folder.iterdir())


# --------------------------------------------------------------------------- text from another device
RAW_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def test_a_focus_this_device_lacks_is_shown_ignored_and_its_text_escaped(tmp_path, devices):
    """Another device's file names a Focus this one does not have, with terminal commands in
    it: `share status` says it is ignored and why (not "applied"), and neither the table nor
    the log carries a control character raw (a newline in a field starts no log line)."""
    folder = tmp_path / "sync"
    folder.mkdir()
    desk = devices("desk", folder).start()
    evil = "gym\x1b]0;pwned\x07\r\nforged\x9b2J"
    write_like_a_sync_engine(folder, "laptop.json", record("laptop", 1, evil, now()))
    write_like_a_sync_engine(folder, "tablet.json", dict(record("tablet", 1, "work", now()),
                                                         since="\x1b[2J\x1b]52;c;cHduZWQ=\x07"))
    wait_until(lambda: "laptop" in {d["device"] for d in desk.share()["devices"]}, timeout=10 * SLOWDOWN,
               interval=0.05, message="desk read laptop.json")
    assert desk.focus() is None
    laptop = {d["device"]: d for d in desk.share()["devices"]}["laptop"]
    assert laptop["applied"] is False and laptop["ignored"] == "unknown-focus", laptop
    assert laptop["last-change"]["focus"] == evil   # JSON keeps the text, escaped by JSON itself

    table = desk.ctl("share", "status")
    assert not RAW_CONTROLS.search(table), repr(table)
    row = next(line for line in table.splitlines() if line.startswith("laptop"))
    assert "gym\\e]0;pwned\\x07\\r\\nforged\\x9b2J on" in row, row
    assert "no: ignored, this device has no Focus" in row and "yes" not in row.split("made")[-1], row

    wait_until(lambda: "tablet.json" in desk.log_text(), timeout=10 * SLOWDOWN, interval=0.05,
               message="the complaint about tablet.json")
    log = desk.log_text()
    assert not RAW_CONTROLS.search(log), repr(log[-2000:])
    assert 'share: laptop turned "gym\\e]0;pwned\\x07\\r\\nforged\\x9b2J" on, a Focus this device does not have; ignored' \
        in log, log[-2000:]
    assert "\\e[2J\\e]52;c;" in log, log[-2000:]
    assert not any(line.startswith("forged") for line in log.splitlines()), "a field started a log line"
