"""A clean Debian 12 root (debootstrap --variant=minbase), for installing the package and the
release archive where no Swift toolchain and none of the build's libraries are.

The root made by debootstrap (about 50 s, 206 MB) is kept as a tar file in CACHE_DIR and
unpacked afresh for every test that asks for one (under a second). Its apt sources are the
host's (``/etc/apt/sources.list.d/debian.sources``), so it sees the same mirror and suites.

A root is entered with ``chroot`` after ``/proc`` is mounted in it and ``/dev`` bound into it.
Removing a root with ``/dev`` still bound would delete the host's device nodes, so ``remove``
first ends every process whose root it is, unmounts everything below it (lazily), checks with
findmnt that nothing is mounted there any more, and only then deletes it, without crossing into
another file system.
"""

import fcntl
import os
import re
import shutil
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

SUITE = "bookworm"
CACHE_DIR = Path(os.environ.get("FOCUS_TEST_ROOT_CACHE") or "/var/cache/focus-bridge-tests")
HOST_SOURCES = Path("/etc/apt/sources.list.d/debian.sources")
# What runs inside: a plain root shell's environment, none of the test's.
ROOT_ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root",
            "LANG": "C.UTF-8", "DEBIAN_FRONTEND": "noninteractive"}
APT = ["apt-get", "-q", "-y", "-o", "Dpkg::Use-Pty=0", "-o", "APT::Color=0"]


def mirror():
    """The first URI of the host's Debian sources that serves SUITE (deb822 or one-line form)."""
    if HOST_SOURCES.is_file():
        for stanza in re.split(r"\n\s*\n", HOST_SOURCES.read_text()):
            fields = dict(re.findall(r"^([A-Za-z-]+):\s*(.*)$", stanza, re.M))
            if SUITE in fields.get("Suites", "").split() and "deb" in fields.get("Types", "").split():
                return fields["URIs"].split()[0].rstrip("/")
    lists = Path("/etc/apt/sources.list")
    if lists.is_file():
        m = re.search(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+%s\s" % SUITE, lists.read_text(), re.M)
        if m:
            return m.group(1).rstrip("/")
    return None


def why_not():
    """One line saying why no clean root can be made here, or None when one can."""
    if os.geteuid() != 0:
        return "needs root (debootstrap, chroot, mount)"
    for tool in ("debootstrap", "chroot", "findmnt", "tar"):
        if shutil.which(tool) is None:
            return "%s is not installed (make deps installs it)" % tool
    url = mirror()
    if not url:
        return "no %s mirror in %s" % (SUITE, HOST_SOURCES)
    try:
        urllib.request.urlopen(urllib.request.Request("%s/dists/%s/InRelease" % (url, SUITE), method="HEAD"),
                               timeout=15).close()
    except (urllib.error.URLError, OSError) as exc:
        return "the mirror %s cannot be reached (%s)" % (url, getattr(exc, "reason", exc))
    return None


# --------------------------------------------------------------------------- mounts and removal
def mounts_below(path):
    """Every mount point at or below `path`, deepest first."""
    out = subprocess.run(["findmnt", "--list", "--noheadings", "--output", "TARGET"],
                         capture_output=True, text=True, timeout=30).stdout
    prefix = str(path).rstrip("/")
    found = [t for t in out.splitlines() if t == prefix or t.startswith(prefix + "/")]
    return sorted(found, key=lambda t: t.count("/"), reverse=True)


def processes_in(path):
    """PIDs of the processes whose root folder is `path`."""
    pids = []
    path = os.path.realpath(path)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.readlink("/proc/%s/root" % entry) == path:
                    pids.append(int(entry))
            except OSError:
                pass
    return pids


def remove(path):
    """Deletes a root: its processes killed, every mount below it undone and checked gone first.
    Raises (and deletes nothing) when something stays mounted."""
    path = Path(path)
    if not path.exists():
        return
    for pid in processes_in(path):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for target in mounts_below(path):
        subprocess.run(["umount", "-l", target], capture_output=True, timeout=30)
    left = mounts_below(path)
    if left:
        raise RuntimeError("still mounted below %s, not removed: %s" % (path, ", ".join(left)))
    subprocess.run(["rm", "-rf", "--one-file-system", str(path)], check=True, timeout=120)


# --------------------------------------------------------------------------- the cached root
def cached_tar():
    """The tar file of a configured minbase root, made once (debootstrap) and kept in CACHE_DIR."""
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True,
                          check=True).stdout.strip()
    tar = CACHE_DIR / ("%s-minbase-%s.tar" % (SUITE, arch))
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    with open(CACHE_DIR / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another run making it: wait for it
        if tar.exists():
            return tar
        work = CACHE_DIR / ("%s-minbase-%s.new" % (SUITE, arch))
        remove(work)
        try:
            result = subprocess.run(["debootstrap", "--variant=minbase", SUITE, str(work), mirror()],
                                    capture_output=True, text=True, timeout=900)
            if result.returncode != 0:
                raise RuntimeError("debootstrap failed:\n" + (result.stdout + result.stderr)[-3000:])
            # The host's sources (its mirror, its update and security suites), and no services
            # started by package scripts in a root that runs no init.
            if HOST_SOURCES.is_file():
                shutil.copy(HOST_SOURCES, work / "etc/apt/sources.list.d/debian.sources")
                (work / "etc/apt/sources.list").unlink(missing_ok=True)
            policy = work / "usr/sbin/policy-rc.d"
            policy.write_text("#!/bin/sh\nexit 101\n")
            policy.chmod(0o755)
            for deb in (work / "var/cache/apt/archives").glob("*.deb"):
                deb.unlink()
            subprocess.run(["tar", "-C", str(work), "--numeric-owner", "-cf", str(tar) + ".part", "."],
                           check=True, timeout=300)
            os.replace(str(tar) + ".part", tar)
        finally:
            remove(work)
        return tar


class CleanRoot:
    """A fresh root unpacked at `path`, with /proc and /dev mounted while it is open."""

    def __init__(self, path):
        self.path = Path(path)

    def open(self):
        tar = cached_tar()
        self.path.mkdir(parents=True)
        subprocess.run(["tar", "-C", str(self.path), "--numeric-owner", "-xf", str(tar)], check=True, timeout=300)
        shutil.copy("/etc/resolv.conf", self.path / "etc/resolv.conf")
        subprocess.run(["mount", "-t", "proc", "proc", str(self.path / "proc")], check=True, timeout=30)
        subprocess.run(["mount", "--bind", "/dev", str(self.path / "dev")], check=True, timeout=30)
        return self

    def close(self):
        remove(self.path)

    def inside(self, path):
        """The host's path of `path` inside the root."""
        return self.path / str(path).lstrip("/")

    def argv(self, argv, env=None):
        return ["chroot", str(self.path), "env", "-i"] + ["%s=%s" % kv for kv in {**ROOT_ENV, **(env or {})}.items()] \
            + list(argv)

    def run(self, *argv, env=None, timeout=120, check=True):
        """Runs argv inside; with `check`, a failure fails with its output."""
        result = subprocess.run(self.argv(argv, env), capture_output=True, text=True, timeout=timeout,
                                stdin=subprocess.DEVNULL)
        if check and result.returncode != 0:
            raise AssertionError("in the clean root, %s exited %d:\n%s%s" % (
                " ".join(argv), result.returncode, result.stdout[-3000:], result.stderr[-3000:]))
        return result

    def apt(self, *args, timeout=300):
        return self.run(*APT, *args, timeout=timeout)

    def files(self, folders=True, skip=("proc", "dev", "sys", "run", "tmp", "var/cache", "var/lib/apt",
                                        "var/lib/dpkg", "var/log", "root")):
        """Every path in the root (with `folders`, folders too), as absolute paths inside it,
        outside `skip` (what apt, dpkg and the test itself change)."""
        found = set()
        skipped = {str(self.path / s) for s in skip}
        for folder, dirs, names in os.walk(self.path):
            dirs[:] = [d for d in dirs if os.path.join(folder, d) not in skipped]
            for name in (dirs + names if folders else names):
                found.add("/" + os.path.relpath(os.path.join(folder, name), self.path))
        return found

    def owned(self):
        """Every path some installed package owns (dpkg's file lists), as found in the root:
        /bin, /sbin and /lib* are links into /usr there (merged /usr), so /lib/x is /usr/lib/x."""
        merged = [d for d in ("bin", "sbin", "lib", "lib32", "lib64", "libx32") if self.inside(d).is_symlink()]
        owned = set()
        for listing in self.inside("/var/lib/dpkg/info").glob("*.list"):
            for line in listing.read_text(errors="replace").splitlines():
                top = line.split("/")[1] if line.count("/") > 1 else None
                owned.add("/usr" + line if top in merged else line)
        return owned
