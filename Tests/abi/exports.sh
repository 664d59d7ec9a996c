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
# Built with Embedded Swift (EMBEDDED=1), the library needs no C++ runtime and no libm either
# (Sources/libpasscode/embedded/embedded_libm.c). Neither build links libsqlite3: it is loaded at the first store
# opened (Sources/shared/CSQLite/loader.c), so that loading libpasscode costs no SQLite.
if [ "${EMBEDDED:-0}" = 1 ]; then allowed='libc\.so\.6|libsodium\.so\.[0-9]+|ld-linux-[a-z0-9_-]+\.so\.[0-9]+'
else allowed='libc\.so\.6|libm\.so\.6|libgcc_s\.so\.1|libstdc\+\+\.so\.6|libsodium\.so\.[0-9]+|ld-linux-[a-z0-9_-]+\.so\.[0-9]+'; fi
bad=$(grep -vxE "$allowed" "$tmp/needed" || true)
if [ -n "$bad" ]; then
    echo "exports: FAIL: unexpected NEEDED libraries: $bad" >&2
    exit 1
fi
echo "exports: NEEDED = $(tr '\n' ' ' < "$tmp/needed")(nothing from the Swift toolchain, no SQLite)"
# Every sqlite3_* function the library calls is its loader's (hidden), none left to the dynamic loader.
undefined=$(nm -D --undefined-only "$lib" | awk '{print $2}' | grep -E '^sqlite3_' || true)
if [ -n "$undefined" ]; then
    echo "exports: FAIL: SQLite functions left to the dynamic loader, not to Sources/shared/CSQLite/loader.c: $undefined" >&2
    exit 1
fi
echo "exports: no sqlite3_* symbol is imported or exported (the loader's own, hidden)"
# Each function imported is bound at every load of the library: none whose value a header gives
# as a constant (libsodium's Argon2id presets and sizes, glibc's major/minor; Sources/shared/CSodium/shim.h,
# Sources/shared/CSQLite/include/shim.h), and no arc4random_buf (Sources/libpasscode/embedded/embedded_random.c), which
# would need glibc 2.36.
nm -D --undefined-only "$lib" | awk '{print $2}' > "$tmp/imported"
constant=$(grep -E '^(crypto_pwhash_(ops|mem)limit_[a-z]+|crypto_pwhash_strbytes|sodium_base64_encoded_len|gnu_dev_(major|minor)|arc4random_buf)(@|$)' "$tmp/imported" || true)
if [ -n "$constant" ]; then
    echo "exports: FAIL: imports that a constant or the library's own code should answer: $(echo $constant)" >&2
    exit 1
fi
newest=$(sed -n 's/.*@GLIBC_\([0-9.]*\)$/\1/p' "$tmp/imported" | sort -V | tail -1)
if [ "$(printf '%s\n2.34\n' "$newest" | sort -V | tail -1)" != 2.34 ]; then
    echo "exports: FAIL: a function from glibc $newest is imported; the library imports none newer than 2.34 (so that make lib RELR=0 loads on glibc 2.34)" >&2
    exit 1
fi
relr=$(readelf -V "$lib" | grep -q 'Name: GLIBC_ABI_DT_RELR' && echo "; packed relocations (GLIBC_ABI_DT_RELR): loading needs glibc 2.36" || echo "; no packed relocations (RELR=0)")
echo "exports: $(wc -l < "$tmp/imported") functions imported, none a header's constant, none from glibc newer than $newest$relr"
# When given the lazy_sqlite program (make test-exports): SQLite only at the first open, and a
# clear PASSCODE_ERR_IO where libsqlite3.so.0 cannot be loaded (a mount namespace hides it: root).
if [ -n "${3:-}" ]; then
    lazy=$3
    "$lazy" "$lib" "$tmp"
    # And in a host that exports a static SQLite of its own (lazy_sqlite_host, when given).
    if [ -n "${4:-}" ]; then "$4" "$lib" "$tmp"; fi
    if [ "$(id -u)" = 0 ]; then
        sqlite=$(readlink -f "$(ldconfig -p | awk '$1 == "libsqlite3.so.0" {print $NF; exit}')")
        [ -f "$sqlite" ] || { echo "exports: FAIL: the system's libsqlite3.so.0 is not at $sqlite" >&2; exit 1; }
        unshare -m sh -c 'mount --bind /dev/null "$1" && exec "$2" "$3" "$4" missing' sh "$sqlite" "$lazy" "$lib" "$tmp"
    else
        echo "exports: SKIPPED the open without libsqlite3.so.0: hiding it takes a mount namespace (root)"
        [ -n "${PASSCODE_SKIPPED:-}" ] && echo "test-exports: the open without libsqlite3.so.0 (a mount namespace needs root)" >> "$PASSCODE_SKIPPED/parts"
    fi
fi
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libpasscode.so.0" ] || { echo "exports: FAIL: SONAME is '$soname'" >&2; exit 1; }
echo "exports: SONAME = $soname"
