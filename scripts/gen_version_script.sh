#!/bin/sh
# Writes a linker version script that exports exactly the functions include/passcode.h declares
# and hides everything else (the Swift runtime linked in statically included).
set -eu
header=${1:-include/passcode.h}
echo "{"
echo "  global:"
grep -oE '^[a-z][a-z_0-9 ]*[ *]+passcode_[a-z_0-9]+\(' "$header" | grep -oE 'passcode_[a-z_0-9]+\($' | tr -d '(' | sed 's/.*/    &;/'
echo "  local: *;"
echo "};"
