#!/bin/sh
# Runs the README's quick starts exactly as written: the C one built through pkg-config against
# a temporary install, the Python one through the binding installed with pip into a venv-free
# target folder.
set -eu
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
extract() {  # extract LANG: the first ```LANG block of README.md
    awk -v lang="$1" '$0 == "```" lang {on=1; next} on && $0 == "```" {exit} on {print}' README.md
}
extract c > "$tmp/quickstart.c"
extract python > "$tmp/quickstart.py"
[ -s "$tmp/quickstart.c" ] && [ -s "$tmp/quickstart.py" ] || { echo "readme: FAIL: quick starts not found" >&2; exit 1; }
make -s install PREFIX="$tmp/prefix" >/dev/null
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
cc -std=c99 -Wall -Wextra -Wpedantic -Werror "$tmp/quickstart.c" $(pkg-config --cflags --libs passcode) -o "$tmp/quickstart"
(cd "$tmp" && LD_LIBRARY_PATH="$tmp/prefix/lib" ./quickstart > c.out)
grep -q '^right passcode: success$' "$tmp/c.out"
python3 -m pip install -q --no-deps --target "$tmp/site" ./python >/dev/null 2>&1
(cd "$tmp" && PYTHONPATH="$tmp/site" PASSCODE_LIBRARY="$tmp/prefix/lib/libpasscode.so.0" python3 quickstart.py > py.out)
grep -q '^wrong passcode: incorrect passcode$' "$tmp/py.out"
grep -q '^right passcode; failures since unlock: 0$' "$tmp/py.out"
echo "readme: the C quick start (pkg-config) and the Python quick start (pip-installed binding) ran as written"
