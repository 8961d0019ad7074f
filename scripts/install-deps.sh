#!/usr/bin/env bash
# Installs the Debian packages FocusBridge needs to build and test, and only
# those that are missing. Quiet when nothing is missing.
#
#   install-deps.sh         everything `make test` needs (daemons, desktops, tools)
#   install-deps.sh --run   only what building and `make run` need
#   install-deps.sh --bench what `make bench` needs
#   install-deps.sh --package  what `make deb` and `make dist` need besides building
#
# Runs apt-get update once, and only when something has to be installed.
# Non-interactive. As root (CI) it calls apt-get directly; otherwise through
# sudo when sudo exists.
set -euo pipefail

packages=(
    # build
    libglib2.0-dev      # the GLib main loop, GVariant, g_spawn (libglib only: no GIO)
    libxcb1-dev         # X11 windows (EWMH): the window in front
    libsqlite3-dev      # SQLite (the store, through Sources/CSQLite)
    libsystemd-dev      # sd-bus: the bus hot path (through Sources/CSystemd)
    pkg-config
    # bus and tests
    libglib2.0-bin      # gdbus
    dbus-daemon
    dbus-bin            # dbus-send
    libnotify-bin       # notify-send
    xvfb                # an X display for dunst in the tests
    x11-utils           # xdpyinfo
    binutils            # readelf, nm: the daemon links no Foundation (test_lean_daemon.py)
    dunst               # a real notification daemon behind the bridge
    python3-gi          # for /usr/bin/python3
    python3-dbus
    python3-pytest
    gir1.2-notify-0.7   # libnotify from Python
    # session services the daemon reaches through the relay (test_session_relay.py)
    dconf-service       # the session's dconf writer, activated on a test session bus
    dconf-gsettings-backend  # GSettings writing through dconf, as swaync does
    at-spi2-core        # org.a11y.Bus (at-spi-bus-launcher)
    sway                # a headless compositor for real swaync (run as nobody)
    sway-notification-center  # swaync: its Do Not Disturb goes through dconf
    xfce4-notifyd       # reads its settings from xfconf
    xfconf              # xfconfd and xfconf-query
    # daemons: a real daemon outside PATH that allows replacement, for auto mode
    # and --replace (test_auto_mode.py)
    notification-daemon
    # the window in front: a Wayland terminal under headless sway, an X11 window
    # manager with a terminal, and wmctrl to make a window fullscreen (test_windows.py)
    foot
    openbox
    xterm
    wmctrl
    # docs and install
    mandoc              # man page lint
    zsh                 # the installed zsh completion scripts are loaded in a test
    fish                # the installed fish completion scripts are loaded in a test
    # sharing a Focus: two real sync engines between two bridges (Tests/integration/test_share.py)
    syncthing
    # a real browser: its pages' notifications are their sites' (Tests/integration/test_browsers.py)
    chromium
    # the report's picture drawn once as pixels (rsvg-convert: Tests/integration/test_report.py)
    librsvg2-bin
    # the package and the archive (make deb, make dist, make test-package: test_package.py)
    dpkg-dev            # dpkg-shlibdeps, dpkg-gencontrol, dpkg-parsechangelog
    lintian
    debootstrap         # a clean Debian 12 root to install them on
)

# Desktops: real GNOME Shell 43 and plasmashell 5.27, headless, behind the bridge
# (Tests/integration/test_gnome.py, test_plasma.py; they skip when these are missing).
# Measured on Debian 12, --no-install-recommends: gnome-shell + gjs 59 MB download, ~50 s;
# plasma-workspace + plasma-desktop ~265 MB download, 772 MB on disk, ~160 s.
desktop_packages=(
    gnome-shell         # gnome-shell --headless, and its notification helper run by...
    gjs                 # ...gjs (not pulled in without recommends)
    gnome-shell-extension-appindicator  # the tray switch in GNOME's top bar (test_tray_gnome.py)
    plasma-workspace    # plasmashell under Xvfb; plasma-workspace alone fails
    plasma-desktop      # ("starting invalid corona")
    systemd             # busctl monitor: what the bridge forwards to plasmashell
    xdg-desktop-portal  # the portal a Flatpak app notifies through, and its GNOME backend for
    xdg-desktop-portal-gtk  # notifications, which passes them to org.gtk.Notifications (test_portal.py)
)
packages+=("${desktop_packages[@]}")

# Interop: every real daemon behind the bridge, a screen for each and
# the tools that look at it and click on it (Tests/integration/test_interop.py; a daemon that is
# missing is skipped). Some are in the lists above too: this group stands on its own.
interop_packages=(
    dunst               # X11
    mako-notifier       # mako, makoctl (Wayland)
    sway-notification-center  # swaync, swaync-client (Wayland)
    xfce4-notifyd       # X11
    notification-daemon # X11
    lxqt-notificationd  # X11
    sway                # a headless compositor for mako and swaync (run as nobody)
    grim                # Wayland screenshots
    waybar              # its tray hosts the tray switch (test_tray.py, under headless sway)
    libwayland-dev      # building ../shared/tools/vclick (clicks on sway)
    libwayland-bin      # wayland-scanner, for the same
    gcc                 # the same
    libc6-dev           # the same
    xvfb                # the X11 daemons' screen
    xdotool             # X11 clicks
    imagemagick         # import -window root: X11 screenshots
    xfconf              # xfconfd and xfconf-query: xfce4-notifyd's Do Not Disturb
    dconf-service       # the session's dconf: swaync's Do Not Disturb
)
packages+=("${interop_packages[@]}")

# What building and trying it out need (`make build`, `make run`, `make install`): not the
# daemons, desktops and tools of the test suite (hundreds of megabytes).
run_packages=(
    libglib2.0-dev libsqlite3-dev libxcb1-dev libsystemd-dev pkg-config  # build
    libglib2.0-bin dbus-daemon dbus-bin       # gdbus, the private bus of `make run`
    libnotify-bin                             # notify-send, to send it something
)
# `make bench`: building and running, dunst on Xvfb, and the reference proxies built from
# ../shared/perf-floor/src (sd-bus, libdbus) measured under valgrind's callgrind.
bench_packages=(
    "${run_packages[@]}"
    dunst xvfb                                # focus-bench: through the bridge against dunst
    gcc libc6-dev libdbus-1-dev               # scripts/bench-references.sh
    valgrind binutils                         # instructions per Notify (callgrind, objcopy)
)
# `make deb`, `make dist`: the Debian tools that make the package (dpkg-deb itself is in dpkg),
# and strip and readelf.
package_packages=(dpkg-dev binutils)
if [ "${1:-}" = "--run" ]; then
    packages=("${run_packages[@]}")
elif [ "${1:-}" = "--bench" ]; then
    packages=("${bench_packages[@]}")
elif [ "${1:-}" = "--package" ]; then
    packages=("${package_packages[@]}")
fi

missing=()
for pkg in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    case "$status" in
        *" ok installed") ;;
        *) missing+=("$pkg") ;;
    esac
done

if [ "${#missing[@]}" -eq 0 ]; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
else
    echo "install-deps: missing Debian packages: ${missing[*]}" >&2
    echo "install-deps: not root and no sudo; install them as root with: apt-get install ${missing[*]}" >&2
    exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt_options=(-q -y -o DPkg::Lock::Timeout=300 -o Dpkg::Use-Pty=0)
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_options[@]}" update
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_options[@]}" \
    install --no-install-recommends "${missing[@]}" </dev/null
