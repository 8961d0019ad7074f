"""Who an app is (focus-bridge(1), BEHAVIOUR, "Which app"; focus-bridge.toml(5), [apps]): a
sandboxed sender is its Flatpak ID whatever it claims; an unsandboxed one's `[apps]` table may
name it by its desktop entry or by the app name the person sees."""

import subprocess

import pytest

from support.focusctl import fc_json, fc_ok, history_of
from support.processes import session_env
from support.sandbox import Sandbox

TEST_TIMEOUT = 45

CONFIG = """
[focus.work]
apps = ["notify-send"]

[apps."firefox-esr"]
critical = true
"""


def sandboxed_notify(sandbox, bus, summary, app, hints="{}"):
    """The ID a Notify from inside `sandbox` got."""
    argv = ["gdbus", "call", "--address", bus.address, "--dest", "org.freedesktop.Notifications",
            "--object-path", "/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications.Notify",
            "--", app, "0", "", summary, "", "[]", hints, "-1"]
    r = sandbox.run(argv, session_env(bus.address))
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip().strip("(,)").split()[-1])


def test_a_sandboxed_sender_is_its_flatpak_id_whatever_it_claims(focus_bridge, fake_daemon, bus, focusctl, tmp_path):
    focus_bridge(CONFIG)
    sandbox = Sandbox(tmp_path, "org.example.Intruder")
    fc_ok(focusctl, "focus", "on", "work")

    # Claims the name of an app the Focus allows: held all the same, under its own ID.
    nid = sandboxed_notify(sandbox, bus, "posing as notify-send", "notify-send")
    row = history_of(focusctl, nid)
    assert (row["app"], row["decision"]) == ("org.example.Intruder", "held-focus"), row
    explained = fc_json(focusctl, "explain", str(nid), "--json")
    assert explained["then"]["app-name"] == "notify-send", "what it claimed is kept"

    # Claims Firefox ESR's desktop entry, which is entitled to critical: not critical.
    nid = sandboxed_notify(sandbox, bus, "posing as firefox-esr", "Firefox",
                           "{'desktop-entry': <'firefox-esr'>, 'urgency': <byte 2>}")
    row = history_of(focusctl, nid)
    assert row["app"] == "org.example.Intruder", row
    assert row["level"] != "critical", "a sandboxed app reached another app's critical entitlement: %s" % row
    explained = fc_json(focusctl, "explain", str(nid), "--json")
    assert "string:desktop-entry:firefox-esr" in explained["then"]["hints"], "what it claimed is kept"
    assert explained["then"]["app-name"] == "Firefox"


def test_an_apps_table_matches_the_app_name_the_person_sees(focus_bridge, fake_daemon, bus, focusctl):
    focus_bridge("""
        [apps."Firefox"]
        delivery = "off"

        [apps."Quiet"]
        delivery = "summary"
        """)
    r = subprocess.run(["notify-send", "-p", "-a", "Firefox", "-h", "string:desktop-entry:firefox-esr", "from ESR"],
                       env=session_env(bus.address), capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r.stderr
    nid = int(r.stdout.strip())
    row = history_of(focusctl, nid)
    assert (row["app"], row["decision"]) == ("firefox-esr", "dropped"), row
    expected = 'app: firefox-esr (from the desktop-entry hint); [apps."Firefox"] applies (matched the app name)'
    explained = fc_json(focusctl, "explain", str(nid), "--json")
    assert explained["then"]["trace"][0] == expected, explained["then"]["trace"]
    # `explain --app` names the app as the daemon does.
    explained = fc_json(focusctl, "explain", "--json", "--app", "Firefox", "--hint", "string:desktop-entry:firefox-esr")
    assert explained["trace"][0] == expected, explained["trace"]

    # `focusctl apps` shows both names and which one the table matched, and marks the table
    # nothing was sent under.
    apps = {a["app"]: a for a in fc_json(focusctl, "apps", "--json")}
    esr = apps["firefox-esr"]
    assert (esr["names"], esr["table"], esr["matched"], esr["quiet"]) == (["Firefox"], "Firefox", "app name", False), esr
    assert esr["settings"]["delivery"]["value"] == "off", esr
    assert apps["Firefox"]["quiet"] is False, "Firefox's table was used under the app name"
    assert apps["Quiet"]["quiet"] is True, apps["Quiet"]
    text = fc_ok(focusctl, "apps").stdout
    assert "firefox-esr (Firefox)" in text and '[apps."Firefox"] by app name' in text, text
    assert "nothing sent" in next(line for line in text.splitlines() if line.startswith("Quiet")), text
