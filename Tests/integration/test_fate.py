"""What becomes of a notification, through the real bridge and focusctl as a person types it
(focusctl(1): history, explain ID, show, dismiss, digest show-all):
history follows a held notification from `held-focus` to its digest, its replay and its end;
`show`, `dismiss` and `digest show-all` act by ID and say what they did; every ID still ends with
exactly one NotificationClosed to its holder; `explain ID` tells the notification as received
and decided then, and how it would be decided now; a notification delivered while dunst is
paused says so in history."""

import json
import re
import subprocess
import time

import pytest

from support.clients import settle
from support.dunst import Dunst
from support.focus import assert_not_forwarded, s
from support.focusctl import fc_json, fc_ok, history_of
from support.waiting import wait_until

TEST_TIMEOUT = 40

WORK = """
[focus.work]
apps = ["Mail"]
people = ["Team Lead"]
"""


def one_line(r):
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, "expected one line on stderr, got %r" % r.stderr
    return lines[0]


def fc_fails(focusctl, *args, code=1):
    r = focusctl(*args)
    assert r.returncode == code, "focusctl %s: exit %d (wanted %d)\nstdout: %s\nstderr: %s" % (
        " ".join(args), r.returncode, code, r.stdout, r.stderr)
    return r


def fate_in_table(focusctl, nid):
    """The FATE cell of notification `nid` in `focusctl history` as a person reads it."""
    lines = fc_ok(focusctl, "history", "--limit", "100").stdout.splitlines()
    header = lines[0]
    assert "FATE" in header, header
    start, end = header.index("FATE"), header.index("SUMMARY")
    for line in lines[1:]:
        if line.split()[0] == str(nid):
            return line[start:end].strip()
    raise AssertionError("notification %d is not in focusctl history:\n%s" % (nid, "\n".join(lines)))


def closed_count(client, nid):
    settle(client)
    return len(client.got("NotificationClosed", nid))


def digest_of(focusctl):
    """The newest digest the bridge delivered, from history."""
    rows = [r for r in fc_json(focusctl, "history", "--json") if r["app"] == "FocusBridge"]
    assert rows, "no digest in history"
    return rows[0]["id"]


# --------------------------------------------------------------------------- history's fate
def test_history_follows_a_held_notification_to_its_digest_replay_and_end(focus_bridge, fake_daemon, client,
                                                                          focusctl, marker):
    focus_bridge(WORK)
    fc_ok(focusctl, "focus", "on", "work")
    nid = client.notify("Sale ends soon", "50% off", app="Shop", actions=["open", "Open"])
    row = history_of(focusctl, nid)
    assert (row["decision"], row["fate"], row["steps"]) == ("held-focus", "held-focus", []), row
    assert fate_in_table(focusctl, nid) == "held-focus"

    off = fc_ok(focusctl, "focus", "off").stdout
    assert "1 held notification was delivered in a digest" in off, off
    fake_daemon.wait_notify("While work was on")
    digest = digest_of(focusctl)
    row = history_of(focusctl, nid)
    assert [(st["step"], st["number"]) for st in row["steps"]] == [("in-digest", digest)], row
    assert re.fullmatch(r"held-focus → in digest %d at \d\d:\d\d" % digest, row["fate"]), row["fate"]
    assert re.fullmatch(r"held-focus → in digest %d at \d\d:\d\d" % digest, fate_in_table(focusctl, nid))
    assert_not_forwarded(fake_daemon, marker, "Sale ends soon")

    # what the digest's Show All does, from the command line
    r = fc_ok(focusctl, "digest", "show-all")
    assert r.stdout.strip() == "Digest %d: its notification is shown now, as itself." % digest, r.stdout
    rec = fake_daemon.wait_notify("Sale ends soon")
    assert rec["actions"] == ["open", "Open"]
    row = history_of(focusctl, nid)
    assert row["fate"].endswith("→ replayed by Show All"), row["fate"]
    # its app hears its own action under its own ID, and its end
    fake_daemon.action(rec["daemon_id"], "open")
    client.wait_signal("ActionInvoked", nid)
    fake_daemon.closed(rec["daemon_id"], 1)
    client.wait_signal("NotificationClosed", nid)
    assert closed_count(client, nid) == 1
    row = wait_until(lambda: (lambda r: r if r["close-reason"] == 1 else None)(history_of(focusctl, nid)), 5)
    assert re.fullmatch(r"held-focus → in digest %d at \d\d:\d\d → replayed by Show All → expired" % digest,
                        row["fate"]), row["fate"]
    # the digest, acted on, was closed by the bridge
    assert wait_until(lambda: history_of(focusctl, digest)["closed"], 5)
    assert history_of(focusctl, digest)["fate"] == "delivered → closed by focus-bridge"
    # nothing is open now
    r = fc_ok(focusctl, "digest", "show-all", "--json")
    assert json.loads(r.stdout) == {"action": "show-all", "ids": [], "copy": None, "digest": None, "until": None,
                                    "message": "No digest is open; nothing was shown."}, r.stdout


def test_summary_digest_and_a_closed_app_notification_in_history(focus_bridge, fake_daemon, client, focusctl):
    focus_bridge("""
[summary]
times = ["03:17"]

[apps."News"]
delivery = "summary"
""")
    held = client.notify("Election results", app="News")
    shown = client.notify("Build finished", app="CI")
    rec = fake_daemon.wait_notify("Build finished")
    client.close(shown)
    client.wait_signal("NotificationClosed", shown)
    fc_ok(focusctl, "summary", "deliver")
    fake_daemon.wait_notify("Notification Summary")
    digest = digest_of(focusctl)
    assert re.fullmatch(r"held-summary → in digest %d at \d\d:\d\d" % digest, history_of(focusctl, held)["fate"])
    row = wait_until(lambda: (lambda r: r if r["closed"] else None)(history_of(focusctl, shown)), 5)
    assert row["fate"] == "delivered → closed by the app", (row, rec)
    # the digest's own Dismiss ends what it stands for: dismissed, once
    fake_daemon.action(fake_daemon.wait_notify("Notification Summary")["daemon_id"], "dismiss")
    client.wait_signal("NotificationClosed", held)
    assert client.got("NotificationClosed", held)[0].args == (held, 2)
    row = wait_until(lambda: (lambda r: r if r["closed"] else None)(history_of(focusctl, held)), 5)
    assert row["fate"].endswith("→ dismissed"), row["fate"]
    assert closed_count(client, held) == 1


# --------------------------------------------------------------------------- dismiss
def test_dismiss_ends_a_held_notification_once_with_reason_2(focus_bridge, fake_daemon, client, focusctl, marker,
                                                            procs, bus):
    from support.processes import session_env
    focus_bridge(WORK)
    fc_ok(focusctl, "focus", "on", "work")
    nid = client.notify("Weekly report", app="Shop")
    # a person's own notify-send, waiting for its notification to end
    waiting = procs.spawn(["notify-send", "--wait", "-a", "Shop", "Waiting one"], env=session_env(bus.address),
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # its ID, as a person finds it: in focusctl history
    waiting_id = wait_until(lambda: [r["id"] for r in fc_json(focusctl, "history", "--json")
                                     if r["summary"] == "Waiting one"], 10)[0]
    assert history_of(focusctl, waiting_id)["decision"] == "held-focus"

    r = fc_ok(focusctl, "dismiss", str(nid))
    assert r.stdout.strip() == ("Notification %d (Shop), held for work, was dismissed; its app was told "
                                "(NotificationClosed, reason 2)." % nid), r.stdout
    closed = client.wait_signal("NotificationClosed", nid)
    assert closed.args == (nid, 2)
    assert closed_count(client, nid) == 1
    assert history_of(focusctl, nid)["fate"] == "held-focus → dismissed"
    assert fc_json(focusctl, "status", "--json")["counts"]["held-focus"] == 1

    # once ended, it is not held: a second dismiss says so, and tells nobody anything
    r = fc_fails(focusctl, "dismiss", str(nid))
    assert one_line(r) == ("focusctl: notification %d (Shop) is not held (held-focus → dismissed); focusctl dismiss ends "
                           "held notifications only." % nid), r.stderr
    assert closed_count(client, nid) == 1

    # --all-held ends the rest: the waiting notify-send returns
    r = fc_ok(focusctl, "dismiss", "--all-held", "--json")
    report = json.loads(r.stdout)
    assert (report["action"], report["ids"]) == ("dismiss", [waiting_id]), report
    assert report["message"] == "1 held notification was dismissed; its app was told (NotificationClosed, reason 2)."
    assert waiting.wait(10) == 0, waiting.stderr.read().decode()
    assert history_of(focusctl, waiting_id)["fate"] == "held-focus → dismissed"
    assert fc_json(focusctl, "status", "--json")["counts"]["held-focus"] == 0
    assert fc_ok(focusctl, "dismiss", "--all-held").stdout.strip() == "Nothing was held; nothing was dismissed."
    assert_not_forwarded(fake_daemon, marker, "Weekly report", "Waiting one")
    assert closed_count(client, nid) == 1


def test_dismissing_a_thousand_tells_each_once_and_answers_in_between(focus_bridge, fake_daemon, client, focusctl):
    """A release of many: every ID ends once (NotificationClosed, reason 2, to its holder), and
    the bridge answers other calls while it tells them: a Notify sent right after DismissHeld,
    on the same connection, is answered before the last of the thousand signals comes."""
    from gi.repository import Gio, GLib
    from support.clients import Client
    from support.names import CONTROL_IFACE, CONTROL_NAME, CONTROL_PATH, NOTIF_IFACE, NOTIF_NAME, NOTIF_PATH
    from support.waiting import pump_until
    focus_bridge("[general]\nrate-limit = 0\n" + WORK)
    fc_ok(focusctl, "focus", "on", "work")
    ids = [client.notify("held %d" % i, app="Shop") for i in range(1000)]
    assert status_held(focusctl) == 1000

    def closings():
        return [sig.args for sig in client.signals if sig.member == "NotificationClosed"]
    answered = {}

    def on_dismiss(conn, result, _data):
        answered["dismiss"] = json.loads(conn.call_finish(result).unpack()[0])

    def on_notify(conn, result, _data):
        conn.call_finish(result)
        answered["notify"] = len(closings())
    client.conn.call(CONTROL_NAME, CONTROL_PATH, CONTROL_IFACE, "DismissHeld", None, GLib.VariantType("(s)"),
                     Gio.DBusCallFlags.NONE, 30000, None, on_dismiss, None)
    client.conn.call(NOTIF_NAME, NOTIF_PATH, NOTIF_IFACE, "Notify", Client.notify_params("meanwhile", app="Other"),
                     GLib.VariantType("(u)"), Gio.DBusCallFlags.NONE, 30000, None, on_notify, None)
    assert pump_until(lambda: "notify" in answered and len(closings()) >= 1000, 30), (answered, len(closings()))
    assert sorted(answered["dismiss"]["ids"]) == sorted(ids)
    assert sorted(closings()) == sorted((nid, 2) for nid in ids), "each ID ends once, dismissed"
    assert answered["notify"] < 1000, "the Notify waited for all %d NotificationClosed" % answered["notify"]
    assert history_of(focusctl, ids[-1])["fate"] == "held-focus → dismissed"


def status_held(focusctl):
    return fc_json(focusctl, "status", "--json")["counts"]["held-focus"]


def test_dismissing_the_last_one_of_a_digest_closes_the_digest(focus_bridge, fake_daemon, client, focusctl):
    focus_bridge(WORK)
    fc_ok(focusctl, "focus", "on", "work")
    nid = client.notify("Only one", app="Shop")
    fc_ok(focusctl, "focus", "off")
    digest_rec = fake_daemon.wait_notify("While work was on")
    fc_ok(focusctl, "dismiss", str(nid))
    assert client.wait_signal("NotificationClosed", nid).args == (nid, 2)
    # the digest that stands for nothing now is closed on the daemon
    fake_daemon.wait_call("CloseNotification", id=digest_rec["daemon_id"])
    assert closed_count(client, nid) == 1


# --------------------------------------------------------------------------- show
def test_show_replays_a_held_one_as_itself_and_a_past_one_as_a_copy(focus_bridge, fake_daemon, client, focusctl):
    focus_bridge(WORK)
    past = client.notify("Deploy done", "all green", app="CI", icon="ci", actions=["logs", "Logs"],
                         hints={"category": s("transfer.complete")})
    first = fake_daemon.wait_notify("Deploy done")
    fc_ok(focusctl, "focus", "on", "work")
    nid = client.notify("Parcel delayed", "tomorrow", app="Shop", actions=["track", "Track"])

    r = fc_ok(focusctl, "show", str(nid))
    assert r.stdout.strip() == "Notification %d (Shop), held for work, is shown now as itself." % nid, r.stdout
    rec = fake_daemon.wait_notify("Parcel delayed")
    assert rec["actions"] == ["track", "Track"]
    fake_daemon.action(rec["daemon_id"], "track")
    assert client.wait_signal("ActionInvoked", nid).args == (nid, "track")
    assert history_of(focusctl, nid)["fate"] == "held-focus → replayed by focusctl show"
    assert fc_json(focusctl, "status", "--json")["counts"]["held-focus"] == 0

    # a past one: shown again from history, under a new ID, without its actions
    r = fc_ok(focusctl, "show", str(past), "--json")
    report = json.loads(r.stdout)
    copy = report["copy"]
    assert report["action"] == "show" and report["ids"] == [past] and copy not in (None, past), report
    assert report["message"] == ("Notification %d (CI) is shown again as notification %d, from history (without "
                                 "its actions and images)." % (past, copy))
    again = fake_daemon.wait_notify("Deploy done", count=2)
    assert (again["app_name"], again["body"], again["app_icon"], again["actions"]) == ("CI", "all green", "ci", [])
    assert again["hints"]["category"] == s("transfer.complete").print_(True)
    assert again["daemon_id"] != first["daemon_id"]
    assert history_of(focusctl, past)["fate"] == "delivered → shown again as %d" % copy
    row = history_of(focusctl, copy)
    assert (row["app"], row["summary"], row["fate"]) == ("CI", "Deploy done", "delivered → copy of %d" % past), row
    # the copy is the bridge's: its close goes to no app
    fake_daemon.closed(again["daemon_id"], 2)
    wait_until(lambda: history_of(focusctl, copy)["closed"], 5)
    assert closed_count(client, copy) == 0 and closed_count(client, past) == 0


# --------------------------------------------------------------------------- bad input
def test_bad_ids_get_one_sentence(focus_bridge, fake_daemon, client, focusctl):
    focus_bridge(WORK)
    for args in (["show", "9999"], ["dismiss", "9999"], ["explain", "9999"]):
        r = fc_fails(focusctl, *args)
        assert one_line(r) == "focusctl: there is no notification 9999 in history (focusctl history lists the IDs).", (args, r.stderr)
    for args in (["show", "x"], ["dismiss", "0"], ["explain", "0"], ["digest", "show-all", "1.5"]):
        r = fc_fails(focusctl, *args)
        assert re.fullmatch(r'focusctl: ID takes a notification ID as focusctl history lists them \(a whole number '
                            r'of 1 or more\), not ".*"\.', one_line(r)), (args, r.stderr)
    r = fc_fails(focusctl, "digest", "show-all", "9999")
    assert one_line(r) == "focusctl: digest 9999 is not open (it stands for no held notification now); no digest is open."
    for args in (["dismiss"], ["dismiss", "-3"]):  # "-3" is taken for an option: no ID given
        r = fc_fails(focusctl, *args, code=64)
        assert r.stderr.splitlines()[0] == ("focusctl: Give the ID of a held notification (a whole number of 1 or more, "
                                            "as focusctl history lists them), or --all-held."), (args, r.stderr)
    r = fc_fails(focusctl, "dismiss", "3", "--all-held", code=64)
    assert r.stderr.splitlines()[0] == "focusctl: Give an ID or --all-held, not both.", r.stderr
    fc_fails(focusctl, "explain", "3", "--app", "Slack", code=64)
    fc_fails(focusctl, "explain", code=64)
    # the bridge is still there and answers
    assert fc_json(focusctl, "status", "--json")["counts"]["held-focus"] == 0


# --------------------------------------------------------------------------- explain ID
def test_explain_id_tells_then_and_now(focus_bridge, fake_daemon, client, focusctl):
    focus_bridge(WORK)
    fc_ok(focusctl, "focus", "on", "work")
    chat = client.notify("Team Lead", "Got a minute?", app="Slack", hints={"category": s("im.received")})
    fake_daemon.wait_notify("Team Lead")
    held = client.notify("Weekly digest", app="Slack")

    report = fc_json(focusctl, "explain", str(chat), "--json")
    assert (report["id"], report["app"], report["app-source"], report["decision"]) == \
        (chat, "Slack", "app_name", "delivered"), report
    then = report["then"]
    assert then["focus"] == "work" and "string:category:im.received" in then["hints"], then
    assert any("Team Lead is allowed" in line for line in then["trace"]), then["trace"]
    assert report["now"]["decision"] == "delivered" and report["now"]["trace"][-1] == "delivery: delivered"
    # what `explain --app` says when the rest is not typed, and that it says what it assumed
    described = fc_ok(focusctl, "explain", "--app", "Slack").stdout
    assert "held-focus" in described and "Assumed (not given):" in described, described
    assert "  - category: none (no --category)" in described, described
    answer = fc_json(focusctl, "explain", "--json", "--app", "Slack", "--category", "im.received", "--summary",
                     "Team Lead", "--focus", "work", "--at", "10:00", "--action", "reply=Reply", "--urgency", "normal")
    assert (answer["decision"], answer["assumed"]) == ("delivered", []), answer
    assert "category: none (no --category)" in fc_json(focusctl, "explain", "--json", "--app", "Slack")["assumed"]

    text = fc_ok(focusctl, "explain", str(held)).stdout
    assert re.search(r"^Then +work was on$", text, re.M), text
    assert re.search(r"^Fate +held-focus$", text, re.M), text
    assert "Why then:" in text and "Now it would be: held-focus, level active" in text, text

    fc_ok(focusctl, "focus", "off")
    report = fc_json(focusctl, "explain", str(held), "--json")
    assert report["then"]["focus"] == "work" and report["decision"] == "held-focus"
    assert report["now"]["decision"] == "delivered", report["now"]
    assert re.fullmatch(r"held-focus → in digest \d+ at \d\d:\d\d", report["fate"]), report["fate"]


# --------------------------------------------------------------------------- the daemon's own pause
@pytest.fixture
def dunst(bridge_factory, xvfb, dunstrc, make_client, bus):
    return Dunst(bridge_factory, xvfb, dunstrc, make_client, bus, "dunst client")


def test_history_marks_what_was_delivered_while_dunst_was_paused(dunst, focusctl):
    c = dunst.client
    wait_until(lambda: c.status()["downstream"]["daemon-dnd"] is not None, 10,
               message="the bridge never read dunst's pause")
    before = c.notify("Before the pause", app="DunstTest")
    dunst.ctl("set-paused", "true")
    wait_until(lambda: c.status()["downstream"]["daemon-dnd"]["on"], 10, message="status never showed dunst paused")
    during = c.notify("While paused", app="DunstTest")
    row = wait_until(lambda: (lambda r: r if r["steps"] else None)(history_of(focusctl, during)), 5)
    assert row["fate"] == "delivered (dunst paused)", row
    assert row["steps"][0]["step"] == "daemon-quiet" and row["steps"][0]["detail"] == "dunst paused"
    assert fate_in_table(focusctl, during) == "delivered (dunst paused)"
    assert history_of(focusctl, before)["fate"].startswith("delivered") and \
        "paused" not in history_of(focusctl, before)["fate"]
    dunst.ctl("set-paused", "false")
    wait_until(lambda: c.status()["downstream"]["daemon-dnd"]["on"] is False, 10, message="status kept dunst paused")
    after = c.notify("After the pause", app="DunstTest")
    settle(c)
    assert "paused" not in history_of(focusctl, after)["fate"]


# --------------------------------------------------------------------------- a state file from before
def test_a_history_row_from_before_is_explained_and_shown_from_what_it_has(bridge_factory, fake_daemon, make_client,
                                                                           focusctl, tmp_path):
    """A state file written by the release before history kept requests and fates (migrations
    up to v5-held-holders): its rows are listed with their decision and end, explained from
    their app, summary and body, and shown again."""
    import sqlite3
    from support.bridge import wait_connected
    folder = tmp_path / "state" / "focus-bridge"
    folder.mkdir(parents=True)
    db = sqlite3.connect(folder / "state.sqlite3")
    # an hour ago: within history-days, ended before anything the bridge does now
    received = int(time.time()) - 3600
    db.executescript("""
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        INSERT INTO grdb_migrations VALUES ('v1'), ('v2-held'), ('v3-no-app-index'), ('v4-history-rowid'),
            ('v5-held-holders');
        CREATE TABLE setting (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
        CREATE TABLE history (row INTEGER PRIMARY KEY, id INTEGER NOT NULL, app TEXT NOT NULL,
            summary TEXT NOT NULL, body TEXT NOT NULL, level TEXT NOT NULL, decision TEXT NOT NULL,
            received DOUBLE NOT NULL, closed DOUBLE, close_reason INTEGER);
        CREATE INDEX history_id ON history(id);
        CREATE TABLE held (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, focus TEXT, app TEXT NOT NULL,
            summary TEXT NOT NULL, body TEXT NOT NULL, level TEXT NOT NULL, relevance DOUBLE NOT NULL,
            received DOUBLE NOT NULL, sender TEXT NOT NULL, pid INTEGER, digest INTEGER,
            payload_type TEXT NOT NULL, payload BLOB NOT NULL, holders TEXT);
        INSERT INTO setting VALUES ('id-high-water', '1024');
        INSERT INTO history (id, app, summary, body, level, decision, received, closed, close_reason) VALUES
            (7, 'Mail', 'Old mail', 'from before', 'active', 'delivered', %d, %d, 2);
    """ % (received, received + 5))
    db.commit()
    db.close()
    bridge_factory()
    wait_connected(make_client("watcher"), 10)
    row = history_of(focusctl, 7)
    assert (row["fate"], row["steps"]) == ("delivered → dismissed", []), row
    report = fc_json(focusctl, "explain", "7", "--json")
    assert report["then"] is None and report["app-source"] is None, report
    assert report["now"]["decision"] == "delivered"
    text = fc_ok(focusctl, "explain", "7").stdout
    assert "Received before focus-bridge kept hints, actions and the Focus of each notification" in text, text
    copy = fc_json(focusctl, "show", "7", "--json")["copy"]
    rec = fake_daemon.wait_notify("Old mail")
    assert (rec["app_name"], rec["body"], rec["actions"]) == ("Mail", "from before", [])
    assert copy > 1024, "the copy's ID comes after the stored high-water mark"
    assert history_of(focusctl, 7)["fate"] == "delivered → dismissed → shown again as %d" % copy


def test_without_a_bridge_each_command_exits_2(focusctl):
    for args in (["show", "1"], ["dismiss", "1"], ["dismiss", "--all-held"], ["digest", "show-all"], ["explain", "1"]):
        r = fc_fails(focusctl, *args, code=2)
        assert one_line(r).startswith("focusctl: focus-bridge is not running on this session bus"), (args, r.stderr)
