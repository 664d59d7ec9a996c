#!/bin/sh
# make check-makefile: a build without the Swift it needs stops at once with one line saying what
# is missing and what to do, not with a shell's "swiftc: command not found" from deep inside.
# Each case builds the library into a folder of its own (B=) and never touches build/ or the
# sources (-o: the types stamp, which would touch every Swift file, is taken as made).
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '#!/bin/sh\necho "Swift version 5.10 (swift-5.10-RELEASE)"\n' > "$tmp/old-swift"
chmod +x "$tmp/old-swift"
fail=0
check() {  # check LABEL SWIFT WANTED-TEXT
    out=$(make --no-print-directory B="$tmp/b-$1" -o "$tmp/b-$1/types-h.stamp" lib SWIFT="$2" 2>&1)
    rc=$?
    line=$(printf '%s\n' "$out" | grep 'libpasscode' | grep -v '^make' | head -n 1)
    if [ $rc -ne 0 ] && printf '%s' "$line" | grep -q "$3" && ! printf '%s' "$out" | grep -q 'command not found'; then
        echo "swift: $1: make lib stops with: $line"
    else
        echo "swift: FAIL: $1: make lib (exit $rc) said:" >&2
        printf '%s\n' "$out" | tail -n 5 >&2
        fail=1
    fi
}
check missing "$tmp/no-such/swift" "is not found: install Swift 6.3 or later"
check too-old "$tmp/old-swift" "needs Swift 6.3 or later.*is Swift 5.10"
exit $fail
