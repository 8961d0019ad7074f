"""focusctl against a running bridge (INTERFACES.md, "Control interface" and "focusctl")."""

import json
from datetime import datetime

from conftest import wait_connected, wait_until

TEST_TIMEOUT = 30

COUNT_KEYS = {"received", "delivered", "queued", "in-flight", "held-focus", "held-summary"}
ENTRY_KEYS = {"id", "app", "summary", "body", "level", "decision", "received", "closed", "close-reason"}


def fc_json(focusctl, *args):
    r = focusctl(*args)
    assert r.returncode == 0, "focusctl %s: exit %d, %s" % (" ".join(args), r.returncode, r.stderr)
    return json.loads(r.stdout)


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


def test_no_bridge_exit_2_one_line(bus, focusctl):
    for args in (["status"], ["status", "--json"], ["history", "--json"]):
        r = focusctl(*args)
        assert r.returncode == 2, "focusctl %s: exit %d" % (" ".join(args), r.returncode)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, "expected one line on stderr, got %r" % r.stderr
        assert lines[0].startswith("focusctl:") and "not running" in lines[0], lines[0]
        assert r.stdout == ""
