#!/usr/bin/env python3
"""focus-bridge against the reference proxies, in one run (`make bench`, after focus-bench).

The references are minimal C programs with FocusBridge's behaviour (own
org.freedesktop.Notifications on bus A, answer Notify at once, forward it to a daemon on bus B, 8
in flight) on sd-bus, libdbus and GDBus, built from ../shared/perf-floor/src by
scripts/bench-references.sh into .build-bench/refs. The same sd-bus client (client.c) drives
every one of them and focus-bridge, on the same two private buses, against the same null daemon.

Each round runs every proxy in turn (the order rotates each round), each from a fresh start:
  name owned   exec to the name having an owner on bus A (the client polls every 5 ms)
  idle         VmRSS and RssAnon 1 s after the name is owned
  latency      client lat: Peer.Ping, Notify, GetCapabilities in alternating blocks of 100
  throughput   client tput: 8 connections each pipelining 1000 Notify; answered/s
  after        VmRSS and RssAnon 1 s after the burst
  wake-ups     times any thread was scheduled (/proc/PID/task/*/schedstat) over IDLE seconds
               after that
  history      focus-bridge only, after it exits: rows in its history table against every
               Notify sent (warm-up, latency, burst)
Then, when valgrind is installed, instructions per round trip (callgrind, every thread): a run of
N1 and one of N2 sequential round trips of Ping and of Notify, (I(N2) - I(N1)) / (N2 - N1), so
start-up and shut-down cancel; for focus-bridge also where a Notify's instructions go (self cost
grouped by library, top inclusive functions).

Values are medians across rounds [min-max]; ratios are against the sd-bus reference of the same
run. Prints Markdown and writes --output (JSON).

    scripts/bench_references.py --refs .build-bench/refs --bridge .build/release/focus-bridge
"""
import argparse, json, os, re, shutil, signal, sqlite3, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

TARGETS = {  # the targets docs/BENCHMARKS.md reports against
    "instructions": 150_000, "notify_minus_ping_ratio": 1.5, "throughput": 12_000,
    "idle_rss": 12.0, "after_rss": 20.0, "wakeups": 0, "name_owned_ms": 150.0,
}


def log(text):
    print(f"bench-references: {text}", file=sys.stderr, flush=True)


def start_bus(config):
    out = subprocess.run(["dbus-daemon", f"--config-file={config}", "--fork", "--print-address=1", "--print-pid=1"],
                         check=True, capture_output=True, text=True).stdout.split()
    return out[0], int(out[1])


def proc_status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon", "RssFile"):
                fields[key] = int(value.split()[0]) / 1024
    return fields


def scheduled(pid):
    """Times every thread of PID has been put on a CPU (third field of schedstat)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[2])
        except (OSError, IndexError, ValueError):
            pass
    return total


def smaps(pid):
    """Resident MiB per mapping: the binary's own file, each shared library, anonymous memory."""
    sizes, current = {}, "anon"
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            first = line.split(maxsplit=5)
            if "-" in first[0] and len(first) >= 5 and ":" not in first[0]:
                path = first[5].strip() if len(first) > 5 else ""
                current = os.path.basename(path) if path.startswith("/") else "anon (heap, stacks, mmap)"
            elif first[0] == "Rss:":
                sizes[current] = sizes.get(current, 0) + int(first[1]) / 1024
    return dict(sorted(((k, round(v, 2)) for k, v in sizes.items() if v >= 0.05), key=lambda x: -x[1]))


def parse_kv(line):
    parts = line.split()
    return parts[0], {k: float(v) for k, v in (p.split("=") for p in parts[1:])}


class Proxies:
    """name -> (label, function(workdir) -> (argv, env))"""

    def __init__(self, refs, bridge, b_addr, others=()):
        self.refs, self.bridge, self.b, self.others = refs, bridge, b_addr, list(others)

    def table(self):
        t = {}
        def have(binary):
            return os.access(os.path.join(self.refs, binary), os.X_OK)
        if have("proxy-sdbus"):
            t["sdbus"] = ("sd-bus reference", lambda w: ([os.path.join(self.refs, "proxy-sdbus"), self.b], {}))
        if have("proxy-libdbus"):
            t["libdbus"] = ("libdbus reference, forwarding a copy",
                            lambda w: ([os.path.join(self.refs, "proxy-libdbus"), self.b], {"PF_RAW_COPY": "1"}))
            # What the bridge would need from libdbus: it edits the actions and hints, so it reads
            # and writes the arguments (iterators) instead of copying the bytes.
            t["libdbus-reencode"] = ("libdbus reference, re-encoding",
                                     lambda w: ([os.path.join(self.refs, "proxy-libdbus"), self.b], {}))
        if have("proxy-gdbus"):
            t["gdbus"] = ("GDBus reference", lambda w: ([os.path.join(self.refs, "proxy-gdbus"), self.b], {}))
        if have("proxy-gdbus-sqlite"):
            t["gdbus+sqlite"] = ("GDBus + SQLite insert, group commit",
                                 lambda w: ([os.path.join(self.refs, "proxy-gdbus-sqlite"), self.b,
                                             os.path.join(w, "history.sqlite3"), "normal", "batch"], {}))
        t["focus-bridge"] = ("**focus-bridge**", self.focus_bridge)
        for label, path in self.others:
            t[f"focus-bridge@{label}"] = (f"focus-bridge at {label}", lambda w, path=path: self.focus_bridge(w, path))
        return t

    def focus_bridge(self, w, binary=None):
        config = os.path.join(w, "config.toml")
        with open(config, "w") as f:
            f.write("[general]\nrate-limit = 0          # measure the bridge, not its flood control\n")
        return ([binary or self.bridge, "--downstream", "address", "--downstream-address", self.b,
                 "--config", config, "--state-dir", os.path.join(w, "state")], {})


def history_rows(work):
    path = os.path.join(work, "state", "state.sqlite3")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
        return db.execute("SELECT count(*) FROM history").fetchone()[0]
    except sqlite3.Error as error:
        log(f"history of {path}: {error}")
        return -1


def stop(proc, seconds=30):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_one(args, name, make, a_addr, b_addr, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    argv, env_extra = make(work)
    env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=a_addr, **env_extra)
    client = os.path.join(args.refs, "client")
    out = open(os.path.join(work, "proxy.log"), "w")
    start = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT)
    r = {"proxy": name, "loadavg": float(open("/proc/loadavg").read().split()[0])}
    try:
        subprocess.run([client, "wait-name", a_addr, "30"], check=True)
        r["name_owned_ms"] = (time.monotonic() - start) * 1000
        time.sleep(1.0)
        r["idle"] = proc_status(proc.pid)
        r["idle_maps"] = smaps(proc.pid)
        lat = subprocess.run([client, "lat", a_addr, b_addr, str(args.n), "100", str(args.warm)],
                             check=True, capture_output=True, text=True, timeout=600).stdout
        r["latency"] = dict(parse_kv(line) for line in lat.splitlines() if line.strip())
        tput = subprocess.run([client, "tput", a_addr, b_addr, str(args.clients), str(args.per_client)],
                              check=True, capture_output=True, text=True, timeout=600).stdout
        r["throughput"] = parse_kv(tput.strip())[1]
        time.sleep(1.0)
        r["after"] = proc_status(proc.pid)
        r["after_maps"] = smaps(proc.pid)
        before = scheduled(proc.pid)
        time.sleep(args.idle_seconds)
        r["wakeups"] = scheduled(proc.pid) - before
    finally:
        stop(proc)
        out.close()
    if name.startswith("focus-bridge"):
        r["history_rows"] = history_rows(work)
        r["notify_sent"] = args.warm + args.n + args.clients * args.per_client
    return r


# ---------------------------------------------------------------------------------------------
# callgrind

def total_ir(path):
    with open(path) as f:
        for line in f:
            m = re.match(r"(summary|totals):\s+(\d+)", line)
            if m:
                return int(m.group(2))
    raise RuntimeError("no totals in " + path)


def callgrind_one(args, name, make, kind, n, a_addr, b_addr, out_dir):
    work = os.path.join(args.scratch, f"cg-{name}-{kind}-{n}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    argv, env_extra = make(work)
    out_file = os.path.join(out_dir, f"callgrind.{name}.{kind}.{n}.out")
    env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=a_addr, **env_extra)
    client = os.path.join(args.refs, "client")
    with open(os.path.join(work, "valgrind.log"), "w") as log_file:
        proc = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}"] + argv,
                                env=env, stdout=log_file, stderr=subprocess.STDOUT)
        try:
            subprocess.run([client, "wait-name", a_addr, "180"], check=True)
            time.sleep(2.0)  # start-up finished (bus B connected) before the calls
            subprocess.run([client, "rt", a_addr, b_addr, kind, str(n)], check=True, capture_output=True, timeout=900)
        finally:
            stop(proc, 300)  # callgrind writes its profile at exit, under valgrind that takes a while
    return total_ir(out_file), out_file


def annotate(path, inclusive):
    out = subprocess.run(["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}", "--threshold=100", path],
                         capture_output=True, text=True).stdout
    table = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+(.*)$", line)
        if m:
            key = m.group(2).strip()
            table[key] = table.get(key, 0) + int(m.group(1).replace(",", ""))
    return table


GROUPS = [  # (group, regex over the function's name, regex over its object file); first match wins
    ("GVariant (GLib)", r"g_variant", None),
    ("GLib main loop (and GDBus, GIO, GObject where a binary still loads them)", None, r"libgio|libglib|libgobject|libgmodule"),
    ("sd-bus (libsystemd)", None, r"libsystemd"),
    ("SQLite (C library)", r"sqlite3", r"libsqlite"),
    ("GRDB (SQLite wrapper)", r"^\$s4GRDB", None),
    # by the module a Swift symbol belongs to: a specialisation of the standard library's
    # Dictionary for FocusBridge's types is the standard library's
    ("Foundation, CoreFoundation, ICU", r"^\$s(10Foundation|20FoundationEssentials|31FoundationInternationalization)|"
     r"^_*CF|icu_|^u[a-z]*_[a-zA-Z]+_\d", r"libicu|libFoundation"),
    ("Swift runtime and ARC (swift_*, metadata, conformance look-ups)", r"^swift_|swift::|^_swift", None),
    ("FocusBridge's own code", r"^\$s\d+FocusBridge|^focus_bridge", None),
    ("Swift standard library (collections, strings, hashing)", r"^\$s[sS]", None),
    ("libc (malloc, free, memcpy, syscalls), ld.so", None, r"libc\.so|ld-linux|libm\.so"),
]
LINE = re.compile(r"^(?:.*?):(.*?)(?: \[(.*)\])?$")


def group_of(key):
    m = LINE.match(key)
    function, obj = (m.group(1), m.group(2) or "") if m else (key, "")
    for group, fpattern, opattern in GROUPS:
        if (fpattern and re.search(fpattern, function)) or (opattern and re.search(opattern, obj)):
            return group
    return "other (unnamed code of the static binary, ArgumentParser, logging)"


def demangle(names):
    tool = shutil.which("swift-demangle")
    if not tool or not names:
        return names
    out = subprocess.run([tool, "--simplified", "--compact"], input="\n".join(names), capture_output=True, text=True)
    lines = out.stdout.splitlines()
    return lines if len(lines) == len(names) else names


def profile(f1, f2, n1, n2, top):
    per = n2 - n1
    excl1, excl2 = annotate(f1, False), annotate(f2, False)
    groups = {}
    for key in set(excl1) | set(excl2):
        if key.startswith("PROGRAM TOTALS"):
            continue
        value = (excl2.get(key, 0) - excl1.get(key, 0)) / per
        group = group_of(key)
        groups[group] = groups.get(group, 0) + value
    incl1, incl2 = annotate(f1, True), annotate(f2, True)
    rows = sorted(((incl2.get(k, 0) - incl1.get(k, 0)) / per, k) for k in set(incl1) | set(incl2))
    rows.reverse()
    names = demangle([k for _, k in rows])
    rows = [(round(v), re.sub(r" \[/.*/([^/]+)\]$", r" [\1]", re.sub(r"^(\?\?\?|[./][^:]*):", "", name)))
            for (v, _), name in zip(rows, names)]
    # the main loop, start-up and closure/thunk wrappers hold everything: left out
    wrapper = re.compile(r"^(PROGRAM TOTALS|partial apply|thunk|@objc closure|protocol witness|reabstraction|"
                         r"specialized closure #1 in withBindings|closure #\d+ in static MainLoop|g_main_loop_run|"
                         r"g_main_context_dispatch|\(below main\)|.*libc_start|focus_bridge_main|FocusBridgeCommand\.run|"
                         r"Service\.run|static MainLoop\.run|start_thread|clone|0x[0-9a-f]+('\d+)? )")
    top_rows = [(v, n) for v, n in rows if not wrapper.search(n)][:top]
    named = [(v, n) for v, n in rows if re.search(NAMED, n)]
    return ({g: round(v) for g, v in sorted(groups.items(), key=lambda x: -x[1])}, top_rows, named)


# functions always listed (inclusive): what a Notify costs in FocusBridge's own steps
NAMED = (r"^(KeptRequest\.stored\.getter|DuplicateTracker\.delivered|destroy for PolicyContext|Store\.commit|"
         r"specialized static Store\.insertHistory|sqlite3_step|specialized static Policy\.decide|static Intake\.take|"
         r"Forwarder\.pump|MethodCall\.reply|g_dbus_message_new_from_blob|g_dbus_message_to_blob|"
         r"GroupCommit\.write|Bridge\.accept)[ (]")


# ---------------------------------------------------------------------------------------------
# report

def med(values):
    values = [v for v in values if v is not None]
    if not values:
        return None, None, None
    return statistics.median(values), min(values), max(values)


def fmt(triple, digits, ratio_to=None):
    m, lo, hi = triple
    if m is None:
        return "–"
    f = f"{{:,.{digits}f}}"
    text = f"{f.format(m)} [{f.format(lo)}–{f.format(hi)}]" if hi != lo else f.format(m)
    if ratio_to:
        text += f" ({m / ratio_to:.2f}×)"
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--refs", default=os.path.join(ROOT, ".build-bench", "refs"))
    ap.add_argument("--bridge", default=os.path.join(ROOT, ".build", "release", "focus-bridge"))
    ap.add_argument("--bus-config", default=os.path.join(ROOT, "dbus", "focus-bridge-private-bus.conf"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--warm", type=int, default=200)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--per-client", type=int, default=1000)
    ap.add_argument("--idle-seconds", type=float, default=5)
    ap.add_argument("--n1", type=int, default=1000)
    ap.add_argument("--n2", type=int, default=3000)
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--only", default="", help="comma-separated proxies (sdbus,libdbus,libdbus-reencode,gdbus,gdbus+sqlite,focus-bridge)")
    ap.add_argument("--output", default=os.path.join(ROOT, "bench", "references.json"))
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--also", action="append", default=[], metavar="LABEL=PATH",
                    help="another focus-bridge binary measured in the same run (e.g. an earlier commit's)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder (callgrind outputs, logs)")
    args = ap.parse_args()

    client = os.path.join(args.refs, "client")
    if not (os.access(client, os.X_OK) and os.access(os.path.join(args.refs, "nulld"), os.X_OK)):
        print(f"References: skipped (no reference client and null daemon in {args.refs}: "
              "scripts/bench-references.sh needs ../shared/perf-floor/src, a C compiler and libsystemd-dev).")
        return 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the clean-up below runs on SIGTERM too
    args.scratch = tempfile.mkdtemp(prefix="focus-bench-refs-")
    a_addr, a_pid = start_bus(args.bus_config)
    b_addr, b_pid = start_bus(args.bus_config)
    nulld = subprocess.Popen([os.path.join(args.refs, "nulld"), b_addr])
    results, callgrind, profiles = [], {}, {}
    try:
        time.sleep(0.3)
        proxies = Proxies(args.refs, args.bridge, b_addr, (a.split("=", 1) for a in args.also))
        table = proxies.table()
        names = [n for n in table if not args.only or n in args.only.split(",") or n.startswith("focus-bridge@")]
        for r in range(args.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for name in order:
                res = run_one(args, name, table[name][1], a_addr, b_addr, os.path.join(args.scratch, f"r{r}-{name}"))
                res["round"] = r
                results.append(res)
                lat = res["latency"]
                log(f"round {r} {name:13s} ping {lat['ping']['median_ms']:.3f} notify {lat['notify']['median_ms']:.3f} ms "
                    f"{res['throughput']['answered_per_s']:.0f}/s idle {res['idle']['VmRSS']:.1f} MiB "
                    f"after {res['after']['VmRSS']:.1f} MiB wake-ups {res['wakeups']} "
                    f"name {res['name_owned_ms']:.0f} ms load {res['loadavg']}")
        if args.no_callgrind:
            log("callgrind: skipped (--no-callgrind)")
        elif not shutil.which("valgrind"):
            log("callgrind: skipped (valgrind is not installed)")
        else:
            out_dir = os.path.join(args.scratch, "callgrind")
            os.makedirs(out_dir)
            # valgrind 3.19 cannot read the DWARF 5 of the Swift binary; the code is the same
            nodebug = os.path.join(args.scratch, "focus-bridge-nodebug")
            subprocess.run(["objcopy", "--strip-debug", args.bridge, nodebug], check=True)
            makers = {n: table[n][1] for n in names}
            if "focus-bridge" in makers:
                makers["focus-bridge"] = lambda w: proxies.focus_bridge(w, nodebug)
            for label, path in proxies.others:
                if f"focus-bridge@{label}" in makers:
                    copy = os.path.join(args.scratch, f"focus-bridge-{label}-nodebug")
                    subprocess.run(["objcopy", "--strip-debug", path, copy], check=True)
                    makers[f"focus-bridge@{label}"] = lambda w, copy=copy: proxies.focus_bridge(w, copy)
            for name in names:
                if name == "libdbus-reencode":
                    # Under valgrind this variant does not exit within 300 s of SIGTERM after 3,000
                    # round trips, so callgrind never writes its counts.
                    log("callgrind libdbus-reencode: not measured (under valgrind it does not exit within 300 s of SIGTERM)")
                    continue
                for kind in ("ping", "notify"):
                    try:
                        i1, f1 = callgrind_one(args, name, makers[name], kind, args.n1, a_addr, b_addr, out_dir)
                        i2, f2 = callgrind_one(args, name, makers[name], kind, args.n2, a_addr, b_addr, out_dir)
                    except (RuntimeError, OSError, subprocess.SubprocessError) as error:
                        log(f"callgrind {name} {kind}: not measured ({error})")
                        continue
                    callgrind.setdefault(name, {})[kind] = (i2 - i1) / (args.n2 - args.n1)
                    log(f"callgrind {name:13s} {kind:6s} I({args.n1})={i1:,} I({args.n2})={i2:,} "
                        f"per round trip {callgrind[name][kind]:,.0f}")
                    if name == "focus-bridge" and kind == "notify":
                        profiles["groups"], profiles["top_inclusive"], profiles["named"] = \
                            profile(f1, f2, args.n1, args.n2, args.top)
    finally:
        nulld.send_signal(signal.SIGTERM)
        nulld.wait()
        for pid in (a_pid, b_pid):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        if args.keep:
            log(f"kept {args.scratch}")
        else:
            shutil.rmtree(args.scratch, ignore_errors=True)

    report(args, names, table, results, callgrind, profiles)
    return 0


def report(args, names, table, results, callgrind, profiles):
    by = {n: [r for r in results if r["proxy"] == n] for n in names}
    def col(name, get):
        values = []
        for r in by[name]:
            try:
                values.append(get(r))
            except (KeyError, TypeError):
                pass
        return med(values)
    summary = {}
    for n in names:
        s = summary[n] = {
            "ping_ms": col(n, lambda r: r["latency"]["ping"]["median_ms"]),
            "notify_ms": col(n, lambda r: r["latency"]["notify"]["median_ms"]),
            "notify_minus_ping_ms": col(n, lambda r: r["latency"]["notify"]["median_ms"] - r["latency"]["ping"]["median_ms"]),
            "throughput": col(n, lambda r: r["throughput"]["answered_per_s"]),
            "idle_rss": col(n, lambda r: r["idle"]["VmRSS"]),
            "idle_anon": col(n, lambda r: r["idle"]["RssAnon"]),
            "after_rss": col(n, lambda r: r["after"]["VmRSS"]),
            "after_anon": col(n, lambda r: r["after"]["RssAnon"]),
            "wakeups": col(n, lambda r: r["wakeups"]),
            "name_owned_ms": col(n, lambda r: r["name_owned_ms"]),
        }
        if n in callgrind:
            s["instructions_notify"] = callgrind[n].get("notify")
            s["instructions_ping"] = callgrind[n].get("ping")
    ref = summary.get("sdbus")
    # Notify - Ping of each round against the sd-bus reference's of the same round
    for n in names:
        ratios = []
        for r in by[n]:
            same = [x for x in by.get("sdbus", []) if x["round"] == r["round"]]
            if same:
                mine = r["latency"]["notify"]["median_ms"] - r["latency"]["ping"]["median_ms"]
                theirs = same[0]["latency"]["notify"]["median_ms"] - same[0]["latency"]["ping"]["median_ms"]
                ratios.append(mine / theirs if theirs > 0 else None)
        summary[n]["notify_minus_ping_ratio"] = med(ratios)

    load = [r["loadavg"] for r in results]
    print(f"\n### focus-bridge against the references ({args.rounds} rounds, interleaved; "
          f"load average {min(load):.1f}–{max(load):.1f})\n")
    print("Medians across rounds [min–max]; (×) is against the sd-bus reference of the same run.\n")
    print("| | instructions / Notify | / Ping | Notify − Ping ms | vs sd-bus | Notify/s answered | idle RSS MiB (anon) "
          "| after 8×1000 MiB (anon) | idle wake-ups | name owned ms |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rc = ref["instructions_notify"] if ref and ref.get("instructions_notify") else None
    for n in names:
        s = summary[n]
        ins = s.get("instructions_notify")
        ins_text = "–" if ins is None else f"{ins / 1000:,.0f}k" + (f" ({ins / rc:.1f}×)" if rc and n != "sdbus" else "")
        ping = s.get("instructions_ping")
        print(f"| {table[n][0]} | {ins_text} | {'–' if ping is None else f'{ping / 1000:,.0f}k'} "
              f"| {fmt(s['notify_minus_ping_ms'], 3)} | {fmt(s['notify_minus_ping_ratio'], 2)} "
              f"| {fmt(s['throughput'], 0)} | {fmt(s['idle_rss'], 1)} ({s['idle_anon'][0]:.1f}) "
              f"| {fmt(s['after_rss'], 1)} ({s['after_anon'][0]:.1f}) | {fmt(s['wakeups'], 0)} "
              f"| {fmt(s['name_owned_ms'], 0)} |")
    fb = summary.get("focus-bridge")
    verdicts = []
    if fb:
        hist = [(r["history_rows"], r["notify_sent"]) for r in by["focus-bridge"]]
        print(f"\nfocus-bridge history rows / Notify sent, each round: "
              + ", ".join(f"{h:,} / {s:,}" for h, s in hist))
        every = all(h >= s for h, s in hist)
        def v(target, value, met, shown):
            verdicts.append({"target": target, "value": shown, "met": met})
        ins = fb.get("instructions_notify")
        v("≤ 150k instructions per Notify round trip", ins, None if ins is None else ins <= TARGETS["instructions"],
          "not measured (no valgrind, or --no-callgrind)" if ins is None else f"{ins / 1000:,.0f}k")
        ratio = fb["notify_minus_ping_ratio"][0]
        v("Notify − Ping ≤ 1.5 × the sd-bus reference's", ratio, None if ratio is None else ratio <= 1.5,
          "no sd-bus reference" if ratio is None else f"{ratio:.2f}×")
        tp = fb["throughput"][0]
        v("≥ 12,000 Notify/s answered, 8 clients, every one in history", tp, tp >= TARGETS["throughput"] and every,
          f"{tp:,.0f}/s, {'every one' if every else 'NOT every one'} in history")
        v("≤ 12 MiB idle RSS", fb["idle_rss"][0], fb["idle_rss"][0] <= TARGETS["idle_rss"], f"{fb['idle_rss'][0]:.1f} MiB")
        v("≤ 20 MiB after 8 × 1,000", fb["after_rss"][0], fb["after_rss"][0] <= TARGETS["after_rss"],
          f"{fb['after_rss'][0]:.1f} MiB")
        v("0 idle wake-ups", fb["wakeups"][0], fb["wakeups"][2] == 0,
          f"{fb['wakeups'][0]:.0f} in {args.idle_seconds:g} s (max {fb['wakeups'][2]:.0f})")
        v("name owned ≤ 150 ms", fb["name_owned_ms"][0], fb["name_owned_ms"][0] <= TARGETS["name_owned_ms"],
          f"{fb['name_owned_ms'][0]:.0f} ms")
        print("\n| target | focus-bridge | met |\n|---|---|---|")
        for x in verdicts:
            met = "–" if x["met"] is None else "yes" if x["met"] else "**missed**"
            print(f"| {x['target']} | {x['value']} | {met} |")
    if profiles:
        print(f"\nWhere a focus-bridge Notify round trip's instructions go (self cost, every thread, grouped; "
              f"I({args.n2}) − I({args.n1}) / {args.n2 - args.n1}):\n")
        print("| group | instructions / Notify |\n|---|---|")
        for g, value in profiles["groups"].items():
            print(f"| {g} | {value / 1000:,.1f}k |")
        print(f"\nTop inclusive functions per Notify round trip (main loop and closure wrappers left out):\n\n```")
        for value, name in profiles["top_inclusive"]:
            print(f"{value:>10,}  {name[:150]}")
        print("```\n\nFocusBridge's own steps, inclusive, per Notify round trip:\n\n```")
        for value, name in profiles["named"]:
            print(f"{value:>10,}  {name[:150]}")
        print("```")
    if fb:
        for when in ("idle", "after"):
            maps = [r[f"{when}_maps"] for r in by["focus-bridge"] if f"{when}_maps" in r]
            if maps:
                keys = sorted(maps[0], key=lambda k: -maps[0][k])[:8]
                print(f"\nfocus-bridge resident memory by mapping, {'idle' if when == 'idle' else 'after 8 × 1,000'} "
                      f"(MiB, round 1): " + ", ".join(f"{k} {maps[0][k]:.1f}" for k in keys))
    os.makedirs(os.path.dirname(args.output) or ".", exist_ok=True)
    with open(args.output, "w") as f:
        json.dump({"args": {k: v for k, v in vars(args).items() if k != "scratch"}, "rounds": results,
                   "summary": summary, "callgrind": callgrind, "profile": profiles, "targets": verdicts}, f, indent=1)
    print(f"\nwritten: {args.output}")


if __name__ == "__main__":
    sys.exit(main())
