"""Nothing crashes, and nothing crash-loops (issue 10, §4; PRODUCT.md §7): absurd times at the
door (focusctl, D-Bus), poisoned values in the state file, a broken or busy state database, an
unusable environment, a clean stop in spawn mode, and the modes of the files in the state folder.
"""

import json
import os
import signal
import sqlite3
import stat
import subprocess

import pytest
from gi.repository import GLib

from conftest import (BRIDGE_BIN, CONTROL_IFACE, CONTROL_NAME, CONTROL_PATH, FOCUSCTL_BIN, require_binary,
                      run, session_env, wait_connected, wait_until)
from fault_support import SPAWN_FAKE, SpawnedFakes, private_bus_address
from focus_support import config, fc_ok, focus_bridge, status  # noqa: F401  (fixtures)

WORK = """
[focus.work]
apps = ["Mail"]
"""


def control(client, method, params=None, reply="(s)"):
    out = client.call(method, params, reply, dest=CONTROL_NAME, path=CONTROL_PATH, iface=CONTROL_IFACE)
    return json.loads(out[0]) if reply == "(s)" else out[0]


def one_line(text):
    """The text is one line (a sentence), not a stack of Foundation or Swift runtime text."""
    lines = [l for l in text.splitlines() if l.strip()]
    assert len(lines) == 1, "expected one sentence, got:\n%s" % text
    assert "Fatal error" not in text and "NSCocoaErrorDomain" not in text and "Error Domain" not in text, text
    return lines[0]


def start_and_wait_exit(bridge_factory, timeout=10, **kw):
    """Starts a bridge that is expected to refuse: returns (exit code, stderr)."""
    b = bridge_factory(wait=False, **kw)
    try:
        code = b.proc.wait(timeout)
    except subprocess.TimeoutExpired:
        b.stop(signal.SIGKILL)
        pytest.fail("focus-bridge did not exit within %d s; stderr:\n%s" % (timeout, b.stderr_tail()))
    b.stopped = True
    return code, b.stderr()


# --------------------------------------------------------------------------- 1. times at the door
@pytest.mark.parametrize("duration", ["99999999999999d", "367d", "9" * 400 + "s"])
def test_focusctl_refuses_an_absurd_duration(focus_bridge, focusctl, duration):
    b = focus_bridge(WORK)
    r = focusctl("focus", "on", "work", "--for", duration)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    line = one_line(r.stderr)
    assert "--for" in line and "366 days" in line or "duration" in line, line
    assert b.alive(), "the bridge died:\n%s" % b.stderr_tail()
    assert status(focusctl)["focus"] is None
    # the longest allowed one works
    fc_ok(focusctl, "focus", "on", "work", "--for", "366d")
    assert status(focusctl)["focus"]["name"] == "work"


@pytest.mark.parametrize("seconds", [float("inf"), float("-inf"), float("nan"), -5.0, 1e300, 366 * 86400 + 1])
def test_focus_on_over_dbus_refuses_an_absurd_duration(focus_bridge, client, seconds):
    b = focus_bridge(WORK)
    with pytest.raises(GLib.Error) as caught:
        control(client, "FocusOn", GLib.Variant("(sds)", ("work", seconds, "")))
    assert "org.focusbridge.Error.InvalidRequest" in caught.value.message, caught.value.message
    assert "366 days" in caught.value.message
    assert b.alive(), "the bridge died:\n%s" % b.stderr_tail()
    assert client.status()["focus"] is None
    assert control(client, "FocusOn", GLib.Variant("(sds)", ("work", 3600.0, "")))["focus"]["name"] == "work"


def test_focus_on_over_gdbus_with_a_huge_double(focus_bridge, bus):
    b = focus_bridge(WORK)
    r = run(["gdbus", "call", "--address", bus.address, "--dest", CONTROL_NAME, "--object-path", CONTROL_PATH,
             "--method", CONTROL_IFACE + ".FocusOn", "work", "1e308", ""], session_env(bus.address))
    assert r.returncode != 0 and "InvalidRequest" in r.stderr, (r.stdout, r.stderr)
    assert b.alive(), "the bridge died:\n%s" % b.stderr_tail()


def state_db(b):
    return b.state_dir / "state.sqlite3"


def set_settings(path, **values):
    db = sqlite3.connect(str(path))
    try:
        with db:
            for key, value in values.items():
                db.execute("INSERT INTO setting (key, value) VALUES (?, ?) "
                           "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key.replace("_", "-"), value))
    finally:
        db.close()   # a connection left open keeps a lock the bridge's exclusive mode would wait for


POISON = [
    '{"state":{"on":{"_0":"work"}},"since":1e300,"until":1e308}',
    '{"state":{"on":{"_0":"work"}},"since":0,"until":-1e20}',
    '{"state":{"on":{"_0":"work"}},"since":800000000,"until":9e15}',
    '{"state":',
    '42',
]


@pytest.mark.parametrize("poison", POISON, ids=["huge", "negative", "year-285-million", "truncated", "number"])
def test_poisoned_stored_values_are_discarded_at_start(bridge_factory, fake_daemon, config, make_client, poison):
    config(WORK)
    b = bridge_factory()
    c = make_client()
    wait_connected(c)
    nid = c.notify("before", app="Mail")
    assert b.stop() == 0
    set_settings(state_db(b), manual_focus=poison, summary_checked="nan")
    b2 = bridge_factory()
    c2 = make_client("after")
    wait_connected(c2)
    assert c2.status()["focus"] is None
    assert c2.notify("after", app="Mail") > nid, "an ID was given out again"
    log = b2.stderr()
    assert "manual Focus is not valid" in log and "summary check is not valid" in log, log
    assert "Fatal error" not in log
    # the next start is clean: the bad values were replaced
    assert b2.stop() == 0
    b3 = bridge_factory()
    assert "manual Focus is not valid" not in b3.stderr()


def test_a_manual_focus_near_the_bound_survives_a_restart(focus_bridge, bridge_factory, focusctl):
    b = focus_bridge(WORK)
    fc_ok(focusctl, "focus", "on", "work", "--for", "366d")
    assert b.stop() == 0
    bridge_factory()
    assert status(focusctl)["focus"]["name"] == "work"
