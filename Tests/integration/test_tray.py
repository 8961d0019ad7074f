"""The tray switch (focus-bridge(1), BEHAVIOUR, The tray switch) over D-Bus: a fake
StatusNotifierWatcher records the registration; the item's properties and the dbusmenu layout
are read as a tray host reads them; a click on a menu item does what focusctl does."""

from pathlib import Path

import pytest
from gi.repository import Gio, GLib

from support.focusctl import fc_ok, status
from support.names import CONTROL_IFACE, CONTROL_NAME, CONTROL_PATH
from support.tray import MENU_IFACE, MENU_PATH, ITEM_IFACE, ITEM_PATH, PROPS, FakeWatcher, TrayReader
from support.waiting import wait_until

TEST_TIMEOUT = 40

WORK = """
[focus.work]
apps = ["Mail"]
"""


@pytest.fixture
def watcher(bus):
    w = FakeWatcher(bus.address)
    yield w
    w.close()


@pytest.fixture
def tray(bus):
    made = []

    def make(dest):
        t = TrayReader(bus.address, dest)
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()


ROOT = Path(__file__).resolve().parents[2]


def shapes(xml):
    """{interface: (methods with signatures, signals, properties with types)} of introspection XML."""
    node = Gio.DBusNodeInfo.new_for_xml(xml)
    return {i.name: ({m.name: ("".join(a.signature for a in m.in_args), "".join(a.signature for a in m.out_args))
                      for m in i.methods},
                     {sg.name: "".join(a.signature for a in sg.args) for sg in i.signals},
                     {p.name: p.signature for p in i.properties})
            for i in node.interfaces}


def registered(watcher, b, count=1):
    """Waits for the bridge's registration: by its object path, from its own connection;
    returns a reader of the item."""
    sender, service = watcher.wait_registration(count)
    assert (sender, service) == (b.control_name, ITEM_PATH), (sender, service)
    return sender


def test_registers_and_serves_the_item_and_its_menu(focus_bridge, fake_daemon, watcher, tray, focusctl):
    b = focus_bridge(WORK)
    t = tray(registered(watcher, b))

    item = t.item()
    assert item["IconName"] == "preferences-system-notifications-symbolic", item
    assert item["ItemIsMenu"] is True and item["Menu"] == MENU_PATH and item["Status"] == "Active", item
    assert item["Id"] == "focus-bridge" and item["Category"] == "SystemServices", item
    (width, height, pixels), = item["IconPixmap"]
    assert (width, height, len(pixels)) == (24, 24, 24 * 24 * 4)
    icon, _, title, text = item["ToolTip"]
    assert "No Focus" in title and text == "No Focus is on", item["ToolTip"]
    assert t.item_property("IconName") == item["IconName"]

    # what the bridge answers is what dbus/ documents
    for path, xml_file in [(ITEM_PATH, "org.kde.StatusNotifierItem.xml"), (MENU_PATH, "com.canonical.dbusmenu.xml")]:
        (xml,) = t.call(path, "org.freedesktop.DBus.Introspectable", "Introspect", None, "(s)")
        documented = shapes((ROOT / "dbus" / xml_file).read_text(encoding="utf-8"))
        for interface, shape in documented.items():
            assert shapes(xml).get(interface) == shape, (path, interface)

    menu = t.menu_properties()
    assert (menu["Version"], menu["TextDirection"], menu["Status"]) == (3, "ltr", "normal"), menu
    revision, items = t.layout()
    labels = [p.get("label", p.get("type")) for _, p in items]
    assert labels == ["work", "dnd", "Off", "separator", "Silent", "separator", "Deliver Summary Now",
                      "Reload Configuration"], labels
    props = dict(items)
    assert props[t.item_id("work")]["toggle-type"] == "radio" and props[t.item_id("work")]["toggle-state"] == 0
    assert props[t.item_id("Off")]["toggle-state"] == 1
    assert props[t.item_id("Silent")]["toggle-type"] == "checkmark"
    (answer,) = t.call(MENU_PATH, MENU_IFACE, "AboutToShow", GLib.Variant("(i)", (0,)), "(b)")
    assert answer is False
    (group,) = t.call(MENU_PATH, MENU_IFACE, "GetGroupProperties",
                      GLib.Variant("(aias)", ([t.item_id("work")], ["label"])), "(a(ia{sv}))")
    assert group == [(t.item_id("work"), {"label": "work"})], group

    # a click on a Focus turns it on, as `focusctl focus on work` does
    t.click("work")
    wait_until(lambda: (status(focusctl)["focus"] or {}).get("name") == "work",
               message="the click on work did not turn it on")
    t.wait_signal("NewIcon")
    t.wait_signal("ItemsPropertiesUpdated")
    assert t.item()["IconName"] == "notification-disabled-symbolic"
    assert "work is on" in t.item()["ToolTip"][3]
    props = dict(t.layout()[1])
    assert props[t.item_id("work")]["toggle-state"] == 1 and props[t.item_id("Off")]["toggle-state"] == 0

    # silent, then off
    t.click("Silent")
    wait_until(lambda: status(focusctl)["silent"] is True, message="Silent did not switch silent mode on")
    t.click("Off")
    wait_until(lambda: status(focusctl)["focus"] is None, message="Off did not turn the Focus off")
    t.wait_signal("NewIcon", count=2)
    assert t.item()["IconName"] == "audio-volume-muted-symbolic"
    assert "Silent" in t.item()["ToolTip"][3]

    # a change made elsewhere shows too
    fc_ok(focusctl, "silent", "off")
    wait_until(lambda: t.item()["IconName"] == "preferences-system-notifications-symbolic",
               message="the icon did not follow focusctl silent off")


def test_reload_and_summary_from_the_menu(focus_bridge, fake_daemon, watcher, tray, focusctl, config):
    b = focus_bridge(WORK)
    t = tray(registered(watcher, b))
    revision, _ = t.layout()
    config(WORK + '\n[focus.gaming]\napps = ["Steam"]\n')
    t.click("Reload Configuration")
    _, _, (new_revision, parent) = t.wait_signal("LayoutUpdated")
    assert new_revision > revision and parent == 0
    labels = [p.get("label") for _, p in t.layout()[1]]
    assert labels[:3] == ["work", "gaming", "dnd"], labels
    # the file watch reloads too: the click is the second reload
    wait_until(lambda: b.stderr().count("reloaded ") >= 2, message="the menu's Reload did not reload")
    t.click("Deliver Summary Now")   # nothing held: nothing sent, nothing breaks
    assert b.alive()


def test_registers_again_when_a_watcher_appears(focus_bridge, fake_daemon, bus):
    b = focus_bridge(WORK)
    first = FakeWatcher(bus.address)
    try:
        registered(first, b)
    finally:
        first.close()
    second = FakeWatcher(bus.address)
    try:
        registered(second, b)
    finally:
        second.close()


def test_tray_false_shows_nothing_until_turned_on(focus_bridge, fake_daemon, watcher, tray, focusctl, config):
    b = focus_bridge(WORK + "\n[general]\ntray = false\n")
    t = tray(b.control_name)
    fc_ok(focusctl, "status")
    with pytest.raises(GLib.Error):   # nothing exported while off
        t.item()
    config(WORK + "\n[general]\ntray = true\n")
    fc_ok(focusctl, "reload")
    registered(watcher, b)
    assert t.item()["Status"] == "Active"
    # turned off while running: the item says Passive, which trays hide
    config(WORK + "\n[general]\ntray = false\n")
    fc_ok(focusctl, "reload")
    assert t.wait_signal("NewStatus")[2] == ("Passive",)
    assert t.item()["Status"] == "Passive"
    config(WORK + "\n[general]\ntray = true\n")
    fc_ok(focusctl, "reload")
    assert t.wait_signal("NewStatus", count=2)[2] == ("Active",)
    assert len(watcher.registrations) == 1, "registered again with the same watcher"


def test_nothing_a_client_sends_breaks_the_tray(focus_bridge, fake_daemon, watcher, tray, client):
    b = focus_bridge(WORK)
    t = tray(registered(watcher, b))
    bad = [
        (MENU_PATH, MENU_IFACE, "GetLayout", GLib.Variant("(iias)", (9999, -1, []))),
        (MENU_PATH, MENU_IFACE, "GetProperty", GLib.Variant("(is)", (-5, "label"))),
        (MENU_PATH, MENU_IFACE, "Event", GLib.Variant("(isvu)", (777, "clicked", GLib.Variant("s", "x"), 0))),
        (ITEM_PATH, PROPS, "Set", GLib.Variant("(ssv)", (ITEM_IFACE, "IconName", GLib.Variant("s", "x")))),
        (ITEM_PATH, PROPS, "Get", GLib.Variant("(ss)", (ITEM_IFACE, "NoSuchProperty"))),
    ]
    for path, iface, method, params in bad:
        with pytest.raises(GLib.Error):
            t.call(path, iface, method, params)
    # many events at once, unknown IDs and other kinds of events among them
    events = [(i, "hovered" if i % 2 else "clicked", GLib.Variant("i", 0), 0) for i in range(5000, 6000)]
    (errors,) = t.call(MENU_PATH, MENU_IFACE, "EventGroup", GLib.Variant("(a(isvu))", (events,)), "(ai)")
    assert len(errors) <= 256, len(errors)
    # a long list of IDs is read only as far as the bound
    (group,) = t.call(MENU_PATH, MENU_IFACE, "GetGroupProperties",
                      GLib.Variant("(aias)", ([1] * 200_000, ["label"])), "(a(ia{sv}))")
    assert 0 < len(group) <= 256, len(group)
    t.call(ITEM_PATH, ITEM_IFACE, "Scroll", GLib.Variant("(is)", (3, "vertical")))
    assert client.status()["focus"] is None and b.alive()


def test_a_tray_without_menus_clicks_the_switch(focus_bridge, fake_daemon, watcher, tray, client):
    """swaybar 1.7 draws no dbusmenu: a click calls Activate (or ContextMenu, for an item that
    is a menu), a middle click SecondaryActivate."""
    b = focus_bridge(WORK)
    t = tray(registered(watcher, b))

    def click(method):
        t.call(ITEM_PATH, ITEM_IFACE, method, GLib.Variant("(ii)", (1250, 10)))

    def focus():
        return (client.status()["focus"] or {}).get("name")

    click("Activate")
    wait_until(lambda: focus() == "dnd", message="Activate did not turn Do Not Disturb on")
    fc = client.call("FocusOn", GLib.Variant("(sds)", ("work", 0, "")), "(s)", dest=CONTROL_NAME,
                     path=CONTROL_PATH, iface=CONTROL_IFACE)
    assert focus() == "work", fc
    click("ContextMenu")
    wait_until(lambda: focus() is None, message="ContextMenu did not turn the Focus off")
    click("SecondaryActivate")
    wait_until(lambda: client.status()["silent"] is True, message="SecondaryActivate did not switch silent on")
    click("SecondaryActivate")
    wait_until(lambda: client.status()["silent"] is False, message="SecondaryActivate did not switch silent off")
