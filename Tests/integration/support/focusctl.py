"""focusctl, the command-line client, as the tests run it.

* ``focusctl``  ``fc(*args, timeout=15, env_override=None)`` runs focusctl on the test's bus and
                returns the CompletedProcess (text);
* ``watch``     ``watch(*args)`` starts ``focusctl watch ARGS`` and returns a LineReader of its
                output (``next_json`` reads one JSON line with a bound); killed at teardown.
"""

import json
import re
import subprocess

import pytest

from support.processes import FOCUSCTL_BIN, LineReader, require_binary, run, session_env


@pytest.fixture
def focusctl(bus):
    require_binary(FOCUSCTL_BIN, "focusctl")
    env = session_env(bus.address)

    def fc(*args, timeout=15, env_override=None):
        return run([FOCUSCTL_BIN, *args], env_override or env, timeout=timeout)

    return fc


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


def fc_ok(focusctl, *args):
    """focusctl ARGS, which must exit 0."""
    r = focusctl(*args)
    assert r.returncode == 0, "focusctl %s: exit %d\nstdout: %s\nstderr: %s" % (
        " ".join(args), r.returncode, r.stdout, r.stderr)
    return r


def fc_json(focusctl, *args):
    """What focusctl ARGS (which must exit 0) printed, as JSON."""
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


def first_output_line(result):
    """The first non-empty line focusctl/focus-bridge printed, stderr first."""
    for text in (result.stderr, result.stdout):
        for line in (text or "").splitlines():
            if line.strip():
                return line
    return ""


def location_line(text, path, anywhere=False):
    """The first line of `text` of the form PATH:LINE:COLUMN: message -> (line, column,
    message), or None. With anywhere=True the location may follow other words on the
    line (a log line: "... not reloaded: PATH:LINE:COLUMN: message")."""
    pat = re.compile(r"%s%s:(\d+):(\d+): (\S.*)$" % ("" if anywhere else "^", re.escape(str(path))))
    for line in (text or "").splitlines():
        m = pat.search(line.strip())
        if m:
            return int(m.group(1)), int(m.group(2)), m.group(3)
    return None
