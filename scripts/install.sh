#!/usr/bin/env bash
# Installs FocusBridge (`make install`), removes it (`make uninstall`, through
# scripts/uninstall.sh) or lists the files it installs.
#
#   scripts/install.sh install BUILT_DIR   install the binaries of BUILT_DIR and the rest
#   scripts/install.sh uninstall           remove exactly the files install puts
#   scripts/install.sh list                print the installed paths, one a line
#   scripts/install.sh sources             print the files of the source tree it reads
#                                          (what the release archive carries besides bin/)
#
# Folders come from the environment (empty = default), as the Makefile passes them:
#   PREFIX          default ~/.local. A PREFIX inside $HOME is a per-user install.
#   DESTDIR         staging root, prepended to every path (packaging, tests).
#   BINDIR          PREFIX/bin
#   DATADIR         PREFIX/share
#   MANDIR          DATADIR/man
#   DOCDIR          DATADIR/doc/focus-bridge
#   BASHCOMPDIR     DATADIR/bash-completion/completions
#   ZSHCOMPDIR      DATADIR/zsh/site-functions
#   FISHCOMPDIR     DATADIR/fish/vendor_completions.d
#   DBUSSERVICEDIR  per-user: DATADIR/dbus-1/services; else DATADIR/focus-bridge
#   UNITDIR         per-user: DATADIR/systemd/user; else PREFIX/lib/systemd/user
#   AUTOSTARTDIR    per-user: ${XDG_CONFIG_HOME:-~/.config}/autostart;
#                   else DATADIR/focus-bridge
#   STRIP           program that strips the installed binaries; empty keeps symbols
#
# A per-user install is the person's own choice of a notification service: its activation file
# and autostart entry go where their session reads them. A system-wide install (the Debian
# package is one) must not start FocusBridge in every user's session unasked, nor offer a second
# activation file for org.freedesktop.Notifications beside the daemons' in a folder the bus
# reads (which one it starts is then left to chance): both files go to DATADIR/focus-bridge, for
# each person to link into their own folders, and the unit is installed but enabled by no one.
#
# focusctl's completion scripts are generated from the binary being installed
# (swift-argument-parser's --generate-completion-script), so they always match
# the commands it has; focus-bridge, which has no argument-parser,
# has its few options completed by the scripts in completions/. @bindir@ in the
# unit, the activation file and the autostart entry becomes BINDIR (without DESTDIR).
set -euo pipefail
# Folders made here are readable by everyone (a system-wide install under umask 077 would
# make them unreadable by the other users); files get their own modes.
umask 022

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
say() { printf 'install: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

PREFIX=${PREFIX:-"$HOME/.local"}
# `make install PREFIX=~/.local` from a shell that does not expand the tilde.
# shellcheck disable=SC2088  # the literal tilde is what is matched
case "$PREFIX" in
    "~") PREFIX=$HOME ;;
    "~/"*) PREFIX=$HOME/${PREFIX#\~/} ;;
esac
PREFIX=${PREFIX%/}
[ -n "$PREFIX" ] || PREFIX=/
case "$PREFIX" in
    /*) ;;
    *) die "PREFIX must be an absolute path (not '$PREFIX')" ;;
esac
DESTDIR=${DESTDIR:-}
DESTDIR=${DESTDIR%/}

per_user=0
case "$PREFIX/" in
    "$HOME"/*) [ -n "$HOME" ] && [ "$HOME" != / ] && per_user=1 ;;
esac

BINDIR=${BINDIR:-$PREFIX/bin}
DATADIR=${DATADIR:-$PREFIX/share}
MANDIR=${MANDIR:-$DATADIR/man}
DOCDIR=${DOCDIR:-$DATADIR/doc/focus-bridge}
BASHCOMPDIR=${BASHCOMPDIR:-$DATADIR/bash-completion/completions}
# Debian's zsh reads packages' completions from vendor-completions, not /usr/share/zsh/site-functions.
case "$PREFIX" in
    /usr) ZSHCOMPDIR=${ZSHCOMPDIR:-$DATADIR/zsh/vendor-completions} ;;
    *) ZSHCOMPDIR=${ZSHCOMPDIR:-$DATADIR/zsh/site-functions} ;;
esac
FISHCOMPDIR=${FISHCOMPDIR:-$DATADIR/fish/vendor_completions.d}
if [ "$per_user" -eq 1 ]; then
    UNITDIR=${UNITDIR:-$DATADIR/systemd/user}
    AUTOSTARTDIR=${AUTOSTARTDIR:-${XDG_CONFIG_HOME:-$HOME/.config}/autostart}
    DBUSSERVICEDIR=${DBUSSERVICEDIR:-$DATADIR/dbus-1/services}
else
    UNITDIR=${UNITDIR:-$PREFIX/lib/systemd/user}
    AUTOSTARTDIR=${AUTOSTARTDIR:-$DATADIR/focus-bridge}
    DBUSSERVICEDIR=${DBUSSERVICEDIR:-$DATADIR/focus-bridge}
fi
STRIP=${STRIP-strip}

programs=(focus-bridge focusctl)

# Every installed file as "MODE SOURCE TARGET": SOURCE is a file of the source
# tree, "bin:NAME" (a built binary), "subst:FILE" (@bindir@ replaced) or
# "completion:SHELL:NAME" (generated from binary NAME).
manifest() {
    local p
    for p in "${programs[@]}"; do
        echo "0755 bin:$p $BINDIR/$p"
    done
    echo "0644 man/focus-bridge.1 $MANDIR/man1/focus-bridge.1"
    echo "0644 man/focusctl.1 $MANDIR/man1/focusctl.1"
    echo "0644 man/focus-bridge.toml.5 $MANDIR/man5/focus-bridge.toml.5"
    echo "0644 completions/focus-bridge.bash $BASHCOMPDIR/focus-bridge"
    echo "0644 completions/_focus-bridge $ZSHCOMPDIR/_focus-bridge"
    echo "0644 completions/focus-bridge.fish $FISHCOMPDIR/focus-bridge.fish"
    echo "0644 completion:bash:focusctl $BASHCOMPDIR/focusctl"
    echo "0644 completion:zsh:focusctl $ZSHCOMPDIR/_focusctl"
    echo "0644 completion:fish:focusctl $FISHCOMPDIR/focusctl.fish"
    echo "0644 subst:Config/focus-bridge.service $UNITDIR/focus-bridge.service"
    echo "0644 subst:Config/focus-bridge.desktop $AUTOSTARTDIR/focus-bridge.desktop"
    echo "0644 subst:dbus/org.freedesktop.Notifications.service $DBUSSERVICEDIR/org.freedesktop.Notifications.service"
    echo "0644 Config/config.example.toml $DOCDIR/config.example.toml"
}

# Writes $2 (a path under DESTDIR) from the source $1 with mode $3.
put() {
    local source=$1 target=$2 mode=$3 built=$4 tmp
    mkdir -p "$(dirname "$target")"
    tmp=$(mktemp "$(dirname "$target")/.focus-bridge-install.XXXXXX")
    case "$source" in
        bin:*)
            cp "$built/${source#bin:}" "$tmp"
            if [ -n "$STRIP" ]; then
                # STRIP may carry options (the Debian package's drops .comment too).
                local -a strip_command
                read -ra strip_command <<< "$STRIP"
                "${strip_command[@]}" "$tmp" || die "could not strip ${source#bin:} with '$STRIP' (STRIP= keeps the symbols)"
            fi
            ;;
        subst:*)
            sed "s|@bindir@|$BINDIR|g" "$root/${source#subst:}" > "$tmp"
            ;;
        completion:*)
            local rest=${source#completion:}
            local shell=${rest%%:*} program=${rest#*:}
            # A completion script is sourced, never run: the #! line bash's begins with is dropped.
            "$built/$program" --generate-completion-script "$shell" | sed '1{/^#!/d}' > "$tmp" \
                || die "$built/$program could not generate its $shell completion script"
            [ -s "$tmp" ] || die "$built/$program generated an empty $shell completion script"
            ;;
        *)
            cp "$root/$source" "$tmp"
            ;;
    esac
    chmod "$mode" "$tmp"
    mv -f "$tmp" "$target"
}

do_install() {
    local built=${1:-}
    [ -n "$built" ] || die "usage: install.sh install BUILT_DIR"
    built=$(cd "$built" 2>/dev/null && pwd) || die "no such folder: $1 (build first: make release)"
    local p
    for p in "${programs[@]}"; do
        [ -x "$built/$p" ] || die "$built/$p is not built (make release)"
    done
    local mode source target
    while read -r mode source target; do
        put "$source" "$DESTDIR$target" "$mode" "$built"
        say "installed $DESTDIR$target"
    done < <(manifest)
    [ -n "$DESTDIR" ] && return 0
    hints
}

# Prints, one a line, the folders the session searches for FILE's kind ($1: unit,
# activation or autostart), from the environment the install runs in.
search_folders() {
    local config=${XDG_CONFIG_HOME:-$HOME/.config} data=${XDG_DATA_HOME:-$HOME/.local/share} d
    local IFS=:
    case "$1" in
        unit)
            # systemd.unit(5), user units
            printf '%s\n' "$config/systemd/user" /etc/systemd/user "$data/systemd/user"
            for d in ${XDG_DATA_DIRS:-/usr/local/share:/usr/share}; do printf '%s\n' "$d/systemd/user"; done
            printf '%s\n' /usr/local/lib/systemd/user /usr/lib/systemd/user /lib/systemd/user
            ;;
        activation)
            # dbus-daemon(1), standard_session_servicedirs
            [ -n "${XDG_RUNTIME_DIR:-}" ] && printf '%s\n' "$XDG_RUNTIME_DIR/dbus-1/services"
            printf '%s\n' "$data/dbus-1/services"
            for d in ${XDG_DATA_DIRS:-/usr/local/share:/usr/share}; do printf '%s\n' "$d/dbus-1/services"; done
            printf '%s\n' /usr/share/dbus-1/services
            ;;
        autostart)
            # XDG Autostart specification
            printf '%s\n' "$config/autostart"
            for d in ${XDG_CONFIG_DIRS:-/etc/xdg}; do printf '%s\n' "$d/autostart"; done
            ;;
    esac
}

# Whether the session finds files put in folder $2 ($1: their kind).
session_finds() {
    local folder=${2%/} d
    while read -r d; do
        [ "${d%/}" = "$folder" ] && return 0
    done < <(search_folders "$1")
    return 1
}

# What to do next, for a real (not staged) install: which of the installed files the session
# will find, which it will not, and the line that makes each found.
hints() {
    local unit=$UNITDIR/focus-bridge.service
    local activation=$DBUSSERVICEDIR/org.freedesktop.Notifications.service
    local autostart=$AUTOSTARTDIR/focus-bridge.desktop
    local config=${XDG_CONFIG_HOME:-$HOME/.config} data=${XDG_DATA_HOME:-$HOME/.local/share}
    local systemd=0 unit_found=0 autostart_found=0 missing=0 session
    # A user systemd manager runs this session when its socket is there (systemctl --user talks
    # to it); a machine booted with systemd may have none (a window manager from startx, a
    # container): then systemctl --user fails, and no advice names it.
    if command -v systemctl >/dev/null 2>&1 && [ -S "${XDG_RUNTIME_DIR:-/run/user/$(id -u)}/systemd/private" ]; then
        systemd=1
    fi
    session=$(session_kind)
    session_finds unit "$UNITDIR" && unit_found=1
    session_finds autostart "$AUTOSTARTDIR" && autostart_found=1
    say "done. What your session will find:"
    if [ "$unit_found" -eq 1 ]; then
        say "    found:     $unit (systemd reads user units there)"
    else
        missing=1
        say "    not found: $unit (no folder systemd reads user units from); to make it found:"
        say "               systemctl --user link $unit"
    fi
    if session_finds activation "$DBUSSERVICEDIR"; then
        say "    found:     $activation (D-Bus activation)"
    else
        missing=1
        say "    not found: $activation (on no session bus's search path); to make it found:"
        say "               mkdir -p $data/dbus-1/services && ln -sf $activation $data/dbus-1/services/"
    fi
    if [ "$autostart_found" -eq 1 ]; then
        say "    found:     $autostart (XDG autostart)"
    else
        missing=1
        say "    not found: $autostart (no folder XDG autostart reads); to make it found:"
        say "               mkdir -p $config/autostart && ln -sf $autostart $config/autostart/"
    fi
    say "To run it with your session:"
    if [ "$systemd" -eq 1 ] && [ "$unit_found" -eq 1 ]; then
        say "    systemctl --user daemon-reload"
        say "    systemctl --user enable --now focus-bridge.service"
    elif [ "$systemd" -eq 1 ]; then
        say "    after the 'systemctl --user link' line above: systemctl --user enable --now focus-bridge.service"
    elif [ "$session" = wm ]; then
        say "    your window manager reads no autostart entries: in its configuration, replace the line"
        say "    that starts your daemon ('exec dunst') with 'exec $BINDIR/focus-bridge'; now: $BINDIR/focus-bridge &"
    elif [ "$autostart_found" -eq 1 ]; then
        say "    without a user systemd manager, $autostart starts it at your next login"
        [ "$session" = desktop ] || say "    where the session runs autostart entries (desktops do; with a window manager, add 'exec $BINDIR/focus-bridge' to its configuration)"
    else
        say "    it will not start by itself: run the 'ln' line for the autostart entry above,"
        say "    or add 'exec $BINDIR/focus-bridge' to your window manager's start-up; now: $BINDIR/focus-bridge &"
    fi
    case ":$PATH:" in
        *":$BINDIR:"*) ;;
        *) say "note: $BINDIR is not on your PATH; add it to use focusctl (export PATH=$BINDIR:\$PATH)" ;;
    esac
    if [ "$per_user" -eq 1 ] && [ "$ZSHCOMPDIR" = "$DATADIR/zsh/site-functions" ]; then
        say "zsh: add 'fpath=($ZSHCOMPDIR \$fpath)' before compinit in ~/.zshrc for the completions"
    fi
    [ "$missing" -eq 0 ] || say "(the folders searched are read from XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_DATA_DIRS and XDG_CONFIG_DIRS as set here)"
    say "then: focus-bridge --print-downstream shows which daemon it will put behind itself,"
    say "and focusctl doctor checks it all once it runs."
}

# What runs this session, as focusctl's SessionKind reads it: "wm" for a window manager that
# starts what its own configuration says, "desktop" for one whose session runs autostart
# entries, "" when neither is known.
session_kind() {
    if [ -n "${SWAYSOCK:-}" ] || [ -n "${I3SOCK:-}" ] || [ -n "${HYPRLAND_INSTANCE_SIGNATURE:-}" ]; then
        echo wm
        return
    fi
    local word
    for word in $(printf '%s' "${XDG_CURRENT_DESKTOP:-}:${XDG_SESSION_DESKTOP:-}:${DESKTOP_SESSION:-}" | tr ':A-Z' ' a-z'); do
        case "$word" in
            gnome* | kde | xfce | lxqt | lxde | mate | *cinnamon | budgie* | unity | pantheon | deepin | openbox) echo desktop; return ;;
            sway | i3 | hyprland | bspwm | river | qtile | herbstluftwm | awesome | dwm | xmonad | wayfire | niri) echo wm; return ;;
        esac
    done
}

do_uninstall() {
    local mode source target
    if [ -z "$DESTDIR" ] && command -v systemctl >/dev/null 2>&1 \
        && systemctl --user is-enabled --quiet focus-bridge.service 2>/dev/null; then
        say "note: focus-bridge.service is enabled; 'systemctl --user disable --now focus-bridge.service' removes its links"
    fi
    while read -r mode source target; do
        if [ -e "$DESTDIR$target" ] || [ -L "$DESTDIR$target" ]; then
            rm -f "$DESTDIR$target"
            say "removed $DESTDIR$target"
        fi
    done < <(manifest)
    if [ -n "$DESTDIR" ] && [ -d "$DESTDIR" ]; then
        # In a staging root the folders are ours too: remove those left empty,
        # up to DESTDIR (twice, so that the order of the folders does not matter).
        local _
        for _ in 1 2; do
            manifest | while read -r _ _ target; do
                dirname "${target#/}"
            done | sort -u | (cd "$DESTDIR" || exit 0; xargs -r rmdir -p --ignore-fail-on-non-empty 2>/dev/null || true)
        done
    else
        # The folders that are FocusBridge's own (left when something else was put there).
        rmdir "$DOCDIR" "$DATADIR/focus-bridge" 2>/dev/null || true
    fi
}

case "${1:-}" in
    install) shift; do_install "$@" ;;
    uninstall) do_uninstall ;;
    list) manifest | while read -r _ _ target; do echo "$DESTDIR$target"; done ;;
    sources)
        manifest | while read -r _ source _; do
            case "$source" in
                bin:* | completion:*) ;;
                subst:*) echo "${source#subst:}" ;;
                *) echo "$source" ;;
            esac
        done
        ;;
    *) die "usage: install.sh install BUILT_DIR | uninstall | list | sources" ;;
esac
