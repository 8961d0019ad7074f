"""Bounded waiting: every test has a time bound, and every wait inside it has one.

Signals are awaited by iterating the GLib main context with a deadline (``pump_until``);
``wait_until`` polls, keeping the main context running, only for what nothing signals (files,
history rows, process state).
"""

import faulthandler
import os
import signal
import time

import pytest

import gi

gi.require_version("Gio", "2.0")
gi.require_version("GLib", "2.0")
from gi.repository import GLib  # noqa: E402

DEFAULT_TEST_TIMEOUT = 30  # seconds; a module may set TEST_TIMEOUT = N

# How many times slower than a plain debug build the binaries under test are: `make
# test-sanitize` sets it for ThreadSanitizer, whose bridge also takes CPU from the other
# processes of a test on a small machine. Bounds on how long something may take are multiplied
# by it where a test says so (never a sleep).
SLOWDOWN = float(os.environ.get("FOCUS_TEST_SLOWDOWN") or 1)


class TestTimeout(Exception):
    __test__ = False  # not a test class, wherever it is imported


@pytest.fixture(autouse=True)
def _bounded_test(request):
    """Every test (setup + call + teardown) is bounded: TEST_TIMEOUT of its module,
    default 30 s. SIGALRM raises in the test; a hard faulthandler exit backs it up."""
    limit = int(getattr(request.module, "TEST_TIMEOUT", DEFAULT_TEST_TIMEOUT))

    def on_alarm(signum, frame):
        raise TestTimeout("test exceeded its %d s bound" % limit)

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(limit)
    faulthandler.dump_traceback_later(limit + 60, exit=True)
    try:
        yield
    finally:
        signal.alarm(0)
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGALRM, old)


def main_context():
    return GLib.MainContext.default()


def drain():
    """Dispatch everything already queued on the main context (no waiting)."""
    ctx = main_context()
    n = 0
    while ctx.pending() and n < 100000:
        ctx.iteration(False)
        n += 1


def pump_until(predicate, timeout):
    """Iterate the GLib main context until predicate() is true or the deadline passes.
    Wakes at least every 50 ms so predicates on non-GLib state are seen too."""
    ctx = main_context()
    deadline = time.monotonic() + timeout
    while True:
        drain()
        result = predicate()
        if result:
            return result
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return result
        src = GLib.timeout_source_new(max(1, int(min(remaining, 0.05) * 1000)))
        src.set_callback(lambda *a: False)
        src.attach(ctx)
        try:
            ctx.iteration(True)
        finally:
            src.destroy()


def pump_for(seconds):
    pump_until(lambda: False, seconds)


def wait_until(predicate, timeout=5.0, interval=0.05, message=None, pytrace=True):
    """Bounded poll, for things nothing signals (files, history rows, process state).
    Keeps the main context running meanwhile. Returns the predicate's value; fails
    the test with `message` when it never became true."""
    deadline = time.monotonic() + timeout
    last_exc = None
    while True:
        try:
            value = predicate()
            if value:
                return value
        except Exception as exc:  # noqa: BLE001 - retried until the deadline
            last_exc = exc
        if time.monotonic() >= deadline:
            detail = " (last error: %r)" % (last_exc,) if last_exc else ""
            pytest.fail((message or "condition not met within %.1f s" % timeout) + detail, pytrace=pytrace)
        pump_for(interval)


def bounded_poll(predicate, timeout, message, interval=0.1):
    """wait_until for the desktop tests (a shell's JavaScript state, a process's output file):
    asks every `interval`, and a failure shows `message` without the traceback."""
    return wait_until(predicate, timeout, interval, message, pytrace=False)
