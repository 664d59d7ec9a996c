#!/bin/sh
# Writes a linker version script that exports exactly the functions include/passcode.h declares
# (as scripts/api_model.py reads them) and hides everything else (the Swift runtime linked in
# statically included).
set -eu
exec python3 "$(dirname "$0")/api_model.py" --version-script "${1:-include/passcode.h}"
