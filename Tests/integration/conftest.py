"""FocusBridge's integration tests: the rig lives in the support/ package (support/__init__.py
explains it); its fixtures and hooks are loaded here, so every test file can use them by name."""

import pytest

# before the modules are imported: their asserts explain themselves as the tests' do
pytest.register_assert_rewrite("support")

pytest_plugins = [
    "support.reports",      # logs on failure, sanitizer reports (autouse)
    "support.waiting",      # every test bounded (autouse)
    "support.processes",    # procs
    "support.buses",        # bus, daemon_bus
    "support.clients",      # client, client2, make_client
    "support.fakes",        # fake_daemon, fake_daemon_factory, screensaver_factory
    "support.bridge",       # bridge, bridge_factory
    "support.focusctl",     # focusctl, watch
    "support.focus",        # config, focus_bridge, marker
    "support.policy",       # policy_bridge
    "support.preload",      # time_shift, time_shift_lib, fail_writes, fail_writes_lib
    "support.displays",     # xvfb
    "support.dunst",        # dunstrc, dunst
]
