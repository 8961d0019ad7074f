"""Actions through the real bridge (focus-bridge.toml(5), ACTIONS): at most four buttons besides
the click action, nondestructive ones first in the client's order, destructive ones marked
and cut first, a destructive `default` forwarded as a labelled button whose invocation
reaches the client as "default", the config's max-actions / destructive-labels /
destructive-marker, malformed arrays tidied, and action-icons following the daemon."""

from gi.repository import GLib

from support.policy import MARKER, buttons, pairs

TEST_TIMEOUT = 30


def send(client, fake, summary, actions, app="Mailer", hints=None):
    nid = client.notify(summary, app=app, actions=actions, hints=hints)
    return nid, fake.wait_notify(summary)


def test_six_actions_and_default_become_default_and_four(policy_bridge, client):
    """Three nondestructive and three destructive: the nondestructive ones first in the
    client's order, then "Delete" (the first destructive, marked); the other two
    destructive ones are the ones cut."""
    _b, fake = policy_bridge()
    actions = ["default", "Open",
               "delete", "Delete",
               "reply", "Reply",
               "block", "Block Sender",
               "archive", "Archive",
               "erase", "Erase All",
               "later", "Remind Me Later"]
    nid, rec = send(client, fake, "six actions", actions)
    assert ("default", "Open") in pairs(rec["actions"]), rec["actions"]
    assert buttons(rec["actions"]) == [
        ("reply", "Reply"), ("archive", "Archive"), ("later", "Remind Me Later"), ("delete", MARKER + "Delete"),
    ], rec["actions"]
    assert len(rec["actions"]) == 10, rec["actions"]
    # the daemon invokes the marked button: the client gets its own key back
    fake.action(rec["daemon_id"], "delete")
    sig = client.wait_signal("ActionInvoked", nid)
    assert sig.args == (nid, "delete")


def test_when_something_must_go_the_destructive_action_goes_first(policy_bridge, client):
    _b, fake = policy_bridge()
    actions = ["default", "Open", "delete", "Delete", "reply", "Reply", "archive", "Archive",
               "star", "Star", "snooze", "Snooze", "forward", "Forward"]
    _nid, rec = send(client, fake, "delete cut", actions)
    assert ("default", "Open") in pairs(rec["actions"])
    assert buttons(rec["actions"]) == [("reply", "Reply"), ("archive", "Archive"), ("star", "Star"),
                                       ("snooze", "Snooze")], rec["actions"]


def test_few_actions_keep_client_order_with_destructive_last(policy_bridge, client):
    _b, fake = policy_bridge()
    actions = ["remove", "Remove from list", "reply", "Reply"]
    _nid, rec = send(client, fake, "destructive last", actions)
    assert buttons(rec["actions"]) == [("reply", "Reply"), ("remove", MARKER + "Remove from list")]
    assert "default" not in rec["actions"][::2]


def test_destructive_words_whole_word_any_case(policy_bridge, client):
    _b, fake = policy_bridge()
    actions = ["a", "Undelete", "b", "Deleted items", "c", "TRASH it", "d", "Open", "e", "block-list"]
    _nid, rec = send(client, fake, "whole words", actions)
    # "Undelete" and "Deleted items" contain no destructive *word*; "TRASH" and "block" are words
    assert buttons(rec["actions"]) == [("a", "Undelete"), ("b", "Deleted items"), ("d", "Open"),
                                       ("c", MARKER + "TRASH it")], rec["actions"]


def test_x_focus_destructive_flags_keys(policy_bridge, client):
    _b, fake = policy_bridge()
    actions = ["default", "Open", "unsubscribe", "Unsubscribe", "archive", "Archive", "reply", "Reply"]
    hints = {"x-focus-destructive": GLib.Variant("as", ["unsubscribe"])}
    nid, rec = send(client, fake, "flagged by hint", actions, hints=hints)
    assert ("default", "Open") in pairs(rec["actions"])
    assert buttons(rec["actions"]) == [("archive", "Archive"), ("reply", "Reply"),
                                       ("unsubscribe", MARKER + "Unsubscribe")]
    assert "x-focus-destructive" not in rec["hints"]
    fake.action(rec["daemon_id"], "unsubscribe")
    assert client.wait_signal("ActionInvoked", nid).args == (nid, "unsubscribe")


def _demoted_default(rec, label):
    """The forwarded button carrying a destructive default: no 'default' key forwarded,
    exactly one button whose label is the marker + label."""
    assert "default" not in rec["actions"][::2], "a destructive default was forwarded as the click: %s" % rec["actions"]
    found = [k for k, l in buttons(rec["actions"]) if l == MARKER + label]
    assert len(found) == 1, "no button %r for the destructive default: %s" % (MARKER + label, rec["actions"])
    return found[0]


def test_destructive_default_becomes_a_button_and_answers_as_default(policy_bridge, client):
    _b, fake = policy_bridge()
    actions = ["default", "Delete", "reply", "Reply"]
    nid, rec = send(client, fake, "destructive default", actions)
    key = _demoted_default(rec, "Delete")
    bts = buttons(rec["actions"])
    assert bts[0] == ("reply", "Reply"), "a destructive action is never the first button: %s" % rec["actions"]
    assert bts[-1][0] == key
    fake.action(rec["daemon_id"], key)
    sig = client.wait_signal("ActionInvoked", nid)
    assert sig.args == (nid, "default"), "the client must get its original key back, got %r" % (sig.args,)


def test_default_flagged_by_hint_becomes_a_labelled_button(policy_bridge, client):
    _b, fake = policy_bridge()
    actions = ["default", "Wipe device", "keep", "Keep"]
    hints = {"x-focus-destructive": GLib.Variant("as", ["default"])}
    nid, rec = send(client, fake, "flagged default", actions, hints=hints)
    key = _demoted_default(rec, "Wipe device")
    fake.action(rec["daemon_id"], key)
    assert client.wait_signal("ActionInvoked", nid).args == (nid, "default")


def test_destructive_default_without_label_still_gets_a_label(policy_bridge, client):
    _b, fake = policy_bridge()
    actions = ["default", "", "reply", "Reply"]
    hints = {"x-focus-destructive": GLib.Variant("as", ["default"])}
    nid, rec = send(client, fake, "unlabelled destructive default", actions, hints=hints)
    assert "default" not in rec["actions"][::2], rec["actions"]
    extra = [(k, l) for k, l in buttons(rec["actions"]) if k != "reply"]
    assert len(extra) == 1, rec["actions"]
    key, label = extra[0]
    assert label.startswith(MARKER) and label[len(MARKER):].strip(), "a button needs a label: %r" % label
    fake.action(rec["daemon_id"], key)
    assert client.wait_signal("ActionInvoked", nid).args == (nid, "default")


def test_max_actions_from_config(policy_bridge, client):
    _b, fake = policy_bridge("[general]\nmax-actions = 2\n")
    actions = ["default", "Open", "delete", "Delete", "a", "Alpha", "b", "Beta", "c", "Gamma",
               "inline-reply", "Reply…"]
    _nid, rec = send(client, fake, "two buttons", actions)
    assert buttons(rec["actions"]) == [("a", "Alpha"), ("b", "Beta")], rec["actions"]
    assert ("default", "Open") in pairs(rec["actions"]), "default does not count as a button"
    assert ("inline-reply", "Reply…") in pairs(rec["actions"]), "inline-reply does not count as a button"


def test_empty_destructive_labels_turn_the_heuristic_off(policy_bridge, client):
    _b, fake = policy_bridge("[general]\ndestructive-labels = []\n")
    actions = ["default", "Delete", "delete", "Delete", "reply", "Reply"]
    _nid, rec = send(client, fake, "no heuristic", actions)
    assert ("default", "Delete") in pairs(rec["actions"]), "with [] a 'Delete' default stays the click action"
    assert buttons(rec["actions"]) == [("delete", "Delete"), ("reply", "Reply")], rec["actions"]


def test_empty_destructive_labels_keep_the_hint(policy_bridge, client):
    _b, fake = policy_bridge("[general]\ndestructive-labels = []\n")
    actions = ["delete", "Delete", "reply", "Reply"]
    hints = {"x-focus-destructive": GLib.Variant("as", ["delete"])}
    _nid, rec = send(client, fake, "hint without heuristic", actions, hints=hints)
    assert buttons(rec["actions"]) == [("reply", "Reply"), ("delete", MARKER + "Delete")], rec["actions"]


def test_destructive_labels_and_marker_from_config(policy_bridge, client):
    _b, fake = policy_bridge('[general]\ndestructive-labels = ["Nuke"]\ndestructive-marker = "[!] "\n')
    actions = ["nuke", "Nuke it", "delete", "Delete", "reply", "Reply"]
    nid, rec = send(client, fake, "custom words", actions)
    assert buttons(rec["actions"]) == [("delete", "Delete"), ("reply", "Reply"), ("nuke", "[!] Nuke it")], rec["actions"]
    fake.action(rec["daemon_id"], "nuke")
    assert client.wait_signal("ActionInvoked", nid).args == (nid, "nuke")


# (case, actions sent, (key, label) pairs forwarded, in order)
MALFORMED = [
    ("odd-length", ["reply", "Reply", "orphan"], [("reply", "Reply")]),
    ("empty-key", ["", "Nothing", "reply", "Reply"], [("reply", "Reply")]),
    ("empty-label", ["mute", "", "reply", "Reply"], [("reply", "Reply")]),
    ("empty-label-default-kept", ["default", "", "reply", "Reply"], [("default", ""), ("reply", "Reply")]),
    ("empty-label-inline-reply-kept", ["reply", "Reply", "inline-reply", ""], [("reply", "Reply"), ("inline-reply", "")]),
    ("repeated-key-first-wins", ["reply", "Reply", "archive", "Archive", "reply", "Answer"],
     [("reply", "Reply"), ("archive", "Archive")]),
    ("all-at-once", ["", "x", "a", "A", "b", "", "a", "Again", "c", "C", "dangling"], [("a", "A"), ("c", "C")]),
]


def test_malformed_action_arrays_are_tidied(policy_bridge, client):
    _b, fake = policy_bridge()
    for case, actions, want in MALFORMED:
        client.notify("tidy " + case, app="Tidy-" + case, actions=actions)
    for case, actions, want in MALFORMED:
        rec = fake.wait_notify("tidy " + case)
        assert len(rec["actions"]) % 2 == 0, (case, rec["actions"])
        got = pairs(rec["actions"])
        assert sorted(got) == sorted(want), "%s: sent %r, forwarded %r, expected %r" % (case, actions, got, want)
        assert buttons(rec["actions"]) == [p for p in want if p[0] not in ("default", "inline-reply")], case


def test_action_icons_removed_when_daemon_lacks_it(policy_bridge, client):
    _b, fake = policy_bridge(caps=["actions", "body"])
    hints = {"action-icons": GLib.Variant("b", True), "x-vendor": GLib.Variant("s", "kept")}
    _nid, rec = send(client, fake, "icons unsupported", ["document-open", "Open"], hints=hints)
    assert "action-icons" not in rec["hints"], rec["hints"]
    assert rec["hints"]["x-vendor"] == "'kept'"


def test_action_icons_kept_when_daemon_has_it(policy_bridge, client):
    _b, fake = policy_bridge(caps=["actions", "body", "action-icons"])
    hints = {"action-icons": GLib.Variant("b", True)}
    _nid, rec = send(client, fake, "icons supported", ["document-open", "Open"], hints=hints)
    assert rec["hints"].get("action-icons") == "true", rec["hints"]
    assert rec["hint_types"]["action-icons"] == "b"
