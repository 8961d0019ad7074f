"""The TOML configuration (focus-bridge.toml(5)): precise PATH:LINE:COLUMN errors from
`focusctl check-config` and from `focus-bridge --config`, the example file valid, and
reloads (focusctl reload, SIGHUP, file change) where a broken file keeps the old
behaviour — shown by the level a real notification reaches the daemon with."""

import json
import os
import re
import signal
import subprocess

import pytest

from support.config_files import config_file, replace_file
from support.fifos import release
from support.focusctl import fc_json, first_output_line, location_line, next_json
from support.policy import forwarded_urgency, history_row
from support.processes import FOCUSCTL_BIN, REPO, run, session_env
from support.waiting import wait_until

TEST_TIMEOUT = 30

PREAMBLE = """# my focus-bridge settings
# (a few lines first, so that line numbers mean something)

[general]
coalesce-seconds = 60

"""

# (case id, file text, the text that marks the culprit's line, words the message must contain)
BROKEN = [
    ("syntax-missing-value", PREAMBLE + '[apps."x"]\nlevel = \n', "level = ", []),
    ("syntax-unterminated-string", PREAMBLE + '[apps."x"]\nlevel = "passive\n', 'level = "passive', []),
    ("syntax-redefined-key", PREAMBLE + '[apps."x"]\nlevel = "passive"\nlevel = "active"\n',
     'level = "active"', []),
    ("syntax-bad-table-header", PREAMBLE + '[apps."x"\nlevel = "passive"\n', '[apps."x"', []),
    ("unknown-key-did-you-mean", PREAMBLE + '[apps."x"]\nlevle = "passive"\n', "levle", ["levle", "level"]),
    ("unknown-general-key", PREAMBLE.replace("coalesce-seconds = 60", "coalesce-second = 60"),
     "coalesce-second =", ["coalesce-second", "coalesce-seconds"]),
    ("unknown-table", PREAMBLE + '[genral]\nmax-actions = 3\n', "[genral]", ["genral", "general"]),
    ("unknown-schedule-key", PREAMBLE + '[focus.work]\napps = []\n[[focus.work.schedule]]\nstrat = "09:00"\nend = "17:00"\n',
     "strat =", ["strat", "start"]),
    ("wrong-type-number", PREAMBLE + '[focus.work]\napps = []\npreviews = 3\n', "previews = 3", ["previews"]),
    ("wrong-type-bool", PREAMBLE + '[apps."x"]\ncritical = "yes"\n', "critical =", ["critical"]),
    ("wrong-type-string-for-int", PREAMBLE.replace("coalesce-seconds = 60", 'coalesce-seconds = "60"'),
     "coalesce-seconds =", ["coalesce-seconds"]),
    ("wrong-type-string-for-list", PREAMBLE + '[focus.work]\napps = "Slack"\n', "apps =", ["apps"]),
    ("bad-time", PREAMBLE + '[focus.work]\napps = []\n[[focus.work.schedule]]\nstart = "25:00"\nend = "07:00"\n',
     'start = "25:00"', ["25:00"]),
    ("bad-time-minutes", PREAMBLE + '[focus.night]\napps = []\n[[focus.night.schedule]]\nstart = "22:30"\nend = "07:75"\n',
     'end = "07:75"', ["07:75"]),
    ("bad-summary-time", PREAMBLE + '[summary]\ntimes = ["08:00", "6pm"]\n', "times =", ["6pm"]),
    ("unknown-day", PREAMBLE + '[focus.work]\napps = []\n[[focus.work.schedule]]\ndays = ["mon", "funday"]\nstart = "09:00"\nend = "17:00"\n',
     "days =", ["funday"]),
    ("apps-and-silence", PREAMBLE + '[focus.work]\napps = ["Slack"]\npeople = []\nsilence = ["Steam"]\n',
     "silence =", ["apps", "silence"]),
    ("max-actions-6", PREAMBLE + "max-actions = 6\n", "max-actions = 6", ["max-actions"]),
    ("bad-enum-delivery", PREAMBLE + '[apps."x"]\ndelivery = "sometimes"\n', "delivery =", ["delivery"]),
    ("bad-enum-level", PREAMBLE + '[apps."x"]\nlevel = "urgent"\n', "level =", ["level"]),
    ("bad-enum-previews", PREAMBLE.replace("coalesce-seconds = 60", 'previews = "sometimes"'),
     "previews =", ["previews"]),
    ("bad-enum-after-focus", PREAMBLE.replace("coalesce-seconds = 60", 'after-focus = "later"'),
     "after-focus =", ["after-focus"]),
    ("bad-enum-mode", '[downstream]\n# where notifications go\nmode = "dunst"\n', "mode =", ["mode"]),
    # the right line where the same key appears elsewhere in the file
    ("same-key-second-table", PREAMBLE + '[apps."a"]\nlevel = "passive"\n\n[apps."b"]\nlevel = "urgent"\n',
     'level = "urgent"', ["level"]),
    ("key-mentioned-in-a-comment-first", PREAMBLE + '# level = "urgent" would be wrong\n[apps."b"]\nlevel = "urgent"\n',
     'level = "urgent"', ["level"]),
    ("second-schedule", PREAMBLE + '[focus.work]\napps = []\n[[focus.work.schedule]]\nstart = "09:00"\nend = "12:00"\n'
     '[[focus.work.schedule]]\nstart = "13:00"\nend = "17:61"\n', 'end = "17:61"', ["17:61"]),
    ("multi-line-array", PREAMBLE + '[focus.work]\napps = []\n[[focus.work.schedule]]\ndays = [\n  "mon",\n  "funday",\n]\n'
     'start = "09:00"\nend = "17:00"\n', ("days = [", '"funday"'), ["funday"]),
    # TOML's other ways to write the same tables: dotted keys and inline tables
    ("dotted-key-at-top", '# apps written with dotted keys\n\napps.x.level = "urgent"\n', "apps.x.level", ["level"]),
    ("dotted-key-in-app", PREAMBLE + '[apps."x"]\nlevel = "passive"\n[apps."y"]\nlevel.deep = "passive"\n',
     "level.deep", ["level"]),
    ("inline-table", PREAMBLE + '[apps]\n"x" = { level = "passive" }\n"y" = { level = "urgent" }\n',
     '"y" = {', ["level"]),
    # files toml++ 3.4 (the TOML parser before FocusBridgeTOML) aborted on instead of reporting
    # (Fuzz/README.md, findings 1, 7, 9, 10): syntax errors at their place, like any other
    ("nameless-table-header", PREAMBLE + '[*]\nlevel = "passive"\n', "[*]", ["expected a key"]),
    ("header-after-triple-quotes-in-a-comment", PREAMBLE + '# see """\n[Ärger]\n', "[Ärger]", ["expected a key"]),
    ("parser-crash-date-time", PREAMBLE + 'max-actions = 1979-05-27T:00\n', "1979-05-27T:00", ["expected the hour"]),
    ("parser-crash-array", PREAMBLE + 'destructive-labels = ["Delete", }\n', "destructive-labels", ["expected a value"]),
    # Windows line ends count as line ends
    ("crlf-unknown-key", (PREAMBLE + '[apps."x"]\nlevle = "passive"\n').replace("\n", "\r\n"), "levle", ["levle", "level"]),
]

# The fuzzer's reproducers of toml++ 3.4's assertion failures (findings 9 and 10).
PARSER_CRASHES = sorted((REPO / "Fuzz" / "crashes" / "config").glob("crash-toml-hpp-*"))


def culprit_lines(text, marker):
    """The line(s) an error may rightly point at: the line (never a comment) holding
    `marker`, or each line holding one of the markers of a tuple (a multi-line value: its
    key or the bad element)."""
    found = []
    for m in (marker if isinstance(marker, tuple) else (marker,)):
        hits = [i + 1 for i, line in enumerate(text.splitlines())
                if m in line and not line.lstrip().startswith("#")]
        assert len(hits) == 1, "marker %r must be on exactly one line: %r" % (m, hits)
        found += hits
    return found


def culprit_line(text, marker):
    return culprit_lines(text, marker)[0]


@pytest.fixture
def fc_plain(tmp_path):
    """focusctl with no bus at all: check-config needs no daemon."""
    if not (os.path.isfile(FOCUSCTL_BIN) and os.access(FOCUSCTL_BIN, os.X_OK)):
        pytest.skip("focusctl not built yet: %s" % FOCUSCTL_BIN)
    env = session_env("unix:path=%s" % (tmp_path / "no-bus-here"), XDG_CONFIG_HOME=tmp_path / "xdg-config")

    def fc(*args):
        return run([FOCUSCTL_BIN, *args], env, timeout=15)

    return fc


@pytest.mark.parametrize("case, text, marker, words", BROKEN, ids=[c[0] for c in BROKEN])
def test_check_config_reports_path_line_column(fc_plain, tmp_path, case, text, marker, words):
    path = tmp_path / ("%s.toml" % case)
    path.write_text(text)
    r = fc_plain("check-config", str(path))
    assert r.returncode == 1, "%s: exit %d (stdout %r, stderr %r)" % (case, r.returncode, r.stdout, r.stderr)
    first = first_output_line(r)
    m = re.match(r"^%s:(\d+):(\d+): (\S.*)$" % re.escape(str(path)), first)
    assert m, "%s: first line is not PATH:LINE:COLUMN: message: %r" % (case, first)
    line, column, message = int(m.group(1)), int(m.group(2)), m.group(3)
    want = culprit_lines(text, marker)
    assert line in want, "%s: error on line %d, the culprit is on line %s (%r)\n%s" % (
        case, line, " or ".join(map(str, want)), first, text)
    assert column >= 1
    for w in words:
        assert w in message, "%s: message %r does not mention %r" % (case, message, w)


@pytest.mark.parametrize("reproducer", PARSER_CRASHES, ids=[p.name for p in PARSER_CRASHES])
def test_check_config_survives_what_the_parser_crashes_on(fc_plain, reproducer):
    """The fuzzer's reproducers of toml++ assertion failures: each one a clear error with its
    place, not an abort."""
    assert len(PARSER_CRASHES) >= 9
    r = fc_plain("check-config", str(reproducer))
    assert r.returncode == 1, "exit %d (stderr %r)" % (r.returncode, r.stderr[-500:])
    m = re.match(r"^%s:(\d+):(\d+): (\S.*)$" % re.escape(str(reproducer)), first_output_line(r))
    assert m, "not PATH:LINE:COLUMN: message: %r" % first_output_line(r)
    lines = reproducer.read_bytes().splitlines() or [b""]
    line, column = int(m.group(1)), int(m.group(2))
    assert 1 <= line <= len(lines) and 1 <= column <= len(lines[line - 1].decode(errors="replace")) + 1, (line, column)


def test_unknown_key_suggests_the_right_one(fc_plain, tmp_path):
    path = tmp_path / "typo.toml"
    path.write_text('[general]\nmax-action = 3\n')
    r = fc_plain("check-config", str(path))
    loc = location_line(r.stderr + "\n" + r.stdout, path)
    assert loc and loc[0] == 2, r.stderr
    assert "max-actions" in loc[2] and "did you mean" in loc[2].lower(), loc


def test_check_config_accepts_the_example(fc_plain):
    path = REPO / "Config" / "config.example.toml"
    r = fc_plain("check-config", str(path))
    assert r.returncode == 0, "the shipped example is refused: %s" % (r.stderr or r.stdout)
    assert r.stdout.strip() == "%s: ok" % path


def test_check_config_accepts_every_key_of_the_example(fc_plain, tmp_path):
    """Every commented-out key of the example, switched on (but `silence`, which the
    example shows as the alternative to `apps`), is a valid file."""
    text = (REPO / "Config" / "config.example.toml").read_text()
    lines = []
    for line in text.splitlines():
        if line.startswith("# silence ="):
            continue
        m = re.match(r"^# (\[.*\]|[a-z-]+ = .*)$", line)
        lines.append(m.group(1) if m else line)
    full = tmp_path / "every-key.toml"
    full.write_text("\n".join(lines) + "\n")
    assert "[focus.work]" in full.read_text() and "destructive-marker =" in full.read_text()
    r = fc_plain("check-config", str(full))
    assert r.returncode == 0, "a key of the example is refused: %s" % (r.stderr or r.stdout)


def test_check_config_default_path_and_no_file(fc_plain, tmp_path):
    default = tmp_path / "xdg-config" / "focus-bridge" / "config.toml"
    r = fc_plain("check-config")
    assert r.returncode == 0, "no config file is a valid setup: %s" % r.stderr
    default.parent.mkdir(parents=True)
    default.write_text("[general]\nmax-actions = 9\n")
    r = fc_plain("check-config")
    assert r.returncode == 1
    assert location_line(r.stderr + "\n" + r.stdout, default)[0] == 2, r.stderr


# Five different mistakes (and a misplaced summary key): every one is reported in one run, at
# its place, in file order.
FIVE_MISTAKES = """# my focus-bridge settings
times = ["08:00"]

[general]
max-actions = "3"

[apps."Slack"]
levle = "passive"

[apps."slack"]
level = "active"

[focus.work]
apps = ["Slack"]
silence = ["Steam"]

[[focus.work.schedule]]
days = ["mon", "funday"]
start = "25:00"
end = "17:00"
"""

FIVE_MISTAKES_LINES = [
    "2:1: unknown key `times` at the top level (outside any table); did you mean `[summary] times`?",
    "5:15: `max-actions` must be a whole number, not a string",
    "8:1: unknown key `levle` in [apps.Slack]; did you mean `level`?",
    '10:1: [apps."slack"] repeats [apps."Slack"] (app keys ignore case)',
    "15:1: a Focus takes `apps` (allowed apps) or `silence` (all but these), not both",
    '18:16: unknown day "funday" (expected mon, tue, wed, thu, fri, sat or sun)',
    '19:9: "25:00" is not a time of day (expected HH:MM, 00:00 to 23:59)',
]


def test_check_config_reports_every_mistake_in_one_run(fc_plain, tmp_path):
    path = tmp_path / "five.toml"
    path.write_text(FIVE_MISTAKES)
    r = fc_plain("check-config", str(path))
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert r.stdout == ""
    assert r.stderr.splitlines() == ["%s:%s" % (path, line) for line in FIVE_MISTAKES_LINES], r.stderr


def test_check_config_syntax_error_stops_the_reading(fc_plain, tmp_path):
    """A TOML syntax error ends the reading of the file: it is the one line, at its place."""
    path = tmp_path / "syntax.toml"
    path.write_text('[general]\nmax-actions = "3"\n[apps."x"\nlevle = "passive"\n')
    r = fc_plain("check-config", str(path))
    assert r.returncode == 1, (r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("%s:3:" % path), r.stderr


def test_check_config_with_no_default_file_says_defaults_are_in_use(fc_plain, tmp_path):
    default = tmp_path / "xdg-config" / "focus-bridge" / "config.toml"
    r = fc_plain("check-config")
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert r.stdout.strip() == "%s: no config file: defaults in use" % default, r.stdout


def test_bridge_refuses_every_mistake_at_start(bridge_factory, tmp_path):
    path = tmp_path / "five.toml"
    path.write_text(FIVE_MISTAKES)
    b = bridge_factory(mode="log", args=["--config", str(path)], wait=False)
    try:
        b.proc.wait(10)
    except subprocess.TimeoutExpired:
        pass  # b.stop() below kills it and reports it hung
    rc = b.stop()
    assert rc == 1, "focus-bridge --config with a broken file: exit %r" % (rc,)
    found = [line for line in b.stderr().splitlines() if line.startswith("%s:" % path)]
    assert found == ["%s:%s" % (path, line) for line in FIVE_MISTAKES_LINES], b.stderr_tail()


def test_bridge_refuses_a_bad_config_at_start(bridge_factory, tmp_path):
    path = tmp_path / "bad.toml"
    text = PREAMBLE + '[apps."x"]\nlevle = "passive"\n'
    path.write_text(text)
    b = bridge_factory(mode="log", args=["--config", str(path)], wait=False)
    try:
        b.proc.wait(10)
    except subprocess.TimeoutExpired:
        pass  # b.stop() below kills it and reports it hung
    rc = b.stop()
    assert rc == 1, "focus-bridge --config with a broken file: exit %r" % (rc,)
    loc = location_line(b.stderr(), path)
    assert loc, "no PATH:LINE:COLUMN line on stderr:\n%s" % b.stderr_tail()
    assert loc[0] == culprit_line(text, "levle") and "level" in loc[2], loc
    assert b.bus.owner("org.freedesktop.Notifications") is None


# --------------------------------------------------------------------------- reload
PASSIVE_X = '[apps."X"]\nlevel = "passive"\n'
ACTIVE_X = '[apps."X"]\nlevel = "active"\n'
BROKEN_X = '[apps."X"]\nlevel = "active"\nbogus-key = true\n'


class Sender:
    """Sends notifications of app X with fresh summaries (no duplicates) and reads the
    urgency they reach the daemon with."""

    def __init__(self, client, fake):
        self.client, self.fake, self.n = client, fake, 0

    def urgency(self, app="X"):
        self.n += 1
        summary = "reload probe %d" % self.n
        nid = self.client.notify(summary, app=app, hints={})
        rec = self.fake.wait_notify(summary)
        return forwarded_urgency(rec), history_row(self.client, nid)["level"]


def explained_level(focusctl, app="X"):
    return fc_json(focusctl, "explain", "--json", "--app", app)["level"]


def wait_level(focusctl, want, timeout=5.0, what="reload"):
    wait_until(lambda: explained_level(focusctl) == want, timeout,
               message="after the %s, app X never became %s (explain says %s)" % (what, want, explained_level(focusctl)))


def test_reload_of_a_broken_file_keeps_the_old_config(policy_bridge, client, focusctl, tmp_path):
    b, fake = policy_bridge(PASSIVE_X)
    send = Sender(client, fake)
    assert send.urgency() == (0, "passive")
    path = config_file(tmp_path)
    replace_file(path, BROKEN_X)
    # the file change alone makes the bridge try, refuse and log it (§5) ...
    wait_until(lambda: location_line(b.stderr(), path, anywhere=True), 5,
               message="the refused reload after the file change was not logged as PATH:LINE:COLUMN")
    # ... and focusctl reload prints the error and exits 1
    r = focusctl("reload")
    assert r.returncode == 1, "focusctl reload of a broken file: exit %d, %r" % (r.returncode, r.stdout + r.stderr)
    loc = location_line(r.stderr + "\n" + r.stdout, path)
    assert loc, "focusctl reload did not print PATH:LINE:COLUMN: %r" % (r.stdout + r.stderr)
    assert loc[0] == 3 and "bogus-key" in loc[2], loc
    # the old configuration is still the one in force
    assert send.urgency() == (0, "passive"), "a refused config changed the behaviour"
    assert b.alive()
    # fixing the file takes effect by itself (file change)
    replace_file(path, ACTIVE_X)
    wait_level(focusctl, "active", what="fixed file")
    assert send.urgency() == (1, "active")


def test_a_refused_file_shows_in_status_json_and_the_status_bar(policy_bridge, client, focusctl, watch, tmp_path):
    """A file saved with a mistake is refused; not only the log says so: `status`, `status
    --json` and the waybar tooltip show it with its first PATH:LINE:COLUMN, until it loads."""
    b, fake = policy_bridge(PASSIVE_X)
    path = config_file(tmp_path)
    bar = watch("--waybar")
    first = next_json(bar, what="the first waybar line")
    assert "refused" not in first["tooltip"], first
    assert fc_json(focusctl, "status", "--json")["config"] == {"path": str(path), "refused": None}

    replace_file(path, FIVE_MISTAKES)
    assert focusctl("reload").returncode == 1
    refused = fc_json(focusctl, "status", "--json")["config"]["refused"]
    assert refused, "status --json does not show the refused file"
    want = ["%s:%s" % (path, line) for line in FIVE_MISTAKES_LINES]
    assert refused["problems"] == want and refused["count"] == len(want), refused
    assert refused["at"].endswith("Z"), refused

    r = focusctl("status")
    assert r.returncode == 0, r.stderr
    row = [l for l in r.stdout.splitlines() if l.startswith("Config refused")]
    assert row and want[0] in row[0] and "and %d more" % (len(want) - 1) in row[0], r.stdout

    line = bar.wait_for(lambda l: "Configuration refused" in json.loads(l)["tooltip"], 5)
    assert line, "the waybar tooltip never showed the refused file: %r" % bar.lines
    assert "Configuration refused: " + want[0] in json.loads(line)["tooltip"], line

    # Once the file loads, the refusal is gone everywhere.
    replace_file(path, ACTIVE_X)
    assert focusctl("reload").returncode == 0
    assert fc_json(focusctl, "status", "--json")["config"]["refused"] is None, "the refusal stayed after the fix"
    line = bar.wait_for(lambda l: "Configuration refused" not in json.loads(l)["tooltip"], 5)
    assert line, "the waybar tooltip kept the refusal: %r" % bar.lines[-3:]
    assert b.alive()


def test_reload_of_a_file_with_many_mistakes_prints_and_logs_them_all(policy_bridge, client, focusctl, tmp_path):
    b, fake = policy_bridge(PASSIVE_X)
    send = Sender(client, fake)
    path = config_file(tmp_path)
    replace_file(path, FIVE_MISTAKES)
    r = focusctl("reload")
    assert r.returncode == 1, (r.stdout, r.stderr)
    want = ["%s:%s" % (path, line) for line in FIVE_MISTAKES_LINES]
    assert r.stderr.splitlines() == want, r.stderr
    # the log names every one, each on a line of its own
    wait_until(lambda: all(any(line.endswith(w) for line in b.stderr().splitlines()) for w in want), 5,
               message="the refused reload did not log every problem:\n%s" % b.stderr_tail())
    assert send.urgency() == (0, "passive"), "a refused config changed the behaviour"
    assert b.alive()


def test_reload_of_a_file_the_parser_crashes_on_keeps_the_bridge(policy_bridge, client, focusctl, tmp_path):
    b, fake = policy_bridge(PASSIVE_X)
    send = Sender(client, fake)
    path = config_file(tmp_path)
    replace_file(path, ACTIVE_X + "when = 1979-05-27T:00\n")
    r = focusctl("reload")
    assert r.returncode == 1, "exit %d, %r" % (r.returncode, r.stdout + r.stderr)
    loc = location_line(r.stderr + "\n" + r.stdout, path)
    assert loc and loc[:2] == (3, 19), "focusctl reload did not say where the parser stops: %r" % (r.stdout + r.stderr)
    assert b.alive(), "the bridge died reading the file"
    assert send.urgency() == (0, "passive"), "a refused config changed the behaviour"
    replace_file(path, ACTIVE_X)
    wait_level(focusctl, "active", what="fixed file")


def symlinked_config(tmp_path, text):
    """The bridge's config file as a symlink to a file elsewhere, holding `text`; that file."""
    real = tmp_path / "dotfiles" / "focus.toml"
    real.parent.mkdir()
    real.write_text(text)
    link = config_file(tmp_path)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(real)
    return real


def test_reload_on_focusctl_reload(policy_bridge, client, focusctl, tmp_path):
    """The config is a symlink to a file elsewhere (dotfile managers do this): editing the
    target is not seen by the file watch, so only `focusctl reload` can apply it."""
    real = symlinked_config(tmp_path, PASSIVE_X)
    _b, fake = policy_bridge()
    send = Sender(client, fake)
    assert send.urgency() == (0, "passive")
    real.write_text(ACTIVE_X)
    r = focusctl("reload")
    assert r.returncode == 0, r.stderr
    # reload is synchronous: the next notification already gets the new level
    assert send.urgency() == (1, "active")


def test_reload_on_sighup(policy_bridge, client, focusctl, tmp_path):
    real = symlinked_config(tmp_path, PASSIVE_X)
    b, fake = policy_bridge()
    send = Sender(client, fake)
    assert send.urgency() == (0, "passive")
    real.write_text(ACTIVE_X)
    os.kill(b.pid, signal.SIGHUP)
    wait_level(focusctl, "active", what="SIGHUP")
    assert send.urgency() == (1, "active")
    assert b.alive()


def test_broken_file_on_sighup_keeps_the_old_config(policy_bridge, client, tmp_path):
    real = symlinked_config(tmp_path, PASSIVE_X)
    link = config_file(tmp_path)
    b, fake = policy_bridge()
    send = Sender(client, fake)
    real.write_text('[apps."X"]\nlevel = "active"\nlevel = "critical"\n')  # a syntax error: key redefined
    os.kill(b.pid, signal.SIGHUP)
    wait_until(lambda: location_line(b.stderr(), link, anywhere=True) or location_line(b.stderr(), real, anywhere=True), 5,
               message="the refused SIGHUP reload was not logged as PATH:LINE:COLUMN")
    assert send.urgency() == (0, "passive")
    assert b.alive()


def test_reload_on_file_change_in_place(policy_bridge, client, focusctl, tmp_path):
    b, fake = policy_bridge(PASSIVE_X)
    send = Sender(client, fake)
    assert send.urgency() == (0, "passive")
    with open(config_file(tmp_path), "w") as f:  # written in place, not renamed
        f.write('# edited\n[apps."X"]\nlevel = "time-sensitive"\n')
    wait_level(focusctl, "time-sensitive", what="file change")
    assert send.urgency() == (1, "time-sensitive")


def test_config_file_created_after_start_is_read(policy_bridge, client, focusctl, tmp_path):
    config_file(tmp_path).parent.mkdir(parents=True, exist_ok=True)
    b, fake = policy_bridge()
    send = Sender(client, fake)
    assert send.urgency() == (1, "active")
    replace_file(config_file(tmp_path), PASSIVE_X)
    wait_level(focusctl, "passive", what="new config file")
    assert send.urgency() == (0, "passive")


def test_first_config_file_created_with_its_folder_after_start_is_read(policy_bridge, client, focusctl, tmp_path):
    """A fresh install: $XDG_CONFIG_HOME exists but not its focus-bridge/ folder when the
    bridge starts; the user then creates the folder and the file (§5: reload when the
    file changes; no file was a valid setup)."""
    folder = config_file(tmp_path).parent
    b, fake = policy_bridge()
    assert not folder.exists()
    send = Sender(client, fake)
    assert send.urgency() == (1, "active")
    folder.mkdir()
    replace_file(config_file(tmp_path), PASSIVE_X)
    wait_level(focusctl, "passive", what="first config file")
    assert send.urgency() == (0, "passive")


def test_reload_changes_more_than_levels(policy_bridge, client, focusctl, tmp_path):
    """A reload replaces the whole policy: actions, delivery and previews too."""
    b, fake = policy_bridge(PASSIVE_X)
    replace_file(config_file(tmp_path), PASSIVE_X + '[apps."Nag"]\ndelivery = "off"\n'
                 '[general]\nmax-actions = 1\npreviews = "never"\n')
    r = focusctl("reload")
    assert r.returncode == 0, r.stderr
    nag = client.notify("nag after reload", app="Nag")
    client.notify("two actions", "secret", app="Mail", actions=["a", "Alpha", "b", "Beta"])
    rec = fake.wait_call("Notify", app_name="Mail")
    assert rec["actions"] == ["a", "Alpha"] and rec["summary"] == "Mail" and rec["body"] == "Notification"
    assert history_row(client, nag)["decision"] == "dropped"


MiB = 1 << 20


def test_check_config_refuses_a_file_over_1_mib_unread(fc_plain, tmp_path):
    path = tmp_path / "huge.toml"
    with open(path, "wb") as f:
        f.write(PASSIVE_X.encode())
        f.truncate(100 * MiB)          # 100 MB (sparse): refused before a byte is parsed
    r = fc_plain("check-config", str(path))
    assert r.returncode == 1, (r.stdout, r.stderr)
    first = first_output_line(r)
    assert first.startswith("%s:1:1: " % path) and "larger than 1 MiB" in first, first
    just = tmp_path / "just-1-mib.toml"
    just.write_text(PASSIVE_X + "#" * (MiB - len(PASSIVE_X) - 1) + "\n")   # exactly 1 MiB: read
    r = fc_plain("check-config", str(just))
    assert r.returncode == 0, (r.stdout, r.stderr)


def test_reload_of_a_file_over_1_mib_is_refused_at_once(policy_bridge, client, focusctl, tmp_path):
    b, fake = policy_bridge(PASSIVE_X)
    send = Sender(client, fake)
    path = config_file(tmp_path)
    with open(path, "r+b") as f:
        f.truncate(100 * MiB)
    r = focusctl("reload", timeout=10)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "%s:1:1: " % path in r.stderr and "larger than 1 MiB" in r.stderr, r.stderr
    assert send.urgency() == (0, "passive"), "a refused config changed the behaviour"
    assert b.alive()


def test_a_config_replaced_by_a_fifo_is_refused_and_the_bridge_keeps_answering(policy_bridge, client, focusctl,
                                                                              tmp_path):
    b, fake = policy_bridge(PASSIVE_X)
    send = Sender(client, fake)
    assert send.urgency() == (0, "passive")
    path = config_file(tmp_path)
    fifo = path.with_name(".config.toml.new")
    os.mkfifo(fifo)   # opened for reading, it would wait for a writer for good
    try:
        fifo.replace(path)   # as an editor's rename would put it there
        refused = "%s:1:1: not a regular file" % path
        # the file change alone makes the bridge try, refuse and log it ...
        wait_until(lambda: refused in b.stderr(), 10,
                   message="the reload after the FIFO took the file's place was not refused in the log")
        # ... and focusctl reload says so, with the file's place
        r = focusctl("reload", timeout=10)
        assert r.returncode == 1 and refused in r.stderr, (r.stdout, r.stderr)
        assert send.urgency() == (0, "passive"), "the previous configuration stays"
        assert b.alive()
        r = focusctl("check-config", str(path), timeout=10)
        assert r.returncode == 1 and refused in r.stderr, (r.stdout, r.stderr)
    finally:
        release(path)
