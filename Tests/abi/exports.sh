#!/bin/sh
# Checks that a built libpasscode exports exactly the functions its header declares, and
# needs nothing from the Swift toolchain at run time.
set -eu
lib=$1 header=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
grep -oE '^[a-z][a-z_0-9 ]*[ *]+passcode_[a-z_0-9]+\(' "$header" | grep -oE 'passcode_[a-z_0-9]+\($' | tr -d '(' | sort > "$tmp/declared"
nm -D --defined-only --extern-only "$lib" | awk '{print $3}' | sort > "$tmp/exported"
if ! diff -u "$tmp/declared" "$tmp/exported"; then
    echo "exports: FAIL: the library's exported symbols differ from the header's declarations" >&2
    exit 1
fi
echo "exports: $(wc -l < "$tmp/declared") functions declared, the same $(wc -l < "$tmp/exported") exported"
readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort > "$tmp/needed"
# Built with Embedded Swift (EMBEDDED=1), the library needs no C++ runtime either.
if [ "${EMBEDDED:-0}" = 1 ]; then allowed='libc\.so\.6|libm\.so\.6|libsodium\.so\.[0-9]+|libsqlite3\.so\.0|ld-linux-[a-z0-9_-]+\.so\.[0-9]+'
else allowed='libc\.so\.6|libm\.so\.6|libgcc_s\.so\.1|libstdc\+\+\.so\.6|libsodium\.so\.[0-9]+|libsqlite3\.so\.0|ld-linux-[a-z0-9_-]+\.so\.[0-9]+'; fi
bad=$(grep -vxE "$allowed" "$tmp/needed" || true)
if [ -n "$bad" ]; then
    echo "exports: FAIL: unexpected NEEDED libraries: $bad" >&2
    exit 1
fi
echo "exports: NEEDED = $(tr '\n' ' ' < "$tmp/needed")(nothing from the Swift toolchain)"
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libpasscode.so.0" ] || { echo "exports: FAIL: SONAME is '$soname'" >&2; exit 1; }
echo "exports: SONAME = $soname"
