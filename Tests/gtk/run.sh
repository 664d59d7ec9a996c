#!/bin/sh
# The GTK front end's tests (Tests/gtk/test_gtk.py, then a screen reader's: test_atspi.py) under
# Xvfb, with Debian's python3 (PyGObject,
# python-dbusmock and aiosmtpd are Debian packages; scripts/ensure-deps.sh installs them).
# The test starts its own private system bus, logind and fprintd mocks and an SMTP server on
# loopback; the service-mode tests (as root) passcoded for BUILD_DIR on a bus of their own
# (scripts/try-service.sh). Screenshots go to $SCREENSHOT_DIR (default build/screenshots).
#
#   Tests/gtk/run.sh BUILD_DIR SONAME
set -eu
build=${1:-build}
soname=${2:-libpasscode.so.0}
root=$(cd "$(dirname "$0")/../.." && pwd)
# GSK's cairo renderer: Xvfb has no GL, and the screenshots should not depend on a GPU.
# NO_AT_BRIDGE: no accessibility bus in the test's private session.
# -X faulthandler: a crash prints the Python stack of every thread (one segfault was seen once).
rc=0
xvfb-run -a -s "-screen 0 1280x1024x24" env GSK_RENDERER=cairo NO_AT_BRIDGE=1 GTK_A11Y=none \
    PASSCODED="$root/$build/passcoded" PYTHONPATH="$root/python" PASSCODE_LIBRARY="$root/$build/$soname" PYTHONDONTWRITEBYTECODE=1 \
    /usr/bin/python3 -X faulthandler -m unittest -v "$root/Tests/gtk/test_gtk.py" 2>&1 || rc=$?
[ -n "${SCREENSHOT_DIR:-}" ] && exit $rc  # make screenshots: the screens, not the screen reader's tests
# The screen reader's tests (Tests/gtk/test_atspi.py): the demo as a process of its own on the
# accessibility bus of a private session bus. No window manager runs: keys go to the window
# that has the X focus, or to the one under the pointer once that window closes; the pointer
# stays where Xvfb puts it, in the middle of a screen smaller than every window, so that
# a window's keys go to the window on top, as a window manager's focus would. No pointer
# event is ever made.
# The session's own services (the portal, dbus-daemon's notices) talk on stderr: left out.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
xvfb-run -a -s "-screen 0 400x600x24" dbus-run-session -- env GSK_RENDERER=cairo \
    PYTHONPATH="$root/python" PASSCODE_LIBRARY="$root/$build/$soname" PYTHONDONTWRITEBYTECODE=1 \
    /usr/bin/python3 -X faulthandler -W ignore::DeprecationWarning -m unittest -v "$root/Tests/gtk/test_atspi.py" \
    > "$log" 2>&1 || rc=1
grep -v -e 'dbus-daemon\[' -e 'Failed to set fd limit' -e 'portal' -e 'pw.conf' -e 'RealtimeKit' -e 'PipeWire' \
    -e 'SpiRegistry daemon' -e 'dbind-WARNING' -e 'max threads value' -e '^$' "$log"
exit $rc
