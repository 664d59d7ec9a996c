#!/bin/sh
# Installs, when missing, the Debian packages one of two sets needs, and says which:
#   scripts/ensure-deps.sh [test]    make test (make deps): building, the header's compilers, and
#                                    every test tool (valgrind, keyctl, swtpm, tpm2-tools, doxygen,
#                                    man, tmux, Xvfb, python-dbusmock, aiosmtpd, the GTK packages,
#                                    AT-SPI)
#   scripts/ensure-deps.sh demo      make demo: building the library and the terminal demo
#                                    (libsodium-dev, libsqlite3-dev, libtss2-dev and libsystemd-dev
#                                    headers, pkg-config, gcc, ncurses), and
#                                    with a display the GTK front end's packages; no test tools
#   scripts/ensure-deps.sh --list SET   prints the packages SET may install, one a line, and exits
# Swift itself is not a Debian package: it is taken from PATH (or SWIFT=/path/to/swift).
set -eu
list=0
if [ "${1:-}" = --list ]; then list=1; shift; fi
set_name=${1:-test}
case "$set_name" in test|demo) ;; *) echo "usage: $0 [--list] [test|demo]" >&2; exit 2 ;; esac
missing=""
# need SETS PACKAGES CHECK...: PACKAGES belong to SETS ("demo test" or "test"); installed when
# CHECK (a shell command) fails. With --list, every package of the set is printed.
need() {
    sets=$1 packages=$2
    shift 2
    case " $sets " in *" $set_name "*) ;; *) return 0 ;; esac
    if [ "$list" = 1 ]; then printf '%s\n' $packages; return 0; fi
    sh -c "$*" >/dev/null 2>&1 || missing="$missing $packages"
}
display=0
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then display=1; fi
# Building the library and the C demo.
need "demo test" libsodium-dev "pkg-config --exists libsodium"
need "demo test" libsqlite3-dev "pkg-config --exists sqlite3"
need "demo test" pkg-config "command -v pkg-config"
need "demo test" gcc "command -v gcc"
need "demo test" libncurses-dev "command -v ncursesw6-config || [ -f /usr/include/ncurses.h ]"
# The translations: msgfmt builds the catalogues (make), xgettext and msgcmp check them.
need "demo test" gettext "command -v msgfmt && command -v xgettext && command -v msgcmp"
# The header is checked with g++ too; the exports with readelf.
need test g++ "command -v g++"
need test binutils "command -v readelf"
need "demo test" python3 "command -v python3"
need test valgrind "command -v valgrind"
# keyctl shows the session keyring in the test output (the library itself uses the system calls).
need test keyutils "command -v keyctl"
# pam_passcode and passcodectl (make pam, part of make install): the PAM headers.
need "demo test" libpam0g-dev "[ -f /usr/include/security/pam_modules.h ]"
# The TPM binding: tpm2-tss's headers to build, swtpm and tpm2-tools for its tests.
need "demo test" libtss2-dev "[ -f /usr/include/tss2/tss2_esys.h ]"
# passcoded mails reset codes through libcurl (the daemon links it; libpasscode.so does not).
need "demo test" libcurl4-openssl-dev "[ -f /usr/include/x86_64-linux-gnu/curl/curl.h ] || [ -f /usr/include/curl/curl.h ]"
need test "swtpm swtpm-tools" "command -v swtpm"
need test tpm2-tools "command -v tpm2_clear"
# xxd: the TPM test passes the owner/lockout authorizations to tpm2-tools on stdin (never argv).
need test xxd "command -v xxd"
# The GTK front end (Debian's python3, not a virtualenv's): GTK 4, libadwaita, PyGObject. make
# demo needs them only with a display (without one it runs the terminal front end).
gtk_check="/usr/bin/python3 -c 'import gi; gi.require_version(\"Gtk\", \"4.0\"); gi.require_version(\"Adw\", \"1\")'"
if [ "$display" = 1 ] || [ "$list" = 1 ]; then
    need "demo test" "python3-gi gir1.2-gtk-4.0 gir1.2-adw-1" "$gtk_check"
else
    need test "python3-gi gir1.2-gtk-4.0 gir1.2-adw-1" "$gtk_check"
fi
# Its tests: Xvfb, a private D-Bus with python-dbusmock, aiosmtpd as the mail server.
need test python3-dbusmock "/usr/bin/python3 -c 'import dbusmock'"
need test python3-aiosmtpd "/usr/bin/python3 -c 'import aiosmtpd'"
need test "xvfb xauth" "command -v xvfb-run"
# The screen-reader tests (Tests/gtk/test_atspi.py): the accessibility bus (at-spi2-core's bus
# launcher and registry) and its introspection data, to read the demo as a screen reader does.
need test "at-spi2-core gir1.2-atspi-2.0" "command -v /usr/libexec/at-spi-bus-launcher && /usr/bin/python3 -c 'import gi; gi.require_version(\"Atspi\", \"2.0\")'"
need test dbus-daemon "command -v dbus-daemon"
# passcoded (the store service) links libsystemd's sd-bus; the library's service mode builds
# against its header (and loads libsystemd with dlopen); the test adds users and drops to them.
need "demo test" libsystemd-dev "pkg-config --exists libsystemd"
need test "util-linux passwd" "command -v setpriv && command -v useradd"
need test systemd "command -v busctl"
# test-sandbox builds the sandbox as flatpak does: bubblewrap, and xdg-dbus-proxy for the filtered bus.
need test "bubblewrap xdg-dbus-proxy" "command -v bwrap && command -v xdg-dbus-proxy"
# ... and a FUSE mount (ostree's rofiles-fuse, fuse3's fusermount3): a /.flatpak-info on one is refused.
need test "ostree fuse3" "command -v rofiles-fuse && command -v fusermount3"
# pam_passcode and passcodectl: pam_wrapper, pypamtest and pamtester for their tests (Tests/pam);
# strace to see what the module opens.
need test "libpam-wrapper python3-pypamtest" "/usr/bin/python3 -c 'import pypamtest'"
need test pamtester "command -v pamtester"
need test strace "command -v strace"
# test-pam-system: the real sudo (Debian installs su, login and runuser always), the stock D-Bus
# launch helper and system.conf (dbus-daemon), pam-auth-update (libpam-runtime).
need test sudo "command -v sudo"
need test libpam-runtime "command -v pam-auth-update"
# make docs: the man pages and the HTML reference, and man(1) to check that each renders.
need test doxygen "command -v doxygen"
need test man-db "command -v man"
need test groff-base "command -v groff || command -v nroff"
# The terminal demo's ncurses screens are read back from a tmux pane (Tests/frontends/curses.sh).
need test tmux "command -v tmux"
[ "$list" = 1 ] && exit 0
if [ -n "$missing" ]; then
    echo "ensure-deps ($set_name): installing$missing"
    if [ "$(id -u)" -ne 0 ]; then
        echo "ensure-deps: not root; install these yourself: apt-get install$missing" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -q $missing
    echo "ensure-deps ($set_name): installed$missing"
fi
if ! command -v "${SWIFT:-swift}" >/dev/null 2>&1; then
    echo "ensure-deps: no Swift toolchain found; put swift on PATH or set SWIFT=/path/to/swift" >&2
    exit 1
fi
