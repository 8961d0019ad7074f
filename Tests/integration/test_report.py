"""What became of each notification, and the report of what interrupted you (focusctl(1),
history's `outcome`, REPORT): through the real bridge, real clients (notify-send, gdbus, a GDBus
client) and the recording fake daemon, which acts, dismisses and expires as a person and a
daemon would; the report's JSON, its words, its suggestions and the commands they name, and its
picture (SVG, read back as XML and drawn once as pixels by librsvg)."""

import datetime
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
import zoneinfo

import pytest

from support.focus import byte
from support.focusctl import fc_json, fc_ok, history_of
from support.processes import run, session_env
from support.screens import Shot
from support.waiting import wait_until

TEST_TIMEOUT = 60

MUTE = "x-focus-quick.mute-hour"
OUTCOMES = {"acted", "dismissed", "expired", "closed-by-app", "open", "replaced"}
SVG = "{http://www.w3.org/2000/svg}"


def shown(client, fake_daemon, summary, **kw):
    """Sends a notification through the bridge; its bridge ID and the daemon's."""
    nid = client.notify(summary, **kw)
    return nid, fake_daemon.wait_notify(summary)["daemon_id"]


def notify_send(bus, *args):
    r = run(["notify-send", "-p", *args], session_env(bus.address))
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip())


def outcome_of(focusctl, nid, wanted):
    """The outcome history gives `nid`, once it is `wanted` (the bridge notes an action with its
    next write)."""
    wait_until(lambda: history_of(focusctl, nid)["outcome"] == wanted, 10,
               message="notification %d never had the outcome %r: %r" % (nid, wanted, history_of(focusctl, nid)))
    return wanted


def report(focusctl, *args):
    return fc_json(focusctl, "report", "--json", *args)


def app_of(rep, name):
    apps = [a for a in rep["apps"] if a["app"] == name]
    assert apps, "the report does not list %s: %r" % (name, [a["app"] for a in rep["apps"]])
    return apps[0]


def fails_in_one_sentence(focusctl, *args):
    r = focusctl(*args)
    assert r.returncode == 1, "focusctl %s: exit %d\n%s%s" % (" ".join(args), r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and r.stdout == "", "not one sentence: %r %r" % (r.stdout, r.stderr)
    return lines[0]


# --------------------------------------------------------------------------- outcomes
def test_each_outcome_is_kept_in_history_and_counted_in_the_report(bridge, fake_daemon, client, bus, focusctl):
    # Acted on: the app's default action (the daemon then closes it as dismissed, as dunst does).
    acted, did = shown(client, fake_daemon, "New message", app="Chat", actions=["default", "", "reply", "Reply"])
    fake_daemon.action(did, "default")
    client.wait_signal("ActionInvoked", acted)
    fake_daemon.closed(did, 2)
    client.wait_signal("NotificationClosed", acted)

    # Dismissed and expired, from notify-send.
    dismissed = notify_send(bus, "-a", "Chat", "Dismiss me")
    fake_daemon.closed(fake_daemon.wait_notify("Dismiss me")["daemon_id"], 2)
    expired = notify_send(bus, "-a", "Chat", "Let me expire")
    fake_daemon.closed(fake_daemon.wait_notify("Let me expire")["daemon_id"], 1)

    # Taken back by the app: its ID closed by gdbus from another process, as a script does.
    taken = notify_send(bus, "-a", "Chat", "Taken back")
    fake_daemon.wait_notify("Taken back")
    r = run(["gdbus", "call", "--address", bus.address, "--dest", "org.freedesktop.Notifications",
             "--object-path", "/org/freedesktop/Notifications",
             "--method", "org.freedesktop.Notifications.CloseNotification", str(taken)], session_env(bus.address))
    assert r.returncode == 0, r.stderr

    # A quick action is the bridge's, not the app's: dismissed.
    quick, did = shown(client, fake_daemon, "Promo", app="Chat", actions=["open", "Open"])
    fake_daemon.action(did, MUTE)
    client.wait_signal("NotificationClosed", quick)
    fc_ok(focusctl, "unmute", "Chat")

    # Replaced by its app: the older row is replaced, the newer one is on screen still.
    first = notify_send(bus, "-a", "Chat", "Upload 10%")
    fake_daemon.wait_notify("Upload 10%")
    again = notify_send(bus, "-a", "Chat", "-r", str(first), "Upload 90%")
    assert again == first
    fake_daemon.wait_notify("Upload 90%")

    expected = {acted: "acted", dismissed: "dismissed", expired: "expired", taken: "closed-by-app",
                quick: "dismissed"}
    for nid, outcome in expected.items():
        outcome_of(focusctl, nid, outcome)
    rows = [r for r in fc_json(focusctl, "history", "--json", "--limit", "100") if r["id"] == first]
    assert [r["outcome"] for r in rows] == ["open", "replaced"], rows
    for row in fc_json(focusctl, "history", "--json"):
        assert row["outcome"] in OUTCOMES | {None}, row

    rep = report(focusctl)
    chat = app_of(rep, "Chat")
    assert chat["outcomes"] == {"acted": 1, "dismissed": 2, "expired": 1, "closed-by-app": 1, "open": 1,
                                "replaced": 1}, chat
    assert chat["total"] == 7 and chat["decisions"]["delivered"] == 7, chat
    assert set(chat["levels"]) == {"passive", "active", "time-sensitive", "critical"}, chat["levels"]
    assert len(chat["by-hour"]) == 24 and sum(chat["by-hour"]) == 7, chat["by-hour"]
    assert rep["totals"]["total"] == sum(a["total"] for a in rep["apps"]) + rep["unlisted"]
    assert rep["days"] == 7 and rep["suggestions"] == [], rep["suggestions"]


def test_outcomes_through_real_dunst(dunst, focusctl):
    """dunst 1.9 behind the bridge: its action from dunstctl, its close, its own expiry."""
    c = dunst.client

    def on_screen(summary):
        wait_until(lambda: dunst.displayed() == 1, 10, message="dunst never showed %r" % summary)

    acted = c.notify("Build failed", app="CI", actions=["default", "Open"])
    on_screen("Build failed")
    dunst.ctl("action", "0")
    c.wait_signal("ActionInvoked", acted, timeout=10)
    dunst.ctl("close")  # dunst leaves it up after the action; closed now, it was still acted on
    c.wait_signal("NotificationClosed", acted, timeout=10)
    dismissed = c.notify("Build passed", app="CI")
    on_screen("Build passed")
    dunst.ctl("close")
    c.wait_signal("NotificationClosed", dismissed, timeout=10)
    expired = c.notify("Build queued", app="CI", timeout=500)
    assert c.wait_signal("NotificationClosed", expired, timeout=10).args == (expired, 1)

    for nid, outcome in [(acted, "acted"), (dismissed, "dismissed"), (expired, "expired")]:
        outcome_of(focusctl, nid, outcome)
    ci = app_of(report(focusctl), "CI")["outcomes"]
    assert (ci["acted"], ci["dismissed"], ci["expired"], ci["open"]) == (1, 1, 1, 0), ci


def test_an_outcome_is_only_for_what_was_shown(focus_bridge, fake_daemon, client, focusctl):
    focus_bridge("[focus.work]\napps = [\"Mail\"]\n")
    fc_ok(focusctl, "focus", "on", "work")
    held = client.notify("Held back", app="Shop")
    fc_ok(focusctl, "mute", "Shop", "--new")
    muted = client.notify("Muted", app="Shop")
    assert history_of(focusctl, held)["outcome"] is None
    assert history_of(focusctl, muted)["outcome"] is None
    shop = app_of(report(focusctl), "Shop")
    assert shop["decisions"]["held-focus"] == 1 and shop["decisions"]["muted"] == 1, shop
    assert sum(shop["outcomes"].values()) == 0, shop["outcomes"]

    # Once replayed as itself it was shown: its outcome is what the person does then.
    fc_ok(focusctl, "show", str(held))
    did = fake_daemon.wait_notify("Held back")["daemon_id"]
    outcome_of(focusctl, held, "open")
    fake_daemon.closed(did, 1)
    outcome_of(focusctl, held, "expired")


def test_hours_are_the_daemons_local_hours(bridge_factory, fake_daemon, make_client, focusctl):
    # India is 5:30 from UTC: a zone whose hours a UTC count would put in the wrong one half the time.
    bridge_factory(extra_env={"TZ": "Asia/Kolkata"})
    client = make_client("kolkata")
    before = datetime.datetime.now(zoneinfo.ZoneInfo("Asia/Kolkata")).hour
    client.notify("Namaste", app="Clock")
    rep = report(focusctl, "--days", "1")
    after = datetime.datetime.now(zoneinfo.ZoneInfo("Asia/Kolkata")).hour
    hours = [h for h, n in enumerate(app_of(rep, "Clock")["by-hour"]) if n]
    assert hours in ([before], [after]), (hours, before, after)
    assert rep["time-zone"] == "Asia/Kolkata" and rep["days"] == 1


# --------------------------------------------------------------------------- suggestions
def test_suggestions_name_the_command_that_applies_them(bridge, fake_daemon, client, focusctl):
    # Ten promotions, every one dismissed unread.
    for n in range(10):
        _, did = shown(client, fake_daemon, "Sale %d" % n, app="Promo")
        fake_daemon.closed(did, 2)
    # Five time-sensitive pages, all left to expire.
    for n in range(5):
        _, did = shown(client, fake_daemon, "Page %d" % n, app="Pager", hints={"urgency": byte(2)})
        fake_daemon.closed(did, 1)
    # Fifteen in a few seconds: three bursts.
    for n in range(15):
        shown(client, fake_daemon, "Tick %d" % n, app="Ticker")

    def kinds():
        return {(s["app"], s["kind"]): s for s in report(focusctl)["suggestions"]}

    wait_until(lambda: ("Promo", "summary") in kinds(), 10, message="no summary suggestion for Promo")
    found = kinds()
    assert set(found) == {("Promo", "summary"), ("Pager", "time-sensitive-off"), ("Ticker", "passive")}, found
    assert found[("Promo", "summary")]["command"] == "focusctl app Promo delivery summary"
    assert found[("Pager", "time-sensitive-off")]["command"] == "focusctl app Pager time-sensitive off"
    assert found[("Ticker", "passive")]["command"] == "focusctl app Ticker level passive"
    assert "you dismissed or let expire 10 of the notifications of Promo in the last 7 days and acted on 0" \
        in found[("Promo", "summary")]["why"], found[("Promo", "summary")]
    assert found[("Pager", "time-sensitive-off")]["why"].startswith(
        "Pager sent 5 Time Sensitive notifications in the last 7 days; you acted on 0 and dismissed or let expire 5")
    assert app_of(report(focusctl), "Ticker")["bursts"] == 3

    text = fc_ok(focusctl, "report").stdout
    assert "Suggestions:" in text and "    focusctl app Promo delivery summary" in text, text

    # Each command applies its suggestion: the next report no longer makes it.
    for suggestion in found.values():
        fc_ok(focusctl, *suggestion["command"].split()[1:])
    assert kinds() == {}, kinds()
    shown(client, fake_daemon, "Tock", app="Ticker")
    assert history_of(focusctl, max(r["id"] for r in fc_json(focusctl, "history", "--json")))["level"] == "passive"


def test_no_suggestion_from_fewer_than_a_handful(bridge, fake_daemon, client, focusctl):
    for n in range(4):
        _, did = shown(client, fake_daemon, "Page %d" % n, app="Pager", hints={"urgency": byte(2)})
        fake_daemon.closed(did, 1)
    for n in range(9):
        _, did = shown(client, fake_daemon, "Sale %d" % n, app="Promo")
        fake_daemon.closed(did, 2)
    wait_until(lambda: app_of(report(focusctl), "Promo")["outcomes"]["dismissed"] == 9, 10)
    assert report(focusctl)["suggestions"] == []


# --------------------------------------------------------------------------- the command
def test_the_report_for_people_has_a_bar_per_app(bridge, fake_daemon, client, focusctl):
    for n in range(4):
        shown(client, fake_daemon, "Mail %d" % n, app="Mail")
    _, did = shown(client, fake_daemon, "Build", app="CI")
    fake_daemon.action(did, "default")
    text = fc_ok(focusctl, "report", "--days", "3").stdout
    assert text.startswith("Notifications of the last 3 days, since "), text
    lines = {line.split()[0]: line for line in text.splitlines() if line.split()}
    assert re.search(r"^Mail +█{24} +4 +0 +4 open$", lines["Mail"]), text
    assert re.search(r"^CI +█{6} +1 +0 +1 acted$", lines["CI"]), text
    assert re.search(r"^All apps +5 +0 +1 acted, 4 open$", lines["All"]), text
    assert "By hour (" in text and "No suggestions" in text, text


def test_a_history_longer_than_a_slice_is_counted_whole(bridge, fake_daemon, client, focusctl):
    # The daemon reads history 500 rows per pass of its main loop: 1100 take three.
    for n in range(1100):
        client.notify("Flood %d" % n, app="Flood")
    flood = app_of(report(focusctl), "Flood")
    assert flood["total"] == 1100 and sum(flood["decisions"].values()) == 1100, flood
    assert sum(flood["by-hour"]) == 1100 and flood["bursts"] == 220, flood


def test_bad_days_are_refused_in_one_sentence(bridge, focusctl):
    for bad in ["0", "-1", "abc", "1.5", "", "99999999999"]:
        line = fails_in_one_sentence(focusctl, "report", "--days", bad)
        assert line.startswith("focusctl: --days takes a whole number of days from 1"), line
    line = fails_in_one_sentence(focusctl, "report", "--days", "8")
    assert line == "focusctl: history keeps 7 days (history-days); a report covers 1 to 7, not 8", line


def test_days_go_up_to_history_days(focus_bridge, focusctl):
    focus_bridge("[general]\nhistory-days = 30\n")
    assert report(focusctl, "--days", "30")["days"] == 30
    assert report(focusctl)["days"] == 7


# --------------------------------------------------------------------------- the picture
def test_the_picture_is_svg_that_names_the_apps(bridge, fake_daemon, client, focusctl, tmp_path):
    hostile = 'R&D <Build> "CI" \x1b[31m'
    for app, count in [("Mail", 3), (hostile, 2), ("Calendar", 1)]:
        for n in range(count):
            shown(client, fake_daemon, "%s %d" % (app[:4], n), app=app,
                  hints={"urgency": byte(2)} if app == "Calendar" else {})
    picture = tmp_path / "report.svg"
    out = fc_ok(focusctl, "report", "--svg", str(picture)).stdout
    assert "The picture is in %s." % picture in out, out

    root = ET.parse(picture).getroot()  # well-formed XML, or this raises
    assert root.tag == SVG + "svg", root.tag
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    assert "Mail" in texts and "Calendar" in texts, texts
    assert 'R&D <Build> "CI" \\e[31m' in texts, "the app name as text, its control character spelt out: %r" % texts
    assert not [e for e in root.iter() if e.tag in (SVG + "script", SVG + "image", SVG + "foreignObject")]
    assert "href" not in picture.read_text(), "self-contained: nothing fetched from elsewhere"
    # A bar per app split by level: Calendar's one time-sensitive notification has its own colour.
    titles = ["".join(t.itertext()) for t in root.iter(SVG + "title")]
    assert "Mail: 3 active" in titles and "Calendar: 1 time-sensitive" in titles, titles
    looked_at_as_pixels(picture, root, tmp_path)

    # With --json the report is on standard output and the picture in its file all the same.
    picture.unlink()
    rep = json.loads(fc_ok(focusctl, "report", "--json", "--svg", str(picture)).stdout)
    # Six, and the bridge's question about Calendar's first Time Sensitive one.
    assert rep["totals"]["total"] == 7 and app_of(rep, "FocusBridge")["total"] == 1 and picture.exists()


# The picture's colours of the levels (ActivityReport+Views.swift), as pixels.
ACTIVE, TIME_SENSITIVE, CRITICAL = (0x3d, 0x7d, 0xca), (0xe3, 0x9b, 0x2d), (0xd6, 0x45, 0x45)
LEGEND_SWATCH = 12 * 12


def looked_at_as_pixels(picture, root, tmp_path):
    """Draws the SVG once as a PNG with librsvg (what image viewers and GNOME use) and looks at it as
    a person would: the size it says, not blank, and the bars in their levels' colours — more of
    each than its 12×12 swatch in the legend, none of a level nobody sent but the swatch."""
    rsvg = shutil.which("rsvg-convert")
    if not rsvg:
        pytest.skip("rsvg-convert is not installed (librsvg2-bin: make deps)")
    png = tmp_path / "report.png"
    r = subprocess.run([rsvg, "-o", str(png), str(picture)], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, "librsvg cannot draw the picture: %s" % r.stderr
    shot = Shot.from_png(png.read_bytes())
    assert (shot.width, shot.height) == (int(root.get("width")), int(root.get("height")))
    white = shot.count((255, 255, 255))
    assert white < 0.97 * shot.width * shot.height, "the picture is blank: %d of %d pixels white" % (
        white, shot.width * shot.height)
    # Mail's three active ones are the longest bar (420 × 18), the other app's two two thirds of it.
    assert shot.count(ACTIVE) > 420 * 18, shot.count(ACTIVE)
    # Calendar's one time-sensitive notification: a third of the longest bar.
    assert shot.count(TIME_SENSITIVE) > 130 * 17, shot.count(TIME_SENSITIVE)
    assert shot.count(CRITICAL) <= LEGEND_SWATCH, "a critical bar where nobody sent a critical one"


def test_a_picture_that_cannot_be_written_is_one_sentence(bridge, focusctl, tmp_path):
    line = fails_in_one_sentence(focusctl, "report", "--svg", str(tmp_path / "no" / "such" / "folder.svg"))
    assert line.startswith("focusctl: cannot write the picture to %s" % (tmp_path / "no"))
