#!/bin/sh
# Runs the README's quick starts exactly as written, as a new user would from the checkout:
# the ```sh block under "Quick start in C" (the build tree's pkg-config file, no install), and
# the one under "Quick start in Python" (make install PREFIX=$HOME/.local, a venv, pip install
# ./python) with HOME set to a temporary folder. The README's ```c and ```python blocks must be
# examples/c/quickstart.c and examples/python/quickstart.py, which those commands run.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
# Run by root, the README's make install puts the PAM module and its profile in the machine's own
# folders (whatever PREFIX is): it then runs in a mount namespace whose system folders are private
# copies (Tests/packaging/private_system.sh), so that nothing on the machine changes.
if [ "$(id -u)" = 0 ] && [ -z "${PASSCODE_README_PRIVATE:-}" ]; then
    rc=0
    PASSCODE_README_PRIVATE=1 Tests/packaging/private_system.sh "$0" "$@" || rc=$?
    if [ "$rc" = 77 ]; then
        echo "readme: SKIPPED: as root the README's make install writes the machine's PAM folder, and keeping the machine as it was takes a mount namespace (unshare)" >&2
        if [ -n "${PASSCODE_SKIPPED:-}" ]; then echo "readme: needs a mount namespace as root" >> "$PASSCODE_SKIPPED/parts"; fi
        exit 0
    fi
    exit "$rc"
fi
tmp=$(mktemp -d)
record=python/passcode/_installed_libdir
saved=""
if [ -f "$record" ]; then saved=$(cat "$record"); fi
cleanup() {
    rm -rf "$tmp" quickstart quickstart.db quickstart.db-wal quickstart.db-shm
    if [ -n "$saved" ]; then echo "$saved" > "$record"; else rm -f "$record"; fi
}
trap cleanup EXIT
section() {  # section HEADING LANG: the first ```LANG block under "## HEADING"
    awk -v h="## $1" -v lang="$2" '$0 == h {in_s = 1; next} in_s && /^## / {exit}
        in_s && $0 == "```" lang {on = 1; next} on && $0 == "```" {exit} on {print}' README.md
}
section "Quick start in C" c | diff -u examples/c/quickstart.c - \
    || { echo "readme: FAIL: the C quick start differs from examples/c/quickstart.c" >&2; exit 1; }
section "Quick start in Python" python | diff -u examples/python/quickstart.py - \
    || { echo "readme: FAIL: the Python quick start differs from examples/python/quickstart.py" >&2; exit 1; }
section "Quick start in C" sh > "$tmp/c.sh"
section "Quick start in Python" sh > "$tmp/py.sh"
[ -s "$tmp/c.sh" ] && [ -s "$tmp/py.sh" ] || { echo "readme: FAIL: quick-start commands not found" >&2; exit 1; }
rm -f quickstart.db quickstart.db-wal quickstart.db-shm
# No LD_LIBRARY_PATH and no PASSCODE_LIBRARY: the commands must work on their own.
env -u LD_LIBRARY_PATH -u PASSCODE_LIBRARY -u PKG_CONFIG_PATH sh -eu "$tmp/c.sh" > "$tmp/c.out" 2>&1 \
    || { cat "$tmp/c.out" >&2; echo "readme: FAIL: the C quick start's commands" >&2; exit 1; }
grep -q '^right passcode: success (failed attempts: 0)$' "$tmp/c.out" || { cat "$tmp/c.out" >&2; echo "readme: FAIL: C quick start output" >&2; exit 1; }
# What a person reads follows the locale (the library's catalogue, beside it in build/share/locale):
# German, French, and English for a language without one, or in the "C" locale whatever LANGUAGE says.
for said in "de_DE.UTF-8:C.UTF-8:Falscher Code" "fr:C.UTF-8:Code incorrect" "xx_YY:C.UTF-8:Incorrect passcode" \
            "de:C:Incorrect passcode"; do
    language=${said%%:*} rest=${said#*:}
    lang=${rest%%:*} expected=${rest#*:}
    got=$(env -u LC_ALL -u LC_MESSAGES LANG="$lang" LANGUAGE="$language" ./quickstart | sed -n 's/^the lock screen says: //p')
    [ "$got" = "$expected" ] || { echo "readme: FAIL: LANGUAGE=$language LANG=$lang: the quick start said \"$got\", not \"$expected\"" >&2; exit 1; }
done
echo "readme: the C quick start's message in German, French, and English for an unknown language and the C locale"
rm -f quickstart.db quickstart.db-wal quickstart.db-shm
mkdir -p "$tmp/home"
env -u LD_LIBRARY_PATH -u PASSCODE_LIBRARY -u PYTHONPATH HOME="$tmp/home" sh -eu "$tmp/py.sh" > "$tmp/py.out" 2>&1 \
    || { tail -30 "$tmp/py.out" >&2; echo "readme: FAIL: the Python quick start's commands" >&2; exit 1; }
grep -q '^wrong passcode: incorrect passcode (failed attempts: 1)$' "$tmp/py.out" && grep -q '^right passcode (failed attempts: 0)$' "$tmp/py.out" \
    || { tail -30 "$tmp/py.out" >&2; echo "readme: FAIL: Python quick start output" >&2; exit 1; }
# The venv's binding found the library where make install put it (the recorded LIBDIR), not in
# this checkout's build/ (which it cannot see from the venv) nor through LD_LIBRARY_PATH.
found=$(env -u LD_LIBRARY_PATH -u PASSCODE_LIBRARY -u PYTHONPATH HOME="$tmp/home" "$tmp/home/passcode-venv/bin/python" -c \
    'import passcode._ffi as f; print(f.lib._name)')
case "$found" in
    "$tmp/home/.local/lib/"*|libpasscode.so.0) ;;
    *) echo "readme: FAIL: the venv's binding loaded $found" >&2; exit 1 ;;
esac
echo "readme: the C quick start (build-tree pkg-config, no LD_LIBRARY_PATH) and the Python quick start (make install PREFIX=\$HOME/.local, venv, pip install ./python; library from $found) ran as written"
