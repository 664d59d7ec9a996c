#!/bin/sh
# make check-makefile: the list at the top of the Makefile (what `make help` prints) names every
# target the Makefile has; the part under "make test:" names exactly the test groups make test
# runs (TEST_GROUPS), in their order; .PHONY names every target once, and nothing else.
#   Tests/make/targets.sh MAKEFILE GROUP...
set -eu
makefile=$1; shift
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "makefile: FAIL: $*" >&2; fail=1; }
# The header: the comment lines from line 2 to the first blank line.
sed -n '2,/^$/p' "$makefile" > "$tmp/header"
# Every target the Makefile defines (rules named by a word, not file targets such as $(B)/x).
grep -oE '^[a-z][a-z0-9-]*:' "$makefile" | tr -d ':' | sort -u > "$tmp/targets"
grep -oE 'make [a-z][a-z0-9-]*' "$tmp/header" | sed 's/^make //' | sort -u > "$tmp/listed"
# `make` alone stands for `all`.
grep -qE '^#   make  ' "$tmp/header" && echo all >> "$tmp/listed"
sort -u -o "$tmp/listed" "$tmp/listed"
missing=$(comm -23 "$tmp/targets" "$tmp/listed")
[ -z "$missing" ] || bad "targets missing from the list at the top: $(echo $missing)"
stale=$(comm -13 "$tmp/targets" "$tmp/listed")
[ -z "$stale" ] || bad "the list at the top names targets that do not exist: $(echo $stale)"
# The test groups: the first word of each "#   make X" line between "# make test:" and the next "# " heading.
awk '/^# make test:/ {on = 1; next} on && /^# [^ ]/ {exit} on && /^#   make / {print $3}' "$tmp/header" > "$tmp/groups.listed"
printf '%s\n' "$@" > "$tmp/groups"
if ! diff -u "$tmp/groups" "$tmp/groups.listed" > "$tmp/groups.diff"; then
    bad "the test groups at the top (+) are not TEST_GROUPS (-), in order:"; cat "$tmp/groups.diff" >&2
fi
# .PHONY: each target once, and only targets (FORCE, the always-out-of-date prerequisite, aside).
sed -n 's/^\.PHONY: *//p' "$makefile" | tr ' ' '\n' | grep -v '^$' | grep -vx FORCE | sort > "$tmp/phony"
twice=$(uniq -d "$tmp/phony")
[ -z "$twice" ] || bad ".PHONY names these more than once: $(echo $twice)"
sort -u -o "$tmp/phony" "$tmp/phony"
[ -z "$(comm -3 "$tmp/phony" "$tmp/targets")" ] || bad ".PHONY and the targets differ: $(comm -3 "$tmp/phony" "$tmp/targets" | tr -d '\t' | tr '\n' ' ')"
[ "$fail" -eq 0 ] || exit 1
echo "makefile: the list at the top names all $(wc -l < "$tmp/targets") targets; its $# test groups are TEST_GROUPS, in order; .PHONY names each target once"
