"""`--downstream log`: no daemon, one line per notification on stdout (INTERFACES.md)."""

import json
import re

from gi.repository import GLib

from support.waiting import pump_until, wait_until

TEST_TIMEOUT = 30

NOTIFY_RE = re.compile(r"notify id=(\d+) app=")


def parse(line):
    """notify id=<ID> app=<JSON> level=<level> summary=<JSON> body=<JSON> | close id=<ID>"""
    m = re.fullmatch(r"close id=(\d+)", line)
    if m:
        return {"kind": "close", "id": int(m.group(1))}
    m = NOTIFY_RE.match(line)
    assert m, "not a log-mode line: %r" % line
    dec = json.JSONDecoder()
    out = {"kind": "notify", "id": int(m.group(1))}
    pos = m.end()
    out["app"], pos = dec.raw_decode(line, pos)
    m = re.compile(r" level=(\S+) summary=").match(line, pos)
    assert m, "bad level/summary part: %r" % line[pos:]
    out["level"] = m.group(1)
    out["summary"], pos = dec.raw_decode(line, m.end())
    assert line.startswith(" body=", pos), "bad body part: %r" % line[pos:]
    out["body"], pos = dec.raw_decode(line, pos + len(" body="))
    assert pos == len(line), "trailing text: %r" % line[pos:]
    return out


def next_event(bridge, kind, nid, timeout=5):
    line = bridge.out.wait_for(lambda l: l.startswith(kind + " id=%d" % nid) and
                               (l[len(kind + " id=%d" % nid):][:1] in ("", " ")), timeout)
    assert line is not None, "no %r line for id %d on stdout; stdout so far: %r" % (kind, nid, bridge.out.lines)
    return parse(line)


def test_each_notification_is_one_line(bridge_factory, client):
    b = bridge_factory("log")
    summary = 'Quote " backslash \\ tab\t and ünïcode ✓'
    body = "two\nlines <b>bold</b>"
    nid = client.notify(summary, body, app="Log App")
    ev = next_event(b, "notify", nid)
    assert ev == {"kind": "notify", "id": nid, "app": "Log App", "level": "active",
                  "summary": summary, "body": body}


def test_history_says_logged_not_delivered(bridge_factory, client, focusctl):
    """What only the log printed was shown by no daemon: its fate is `logged` (focusctl(1),
    history); the decision to deliver it stays the policy's."""
    b = bridge_factory("log")
    nid = client.notify("printed only", app="Log App")
    next_event(b, "notify", nid)
    row = wait_until(lambda: next((r for r in client.history(0, "") if r["id"] == nid and r["steps"]), None), 5,
                     message="history never noted that notification %d was only logged" % nid)
    assert row["fate"] == "logged" and row["decision"] == "delivered", row
    assert [s["step"] for s in row["steps"]] == ["logged"], row
    table = focusctl("history", "--limit", "1")
    assert table.returncode == 0 and re.search(r"\bactive\s+logged\s+printed only$", table.stdout, re.M), table.stdout
    assert "delivered" not in table.stdout, table.stdout


def test_close_is_logged(bridge_factory, client):
    b = bridge_factory("log")
    nid = client.notify("closable")
    next_event(b, "notify", nid)
    client.close(nid)
    assert next_event(b, "close", nid) == {"kind": "close", "id": nid}


def test_levels_follow_urgency(bridge_factory, client):
    """focus-bridge.toml(5), INTERRUPTION LEVELS: urgency 0 → passive, 2 → time-sensitive (critical needs an
    entitlement), none → active; any integer type is accepted (Chromium sends `u`)."""
    b = bridge_factory("log")
    cases = [
        ({}, "active"),
        ({"urgency": GLib.Variant("y", 0)}, "passive"),
        ({"urgency": GLib.Variant("y", 1)}, "active"),
        ({"urgency": GLib.Variant("y", 2)}, "time-sensitive"),
        ({"urgency": GLib.Variant("u", 2)}, "time-sensitive"),
        ({"urgency": GLib.Variant("i", 0)}, "passive"),
    ]
    for i, (hints, level) in enumerate(cases):
        nid = client.notify("level case %d" % i, hints=hints, app="Leveller")
        got = next_event(b, "notify", nid)["level"]
        assert got == level, "case %d %r: level %s, expected %s" % (i, hints, got, level)


def test_log_mode_capabilities_and_status(bridge_factory, client):
    bridge_factory("log")
    assert client.capabilities() == ["body"]
    st = client.status()
    assert st["downstream"]["mode"] == "log"
    assert client.server_information()[0] == "FocusBridge"


def test_log_mode_many_lines_every_one_accounted_for(bridge_factory, client):
    """50 at once from one app: each is a line of its own, or — past the flood limit —
    counted in the app's one "N more from App" notification (docs/BENCHMARKS.md)."""
    b = bridge_factory("log")
    ids = [client.notify("line %d" % i, app="Chatty") for i in range(50)]
    assert len(set(ids)) == 50 and 0 not in ids
    own, more = set(), 0

    def accounted():
        nonlocal own, more
        own, more = set(), 0
        for line in list(b.out.lines):
            ev = parse(line)
            if ev["kind"] != "notify":
                continue
            m = re.fullmatch(r"(\d+) more from Chatty", ev["summary"])
            if m:
                more = max(more, int(m.group(1)))
            elif ev["id"] in ids:
                assert ev["summary"] == "line %d" % ids.index(ev["id"]), ev
                own.add(ev["id"])
        return len(own) + more == 50

    assert pump_until(accounted, 10), "%d own lines + %d in 'more from' != 50; stdout: %r" % (
        len(own), more, b.out.lines[-5:])
    first = sorted(own)[:10]
    assert first == ids[:10], "the first notifications of a burst must be shown as themselves"
