#!/usr/bin/env bash
# Builds FocusBridge's libFuzzer targets (the package in Fuzz/) and runs each one for a bounded
# time. `make fuzz` runs it; `make test` runs `FUZZ_CONFIG=debug scripts/fuzz.sh --replay`, so the
# fuzz package cannot drift from the product.
#
#   scripts/fuzz.sh                 every target
#   scripts/fuzz.sh fuzz-config     only the targets named
#   scripts/fuzz.sh --build-only    build, run nothing
#   scripts/fuzz.sh --replay        run each target over its committed seeds and crash
#                                   reproducers only (no fuzzing): a quick check after a fix
#
# Environment:
#   FUZZ_SECONDS   fuzzing time per target, in seconds (default 60)
#   FUZZ_SCRATCH   build folder (default .build-fuzz, git-ignored)
#   FUZZ_ARGS      further libFuzzer flags, e.g. FUZZ_ARGS='-fork=2 -ignore_crashes=1'
#   FUZZ_STORE=0   leave the state database out of the Notify targets (faster)
#   FUZZ_CONFIG    release (default: about three times the executions per second) or debug
#                  (builds in less than half the time: what `make test` uses to build and replay)
#
# What grows the corpus goes to $FUZZ_SCRATCH/corpus/<target>/ (kept between runs, not
# committed); the committed seeds in Fuzz/corpus/<target>/ are read, never written. A crash,
# leak, timeout or out-of-memory input is saved to Fuzz/crashes/<target>/ and the script exits 1
# after the remaining targets ran; 2 when the build fails.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

if ! command -v swift >/dev/null 2>&1; then export PATH=/opt/swift/usr/bin:$PATH; fi

seconds=${FUZZ_SECONDS:-60}
scratch=${FUZZ_SCRATCH:-.build-fuzz}
config=${FUZZ_CONFIG:-release}
case "$config" in
    release|debug) ;;
    *) echo "fuzz.sh: FUZZ_CONFIG must be release or debug, not \"$config\"" >&2; exit 2 ;;
esac
all_targets=(fuzz-notify fuzz-notify-text fuzz-config fuzz-json)
build_only=0
replay=0
targets=()
for arg in "$@"; do
    case "$arg" in
        --build-only) build_only=1 ;;
        --replay) replay=1 ;;
        fuzz-notify|fuzz-notify-text|fuzz-config|fuzz-json) targets+=("$arg") ;;
        -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "fuzz.sh: unknown target or option \"$arg\" (targets: ${all_targets[*]})" >&2; exit 2 ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

# The fuzz package resolves the product's dependencies at the versions the product uses.
if [ -f Package.resolved ] && [ ! -f Fuzz/Package.resolved ]; then cp Package.resolved Fuzz/Package.resolved; fi

# SwiftPM's --sanitize=fuzzer --sanitize=address reaches swiftc as two -sanitize= options, and
# swiftc keeps only the last: the product's modules would be built with AddressSanitizer but no
# coverage, so libFuzzer would fuzz blind. -Xswiftc -sanitize=fuzzer,address comes last and wins;
# --sanitize=fuzzer stays for the link (libFuzzer's main()). C code built here (none since GRDB
# went: SQLite is the system's library) would get coverage through -fsanitize=fuzzer-no-link. -enable-testing lets the targets
# `@testable import FocusBridgeServer` (see Fuzz/README.md; a debug build has it anyway).
# Release: about three times the executions per second of a debug build.
echo "fuzz: building the fuzz targets in $scratch ($config, libFuzzer + AddressSanitizer)"
if swift build --package-path Fuzz --scratch-path "$scratch" -c "$config" \
        --sanitize=fuzzer --sanitize=address \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing \
        -Xcc -fsanitize=fuzzer-no-link,address -Xcxx -fsanitize=fuzzer-no-link,address \
        2>&1 | { grep -v -e "Cannot export local symbol" -e "prohibited flag(s): -pthread" || true; }; then
    :
else
    echo "fuzz: the build failed" >&2
    exit 2
fi
bin=$(swift build --package-path Fuzz --scratch-path "$scratch" -c "$config" --show-bin-path)
[ $build_only = 0 ] || exit 0

state=$(mktemp -d "${TMPDIR:-/tmp}/focus-bridge-fuzz.XXXXXX")
trap 'rm -rf "$state"' EXIT

# The Swift runtime's own crash backtracer would catch the signals before libFuzzer does (and
# trips AddressSanitizer reading memory); GLib criticals are turned into aborts by the targets.
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS="suppressions=$root/Fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export FUZZ_STATE_DIR=$state
unset G_DEBUG

failed=()
for target in "${targets[@]}"; do
    name=${target#fuzz-}
    seeds=Fuzz/corpus/$name
    crashes=Fuzz/crashes/$name
    work=$scratch/corpus/$name
    mkdir -p "$work" "$crashes"
    case "$name" in
        notify) options=(-max_len=16384) ;;
        notify-text) options=(-max_len=16384 -dict=Fuzz/dict/notify-text.dict) ;;
        config) options=(-max_len=16384 -dict=Fuzz/dict/config.dict) ;;
        json) options=(-max_len=16384 -dict=Fuzz/dict/json.dict) ;;
    esac
    log=$state/$name.log
    marker=$state/$name.start
    touch "$marker"
    status=0
    if [ $replay = 1 ]; then
        inputs=("$seeds"/*)
        for file in "$crashes"/*; do [ -f "$file" ] && inputs+=("$file"); done
        echo "fuzz: $target: replaying ${#inputs[@]} committed inputs"
        "$bin/$target" -runs=1 "${inputs[@]}" >"$log" 2>&1 || status=$?
    else
        echo "fuzz: $target: fuzzing for ${seconds}s (corpus $work, seeds $seeds)"
        # shellcheck disable=SC2086 # FUZZ_ARGS is a list of flags
        "$bin/$target" "${options[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
            -print_final_stats=1 -artifact_prefix="$crashes/" ${FUZZ_ARGS:-} "$work" "$seeds" >"$log" 2>&1 || status=$?
        grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)" "$log" \
            | sed "s/^/fuzz: $target: /" || true
    fi
    if [ $status != 0 ]; then
        failed+=("$target")
        echo "fuzz: $target FAILED (exit $status); the end of its log:" >&2
        grep -v -e "^    #[0-9]" -e "^  0x" "$log" | grep -E -A12 "ERROR|INVARIANT|FUZZ: GLib|Fatal error|deadly signal" | head -40 >&2 || true
        grep -E -A4 "^    #[0-9]+ .*(FocusBridge|FuzzSupport|g_variant)" "$log" | head -30 >&2 || true
        find "$crashes" -type f -newer "$marker" | while read -r file; do
            echo "fuzz: $target: reproducer saved: $file (run: $bin/$target $file)" >&2
        done
        cp "$log" "$scratch/$name.last-failure.log"
        echo "fuzz: $target: full log in $scratch/$name.last-failure.log" >&2
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: crashes found in: ${failed[*]} (reproducers under Fuzz/crashes/; add a regression test for each)" >&2
    exit 1
fi
echo "fuzz: no crash in ${targets[*]}"
