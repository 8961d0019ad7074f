"""The rig of FocusBridge's integration tests: the real binaries on private buses, bounded waits.

Everything runs on private buses started here (never the real session bus, never
`dbus-daemon --session`, which would auto-activate a real notification daemon):

* ``bus``         the "session bus" the bridge serves and the test clients talk on;
* ``daemon_bus``  an independent bus on which the fake notification daemon lives
                  (the bridge runs with ``--downstream address --downstream-address``);
* ``fake_daemon`` a recording fake daemon (fake_daemon.py, a separate process);
* ``bridge``      the real focus-bridge binary (env FOCUS_BRIDGE_BIN overrides the path),
                  started with ``bridge_factory`` for other modes / restarts;
* ``xvfb``        an Xvfb display for the dunst tests.

Both buses use the repository's ``dbus/focus-bridge-private-bus.conf``, the configuration of the
bus spawn mode gives its daemon; the fake daemon serves ``dbus/org.freedesktop.Notifications.xml``.

Waiting is always bounded: signals are awaited by iterating the GLib main context with a
deadline; ``wait_until`` polls only where nothing can be awaited. Every test has a time bound
too (``TEST_TIMEOUT`` of its module, default 30 s).

Modules, each named after what it supports (conftest.py loads those with fixtures through
``pytest_plugins``; a test file imports helpers from them, ``from support.clients import settle``):

    names         D-Bus names, paths and interfaces
    processes     the binaries, Procs (``procs``), LineReader, session_env, run
    waiting       pump_until, wait_until, the per-test bound, SLOWDOWN
    reports       logs appended to a failure's report; sanitizer reports
    buses         PrivateBus (``bus``, ``daemon_bus``), bus_config, connect, wait_for_name, ServiceBus
    clients       Client (``client``, ``client2``, ``make_client``), settle
    fakes         FakeDaemon (``fake_daemon``), SpawnedFakes, SPAWN_FAKE, FakeScreenSaver
    bridge        Bridge (``bridge``, ``bridge_factory``), wait_connected, private_bus_address
    focusctl      ``focusctl``, ``watch``, fc_ok, fc_json, status, history_of, decisions
    config_files  config_file, write_config, replace_file
    focus         Focus and summaries: ``config``, ``focus_bridge``, ``marker``, time and hint helpers
    policy        the HIG policy: ``policy_bridge``, readers of what the daemon got
    preload       LD_PRELOAD shims from time_shift.c and fail_writes.c (``time_shift``, ``fail_writes``)
    flood         Flood, Pinger (ping.py)
    displays      ``xvfb``, start_xvfb, SwaySession, build_vclick
    dunst         ``dunstrc``, ``dunst``
    screens       screenshots and clicks (test_interop.py)
    real_daemons  the six real daemons test_interop.py runs
    desktop       DesktopSession for GNOME Shell and Plasma
    browsers      browsers' exact Notify calls (gdbus), Pages, real Chromium, its managed policy

Programs run as processes of their own: fake_daemon.py (its interfaces in interfaces/), ping.py,
fake_swaync.py (test_passthrough_names.py), fake_session_service.py (test_session_relay.py).
"""
