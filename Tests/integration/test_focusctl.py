"""focusctl against a running bridge (INTERFACES.md, "Control interface" and "focusctl"),
run as a person types it: what each command says, compared with focusctl(1)."""

import json
import re
import socket
import subprocess
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from support.bridge import wait_connected
from support.focus import assert_not_forwarded, byte, far_time
from support.focusctl import decisions, fc_json, fc_ok, status
from support.processes import FOCUSCTL_BIN, session_env
from support.waiting import wait_until

TEST_TIMEOUT = 30

COUNT_KEYS = {"received", "delivered", "queued", "in-flight", "held-focus", "held-summary"}
ENTRY_KEYS = {"id", "app", "summary", "body", "level", "decision", "received", "closed", "close-reason"}


def test_status_json(bridge, fake_daemon, client, focusctl):
    wait_connected(client)
    for i in range(3):
        client.notify("counted %d" % i)
    fake_daemon.wait_notify("counted 2")
    st = wait_until(lambda: (lambda s: s if s["counts"]["delivered"] == 3 else None)(fc_json(focusctl, "status", "--json")),
                    5, message="status never counted 3 delivered")
    assert {"version", "downstream", "counts"} <= set(st)
    assert {"mode", "target", "connected"} <= set(st["downstream"])
    assert st["downstream"]["mode"] == "address" and st["downstream"]["connected"] is True
    assert isinstance(st["downstream"]["target"], str)
    assert COUNT_KEYS <= set(st["counts"]), sorted(st["counts"])
    assert all(isinstance(st["counts"][k], int) for k in COUNT_KEYS)
    assert st["counts"]["received"] == 3
    assert st["downstream"]["daemon"]["version"] == client.server_information()[2]
    assert st["version"]
    assert st["counts"] == client.status()["counts"]


def test_status_human(bridge, focusctl):
    r = focusctl("status")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip(), "empty human status"
    assert "address" in r.stdout


def test_history_json_limit_and_app_filter(bridge, fake_daemon, make_client, focusctl):
    a, b = make_client("a"), make_client("b")
    a_ids = [a.notify("A%d" % i, "body A%d" % i, app="AppA") for i in range(3)]
    b_ids = [b.notify("B%d" % i, app="AppB") for i in range(2)]
    fake_daemon.wait_notify("B1")

    rows = fc_json(focusctl, "history", "--json", "--limit", "2", "--app", "appa")
    assert [r["id"] for r in rows] == [a_ids[2], a_ids[1]], rows       # newest first, case-insensitive
    assert all(r["app"] == "AppA" for r in rows)
    row = rows[0]
    assert ENTRY_KEYS <= set(row), sorted(row)
    assert (row["summary"], row["body"], row["level"], row["decision"]) == ("A2", "body A2", "active", "delivered")
    assert row["closed"] is None and row["close-reason"] is None
    datetime.fromisoformat(row["received"].replace("Z", "+00:00"))

    rows = fc_json(focusctl, "history", "--json", "--app", "AppB")
    assert [r["id"] for r in rows] == b_ids[::-1]
    rows = fc_json(focusctl, "history", "--json")
    assert [r["id"] for r in rows][:5] == sorted(a_ids + b_ids, reverse=True)
    assert [r["id"] for r in rows] == [r["id"] for r in a.history(0, "")]  # focusctl shows the control interface's data


def test_history_records_the_close(bridge, fake_daemon, client, focusctl):
    nid = client.notify("closed later", app="Closer")
    fake_daemon.wait_notify("closed later")
    client.close(nid)
    client.wait_signal("NotificationClosed", nid)
    row = wait_until(lambda: [r for r in fc_json(focusctl, "history", "--json", "--app", "Closer")
                              if r["id"] == nid and r["closed"] is not None], 5,
                     message="history never showed the notification closed")[0]
    assert row["close-reason"] == 3


def test_history_human(bridge, client, focusctl):
    client.notify("visible in history", app="Humane")
    r = wait_until(lambda: (lambda r: r if "visible in history" in r.stdout else None)(focusctl("history")), 5,
                   message="human history does not list the summary")
    assert r.returncode == 0


def test_history_times_are_local_in_the_zone_tz_names(bridge, client, focusctl, bus):
    """focusctl reads the time zone as the daemon does (TZ, else /etc/localtime): a row's time is
    its UTC timestamp in that zone, half-hour and quarter-hour offsets included."""
    nid = client.notify("what time is it", app="Clock")
    row = wait_until(lambda: [r for r in fc_json(focusctl, "history", "--json") if r["id"] == nid], 5,
                     message="history never listed the notification")[0]
    received = datetime.fromisoformat(row["received"].replace("Z", "+00:00"))
    for zone in ("UTC", "Asia/Kathmandu", "America/St_Johns"):
        r = focusctl("history", env_override=session_env(bus.address, TZ=zone))
        (line,) = [l for l in r.stdout.splitlines() if "what time is it" in l]
        expected = received.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M:%S")
        assert expected in line, "TZ=%s: %r has not %s" % (zone, line, expected)


def test_no_bridge_exit_2_one_line(bus, focusctl):
    for args in (["status"], ["status", "--json"], ["history", "--json"]):
        r = focusctl(*args)
        assert r.returncode == 2, "focusctl %s: exit %d" % (" ".join(args), r.returncode)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, "expected one line on stderr, got %r" % r.stderr
        assert lines[0].startswith("focusctl:") and "not running" in lines[0], lines[0]
        assert r.stdout == ""


# --------------------------------------------------------------------------- what each command says
WORK = """
[focus.work]
apps = ["Mail"]
"""

UNTIL = r"(?:[A-Z][a-z]{2} )?\d\d:\d\d"   # LocalTime: 17:30 today, Mon 08:00 another day


def one_line(r):
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, "expected one line on stderr, got %r" % r.stderr
    return lines[0]


def test_focus_on_and_off_say_what_they_did(focus_bridge, fake_daemon, client, focusctl, marker):
    focus_bridge(WORK)
    r = fc_ok(focusctl, "focus", "on", "work", "--for", "30m")
    assert re.fullmatch(r"work is on until %s\.\n" % UNTIL, r.stdout), r.stdout
    for i in range(3):
        client.notify("held %d" % i, app="Shop")
    assert_not_forwarded(fake_daemon, marker, "held 0", "held 1", "held 2")
    r = fc_ok(focusctl, "focus", "off")
    assert r.stdout == "work is off; 3 held notifications were delivered in a digest.\n", r.stdout
    fake_daemon.wait_notify("While work was on")
    r = fc_ok(focusctl, "focus", "off")
    assert r.stdout == "No Focus was on.\n", r.stdout

    # --json: the status keys and "ended" (focusctl(1), JSON OUTPUT, focus on, focus off)
    on = json.loads(fc_ok(focusctl, "focus", "on", "work", "--json").stdout)
    assert on["ended"] is None and on["focus"]["name"] == "work" and on["focus"]["until"] is None, on
    assert {"version", "silent", "downstream", "counts"} <= set(on), sorted(on)
    client.notify("one more", app="Shop")
    wait_until(lambda: json.loads(fc_ok(focusctl, "status", "--json").stdout)["counts"]["held-focus"] == 1, 5)
    off = json.loads(fc_ok(focusctl, "focus", "off", "--json").stdout)
    assert off["ended"] == {"name": "work", "held": 1, "after-focus": "digest"}, off
    assert off["focus"] is None
    off = json.loads(fc_ok(focusctl, "focus", "off", "--json").stdout)
    assert off["ended"] is None


def test_focus_off_with_replay_and_none(focus_bridge, client, focusctl, fake_daemon, marker):
    focus_bridge(WORK + '\n[general]\nafter-focus = "replay"\n')
    fc_ok(focusctl, "focus", "on", "work")
    client.notify("replayed", app="Shop")
    assert_not_forwarded(fake_daemon, marker, "replayed")
    assert fc_ok(focusctl, "focus", "off").stdout == "work is off; 1 held notification was delivered again, one by one.\n"
    fake_daemon.wait_notify("replayed")
    fc_ok(focusctl, "focus", "on", "work")
    assert fc_ok(focusctl, "focus", "off").stdout == "work is off; it held no notifications.\n"


def test_switching_focus_says_what_the_first_held(focus_bridge, client, focusctl, fake_daemon, marker):
    focus_bridge(WORK)
    fc_ok(focusctl, "focus", "on", "work")
    client.notify("kept for work", app="Shop")
    assert_not_forwarded(fake_daemon, marker, "kept for work")
    r = fc_ok(focusctl, "dnd", "on", "--for", "1h")
    lines = r.stdout.splitlines()
    assert lines[0] == "work is off; 1 held notification was delivered in a digest.", r.stdout
    assert re.fullmatch(r"dnd is on until %s\." % UNTIL, lines[1]), r.stdout


def test_silent_says_the_state(bridge, focusctl):
    r = fc_ok(focusctl, "silent")
    assert r.stdout == "Silent mode is off: notifications make their sounds.\n", r.stdout
    assert json.loads(fc_ok(focusctl, "silent", "--json").stdout) == {"silent": False}
    r = fc_ok(focusctl, "silent", "on")
    assert r.stdout == "Silent mode is on: no notification makes a sound but critical ones.\n", r.stdout
    assert json.loads(fc_ok(focusctl, "silent", "--json").stdout) == {"silent": True}
    assert json.loads(fc_ok(focusctl, "silent", "toggle", "--json").stdout) == {"silent": False}
    assert fc_ok(focusctl, "silent").stdout.startswith("Silent mode is off")


def test_summary_deliver_says_how_many(focus_bridge, client, focusctl, fake_daemon):
    focus_bridge('[summary]\ntimes = ["%s"]\n[apps."news"]\ndelivery = "summary"\n' % far_time())
    for i in range(2):
        client.notify("story %d" % i, app="news")
    wait_until(lambda: json.loads(fc_ok(focusctl, "status", "--json").stdout)["counts"]["held-summary"] == 2, 5)
    r = fc_ok(focusctl, "summary", "deliver")
    assert r.stdout == "Summary delivered: 2 notifications in one notification.\n", r.stdout
    r = fc_ok(focusctl, "summary", "deliver")
    assert r.stdout == "Nothing was held for the summary; nothing was delivered.\n", r.stdout
    assert json.loads(fc_ok(focusctl, "summary", "deliver", "--json").stdout) == {"delivered": 0}


def test_reload_says_it_reloaded(focus_bridge, focusctl):
    focus_bridge(WORK)
    r = fc_ok(focusctl, "reload")
    assert r.stdout == "Configuration reloaded; Focus profiles: work, dnd (built in).\n", r.stdout
    assert json.loads(fc_ok(focusctl, "reload", "--json").stdout) == {"reloaded": True, "focuses": ["work", "dnd"]}


# --------------------------------------------------------------------------- dnd
def test_dnd_holds_everything_below_time_sensitive(focus_bridge, client, focusctl, fake_daemon, marker):
    focus_bridge(WORK)
    rows = {f["name"]: f for f in json.loads(fc_ok(focusctl, "focus", "list", "--json").stdout)}
    dnd = rows["dnd"]
    assert dnd["built-in"] is True and dnd["apps"] == [] and dnd["people"] == [] and dnd["time-sensitive"] is True, dnd
    assert "dnd" in fc_ok(focusctl, "focus", "list").stdout

    r = fc_ok(focusctl, "dnd", "on", "--until", "23:59")
    assert re.fullmatch(r"dnd is on until %s\.\n" % UNTIL, r.stdout), r.stdout
    mail = client.notify("mail in dnd", app="Mail")            # allowed by work, not by dnd
    shop = client.notify("shop in dnd", app="Shop")
    urgent = client.notify("urgent in dnd", app="Shop", hints={"urgency": byte(2)})   # time-sensitive
    fake_daemon.wait_notify("urgent in dnd")
    marker()                                                   # critical
    assert_not_forwarded(fake_daemon, marker, "mail in dnd", "shop in dnd")
    assert decisions(focusctl, [mail, shop, urgent]) == {mail: "held-focus", shop: "held-focus", urgent: "delivered"}

    r = fc_ok(focusctl, "dnd", "off")
    assert r.stdout == "dnd is off; 2 held notifications were delivered in a digest.\n", r.stdout
    fc_ok(focusctl, "focus", "on", "work")
    r = fc_ok(focusctl, "dnd", "off")
    assert r.stdout == "Do Not Disturb was not on (work is on; focusctl focus off ends it).\n", r.stdout
    assert json.loads(fc_ok(focusctl, "status", "--json").stdout)["focus"]["name"] == "work"


def test_a_dnd_table_replaces_the_built_in(focus_bridge, client, focusctl, fake_daemon, marker):
    focus_bridge('[focus.dnd]\napps = ["Shop"]\n')
    (dnd,) = [f for f in json.loads(fc_ok(focusctl, "focus", "list", "--json").stdout) if f["name"] == "dnd"]
    assert dnd["built-in"] is False and dnd["apps"] == ["Shop"], dnd
    fc_ok(focusctl, "dnd", "on")
    client.notify("shop allowed", app="Shop")
    fake_daemon.wait_notify("shop allowed")


def test_focus_alone_shows_the_focus_that_is_on(focus_bridge, focusctl):
    focus_bridge(WORK)
    r = fc_ok(focusctl, "focus")
    assert r.stdout.strip() == "No Focus is on.", r.stdout
    assert fc_ok(focusctl, "focus", "--json").stdout.strip() == "null"
    fc_ok(focusctl, "focus", "on", "work", "--for", "1h")
    r = fc_ok(focusctl, "focus")
    assert re.fullmatch(r"work is on until %s \(manual\)\." % UNTIL, r.stdout.strip()), r.stdout
    shown = json.loads(fc_ok(focusctl, "focus", "show", "--json").stdout)
    assert shown == status(focusctl)["focus"] and shown["name"] == "work", shown


# --------------------------------------------------------------------------- mistakes
def test_misspelt_command_gets_a_suggestion(bus, focusctl):
    for args, line in [(["stauts"], "focusctl: unknown command 'stauts'; did you mean 'status'?"),
                       (["focus", "onn", "work"], "focusctl focus: unknown command 'onn'; did you mean 'on'?"),
                       (["summary", "delivr"], "focusctl summary: unknown command 'delivr'; did you mean 'deliver'?"),
                       (["xyzzy"], "focusctl: unknown command 'xyzzy'; focusctl --help lists them.")]:
        r = focusctl(*args)
        assert r.returncode == 64 and r.stdout == "", (args, r.returncode, r.stdout)
        assert one_line(r) == line


def test_misspelt_focus_gets_the_closest_name(focus_bridge, focusctl):
    focus_bridge(WORK)
    r = focusctl("focus", "on", "wrok")
    assert r.returncode == 1, r
    assert one_line(r) == 'focusctl: there is no Focus named "wrok"; did you mean \'work\'? (known: work, dnd).'
    r = focusctl("explain", "--app", "Shop", "--focus", "wrok")
    assert r.returncode == 1 and "did you mean 'work'?" in r.stderr, r.stderr


def test_bad_numbers_get_one_sentence(bridge, focusctl):
    for value in ["-1", "0", "abc", "1.5"]:
        r = focusctl("history", "--limit", value)
        assert r.returncode == 1, (value, r.returncode, r.stderr)
        assert one_line(r) == 'focusctl: --limit takes a whole number of 1 or more, not "%s".' % value
    assert fc_ok(focusctl, "history", "--limit", "3").returncode == 0
    for args, line in [(["focus", "on", "work", "--for", "-5m"],
                        'focusctl: --for takes a duration such as 90m, 1h30m or 2h, not "-5m".'),
                       (["dnd", "on", "--until", "-1"], 'focusctl: --until takes a time of day as HH:MM, not "-1".')]:
        r = focusctl(*args)
        assert r.returncode == 1 and one_line(r) == line, (args, r.returncode, r.stderr)


def help_paths(path=()):
    out = subprocess.run([FOCUSCTL_BIN, *path, "--help"], capture_output=True, text=True, timeout=30).stdout
    yield path, out
    section = re.search(r"^SUBCOMMANDS:\n(.*?)(?:\n\n|\Z)", out, re.S | re.M)
    for name in re.findall(r"^  ([a-z][a-z-]*)", section.group(1), re.M) if section else []:
        if name != "help":
            yield from help_paths(path + (name,))


def test_help_says_each_default_once():
    seen = 0
    for path, out in help_paths():
        seen += 1
        for line in re.split(r"\n(?=  -|  [a-z])", out):
            assert len(re.findall(r"\(default", line)) <= 1, "%s: %s" % (" ".join(path), line)
    assert seen > 10
    silent = subprocess.run([FOCUSCTL_BIN, "silent", "--help"], capture_output=True, text=True).stdout
    dnd = subprocess.run([FOCUSCTL_BIN, "dnd", "--help"], capture_output=True, text=True).stdout
    assert "Ring/Silent" in silent and "sounds off" in silent
    assert "nothing below time-sensitive" in dnd


def test_not_running_names_the_installed_way_to_start(bus, tmp_path):
    """The unit where a user systemd manager runs the session and has it; the program itself
    everywhere else, also where the unit is installed but no manager runs (a window manager
    started by startx): `systemctl --user` has nothing to talk to there."""
    home = tmp_path / "home"
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = session_env(bus.address, HOME=home, XDG_DATA_DIRS=tmp_path / "none", XDG_RUNTIME_DIR=runtime)
    for key in ("XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        env.pop(key, None)
    system_unit = [p for p in ("/etc/systemd/user", "/usr/local/lib/systemd/user", "/usr/lib/systemd/user",
                               "/lib/systemd/user") if Path(p, "focus-bridge.service").exists()]
    r = subprocess.run([FOCUSCTL_BIN, "status"], env=env, capture_output=True, text=True, timeout=15)
    assert r.returncode == 2
    if not system_unit:
        assert one_line(r) == "focusctl: focus-bridge is not running on this session bus (start it with 'focus-bridge &')."
    unit = home / ".local/share/systemd/user/focus-bridge.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("[Unit]\n")
    r = subprocess.run([FOCUSCTL_BIN, "status"], env=env, capture_output=True, text=True, timeout=15)
    assert r.returncode == 2
    assert one_line(r) == "focusctl: focus-bridge is not running on this session bus (start it with 'focus-bridge &')."
    # A user manager listens: its socket in the runtime folder.
    (runtime / "systemd").mkdir()
    manager = socket.socket(socket.AF_UNIX)
    manager.bind(str(runtime / "systemd" / "private"))
    try:
        r = subprocess.run([FOCUSCTL_BIN, "status"], env=env, capture_output=True, text=True, timeout=15)
    finally:
        manager.close()
    assert r.returncode == 2
    assert one_line(r) == ("focusctl: focus-bridge is not running on this session bus "
                           "(start it with 'systemctl --user start focus-bridge').")
    assert "make run" not in r.stderr


def test_a_signal_ends_focusctl_while_the_bridge_does_not_answer(bus, tmp_path):
    """The control name is owned by a process that never answers (stopped): focusctl waits for
    its reply (10 s), and SIGTERM ends it at once, as before the sd-bus layer held signals
    during its waits (only signals with a handler are held; SIGTERM here has none)."""
    import os
    import signal
    import sys
    import time
    from gi.repository import Gio, GLib
    owner_code = ("import time\nfrom gi.repository import Gio, GLib\n"
                  "c = Gio.DBusConnection.new_for_address_sync(%r, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT"
                  " | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)\n"
                  "c.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'RequestName',"
                  " GLib.Variant('(su)', ('org.focusbridge.FocusBridge', 4)), None, 0, -1, None)\n"
                  "print('owned', flush=True)\ntime.sleep(60)\n") % bus.address
    owner = subprocess.Popen([sys.executable, "-c", owner_code], stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout.readline().strip() == "owned"
        os.kill(owner.pid, signal.SIGSTOP)
        watcher = Gio.DBusConnection.new_for_address_sync(
            bus.address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)
        env = session_env(bus.address)
        client = subprocess.Popen([FOCUSCTL_BIN, "status"], env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)

        def waiting_for_the_reply():  # its connection is on the bus: the call is out
            names = watcher.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                      "ListNames", None, None, 0, -1, None)[0]
            return len([n for n in names if n.startswith(":")]) >= 3  # the owner, the watcher, focusctl
        wait_until(waiting_for_the_reply, 5, message="focusctl did not connect")
        time.sleep(0.3)  # no signal marks "now in its wait"; the reply would take 10 s
        sent = time.monotonic()
        client.send_signal(signal.SIGTERM)
        rc = client.wait(15)
        assert rc == -signal.SIGTERM and time.monotonic() - sent < 3, \
            "focusctl ended %.1f s after SIGTERM (rc %r)" % (time.monotonic() - sent, rc)
    finally:
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait()


# --------------------------------------------------------------------------- text, not terminal commands
EVIL_APP = "Mail\x1b]0;owned\x07\rX"
EVIL_SUMMARY = "Hi\x1b]52;c;cHduZWQ=\x07\rover\nwritten\x1b[2J\x9b2J\x7f"
# every control character but the line ends and tabs of focusctl's own layout
RAW_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def test_what_focusctl_prints_is_text_not_terminal_commands(focus_bridge, client, focusctl, fake_daemon):
    """An app name and a summary with ESC ] 0 (window title), OSC 52 (clipboard), CR and a
    newline: every human output shows them escaped (focusctl(1), TEXT FROM OUTSIDE), one row
    stays one line, and --json keeps the text itself."""
    b = focus_bridge('[summary]\ntimes = ["%s"]\n[apps."news"]\ndelivery = "summary"\n' % far_time())
    shown = client.notify(EVIL_SUMMARY, "body\x1b[31m", app=EVIL_APP)
    held = client.notify(EVIL_SUMMARY, app="news")
    wait_until(lambda: json.loads(fc_ok(focusctl, "status", "--json").stdout)["counts"]["held-summary"] == 1, 5)
    outputs = {}
    for args in [("history",), ("apps",), ("app", EVIL_APP), ("explain", str(shown)), ("explain", str(held)),
                 ("summary",), ("status",), ("explain", "--app", EVIL_APP, "--summary", EVIL_SUMMARY),
                 ("show", str(held))]:
        r = fc_ok(focusctl, *args)
        outputs[args] = r.stdout
        assert not RAW_CONTROLS.search(r.stdout + r.stderr), "focusctl %s printed raw: %r" % (args, r.stdout)
    history = outputs[("history",)]
    assert "Mail\\e]0;owned\\x07\\rX" in history and "Hi\\e]52;c;cHduZWQ=\\x07\\rover written\\e[2J\\x9b2J\\x7f" in history, history
    assert len(history.splitlines()) == 3, "a row was broken in two:\n" + history
    assert "Mail\\e]0;owned\\x07\\rX" in outputs[("apps",)]
    assert "\\e]52;c;" in outputs[("explain", str(shown))] and "\\e]52;c;" in outputs[("summary",)]
    # an error naming what was sent is a sentence too
    r = focusctl("app", "Nope\x1b]0;x\x07", "reset")
    assert not RAW_CONTROLS.search(r.stdout + r.stderr), repr(r.stderr)
    # JSON keeps the text (escaped by JSON itself)
    rows = json.loads(fc_ok(focusctl, "history", "--json").stdout)
    assert {r["app"] for r in rows} >= {EVIL_APP} and EVIL_SUMMARY in {r["summary"] for r in rows}
    # nor does the bridge's log carry them raw (the app's choices, mutes and sentences name it)
    fc_ok(focusctl, "mute", EVIL_APP, "--for", "1h")
    fc_ok(focusctl, "unmute", EVIL_APP)
    log = b.stderr()
    assert "Mail\\e]0;owned\\x07\\rX muted until" in log, log
    assert not RAW_CONTROLS.search(log), repr(log)
