#!/bin/sh
# Runs each Tests/frontends/*.script through a front end in scripted mode with a fake clock and
# compares the screens it prints with the .expected file next to it.
#   Tests/frontends/run.sh COMMAND...   e.g. examples/c/passcode_demo, or python3 examples/python/passcode_demo.py
# UPDATE=1 rewrites the .expected files (review the diff before committing). The version in
# them is written @VERSION@, so that VERSION stays the one place it is written.
set -eu
export LC_ALL=C  # the .expected screens are English: the "C" locale, whatever LANGUAGE says
# tpm_*.script runs with --tpm against an swtpm started here on loopback (stopped at the end).
tmp=$(mktemp -d); trap 'if [ -f "$tmp/swtpm/pid" ]; then kill "$(cat "$tmp/swtpm/pid")"; fi; rm -rf "$tmp"' EXIT
tpm_args() {
    case "$1" in tpm_*) ;; *) return 0 ;; esac
    if [ ! -f "$tmp/swtpm/pid" ]; then
        mkdir -p "$tmp/swtpm"
        port=$((20000 + $$ % 1000 * 2))  # 20000-21999: not test_tpm's ports (23000-31000, 2341), which may run at once
        swtpm socket --tpm2 --tpmstate dir="$tmp/swtpm" --server type=tcp,port=$port,bindaddr=127.0.0.1 \
            --ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 --flags not-need-init,startup-clear \
            --daemon --pid file="$tmp/swtpm/pid"
        echo "swtpm:host=127.0.0.1,port=$port" > "$tmp/swtpm/tcti"
        i=0; while ! tpm2_getcap -T "$(cat "$tmp/swtpm/tcti")" properties-fixed >/dev/null 2>&1 && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    fi
    echo "--tpm $(cat "$tmp/swtpm/tcti")"
}
version=$(cat VERSION)
pass=0 fail=0
for script in Tests/frontends/*.script; do
    name=$(basename "$script" .script)
    expected=Tests/frontends/$name.expected
    # shellcheck disable=SC2046
    "$@" --store "$tmp/$name.db" --script --fake-clock $(tpm_args "$name") < "$script" > "$tmp/$name.out" 2>&1 || true
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
