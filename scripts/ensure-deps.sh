#!/bin/sh
# Installs what building and testing libpasscode needs, when it is missing: the C libraries
# (libsodium-dev, libsqlite3-dev), pkg-config, the C compilers the header is checked with, and
# the tools the tests use (valgrind, keyctl, swtpm, tpm2-tools), and the GTK front end's packages.
# Swift itself is not a Debian package: it is taken from PATH (or SWIFT=/path/to/swift).
set -eu
missing=""
pkg-config --exists libsodium 2>/dev/null || missing="$missing libsodium-dev"
pkg-config --exists sqlite3 2>/dev/null || missing="$missing libsqlite3-dev"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
command -v gcc >/dev/null 2>&1 || missing="$missing gcc"
command -v g++ >/dev/null 2>&1 || missing="$missing g++"
command -v readelf >/dev/null 2>&1 || missing="$missing binutils"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
command -v valgrind >/dev/null 2>&1 || missing="$missing valgrind"
# keyctl shows the session keyring in the test output (the library itself uses the system calls).
command -v keyctl >/dev/null 2>&1 || missing="$missing keyutils"
# The TPM binding: tpm2-tss's headers to build, swtpm and tpm2-tools for its tests.
[ -f /usr/include/tss2/tss2_esys.h ] || missing="$missing libtss2-dev"
command -v swtpm >/dev/null 2>&1 || missing="$missing swtpm swtpm-tools"
command -v tpm2_clear >/dev/null 2>&1 || missing="$missing tpm2-tools"
# The GTK front end and its tests (Debian's python3, not a virtualenv's): GTK 4, libadwaita,
# PyGObject; Xvfb, a private D-Bus with python-dbusmock, aiosmtpd as the mail server.
/usr/bin/python3 -c 'import gi; gi.require_version("Gtk", "4.0"); gi.require_version("Adw", "1")' 2>/dev/null \
    || missing="$missing python3-gi gir1.2-gtk-4.0 gir1.2-adw-1"
/usr/bin/python3 -c 'import dbusmock' 2>/dev/null || missing="$missing python3-dbusmock"
/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null || missing="$missing python3-aiosmtpd"
command -v xvfb-run >/dev/null 2>&1 || missing="$missing xvfb xauth"
command -v dbus-daemon >/dev/null 2>&1 || missing="$missing dbus-daemon"
# make docs: the man pages and the HTML reference, and man(1) to check that each renders.
command -v doxygen >/dev/null 2>&1 || missing="$missing doxygen"
command -v man >/dev/null 2>&1 || missing="$missing man-db"
command -v groff >/dev/null 2>&1 || command -v nroff >/dev/null 2>&1 || missing="$missing groff-base"
# The terminal demo's ncurses screens are read back from a tmux pane (scripts/check_curses.sh).
command -v tmux >/dev/null 2>&1 || missing="$missing tmux"
command -v ncursesw6-config >/dev/null 2>&1 || [ -f /usr/include/ncurses.h ] || missing="$missing libncurses-dev"
if [ -n "$missing" ]; then
    echo "ensure-deps: installing$missing"
    if [ "$(id -u)" -ne 0 ]; then
        echo "ensure-deps: not root; install these yourself:$missing" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq $missing >/dev/null
fi
if ! command -v "${SWIFT:-swift}" >/dev/null 2>&1; then
    echo "ensure-deps: no Swift toolchain found; put swift on PATH or set SWIFT=/path/to/swift" >&2
    exit 1
fi
