#!/usr/bin/env bash
# Makes the Debian package (`make deb`) or the release archive (`make dist`) from built,
# self-contained binaries:
#
#   scripts/package.sh deb BUILT_DIR OUTPUT.deb
#   scripts/package.sh dist BUILT_DIR OUTPUT.tar.gz
#
# deb: the files are those `make install PREFIX=/usr DESTDIR=STAGE` puts (scripts/install.sh,
# run here with the same folders; a system-wide install, so the autostart entry and the D-Bus
# activation file go to /usr/share/focus-bridge and nothing starts by itself), then what Debian
# adds: the manual pages compressed, copyright and changelog.Debian.gz in
# /usr/share/doc/focus-bridge, lintian's overrides, and DEBIAN/control written by
# dpkg-gencontrol from packaging/debian/control and changelog, with Depends from dpkg-shlibdeps
# (the libraries the binaries link) and Installed-Size from the staged tree. No maintainer
# scripts: installing enables nothing, and purging has nothing of its own to remove beyond the
# package's files (the per-user state in each home stays, as for any desktop program).
# dpkg-shlibdeps and dpkg-gencontrol read debian/control from the folder they run in, so they
# run in a scratch folder holding a copy of packaging/debian.
#
# dist: OUTPUT.tar.gz holds one folder named after it (focus-bridge-VERSION-ARCH/) with bin/
# (the two binaries, stripped with STRIP as make install strips them), the files of the source
# tree that scripts/install.sh installs (`install.sh sources`), scripts/install.sh itself, and
# packaging/dist/install.sh as its install.sh: the same install as `make install`, without Swift.
#
# Both: file times are those of packaging/debian/changelog's first entry (SOURCE_DATE_EPOCH),
# owners root, so the same binaries make the same package and archive.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kind=${1:-}
say() { printf '%s: %s\n' "$kind" "$*" >&2; }
die() { say "$*"; exit 1; }

case "$kind" in deb | dist) ;; *) kind=package; die "usage: package.sh deb|dist BUILT_DIR OUTPUT" ;; esac
[ $# -eq 3 ] || die "usage: package.sh $kind BUILT_DIR OUTPUT"
built=$(cd "$2" 2>/dev/null && pwd) || die "no such folder: $2 (build first: make release)"
output=$3
case "$output" in /*) ;; *) output=$PWD/$output ;; esac
for tool in dpkg-deb dpkg-shlibdeps dpkg-gencontrol dpkg-parsechangelog strip readelf gzip tar; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (apt-get install dpkg-dev binutils)"
done
SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l "$root/packaging/debian/changelog" -S Timestamp)
export SOURCE_DATE_EPOCH
STRIP=${STRIP-strip}
umask 022

make_deb() {
    local work=$root/.build/deb stage=$root/.build/deb/focus-bridge doc forbidden
    rm -rf "$work"
    mkdir -p "$stage" "$work/source/debian"
    cp "$root/packaging/debian/control" "$root/packaging/debian/changelog" "$work/source/debian/"

    # The files of `make install PREFIX=/usr`, with none of the caller's folder variables.
    env -u BINDIR -u MANDIR -u DATADIR -u UNITDIR -u AUTOSTARTDIR -u DBUSSERVICEDIR -u BASHCOMPDIR \
        -u ZSHCOMPDIR -u FISHCOMPDIR -u DOCDIR \
        PREFIX=/usr DESTDIR="$stage" STRIP="strip --remove-section=.comment --remove-section=.note" \
        bash "$root/scripts/install.sh" install "$built" 2> "$work/install.log" \
        || { cat "$work/install.log" >&2; die "staging with scripts/install.sh failed"; }

    doc=$stage/usr/share/doc/focus-bridge
    gzip -9n "$stage"/usr/share/man/man*/*
    install -m 0644 "$root/packaging/debian/copyright" "$doc/copyright"
    gzip -9n < "$root/packaging/debian/changelog" > "$doc/changelog.Debian.gz"
    chmod 0644 "$doc/changelog.Debian.gz"
    install -D -m 0644 "$root/packaging/debian/focus-bridge.lintian-overrides" \
        "$stage/usr/share/lintian/overrides/focus-bridge"

    # A file the package must never carry (the rule of scripts/install.sh for a system-wide install).
    for forbidden in usr/share/dbus-1 etc; do
        [ ! -e "$stage/$forbidden" ] \
            || die "the package would install $forbidden/: a system-wide install must not start FocusBridge unasked"
    done

    mkdir -p "$stage/DEBIAN"
    (
        cd "$work/source"
        dpkg-shlibdeps -Tdebian/substvars "$stage/usr/bin/focus-bridge" "$stage/usr/bin/focusctl"
        # Packed relative relocations (DT_RELR, in the Makefile's LINK_LAYOUT) make the
        # binaries need glibc's version GLIBC_ABI_DT_RELR, which no symbol is bound to, so
        # dpkg-shlibdeps does not see it: glibc before 2.36 refuses to start them.
        if readelf -V "$stage/usr/bin/focus-bridge" "$stage/usr/bin/focusctl" | grep 'Name: GLIBC_ABI_DT_RELR' >/dev/null; then
            echo 'misc:Depends=libc6 (>= 2.36)' >> debian/substvars
        else
            echo 'misc:Depends=' >> debian/substvars
        fi
        dpkg-gencontrol -pfocus-bridge -P"$stage" -Tdebian/substvars -fdebian/files
    ) 2> "$work/control.log" || { cat "$work/control.log" >&2; die "dpkg-shlibdeps or dpkg-gencontrol failed"; }
    # Their warnings, if any, are shown.
    cat "$work/control.log" >&2

    (cd "$stage" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
    chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"
    find "$stage" -type d -exec chmod 0755 {} +
    find "$stage" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +

    dpkg-deb --root-owner-group -Zxz --build "$stage" "$output" >/dev/null
    say "made $(basename "$output") ($(du -k "$output" | cut -f1) KiB; Depends: $(dpkg-deb -f "$output" Depends))"
}

make_dist() {
    local name work stage program source
    name=$(basename "$output" .tar.gz)
    work=$root/.build/dist
    stage=$work/$name
    rm -rf "$work"
    mkdir -p "$stage/bin" "$stage/scripts"
    for program in focus-bridge focusctl; do
        [ -x "$built/$program" ] || die "$built/$program is not built (make release)"
        cp "$built/$program" "$stage/bin/$program"
        if [ -n "$STRIP" ]; then
            local -a strip_command
            read -ra strip_command <<< "$STRIP"
            "${strip_command[@]}" "$stage/bin/$program"
        fi
        chmod 0755 "$stage/bin/$program"
    done
    while read -r source; do
        install -D -m 0644 "$root/$source" "$stage/$source"
    done < <(bash "$root/scripts/install.sh" sources)
    install -m 0755 "$root/scripts/install.sh" "$stage/scripts/install.sh"
    install -m 0755 "$root/packaging/dist/install.sh" "$stage/install.sh"

    tar -C "$work" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" -cf - "$name" \
        | gzip -9n > "$output"
    say "made $(basename "$output") ($(du -k "$output" | cut -f1) KiB)"
}

"make_$kind"
