"""Security: the state is private to the user; signals go only to the app
that owns the notification; nothing from a notification reaches a shell; the control interface answers its own user only.

What the older modules already show is not repeated here: test_signals.py (ActionInvoked,
ActivationToken, NotificationClosed, NotificationReplied unicast to the sender, both daemon
styles), test_ids.py (close and replace of a delivered notification across apps),
test_trust.py (who may close and replace which ID, vendor passthrough and StateChanged
for the bridge's own user only), test_state.py (state.sqlite3 0600,
folder 0700).

Every test here runs on a bus that admits every user (support.buses.MultiUserBus), so that a
call from user nobody reaches the bridge and the bridge itself must refuse it."""

import os
import shutil
import stat

import pytest
from gi.repository import GLib

from support.bridge import private_bus_address, wait_connected
from support.buses import MultiUserBus
from support.clients import settle
from support.fakes import SPAWN_FAKE, SpawnedFakes
from support.focus import far_time
from support.names import CONTROL_IFACE, CONTROL_NAME, CONTROL_PATH
from support.processes import FOCUSCTL_BIN, run, run_as_nobody, session_env
from support.waiting import pump_for, wait_until

TEST_TIMEOUT = 45


@pytest.fixture
def bus(tmp_path, procs):
    """Overrides support.buses' bus for this module: every user may connect."""
    b = MultiUserBus(tmp_path, "session-any-user", procs)
    yield b
    b.stop()


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


SUMMARY_CONFIG = """
[summary]
times = ["%s"]

[apps."Digest"]
delivery = "summary"
"""


# --------------------------------------------------------------------------- state files
def test_state_folder_and_every_state_file_private_also_when_they_were_not(bridge_factory, fake_daemon,
                                                                           make_client, tmp_path):
    state = tmp_path / "state" / "focus-bridge"
    state.mkdir(parents=True)
    os.chmod(state, 0o755)                      # made by someone else, too open
    old = os.umask(0o022)                       # the usual umask of a session
    try:
        b = bridge_factory()
        c = make_client()
        wait_connected(c)
        for i in range(3):
            c.notify("private %d" % i, app="Secret")
        fake_daemon.wait_notify("private 2")
        db = state / "state.sqlite3"
        wait_until(lambda: (state / "state.sqlite3-wal").exists(), 5, message="no -wal file (WAL mode?)")
        assert mode_of(state) == 0o700, "state folder %o" % mode_of(state)
        files = sorted(p.name for p in state.iterdir())
        assert {"state.sqlite3", "state.sqlite3-wal"} <= set(files), files
        for name in files:
            assert mode_of(state / name) == 0o600, "%s has mode %o" % (name, mode_of(state / name))
        assert b.stop() == 0
        # loosened while the bridge was away: tightened again at the next start
        os.chmod(state, 0o755)
        os.chmod(db, 0o644)
        bridge_factory()
        c2 = make_client()
        c2.notify("after the restart", app="Secret")
        fake_daemon.wait_notify("after the restart")
        assert mode_of(state) == 0o700, "state folder %o after a restart" % mode_of(state)
        for p in state.iterdir():
            assert mode_of(p) == 0o600, "%s has mode %o after a restart" % (p.name, mode_of(p))
    finally:
        os.umask(old)


# --------------------------------------------------------------------------- signals, unicast
def test_closed_on_daemon_loss_and_on_close_reach_only_the_owner(bridge, fake_daemon, make_client):
    owner = make_client("owner")
    bystander = make_client("bystander")
    mine = owner.notify("closed by its app", app="Owner")
    gone = owner.notify("shown when the daemon dies", app="Owner")
    theirs = bystander.notify("bystander's own", app="Bystander")
    for s in ("closed by its app", "shown when the daemon dies", "bystander's own"):
        fake_daemon.wait_notify(s)
    owner.close(mine)
    assert owner.wait_signal("NotificationClosed", mine).args == (mine, 3)
    fake_daemon.kill()
    assert owner.wait_signal("NotificationClosed", gone, timeout=10).args == (gone, 4)
    assert bystander.wait_signal("NotificationClosed", theirs, timeout=10).args == (theirs, 4)
    settle(owner, bystander)
    assert [s.args[0] for s in bystander.got("NotificationClosed")] == [theirs], \
        "another app's NotificationClosed reached the bystander: %r" % [s.args for s in bystander.got("NotificationClosed")]
    assert sorted(s.args[0] for s in owner.got("NotificationClosed")) == sorted([mine, gone])


def test_signals_of_a_replayed_held_notification_reach_only_its_app(bridge_factory, fake_daemon, config,
                                                                     make_client, focusctl):
    config(SUMMARY_CONFIG % far_time())
    bridge_factory()
    owner = make_client("owner")
    bystander = make_client("bystander")
    wait_connected(owner)
    nid = owner.notify("held, then shown", app="Digest", actions=["open", "Open"])
    bystander.notify("bystander's own", app="Bystander")
    fake_daemon.wait_notify("bystander's own")
    assert focusctl("summary", "deliver").returncode == 0
    digest = fake_daemon.wait_notify("Notification Summary")
    fake_daemon.action(digest["daemon_id"], "show-all")
    rec = fake_daemon.wait_notify("held, then shown")
    fake_daemon.action(rec["daemon_id"], "open")
    fake_daemon.closed(rec["daemon_id"], 2)
    assert owner.wait_signal("ActionInvoked", nid).args == (nid, "open")
    assert owner.wait_signal("NotificationClosed", nid).args == (nid, 2)
    settle(owner, bystander)
    assert bystander.got("ActionInvoked") == [] and bystander.got("NotificationClosed") == [], \
        [(s.member, s.args) for s in bystander.signals]
    # the digest is the bridge's own: its action and closing are nobody else's business
    assert [s.args for s in owner.got("ActionInvoked")] == [(nid, "open")]


# --------------------------------------------------------------------------- no shell
def hostile_texts(tmp_path):
    """Texts that would create a marker file if any shell ever saw them."""
    markers = [tmp_path / ("shell-%d" % i) for i in range(7)]
    texts = ["$(touch %s)" % markers[0], "`touch %s`" % markers[1], "x; touch %s" % markers[2],
             "x | touch %s" % markers[3], "x && touch %s" % markers[4], "x\ntouch %s\n" % markers[5],
             "'\"; touch %s; echo \"'" % markers[6]]
    return markers, texts


def send_hostile(client, texts, tag):
    """Every text in every field a notification has that the bridge reads or passes on."""
    sent = []
    for i, t in enumerate(texts):
        hints = {"desktop-entry": GLib.Variant("s", t), "sound-file": GLib.Variant("s", t),
                 "sound-name": GLib.Variant("s", t), "image-path": GLib.Variant("s", t),
                 "category": GLib.Variant("s", t), "x-focus-level": GLib.Variant("s", t),
                 "x-focus-person": GLib.Variant("s", t), "x-focus-thread": GLib.Variant("s", t)}
        summary = "%s %d %s" % (tag, i, t)
        client.notify(summary, t, app=t, icon=t, actions=[t, t, "default", t], hints=hints)
        sent.append(summary)
    return sent


def assert_no_marker(markers):
    pump_for(0.5)   # a shell started asynchronously would have run by now
    made = [str(m) for m in markers if m.exists()]
    assert not made, "a shell ran text from a notification: created %r" % made


def test_nothing_from_a_notification_reaches_a_shell_in_spawn_mode(bridge_factory, make_client, tmp_path):
    markers, texts = hostile_texts(tmp_path)
    b = bridge_factory("spawn", command=SPAWN_FAKE)
    fakes = SpawnedFakes(private_bus_address(b))
    inst = fakes.wait_new(None, 15)
    assert inst
    c = make_client()
    wait_connected(c, 15)
    sent = send_hostile(c, texts, "spawn")
    wait_until(lambda: len(SpawnedFakes.notifies(fakes.current() or inst)) >= len(sent), 10,
               message="the hostile notifications did not all reach the daemon")
    got = [e for e in SpawnedFakes.notifies(inst)]
    assert [e["summary"] for e in got] == sent, "texts changed on the way: %r" % [e["summary"] for e in got]
    assert [e["body"] for e in got] == texts and [e["app_icon"] for e in got] == texts
    assert_no_marker(markers)
    assert b.alive()


def test_nothing_from_a_notification_reaches_a_shell_in_log_mode(bridge_factory, make_client, tmp_path):
    markers, texts = hostile_texts(tmp_path)
    b = bridge_factory("log")
    c = make_client()
    sent = send_hostile(c, texts, "log")
    last = sent[-1].split("\n")[0]
    wait_until(lambda: sum(1 for l in b.out.lines if l.startswith("notify id=")) >= len(sent), 10,
               message="not every hostile notification was logged: %r" % b.out.lines)
    assert all("\n" not in l for l in b.out.lines)
    assert any(last.replace('"', '\\"') in l for l in b.out.lines), b.out.lines[-3:]
    assert_no_marker(markers)
    assert b.alive()


# --------------------------------------------------------------------------- other users
CONTROL_CALLS = [
    ("Status", []),
    ("History", ["0", "''"]),
    ("Summary", []),
    ("FocusList", []),
    ("SetSilent", ["true"]),
    ("FocusOn", ["'work'", "60.0", "''"]),
    ("FocusOff", []),
    ("DeliverSummary", []),
    ("Reload", []),
    ("Explain", ["'{\"app\": \"x\"}'"]),
]

FOCUS_CONFIG = """
[focus.work]
apps = ["Mail"]
"""


def gdbus_control(bus, method, args):
    return ["gdbus", "call", "--address", bus.address, "--dest", CONTROL_NAME, "--object-path", CONTROL_PATH,
            "--method", "%s.%s" % (CONTROL_IFACE, method), "--", *args]


def test_control_interface_refuses_other_users(bridge_factory, config, make_client, bus, focusctl):
    if not shutil.which("gdbus"):
        pytest.skip("gdbus not installed")
    config(FOCUS_CONFIG)
    bridge_factory("log")
    c = make_client()
    c.notify("private", "only my user may read this", app="Secret")
    env = session_env(bus.address)
    # nobody can reach the bus (so a refusal below is the bridge's, not the bus's)
    r = run_as_nobody(["gdbus", "call", "--address", bus.address, "--dest", "org.freedesktop.DBus",
                       "--object-path", "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.GetId"], env)
    assert r.returncode == 0, "user nobody cannot use the test bus at all: %s" % r.stderr
    # root's own calls work
    r = run(gdbus_control(bus, "Status", []), env)
    assert r.returncode == 0, r.stderr
    refused, allowed = [], []
    for method, args in CONTROL_CALLS:
        r = run_as_nobody(gdbus_control(bus, method, args), env)
        if r.returncode == 0:
            allowed.append((method, r.stdout.strip()[:200]))
        elif "org.freedesktop.DBus.Error.AccessDenied" not in r.stderr:
            refused.append((method, r.stderr.strip()[:200]))
    assert not allowed, "the control interface answered user nobody: %r" % allowed
    assert not refused, "refused, but not with org.freedesktop.DBus.Error.AccessDenied: %r" % refused
    # nothing nobody asked for happened
    st = c.status()
    assert st["silent"] is False and st["focus"] is None, st
    # focusctl as nobody fails with a message, focusctl as root works
    if os.access(FOCUSCTL_BIN, os.X_OK):
        r = run_as_nobody([FOCUSCTL_BIN, "status"], env)
        if "error while loading shared libraries" not in r.stderr:
            assert r.returncode != 0, "focusctl status as nobody succeeded: %s" % r.stdout
            said = (r.stderr + r.stdout).lower()
            assert "denied" in said or "own user" in said, "focusctl does not say why: %r" % r.stderr
        assert focusctl("status").returncode == 0



# --------------------------------------------------------------------------- the tray switch
def gdbus_tray(bus, dest, path, method, args):
    return ["gdbus", "call", "--address", bus.address, "--dest", dest, "--object-path", path,
            "--method", method, "--", *args]


def test_the_tray_switch_answers_its_own_user_only(bridge_factory, config, make_client, bus, focusctl):
    """The tooltip and the menu tell the Focus, the mutes and what is held, and the menu changes
    them: another user gets AccessDenied for each, as from Control1."""
    from support.tray import ITEM_IFACE, ITEM_PATH, MENU_IFACE, MENU_PATH, PROPS, FakeWatcher
    if not shutil.which("gdbus"):
        pytest.skip("gdbus not installed")
    config(FOCUS_CONFIG)
    b = bridge_factory("log")
    watcher = FakeWatcher(bus.address)
    try:
        sender, _ = watcher.wait_registration()
        c = make_client()
        wait_connected(c)
        c.notify("private", "only my user may read this", app="Secret")
        env = session_env(bus.address)
        calls = [
            (ITEM_PATH, PROPS + ".GetAll", ["'%s'" % ITEM_IFACE]),
            (ITEM_PATH, PROPS + ".Get", ["'%s'" % ITEM_IFACE, "'ToolTip'"]),
            (ITEM_PATH, ITEM_IFACE + ".Activate", ["0", "0"]),
            (ITEM_PATH, ITEM_IFACE + ".SecondaryActivate", ["0", "0"]),
            (MENU_PATH, PROPS + ".GetAll", ["'%s'" % MENU_IFACE]),
            (MENU_PATH, MENU_IFACE + ".GetLayout", ["0", "-1", "@as []"]),
            (MENU_PATH, MENU_IFACE + ".GetGroupProperties", ["@ai []", "@as []"]),
            (MENU_PATH, MENU_IFACE + ".AboutToShow", ["0"]),
            (MENU_PATH, MENU_IFACE + ".Event", ["2", "'clicked'", "<''>", "uint32 0"]),
            (MENU_PATH, MENU_IFACE + ".Event", ["100", "'clicked'", "<''>", "uint32 0"]),
        ]
        # the bridge's own user is answered
        for path, method, args in calls[:2] + calls[4:8]:
            r = run(gdbus_tray(bus, sender, path, method, args), env)
            assert r.returncode == 0, (method, r.stderr)
        refused, allowed = [], []
        for path, method, args in calls:
            r = run_as_nobody(gdbus_tray(bus, sender, path, method, args), env)
            if r.returncode == 0:
                allowed.append((method, r.stdout.strip()[:200]))
            elif "org.freedesktop.DBus.Error.AccessDenied" not in r.stderr:
                refused.append((method, r.stderr.strip()[:200]))
        assert not allowed, "the tray switch answered user nobody: %r" % allowed
        assert not refused, "refused, but not with org.freedesktop.DBus.Error.AccessDenied: %r" % refused
        # nothing nobody clicked happened
        st = c.status()
        assert st["silent"] is False and st["focus"] is None, st
        assert b.alive()
    finally:
        watcher.close()
