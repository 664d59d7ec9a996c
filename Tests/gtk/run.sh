#!/bin/sh
# The GTK front end's tests (Tests/gtk/test_gtk.py) under Xvfb, with Debian's python3 (PyGObject,
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
exec xvfb-run -a -s "-screen 0 1280x1024x24" env GSK_RENDERER=cairo NO_AT_BRIDGE=1 GTK_A11Y=none \
    PASSCODED="$root/$build/passcoded" PYTHONPATH="$root/python" PASSCODE_LIBRARY="$root/$build/$soname" PYTHONDONTWRITEBYTECODE=1 \
    /usr/bin/python3 -X faulthandler -m unittest -v "$root/Tests/gtk/test_gtk.py" 2>&1
