"""The GTK door (focus-bridge(1), GNOME): on GNOME, GLib's GNotification and the desktop portal
send to org.gtk.Notifications, which the bridge serves as it serves org.freedesktop.Notifications
and passes on to GNOME Shell's own GTK interface (org.gnome.Shell, /org/gtk/Notifications).

Here GNOME Shell's GTK side is a recording fake (`FakeGtkShell`), so what reaches it is seen
exactly; test_gnome.py has the real shell. The apps are a real GApplication
(support/gnotification_client.py) and gdbus calls, unsandboxed and in an emulated Flatpak."""

import json
import subprocess

import pytest
from gi.repository import Gio, GLib

from support.buses import connect
from support.fakes import GTK_NAME, GTK_PATH, FakeGtkShell
from support.focusctl import fc_json, fc_ok, history_of
from support.names import NOTIF_IFACE
from support.processes import PYTHON, SUPPORT, LineReader, session_env
from support.sandbox import Sandbox
from support.waiting import pump_until, wait_until

TEST_TIMEOUT = 45

CONFIG = """
[general]
after-focus = "replay"

[focus.work]
apps = ["org.example.Allowed"]
"""


@pytest.fixture
def desktop(tmp_path):
    """XDG_DATA_HOME with the desktop files of the apps the shell knows, and the environment a
    GNOME session gives the bridge."""
    data = tmp_path / "data"
    apps = data / "applications"
    apps.mkdir(parents=True)
    for app_id in ("org.example.Mail", "org.example.Allowed", "org.example.Chat"):
        (apps / (app_id + ".desktop")).write_text("[Desktop Entry]\nType=Application\nName=%s\nExec=true\n" % app_id)
    empty = tmp_path / "no-system-apps"
    empty.mkdir()
    return {"XDG_CURRENT_DESKTOP": "GNOME", "XDG_DATA_HOME": str(data), "XDG_DATA_DIRS": str(empty)}


@pytest.fixture
def shell(bus):
    s = FakeGtkShell(bus.address)
    yield s
    s.dispose()


@pytest.fixture
def gnome_bridge(focus_bridge, desktop, shell):
    def start(config=CONFIG):
        return focus_bridge(config, extra_env=desktop)
    return start


def add(bus, app_id, nid, notification, sandbox=None):
    """AddNotification as an app sends it (gdbus); returns the finished process."""
    argv = ["gdbus", "call", "--address", bus.address, "--dest", GTK_NAME, "--object-path", GTK_PATH,
            "--method", "org.gtk.Notifications.AddNotification", "--", app_id, nid, notification]
    if sandbox is not None:
        return sandbox.run(argv, session_env(bus.address))
    return subprocess.run(argv, env=session_env(bus.address), capture_output=True, text=True, timeout=10)


def remove(bus, app_id, nid):
    r = subprocess.run(["gdbus", "call", "--address", bus.address, "--dest", GTK_NAME, "--object-path", GTK_PATH,
                        "--method", "org.gtk.Notifications.RemoveNotification", "--", app_id, nid],
                       env=session_env(bus.address), capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r.stderr


def added_ok(bus, app_id, nid, notification):
    r = add(bus, app_id, nid, notification)
    assert r.returncode == 0, r.stderr


def rows_of(focusctl, title):
    return [r for r in fc_json(focusctl, "history", "--json", "--limit", "200") if r["summary"] == title]


def the_row(focusctl, title):
    return wait_until(lambda: rows_of(focusctl, title) and rows_of(focusctl, title)[0], 5,
                      message="%r is not in focusctl history" % title)


class GApplication:
    """A real GApplication (python3-gi) sending GNotifications: GLib picks the GTK door itself
    when org.gtk.Notifications has an owner, else the fdo one."""

    def __init__(self, procs, bus, app_id, env):
        self.proc = procs.spawn([PYTHON, str(SUPPORT / "gnotification_client.py"), app_id],
                                env=session_env(bus.address, **env), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.out = LineReader(self.proc.stdout)

    def send(self, nid, title, priority="normal"):
        self.proc.stdin.write(("send %s %s %s\n" % (nid, title, priority)).encode())
        self.proc.stdin.flush()
        line = self.out.get(10)
        assert line == "sent %s" % nid, "the GApplication said %r" % line


# --------------------------------------------------------------------------- through the door
def test_a_gnotification_goes_through_the_bridge_to_the_shell_unchanged(gnome_bridge, shell, bus, procs,
                                                                       desktop, focusctl, fake_daemon):
    gnome_bridge()
    assert bus.owner(GTK_NAME) is not None and bus.owner(GTK_NAME) != shell.conn.get_unique_name()
    app = GApplication(procs, bus, "org.example.Mail", desktop)
    app.send("inbox-1", "New mail from Ada")
    got = shell.wait_added("New mail from Ada")
    assert (got["app"], got["id"]) == ("org.example.Mail", "inbox-1"), got
    n = got["notification"]
    assert n["body"] == "from a GNotification"
    assert n["priority"] == "normal"
    assert n["default-action"] == "app.open", "the click stays the app's own default action"
    assert [(b["label"], b["action"]) for b in n["buttons"]] == [("Acknowledge", "app.ack")]
    assert not fake_daemon.seen("Notify"), "a GTK notification went to the fdo daemon too"
    row = the_row(focusctl, "New mail from Ada")
    assert (row["app"], row["decision"], row["level"], row["door"]) == (
        "org.example.Mail", "delivered", "active", "org.gtk.Notifications"), row


def test_priority_gives_the_level(gnome_bridge, shell, bus, focusctl):
    gnome_bridge()
    for priority, level in [("low", "passive"), ("normal", "active"), ("high", "active"), ("urgent", "time-sensitive")]:
        title = "priority %s" % priority
        added_ok(bus, "org.example.Chat", priority, "{'title': <'%s'>, 'priority': <'%s'>}" % (title, priority))
        assert shell.wait_added(title)["notification"]["priority"] == priority
        assert the_row(focusctl, title)["level"] == level, priority
    explained = fc_json(focusctl, "explain", str(the_row(focusctl, "priority urgent")["id"]), "--json")
    assert any("priority urgent" in line for line in explained["then"]["trace"]), explained["then"]["trace"]
    assert explained["then"]["door"] == "org.gtk.Notifications"


def buttons(*labels):
    return ", ".join("{'label': <'%s'>, 'action': <'app.%s'>, 'target': <%d>}" % (label, label.lower(), i)
                     for i, label in enumerate(labels))


def test_buttons_are_tidied_like_actions_and_the_default_action_is_left_alone(gnome_bridge, shell, bus):
    gnome_bridge()
    added_ok(bus, "org.example.Mail", "tidy", "{'title': <'Four buttons'>, 'default-action': <'app.delete'>, "
             "'buttons': <[%s]>}" % buttons("Delete", "Reply", "Archive", "Snooze"))
    n = shell.wait_added("Four buttons")["notification"]
    assert [b["label"] for b in n["buttons"]] == ["Reply", "Archive", "Snooze", "⚠ Delete"], \
        "the destructive one last and marked"
    assert [(b["action"], b["target"]) for b in n["buttons"]] == [
        ("app.reply", 1), ("app.archive", 2), ("app.snooze", 3), ("app.delete", 0)], "each keeps its action and target"
    assert n["default-action"] == "app.delete", "the default action is the click, never a button"

    added_ok(bus, "org.example.Mail", "cut", "{'title': <'Five buttons'>, "
             "'buttons': <[%s]>}" % buttons("Delete", "Reply", "Archive", "Snooze", "Forward"))
    n = shell.wait_added("Five buttons")["notification"]
    assert [b["label"] for b in n["buttons"]] == ["Reply", "Archive", "Snooze", "Forward"], \
        "at most four (max-actions), and a destructive one is the first to go"


def test_an_app_without_a_desktop_file_hears_the_shells_error(gnome_bridge, shell, bus, focusctl):
    gnome_bridge()
    r = add(bus, "org.example.Unknown", "x", "{'title': <'No such app'>}")
    assert r.returncode != 0 and "org.gtk.Notifications.InvalidApp" in r.stderr, (r.returncode, r.stderr)
    r = add(bus, "not an app id", "x", "{'title': <'No such app'>}")
    assert "org.gtk.Notifications.InvalidApp" in r.stderr, r.stderr
    assert rows_of(focusctl, "No such app") == []
    assert shell.added("No such app") == []


# --------------------------------------------------------------------------- a Focus
def test_a_focus_holds_a_gnotification_and_it_is_added_when_the_focus_ends(gnome_bridge, shell, bus, procs,
                                                                          desktop, focusctl):
    gnome_bridge()
    fc_ok(focusctl, "focus", "on", "work")
    app = GApplication(procs, bus, "org.example.Mail", desktop)
    app.send("held-1", "Held during work")
    row = the_row(focusctl, "Held during work")
    assert row["decision"] == "held-focus", row
    added_ok(bus, "org.example.Allowed", "a", "{'title': <'Allowed during work'>}")
    shell.wait_added("Allowed during work")
    assert shell.added("Held during work") == [], "a held GNotification reached the shell"
    fc_ok(focusctl, "focus", "off")
    got = shell.wait_added("Held during work")
    assert (got["app"], got["id"]) == ("org.example.Mail", "held-1"), "replayed as itself"


def test_removed_while_held_it_ends_unseen(gnome_bridge, shell, bus, focusctl):
    gnome_bridge()
    fc_ok(focusctl, "focus", "on", "work")
    added_ok(bus, "org.example.Mail", "gone", "{'title': <'Withdrawn while held'>}")
    assert the_row(focusctl, "Withdrawn while held")["decision"] == "held-focus"
    remove(bus, "org.example.Mail", "gone")
    row = wait_until(lambda: (r := the_row(focusctl, "Withdrawn while held"))["close-reason"] == 3 and r, 5,
                     message="the withdrawn one never closed")
    assert row["decision"] == "held-focus"
    added_ok(bus, "org.example.Allowed", "m", "{'title': <'Marker after the withdrawal'>}")
    fc_ok(focusctl, "focus", "off")
    shell.wait_added("Marker after the withdrawal")
    assert shell.added("Withdrawn while held") == []
    assert shell.removed() == [], "nothing of it was ever on the shell"


def test_the_same_id_replaces_and_remove_is_passed_on(gnome_bridge, shell, bus, focusctl):
    gnome_bridge()
    added_ok(bus, "org.example.Chat", "thread", "{'title': <'First version'>}")
    shell.wait_added("First version")
    added_ok(bus, "org.example.Chat", "thread", "{'title': <'Second version'>}")
    shell.wait_added("Second version")
    first, second = the_row(focusctl, "First version"), the_row(focusctl, "Second version")
    assert first["id"] == second["id"], "a replacement keeps its notification's ID"
    remove(bus, "org.example.Chat", "thread")
    wait_until(lambda: shell.removed() == [("org.example.Chat", "thread")], 5,
               message="RemoveNotification never reached the shell: %r" % shell.calls)
    wait_until(lambda: the_row(focusctl, "Second version")["close-reason"] == 3, 5,
               message="the removed one is not closed in history")


def test_a_sandboxed_app_is_its_flatpak_id_whatever_app_id_it_claims(gnome_bridge, shell, bus, focusctl, tmp_path):
    gnome_bridge()
    fc_ok(focusctl, "focus", "on", "work")
    sandbox = Sandbox(tmp_path, "org.example.Intruder")
    r = add(bus, "org.example.Allowed", "pose", "{'title': <'Posing as the allowed app'>}", sandbox=sandbox)
    assert r.returncode == 0, r.stderr
    row = the_row(focusctl, "Posing as the allowed app")
    assert (row["app"], row["decision"]) == ("org.example.Intruder", "held-focus"), row
    # and it cannot withdraw the real app's notification of the same ID
    added_ok(bus, "org.example.Allowed", "pose", "{'title': <'The real allowed app'>}")
    shell.wait_added("The real allowed app")
    assert shell.added("Posing as the allowed app") == []


# --------------------------------------------------------------------------- the name
def test_when_the_bridge_stops_the_shell_has_the_name_again(gnome_bridge, bus):
    b = gnome_bridge()
    bridge_name = bus.owner(GTK_NAME)
    assert bridge_name is not None
    shell_again = FakeGtkShell(bus.address, also_own_gtk_name=True)  # queued, as GNOME Shell queues
    try:
        assert bus.owner(GTK_NAME) == bridge_name
        assert b.stop() == 0
        wait_until(lambda: bus.owner(GTK_NAME) == shell_again.conn.get_unique_name(), 5,
                   message="the shell never got org.gtk.Notifications back")
    finally:
        shell_again.dispose()


def test_outside_gnome_the_name_is_left_alone_and_glib_uses_the_fdo_door(focus_bridge, bus, procs, tmp_path,
                                                                         fake_daemon, focusctl):
    focus_bridge(CONFIG)
    assert bus.owner(GTK_NAME) is None, "the bridge took org.gtk.Notifications outside GNOME"
    app = GApplication(procs, bus, "org.example.Mail", {})
    app.send("fdo-1", "Through the fdo door")
    fake_daemon.wait_notify("Through the fdo door")
    row = the_row(focusctl, "Through the fdo door")
    assert row["door"] == "org.freedesktop.Notifications", row


def test_a_held_one_can_still_be_removed_after_a_restart(gnome_bridge, shell, bus, focusctl):
    b = gnome_bridge()
    fc_ok(focusctl, "focus", "on", "work")
    added_ok(bus, "org.example.Mail", "kept", "{'title': <'Held across a restart'>}")
    assert the_row(focusctl, "Held across a restart")["decision"] == "held-focus"
    assert b.stop() == 0
    gnome_bridge()
    remove(bus, "org.example.Mail", "kept")
    wait_until(lambda: the_row(focusctl, "Held across a restart")["close-reason"] == 3, 5,
               message="RemoveNotification after a restart did not end the held one")
    fc_ok(focusctl, "focus", "off")
    added_ok(bus, "org.example.Allowed", "m", "{'title': <'Marker after the restart'>}")
    shell.wait_added("Marker after the restart")
    assert shell.added("Held across a restart") == []


def doctor_check(focusctl, name):
    r = focusctl("doctor", "--json")
    checks = {c["check"]: c for c in json.loads(r.stdout)["checks"]}
    return checks.get(name)


def test_doctor_says_whether_the_bridge_serves_the_gtk_door(gnome_bridge, bus, focusctl):
    gnome_bridge()
    check = doctor_check(focusctl, "gtk-door")
    assert check and check["ok"], check


def test_started_after_the_shell_the_bridge_waits_says_so_and_doctor_too(focus_bridge, desktop, bus, focusctl):
    first = FakeGtkShell(bus.address, also_own_gtk_name=True)  # GNOME Shell was there first
    try:
        b = focus_bridge(CONFIG, extra_env=desktop)
        assert bus.owner(GTK_NAME) == first.conn.get_unique_name()
        assert "org.gtk.Notifications is served by" in b.stderr() and "start focus-bridge before GNOME Shell" in b.stderr()
        check = doctor_check(focusctl, "gtk-door")
        assert check and not check["ok"] and "log out and in" in check["fix"], check
        first.dispose()
        first = None
        wait_until(lambda: bus.owner(GTK_NAME) == b.unique_name, 5,
                   message="the bridge, queued, never got org.gtk.Notifications when the shell let go")
    finally:
        if first is not None:
            first.dispose()


# --------------------------------------------------------------------------- no shell
def add_with_icon(conn, app_id, nid, title, icon_size):
    """AddNotification with a serialised bytes GIcon of `icon_size` bytes, as a GApplication
    sends a picture."""
    data = GLib.Variant.new_from_bytes(GLib.VariantType("ay"), GLib.Bytes.new(b"\x89" * icon_size), True)
    params = GLib.Variant("(ssa{sv})", (app_id, nid, {"title": GLib.Variant("s", title),
                                                       "icon": GLib.Variant("(sv)", ("bytes", data))}))
    conn.call_sync(GTK_NAME, GTK_PATH, GTK_NAME, "AddNotification", params, None,
                   Gio.DBusCallFlags.NONE, 10_000, None)


def test_with_no_shell_what_waits_is_bounded_by_bytes_and_counted(focus_bridge, desktop, bus, focusctl):
    """No GNOME Shell on the bus: the GTK door's notifications wait for it, counted by `status`,
    at most 32 MiB of them; past that the oldest is given up — closed (reason 4) in history and
    told to nobody, as GTK apps hear nothing back — and the rest are added, in order, once the
    shell is there."""
    focus_bridge(CONFIG, extra_env=desktop)
    app = connect(bus.address)
    closed = []
    app.signal_subscribe(None, NOTIF_IFACE, "NotificationClosed", None, None, Gio.DBusSignalFlags.NONE,
                         lambda *args: closed.append(args[-1].unpack()), None)
    sent = 12
    for i in range(sent):
        add_with_icon(app, "org.example.Mail", "big-%d" % i, "Big %d" % i, 4 << 20)

    def settled():
        rows = {r["summary"]: r for r in fc_json(focusctl, "history", "--json", "--limit", "200")}
        given = [i for i in range(sent) if rows.get("Big %d" % i, {}).get("close-reason") == 4]
        counts = fc_json(focusctl, "status", "--json")["counts"]
        return len(rows) >= sent and counts["queued"] + counts["in-flight"] + len(given) == sent and (given, counts)

    given_up, counts = wait_until(settled, 10, message="what waits and what was given up never add up")
    assert 6 <= counts["queued"] <= 8, "4 MiB each, at most 32 MiB wait: %r" % counts
    assert given_up == list(range(len(given_up))), "the oldest go first: %r" % given_up
    assert counts["delivered"] == 0
    pump_until(lambda: False, 0.5)
    assert closed == [], "a GTK app was sent NotificationClosed: %r" % closed

    shell = FakeGtkShell(bus.address)
    try:
        waiting = ["Big %d" % i for i in range(len(given_up), sent)]
        wait_until(lambda: [c["notification"]["title"] for c in shell.added()] == waiting, 10,
                   message="what waited never reached the shell in order: %r" % [
                       c["notification"]["title"] for c in shell.added()])
        counts = wait_until(lambda: (c := fc_json(focusctl, "status", "--json")["counts"])["queued"] == 0 and c, 5,
                            message="status still counts what the shell took")
        assert counts["delivered"] == len(waiting), counts
    finally:
        shell.dispose()
