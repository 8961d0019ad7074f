"""What a failing test shows, and sanitizer reports.

* On a failure, the logs a fixture attached to the test (``node._fb_logs``: the bridge's and the
  fake daemon's stderr) are appended to the report, their last 60 lines each.
* Under `make test-sanitize` the binaries are built with AddressSanitizer or ThreadSanitizer
  (ASAN_OPTIONS / TSAN_OPTIONS are set). Their reports are sent to files in a folder of their own
  (log_path), so that a report from any of our processes fails the test that was running: also
  one from a bridge the test then kills with SIGKILL, or from a `focusctl watch` whose stderr is
  not kept.
"""

import os
import shutil
from pathlib import Path

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)
    if rep.failed and rep.when in ("call", "setup", "teardown"):
        for label, path in getattr(item, "_fb_logs", []):
            try:
                text = Path(path).read_text(errors="replace")
            except OSError:
                continue
            lines = text.splitlines()
            if len(lines) > 60:
                lines = ["... (%d lines cut)" % (len(lines) - 60)] + lines[-60:]
            rep.sections.append((label, "\n".join(lines)))


def attach_log(node, label, path):
    """Shows the file at `path` under `label` in the report when the test fails."""
    node._fb_logs = getattr(node, "_fb_logs", []) + [(label, str(path))]


# --------------------------------------------------------------------------- sanitizers
def _sanitizer_log_dir():
    names = [n for n in ("ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS") if n in os.environ]
    if not names:
        return None
    import tempfile
    folder = Path(tempfile.mkdtemp(prefix="focus-bridge-sanitizer-"))
    for name in names:
        options = [o for o in os.environ[name].split(":") if o and not o.startswith("log_path=")]
        os.environ[name] = ":".join(options + ["log_path=%s" % (folder / "report")])
    return folder


SANITIZER_LOG_DIR = _sanitizer_log_dir()
_reported_sanitizer_files = set()


def sanitizer_reports(seen=()):
    """The sanitizer report files not in `seen` (names), as {name: text}."""
    if SANITIZER_LOG_DIR is None:
        return {}
    found = {}
    for path in sorted(SANITIZER_LOG_DIR.iterdir()):
        if path.name not in seen:
            found[path.name] = path.read_text(errors="replace")
    return found


@pytest.fixture(autouse=True)
def _no_sanitizer_reports():
    """Fails the test (at teardown, once every process it started has exited) when one of
    them wrote a sanitizer report. Autouse fixtures are set up first, so torn down last."""
    if SANITIZER_LOG_DIR is None:
        yield
        return
    before = set(sanitizer_reports())
    yield
    new = sanitizer_reports(before)
    _reported_sanitizer_files.update(new)
    if new:
        texts = []
        for name, text in new.items():
            lines = text.splitlines()
            if len(lines) > 120:
                lines = lines[:120] + ["... (%d lines cut)" % (len(lines) - 120)]
            texts.append("%s/%s:\n%s" % (SANITIZER_LOG_DIR, name, "\n".join(lines)))
        pytest.fail("sanitizer report(s) from a process of this test:\n" + "\n\n".join(texts),
                    pytrace=False)


def pytest_sessionfinish(session, exitstatus):
    """A report no test was failed for (written outside every test) fails the run; the
    folder is removed when it holds no report."""
    if SANITIZER_LOG_DIR is None:
        return
    stray = sanitizer_reports(_reported_sanitizer_files)
    if stray:
        print("\nsanitizer report(s) written outside any test, in %s: %s" % (
            SANITIZER_LOG_DIR, ", ".join(stray)))
        session.exitstatus = 1
    elif not _reported_sanitizer_files:
        shutil.rmtree(SANITIZER_LOG_DIR, ignore_errors=True)
