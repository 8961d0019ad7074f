# FocusBridge — build, test and try-out targets.
#
#   make run    install missing Debian packages, build, run focus-bridge
#               (on the session bus if one answers, else on a private bus
#               with --downstream log); extra arguments: make run ARGS='...'
#   make test   install missing Debian packages, build, unit tests,
#               integration and documentation tests

# Swift from the toolchain at /opt/swift when it is not on PATH.
ifeq ($(shell command -v swift 2>/dev/null),)
export PATH := /opt/swift/usr/bin:$(PATH)
endif

SWIFT ?= swift
# Debian's python: it has python3-gi and python3-dbus (the python3 first on
# PATH may not).
PYTHON ?= /usr/bin/python3
ARGS ?=

.PHONY: all deps build test run

all: build

deps:
	@bash scripts/install-deps.sh

build:
	$(SWIFT) build

test: deps build
	$(SWIFT) test
	$(PYTHON) -m pytest -q -p no:cacheprovider Tests/integration

run: deps build
	bash scripts/run.sh $(ARGS)
