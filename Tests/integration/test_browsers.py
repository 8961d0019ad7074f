"""Browsers as clients (focus-bridge(1), BEHAVIOUR, "Web pages: sites are apps" and "Keep it on
screen"): a Chromium-family browser's page notification is its
site's app, the browser beside it ("via"); its "keep it on screen" (requireInteraction: urgency 2,
timeout 0) is active, not time-sensitive, and still reaches the daemon with urgency 2 and timeout
0. Firefox names no site and stays Firefox. First the browsers' exact calls played with gdbus,
then real Chromium under Xvfb with pages served on two ports of 127.0.0.1."""

import re

import pytest

from support.browsers import (CHROMIUM_FAMILY, Chromium, Pages, chromium_argv, firefox_argv, managed_policy, notify_id,
                              site_body)
from support.focus import assert_not_forwarded
from support.focusctl import fc_json, fc_ok, history_of
from support.policy import forwarded_urgency
from support.processes import run, session_env
from support.sandbox import Sandbox
from support.waiting import wait_until

TEST_TIMEOUT = 120

KEEP_LINE = ("level: active (rule 5: urgency critical from a web page asks to keep it on screen "
             "(requireInteraction), which is not time-sensitive)")


def chromium_page(bus, summary, host, text="The page's text", origin=None, keep_on_screen=False):
    """The ID Chromium's call for a page of `host` got."""
    body = site_body(host, text, origin)
    return notify_id(run(chromium_argv(bus.address, summary, body, keep_on_screen), session_env(bus.address))), body


def test_a_page_is_its_site_via_its_browser(focus_bridge, fake_daemon, bus, focusctl):
    focus_bridge("")
    slack, slack_body = chromium_page(bus, "Slack says hi", "app.slack.com", origin="https://app.slack.com")
    local, _ = chromium_page(bus, "Home Assistant", "127.0.0.1:8123")
    own = notify_id(run(chromium_argv(bus.address, "Chromium itself", "Update available"), session_env(bus.address)))

    rows = {r["id"]: r for r in fc_json(focusctl, "history", "--json")}
    assert (rows[slack]["app"], rows[slack]["via"]) == ("app.slack.com", "chromium"), rows[slack]
    assert (rows[local]["app"], rows[local]["via"]) == ("127.0.0.1:8123", "chromium"), rows[local]
    assert (rows[own]["app"], rows[own]["via"]) == ("chromium", None), "what names no site is the browser's own"
    assert re.search(r"app\.slack\.com via chromium", fc_ok(focusctl, "history").stdout)

    # What is forwarded is the page's own text, site line and all.
    rec = fake_daemon.wait_notify("Slack says hi")
    assert rec["body"] == slack_body and rec["app_name"] == "Chromium", rec
    assert forwarded_urgency(rec) == 1

    apps = {a["app"]: a for a in fc_json(focusctl, "apps", "--json")}
    assert apps["app.slack.com"]["via"] == ["chromium"] and apps["app.slack.com"]["names"] == [], apps["app.slack.com"]
    assert apps["chromium"]["via"] == [], apps["chromium"]
    assert "app.slack.com via chromium" in fc_ok(focusctl, "apps").stdout

    explained = fc_json(focusctl, "explain", str(slack), "--json")
    assert (explained["app"], explained["via"]) == ("app.slack.com", "chromium"), explained
    assert explained["now"]["trace"][0] == \
        "app: app.slack.com (from the site of the web page, via chromium); no [apps] rule", explained["now"]["trace"]
    # explain --app a page as Chromium sends it.
    asked = fc_json(focusctl, "explain", "--json", "--app", "Chromium", "--hint", "string:desktop-entry:chromium",
                    "--body", site_body("app.slack.com", "hi"), "--urgency", "critical")
    assert (asked["app"], asked["via"], asked["level"], asked["urgency"]) == ("app.slack.com", "chromium", "active", 2), asked
    assert KEEP_LINE in asked["trace"], asked["trace"]


@pytest.mark.parametrize("entry,name", CHROMIUM_FAMILY, ids=[e for e, _ in CHROMIUM_FAMILY])
def test_the_chromium_family_names_its_pages_sites(focus_bridge, fake_daemon, bus, focusctl, entry, name):
    focus_bridge("")
    argv = chromium_argv(bus.address, "a page", site_body("app.slack.com", "hi", "https://app.slack.com"),
                         keep_on_screen=True, entry=entry, app=name)
    row = history_of(focusctl, notify_id(run(argv, session_env(bus.address))))
    assert (row["app"], row["via"], row["level"]) == ("app.slack.com", entry, "active"), row


def test_a_sites_table_focus_mute_and_choice_are_its_own(focus_bridge, fake_daemon, bus, focusctl, marker):
    focus_bridge("""
        [apps."app.slack.com"]
        delivery = "off"

        [apps."Chromium"]
        critical = true

        [focus.work]
        apps = ["example.org", "chromium"]
        """)
    dropped, _ = chromium_page(bus, "dropped", "app.slack.com")
    assert history_of(focusctl, dropped)["decision"] == "dropped"

    fc_ok(focusctl, "mute", "127.0.0.1:8123", "--for", "1h", "--new")
    muted, _ = chromium_page(bus, "muted", "127.0.0.1:8123")
    assert history_of(focusctl, muted)["decision"] == "muted"
    fc_ok(focusctl, "app", "example.net", "time-sensitive", "off", "--new")

    fc_ok(focusctl, "focus", "on", "work")
    allowed, _ = chromium_page(bus, "allowed site", "example.org")
    held, _ = chromium_page(bus, "held site", "example.net", keep_on_screen=True)
    own = notify_id(run(chromium_argv(bus.address, "browser itself", "Update available"), session_env(bus.address)))
    fake_daemon.wait_notify("allowed site")
    fake_daemon.wait_notify("browser itself")
    assert_not_forwarded(fake_daemon, marker, "held site", "dropped", "muted")
    row = history_of(focusctl, held)
    assert (row["decision"], row["level"]) == ("held-focus", "active"), \
        "the browser's critical entitlement and its Focus allowance are not its pages': %s" % row
    assert (history_of(focusctl, allowed)["decision"], history_of(focusctl, own)["decision"]) == ("delivered", "delivered")
    assert fc_json(focusctl, "app", "example.net", "--json")["settings"]["time-sensitive"]["source"] == "choice"


def test_keep_it_on_screen_is_active_and_stays_on_screen(focus_bridge, fake_daemon, bus, focusctl, marker):
    focus_bridge("""
        [general]
        after-focus = "replay"

        [focus.work]
        apps = []
        """)
    nid, body = chromium_page(bus, "Keep me", "app.slack.com", origin="https://app.slack.com", keep_on_screen=True)
    row = history_of(focusctl, nid)
    assert (row["app"], row["level"], row["decision"]) == ("app.slack.com", "active", "delivered"), row
    rec = fake_daemon.wait_notify("Keep me")
    assert forwarded_urgency(rec) == 2, "kept on screen where daemons keep only critical ones"
    assert rec["expire_timeout"] == 0 and rec["body"] == body, rec
    explained = fc_json(focusctl, "explain", str(nid), "--json")
    assert KEEP_LINE in explained["now"]["trace"], explained["now"]["trace"]
    site = {a["app"]: a for a in fc_json(focusctl, "apps", "--json")}["app.slack.com"]
    assert site["time-sensitive-question"] is None, "no Time Sensitive question for a page that asks to stay on screen"

    # Not time-sensitive: a Focus holds it; when the Focus ends it is shown as it came.
    fc_ok(focusctl, "focus", "on", "work")
    fake_daemon.clear()
    held, _ = chromium_page(bus, "Keep me later", "app.slack.com", origin="https://app.slack.com", keep_on_screen=True)
    assert_not_forwarded(fake_daemon, marker, "Keep me later")
    assert history_of(focusctl, held)["decision"] == "held-focus"
    fc_ok(focusctl, "focus", "off")
    rec = fake_daemon.wait_notify("Keep me later")
    assert (forwarded_urgency(rec), rec["expire_timeout"]) == (2, 0), rec
    assert not [n for n in fake_daemon.notifies() if "Time Sensitive" in n["summary"] + n["body"]]


def test_firefox_names_no_site_and_stays_firefox(focus_bridge, fake_daemon, bus, focusctl):
    focus_bridge("")
    # Firefox's body is the page's own: even one that looks like a site line is only text.
    r = run(firefox_argv(bus.address, "From a page", "example.com\n\nhello", require_interaction=True),
            session_env(bus.address))
    row = history_of(focusctl, notify_id(r))
    assert (row["app"], row["via"], row["level"]) == ("firefox-esr", None, "active"), row
    rec = fake_daemon.wait_notify("From a page")
    assert (forwarded_urgency(rec), rec["expire_timeout"]) == (1, 0), rec


def test_a_sandboxed_app_claiming_to_be_chromium_is_itself(focus_bridge, fake_daemon, bus, focusctl, tmp_path):
    focus_bridge("")
    sandbox = Sandbox(tmp_path, "org.example.Intruder")
    r = sandbox.run(chromium_argv(bus.address, "posing as a page", site_body("app.slack.com", "hi"), keep_on_screen=True),
                    session_env(bus.address))
    row = history_of(focusctl, notify_id(r))
    assert (row["app"], row["via"], row["level"]) == ("org.example.Intruder", None, "time-sensitive"), row


def test_real_chromium_pages_are_their_sites(focus_bridge, fake_daemon, bus, focusctl, procs, xvfb, tmp_path, marker,
                                            request):
    """Chromium itself, two pages on two ports: each its own app; a Focus holds the one it does
    not allow; requireInteraction is active, not time-sensitive, and forwarded with urgency 2
    and timeout 0."""
    pages = Pages()
    try:
        with managed_policy():
            allowed = pages.add("Allowed page", "from the allowed site")
            keep = pages.add("Keep page", "from the site that asks to stay", keep_on_screen=True)
            allowed_site, keep_site = allowed[len("http://"):], keep[len("http://"):]
            focus_bridge("""
                [general]
                after-focus = "replay"

                [focus.work]
                apps = ["%s"]
                """ % allowed_site)
            fc_ok(focusctl, "focus", "on", "work")
            browser = Chromium(procs, tmp_path, xvfb, bus.address, [allowed + "/", keep + "/"], node=request.node)
            try:
                rec = fake_daemon.wait_notify("Allowed page", timeout=60)
                assert rec["app_name"] == "Chromium" and rec["body"].endswith("from the allowed site"), rec
                assert forwarded_urgency(rec) == 1

                def rows():
                    found = {r["app"]: r for r in fc_json(focusctl, "history", "--json") if r["via"] == "chromium"}
                    return found if keep_site in found else None
                found = wait_until(rows, timeout=60, message="Chromium's requireInteraction page never notified")
                assert (found[allowed_site]["decision"], found[allowed_site]["level"]) == ("delivered", "active"), found
                assert (found[keep_site]["decision"], found[keep_site]["level"]) == ("held-focus", "active"), \
                    "requireInteraction is not time-sensitive: %s" % found[keep_site]
                assert_not_forwarded(fake_daemon, marker, "Keep page")
                sent = fc_json(focusctl, "explain", str(found[keep_site]["id"]), "--json")
                assert "byte:urgency:2" in sent["then"]["hints"], sent["then"]["hints"]

                fc_ok(focusctl, "focus", "off")
                rec = fake_daemon.wait_notify("Keep page", timeout=15)
                assert (forwarded_urgency(rec), rec["expire_timeout"]) == (2, 0), rec
                assert rec["body"] == site_body(keep_site, "from the site that asks to stay", keep), \
                    "the page's own text, as Chromium sent it: %r" % rec["body"]
            finally:
                browser.stop()
    finally:
        pages.close()
