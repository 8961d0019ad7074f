"""Fixtures and helpers for the Focus and scheduled-summary tests (issue 4).

Import the fixtures by name into a test module (``from focus_support import focus_bridge``);
pytest then uses them like those of conftest.py.

* ``config``        writes ``$XDG_CONFIG_HOME/focus-bridge/config.toml`` for the bridges of the test;
* ``focus_bridge``  writes a config (BASE_CONFIG + the test's own) and starts the bridge in
                    address mode in front of the fake daemon, connected;
* ``time_shift``    an LD_PRELOAD library that moves the bridge's wall clock, to play "the bridge
                    last ran five minutes ago" without waiting (skipped without a C compiler).

"Not forwarded" is asserted soundly, without sleeping: forwarding is in order, so once a later
notification that must break through (``marker``) has reached the fake daemon, an earlier one
would have too.
"""

import json
import subprocess
import textwrap
from datetime import datetime, timedelta

import pytest
from gi.repository import GLib

from conftest import FOCUSCTL_BIN, LineReader, session_env, wait_connected
from shared_support import build_preload_shim

# Every config of these tests entitles one app to the critical level: its urgency-2
# notifications are `critical`, which breaks through any Focus (focus-bridge.toml(5): INTERRUPTION LEVELS, DELIVERY).
MARKER_APP = "Marker"
BASE_CONFIG = """\
[apps."%s"]
critical = true
""" % MARKER_APP


# --------------------------------------------------------------------------- time
def hhmm(dt):
    return dt.strftime("%H:%M")


def local_now():
    return datetime.now()


def around_now(before_minutes=60, after_minutes=60):
    """A schedule range (start, end) in local wall-clock time that covers now (it may
    cross midnight)."""
    now = local_now()
    return hhmm(now - timedelta(minutes=before_minutes)), hhmm(now + timedelta(minutes=after_minutes))


def away_from_now():
    """A range (start, end) that does not cover now: from in an hour to an hour ago
    tomorrow (it crosses midnight)."""
    now = local_now()
    return hhmm(now + timedelta(hours=1)), hhmm(now - timedelta(hours=1))


def far_time():
    """A summary time about 12 hours away, so it does not fire during a test."""
    return hhmm(local_now() + timedelta(hours=12))


def parse_ts(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


# --------------------------------------------------------------------------- hints
def byte(v):
    return GLib.Variant("y", v)


def s(v):
    return GLib.Variant("s", v)


def d(v):
    return GLib.Variant("d", v)


def critical_hints():
    return {"urgency": byte(2)}


# --------------------------------------------------------------------------- focusctl
def fc_ok(focusctl, *args):
    r = focusctl(*args)
    assert r.returncode == 0, "focusctl %s: exit %d\nstdout: %s\nstderr: %s" % (
        " ".join(args), r.returncode, r.stdout, r.stderr)
    return r


def fc_json(focusctl, *args):
    return json.loads(fc_ok(focusctl, *args).stdout)


def status(focusctl):
    return fc_json(focusctl, "status", "--json")


def history_of(focusctl, nid):
    rows = [r for r in fc_json(focusctl, "history", "--json", "--limit", "500") if r["id"] == nid]
    assert rows, "notification %d is not in focusctl history" % nid
    return rows[0]


def decisions(focusctl, ids):
    rows = {r["id"]: r["decision"] for r in fc_json(focusctl, "history", "--json", "--limit", "500")}
    return {nid: rows.get(nid) for nid in ids}


# --------------------------------------------------------------------------- forwarding
class Marker:
    """Sends notifications that break through everything, to bound 'not forwarded'."""

    def __init__(self, client, fake):
        self.client, self.fake, self.n = client, fake, 0

    def __call__(self, timeout=5.0):
        self.n += 1
        summary = "marker %d" % self.n
        self.client.notify(summary, "breaks through", app=MARKER_APP, hints=critical_hints())
        return self.fake.wait_notify(summary, timeout=timeout)


def forwarded_summaries(fake):
    return [n["summary"] for n in fake.notifies()]


def assert_not_forwarded(fake, marker, *summaries):
    """Nothing with these summaries reached the daemon (checked after a marker that did)."""
    marker()
    got = forwarded_summaries(fake)
    leaked = [x for x in summaries if x in got]
    assert not leaked, "held notification(s) reached the daemon: %r (forwarded: %r)" % (leaked, got)


def assert_digest_shape(rec, title):
    assert rec["summary"] == title
    assert rec["app_name"] == "FocusBridge", rec["app_name"]
    # keys and labels as focus-bridge.toml(5), DELIVERY, names them
    pairs = list(zip(rec["actions"][::2], rec["actions"][1::2]))
    assert ("show-all", "Show All") in pairs and ("dismiss", "Dismiss") in pairs, rec["actions"]
    return rec["body"].split("\n")


# --------------------------------------------------------------------------- fixtures
@pytest.fixture
def config(tmp_path):
    """config(text) writes the config file every bridge of this test reads."""

    def write(text, base=True):
        path = tmp_path / "config" / "focus-bridge" / "config.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text((BASE_CONFIG + "\n" if base else "") + textwrap.dedent(text))
        return path

    return write


@pytest.fixture
def focus_bridge(bridge_factory, fake_daemon, config, make_client):
    """start(config_text, **bridge_factory_kw) -> Bridge, connected to the fake daemon."""

    def start(text=None, **kw):
        if text is not None:
            config(text)
        b = bridge_factory(**kw)
        watcher = make_client("focus watcher")
        wait_connected(watcher, 10)
        return b

    return start


@pytest.fixture
def marker(client, fake_daemon):
    return Marker(client, fake_daemon)


@pytest.fixture
def watch(procs, bus, focusctl):
    """watch(*args) -> LineReader of a running `focusctl watch ARGS` (killed at teardown)."""

    def start(*args):
        p = procs.spawn([FOCUSCTL_BIN, "watch", *args], env=session_env(bus.address),
                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return LineReader(p.stdout)

    return start


def next_json(reader, timeout=5.0, what="a line"):
    line = reader.get(timeout)
    assert line is not None, "focusctl watch printed no %s within %.0f s (so far: %r)" % (
        what, timeout, reader.lines)
    return json.loads(line)


SHIM_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
static long shift_seconds(void) {
    const char *s = getenv("FOCUS_TEST_TIME_SHIFT");
    return s ? atol(s) : 0;
}
int clock_gettime(clockid_t id, struct timespec *ts) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int r = real(id, ts);
    if (r == 0 && ts && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) ts->tv_sec += shift_seconds();
    return r;
}
int gettimeofday(struct timeval *tv, void *tz) {
    static int (*real)(struct timeval *, void *);
    if (!real) real = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
    int r = real(tv, tz);
    if (r == 0 && tv) tv->tv_sec += shift_seconds();
    return r;
}
time_t time(time_t *t) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (t) *t = ts.tv_sec;
    return ts.tv_sec;
}
"""


@pytest.fixture(scope="session")
def time_shift_lib(tmp_path_factory):
    return build_preload_shim(tmp_path_factory, "timeshift", SHIM_C, "wall-clock shim")


@pytest.fixture
def time_shift(time_shift_lib):
    """time_shift(seconds) -> extra_env for bridge_factory: the bridge's wall clock runs
    `seconds` off (negative: in the past)."""

    def env(seconds):
        return {"LD_PRELOAD": str(time_shift_lib), "FOCUS_TEST_TIME_SHIFT": str(int(seconds))}

    return env

