#!/usr/bin/env python3
"""The two doors side by side (`make bench-doors`, part of `make bench`): instructions the bridge
spends per notification through org.freedesktop.Notifications (Notify) and through
org.gtk.Notifications (AddNotification), in one run.

One private bus; a null fdo daemon (org.example.NullDaemon) and a null GNOME Shell GTK side
(org.gnome.Shell, /org/gtk/Notifications), both answering at once, in a child process; the bridge
in `name` mode in front of the null daemon, with XDG_CURRENT_DESKTOP=GNOME so it serves the GTK
door too. For each door the bridge runs under callgrind twice, with N1 and N2 sequential round
trips from one client; (I(N2) - I(N1)) / (N2 - N1) is what one round trip costs it (start-up and
shut-down cancel). Every notification is forwarded (no Focus, distinct texts).

    scripts/bench_doors.py --bridge .build/release/focus-bridge [--n1 200 --n2 1200] [--output bench/doors.json]
"""
import argparse, json, os, shutil, signal, subprocess, sys, tempfile, time

import gi
gi.require_version("Gio", "2.0")
from bench_references import total_ir  # noqa: E402  (the same callgrind totals)
from gi.repository import Gio, GLib  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
APP_ID = "org.example.BenchApp"

NULL_SERVICES = r'''
import sys
from gi.repository import Gio, GLib
conn = Gio.DBusConnection.new_for_address_sync(sys.argv[1],
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
FDO = Gio.DBusNodeInfo.new_for_xml("""<node><interface name="org.freedesktop.Notifications">
<method name="Notify"><arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
<arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
<arg type="a{sv}" direction="in"/><arg type="i" direction="in"/><arg type="u" direction="out"/></method>
<method name="CloseNotification"><arg type="u" direction="in"/></method>
<method name="GetCapabilities"><arg type="as" direction="out"/></method>
<method name="GetServerInformation"><arg type="s" direction="out"/><arg type="s" direction="out"/>
<arg type="s" direction="out"/><arg type="s" direction="out"/></method></interface></node>""")
GTK = Gio.DBusNodeInfo.new_for_xml("""<node><interface name="org.gtk.Notifications">
<method name="AddNotification"><arg type="s" direction="in"/><arg type="s" direction="in"/>
<arg type="a{sv}" direction="in"/></method>
<method name="RemoveNotification"><arg type="s" direction="in"/><arg type="s" direction="in"/></method>
</interface></node>""")
count = [0]
def fdo(_c, _s, _p, _i, method, _params, inv):
    if method == "Notify":
        count[0] += 1
        inv.return_value(GLib.Variant("(u)", (count[0],)))
    elif method == "GetCapabilities":
        inv.return_value(GLib.Variant("(as)", (["actions", "body"],)))
    elif method == "GetServerInformation":
        inv.return_value(GLib.Variant("(ssss)", ("null", "bench", "1", "1.2")))
    else:
        inv.return_value(None)
def gtk(_c, _s, _p, _i, _m, _params, inv):
    inv.return_value(None)
conn.register_object("/org/freedesktop/Notifications", FDO.interfaces[0], fdo, None, None)
conn.register_object("/org/gtk/Notifications", GTK.interfaces[0], gtk, None, None)
for name in ("org.example.NullDaemon", "org.gnome.Shell"):
    conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                   GLib.Variant("(su)", (name, 4)), None, 0, -1, None)
print("READY", flush=True)
GLib.MainLoop().run()
'''


def log(text):
    print("bench-doors: " + text, file=sys.stderr, flush=True)


def connect(address):
    return Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
        None, None)


def owner(conn, name):
    try:
        return conn.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                              GLib.Variant("(s)", (name,)), GLib.VariantType("(s)"), 0, 2000, None).unpack()[0]
    except GLib.Error as error:
        if "NameHasNoOwner" not in str(error):
            log("GetNameOwner(%s): %s" % (name, error))
        return None


def wait_for(predicate, timeout, what, log_path=None):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError("timed out waiting for " + what +
                               (":\n" + open(log_path).read()[-3000:] if log_path else ""))
        time.sleep(0.05)  # polling another process under valgrind: nothing signals it


def round_trips(conn, door, n, offset):
    for i in range(n):
        text = "bench %d" % (offset + i)
        if door == "fdo":
            conn.call_sync("org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                           "org.freedesktop.Notifications", "Notify",
                           GLib.Variant("(susssasa{sv}i)", ("Bench", 0, "", text, "body", [], {}, -1)),
                           GLib.VariantType("(u)"), 0, 60000, None)
        else:
            conn.call_sync("org.gtk.Notifications", "/org/gtk/Notifications", "org.gtk.Notifications",
                           "AddNotification",
                           GLib.Variant("(ssa{sv})", (APP_ID, "n%d" % i, {"title": GLib.Variant("s", text),
                                                                          "body": GLib.Variant("s", "body")})),
                           None, 0, 60000, None)


def measure(args, bus_address, binary, door, n, scratch):
    work = tempfile.mkdtemp(prefix="run-", dir=scratch)
    apps = os.path.join(work, "data", "applications")
    os.makedirs(apps)
    with open(os.path.join(apps, APP_ID + ".desktop"), "w") as f:
        f.write("[Desktop Entry]\nType=Application\nName=Bench\nExec=true\n")
    out = os.path.join(work, "callgrind.out")
    env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=bus_address, XDG_CURRENT_DESKTOP="GNOME",
               XDG_STATE_HOME=os.path.join(work, "state"), XDG_CONFIG_HOME=os.path.join(work, "config"),
               XDG_DATA_HOME=os.path.join(work, "data"), XDG_DATA_DIRS=work)
    for k in ("DISPLAY", "WAYLAND_DISPLAY"):
        env.pop(k, None)
    with open(os.path.join(work, "bridge.log"), "w") as bridge_log:
        proc = subprocess.Popen(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, binary,
                                 "--downstream", "name", "--downstream-name", "org.example.NullDaemon"],
                                env=env, stdout=bridge_log, stderr=subprocess.STDOUT)
    conn = connect(bus_address)
    try:
        if proc.poll() is not None:
            raise RuntimeError("the bridge exited: " + open(os.path.join(work, "bridge.log")).read()[-2000:])
        wait_for(lambda: owner(conn, "org.gtk.Notifications") and owner(conn, "org.focusbridge.FocusBridge"), 180,
                 "the bridge's names", os.path.join(work, "bridge.log"))
        wait_for(lambda: "connected to the daemon" in open(os.path.join(work, "bridge.log")).read(), 60,
                 "the bridge to connect to the null daemon")
        round_trips(conn, door, n, 0)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(300)
        conn.close_sync(None)
    return total_ir(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bridge", default=os.path.join(ROOT, ".build/release/focus-bridge"))
    ap.add_argument("--n1", type=int, default=200)
    ap.add_argument("--n2", type=int, default=1200)
    ap.add_argument("--output", default=os.path.join(ROOT, "bench/doors.json"))
    ap.add_argument("--bus-config", default=os.path.join(ROOT, "dbus/focus-bridge-private-bus.conf"))
    args = ap.parse_args()
    if not shutil.which("valgrind"):
        log("valgrind is not installed: nothing measured")
        return 0
    scratch = tempfile.mkdtemp(prefix="bench-doors-")
    # valgrind cannot read the DWARF 5 of Swift 6.3: a copy without debug information
    binary = os.path.join(scratch, "focus-bridge")
    subprocess.run(["objcopy", "--strip-debug", args.bridge, binary], check=True)
    started = subprocess.run(["dbus-daemon", "--config-file=" + args.bus_config, "--fork", "--print-address=1",
                              "--print-pid=1"], check=True, capture_output=True, text=True).stdout.split()
    bus_address, bus_pid = started[0], int(started[1])
    services = subprocess.Popen([sys.executable, "-c", NULL_SERVICES, bus_address], stdout=subprocess.PIPE, text=True)
    try:
        if services.stdout.readline().strip() != "READY":
            raise RuntimeError("the null services did not start")
        result = {"n1": args.n1, "n2": args.n2}
        for door in ("fdo", "gtk"):
            i1 = measure(args, bus_address, binary, door, args.n1, scratch)
            i2 = measure(args, bus_address, binary, door, args.n2, scratch)
            result[door] = round((i2 - i1) / (args.n2 - args.n1))
            log("%s: %d instructions per round trip" % (door, result[door]))
        result["gtk_over_fdo"] = round(result["gtk"] / result["fdo"], 2)
    finally:
        services.terminate()
        services.wait(10)
        os.kill(bus_pid, signal.SIGTERM)
        shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        json.dump(result, f, indent=2)
    print("| door | instructions per notification (round trip) |\n|---|---|")
    print("| org.freedesktop.Notifications (Notify) | %d |" % result["fdo"])
    print("| org.gtk.Notifications (AddNotification) | %d (%.2f×) |" % (result["gtk"], result["gtk_over_fdo"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
