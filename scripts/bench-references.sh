#!/usr/bin/env bash
# Builds the reference D-Bus proxies of ../shared/perf-floor/src (minimal C programs with
# FocusBridge's behaviour on sd-bus, libdbus and GDBus, their null daemon and their sd-bus
# client) into OUT (default .build-bench/refs), for `make bench` (scripts/bench_references.py).
# Nothing is copied into the project: the sources are read where they are.
#
#   scripts/bench-references.sh [OUT]     prints OUT on success
#
# Exits 0 and says why on stderr (one line) when the sources or a compiler are not there; a
# reference whose library is missing (pkg-config) is left out with one line.
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
src=${PERF_FLOOR:-$here/../shared/perf-floor}/src
out=${1:-$here/.build-bench/refs}
cc=${CC:-cc}
cflags=${REF_CFLAGS:--O2 -g -Wall -Wno-unused-parameter}

if [ ! -d "$src" ]; then
    echo "bench-references: no $src here: the reference rows are skipped" >&2
    exit 0
fi
if ! command -v "$cc" >/dev/null 2>&1 || ! command -v pkg-config >/dev/null 2>&1; then
    echo "bench-references: no C compiler or pkg-config: the reference rows are skipped" >&2
    exit 0
fi
mkdir -p "$out"

# build NAME SOURCE "PKG..." [EXTRA CFLAGS]; only when the source is newer than the binary
build() {
    local name=$1 source=$src/$2 pkgs=$3 extra=${4:-}
    [ -f "$source" ] || { echo "bench-references: $source missing: $name left out" >&2; return; }
    if ! pkg-config --exists $pkgs; then
        echo "bench-references: pkg-config has no $pkgs (make bench installs it on Debian): $name left out" >&2
        return
    fi
    if [ "$out/$name" -nt "$source" ]; then return; fi
    # shellcheck disable=SC2046,SC2086
    $cc $cflags $extra -o "$out/$name" "$source" $(pkg-config --cflags --libs $pkgs) \
        || echo "bench-references: $name did not build: left out" >&2
}

build nulld nulld.c libsystemd
build client client.c libsystemd
build proxy-sdbus proxy-sdbus.c libsystemd
build proxy-libdbus proxy-libdbus.c dbus-1
build proxy-gdbus proxy-gdbus.c "gio-2.0 gio-unix-2.0"
build proxy-gdbus-sqlite proxy-gdbus.c "gio-2.0 gio-unix-2.0 sqlite3" -DWITH_SQLITE
echo "$out"
