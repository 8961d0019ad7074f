"""Interruption levels through the real bridge (focus-bridge.toml(5), INTERRUPTION LEVELS): what urgency and
sound each level reaches the daemon with, the critical entitlement and the time-sensitive
opt-out from the config, urgency of any integer type, x-focus-* hints stripped, and
`focusctl explain` telling the same story as a real notification."""

import json

import pytest
from gi.repository import GLib

from support.config_files import write_config
from support.focusctl import fc_json
from support.policy import forwarded_urgency, history_row, sound_suppressed
from support.waiting import wait_until

TEST_TIMEOUT = 30

CONFIG = """
# apps of the level tests
[apps."Entitled"]
critical = true

[apps."NoTS"]
time-sensitive = false

[apps."ForcedPassive"]
level = "passive"

[apps."ForcedTS"]
level = "time-sensitive"

[apps."ForcedActive"]
level = "active"

[apps."ForcedCritical"]
level = "critical"
critical = true
"""


def y(n):
    return GLib.Variant("y", n)


def cat(c):
    return GLib.Variant("s", c)


def lvl(name):
    return GLib.Variant("s", name)


# §2 "How each level reaches the daemon": passive → 0 + suppress-sound; active → 1;
# time-sensitive → max(original, 1); critical → 2.
PASSIVE = ("passive", 0, True)
ACTIVE = ("active", 1, False)
TS1 = ("time-sensitive", 1, False)
TS2 = ("time-sensitive", 2, False)
CRITICAL = ("critical", 2, False)

# (case id, app, hints) -> (level, forwarded urgency, suppress-sound)
LEVEL_CASES = [
    # rule 7: anything else
    ("plain-no-urgency", "Plain", {}, ACTIVE),
    ("plain-urgency-1", "Plain", {"urgency": y(1)}, ACTIVE),
    ("other-category", "Plain", {"category": cat("email.arrived")}, ACTIVE),
    # rule 6: urgency 0 and the passive categories
    ("urgency-0", "Plain", {"urgency": y(0)}, PASSIVE),
    ("presence-with-urgency-1", "Plain", {"category": cat("presence.online"), "urgency": y(1)}, PASSIVE),
    ("presence-offline", "Plain", {"category": cat("presence.offline")}, PASSIVE),
    ("network.connected", "Plain", {"category": cat("network.connected")}, PASSIVE),
    ("network.disconnected", "Plain", {"category": cat("network.disconnected")}, PASSIVE),
    ("device.added", "Plain", {"category": cat("device.added")}, PASSIVE),
    ("device.removed", "Plain", {"category": cat("device.removed")}, PASSIVE),
    ("transfer.complete", "Plain", {"category": cat("transfer.complete")}, PASSIVE),
    ("cellbroadcast.test", "Plain", {"category": cat("cellbroadcast.test")}, PASSIVE),
    # rule 5: urgency 2 → time-sensitive, critical for an entitled app
    ("urgency-2-not-entitled", "Plain", {"urgency": y(2)}, TS2),
    ("urgency-2-entitled", "Entitled", {"urgency": y(2)}, CRITICAL),
    ("urgency-2-entitled-app-key-any-case", "entitled", {"urgency": y(2)}, CRITICAL),
    # rule 4: the time-sensitive categories; urgency max(original, 1)
    ("call", "Plain", {"category": cat("call")}, TS1),
    ("call-urgency-0", "Plain", {"category": cat("call"), "urgency": y(0)}, TS1),
    ("call.incoming-urgency-2", "Plain", {"category": cat("call.incoming"), "urgency": y(2)}, TS2),
    ("alarm.ringing", "Plain", {"category": cat("alarm.ringing")}, TS1),
    ("os.battery.low", "Plain", {"category": cat("os.battery.low")}, TS1),
    # rule 3: the critical categories, only with the entitlement
    ("cellbroadcast.danger-not-entitled", "Plain", {"category": cat("cellbroadcast.danger.extreme")}, TS1),
    ("cellbroadcast.danger-entitled", "Entitled", {"category": cat("cellbroadcast.danger.severe")}, CRITICAL),
    ("amber-alert-entitled", "Entitled", {"category": cat("cellbroadcast.amber-alert")}, CRITICAL),
    ("public-safety-entitled", "Entitled", {"category": cat("cellbroadcast.public-safety")}, CRITICAL),
    ("weather.warning.extreme-entitled", "Entitled", {"category": cat("weather.warning.extreme")}, CRITICAL),
    # rule 2: the hint x-focus-interruption-level
    ("hint-critical-not-entitled", "Plain", {"x-focus-interruption-level": lvl("critical")}, TS1),
    ("hint-critical-entitled", "Entitled", {"x-focus-interruption-level": lvl("critical")}, CRITICAL),
    ("hint-critical-entitled-urgency-0", "Entitled",
     {"x-focus-interruption-level": lvl("critical"), "urgency": y(0)}, CRITICAL),
    ("hint-passive-beats-urgency-2", "Plain", {"x-focus-interruption-level": lvl("passive"), "urgency": y(2)}, PASSIVE),
    ("hint-active-beats-category-call", "Plain",
     {"x-focus-interruption-level": lvl("active"), "category": cat("call")}, ACTIVE),
    ("hint-time-sensitive-urgency-0", "Plain",
     {"x-focus-interruption-level": lvl("time-sensitive"), "urgency": y(0)}, TS1),
    # time-sensitive = false: active instead of time-sensitive
    ("no-ts-call", "NoTS", {"category": cat("call")}, ACTIVE),
    ("no-ts-urgency-2", "NoTS", {"urgency": y(2)}, ACTIVE),
    ("no-ts-hint-time-sensitive", "NoTS", {"x-focus-interruption-level": lvl("time-sensitive")}, ACTIVE),
    ("no-ts-hint-critical-not-entitled", "NoTS", {"x-focus-interruption-level": lvl("critical")}, ACTIVE),
    ("no-ts-passive-stays", "NoTS", {"urgency": y(0)}, PASSIVE),
    # rule 1: the per-app level wins over everything
    ("forced-passive-over-urgency-2", "ForcedPassive", {"urgency": y(2)}, PASSIVE),
    ("forced-passive-over-hint-critical", "ForcedPassive", {"x-focus-interruption-level": lvl("critical")}, PASSIVE),
    ("forced-ts-over-urgency-0", "ForcedTS", {"urgency": y(0)}, TS1),
    ("forced-ts-over-presence", "ForcedTS", {"category": cat("presence.away")}, TS1),
    ("forced-active-over-call", "ForcedActive", {"category": cat("call"), "urgency": y(2)}, ACTIVE),
    ("forced-critical-entitled", "ForcedCritical", {"urgency": y(0)}, CRITICAL),
]


@pytest.mark.parametrize("case, app, hints, expected", LEVEL_CASES, ids=[c[0] for c in LEVEL_CASES])
def test_level_reaches_daemon_as_urgency_and_sound(policy_bridge, client, case, app, hints, expected):
    _bridge, fake = policy_bridge(CONFIG)
    level, urgency, silent = expected
    nid = client.notify("level case " + case, app=app, hints=hints)
    rec = fake.wait_notify("level case " + case)
    assert forwarded_urgency(rec) == urgency, "%s: expected level %s → urgency %d, got %s" % (
        case, level, urgency, rec["hints"]["urgency"])
    assert sound_suppressed(rec) is silent, "%s: level %s, suppress-sound expected %s, hints %s" % (
        case, level, silent, rec["hints"])
    assert history_row(client, nid)["level"] == level


# urgency of any integer type, clamped 0…2; other types ignored (§2)
URGENCY_TYPES = [
    ("u0", GLib.Variant("u", 0), PASSIVE),
    ("u1", GLib.Variant("u", 1), ACTIVE),
    ("u2", GLib.Variant("u", 2), TS2),
    ("u9-clamped", GLib.Variant("u", 9), TS2),
    ("i0", GLib.Variant("i", 0), PASSIVE),
    ("i2", GLib.Variant("i", 2), TS2),
    ("i-minus-1-clamped", GLib.Variant("i", -1), PASSIVE),
    ("y0", GLib.Variant("y", 0), PASSIVE),
    ("y200-clamped", GLib.Variant("y", 200), TS2),
    ("n2", GLib.Variant("n", 2), TS2),
    ("q0", GLib.Variant("q", 0), PASSIVE),
    ("x2", GLib.Variant("x", 2), TS2),
    ("t0", GLib.Variant("t", 0), PASSIVE),
    ("string-2-ignored", GLib.Variant("s", "2"), ACTIVE),
    ("string-0-ignored", GLib.Variant("s", "0"), ACTIVE),
    ("string-critical-ignored", GLib.Variant("s", "critical"), ACTIVE),
    ("double-ignored", GLib.Variant("d", 0.0), ACTIVE),
    ("boolean-ignored", GLib.Variant("b", False), ACTIVE),
]


@pytest.mark.parametrize("case, value, expected", URGENCY_TYPES, ids=[c[0] for c in URGENCY_TYPES])
def test_urgency_of_any_integer_type(policy_bridge, client, case, value, expected):
    _bridge, fake = policy_bridge()
    level, urgency, silent = expected
    nid = client.notify("urgency " + case, app="Typed", hints={"urgency": value})
    rec = fake.wait_notify("urgency " + case)
    assert forwarded_urgency(rec) == urgency, "urgency %s sent, expected level %s → byte %d, got %s" % (
        value.print_(True), level, urgency, rec["hints"]["urgency"])
    assert sound_suppressed(rec) is silent
    assert history_row(client, nid)["level"] == level


def test_x_focus_hints_stripped_others_untouched(policy_bridge, client):
    _bridge, fake = policy_bridge()
    own = {
        "x-focus-interruption-level": GLib.Variant("s", "active"),
        "x-focus-sender": GLib.Variant("s", "Ann"),
        "x-focus-destructive": GLib.Variant("as", ["nothing"]),
        "x-focus-relevance": GLib.Variant("d", 0.75),
        "x-focus-preview-placeholder": GLib.Variant("s", "New message"),
        "x-focus-some-future-hint": GLib.Variant("u", 3),
    }
    others = {
        "category": GLib.Variant("s", "im.received"),
        "sound-name": GLib.Variant("s", "message-new-instant"),
        "resident": GLib.Variant("b", True),
        "transient": GLib.Variant("b", False),
        "x-kde-urls": GLib.Variant("as", ["file:///tmp/a"]),
        "x-focusing-mode": GLib.Variant("s", "not ours: no dash after focus"),
        "x-vendor-dict": GLib.Variant("a{sv}", {"n": GLib.Variant("i", -4)}),
        "image-data": GLib.Variant("(iiibiiay)", (1, 1, 4, True, 8, 4, b"\x00\x7f\x80\xff")),
    }
    client.notify("strip own hints", app="Stripper", hints={**own, **others})
    rec = fake.wait_notify("strip own hints")
    assert not [k for k in rec["hints"] if k.startswith("x-focus-")], sorted(rec["hints"])
    for key, value in others.items():
        assert key in rec["hints"], "hint %s was not forwarded" % key
        assert rec["hint_types"][key] == value.get_type_string(), key
        assert rec["hints"][key] == value.print_(True), "hint %s changed on the way" % key
    assert rec["summary"] == "strip own hints" and rec["body"] == "Body"


# --------------------------------------------------------------------------- explain
# (case, app, notify hints, explain arguments)
EXPLAIN_CASES = [
    ("plain", "Plain", {}, []),
    ("low", "Plain", {"urgency": y(0)}, ["--urgency", "low"]),
    ("critical-urgency-unentitled", "Plain", {"urgency": y(2)}, ["--urgency", "critical"]),
    ("critical-urgency-entitled", "Entitled", {"urgency": y(2)}, ["--urgency", "critical"]),
    ("call", "Plain", {"category": cat("call.incoming")}, ["--category", "call.incoming"]),
    ("presence", "Plain", {"category": cat("presence.online")}, ["--category", "presence.online"]),
    ("hint-critical-entitled", "Entitled", {"x-focus-interruption-level": lvl("critical")},
     ["--hint", "string:x-focus-interruption-level:critical"]),
    ("no-ts", "NoTS", {"urgency": y(2)}, ["--urgency", "critical"]),
    ("forced-passive", "ForcedPassive", {"urgency": y(2)}, ["--urgency", "critical"]),
    ("int-urgency-hint", "Plain", {"urgency": GLib.Variant("i", 0)}, ["--hint", "int:urgency:0"]),
]


@pytest.mark.parametrize("case, app, hints, args", EXPLAIN_CASES, ids=[c[0] for c in EXPLAIN_CASES])
def test_explain_against_daemon_matches_real_notification(policy_bridge, client, focusctl, case, app, hints, args):
    _bridge, fake = policy_bridge(CONFIG)
    summary = "explained " + case
    ex = fc_json(focusctl, "explain", "--json", "--app", app, "--summary", summary, *args)
    nid = client.notify(summary, app=app, hints=hints)
    rec = fake.wait_notify(summary)
    assert ex["level"] == history_row(client, nid)["level"], (ex["level"], ex.get("trace"))
    assert ex["urgency"] == forwarded_urgency(rec), (ex, rec["hints"])
    assert ex["suppress-sound"] is sound_suppressed(rec), (ex, rec["hints"])
    assert ex["decision"] == "delivered"


def test_explain_actions_match_forwarded_actions(policy_bridge, client, focusctl):
    _bridge, fake = policy_bridge()
    actions = ["default", "Open", "delete", "Delete", "reply", "Reply", "archive", "Archive"]
    ex = fc_json(focusctl, "explain", "--json", "--app", "Mailer", "--summary", "explained actions",
                 *[a for i in range(0, len(actions), 2) for a in ("--action", "%s=%s" % (actions[i], actions[i + 1]))])
    client.notify("explained actions", app="Mailer", actions=actions)
    rec = fake.wait_notify("explained actions")
    got = [(a["key"], a["label"]) for a in ex["actions"]]
    forwarded = [(rec["actions"][i], rec["actions"][i + 1]) for i in range(0, len(rec["actions"]), 2)]
    assert got == forwarded


EXPLAIN_KEYS = {"app", "level", "decision", "actions", "trace"}


def test_explain_with_config_needs_no_daemon_and_agrees_with_it(bus, tmp_path, focusctl, policy_bridge, client):
    cfg = write_config(tmp_path, CONFIG)
    # no bridge on this bus yet
    assert bus.owner("org.focusbridge.FocusBridge") is None
    probes = [
        ("Entitled", {"urgency": y(2)}, ["--urgency", "critical"], "critical"),
        ("NoTS", {"category": cat("call")}, ["--category", "call"], "active"),
        ("ForcedPassive", {}, [], "passive"),
        ("Plain", {"category": cat("alarm.ringing")}, ["--category", "alarm.ringing"], "time-sensitive"),
    ]
    offline = []
    for app, _hints, args, want in probes:
        r = focusctl("explain", "--json", "--config", str(cfg), "--app", app, "--summary", "probe " + app, *args)
        assert r.returncode == 0, "explain --config without a daemon: exit %d, %s" % (r.returncode, r.stderr)
        ex = json.loads(r.stdout)
        assert EXPLAIN_KEYS <= set(ex), sorted(ex)
        assert ex["app"] == app
        assert isinstance(ex["trace"], list) and ex["trace"] and all(isinstance(t, str) for t in ex["trace"])
        assert isinstance(ex["actions"], list)
        assert ex["level"] == want, (app, ex["trace"])
        offline.append(ex)
    # the daemon, reading the same file, gives the same levels
    _bridge, fake = policy_bridge()
    for (app, hints, _args, _want), ex in zip(probes, offline):
        nid = client.notify("probe " + app, app=app, hints=hints)
        rec = fake.wait_notify("probe " + app)
        assert history_row(client, nid)["level"] == ex["level"], app
        assert forwarded_urgency(rec) == ex["urgency"], app
        assert sound_suppressed(rec) is ex["suppress-sound"], app


COMMUNICATION_CASES = [
    ("im-category-person-from-summary", "Chat", ["--category", "im.received", "--summary", "Ann"], "Ann"),
    ("im-bare-category", "Chat", ["--category", "im", "--summary", "Ann"], "Ann"),
    ("call-person-from-sender-hint", "Phone",
     ["--category", "call.incoming", "--summary", "Incoming call", "--hint", "string:x-focus-sender:Mum"], "Mum"),
    ("communication-app", "Mailer", ["--summary", "Team Lead"], "Team Lead"),
    ("not-communication", "Chat", ["--category", "email.arrived", "--summary", "Ann"], None),
]


@pytest.mark.parametrize("case, app, args, person", COMMUNICATION_CASES, ids=[c[0] for c in COMMUNICATION_CASES])
def test_explain_communication_person(bus, tmp_path, focusctl, case, app, args, person):
    cfg = write_config(tmp_path, CONFIG + '\n[apps."Mailer"]\ncommunication = true\n')
    ex = fc_json(focusctl, "explain", "--json", "--config", str(cfg), "--app", app, *args)
    if person is None:
        assert ex["communication"] is None, ex
    else:
        assert ex["communication"] == {"person": person} or (
            isinstance(ex["communication"], dict) and ex["communication"].get("person") == person), ex


def test_explain_human_output(bus, tmp_path, focusctl):
    cfg = write_config(tmp_path, CONFIG)
    r = focusctl("explain", "--config", str(cfg), "--app", "Entitled", "--urgency", "critical")
    assert r.returncode == 0, r.stderr
    assert "critical" in r.stdout and "Entitled" in r.stdout


def _assert_one_sentence_about(r, word):
    assert r.returncode == 1, "exit %d; stdout %r stderr %r" % (r.returncode, r.stdout, r.stderr)
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    assert len(lines) == 1, "expected one line on stderr, got %r" % r.stderr
    assert word in lines[0], lines[0]
    assert r.stdout.strip() == ""


def test_explain_unknown_focus_with_config(bus, tmp_path, focusctl):
    cfg = write_config(tmp_path, CONFIG + '\n[focus.work]\napps = ["Plain"]\n')
    r = focusctl("explain", "--config", str(cfg), "--app", "Plain", "--focus", "NOPE")
    _assert_one_sentence_about(r, "NOPE")


def test_explain_unknown_focus_against_daemon(policy_bridge, focusctl):
    policy_bridge(CONFIG + '\n[focus.work]\napps = ["Plain"]\n')
    r = focusctl("explain", "--app", "Plain", "--focus", "NOPE")
    _assert_one_sentence_about(r, "NOPE")
    r = focusctl("explain", "--json", "--app", "Plain", "--focus", "NOPE")
    _assert_one_sentence_about(r, "NOPE")
    wait_until(lambda: focusctl("status").returncode == 0, 5, message="the bridge stopped answering")
