"""The Debian package (`make deb`) and the release archive (`make dist`), as `make test-package`
makes them and names them here: FOCUS_DEB, FOCUS_DIST, and FOCUS_PACKAGED_BIN (the folder of
the binaries both carry). Without them each test is skipped: `make test` builds no release
binaries.

- lintian finds no error and no warning but the one packaging/debian's overrides keep;
- the package holds what `make install PREFIX=/usr` installs, with Debian's additions, and
  nothing that starts FocusBridge by itself; Depends covers every library the binaries link;
- the archive's install.sh installs exactly what `make install` installs, byte for byte, and
  --uninstall removes it;
- on a clean Debian 12 root (support/clean_root.py; skipped with one line when not root, or
  without debootstrap or its mirror): `apt-get install ./focus-bridge_….deb` with no Swift
  there, the programs run, a notification from notify-send on a private bus passes through the
  bridge in log mode and is in `focusctl history`, and `apt-get purge` leaves none of the
  package's files; the archive installs and uninstalls there the same way.
"""

import os
import re
import shutil
import signal
import subprocess
import tarfile
from pathlib import Path

import pytest

from support.buses import bus_config, connect, wait_for_name
from support.clean_root import CleanRoot, why_not
from support.names import CONTROL_NAME, NOTIF_NAME
from support.processes import LineReader, read_first_line

# The first clean root is made with debootstrap (about a minute); apt then fetches the
# package's dependencies and libnotify-bin from the mirror.
TEST_TIMEOUT = 900

ROOT = Path(__file__).resolve().parents[2]
DEB = os.environ.get("FOCUS_DEB")
DIST = os.environ.get("FOCUS_DIST")
PACKAGED_BIN = os.environ.get("FOCUS_PACKAGED_BIN")
VERSION = re.search(r'focusBridgeVersion = "([^"]+)"',
                    (ROOT / "Sources/FocusBridgeCore/Support/Version.swift").read_text()).group(1)
MADE_BY = "make test-package makes it and runs this file"


def need(path, what):
    if not path:
        pytest.skip("no %s given (%s)" % (what, MADE_BY))
    if not Path(path).is_file():
        pytest.skip("%s not found: %s (%s)" % (what, path, MADE_BY))
    return Path(path)


def deb_field(deb, name):
    return subprocess.run(["dpkg-deb", "-f", str(deb), name], capture_output=True, text=True,
                          check=True).stdout.strip()


def deb_paths(deb):
    """The package's paths (folders too), absolute, without the trailing slash of folders."""
    out = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(deb)], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=__import__("io").BytesIO(out)) as tar:
        return {"/" + m.name.lstrip("./").rstrip("/"): m for m in tar.getmembers() if m.name not in (".", "./")}


def install_list(prefix, **env):
    """What scripts/install.sh installs for PREFIX=prefix (no DESTDIR), one path a line."""
    full = {k: v for k, v in os.environ.items() if not k.endswith("DIR") and k not in ("PREFIX", "STRIP")}
    full.update(PREFIX=prefix, **env)
    out = subprocess.run(["bash", str(ROOT / "scripts/install.sh"), "list"], env=full, capture_output=True,
                         text=True, check=True).stdout
    return set(out.split())


def tree(root):
    """Every file and symbolic link under root, relative, with its bytes."""
    root = Path(root)
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else os.readlink(p))
            for p in root.rglob("*") if p.is_file() or p.is_symlink()}


# --------------------------------------------------------------------------- the package itself
def test_lintian_finds_no_error_and_no_warning_but_the_kept_one():
    deb = need(DEB, "package")
    if shutil.which("lintian") is None:
        pytest.skip("lintian is not installed (make deps installs it)")
    result = subprocess.run(["lintian", "--show-overrides", str(deb)], capture_output=True, text=True, timeout=300)
    tags = [line for line in result.stdout.splitlines() if re.match(r"[EWO]: ", line)]
    assert [t for t in tags if not t.startswith("O: ")] == [], result.stdout
    # The override is used (lintian would say so otherwise) and says why in the file.
    assert tags == ["O: focus-bridge: initial-upload-closes-no-bugs [usr/share/doc/focus-bridge/changelog.Debian.gz:1]"]
    assert "mismatched-override" not in result.stdout and "unused-override" not in result.stdout


def test_package_holds_what_make_install_installs_under_usr_and_starts_nothing():
    deb = need(DEB, "package")
    paths = deb_paths(deb)
    files = {p for p, m in paths.items() if not m.isdir()}
    installed = install_list("/usr")
    expected = {p + ".gz" if "/share/man/" in p else p for p in installed}
    expected |= {"/usr/share/doc/focus-bridge/copyright", "/usr/share/doc/focus-bridge/changelog.Debian.gz",
                 "/usr/share/lintian/overrides/focus-bridge"}
    assert files == expected
    assert "/usr/lib/systemd/user/focus-bridge.service" in files
    assert "/usr/share/zsh/vendor-completions/_focusctl" in files
    # Nothing that starts it in every user's session: no enabled unit, no autostart entry or
    # activation file where a session reads them; both are offered in /usr/share/focus-bridge.
    assert not [p for p in paths if p.startswith(("/etc", "/usr/share/dbus-1", "/usr/lib/systemd/user/graphical"))]
    assert {"/usr/share/focus-bridge/focus-bridge.desktop",
            "/usr/share/focus-bridge/org.freedesktop.Notifications.service"} <= files
    for path, member in paths.items():
        assert (member.uname, member.gname) == ("root", "root"), path
        mode = member.mode & 0o7777
        assert mode == (0o755 if member.isdir() or path.startswith("/usr/bin/") else 0o644), "%s: %o" % (path, mode)
    # man pages compressed with gzip -9n: no name, no time in the header
    out = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(deb)], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=__import__("io").BytesIO(out)) as tar:
        page = tar.extractfile("./usr/share/man/man1/focusctl.1.gz").read()
        assert page[:3] == b"\x1f\x8b\x08" and page[3] & 0x08 == 0 and page[4:8] == b"\0\0\0\0"
        service = tar.extractfile("./usr/lib/systemd/user/focus-bridge.service").read().decode()
        assert "ExecStart=/usr/bin/focus-bridge --replace" in service.splitlines()
        entry = tar.extractfile("./usr/share/focus-bridge/focus-bridge.desktop").read().decode()
        assert "Exec=/usr/bin/focus-bridge" in entry.splitlines()


def test_package_control_fields_come_from_the_binaries():
    deb = need(DEB, "package")
    binaries = need(PACKAGED_BIN and os.path.join(PACKAGED_BIN, "focus-bridge"), "packaged focus-bridge").parent
    version = deb_field(deb, "Version")
    assert version.split("-")[0] == VERSION, "the changelog's version %s is not focus-bridge's %s" % (version, VERSION)
    assert Path(deb).name == "focus-bridge_%s_%s.deb" % (version, deb_field(deb, "Architecture"))
    depends = deb_field(deb, "Depends")
    packages = {d.split()[0] for d in depends.split(", ")}
    # Every library either binary links is in a package Depends names (found through dpkg -S).
    for program in ("focus-bridge", "focusctl"):
        needed = re.findall(r"\(NEEDED\).*\[(.+)\]", subprocess.run(
            ["readelf", "-d", str(binaries / program)], capture_output=True, text=True, check=True).stdout)
        assert needed, program
        for library in needed:
            owner = subprocess.run(["dpkg", "-S", "*/" + library], capture_output=True, text=True).stdout
            names = {line.split(":")[0] for line in owner.splitlines()}
            assert names & packages, "%s links %s (%s), which Depends (%s) does not cover" % (
                program, library, ", ".join(sorted(names)), depends)
        # glibc's GLIBC_ABI_DT_RELR (packed relocations) has no symbol dpkg-shlibdeps could see
        versions = subprocess.run(["readelf", "-V", str(binaries / program)], capture_output=True, text=True).stdout
        if "GLIBC_ABI_DT_RELR" in versions:
            assert re.search(r"(^|, )libc6 \(>= 2\.3[6-9]", depends), depends
    assert "dbus-daemon" in packages, "spawn mode runs dbus-daemon"
    # Installed-Size: the files' sizes in KiB, rounded up each, and a KiB per folder at most
    entries = deb_paths(deb).values()
    files = sum((m.size + 1023) // 1024 for m in entries if not m.isdir())
    folders = sum(1 for m in entries if m.isdir())
    assert files <= int(deb_field(deb, "Installed-Size")) <= files + folders + 2


# --------------------------------------------------------------------------- the archive
def extract(archive, into):
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        tar.extractall(into)
    top = {n.split("/")[0] for n in names}
    assert top == {Path(archive).name[:-len(".tar.gz")]}, top
    return Path(into) / top.pop()


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "DESTDIR", "PREFIX", "BUILT", "STRIP",
                        "XDG_CONFIG_HOME", "XDG_DATA_HOME") and not k.endswith("DIR")}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def test_archive_installs_what_make_install_installs(tmp_path):
    archive = need(DIST, "archive")
    built = need(PACKAGED_BIN and os.path.join(PACKAGED_BIN, "focusctl"), "packaged focusctl").parent
    unpacked = extract(archive, tmp_path / "unpacked")
    assert sorted(os.listdir(unpacked / "bin")) == ["focus-bridge", "focusctl"]

    def make_install(*args, **env):
        r = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "install", "BUILT=%s" % built, *args],
                           env=clean_env(**env), capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr

    def archive_install(*args, **env):
        r = subprocess.run([str(unpacked / "install.sh"), *args], env=clean_env(**env), capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        return r

    # System-wide into a staging root: the same paths, the same bytes (binaries included).
    make_install("DESTDIR=%s" % (tmp_path / "made"), "PREFIX=/usr/local", HOME=tmp_path / "h0")
    archive_install("--prefix", "/usr/local", DESTDIR=tmp_path / "archived", HOME=tmp_path / "h0")
    made, archived = tree(tmp_path / "made"), tree(tmp_path / "archived")
    assert sorted(made) == sorted(archived) and made == archived
    assert "usr/local/share/focus-bridge/focus-bridge.desktop" in made

    # Per-user, the default: the same files under each HOME.
    for home in ("h1", "h2"):
        (tmp_path / home).mkdir()
    make_install(HOME=tmp_path / "h1")
    said = archive_install(HOME=tmp_path / "h2").stderr
    assert "focus-bridge --print-downstream" in said  # the same hints as make install
    assert sorted(tree(tmp_path / "h1")) == sorted(tree(tmp_path / "h2"))
    assert ".config/autostart/focus-bridge.desktop" in tree(tmp_path / "h2")

    # The installed focus-bridge runs, from the archive's copy
    installed = tmp_path / "h2/.local/bin"
    for program in ("focus-bridge", "focusctl"):
        r = subprocess.run([str(installed / program), "--version"], capture_output=True, text=True, timeout=30)
        assert r.returncode == 0 and r.stdout.strip() == VERSION, r.stdout + r.stderr

    archive_install("--uninstall", HOME=tmp_path / "h2")
    assert tree(tmp_path / "h2") == {}
    r = subprocess.run([str(unpacked / "install.sh"), "--frobnicate"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--help" in r.stderr


# --------------------------------------------------------------------------- a clean Debian 12 root
@pytest.fixture
def clean_root(tmp_path):
    if not (DEB and DIST):
        pytest.skip("no package and archive given (%s)" % MADE_BY)
    reason = why_not()
    if reason:
        pytest.skip("no clean Debian root: " + reason)
    root = CleanRoot(tmp_path / "root")
    try:
        yield root.open()
    finally:
        root.close()


def start_in_root(root, argv, env, **kw):
    return subprocess.Popen(root.argv(argv, env), stdin=subprocess.DEVNULL, start_new_session=True, **kw)


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            return proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
            return "hung (killed)"
    return proc.returncode


def test_package_on_a_clean_debian_root(clean_root, tmp_path):
    deb = need(DEB, "package")
    root = clean_root
    root.apt("update")
    assert shutil.which("swift", path=str(root.inside("/usr/bin"))) is None

    shutil.copy(deb, root.inside("/tmp"))
    root.apt("install", "--no-install-recommends", "/tmp/" + Path(deb).name, timeout=600)
    assert not root.inside("/opt/swift").exists()
    for program in ("focus-bridge", "focusctl"):
        assert root.run(program, "--version").stdout.strip() == VERSION
    packaged = [p for p in root.run("dpkg-query", "-L", "focus-bridge").stdout.splitlines() if p != "/."]
    assert "/usr/bin/focus-bridge" in packaged
    # Installed, enabled for no one: no unit links, no autostart entry, no activation file.
    assert not [p for p in root.files() if "focus-bridge" in p and p.startswith(("/etc/systemd", "/etc/xdg"))]
    assert not root.inside("/etc/xdg/autostart/focus-bridge.desktop").exists()
    assert not root.inside("/usr/share/dbus-1/services/org.freedesktop.Notifications.service").exists()

    # A notification through it: a private bus in the root, the bridge in log mode, notify-send.
    root.apt("install", "--no-install-recommends", "libnotify-bin", timeout=600)
    root.inside("/tmp/bus.conf").write_text(bus_config(listen="unix:path=/tmp/focus-bridge-test-bus"))
    bus = start_in_root(root, ["dbus-daemon", "--config-file=/tmp/bus.conf", "--nofork", "--print-address=1"], {},
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    bridge = None
    try:
        address = read_first_line(bus, bus.stdout.fileno(), "dbus-daemon in the clean root", 30)
        assert address.startswith("unix:path=/tmp/focus-bridge-test-bus"), address
        watcher = connect("unix:path=%s" % root.inside("/tmp/focus-bridge-test-bus"))
        session = {"DBUS_SESSION_BUS_ADDRESS": "unix:path=/tmp/focus-bridge-test-bus",
                   "XDG_STATE_HOME": "/tmp/state", "XDG_CONFIG_HOME": "/tmp/config", "XDG_RUNTIME_DIR": "/tmp"}
        stderr = open(tmp_path / "bridge.stderr", "wb")
        bridge = start_in_root(root, ["focus-bridge", "--downstream", "log"], session, stdout=subprocess.PIPE,
                               stderr=stderr)
        out = LineReader(bridge.stdout)
        for name in (NOTIF_NAME, CONTROL_NAME):
            assert wait_for_name(watcher, name, 30, bridge), "the packaged bridge did not own %s; stderr:\n%s" % (
                name, (tmp_path / "bridge.stderr").read_text()[-3000:])
        root.run("notify-send", "-a", "Clean Root", "Installed from the package", "no Swift here", env=session)
        line = out.wait_for(lambda l: "Installed from the package" in l, 30)
        assert line and line.startswith("notify id=") and '"Clean Root"' in line, out.lines
        history = root.run("focusctl", "history", env=session).stdout
        assert "Installed from the package" in history and "Clean Root" in history, history
        assert stop(bridge) == 0, (tmp_path / "bridge.stderr").read_text()[-3000:]
        watcher.close_sync(None)
    finally:
        if bridge is not None:
            stop(bridge)
        stop(bus)

    # apt-get purge: every path of the package goes but the folders other packages share, and
    # nothing else changes (the bridge's own files of this run were all in /tmp).
    before = root.files()
    root.apt("purge", "focus-bridge")
    assert root.run("dpkg-query", "-W", "focus-bridge", check=False).returncode != 0
    after = root.files()
    owned = root.owned()
    left = sorted(p for p in packaged if p in after and p not in owned)
    assert left == [], "apt-get purge left the package's %s" % left
    assert after <= before and sorted(before - after) == sorted(p for p in packaged if p not in owned)
    assert not root.inside("/usr/share/focus-bridge").exists() and not root.inside("/usr/share/doc/focus-bridge").exists()


def test_archive_on_a_clean_debian_root(clean_root):
    archive = need(DIST, "archive")
    root = clean_root
    root.apt("update")
    # What the archive's install.sh says it needs, from Debian: GLib, SQLite, libsystemd (and
    # dbus-daemon for spawn mode), no Swift.
    root.apt("install", "--no-install-recommends", "libglib2.0-0", "libsqlite3-0", "libsystemd0", "dbus-daemon",
             timeout=600)
    before = root.files(folders=False)
    shutil.copy(archive, root.inside("/tmp"))
    root.run("tar", "-C", "/tmp", "-xzf", "/tmp/" + Path(archive).name)
    unpacked = "/tmp/" + Path(archive).name[:-len(".tar.gz")]
    said = root.run(unpacked + "/install.sh", "--prefix", "/usr/local").stderr
    assert "installed /usr/local/bin/focus-bridge" in said, said
    for program in ("focus-bridge", "focusctl"):
        assert root.run(program, "--version").stdout.strip() == VERSION
    listed = set(root.run(unpacked + "/install.sh", "--list", "--prefix", "/usr/local").stdout.split())
    assert listed == install_list("/usr/local") and root.files(folders=False) - before == listed
    assert not root.inside("/etc/xdg/autostart/focus-bridge.desktop").exists()
    root.run(unpacked + "/install.sh", "--uninstall", "--prefix", "/usr/local")
    # Exactly its files are gone (the shared folders it made stay, as after make uninstall).
    assert root.files(folders=False) == before
