#!/usr/bin/env bash
# Removes what `make install` installed (`make uninstall`): exactly the files
# listed by `scripts/install.sh list` for the same PREFIX, DESTDIR and folder
# variables, and the folder DOCDIR (share/doc/focus-bridge). Other folders are
# left in place, empty or not. A running focus-bridge is not stopped.
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/install.sh" uninstall
