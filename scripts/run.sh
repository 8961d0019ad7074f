#!/usr/bin/env bash
# Runs the freshly built focus-bridge for a try-out (`make run`).
#
# - If the session bus in DBUS_SESSION_BUS_ADDRESS answers, focus-bridge runs
#   on it, with the arguments given to this script (`make run ARGS='...'`).
# - Otherwise (or with FOCUS_BRIDGE_PRIVATE_BUS=1) a private dbus-daemon is
#   started with dbus/focus-bridge-private-bus.conf, its address is printed
#   with a command line to copy, and focus-bridge runs on it with
#   `--downstream log` (unless the arguments name another --downstream), so
#   every delivered notification is printed on standard output. The private
#   bus is stopped when focus-bridge exits.
#
# Environment: FOCUS_BRIDGE_BIN (default .build/debug/focus-bridge),
# FOCUS_BRIDGE_PRIVATE_BUS=1 to use a private bus even when the session bus
# answers.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${FOCUS_BRIDGE_BIN:-$root/.build/debug/focus-bridge}
bus_config=$root/dbus/focus-bridge-private-bus.conf

say() { printf 'run: %s\n' "$*" >&2; }

if [ ! -x "$bin" ]; then
    say "$bin is not built yet; run 'make build' first."
    exit 1
fi

# Does the bus at address $1 answer a Peer.Ping within two seconds?
bus_answers() {
    [ -n "$1" ] && dbus-send --bus="$1" --dest=org.freedesktop.DBus \
        --reply-timeout=2000 --print-reply / org.freedesktop.DBus.Peer.Ping \
        >/dev/null 2>&1
}

session=${DBUS_SESSION_BUS_ADDRESS:-}
if [ "${FOCUS_BRIDGE_PRIVATE_BUS:-0}" != 1 ] && bus_answers "$session"; then
    say "running on the session bus $session"
    exec "$bin" "$@"
fi

if [ -n "$session" ] && [ "${FOCUS_BRIDGE_PRIVATE_BUS:-0}" != 1 ]; then
    say "the session bus $session does not answer; starting a private bus."
else
    say "starting a private bus."
fi

# A private bus. dbus-daemon prints its address, then its PID.
bus_output=$(dbus-daemon --config-file="$bus_config" --fork \
    --print-address=1 --print-pid=1)
bus_address=$(printf '%s\n' "$bus_output" | sed -n 1p)
bus_pid=$(printf '%s\n' "$bus_output" | sed -n 2p)
case "$bus_pid" in
    '' | *[!0-9]*)
        say "could not start dbus-daemon (it printed: $bus_output)"
        exit 1
        ;;
esac

bridge_pid=
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
    if [ -n "$bridge_pid" ] && kill -0 "$bridge_pid" 2>/dev/null; then
        kill -TERM "$bridge_pid" 2>/dev/null || true
        wait "$bridge_pid" 2>/dev/null || true
    fi
    kill -TERM "$bus_pid" 2>/dev/null || true
}
trap cleanup EXIT
# Ctrl-C, a hang-up or a TERM stop focus-bridge; the script then returns
# from `wait` below and stops the bus on EXIT.
trap 'if [ -n "$bridge_pid" ]; then kill -TERM "$bridge_pid" 2>/dev/null || true; fi' INT TERM HUP

say "private bus: $bus_address (pid $bus_pid)"

export DBUS_SESSION_BUS_ADDRESS=$bus_address
args=("$@")
downstream_given=0
for arg in "$@"; do
    case "$arg" in
        --) break ;;
        --downstream | --downstream=*) downstream_given=1 ;;
    esac
done
if [ "$downstream_given" -eq 0 ]; then
    args=(--downstream log "${args[@]}")
fi

"$bin" "${args[@]}" &
bridge_pid=$!

# Wait (at most 10 s) until focus-bridge owns the name, then say so.
owned=0
for _ in $(seq 1 100); do
    if ! kill -0 "$bridge_pid" 2>/dev/null; then
        break
    fi
    if dbus-send --bus="$bus_address" --dest=org.freedesktop.DBus \
        --reply-timeout=2000 --print-reply /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.Notifications \
        2>/dev/null | grep -q 'boolean true'; then
        owned=1
        break
    fi
    sleep 0.1
done
if [ "$owned" -eq 1 ]; then
    say "ready. In another terminal:"
    printf "    DBUS_SESSION_BUS_ADDRESS='%s' notify-send Hello World\n" "$bus_address" >&2
    if [ -x "$root/.build/debug/focusctl" ]; then
        printf "    DBUS_SESSION_BUS_ADDRESS='%s' %s history\n" "$bus_address" "$root/.build/debug/focusctl" >&2
    fi
    say "Ctrl-C stops focus-bridge and the private bus."
elif kill -0 "$bridge_pid" 2>/dev/null; then
    say "focus-bridge does not own org.freedesktop.Notifications after 10 s; still waiting for it."
fi

# `wait` returns early when a trapped signal arrives: wait again until
# focus-bridge has really exited, and keep its exit status.
status=0
wait "$bridge_pid" || status=$?
while kill -0 "$bridge_pid" 2>/dev/null; do
    status=0
    wait "$bridge_pid" || status=$?
done
bridge_pid=
exit "$status"
