"""A fake StatusNotifierWatcher (what a tray runs) and a reader of the bridge's tray switch
(StatusNotifierItem and its dbusmenu) over D-Bus, for test_tray.py."""

from gi.repository import Gio, GLib

from support.buses import bus_call, connect
from support.waiting import pump_until

WATCHER_NAME = "org.kde.StatusNotifierWatcher"
WATCHER_PATH = "/StatusNotifierWatcher"
ITEM_PATH = "/StatusNotifierItem"
ITEM_IFACE = "org.kde.StatusNotifierItem"
MENU_PATH = "/MenuBar"
MENU_IFACE = "com.canonical.dbusmenu"
PROPS = "org.freedesktop.DBus.Properties"

WATCHER_XML = """
<node>
  <interface name="org.kde.StatusNotifierWatcher">
    <method name="RegisterStatusNotifierItem"><arg name="service" type="s" direction="in"/></method>
    <method name="RegisterStatusNotifierHost"><arg name="service" type="s" direction="in"/></method>
    <property name="RegisteredStatusNotifierItems" type="as" access="read"/>
    <property name="IsStatusNotifierHostRegistered" type="b" access="read"/>
    <property name="ProtocolVersion" type="i" access="read"/>
    <signal name="StatusNotifierItemRegistered"><arg type="s"/></signal>
    <signal name="StatusNotifierItemUnregistered"><arg type="s"/></signal>
    <signal name="StatusNotifierHostRegistered"/>
  </interface>
</node>
"""


class FakeWatcher:
    """Owns org.kde.StatusNotifierWatcher on its own connection and records each
    RegisterStatusNotifierItem as (sender, service)."""

    def __init__(self, address):
        self.conn = connect(address)
        self.registrations = []
        info = Gio.DBusNodeInfo.new_for_xml(WATCHER_XML).interfaces[0]
        self.reg_id = self.conn.register_object(WATCHER_PATH, info, self._call, self._get, None)
        (code,) = bus_call(self.conn, "RequestName", GLib.Variant("(su)", (WATCHER_NAME, 4)), "(u)")
        assert code == 1, "the watcher name is taken (%d)" % code
        self.unique_name = self.conn.get_unique_name()

    def _call(self, _conn, sender, _path, _iface, method, params, invocation):
        if method == "RegisterStatusNotifierItem":
            self.registrations.append((sender, params.unpack()[0]))
        invocation.return_value(None)

    def _get(self, _conn, _sender, _path, _iface, name):
        return {"RegisteredStatusNotifierItems": GLib.Variant("as", [r[1] for r in self.registrations]),
                "IsStatusNotifierHostRegistered": GLib.Variant("b", True),
                "ProtocolVersion": GLib.Variant("i", 0)}[name]

    def wait_registration(self, count=1, timeout=10.0):
        if not pump_until(lambda: len(self.registrations) >= count, timeout):
            raise AssertionError("no RegisterStatusNotifierItem within %.0f s (got %r)" % (timeout, self.registrations))
        return self.registrations[count - 1]

    def close(self):
        self.conn.unregister_object(self.reg_id)
        try:
            self.conn.close_sync(None)
        except GLib.Error:
            pass


class TrayReader:
    """Reads the tray switch of the bridge as a tray host does, and records its signals."""

    def __init__(self, address, dest):
        self.conn = connect(address)
        self.dest = dest
        self.signals = []
        self.sid = self.conn.signal_subscribe(None, None, None, None, None, Gio.DBusSignalFlags.NONE, self._on)
        self.conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId",
                            None, None, Gio.DBusCallFlags.NONE, 5000, None)

    def _on(self, _c, _sender, path, iface, member, params):
        if iface in (ITEM_IFACE, MENU_IFACE):
            self.signals.append((path, member, params.unpack()))

    def call(self, path, iface, method, params=None, reply_type=None):
        reply = self.conn.call_sync(self.dest, path, iface, method, params,
                                    GLib.VariantType(reply_type) if reply_type else None,
                                    Gio.DBusCallFlags.NONE, 5000, None)
        return reply.unpack() if reply is not None else None

    def item(self):
        return self.call(ITEM_PATH, PROPS, "GetAll", GLib.Variant("(s)", (ITEM_IFACE,)), "(a{sv})")[0]

    def item_property(self, name):
        return self.call(ITEM_PATH, PROPS, "Get", GLib.Variant("(ss)", (ITEM_IFACE, name)), "(v)")[0]

    def menu_properties(self):
        return self.call(MENU_PATH, PROPS, "GetAll", GLib.Variant("(s)", (MENU_IFACE,)), "(a{sv})")[0]

    def layout(self):
        """(revision, [(id, properties), ...]) of the root's children."""
        revision, (root, props, children) = self.call(
            MENU_PATH, MENU_IFACE, "GetLayout", GLib.Variant("(iias)", (0, -1, [])), "(u(ia{sv}av))")
        assert root == 0 and props.get("children-display") == "submenu", props
        return revision, [(cid, cprops) for cid, cprops, _ in children]

    def item_id(self, label):
        ids = [i for i, p in self.layout()[1] if p.get("label") == label]
        assert ids, "no menu item %r in %r" % (label, self.layout())
        return ids[0]

    def click(self, label):
        self.call(MENU_PATH, MENU_IFACE, "Event",
                  GLib.Variant("(isvu)", (self.item_id(label), "clicked", GLib.Variant("i", 0), 0)))

    def got(self, member):
        return [s for s in self.signals if s[1] == member]

    def wait_signal(self, member, count=1, timeout=5.0):
        if not pump_until(lambda: len(self.got(member)) >= count, timeout):
            raise AssertionError("no %s signal (got %r)" % (member, [s[1] for s in self.signals]))
        return self.got(member)[count - 1]

    def close(self):
        self.conn.signal_unsubscribe(self.sid)
        try:
            self.conn.close_sync(None)
        except GLib.Error:
            pass
