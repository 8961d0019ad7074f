#!/usr/bin/python3
"""Writes the seed corpora of the fuzz targets (Fuzz/corpus/<target>/), from real-looking
Notify calls and configuration files.

    /usr/bin/python3 Fuzz/tools/make-seeds.py

notify       the (susssasa{sv}i) arguments serialised as GVariant (what the store keeps)
notify-text  the same arguments in GVariant text format (g_variant_print with types)
config       Config/config.example.toml, small valid files, and broken ones

The seeds are committed; run this again after changing the list (files are named by content,
so seeds the fuzzer added to the corpus are kept).
"""
import hashlib
import os
import sys

from gi.repository import GLib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "Fuzz", "corpus")

V = GLib.Variant


def image(width, height, channels=4):
    """An image-data hint, (iiibiiay): width, height, rowstride, has alpha, bits, channels, data."""
    rowstride = width * channels
    data = bytes((x * 37 + y * 11) & 0xFF for y in range(height) for x in range(rowstride))
    return V("(iiibiiay)", (width, height, rowstride, channels == 4, 8, channels, data))


def notify(app="notify-send", replaces=0, icon="", summary="", body="", actions=(), hints=None, timeout=-1):
    return V("(susssasa{sv}i)", (app, replaces, icon, summary, body, list(actions), hints or {}, timeout))


NOTIFY = {
    # notify-send Hello World
    "notify-send": notify(summary="Hello", body="World",
                          hints={"urgency": V("y", 1), "sender-pid": V("x", 4242)}),
    # notify-send -i ... with an image, as libnotify sends a pixbuf
    "image-data": notify(app="Photos", icon="image-x-generic", summary="New photo", body="from Bob",
                         actions=["default", "Open"],
                         hints={"image-data": image(4, 3), "desktop-entry": V("s", "org.gnome.Photos")},
                         timeout=5000),
    "image-data-rgb-old-names": notify(app="Old", summary="legacy image hints",
                                       hints={"image_data": image(3, 2, channels=3),
                                              "icon_data": image(1, 1),
                                              "image-path": V("s", "/usr/share/icons/hicolor/48x48/apps/x.png")}),
    "actions": notify(app="Mail", summary="Invoice", body="<b>Due</b> tomorrow",
                      actions=["default", "", "archive", "Archive", "delete", "Delete", "spam", "Mark as spam",
                               "reply", "Reply", "inline-reply", "Reply…", "later", "Remind me later"],
                      hints={"x-focus-destructive": V("as", ["spam"]), "action-icons": V("b", False),
                             "category": V("s", "email.arrived")}),
    "actions-odd-repeated": notify(app="Odd", summary="odd actions",
                                   actions=["a", "A", "a", "Again", "", "empty key", "nolabel", "", "trailing"]),
    "default-destructive": notify(app="Trash", summary="Empty trash?", actions=["default", "Delete all", "keep", "Keep"]),
    "vendor-hints": notify(app="Spotify", summary="Now playing", body="Song",
                           hints={"x-dunst-stack-tag": V("s", "music"), "x-canonical-private-synchronous": V("s", "x"),
                                  "value": V("i", 42), "transient": V("b", True), "resident": V("b", False),
                                  "sound-name": V("s", "message-new-instant"), "suppress-sound": V("b", True),
                                  "x": V("i", 10), "y": V("i", 20), "urgency": V("u", 0)}),
    "focus-hints": notify(app="Chat", summary="Alice", body="lunch?",
                          hints={"category": V("s", "im.received"), "x-focus-sender": V("s", "Alice"),
                                 "x-focus-interruption-level": V("s", "time-sensitive"),
                                 "x-focus-relevance": V("d", 0.75),
                                 "x-focus-preview-placeholder": V("s", "New message")}),
    "critical-replaces": notify(app="Alerts", replaces=17, summary="AMBER alert", body="…",
                                hints={"category": V("s", "cellbroadcast.amber-alert"), "urgency": V("i", 2)},
                                timeout=0),
    "call": notify(app="Phone", summary="Bob calling", actions=["answer", "Answer", "decline", "Decline"],
                   hints={"category": V("s", "call.incoming"), "urgency": V("q", 2), "transient": V("i", 1)}),
    "empty": notify(app="", summary="", body="", hints={}),
    "nested-variants": notify(app="Weird", summary="nested",
                              hints={"deep": V("v", V("v", V("s", "x"))), "dict": V("a{sv}", {"k": V("t", 2**64 - 1)}),
                                     "list": V("as", ["a", "b"]), "tuple": V("(ybnqiuxtdsogh)", (
                                         1, True, -2, 3, -4, 5, -6, 7, 0.5, "s", "/o", "g", 0)),
                                     "maybe": V("ms", None), "urgency": V("s", "critical"),
                                     "desktop-entry": V("i", 3)}),
    "unicode": notify(app="Ünïcödé 📨", summary="שלום עולם", body="e\u0301 \u202e reversed \u0000-free",
                      actions=["default", "Öffnen"], hints={"desktop-entry": V("s", "org.example.Ünï")}),
    "duplicate-hint-keys": V("(susssasa{sv}i)", ("Dup", 0, "", "same key twice", "", [],
                                                  {"urgency": V("y", 0)}, -1)),
    # Chromium's call for a page that sets requireInteraction, the site first in the body (a
    # link when the daemon has body-hyperlinks), and one without a link on a port
    "chromium-page": notify(app="Chromium", icon="file:///tmp/org.chromium.Chromium.scoped_dir.x/logo.png",
                            summary="New message", body='<a href="https://app.slack.com/">app.slack.com</a>\n\nHi',
                            actions=["default", "Activate", "settings", "Settings"],
                            hints={"desktop-entry": V("s", "chromium"), "urgency": V("u", 2),
                                   "image-path": V("s", "/tmp/x.png"), "image_path": V("s", "/tmp/x.png")},
                            timeout=0),
    "chromium-page-plain": notify(app="Chromium", summary="Done", body="127.0.0.1:8123\n\nBuild finished",
                                  actions=["default", "Activate"],
                                  hints={"desktop-entry": V("s", "chromium"), "urgency": V("u", 1)}, timeout=25000),
}


def dup_keys_variant():
    # a{sv} with the same key twice cannot come from a Python dict: build the array by hand.
    entries = [V("{sv}", ("urgency", V("y", 0))), V("{sv}", ("urgency", V("y", 2)))]
    hints = GLib.Variant.new_array(GLib.VariantType("{sv}"), entries)
    return V.new_tuple(V("s", "Dup"), V("u", 0), V("s", ""), V("s", "same key twice"), V("s", ""),
                       V("as", []), hints, V("i", -1))


NOTIFY["duplicate-hint-keys"] = dup_keys_variant()

CONFIG_VALID = {
    "minimal": "",
    "general": '[general]\npreviews = "when-unlocked"\nmax-actions = 2\ndestructive-labels = ["Delete", "Mark as spam"]\n'
               'destructive-marker = "! "\ncoalesce-seconds = 30\nafter-focus = "replay"\nhistory-days = 3\n'
               'rate-limit = 5\nrate-limit-seconds = 60\n',
    "apps-and-focus": '[summary]\ntimes = ["18:00", "8:00"]\n\n[apps."org.mozilla.firefox"]\ndelivery = "summary"\n'
                      'level = "passive"\npreviews = "never"\n\n[apps.Slack]\ncommunication = true\ntime-sensitive = false\n'
                      'critical = true\n\n[focus.work]\napps = ["Slack", "Mail"]\npeople = ["Alice"]\n'
                      'time-sensitive = false\npreviews = "when-unlocked"\n\n[[focus.work.schedule]]\n'
                      'days = ["mon", "tue", "wed", "thu", "fri"]\nstart = "09:00"\nend = "17:00"\n\n'
                      '[focus.sleep]\nsilence = ["Games"]\n[[focus.sleep.schedule]]\nstart = "22:30"\nend = "07:00"\n',
    "downstream-spawn": '[downstream]\nmode = "spawn"\ncommand = ["dunst", "-config", "/dev/null"]\n'
                        'passthrough-names = ["org.erikreider.swaync.cc"]\n',
    "downstream-address": '[downstream]\nmode = "address"\naddress = "unix:path=/run/user/1000/bus"\nname = "org.gnome.Shell"\n',
    "inline-and-dotted": 'general.max-actions = 1\napps = { "y" = { level = "critical", critical = true } }\n'
                         'focus.x.people = ["Bob"]\n',
}

CONFIG_BROKEN = {
    "syntax": "[general]\nmax-actions = = 3\n",
    "unknown-key": "[general]\nmax-action = 3\n",
    "unknown-table": "\n[genral]\n",
    "wrong-type": '[general]\ncoalesce-seconds = "2m"\n',
    "too-many-buttons": "[general]\nmax-actions = 6\n",
    "bad-enum": '[general]\nafter-focus = "replai"\n',
    "bad-time": '[summary]\ntimes = ["08:00", "25:00"]\n',
    "apps-and-silence": '[focus.work]\napps = ["Mail"]\nsilence = ["Games"]\n',
    "unknown-day": '[focus.sleep]\n[[focus.sleep.schedule]]\ndays = ["mon", "funday"]\nstart = "22:30"\nend = "07:00"\n',
    "second-entry": '[focus.w]\n[[focus.w.schedule]]\nstart = "09:00"\nend = "12:00"\n[[focus.w.schedule]]\n'
                    'start = "13:00"\nend = "17:75"\n',
    "missing-start": '[focus.w]\n[[focus.w.schedule]]\nend = "12:00"\n',
    "dotted-deep": '[apps.y]\ndelivery = "summary"\n  level.deep = "passive"\n',
    "case-repeat": "[apps.Slack]\ncritical = true\n[apps.slack]\ncritical = false\n",
    "schedule-not-array": '[focus.w]\nschedule = "always"\n',
    "unterminated": '[general\nprevious = "x',
    "big-numbers": "[general]\ncoalesce-seconds = 9999999999\nrate-limit-seconds = 1\nrate-limit = 1\nhistory-days = 100000\n",
}


def write(folder, name, data):
    path = os.path.join(CORPUS, folder)
    os.makedirs(path, exist_ok=True)
    digest = hashlib.sha1(data).hexdigest()[:12]
    with open(os.path.join(path, f"seed-{name}-{digest}"), "wb") as f:
        f.write(data)


def main():
    for name, value in NOTIFY.items():
        assert value.get_type_string() == "(susssasa{sv}i)", name
        assert value.is_normal_form(), name
        write("notify", name, value.get_data_as_bytes().get_data())
        write("notify-text", name, value.print_(True).encode())
    with open(os.path.join(ROOT, "Config", "config.example.toml"), "rb") as f:
        write("config", "example", f.read())
    for name, text in {**CONFIG_VALID, **CONFIG_BROKEN}.items():
        write("config", name, text.encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
