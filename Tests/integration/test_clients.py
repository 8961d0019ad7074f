"""Real clients talk to the bridge as they would to any notification daemon:
notify-send 0.8.1, libnotify (through python3-gi), gdbus."""

import re
import subprocess
import textwrap

from gi.repository import GLib

from support.policy import MUTE_HOUR
from support.processes import PYTHON, run, session_env

TEST_TIMEOUT = 30


def test_notify_send_action_wait_prints_the_action(bridge, fake_daemon, bus, procs):
    env = session_env(bus.address)
    p = procs.spawn(["notify-send", "-A", "yes=Yes", "-A", "no=No", "--wait", "Deploy to production?"],
                    env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rec = fake_daemon.wait_notify("Deploy to production?", timeout=10)
    assert rec["actions"] == ["yes", "Yes", "no", "No"] + MUTE_HOUR
    # notify-send sets its own sender-pid; it must reach the daemon untouched
    assert rec["hints"].get("sender-pid") == GLib.Variant("x", p.pid).print_(True), rec["hints"]
    fake_daemon.action(rec["daemon_id"], "yes")
    out, err = p.communicate(timeout=10)
    assert out.strip() == "yes", (out, err)
    assert p.returncode == 0, err


def test_notify_send_wait_ends_when_closed(bridge, fake_daemon, bus, procs):
    env = session_env(bus.address)
    p = procs.spawn(["notify-send", "--wait", "Wait for close"], env=env,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rec = fake_daemon.wait_notify("Wait for close", timeout=10)
    fake_daemon.closed(rec["daemon_id"], 2)
    out, err = p.communicate(timeout=10)
    assert p.returncode == 0, err


def test_notify_send_print_id_then_replace_from_a_new_process(bridge, fake_daemon, bus):
    env = session_env(bus.address)
    first = run(["notify-send", "-p", "-a", "Backup", "Backup started"], env)
    assert first.returncode == 0, first.stderr
    nid = int(first.stdout.strip())
    did = fake_daemon.wait_notify("Backup started")["daemon_id"]
    assert nid != did
    second = run(["notify-send", "-p", "-a", "Backup", "-r", str(nid), "Backup finished"], env)
    assert second.returncode == 0, second.stderr
    assert int(second.stdout.strip()) == nid, "a later `notify-send -r ID` got a new ID"
    rec = fake_daemon.wait_notify("Backup finished")
    assert rec["replaces_id"] == did and rec["daemon_id"] == did


def test_notify_send_options_forwarded(bridge, fake_daemon, bus):
    env = session_env(bus.address)
    r = run(["notify-send", "-u", "critical", "-t", "4321", "-a", "Thermo", "-i", "dialog-warning",
             "-c", "device.error", "-h", "string:x-vendor-note:kept", "-h", "int:value:42",
             "CPU hot", "92 °C"], env)
    assert r.returncode == 0, r.stderr
    rec = fake_daemon.wait_notify("CPU hot")
    assert (rec["app_name"], rec["app_icon"], rec["body"], rec["expire_timeout"]) == \
        ("Thermo", "dialog-warning", "92 °C", 4321)
    assert rec["hints"]["category"] == "'device.error'"
    assert rec["hints"]["x-vendor-note"] == "'kept'"
    assert rec["hints"]["value"] == "42"


LIBNOTIFY_CLIENT = textwrap.dedent("""
    import sys
    import gi
    gi.require_version("Notify", "0.7")
    from gi.repository import GLib, Notify
    Notify.init("LibnotifyClient")
    loop = GLib.MainLoop()
    n = Notify.Notification.new("libnotify summary", "libnotify body", "dialog-information")
    def on_action(notification, action, *data):
        print("action", action, flush=True)
    n.add_action("snooze", "Snooze", on_action)
    def on_closed(notification):
        print("closed", notification.get_closed_reason(), flush=True)
        loop.quit()
    n.connect("closed", on_closed)
    n.show()
    print("id", n.props.id, flush=True)
    print("server", Notify.get_server_info()[1:], flush=True)
    GLib.timeout_add_seconds(20, loop.quit)
    loop.run()
""")


def test_libnotify_client_sees_actions_and_close(bridge, fake_daemon, bus, procs, tmp_path):
    script = tmp_path / "libnotify_client.py"
    script.write_text(LIBNOTIFY_CLIENT)
    p = procs.spawn([PYTHON, str(script)], env=session_env(bus.address), stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, text=True)
    rec = fake_daemon.wait_notify("libnotify summary", timeout=10)
    assert rec["app_name"] == "LibnotifyClient" and rec["actions"] == ["snooze", "Snooze"] + MUTE_HOUR
    fake_daemon.action(rec["daemon_id"], "snooze")
    fake_daemon.closed(rec["daemon_id"], 2)
    out, err = p.communicate(timeout=15)
    lines = out.splitlines()
    assert "action snooze" in lines, (out, err)
    assert "closed 2" in lines, (out, err)
    nid = int(re.search(r"^id (\d+)$", out, re.M).group(1))
    assert nid != rec["daemon_id"]
    assert "FocusBridge" in [l for l in lines if l.startswith("server")][0]


def test_gdbus_call(bridge, fake_daemon, bus):
    r = run(["gdbus", "call", "--address", bus.address, "--dest", "org.freedesktop.Notifications",
             "--object-path", "/org/freedesktop/Notifications",
             "--method", "org.freedesktop.Notifications.Notify", "--",
             "gdbus-app", "0", "", "From gdbus", "plain body", "[]", "{'urgency': <byte 2>}", "-1"],
            session_env(bus.address))
    assert r.returncode == 0, r.stderr
    m = re.fullmatch(r"\(uint32 (\d+),\)", r.stdout.strip())
    assert m and int(m.group(1)) > 0, r.stdout
    rec = fake_daemon.wait_notify("From gdbus")
    assert rec["hints"]["urgency"] == "byte 0x02"
