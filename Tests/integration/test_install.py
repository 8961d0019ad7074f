"""`make install` / `make uninstall`: exactly the files README.md documents, working.

The binaries are those the other tests use (FOCUS_BRIDGE_BIN, default .build/debug): the
Makefile installs them with BUILT=DIR, so no Swift build runs here. Installs go to a
temporary DESTDIR, or to a temporary HOME for the per-user layout; nothing outside the
test's folder is touched.
"""

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from support.processes import BRIDGE_BIN, FOCUSCTL_BIN, require_binary

TEST_TIMEOUT = 180

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PROGRAMS = ["focus-bridge", "focusctl"]


@pytest.fixture(scope="module")
def built():
    require_binary(BRIDGE_BIN, "focus-bridge")
    require_binary(FOCUSCTL_BIN, "focusctl")
    if Path(BRIDGE_BIN).parent != Path(FOCUSCTL_BIN).parent:
        pytest.skip("focus-bridge and focusctl are not in one folder")
    return Path(BRIDGE_BIN).parent


def clean_env(**extra):
    """The environment without anything a parent make or the user's session would leak
    into the install (make's command-line variables travel in MAKEFLAGS)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "DESTDIR", "PREFIX",
                        "BUILT", "STRIP", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "BINDIR", "MANDIR",
                        "DATADIR", "UNITDIR", "AUTOSTARTDIR", "DBUSSERVICEDIR",
                        "BASHCOMPDIR", "ZSHCOMPDIR", "FISHCOMPDIR", "DOCDIR")}
    env.update(extra)
    return env


def make(*args, env, timeout=120):
    result = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), *args], env=env,
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, "make %s failed:\n%s%s" % (" ".join(args), result.stdout, result.stderr)
    return result


def documented_files(prefix, unitdir, autostartdir, dbusservicedir):
    """The list under '## Installed files' in README.md, with its variables filled in."""
    section = re.search(r"^## Installed files\n(.*?)(?=^## )", README, re.S | re.M)
    assert section, "README.md has no '## Installed files' section"
    block = re.search(r"```text\n(.*?)```", section.group(1), re.S)
    assert block, "no file list in '## Installed files'"
    files = set()
    for line in block.group(1).splitlines():
        line = line.strip()
        if not line:
            continue
        line = (line.replace("$PREFIX", prefix).replace("$UNITDIR", unitdir)
                .replace("$AUTOSTARTDIR", autostartdir).replace("$DBUSSERVICEDIR", dbusservicedir))
        assert "$" not in line, "unknown variable in README's file list: %s" % line
        files.add(line)
    return files


def tree(root):
    """Every file and symlink under root, as absolute paths with root cut off."""
    found = set()
    for path in Path(root).rglob("*"):
        if path.is_file() or path.is_symlink():
            found.add("/" + str(path.relative_to(root)))
    return found


def check_installed(root, bindir, files):
    """What every installed file must be, wherever it was installed."""
    for name in files:
        path = Path(str(root) + name)
        mode = stat.S_IMODE(path.stat().st_mode)
        if name.startswith(bindir + "/"):
            assert mode == 0o755, "%s: mode %o" % (name, mode)
        else:
            assert mode == 0o644, "%s: mode %o" % (name, mode)
            text = path.read_text(encoding="utf-8")
            assert "@bindir@" not in text, "%s still has @bindir@" % name
    for suffix in ("focus-bridge.service", "org.freedesktop.Notifications.service",
                   "focus-bridge.desktop"):
        (name,) = [f for f in files if f.endswith("/" + suffix)]
        text = Path(str(root) + name).read_text(encoding="utf-8")
        assert re.search(r"^(ExecStart|Exec)=%s/focus-bridge( |$)" % re.escape(bindir), text, re.M), \
            "%s does not start %s/focus-bridge" % (name, bindir)


def subcommands(binary):
    out = subprocess.run([str(binary), "--help"], capture_output=True, text=True, timeout=30).stdout
    section = re.search(r"^SUBCOMMANDS:\n(.*?)(?:\n\n|\Z)", out, re.S | re.M)
    return sorted(re.findall(r"^  ([a-z][a-z-]*)", section.group(1), re.M)) if section else []


def check_completions(root, files, tmp_path):
    by_suffix = lambda end: Path(str(root) + next(f for f in files if f.endswith(end)))  # noqa: E731
    for program in PROGRAMS:
        bash_file = by_suffix("/bash-completion/completions/" + program)
        r = subprocess.run(["bash", "-c", 'source "$1" && complete -p %s' % program, "bash", str(bash_file)],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 0 and r.stderr == "", "bash completion of %s: %s" % (program, r.stderr)
        assert program in r.stdout

        zsh_file = by_suffix("/zsh/site-functions/_" + program)
        assert zsh_file.read_text(encoding="utf-8").startswith("#compdef %s" % program)
        if shutil.which("zsh"):
            fn = "_" + program
            script = ('autoload -Uz compinit && compinit -u -d "$2" && source "$1" '
                      '&& (( ${+functions[%s]} )) && [[ ${_comps[%s]} == %s ]]' % (fn, program, fn))
            r = subprocess.run(["zsh", "-f", "-c", script, "zsh", str(zsh_file), str(tmp_path / "zcompdump")],
                               capture_output=True, text=True, timeout=30)
            assert r.returncode == 0 and r.stderr == "", "zsh completion of %s: %s" % (program, r.stderr)

        fish_file = by_suffix("/fish/vendor_completions.d/%s.fish" % program)
        if shutil.which("fish"):
            r = subprocess.run(["fish", "--no-config", "-c", 'source $argv[1]; and complete -C "%s -"' % program,
                                str(fish_file)], capture_output=True, text=True, timeout=30,
                               env=clean_env(HOME=str(tmp_path)))
            assert r.returncode == 0 and r.stderr == "", "fish completion of %s: %s" % (program, r.stderr)
            assert "--help" in r.stdout or "--version" in r.stdout, r.stdout


def uncommented(path):
    return "\n".join(line for line in path.read_text(encoding="utf-8").splitlines() if not line.lstrip().startswith("#"))


def test_focus_bridge_completions_offer_what_its_help_lists(built, tmp_path):
    """focus-bridge's completion scripts are written by hand (completions/; focusctl's are
    generated): each names exactly the options `focus-bridge --help` lists, and offers the modes
    of --downstream it lists."""
    out = subprocess.run([str(built / "focus-bridge"), "--help"], capture_output=True, text=True, timeout=30).stdout
    section = re.search(r"^OPTIONS:\n(.*?)(?:\n\n|\Z)", out, re.S | re.M).group(1)
    options = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", section))
    assert {"--config", "--downstream", "--replace", "--help", "--version"} <= options, out
    modes = re.search(r"Where delivered notifications go: ([a-z, ]+)\.", " ".join(section.split())).group(1)
    modes = re.split(r", | or ", modes)
    assert "spawn" in modes and "log" in modes, modes

    folder = ROOT / "completions"
    long_option = r"(?<![\w-])(--[a-z][a-z-]*)"
    assert set(re.findall(long_option, uncommented(folder / "focus-bridge.bash"))) == options
    assert set(re.findall(long_option, uncommented(folder / "_focus-bridge"))) == options
    assert {"--" + o for o in re.findall(r"^complete .*? -l ([a-z-]+)", uncommented(folder / "focus-bridge.fish"), re.M)} == options

    def bash(*words):
        script = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _focus_bridge; '
                  'printf "%s\\n" "${COMPREPLY[@]}"')
        r = subprocess.run(["bash", "-c", script, "bash", str(folder / "focus-bridge.bash"), "focus-bridge", *words],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 0 and r.stderr == "", r.stderr
        return r.stdout.split()
    assert set(bash("-")) == options | {"-h", "--"}
    assert bash("--downstream", "") == modes
    assert bash("--downstream", "=", "s") == ["spawn"]
    # After `--`: the daemon command (a command name, then not focus-bridge's options).
    assert "bash" in bash("--replace", "--", "bas") and bash("--", "bash", "--") == []

    if shutil.which("fish"):
        r = subprocess.run(["fish", "--no-config", "-c", 'source $argv[1]; and complete -C "focus-bridge --downstream "',
                            str(folder / "focus-bridge.fish")], capture_output=True, text=True, timeout=30,
                           env=clean_env(HOME=str(tmp_path)))
        assert r.returncode == 0 and r.stderr == "", r.stderr
        assert sorted(line.split("\t")[0] for line in r.stdout.splitlines()) == sorted(modes), r.stdout


def test_install_into_destdir_is_exactly_the_documented_files(built, tmp_path):
    destdir = tmp_path / "stage"
    destdir.mkdir()
    make("install", "DESTDIR=%s" % destdir, "PREFIX=/usr/local", "BUILT=%s" % built,
         env=clean_env(HOME=str(tmp_path / "home")))
    assert "| `$UNITDIR` | `$PREFIX/share/systemd/user` | `$PREFIX/lib/systemd/user` |" in README
    assert "| `$PREFIX/share/focus-bridge` (read by no session) |" in README
    assert "| `$DBUSSERVICEDIR` | `$PREFIX/share/dbus-1/services` | `$PREFIX/share/focus-bridge` (read by no bus) |" in README
    expected = documented_files("/usr/local", "/usr/local/lib/systemd/user", "/usr/local/share/focus-bridge",
                                "/usr/local/share/focus-bridge")
    assert tree(destdir) == expected
    check_installed(destdir, "/usr/local/bin", expected)
    # A system-wide install starts FocusBridge in no one's session: nothing where sessions and
    # buses look (XDG autostart folders, the bus's service folders).
    assert not [f for f in expected if "/autostart/" in f or "/dbus-1/" in f or f.startswith("/etc/")]

    # The installed programs work and have every command the built ones have.
    installed = destdir / "usr/local/bin"
    for program in PROGRAMS:
        r = subprocess.run([str(installed / program), "--help"], capture_output=True, text=True, timeout=30)
        assert r.returncode == 0 and "USAGE: %s" % program in r.stdout, r.stdout + r.stderr
    assert subcommands(installed / "focusctl") == subcommands(built / "focusctl") != []
    check_completions(destdir, expected, tmp_path)

    # The man pages are the source tree's.
    for page in ["man1/focus-bridge.1", "man1/focusctl.1", "man5/focus-bridge.toml.5"]:
        assert (destdir / "usr/local/share/man" / page).read_bytes() == (ROOT / "man" / Path(page).name).read_bytes()

    make("uninstall", "DESTDIR=%s" % destdir, "PREFIX=/usr/local", env=clean_env(HOME=str(tmp_path / "home")))
    assert list(destdir.iterdir()) == [], "make uninstall left %s" % sorted(tree(destdir))


def test_per_user_install_by_default(built, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = clean_env(HOME=str(home))
    result = make("install", "BUILT=%s" % built, env=env)
    assert "`$PREFIX/share/systemd/user`" in README and "`~/.config/autostart`" in README
    prefix = "%s/.local" % home
    expected = documented_files(prefix, prefix + "/share/systemd/user", "%s/.config/autostart" % home,
                                prefix + "/share/dbus-1/services")
    assert {str(p) for p in home.rglob("*") if p.is_file() or p.is_symlink()} == expected
    check_installed("", prefix + "/bin", expected)
    # A real install says what to do next.
    assert "focus-bridge" in result.stderr

    make("uninstall", env=env)
    assert [p for p in home.rglob("*") if p.is_file() or p.is_symlink()] == []


def test_uninstall_of_nothing_succeeds(tmp_path):
    destdir = tmp_path / "empty"
    destdir.mkdir()
    make("uninstall", "DESTDIR=%s" % destdir, "PREFIX=/usr/local", env=clean_env(HOME=str(tmp_path)))
    assert list(destdir.iterdir()) == []


def test_install_refuses_missing_binaries(tmp_path):
    empty = tmp_path / "nothing-built"
    empty.mkdir()
    destdir = tmp_path / "stage"
    r = subprocess.run(["make", "--no-print-directory", "-C", str(ROOT), "install", "DESTDIR=%s" % destdir,
                        "PREFIX=/usr/local", "BUILT=%s" % empty],
                       env=clean_env(HOME=str(tmp_path)), capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "focus-bridge is not built" in r.stderr
    assert not destdir.exists() or tree(destdir) == set()


def test_install_to_another_prefix_says_what_the_session_will_not_find(built, tmp_path):
    """PREFIX neither in $HOME nor /usr/local or /usr: no session reads its unit, activation or
    autostart folders; make install says so for each, with the line that makes it found, and
    never that it starts at the next login."""
    home = tmp_path / "home"
    home.mkdir()
    prefix = tmp_path / "opt" / "fb"
    env = clean_env(HOME=str(home), PATH="/usr/bin:/bin")
    for key in ("XDG_DATA_DIRS", "XDG_CONFIG_DIRS", "XDG_RUNTIME_DIR"):
        env.pop(key, None)
    result = make("install", "PREFIX=%s" % prefix, "BUILT=%s" % built, "STRIP=", env=env)
    said = result.stderr
    unit = "%s/lib/systemd/user/focus-bridge.service" % prefix
    activation = "%s/share/focus-bridge/org.freedesktop.Notifications.service" % prefix
    autostart = "%s/share/focus-bridge/focus-bridge.desktop" % prefix
    for path in (unit, activation, autostart):
        assert Path(path).is_file(), path
        assert "not found: %s" % path in said, said
    assert "systemctl --user link %s" % unit in said
    assert "ln -sf %s %s/.local/share/dbus-1/services/" % (activation, home) in said
    assert "ln -sf %s %s/.config/autostart/" % (autostart, home) in said
    assert "next login" not in said
    if not Path("/run/systemd/system").is_dir():
        assert "it will not start by itself" in said, said
    assert "%s/bin is not on your PATH" % prefix in said

    # The lines it gives do make them found: then a second install says "found".
    (home / ".local/share/dbus-1/services").mkdir(parents=True)
    (home / ".local/share/dbus-1/services/org.freedesktop.Notifications.service").symlink_to(activation)
    (home / ".config/autostart").mkdir(parents=True)
    (home / ".config/autostart/focus-bridge.desktop").symlink_to(autostart)
    # (the symlinks' own folders are what the session reads; a per-user install there is "found")
    result = make("install", "PREFIX=%s/.local" % home, "BUILT=%s" % built, "STRIP=", env=env)
    assert "not found" not in result.stderr, result.stderr
    if not Path("/run/systemd/system").is_dir():
        assert "starts it at your next login" in result.stderr
    make("uninstall", "PREFIX=%s/.local" % home, env=env)
    make("uninstall", "PREFIX=%s" % prefix, env=env)


def test_make_help_lists_every_target():
    result = make("help", env=clean_env())
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    phony = re.search(r"^\.PHONY: (.*)$", makefile, re.M).group(1).split()
    listed = re.findall(r"^make ([a-z-]+) ", result.stdout, re.M)
    assert sorted(set(phony) - {"all"}) == sorted(listed), result.stdout
    assert all(len(line) <= 100 for line in result.stdout.splitlines())
