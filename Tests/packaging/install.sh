#!/bin/sh
# Installs into a temporary prefix (and a DESTDIR staging root), then builds the C quick start
# against the installed header through pkg-config, with strict warnings, and runs it; and runs the
# README's commands for a prefix of one's own (the second ```sh block under "Quick start in C":
# make install PREFIX=$HOME/.local, pkg-config, an rpath) exactly as written, with HOME a
# temporary folder and no LD_LIBRARY_PATH.
set -eu
# As root, make install puts the PAM module and its profile in the machine's own folders: every
# check here then runs in a mount namespace whose system folders are private copies
# (Tests/packaging/private_system.sh), so that nothing on the machine changes.
if [ "$(id -u)" = 0 ] && [ -z "${PASSCODE_INSTALL_PRIVATE:-}" ]; then
    rc=0
    PASSCODE_INSTALL_PRIVATE=1 "$(dirname "$0")/private_system.sh" "$0" "$@" || rc=$?
    if [ "$rc" = 77 ]; then
        why="as root make install writes the machine's PAM folder, and keeping the machine as it was takes a mount namespace (unshare)"
        echo "install: SKIPPED: $why" >&2
        if [ -n "${PASSCODE_SKIPPED:-}" ]; then echo "$why" > "$PASSCODE_SKIPPED/test-install"; exit 0; fi
    fi
    exit "$rc"
fi
# Another copy installed on this machine (a make install in /usr/local, the packages) would let a
# program without an rpath find a library: the checks below run with every such copy hidden
# (Tests/packaging/hide_installed.sh, a mount namespace of its own; not root: SKIPPED, saying why).
if [ -z "${PASSCODE_INSTALL_HIDDEN:-}" ]; then
    rc=0
    PASSCODE_INSTALL_HIDDEN=1 "$(dirname "$0")/hide_installed.sh" "" "$0" "$@" || rc=$?
    if [ "$rc" = 77 ]; then
        why="another libpasscode is installed where the dynamic loader looks, and hiding it takes a mount namespace (root)"
        echo "install: SKIPPED: $why" >&2
        if [ -n "${PASSCODE_SKIPPED:-}" ]; then echo "$why" > "$PASSCODE_SKIPPED/test-install"; exit 0; fi
    fi
    exit "$rc"
fi
tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp" quickstart quickstart.db quickstart.db-wal quickstart.db-shm; }
trap cleanup EXIT
version=$(cat VERSION)
make -s install PREFIX="$tmp/prefix" PASSCODE_RECORD="$tmp/record" > "$tmp/install.out"
[ "$(cat "$tmp/record")" = "$tmp/prefix/lib" ] || { echo "install: FAIL: make install did not record LIBDIR for the Python binding" >&2; exit 1; }
for f in lib/libpasscode.so.$version lib/libpasscode.so.0 lib/libpasscode.so include/passcode.h lib/pkgconfig/passcode.pc; do
    [ -e "$tmp/prefix/$f" ] || { echo "install: FAIL: $f missing" >&2; exit 1; }
done
for f in sbin/passcodectl share/man/man8/pam_passcode.8 share/man/man8/passcodectl.8 share/libpasscode/install.manifest; do
    [ -e "$tmp/prefix/$f" ] || { echo "install: FAIL: $f missing (passcodectl, the manifest)" >&2; exit 1; }
done
# The module and its profile go where libpam and pam-auth-update read them, never under PREFIX:
# as root there (here a private copy), not root left out, saying so.
[ ! -e "$tmp/prefix/lib/security" ] && [ ! -e "$tmp/prefix/share/pam-configs" ] || { echo "install: FAIL: PAM files under PREFIX" >&2; exit 1; }
if [ "$(id -u)" = 0 ]; then
    pamdir=$(scripts/install.py pamdir)
    [ -e "$pamdir/pam_passcode.so" ] && grep -q '^Default: no$' /usr/share/pam-configs/passcode \
        || { echo "install: FAIL: the module is not in $pamdir, or the pam-auth-update profile is not there, off by default" >&2; exit 1; }
    grep -q "loads $tmp/prefix/lib/libpasscode.so.0 with an empty environment" "$tmp/install.out" \
        || { cat "$tmp/install.out" >&2; echo "install: FAIL: the module does not load the prefix's library by its path" >&2; exit 1; }
    pam_where="as root the module in $pamdir, loading $tmp/prefix/lib/libpasscode.so.0 by its path (a private copy of the folder)"
else
    grep -q '^install: left out, not root: passcode, pam_passcode.so ' "$tmp/install.out" \
        || { cat "$tmp/install.out" >&2; echo "install: FAIL: not root, make install did not say it left the module out" >&2; exit 1; }
    pam_where="not root the module and its profile left out, saying so"
fi
[ "$(readlink "$tmp/prefix/lib/libpasscode.so")" = libpasscode.so.0 ] || { echo "install: FAIL: libpasscode.so link" >&2; exit 1; }
grep -q '^Requires.private: libsodium sqlite3$' "$tmp/prefix/lib/pkgconfig/passcode.pc"
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
flags=$(pkg-config --cflags --libs passcode)
cc -std=c99 -Wall -Wextra -Wpedantic -Werror examples/c/quickstart.c $flags -o "$tmp/quickstart"
out=$(env -u LD_LIBRARY_PATH "$tmp/quickstart" "$tmp/qs.db" 2>&1) && echo "install: FAIL: a program built with pkg-config's flags alone found the library in a non-system prefix without LD_LIBRARY_PATH; the README says it needs an rpath" >&2 && exit 1
out=$(LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/quickstart" "$tmp/qs.db")
echo "$out" | grep -q '^wrong passcode: incorrect passcode (failed attempts: 1)$'
echo "$out" | grep -q '^right passcode: success (failed attempts: 0)$'
pkg-config --static --libs passcode | grep -q -- '-lsodium' || { echo "install: FAIL: static libs lack -lsodium" >&2; exit 1; }
# The man pages: every name opens its page from the installed tree, as `man passcode_open` does.
mandir="$tmp/prefix/share/man"
for name in passcode passcode_open passcode_verify passcode-verify PASSCODE_ERR_WRONG_PASSCODE; do
    MANWIDTH=80 man -M "$mandir" 3 "$name" 2>/dev/null | grep -q . || { echo "install: FAIL: man 3 $name" >&2; exit 1; }
done
MANWIDTH=80 man -M "$mandir" passcode_verify 2>/dev/null | grep -q 'passcode_status passcode_verify (passcode_store \* store' \
    || { echo "install: FAIL: man passcode_verify does not show passcode_verify" >&2; exit 1; }
MANWIDTH=80 man -M "$mandir" 7 passcode 2>/dev/null | grep -q 'Write-ahead' || { echo "install: FAIL: man 7 passcode" >&2; exit 1; }
# The HTML reference, where the README says.
[ -f "$tmp/prefix/share/doc/libpasscode/html/index.html" ] && [ -f "$tmp/prefix/share/doc/libpasscode/html/passcode-service.html" ] \
    || { echo "install: FAIL: the HTML reference is not in share/doc/libpasscode/html" >&2; exit 1; }
for page in "7 passcode-tpm" "3 passcode-service"; do
    MANWIDTH=80 man -M "$mandir" $page 2>/dev/null | grep -q . || { echo "install: FAIL: man $page" >&2; exit 1; }
done
# The README's commands for a prefix of one's own, as written (no LD_LIBRARY_PATH, HOME a temporary folder).
awk '$0 == "## Quick start in C" {in_s = 1; next} in_s && /^## / {exit}
    in_s && $0 == "```sh" {n++; on = (n == 2); next} on && $0 == "```" {exit} on {print}' README.md > "$tmp/prefix.sh"
grep -q 'PREFIX=\$HOME/.local' "$tmp/prefix.sh" || { echo "install: FAIL: the README's commands for a prefix of one's own not found" >&2; exit 1; }
mkdir -p "$tmp/home"
rm -f quickstart quickstart.db quickstart.db-wal quickstart.db-shm
env -u LD_LIBRARY_PATH -u PKG_CONFIG_PATH -u PASSCODE_LIBRARY HOME="$tmp/home" PASSCODE_RECORD="$tmp/record-home" \
    sh -eu "$tmp/prefix.sh" > "$tmp/prefix.out" 2>&1 || { tail -20 "$tmp/prefix.out" >&2; echo "install: FAIL: the README's commands for PREFIX=\$HOME/.local" >&2; exit 1; }
grep -q '^right passcode: success (failed attempts: 0)$' "$tmp/prefix.out" || { tail -20 "$tmp/prefix.out" >&2; echo "install: FAIL: the README's PREFIX=\$HOME/.local quick start output" >&2; exit 1; }
readelf -d quickstart | grep -q "R.*PATH.*$tmp/home/.local/lib" || { echo "install: FAIL: the quick start has no rpath to \$HOME/.local/lib" >&2; exit 1; }
# DESTDIR staging, as packagers use it.
make -s install PREFIX=/usr DESTDIR="$tmp/stage" PASSCODE_RECORD="$tmp/record-staged" PAMDIR=/usr/lib/security >/dev/null
[ ! -e "$tmp/record-staged" ] || { echo "install: FAIL: a DESTDIR install recorded a LIBDIR" >&2; exit 1; }
[ -e "$tmp/stage/usr/lib/libpasscode.so.$version" ] && [ -e "$tmp/stage/usr/include/passcode.h" ] \
    && grep -q '^prefix=/usr$' "$tmp/stage/usr/lib/pkgconfig/passcode.pc" \
    && [ -e "$tmp/stage/usr/lib/security/pam_passcode.so" ] && [ -e "$tmp/stage/usr/share/pam-configs/passcode" ] \
    && [ ! -e "$tmp/stage/usr/share/libpasscode" ] \
    || { echo "install: FAIL: DESTDIR staging (the paths given, a PAMDIR the machine does not read taken as given, no manifest)" >&2; exit 1; }
echo "install: the README's commands for PREFIX=\$HOME/.local ran as written: built with pkg-config and an rpath, ran without LD_LIBRARY_PATH"
echo "install: the PAM module not under PREFIX: $pam_where"
echo "install: PREFIX and DESTDIR installs complete; HTML in share/doc/libpasscode/html; quick start built with pkg-config ($flags) and ran; man passcode_verify, man 3 passcode and man 7 passcode open from the installed tree"
