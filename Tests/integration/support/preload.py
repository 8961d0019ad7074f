"""LD_PRELOAD shims for the bridge under test, built from the C files beside this module once per
session (the test is skipped without a C compiler).

* ``time_shift``  ``time_shift(seconds) -> extra_env`` for bridge_factory: the bridge's wall clock
                  runs `seconds` off (time_shift.c);
* ``fail_writes`` ``fail_writes(errno) -> (extra_env, trigger Path)``: while the trigger file
                  exists, every write to the state database fails with that errno (fail_writes.c).
"""

import shutil
import subprocess
from pathlib import Path

import pytest

from support.processes import SUPPORT


def build_preload_shim(tmp_path_factory, name, source, what, missing=pytest.skip):
    """Compiles `source` (a .c file, or C text) into name.so for LD_PRELOAD; `what` names it in
    messages. Without a C compiler the test is skipped; a failing build calls `missing` (skip or
    fail)."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        pytest.skip("no C compiler for the %s" % what)
    folder = tmp_path_factory.mktemp(name)
    lib = folder / (name + ".so")
    if isinstance(source, Path):
        src = source
    else:
        src = folder / (name + ".c")
        src.write_text(source)
    r = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(lib), str(src), "-ldl"],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        missing("cannot build the %s: %s" % (what, r.stderr[-1500:]))
    return lib


@pytest.fixture(scope="session")
def time_shift_lib(tmp_path_factory):
    return build_preload_shim(tmp_path_factory, "timeshift", SUPPORT / "time_shift.c", "wall-clock shim")


@pytest.fixture
def time_shift(time_shift_lib):
    """time_shift(seconds) -> extra_env for bridge_factory: the bridge's wall clock runs
    `seconds` off (negative: in the past)."""

    def env(seconds):
        return {"LD_PRELOAD": str(time_shift_lib), "FOCUS_TEST_TIME_SHIFT": str(int(seconds))}

    return env


@pytest.fixture(scope="session")
def fail_writes_lib(tmp_path_factory):
    return build_preload_shim(tmp_path_factory, "failwrites", SUPPORT / "fail_writes.c", "failing-writes shim",
                              missing=pytest.fail)


@pytest.fixture
def fail_writes(fail_writes_lib, tmp_path):
    """fail_writes(errno) -> (extra_env for bridge_factory, trigger Path). Create the trigger
    file to make writes to state.sqlite3* fail; remove it to give the disk back."""

    def make(err):
        trigger = tmp_path / ("disk-fails-%d" % err)
        env = {"LD_PRELOAD": str(fail_writes_lib), "FOCUS_TEST_FAIL_TRIGGER": str(trigger),
               "FOCUS_TEST_FAIL_MATCH": "state.sqlite3", "FOCUS_TEST_FAIL_ERRNO": str(err)}
        return env, trigger

    return make
