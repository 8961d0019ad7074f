#!/usr/bin/env python3
"""Writes scripts/link-order.txt: the functions focus-bridge runs to start, idle and pass
notifications, in the order they first ran, for the release link (Makefile, RELEASE_FLAGS).

Why: the kernel maps a binary's code in large blocks around each page the program touches. Laid
out by module, the few hundred KiB of code the daemon runs are spread over most of its 9 MB of
text, and nearly all of it ends up resident. Listed here, the linker (lld,
--symbol-ordering-file) puts them side by side, so idle RSS counts that block and not the whole
text (docs/BENCHMARKS.md). A name that no longer exists is skipped by the linker, so a stale
list costs memory, never correctness: run this again after large changes.

    scripts/bench-references.sh .build-bench/refs      # the reference client and null daemon
    make release                                        # or the bench's release build
    python3 scripts/link_order.py --bridge .build/release/focus-bridge
    rm .build/release/focus-bridge && make release      # SwiftPM relinks only what it misses

It runs the binary under valgrind callgrind (the debug sections stripped: valgrind 3.19 cannot
read DWARF 5) on two private buses: start, 2 s idle, 400 sequential Ping/Notify, 8 × 200
pipelined Notify to the reference null daemon, 2 s idle, SIGTERM.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bench_references as bench  # noqa: E402  (the bench's own buses, proxies and client)


def functions_that_ran(callgrind_out, binary):
    """Mangled names of the functions of `binary` in a callgrind file, first seen first.

    callgrind marks a function met again through recursion with a suffix ('2): the name is
    kept without it. A few dozen pieces of code without a symbol, which callgrind names by
    address, are left out."""
    names, current_object = {}, None
    with open(callgrind_out) as f:
        for line in f:
            if line.startswith("ob="):
                current_object = line[3:].strip()
            elif line.startswith("fn=") and current_object == binary and not line.startswith("fn=0x"):
                names.setdefault(line[3:].strip().split("'")[0], None)
    return list(names)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bridge", default=os.path.join(ROOT, ".build", "release", "focus-bridge"))
    ap.add_argument("--refs", default=os.path.join(ROOT, ".build-bench", "refs"))
    ap.add_argument("--output", default=os.path.join(HERE, "link-order.txt"))
    args = ap.parse_args()
    client = os.path.join(args.refs, "client")
    if not os.access(client, os.X_OK):
        sys.exit(f"link_order.py: no reference client in {args.refs} (run scripts/bench-references.sh {args.refs})")

    work = tempfile.mkdtemp(prefix="link-order-")
    binary = os.path.join(work, "focus-bridge")
    subprocess.run(["objcopy", "--strip-debug", args.bridge, binary], check=True)
    conf = os.path.join(ROOT, "dbus", "focus-bridge-private-bus.conf")
    a_addr, a_pid = bench.start_bus(conf)
    b_addr, b_pid = bench.start_bus(conf)
    nulld = subprocess.Popen([os.path.join(args.refs, "nulld"), b_addr])
    out = os.path.join(work, "callgrind.out")
    try:
        time.sleep(0.3)
        argv, _ = bench.Proxies(args.refs, binary, b_addr).focus_bridge(work)
        proc = subprocess.Popen(["valgrind", "--tool=callgrind", "--demangle=no", "--compress-strings=no",
                                 "--compress-pos=no", f"--callgrind-out-file={out}"] + argv,
                                env=dict(os.environ, DBUS_SESSION_BUS_ADDRESS=a_addr),
                                stdout=open(os.path.join(work, "log"), "w"), stderr=subprocess.STDOUT)
        subprocess.run([client, "wait-name", a_addr, "120"], check=True)
        time.sleep(2)
        subprocess.run([client, "lat", a_addr, b_addr, "400", "100", "50"], check=True, capture_output=True)
        subprocess.run([client, "tput", a_addr, b_addr, "8", "200"], check=True, capture_output=True)
        time.sleep(2)
        bench.stop(proc, 120)
    finally:
        nulld.kill()
        for pid in (a_pid, b_pid):
            os.kill(pid, 15)
    names = functions_that_ran(out, binary)
    if len(names) < 500:
        sys.exit(f"link_order.py: only {len(names)} functions ran; is {args.bridge} a focus-bridge? (logs in {work})")
    with open(args.output, "w") as f:
        f.write("".join(name + "\n" for name in names))
    print(f"{args.output}: {len(names)} functions")


if __name__ == "__main__":
    main()
