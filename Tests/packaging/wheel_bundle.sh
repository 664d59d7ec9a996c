#!/bin/sh
# make test-wheel: the wheel `make wheel` builds carries its library. On this machine, with no
# libpasscode anywhere the dynamic loader looks (`ldconfig -p`), a fresh venv installs the wheel
# (any installed copy hidden: Tests/packaging/hide_installed.sh) and runs the README's Python
# quick start with no environment variable; the binding must have
# loaded the copy inside the installed package, with the bundled libsodium and the system's
# libsqlite3 (never a second SQLite).
#   Tests/packaging/wheel_bundle.sh WHEEL
set -eu
wheel=$1
case "$(basename "$wheel")" in
    passcode-*-py3-none-manylinux_*_x86_64.whl|passcode-*-py3-none-manylinux_*_aarch64.whl) ;;
    *) echo "wheel-bundle: FAIL: $wheel is not a py3-none-manylinux_* wheel" >&2; exit 1 ;;
esac
python3 - "$wheel" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
problems = []
if "passcode/libpasscode.so.0" not in names:
    problems.append("no passcode/libpasscode.so.0")
if not any(n.startswith("passcode.libs/libsodium") for n in names):
    problems.append("no bundled libsodium in passcode.libs/")
# Nothing of the build machine (PyNaCl's wheel carries nothing from its build machine either).
if any(n.endswith("_installed_libdir") or "__pycache__" in n for n in names):
    problems.append("a file of the build machine: " + ", ".join(n for n in names if n.endswith("_installed_libdir") or "__pycache__" in n))
if any("sqlite" in n for n in names):
    problems.append("a bundled SQLite: " + ", ".join(n for n in names if "sqlite" in n))
if problems:
    sys.exit("wheel-bundle: FAIL: " + "; ".join(problems))
PY
# The test is that no other copy could have been loaded: an installed one (`make install`) is
# hidden from the venv's Python by hide_installed.sh (a mount namespace of its own, as root).
hide="$(cd "$(dirname "$0")" && pwd)/hide_installed.sh"
rc=0; "$hide" "" true 2>/dev/null || rc=$?
if [ "$rc" = 77 ]; then
    why="cannot run here: libpasscode is installed ($(ldconfig -p | grep libpasscode | head -n 1 | sed 's/^[[:space:]]*//')) and hiding it needs root"
    echo "SKIPPED test-wheel: $why" >&2
    if [ -n "${PASSCODE_SKIPPED:-}" ]; then echo "$why" > "$PASSCODE_SKIPPED/test-wheel"; fi
    exit 0
fi
tmp=$(mktemp -d /tmp/passcode-wheel-test-33-XXXXXX); trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --no-index --no-deps "$wheel"
awk '$0 == "```python" {on=1; next} on && $0 == "```" {exit} on {print}' README.md > "$tmp/quickstart.py"
[ -s "$tmp/quickstart.py" ] || { echo "wheel-bundle: FAIL: the README's Python quick start not found" >&2; exit 1; }
# No environment variable that could point at a library, and a folder with no binding in it.
(cd "$tmp" && env -u PASSCODE_LIBRARY -u LD_LIBRARY_PATH -u PYTHONPATH "$hide" "" "$tmp/venv/bin/python" quickstart.py > py.out)
grep -q '^wrong passcode: incorrect passcode (failed attempts: 1)$' "$tmp/py.out"
grep -q '^right passcode (failed attempts: 0)$' "$tmp/py.out"
(cd "$tmp" && env -u PASSCODE_LIBRARY -u LD_LIBRARY_PATH -u PYTHONPATH "$hide" "" "$tmp/venv/bin/python" - "$tmp/venv" <<'PY'
import os, sys
import passcode
from passcode import _ffi
venv = os.path.realpath(sys.argv[1])
lib = os.path.realpath(_ffi.lib._name)
want = os.path.realpath(os.path.join(os.path.dirname(passcode.__file__), "libpasscode.so.0"))
assert lib == want and lib.startswith(venv), f"loaded {lib}, not the wheel's {want}"
def mapped():
    return {line.split()[-1] for line in open("/proc/self/maps").read().splitlines() if ".so" in line}
# SQLite is loaded at the first store opened (Sources/shared/CSQLite/loader.c), not with the library.
assert not [m for m in mapped() if "libsqlite3" in m], "libsqlite3 mapped before any store was opened"
with passcode.Store("lazy.db") as store:
    assert not store.is_set
sodium = [m for m in mapped() if "libsodium" in m]
sqlite = [m for m in mapped() if "libsqlite3" in m]
assert sodium and all(m.startswith(venv) for m in sodium), f"libsodium from {sodium}, not the wheel's"
assert len(sqlite) == 1 and not sqlite[0].startswith(venv), f"SQLite from {sqlite}: the system's, once"
print(f"wheel-bundle: loaded {lib} with {os.path.basename(sodium[0])} from the wheel and {sqlite[0]}")
PY
)
echo "wheel-bundle: $(basename "$wheel"): fresh venv, no other libpasscode in sight, no environment variable: the README's Python quick start ran"
