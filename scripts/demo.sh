#!/bin/sh
# make demo: the GTK front end when a display is available, the terminal one otherwise, on the
# same default store ($XDG_STATE_HOME/passcode/demo.db, else ~/.local/state/passcode/demo.db).
# DEMO=terminal forces the terminal front end. Arguments go to the front end (--store PATH, ...).
#
#   scripts/demo.sh BUILD_DIR SONAME [ARGS...]
set -eu
build=$1 soname=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${DEMO:-}" != terminal ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] \
    && /usr/bin/python3 -c 'import gi; gi.require_version("Gtk", "4.0"); gi.require_version("Adw", "1")' 2>/dev/null; then
    echo "demo: the GTK front end (DEMO=terminal make demo for the terminal one)"
    PYTHONPATH="$root/python" PASSCODE_LIBRARY="$root/$build/$soname" exec /usr/bin/python3 "$root/examples/gtk/passcode_gtk.py" "$@"
fi
exec "$root/examples/c/passcode_demo" "$@"
