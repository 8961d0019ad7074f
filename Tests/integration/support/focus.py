"""Focus and scheduled summaries: a bridge with a config, and "not forwarded" made sound.

* ``config``        ``config(text, base=True)`` writes ``$XDG_CONFIG_HOME/focus-bridge/config.toml``
                    for the bridges of the test (BASE_CONFIG first, unless base=False);
* ``focus_bridge``  ``start(config_text=None, **bridge_factory_kw)`` writes a config and starts the
                    bridge in address mode in front of the fake daemon, connected;
* ``marker``        sends a notification that breaks through everything (app MARKER_APP, critical).

"Not forwarded" is asserted soundly, without sleeping: forwarding is in order, so once a later
notification that must break through (``marker``) has reached the fake daemon, an earlier one
would have too.
"""

import textwrap
from datetime import datetime, timedelta

import pytest
from gi.repository import GLib

from support.bridge import wait_connected
from support.config_files import write_config

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
        return write_config(tmp_path, (BASE_CONFIG + "\n" if base else "") + textwrap.dedent(text))

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
