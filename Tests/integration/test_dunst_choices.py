"""The quick actions through real dunst 1.9 under Xvfb: dunst lists them in its own context
menu (here a scripted menu program in place of dmenu), the person picks "Mute 1 Hour", dunst
invokes it, the bridge mutes the app and closes the notification — the app never hears it."""

from support.dunst import Dunst, pick_from_menu
from support.focusctl import fc_ok, status
from support.waiting import wait_until

TEST_TIMEOUT = 40


def test_mute_one_hour_from_dunsts_context_menu(bridge_factory, xvfb, dunstrc, make_client, bus, focusctl, tmp_path):
    menu_input = pick_from_menu(dunstrc, tmp_path, "Mute 1 Hour")
    d = Dunst(bridge_factory, xvfb, dunstrc, make_client, bus, "dunst choices client")
    c = d.client
    nid = c.notify("Standup in 5", "room 2", app="Calendar", actions=["default", "", "snooze", "Snooze"])
    wait_until(lambda: d.count("displayed") == 1, 10, message="dunst never displayed the notification")

    d.ctl("context")
    wait_until(lambda: [m["app"] for m in status(focusctl)["mutes"]] == ["Calendar"], 10,
               message="picking Mute 1 Hour in dunst's menu did not mute the app (menu: %r)"
               % (menu_input.read_text() if menu_input.exists() else None))
    lines = menu_input.read_text().splitlines()
    assert any("Snooze" in line for line in lines) and any("Mute 1 Hour" in line for line in lines), lines
    closed = c.wait_signal("NotificationClosed", nid, timeout=10)
    assert closed.args[1] == 2
    assert not c.got("ActionInvoked", nid), "the app heard the bridge's own key"
    wait_until(lambda: d.count("displayed") == 0, 10, message="the notification stayed on dunst's screen")

    c.notify("Standup now", "room 2", app="Calendar")
    c.notify("Build failed", "", app="CI")

    # Forwarding keeps order: once dunst has the second, it would have had the first.
    def shown():
        d.ctl("close-all")
        return [h["summary"] for h in d.history()]
    wait_until(lambda: "Build failed" in shown(), 10, message="dunst never showed the next notification")
    assert "Standup now" not in shown(), "a muted app's notification reached dunst"
    assert "muted" in fc_ok(focusctl, "history").stdout
