# FocusBridge — build, test, try-out and install targets (make help lists them).
#
#   make run        install missing Debian packages, build, run focus-bridge
#                   (on the session bus if one answers, else on a private bus
#                   with --downstream log); extra arguments: make run ARGS='...'
#   make test       install missing Debian packages, build, unit tests, the fuzz
#                   targets built and replayed over their committed inputs,
#                   integration and documentation tests
#   make release    build the optimised binaries (Swift runtime linked in)
#   make install    build them and install binaries, man pages, bash/zsh/fish
#                   completions, the systemd user unit, the XDG autostart entry
#                   and the D-Bus activation file under PREFIX (default
#                   ~/.local); DESTDIR is honoured
#   make uninstall  remove exactly what make install installed
#   make deb        build them and make the Debian package focus-bridge_VERSION_ARCH.deb
#                   (docs: README.md, "Install"; packaging/debian/)
#   make dist       build them and make the release archive focus-bridge-VERSION-ARCH.tar.gz,
#                   whose install.sh installs as make install does, without Swift
#   make test-package  make deb and make dist, then check both (lintian; a clean Debian 12
#                   root made with debootstrap when root and the mirror can be reached)
#   make test-sanitize  the unit and integration tests again, with the binaries built
#                   under AddressSanitizer, then ThreadSanitizer (SANITIZERS='address')
#   make fuzz       build the libFuzzer targets (Fuzz/) and run each FUZZ_SECONDS
#   make fuzz-replay  build them (debug) and run them over the committed seeds and
#                   reproducers only, as make test does
#   make bench      (~15 min) build optimised, then measure the bridge against the bare bus
#                   and against dunst used directly (bench/results.json), then against
#                   the reference proxies of ../shared/perf-floor built in .build-bench
#                   (bench/references.json); prints the tables (BENCH_ARGS='--samples
#                   500', BENCH_REF_ARGS='--rounds 1 --no-callgrind' for a short run)
#   make bench-doors (~2 min) build optimised, then instructions per Notify and per GTK
#                   AddNotification through the bridge, under callgrind (bench/doors.json)
#   make bench-held (~3 min) build optimised, then Notify with 20,000 held against none,
#                   a restart with them, DismissHeld, Apps with 6,000 names (bench/held.json;
#                   BENCH_HELD_ARGS='--also main=PATH' adds another binary to the same run)
#
# Install variables (see README.md, "Installed files"):
#   PREFIX      default ~/.local; a PREFIX under $HOME is a per-user install
#   DESTDIR     staging root, prepended to every installed path
#   BUILT       install the binaries found in this folder instead of building
#               (e.g. BUILT=.build/debug); no Swift build is run then
#   STRIP       strip program for the installed binaries; STRIP= keeps symbols
#   BINDIR MANDIR DATADIR UNITDIR AUTOSTARTDIR DBUSSERVICEDIR
#   BASHCOMPDIR ZSHCOMPDIR FISHCOMPDIR DOCDIR   override single folders

# Swift from the toolchain at /opt/swift when it is not on PATH.
ifeq ($(shell command -v swift 2>/dev/null),)
export PATH := /opt/swift/usr/bin:$(PATH)
endif

SWIFT ?= swift
# Debian's python: it has python3-gi and python3-dbus (the python3 first on
# PATH may not).
PYTHON ?= /usr/bin/python3
ARGS ?=

# Release build: self-contained binaries (the Swift runtime linked in), so an
# installed focus-bridge keeps working when the toolchain changes.
SCRATCH_PATH ?= .build
# No $ORIGIN run path: the binaries load no library of their own folder.
RELEASE_FLAGS ?= -c release --static-swift-stdlib --disable-local-rpath $(LINK_LAYOUT) $(STATIC_CXX)
# Less resident code (docs/BENCHMARKS.md): every function in its own section, linked by lld
# (shipped with Swift) with the relative relocations packed (DT_RELR, glibc >= 2.36: 700 KB of
# relocation records read at every start become 6 KB) and the functions the daemon runs laid
# side by side (scripts/link-order.txt, written by scripts/link_order.py; a stale name is skipped).
LINK_LAYOUT ?= -Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -use-ld=lld \
	-Xlinker -z -Xlinker pack-relative-relocs \
	-Xlinker --symbol-ordering-file=$(CURDIR)/scripts/link-order.txt -Xlinker --no-warn-symbol-ordering
# Swift's runtime is C++, and with --static-swift-stdlib it still asks for the shared libstdc++,
# mapped into the daemon's idle memory for the few functions it uses (docs/BENCHMARKS.md). The
# static archive is linked in instead (GCC's runtime library exception allows it). The toolchain's
# static-stdlib-args.lnk names -lstdc++ before any flag of ours, so a folder on the library path
# holds a libstdc++.so that is a linker script naming the archive. No archive found: the shared
# library.
CXX_ARCHIVE := $(shell clang -print-file-name=libstdc++.a 2>/dev/null)
STATIC_CXX_DIR := $(abspath $(SCRATCH_PATH))/static-libstdc++
ifneq ($(filter /%,$(CXX_ARCHIVE)),)
STATIC_CXX ?= -Xswiftc -L$(STATIC_CXX_DIR)
STATIC_CXX_SCRIPT := $(STATIC_CXX_DIR)/libstdc++.so
endif
BUILT ?=
STRIP ?= strip

PREFIX ?= $(HOME)/.local
DESTDIR ?=

# The version focus-bridge --version prints, the package's (with the Debian revision of
# packaging/debian/changelog's first entry) and the names of the package and the archive.
VERSION := $(shell sed -n 's/^public let focusBridgeVersion = "\(.*\)"$$/\1/p' Sources/FocusBridgeCore/Support/Version.swift)
DEB_VERSION := $(shell head -n 1 packaging/debian/changelog 2>/dev/null | cut -d ' ' -f 2 | tr -d '()')
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
DEB_FILE := focus-bridge_$(DEB_VERSION)_$(DEB_ARCH).deb
DIST_ARCH := $(shell uname -m)
DIST_FILE := focus-bridge-$(VERSION)-$(DIST_ARCH).tar.gz

.PHONY: all help deps deps-run build test run release install uninstall deb dist test-package bench bench-held bench-doors test-sanitize fuzz fuzz-replay

all: build

# One line per target; `make help` prints them.
help:
	@echo 'make build          build the debug binaries (.build/debug), the default'
	@echo 'make run            install missing Debian packages, build, run focus-bridge (ARGS='...')'
	@echo 'make test           install missing Debian packages, build, run every test (fuzz-replay included)'
	@echo 'make release        build the optimised, self-contained binaries (.build/release)'
	@echo 'make install        build and install under PREFIX (default ~/.local); DESTDIR stages'
	@echo 'make uninstall      remove exactly what make install installed (same PREFIX)'
	@echo 'make deb            build and make the Debian package $(DEB_FILE)'
	@echo 'make dist           build and make the release archive $(DIST_FILE)'
	@echo 'make test-package   make deb and dist, then check both (lintian, a clean Debian 12 root)'
	@echo 'make deps           install the missing Debian packages the tests need'
	@echo 'make deps-run       install only those building and make run need'
	@echo 'make bench          measure the bridge against the bare bus, dunst and references (bench/)'
	@echo 'make bench-held     Notify with 20,000 held against none, start with them, Apps (bench/held.json)'
	@echo 'make bench-doors    instructions per Notify and per GTK AddNotification (bench/doors.json)'
	@echo 'make test-sanitize  the tests again under AddressSanitizer, then ThreadSanitizer'
	@echo 'make fuzz           the libFuzzer targets, FUZZ_SECONDS each'
	@echo 'make fuzz-replay    build the fuzz targets (debug), run them over their committed inputs only'
	@echo 'make help           this list'

deps:
	@bash scripts/install-deps.sh

# Only what building and `make run` need (not the test suite's daemons and desktops).
deps-run:
	@bash scripts/install-deps.sh --run

build:
	$(SWIFT) build

test: deps build
	$(SWIFT) test
	$(FUZZ_REPLAY)
	$(PYTHON) -m pytest -q -p no:cacheprovider Tests/integration

# libFuzzer targets (Fuzz/), each for FUZZ_SECONDS (default 60); not part of `make test`.
fuzz: deps
	bash scripts/fuzz.sh

# The fuzz package (Fuzz/, which depends on this one) built and its targets run over the
# committed seeds and crash reproducers, no fuzzing: part of `make test`, so the fuzz targets
# cannot drift from the product. A debug build (less than half the CPU time of the release
# build `make fuzz` uses) in .build-fuzz; Fuzz/README.md says what it costs.
FUZZ_REPLAY = FUZZ_CONFIG=debug bash scripts/fuzz.sh --replay
fuzz-replay: deps
	$(FUZZ_REPLAY)

# Each sanitizer builds in a folder of its own. Under ASan, LeakSanitizer checks every process
# at its exit (its default), the stripped binaries test_install.py installs and runs too; GLib's
# allocations stay reachable and are not reported. Fuzz/lsan.supp names the known leaks outside
# FocusBridge's own code and the reports LeakSanitizer makes wrongly about Swift (its weak
# references, enum cases kept in a pointer's spare bits). The symbolizer is named by its path:
# the tests that put fake daemons first on PATH left LeakSanitizer without one, its stacks
# without names, and the suppressions unmatched.
# The unit tests run without the leak check: the XCTest runner keeps every test case to the end
# and leaks its own records (2,258 reports at its exit, nearly all held from XCTest's), so the
# leak check is the integration half's, on the real binaries; memory errors end either half.
# Every report ends the process at once (abort_on_error, halt_on_error); the integration tests
# collect the reports of all their processes and fail the test that was running
# (Tests/integration/support/reports.py). ThreadSanitizer sleeps 1 s by default at the exit of every
# multi-threaded process, to catch races with exit-time destructors; a process talking to D-Bus
# through GDBus has a worker thread, so each such process would take a second more to exit and
# time-bound tests fail: 100 ms keeps most of the point. Under TSan the bridge is several
# times slower: FOCUS_TEST_SLOWDOWN=4 widens the tests' latency bounds that say so (the flood
# tests' Ping bounds). Each half prints its duration.
SANITIZERS ?= address thread
SYMBOLIZER := $(shell command -v llvm-symbolizer)
SANITIZER_ENV = ASAN_OPTIONS=abort_on_error=1 SWIFT_BACKTRACE=enable=no ASAN_SYMBOLIZER_PATH=$(SYMBOLIZER) \
	LSAN_OPTIONS=suppressions=$(CURDIR)/Fuzz/lsan.supp:print_suppressions=0 \
	TSAN_OPTIONS=halt_on_error=1:atexit_sleep_ms=100:external_symbolizer_path=$(SYMBOLIZER)
test-sanitize: deps
	set -e; for s in $(SANITIZERS); do \
	  echo "== $$s"; start=$$(date +%s); \
	  $(SWIFT) build --sanitize=$$s --scratch-path .build-$$s; \
	  $(SANITIZER_ENV) ASAN_OPTIONS=abort_on_error=1:detect_leaks=0 $(SWIFT) test --sanitize=$$s --scratch-path .build-$$s; \
	  case $$s in thread) slowdown=4;; *) slowdown=1;; esac; \
	  $(SANITIZER_ENV) FOCUS_TEST_SLOWDOWN=$$slowdown \
	    FOCUS_BRIDGE_BIN=$(CURDIR)/.build-$$s/debug/focus-bridge \
	    FOCUSCTL_BIN=$(CURDIR)/.build-$$s/debug/focusctl \
	    $(PYTHON) -m pytest -q -p no:cacheprovider Tests/integration; \
	  echo "== $$s: passed in $$(( $$(date +%s) - start )) s"; \
	done

run: deps-run build
	bash scripts/run.sh $(ARGS)

# Only the two installed products (not focus-bench, nor the test support target), and quietly:
# errors only (swift build -q), no warnings nor progress lines; `make build` shows those.
# focusctl first: swift-argument-parser then compiles beside the modules both share, which a
# release build compiles one after another; focus-bridge's own modules come second.
release: $(STATIC_CXX_SCRIPT)
	@echo "swift build -c release: focusctl, focus-bridge (a few minutes the first time)"
	@$(SWIFT) build -q $(RELEASE_FLAGS) --scratch-path $(SCRATCH_PATH) --product focusctl
	@$(SWIFT) build -q $(RELEASE_FLAGS) --scratch-path $(SCRATCH_PATH) --product focus-bridge

$(STATIC_CXX_DIR)/libstdc++.so:
	mkdir -p $(STATIC_CXX_DIR)
	echo 'INPUT($(CXX_ARCHIVE))' > $@

BENCH_ARGS ?=
# Arguments of scripts/bench_references.py (e.g. '--rounds 1 --no-callgrind' for a short run).
BENCH_REF_ARGS ?=
# The reference proxies of ../shared/perf-floor/src are built here (git-ignored).
BENCH_REFS ?= .build-bench/refs
# Only the two products it runs: `swift build -c release` of every target also builds the test
# support target, which needs XCTest.
bench: $(STATIC_CXX_SCRIPT)
	@bash scripts/install-deps.sh --bench
	$(SWIFT) build $(RELEASE_FLAGS) --scratch-path $(SCRATCH_PATH) --product focus-bridge
	$(SWIFT) build $(RELEASE_FLAGS) --scratch-path $(SCRATCH_PATH) --product focus-bench
	$(SCRATCH_PATH)/release/focus-bench run --bridge $(SCRATCH_PATH)/release/focus-bridge $(BENCH_ARGS)
	$(SCRATCH_PATH)/release/focus-bench held --bridge $(SCRATCH_PATH)/release/focus-bridge $(BENCH_HELD_ARGS)
	@bash scripts/bench-references.sh $(BENCH_REFS) >/dev/null
	$(PYTHON) scripts/bench_references.py --refs $(BENCH_REFS) --bridge $(SCRATCH_PATH)/release/focus-bridge $(BENCH_REF_ARGS)
	$(PYTHON) scripts/bench_doors.py --bridge $(SCRATCH_PATH)/release/focus-bridge $(BENCH_DOORS_ARGS)

# The two doors side by side (~2 minutes): instructions per Notify and per GTK AddNotification
# through the bridge, under callgrind (bench/doors.json; docs/BENCHMARKS.md).
BENCH_DOORS_ARGS ?=
bench-doors: $(STATIC_CXX_SCRIPT)
	@bash scripts/install-deps.sh --bench
	$(SWIFT) build $(RELEASE_FLAGS) --scratch-path $(SCRATCH_PATH) --product focus-bridge
	$(PYTHON) scripts/bench_doors.py --bridge $(SCRATCH_PATH)/release/focus-bridge $(BENCH_DOORS_ARGS)

# Arguments of `focus-bench held` (e.g. '--also main=PATH' to measure another binary in the same run).
BENCH_HELD_ARGS ?=
# The held part alone (~3 minutes): Notify with 20,000 held against none, a restart with them,
# releasing them, Apps with 6,000 names (bench/held.json; docs/BENCHMARKS.md).
bench-held: $(STATIC_CXX_SCRIPT)
	$(SWIFT) build $(RELEASE_FLAGS) --scratch-path $(SCRATCH_PATH) --product focus-bridge
	$(SWIFT) build $(RELEASE_FLAGS) --scratch-path $(SCRATCH_PATH) --product focus-bench
	$(SCRATCH_PATH)/release/focus-bench held --bridge $(SCRATCH_PATH)/release/focus-bridge $(BENCH_HELD_ARGS)

# The install script reads its folders from these variables (all optional).
INSTALL_ENV = PREFIX='$(PREFIX)' DESTDIR='$(DESTDIR)' STRIP='$(STRIP)' \
	BINDIR='$(BINDIR)' MANDIR='$(MANDIR)' DATADIR='$(DATADIR)' \
	UNITDIR='$(UNITDIR)' AUTOSTARTDIR='$(AUTOSTARTDIR)' DBUSSERVICEDIR='$(DBUSSERVICEDIR)' \
	BASHCOMPDIR='$(BASHCOMPDIR)' ZSHCOMPDIR='$(ZSHCOMPDIR)' FISHCOMPDIR='$(FISHCOMPDIR)' \
	DOCDIR='$(DOCDIR)'

ifeq ($(strip $(BUILT)),)
install: release
	@$(INSTALL_ENV) bash scripts/install.sh install "$$($(SWIFT) build $(RELEASE_FLAGS) --scratch-path $(SCRATCH_PATH) --show-bin-path)"
else
install:
	@$(INSTALL_ENV) bash scripts/install.sh install '$(BUILT)'
endif

uninstall:
	@$(INSTALL_ENV) bash scripts/uninstall.sh

# The binaries the package and the archive carry: BUILT's, else the release build's.
PACKAGED_BIN = $(if $(strip $(BUILT)),$(BUILT),$(SCRATCH_PATH)/release)
PACKAGE_BUILD = $(if $(strip $(BUILT)),,release)

# The Debian package, from the files make install puts under /usr (scripts/package.sh says how).
deb: $(PACKAGE_BUILD)
	@bash scripts/install-deps.sh --package
	@bash scripts/package.sh deb '$(PACKAGED_BIN)' '$(DEB_FILE)'

# The release archive: the binaries and the files make install installs, with the same install
# script behind an install.sh of its own (scripts/package.sh).
dist: $(PACKAGE_BUILD)
	@bash scripts/install-deps.sh --package
	@STRIP='$(STRIP)' bash scripts/package.sh dist '$(PACKAGED_BIN)' '$(DIST_FILE)'

# The package and the archive checked: lintian, the archive's install.sh against make install,
# and both installed on a clean Debian 12 root (Tests/integration/test_package.py; that part is
# skipped with one line when not root or the mirror cannot be reached).
test-package: deps deb dist
	FOCUS_DEB='$(CURDIR)/$(DEB_FILE)' FOCUS_DIST='$(CURDIR)/$(DIST_FILE)' FOCUS_PACKAGED_BIN='$(abspath $(PACKAGED_BIN))' \
	  $(PYTHON) -m pytest -q -p no:cacheprovider Tests/integration/test_package.py
