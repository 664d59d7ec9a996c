#!/bin/sh
# Runs each Tests/frontends/*.script through a front end in scripted mode with a fake clock and
# compares the screens it prints with the .expected file next to it.
#   check_frontends.sh COMMAND...   e.g. examples/c/passcode_demo, or python3 examples/python/passcode_demo.py
# UPDATE=1 rewrites the .expected files (review the diff before committing). The version in
# them is written @VERSION@, so that VERSION stays the one place it is written.
set -eu
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
version=$(cat VERSION)
pass=0 fail=0
for script in Tests/frontends/*.script; do
    name=$(basename "$script" .script)
    expected=Tests/frontends/$name.expected
    "$@" --store "$tmp/$name.db" --script --fake-clock < "$script" > "$tmp/$name.out" 2>&1 || true
    if [ "${UPDATE:-0}" = 1 ]; then sed "s/^libpasscode $version demo/libpasscode @VERSION@ demo/" "$tmp/$name.out" > "$expected"; fi
    sed "s/@VERSION@/$version/" "$expected" > "$tmp/$name.expected"
    if diff -u "$tmp/$name.expected" "$tmp/$name.out" > "$tmp/$name.diff"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL front end $* on $name:" >&2
        head -40 "$tmp/$name.diff" >&2
    fi
done
echo "front ends ($*): $pass passed, $fail failed"
[ "$fail" -eq 0 ]
