"""Applications: test clients of the bridge, each with a connection of its own.

* ``client``, ``client2``  two applications on ``bus``;
* ``make_client``          more (``make_client(label, address=None)``), disposed at teardown.

A client records every signal it gets from org.freedesktop.Notifications (unicast or broadcast
alike); ``wait_signal`` awaits one with a bound, ``settle`` makes "must NOT arrive" sound.
"""

import json
import time
from dataclasses import dataclass, field

import pytest
from gi.repository import Gio, GLib

from support.buses import bus_call, connect
from support.names import CONTROL_IFACE, CONTROL_NAME, CONTROL_PATH, NOTIF_IFACE, NOTIF_NAME, NOTIF_PATH
from support.waiting import drain, pump_until


@dataclass
class Signal:
    sender: str
    path: str
    interface: str
    member: str
    args: tuple
    when: float = field(default_factory=time.monotonic)


class Client:
    """One application: its own connection to the bus, recording the signals it gets
    from org.freedesktop.Notifications (unicast or broadcast alike)."""

    def __init__(self, address, label="client"):
        self.label = label
        self.address = address
        self.conn = connect(address)
        self.unique_name = self.conn.get_unique_name()
        self.signals = []
        self._subs = []
        self.subscribe(NOTIF_IFACE, NOTIF_PATH)

    def subscribe(self, interface, path=None, member=None, sender=None):
        sid = self.conn.signal_subscribe(sender, interface, member, path, None,
                                         Gio.DBusSignalFlags.NONE, self._on_signal)
        self._subs.append(sid)
        # a round trip to the bus: the AddMatch above is in effect once this returns
        bus_call(self.conn, "GetId", None, "(s)")
        return sid

    def _on_signal(self, _conn, sender, path, iface, member, params):
        self.signals.append(Signal(sender, path, iface, member, params.unpack()))

    # -- calls ---------------------------------------------------------------
    def call(self, method, params=None, reply_type=None, *, dest=NOTIF_NAME, path=NOTIF_PATH,
             iface=NOTIF_IFACE, timeout_ms=5000):
        reply = self.conn.call_sync(dest, path, iface, method, params,
                                    GLib.VariantType(reply_type) if reply_type else None,
                                    Gio.DBusCallFlags.NONE, timeout_ms, None)
        return reply.unpack() if reply is not None else None

    @staticmethod
    def notify_params(summary="Summary", body="Body", app="test-app", replaces_id=0, icon="",
                      actions=(), hints=None, timeout=-1):
        return GLib.Variant("(susssasa{sv}i)", (app, replaces_id, icon, summary, body,
                                                 list(actions), dict(hints or {}), timeout))

    def notify(self, summary="Summary", body="Body", app="test-app", replaces_id=0, icon="",
               actions=(), hints=None, timeout=-1, timeout_ms=5000):
        params = self.notify_params(summary, body, app, replaces_id, icon, actions, hints, timeout)
        return self.call("Notify", params, "(u)", timeout_ms=timeout_ms)[0]

    def timed_notify(self, *a, **kw):
        t0 = time.monotonic()
        nid = self.notify(*a, **kw)
        return nid, time.monotonic() - t0

    def notify_raw(self, params, timeout_ms=5000):
        """Notify with an already built tuple variant (for malformed input)."""
        reply = self.conn.call_sync(NOTIF_NAME, NOTIF_PATH, NOTIF_IFACE, "Notify", params, None,
                                    Gio.DBusCallFlags.NONE, timeout_ms, None)
        return reply.unpack()

    def close(self, nid):
        self.call("CloseNotification", GLib.Variant("(u)", (nid,)))

    def capabilities(self):
        return list(self.call("GetCapabilities", None, "(as)")[0])

    def server_information(self):
        return tuple(self.call("GetServerInformation", None, "(ssss)"))

    def round_trip(self):
        """A call through the bridge's main loop: everything the bridge sent us before
        answering has been received once this returns."""
        self.server_information()
        drain()

    # -- control interface (org.focusbridge.Control1) -------------------------
    def status(self):
        return json.loads(self.call("Status", None, "(s)", dest=CONTROL_NAME, path=CONTROL_PATH,
                                    iface=CONTROL_IFACE)[0])

    def history(self, limit=0, app=""):
        return json.loads(self.call("History", GLib.Variant("(us)", (limit, app)), "(s)",
                                    dest=CONTROL_NAME, path=CONTROL_PATH, iface=CONTROL_IFACE,
                                    timeout_ms=15000)[0])

    # -- signals -------------------------------------------------------------
    def got(self, member, nid=None, interface=NOTIF_IFACE):
        return [s for s in self.signals
                if s.member == member and s.interface == interface and (nid is None or s.args[0] == nid)]

    def wait_signal(self, member, nid=None, timeout=5.0, interface=NOTIF_IFACE, count=1):
        found = pump_until(lambda: len(self.got(member, nid, interface)) >= count and self.got(member, nid, interface),
                           timeout)
        if not found:
            raise AssertionError("%s: no %s signal%s within %.1f s; got: %r" % (
                self.label, member, "" if nid is None else " for id %d" % nid, timeout,
                [(s.member, s.args) for s in self.signals]))
        return found[count - 1]

    def dispose(self):
        for sid in self._subs:
            self.conn.signal_unsubscribe(sid)
        self._subs = []
        try:
            self.conn.close_sync(None)
        except GLib.Error:
            pass


def settle(*clients):
    """Make "must NOT arrive" assertions sound: a round trip through the bridge from each
    client, so anything sent to it earlier has been received and dispatched."""
    for c in clients:
        c.round_trip()
    drain()


@pytest.fixture
def make_client(bus):
    made = []

    def make(label="client", address=None):
        c = Client(address or bus.address, label)
        made.append(c)
        return c

    yield make
    for c in made:
        c.dispose()


@pytest.fixture
def client(make_client):
    return make_client("client")


@pytest.fixture
def client2(make_client):
    return make_client("client2")
