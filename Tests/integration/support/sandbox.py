"""A Flatpak app played the way Flatpak runs one: a process whose root is a folder holding
`/.flatpak-info` (a mount namespace and chroot, as root), which the bridge reads through
/proc/PID/root."""

import os
import shutil
import subprocess

import pytest


class Sandbox:
    """Runs commands as a Flatpak app would run: in a root of its own with /.flatpak-info."""

    def __init__(self, tmp_path, app_id):
        if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("chroot"):
            pytest.skip("needs root, unshare and chroot to play a sandboxed app")
        self.root = tmp_path / ("sandbox-" + app_id)
        self.root.mkdir()
        (self.root / ".flatpak-info").write_text("[Application]\nname=%s\nruntime=runtime/test\n" % app_id)
        for d in ("usr", "etc", "tmp", "proc", "dev"):
            (self.root / d).mkdir()
        for link in ("bin", "lib", "lib64", "sbin"):
            if os.path.islink("/" + link):
                os.symlink(os.readlink("/" + link), self.root / link)

    def argv(self, argv):
        mounts = " && ".join("mount --rbind /%s %s/%s" % (d, self.root, d) for d in ("usr", "etc", "tmp", "proc", "dev"))
        script = '%s && exec chroot %s "$@"' % (mounts, self.root)
        return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sandbox", *argv]

    def run(self, argv, env):
        r = subprocess.run(self.argv(argv), env=env, capture_output=True, text=True, timeout=10)
        self.skip_unless_started(r.returncode, r.stderr)
        return r

    def start(self, argv, env):
        """The command running in the sandbox (communicate() with a timeout to wait for it)."""
        return subprocess.Popen(self.argv(argv), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    @staticmethod
    def skip_unless_started(returncode, stderr):
        if returncode != 0 and ("Operation not permitted" in stderr or "unshare failed" in stderr):
            pytest.skip("no mount namespaces here: %s" % stderr.strip())
