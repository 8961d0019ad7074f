"""Pieces several test files need: an LD_PRELOAD shim built from C source once per session,
and dunst run behind the bridge on Xvfb with dunstctl at hand."""

import json
import shutil
import subprocess

import pytest

from conftest import run, session_env, wait_connected


def build_preload_shim(tmp_path_factory, name, source, what, missing=pytest.skip):
    """Compiles `source` (C) into name.so for LD_PRELOAD; `what` names it in messages. Without a
    C compiler the test is skipped; a failing build calls `missing` (skip or fail)."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        pytest.skip("no C compiler for the %s" % what)
    folder = tmp_path_factory.mktemp(name)
    src, lib = folder / (name + ".c"), folder / (name + ".so")
    src.write_text(source)
    r = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(lib), str(src), "-ldl"],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        missing("cannot build the %s: %s" % (what, r.stderr[-1500:]))
    return lib


class Dunst:
    """dunst spawned by the bridge: the bridge, a client, the environment and `ctl` (dunstctl)."""

    def __init__(self, bridge_factory, xvfb, dunstrc, make_client, bus, client_name):
        self.bridge = bridge_factory("spawn", command=["dunst", "-config", str(dunstrc)], display=xvfb)
        self.client = make_client(client_name)
        wait_connected(self.client, 15)
        self.env = session_env(bus.address, display=xvfb)
        self.rc = dunstrc

    def ctl(self, *args):
        r = run(["dunstctl", *args], self.env, timeout=10)
        assert r.returncode == 0, "dunstctl %s failed: %s" % (" ".join(args), r.stderr)
        return r.stdout

    def count(self, what):
        return int(self.ctl("count", what).strip())

    def displayed(self):
        return self.count("displayed")

    def history(self):
        return [{k: v.get("data") for k, v in item.items()} for item in json.loads(self.ctl("history"))["data"][0]]
