"""The daemon links no Foundation: Foundation, FoundationEssentials,
FoundationInternationalization (ICU) and CoreFoundation were most of its resident memory.

Checked on the binary the other tests run: in a debug build the Swift libraries are shared, so
the dynamic section names any that is linked; in a static release build their symbols would be
inside, so the symbol table is read too. focusctl keeps FoundationEssentials (through
swift-argument-parser), and is the control; it links nothing more of Foundation: Foundation and
its ICU data made it 60 MB (stripped, in a release build) against the daemon's 11."""
import shutil
import subprocess

import pytest

from support.processes import BRIDGE_BIN, FOCUSCTL_BIN, require_binary

FOUNDATION_LIBRARIES = ("libFoundation", "libFoundationEssentials", "libFoundationInternationalization",
                        "lib_FoundationICU", "libCoreFoundation")
# Mangled Swift module names (10Foundation, 20FoundationEssentials, …) and CoreFoundation's C symbols.
FOUNDATION_SYMBOLS = ("10Foundation", "20FoundationEssentials", "33FoundationInternationalization",
                      "14_FoundationICU", "__CF")


def needed(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True, timeout=60).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


def foundation_symbols(path):
    out = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True, timeout=120).stdout
    return [line for line in out.splitlines() if any(name in line for name in FOUNDATION_SYMBOLS)]


def test_focus_bridge_links_no_foundation():
    require_binary(BRIDGE_BIN, "focus-bridge")
    libraries = [name for name in needed(BRIDGE_BIN) if name.startswith(FOUNDATION_LIBRARIES)]
    assert libraries == [], "focus-bridge links %s" % libraries
    symbols = foundation_symbols(BRIDGE_BIN)
    assert symbols == [], "focus-bridge contains %d Foundation symbols, e.g. %s" % (len(symbols), symbols[:3])


def test_focusctl_links_foundation_essentials_alone():
    """Foundation, FoundationInternationalization and ICU's data stay out of focusctl
    (FoundationEssentials' own C tables, __CFUniChar…, come with it and are allowed)."""
    require_binary(FOCUSCTL_BIN, "focusctl")
    heavy = {"libFoundation", "libFoundationInternationalization", "lib_FoundationICU", "libCoreFoundation"}
    libraries = [name for name in needed(FOCUSCTL_BIN) if name.split(".so")[0] in heavy]
    assert libraries == [], "focusctl links %s" % libraries
    out = subprocess.run(["nm", "--defined-only", FOCUSCTL_BIN], capture_output=True, text=True, timeout=120).stdout
    symbols = [line for line in out.splitlines()
               if any(name in line for name in ("10Foundation", "33FoundationInternationalization", "14_FoundationICU",
                                                " icudt"))]
    assert symbols == [], "focusctl contains %d symbols of Foundation or ICU, e.g. %s" % (len(symbols), symbols[:3])


def test_the_check_sees_foundation_where_it_is():
    """focusctl keeps FoundationEssentials: the same check must find it there, or it proves nothing."""
    require_binary(FOCUSCTL_BIN, "focusctl")
    found = [name for name in needed(FOCUSCTL_BIN) if name.startswith(FOUNDATION_LIBRARIES)]
    if not found:  # a static build: the symbols are inside
        assert foundation_symbols(FOCUSCTL_BIN), "focusctl shows no Foundation either: the check is blind"


# GIO and GObject: not loaded, and with them no GDBus worker thread and none of the libraries GIO
# loads (libmount, libblkid, libselinux, libffi, libgmodule, libz; their idle memory is in
# docs/BENCHMARKS.md). GLib itself stays (the main loop, GVariant).
GIO_LIBRARIES = ("libgio-2.0", "libgobject-2.0", "libgmodule-2.0")


def loaded(path):
    """Every shared library the dynamic loader would map for `path`, transitively (ldd)."""
    out = subprocess.run(["ldd", path], capture_output=True, text=True, check=True, timeout=60).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def test_focus_bridge_links_no_gio():
    require_binary(BRIDGE_BIN, "focus-bridge")
    direct = [name for name in needed(BRIDGE_BIN) if name.startswith(GIO_LIBRARIES)]
    assert direct == [], "focus-bridge links %s" % direct
    indirect = [name for name in loaded(BRIDGE_BIN) if name.startswith(GIO_LIBRARIES)]
    assert indirect == [], "focus-bridge loads %s through its libraries" % indirect


def test_the_check_sees_gio_where_it_is():
    """gdbus (libglib2.0-bin) links GIO: the same check must find it there, or it proves nothing."""
    gdbus = shutil.which("gdbus")
    if gdbus is None:
        pytest.skip("gdbus is not installed")
    assert [name for name in needed(gdbus) if name.startswith(GIO_LIBRARIES)], "the check is blind to GIO"


# libxcb: opened only when the window in front is read from an X11 display, with the
# four libraries it brings (libXau, libXdmcp, libbsd, libmd); a Wayland or
# GNOME session never maps them. test_windows.py shows the X11 path still works.
XCB_LIBRARIES = ("libxcb.so", "libXau.so", "libXdmcp.so")


def test_focus_bridge_opens_libxcb_only_for_x11():
    require_binary(BRIDGE_BIN, "focus-bridge")
    found = [name for name in loaded(BRIDGE_BIN) if name.startswith(XCB_LIBRARIES)]
    assert found == [], "focus-bridge loads %s at every start" % found
