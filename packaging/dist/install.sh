#!/usr/bin/env bash
# Installs FocusBridge from this release archive: the files `make install` installs from the
# source, in the same folders, with no Swift toolchain. The binaries in bin/ are self-contained
# (the Swift runtime linked in); they need glibc 2.36 or later, GLib, SQLite and libsystemd, as
# Debian 12 and its contemporaries have them.
#
#   ./install.sh                         per-user, under ~/.local
#   ./install.sh --prefix /usr/local     system-wide (as root)
#   ./install.sh --uninstall [--prefix DIR]   remove exactly what the same install put
#   ./install.sh --list [--prefix DIR]        print the files it installs, one a line
#
# The variables of `make install` are read from the environment as well: PREFIX, DESTDIR,
# BINDIR, MANDIR, DATADIR, UNITDIR, AUTOSTARTDIR, DBUSSERVICEDIR, BASHCOMPDIR, ZSHCOMPDIR,
# FISHCOMPDIR, DOCDIR (scripts/install.sh says what each defaults to). The binaries are
# installed as they are, already stripped (STRIP=strip strips them again).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage() {
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
}

action=install
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix)
            [ $# -ge 2 ] || { echo "install.sh: --prefix needs a folder, e.g. --prefix /usr/local" >&2; exit 2; }
            PREFIX=$2; shift 2 ;;
        --prefix=*) PREFIX=${1#--prefix=}; shift ;;
        --uninstall) action=uninstall; shift ;;
        --list) action=list; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "install.sh: unknown argument '$1' (./install.sh --help lists them)" >&2; exit 2 ;;
    esac
done
[ -z "${PREFIX+set}" ] || export PREFIX
export STRIP=${STRIP-}

case "$action" in
    install) exec bash "$here/scripts/install.sh" install "$here/bin" ;;
    *) exec bash "$here/scripts/install.sh" "$action" ;;
esac
