"""The documentation and session files agree with docs/INTERFACES.md and lint clean.

Most checks need no build: the man pages, the D-Bus files and the Config/ files are
checked against the contract in docs/INTERFACES.md. Those that compare the pages with the
built binaries (every focusctl subcommand and option, the introspection the running
bridge answers) are skipped when nothing is built; the config keys come from
Config/config.example.toml, so the checks stay true as commands and keys are added. That
the example and focus-bridge.toml(5) document exactly the keys the reader knows, table by
table, is SchemaDocumentationTests' check (swift test), against the keys' definitions.
"""

import os
import re
import shlex
import shutil
import subprocess
import tempfile
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INTERFACES = (ROOT / "docs" / "INTERFACES.md").read_text(encoding="utf-8")
MAN_PAGES = [ROOT / "man" / "focus-bridge.1", ROOT / "man" / "focusctl.1",
             ROOT / "man" / "focus-bridge.toml.5"]


def need(tool):
    path = shutil.which(tool)
    if path is None:
        pytest.fail(f"{tool} is not installed (run 'make deps')")
    return path


def rendered(page):
    """The page as plain text, as `man` would show it, without overstrike."""
    need("mandoc")
    out = subprocess.run(["mandoc", "-T", "ascii", "-O", "width=200", str(page)],
                         check=True, capture_output=True, text=True).stdout
    return re.sub(r".\x08", "", out)


def section(title):
    """The text of the '## title' section of INTERFACES.md."""
    match = re.search(r"^## " + re.escape(title) + r"\n(.*?)(?=^## |\Z)",
                      INTERFACES, re.S | re.M)
    assert match, f"INTERFACES.md has no section '{title}'"
    return match.group(1)


def code_lines(text, command):
    """The indented synopsis lines of a command, comments removed."""
    lines, inside = [], False
    for line in text.splitlines():
        if line.startswith("    " + command + " "):
            inside = True
        elif not line.startswith("    "):
            inside = False
        if inside:
            lines.append(line.split("#", 1)[0])
    assert lines, f"no synopsis of {command} in INTERFACES.md"
    return lines


@pytest.mark.parametrize("page", MAN_PAGES, ids=lambda p: p.name)
def test_man_page_lints_clean(page):
    need("mandoc")
    result = subprocess.run(["mandoc", "-T", "lint", "-W", "warning", str(page)],
                            capture_output=True, text=True)
    assert result.stdout + result.stderr == ""
    assert result.returncode == 0


def test_focus_bridge_page_names_every_option_and_mode():
    synopsis = " ".join(code_lines(section("focus-bridge command line"), "focus-bridge"))
    options = set(re.findall(r"--[a-z][a-z-]*", synopsis))
    assert "--config" in options and "--downstream" in options
    modes = re.search(r"--downstream ([a-z|]+)", synopsis).group(1).split("|")
    text = rendered(ROOT / "man" / "focus-bridge.1")
    for option in sorted(options):
        assert re.search(re.escape(option) + r"(?![a-z-])", text), f"{option} missing"
    assert re.search(r"^\s+-- command", text, re.M), "'-- COMMAND' missing"
    for mode in modes:
        assert re.search(r"^\s+" + mode + r"\b", text, re.M), f"mode {mode} missing"


def test_focus_bridge_page_documents_log_lines_and_files():
    text = rendered(ROOT / "man" / "focus-bridge.1")
    notify_line = re.search(r"`(notify id=[^`]*)`", INTERFACES).group(1)
    fields = re.findall(r"(\w+)=", notify_line)
    assert fields[:2] == ["id", "app"]
    documented = re.search(r"^\s+(notify id=.*)$", text, re.M)
    assert documented, "the notify log line is missing"
    assert re.findall(r"(\w+)=", documented.group(1)) == fields
    assert re.search(r"^\s+close id=ID$", text, re.M)
    for needle in ["DBUS_SESSION_BUS_ADDRESS", "XDG_CONFIG_HOME", "XDG_STATE_HOME",
                   "state.sqlite3", "SIGTERM", "SIGINT", "reason 4",
                   "org.focusbridge.FocusBridge", "focus-bridge-private-bus.conf"]:
        assert needle in text, f"{needle} missing"


def test_focusctl_page_names_every_subcommand_option_and_json_key():
    lines = code_lines(section("focusctl"), "focusctl")
    text = rendered(ROOT / "man" / "focusctl.1")
    for line in lines:
        subcommand = line.split()[1]
        assert re.search(r"^\s+focusctl " + subcommand + r"\b", text, re.M), subcommand
        for option in re.findall(r"--[a-z][a-z-]*", line):
            assert option in text, f"{subcommand} {option} missing"
    control = section("Control interface (used by focusctl)")
    keys = set(re.findall(r'"([a-z][a-z-]*)":', control))
    assert {"version", "downstream", "counts", "id", "close-reason"} <= keys
    for key in sorted(keys):
        assert re.search(r"(^|[\s.\"])" + re.escape(key) + r"\b", text, re.M), f"{key} missing"
    exit_line = re.search(r"`(focusctl: focus-bridge is not running[^`]*)`", INTERFACES).group(1)
    assert exit_line in text


def test_toml_page_names_every_downstream_key():
    text = rendered(ROOT / "man" / "focus-bridge.toml.5")
    for key in ["mode", "command", "name", "address", "passthrough-names"]:
        assert re.search(r"^\s+" + key + " = ", text, re.M), key


def introspected(name):
    gio = pytest.importorskip("gi.repository.Gio")
    node = gio.DBusNodeInfo.new_for_xml((ROOT / "dbus" / name).read_text(encoding="utf-8"))
    (interface,) = node.interfaces
    methods = {m.name: ("".join(a.signature for a in m.in_args),
                        "".join(a.signature for a in m.out_args)) for m in interface.methods}
    signals = {s.name: "".join(a.signature for a in s.args) for s in interface.signals}
    return interface.name, methods, signals


def test_notifications_introspection_xml():
    name, methods, signals = introspected("org.freedesktop.Notifications.xml")
    assert name == "org.freedesktop.Notifications"
    assert methods == {"Notify": ("susssasa{sv}i", "u"), "CloseNotification": ("u", ""),
                       "GetCapabilities": ("", "as"), "GetServerInformation": ("", "ssss"),
                       "Inhibit": ("ssa{sv}", "u"), "UnInhibit": ("u", "")}
    assert signals == {"NotificationClosed": "uu", "ActionInvoked": "us",
                       "ActivationToken": "us", "NotificationReplied": "us"}


def test_control_introspection_xml():
    """The control interface grows with focusctl: Status and History keep their shapes, and
    every method (and signal) of the XML is listed in focus-bridge(1)."""
    name, methods, signals = introspected("org.focusbridge.Control1.xml")
    assert name == "org.focusbridge.Control1"
    assert methods["Status"] == ("", "s") and methods["History"] == ("us", "s")
    text = rendered(ROOT / "man" / "focus-bridge.1")
    interfaces = re.search(r"^D-BUS INTERFACES\n(.*?)^[A-Z]", text, re.S | re.M).group(1)
    for method in methods:
        assert re.search(r"^\s+" + method + r"\(", interfaces, re.M), f"{method} missing in focus-bridge(1)"
    for signal in signals:
        assert re.search(r"^\s+signal " + signal + r"\(", interfaces, re.M), f"signal {signal} missing"


def test_private_bus_config_activates_nothing():
    conf = ROOT / "dbus" / "focus-bridge-private-bus.conf"
    tree = ET.parse(conf).getroot()
    assert tree.findtext("type") == "session"
    assert tree.findtext("listen") == "unix:tmpdir=/tmp"
    assert tree.findtext("auth") == "EXTERNAL"
    for forbidden in ["servicedir", "standard_session_servicedirs", "include", "includedir"]:
        assert tree.find(forbidden) is None, forbidden
    need("dbus-daemon")
    out = subprocess.run(["dbus-daemon", f"--config-file={conf}", "--fork",
                          "--print-address=1", "--print-pid=1"],
                         check=True, capture_output=True, text=True, timeout=30).stdout.split()
    address, pid = out[0], int(out[1])
    try:
        reply = subprocess.run(
            ["dbus-send", f"--bus={address}", "--dest=org.freedesktop.DBus", "--print-reply",
             "/org/freedesktop/DBus", "org.freedesktop.DBus.ListActivatableNames"],
            check=True, capture_output=True, text=True, timeout=30).stdout
        assert re.findall(r'string "([^"]*)"', reply) == ["org.freedesktop.DBus"]
    finally:
        os.kill(pid, 15)


def test_activation_file():
    text = (ROOT / "dbus" / "org.freedesktop.Notifications.service").read_text(encoding="utf-8")
    entries = dict(line.split("=", 1) for line in text.splitlines()
                   if "=" in line and not line.startswith("#"))
    assert "[D-BUS Service]" in text.splitlines()
    assert entries == {"Name": "org.freedesktop.Notifications",
                       "Exec": "@bindir@/focus-bridge",
                       "SystemdService": "focus-bridge.service"}


def installed_copy(tmp, source):
    """`source` with @bindir@ pointing at stand-in executables in `tmp`."""
    bindir = Path(tmp) / "bin"
    bindir.mkdir(exist_ok=True)
    for name in ["focus-bridge", "focusctl"]:
        shutil.copy("/bin/true", bindir / name)
    target = Path(tmp) / source.name
    target.write_text(source.read_text(encoding="utf-8").replace("@bindir@", str(bindir)),
                      encoding="utf-8")
    return target


def test_systemd_unit():
    unit = ROOT / "Config" / "focus-bridge.service"
    text = unit.read_text(encoding="utf-8")
    for line in ["Type=dbus", "BusName=org.freedesktop.Notifications", "Restart=on-failure",
                 "ExecReload=@bindir@/focusctl reload", "WantedBy=graphical-session-pre.target",
                 "After=graphical-session-pre.target"]:
        assert line in text.splitlines(), line
    # before the shells, whose notification services never hand the name over (test_gnome.py,
    # test_plasma.py show the order that works: the bridge first)
    before = [l for l in text.splitlines() if l.startswith("Before=")]
    assert before and {"org.gnome.Shell@wayland.service", "org.gnome.Shell@x11.service",
                       "plasma-plasmashell.service"} <= set(before[0][len("Before="):].split()), before
    # --replace: notification-daemon hands the name over to it (and runs behind the bridge then).
    assert "ExecStart=@bindir@/focus-bridge --replace" in text.splitlines()
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        copy = installed_copy(tmp, unit)
        mandir = Path(tmp) / "man"
        for page in MAN_PAGES:
            section_dir = mandir / ("man" + page.suffix[1:])
            section_dir.mkdir(parents=True, exist_ok=True)
            shutil.copy(page, section_dir)
        result = subprocess.run(["systemd-analyze", "verify", str(copy)],
                                capture_output=True, text=True, timeout=60,
                                env={**os.environ, "MANPATH": str(mandir)})
        complaints = [line for line in (result.stdout + result.stderr).splitlines()
                      if "focus-bridge" in line]
        assert complaints == []


def test_autostart_entry():
    entry = ROOT / "Config" / "focus-bridge.desktop"
    lines = entry.read_text(encoding="utf-8").splitlines()
    assert "Exec=@bindir@/focus-bridge" in lines
    assert "X-systemd-skip=true" in lines, "with systemd the unit starts it, not the autostart entry"
    if shutil.which("desktop-file-validate") is None:
        pytest.skip("desktop-file-validate is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run(["desktop-file-validate", str(installed_copy(tmp, entry))],
                                capture_output=True, text=True)
        assert result.stdout + result.stderr == ""
        assert result.returncode == 0


def test_example_config():
    text = (ROOT / "Config" / "config.example.toml").read_text(encoding="utf-8")
    assert tomllib.loads(text) == {"downstream": {"mode": "auto", "passthrough-names": []}}
    for key in ["mode", "command", "name", "address", "passthrough-names",
                "previews", "max-actions", "destructive-labels", "destructive-marker",
                "coalesce-seconds", "after-focus", "times", "delivery", "level",
                "time-sensitive", "critical", "communication", "apps", "people",
                "days", "start", "end"]:
        assert re.search(r"^(# )?" + re.escape(key) + " = ", text, re.M), key


# --------------------------------------------------------------------------- against the binaries
def built(kind):
    from support.processes import BRIDGE_BIN, FOCUSCTL_BIN, require_binary
    path = BRIDGE_BIN if kind == "focus-bridge" else FOCUSCTL_BIN
    require_binary(path, kind)
    return path


def help_text(*argv):
    result = subprocess.run(list(argv) + ["--help"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout


def help_section(text, title):
    match = re.search(r"^" + title + r":\n(.*?)(?=^[A-Z][A-Z ]*:|\Z)", text, re.S | re.M)
    return match.group(1) if match else ""


def commands_of(binary, path=()):
    """Every (sub)command path of an argument-parser binary with its long options, from
    its --help texts: [(("focus", "on"), {"--for", "--until"}), ...]."""
    text = help_text(binary, *path)
    options = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", help_section(text, "OPTIONS")))
    options -= {"--help", "--version"}
    found = [(tuple(path), options)] if path else []
    for name in re.findall(r"^  ([a-z][a-z-]*)", help_section(text, "SUBCOMMANDS"), re.M):
        if name != "help":
            found += commands_of(binary, path + (name,))
    return found


def test_every_focusctl_command_and_option_is_in_its_page():
    commands = commands_of(built("focusctl"))
    assert [c for c, _ in commands if c == ("status",)], "focusctl --help lists no status"
    text = rendered(ROOT / "man" / "focusctl.1")
    synopsis = re.search(r"^SYNOPSIS\n(.*?)^[A-Z]", text, re.S | re.M).group(1)
    missing = []
    for path, options in commands:
        # A default subcommand is shown optional: "focusctl summary [show]".
        words = [re.escape(path[0])] + [r"\[?" + re.escape(w) for w in path[1:]]
        if not re.search(r"^\s+focusctl " + r"\s+".join(words) + r"(?![\w-])", synopsis, re.M):
            missing.append("focusctl " + " ".join(path))
        for option in sorted(options):
            if not re.search(re.escape(option) + r"(?![\w-])", text):
                missing.append("focusctl %s %s" % (" ".join(path), option))
    assert missing == [], "not in focusctl(1): %s" % ", ".join(missing)


def test_every_focus_bridge_option_is_in_its_page():
    text = rendered(ROOT / "man" / "focus-bridge.1")
    options = re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", help_section(help_text(built("focus-bridge")), "OPTIONS"))
    options = [o for o in options if o != "--help"]
    assert "--print-downstream" in options
    for option in options:
        assert re.search(re.escape(option) + r"(?![\w-])", text), f"{option} missing in focus-bridge(1)"


def example_keys_and_tables():
    text = (ROOT / "Config" / "config.example.toml").read_text(encoding="utf-8")
    keys = set(re.findall(r"^(?:# )?([a-z][a-z-]*) = ", text, re.M))
    tables = set()
    for header in re.findall(r"^(?:# )?(\[\[?[^\]]+\]\]?)\s*$", text, re.M):
        first = re.match(r"\[+([a-z-]+)", header).group(1)
        tables.add("schedule" if header.startswith("[[") else first)
    return keys, tables


def test_every_config_key_is_in_the_toml_page():
    keys, tables = example_keys_and_tables()
    assert {"mode", "passthrough-names", "previews", "times", "delivery", "apps", "days"} <= keys
    text = rendered(ROOT / "man" / "focus-bridge.toml.5")
    missing = sorted(k for k in keys if not re.search(r"^\s+" + re.escape(k) + r" = ", text, re.M))
    assert missing == [], "keys of config.example.toml missing in focus-bridge.toml(5): %s" % missing
    patterns = {"apps": r"\[apps\.", "focus": r"\[focus\.", "schedule": r"\[\[focus\.NAME\.schedule\]\]"}
    for table in sorted(tables):
        assert re.search(patterns.get(table, r"\b" + table + r"\b"), text), f"table {table} missing"


def test_example_config_passes_check_config():
    result = subprocess.run([built("focusctl"), "check-config", str(ROOT / "Config" / "config.example.toml")],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr


def test_pages_render_with_man():
    if shutil.which("man") is None:
        pytest.skip("man is not installed")
    for page in MAN_PAGES:
        result = subprocess.run(["man", "-l", str(page)], capture_output=True, text=True, timeout=60,
                                env={**os.environ, "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80"})
        assert result.returncode == 0 and len(result.stdout) > 1000, result.stderr


@pytest.mark.parametrize("page", MAN_PAGES, ids=lambda p: p.name)
def test_man_page_passes_groff_warnings(page):
    if shutil.which("groff") is None:
        pytest.skip("groff is not installed")
    result = subprocess.run(["groff", "-ww", "-z", "-mandoc", "-Tutf8", str(page)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stderr == "", result.stderr


def test_every_daemon_has_its_recipe():
    text = rendered(ROOT / "man" / "focus-bridge.1")
    daemons = re.search(r"^DAEMONS\n(.*?)^[A-Z]", text, re.S | re.M)
    assert daemons, "focus-bridge(1) has no DAEMONS section"
    for name in ["dunst", "mako", "swaync", "xfce4-notifyd", "GNOME", "Plasma"]:
        assert re.search(r"^   " + re.escape(name) + r"$", daemons.group(1), re.M), f"no subsection {name}"
    for needle in ["org.erikreider.swaync.cc", "--replace", "org.kde.plasmashell", "org.gnome.Shell"]:
        assert needle in daemons.group(1), needle
    # The sentence focus-bridge says when a daemon is in the way points here.
    owner = (ROOT / "Sources" / "FocusBridgeControl" / "NameOwner.swift").read_text(encoding="utf-8")
    assert "see DAEMONS in focus-bridge(1)" in owner


WAYBAR_KEYS = ["text", "alt", "tooltip", "class"]


def test_waybar_snippet_in_readme_and_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    page = rendered(ROOT / "man" / "focusctl.1")
    for text in (readme, page):
        assert '"exec": "focusctl watch --waybar"' in text
        assert '"return-type": "json"' in text
    bars = re.search(r"^STATUS BARS\n(.*?)^[A-Z]", page, re.S | re.M).group(1)
    for key in WAYBAR_KEYS:
        assert re.search(r"^\s+" + key + r"\b", bars, re.M), f"waybar key {key} not described"
    # The alt values the snippet's format-icons use are the documented ones.
    icons = re.search(r'"format-icons": \{([^}]*)\}', readme).group(1)
    assert set(re.findall(r'"([a-z-]+)":', icons)) == {"none", "focus", "silent", "off"}


def readme_section(readme, heading):
    """The text under `heading` up to the next heading of its level or above (a `#` line in a
    fenced block is no heading)."""
    level = len(heading.split()[0])
    lines, inside, fenced = [], False, False
    for line in readme.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,%d} " % level, line):
            if inside:
                break
            inside = line == heading
            continue
        if inside:
            lines.append(line)
    assert inside, "README.md has no %r" % heading
    return "\n".join(lines) + "\n"


def sh_commands(text):
    return [[l.split("#")[0].strip() for l in block.splitlines() if l.split("#")[0].strip()]
            for block in re.findall(r"```sh\n(.*?)```", text, re.S)]


def test_readme_starts_with_install_and_keeps_the_two_developer_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(r"^## (.*)$", readme, re.M).group(1) == "Install"
    # The package, the archive and the source, each two commands: install, then enable.
    enable = "systemctl --user enable --now focus-bridge.service"
    first = {}
    for way in ["### The Debian package", "### The release archive", "### From source"]:
        commands = sh_commands(readme_section(readme, way))[0]
        assert commands[-1] == enable, (way, commands)
        first[way] = commands[0]
    assert re.fullmatch(r"sudo apt install \./focus-bridge_[^ ]+_[a-z0-9]+\.deb", first["### The Debian package"])
    assert first["### From source"] == "make install"
    assert sh_commands(readme_section(readme, "### Quick start")) == [["make run", "make test"]]
    for heading in ["## A five-minute tour", "## Compared with running the daemon alone", "## Troubleshooting",
                    "## Installed files", "## Developing"]:
        assert heading in readme, heading


def test_readme_names_the_package_and_archive_make_builds():
    """The file names in README's Install are those `make deb` and `make dist` make."""
    readme = readme_section((ROOT / "README.md").read_text(encoding="utf-8"), "## Install")
    made = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "help"], capture_output=True, text=True,
                          timeout=60, env={k: v for k, v in os.environ.items() if not k.startswith("MAKE")}).stdout
    deb = re.search(r"^make deb .* (focus-bridge_\S+\.deb)$", made, re.M).group(1)
    archive = re.search(r"^make dist .* (focus-bridge-\S+\.tar\.gz)$", made, re.M).group(1)
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
    assert deb.replace("_%s.deb" % arch, "_amd64.deb") in readme
    assert re.sub(r"-[^-]+\.tar\.gz$", "-x86_64.tar.gz", archive) in readme


# --------------------------------------------------------------------------- introspection
def node_signatures(xml):
    gio = pytest.importorskip("gi.repository.Gio")
    node = gio.DBusNodeInfo.new_for_xml(xml)
    return {i.name: ({m.name: ("".join(a.signature for a in m.in_args), "".join(a.signature for a in m.out_args))
                      for m in i.methods},
                     {sg.name: "".join(a.signature for a in sg.args) for sg in i.signals})
            for i in node.interfaces}


@pytest.mark.parametrize("xml_file,name,path", [
    ("org.freedesktop.Notifications.xml", "org.freedesktop.Notifications", "/org/freedesktop/Notifications"),
    ("org.focusbridge.Control1.xml", "org.focusbridge.FocusBridge", "/org/focusbridge/FocusBridge"),
    # on the same connection; the tray switch's two are compared in test_tray.py
    ("com.canonical.Unity.LauncherEntry.xml", "org.focusbridge.FocusBridge", "/org/focusbridge/LauncherEntry"),
])
def test_introspection_xml_is_what_the_bridge_answers(xml_file, name, path, bridge_factory, client):
    bridge_factory("log")
    # The objects are exported during start-up; a Status reply means start-up is over.
    client.status()
    (xml,) = client.call("Introspect", None, "(s)", dest=name, path=path,
                         iface="org.freedesktop.DBus.Introspectable")
    answered = node_signatures(xml)
    documented = node_signatures((ROOT / "dbus" / xml_file).read_text(encoding="utf-8"))
    for interface, shape in documented.items():
        assert answered.get(interface) == shape, f"{interface}: the bridge answers {answered.get(interface)}"


# --------------------------------------------------------------------------- README samples
def readme_tour():
    """The `$ ` commands of the sh blocks of README's tour, in order, each with the output
    lines the README shows under it ("…" ends a sample that shows only its first lines) and
    whether the tour has written its config file by then; and that config file."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    tour = re.search(r"^## A five-minute tour\n(.*?)(?=^## )", readme, re.S | re.M).group(1)
    config = re.search(r"```toml\n(.*?)```", tour, re.S)
    steps = []
    for block in re.finditer(r"^( *)```sh\n(.*?)^ *```", tour, re.S | re.M):
        indent, body = len(block.group(1)), block.group(2)
        for line in body.splitlines():
            line = line[indent:]
            if line.startswith("$ "):
                steps.append((line[2:], [], block.start() > config.start()))
            elif line.strip() and steps:
                steps[-1][1].append(line)
    return steps, config.group(1)


def sample_pattern(line):
    """A README output line as a regex: numbers are any numbers, a time may be another day's."""
    pattern = re.sub(r"\d+", r"\\d+", re.escape(line))
    return pattern.replace(r"\d+:\d+", r"(?:[A-Z][a-z]{2} )?\d+:\d+")


def status_rows(lines):
    rows = []
    for line in lines:
        match = re.match(r"(\S+(?: \S+)*?)( {2,})(.*)$", line)
        assert match, "not a status row: %r" % line
        rows.append((match.group(1), len(match.group(1)) + len(match.group(2)), match.group(3)))
    return rows


def test_readme_tour_samples_are_what_focusctl_prints(bridge_factory, bus, tmp_path):
    """The tour's commands, run as typed against a real bridge in log mode (the tour's config
    file written where the tour writes it): every output line the README shows is what
    focusctl prints, numbers and times aside; `status` has the same rows, in the same order
    and columns, and the same Focus and silent mode."""
    from support.processes import session_env
    steps, config = readme_tour()
    assert [c for c, _, _ in steps][:1] == ["focusctl status"], steps
    assert any(out for c, out, _ in steps if c.startswith("focusctl focus off")), "the tour shows no focus off"
    config_file = tmp_path / "config" / "focus-bridge" / "config.toml"
    bridge_factory("log")
    env = session_env(bus.address, XDG_CONFIG_HOME=tmp_path / "config")
    focusctl = built("focusctl")
    compared = 0
    for command, shown, after_config in steps:
        if after_config and not config_file.exists():
            config_file.parent.mkdir(parents=True, exist_ok=True)
            config_file.write_text(config, encoding="utf-8")
        argv = shlex.split(command, comments=True)
        if argv[0] not in ("focusctl", "notify-send"):
            continue
        argv[0] = focusctl if argv[0] == "focusctl" else argv[0]
        result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, "%s: exit %d, %s" % (command, result.returncode, result.stderr)
        if not shown:
            continue
        compared += 1
        real = result.stdout.splitlines()
        if command == "focusctl status":
            sample = [line for line in shown if line.strip() != "…"]
            want, got = status_rows(sample), status_rows(real)
            assert [r[0] for r in got[:len(want)]] == [r[0] for r in want], (sample, real)
            assert {r[1] for r in want} == {r[1] for r in got}, "the columns differ:\n%s\n%s" % (
                "\n".join(sample), "\n".join(real))
            for (label, _, value), (_, _, real_value) in zip(want, got):
                if label in ("Focus", "Silent"):
                    assert value == real_value, (label, value, real_value)
            continue
        assert len(real) == len(shown), (command, shown, real)
        for line, output in zip(shown, real):
            assert re.fullmatch(sample_pattern(line), output), "%s: README shows %r, focusctl printed %r" % (
                command, line, output)
    assert config_file.exists() and compared >= 3
