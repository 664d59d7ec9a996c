#!/bin/bash
# Builds libpasscode.so with Embedded Swift (make lib EMBEDDED=1): no Swift runtime, no C++
# runtime, so NEEDED is libc and libsodium (SQLite is loaded at the first store opened). SwiftPM cannot build in this mode, so
# swiftc is called directly, once per module (whole-module, -Osize), and clang links the objects.
# Every flag of the embedded build is written here and nowhere else.
#
#   scripts/embedded_build.sh OUT.so VERSION_SCRIPT SONAME
#   SWIFTC, CLANG: the compilers (default: the Swift toolchain's on PATH)
#   EMBEDDED_DIR:  the folder for the modules and objects (default: build/embedded)
#   EMBEDDED_CHECK=1: compile the modules only, no link (the errors Embedded Swift gives)
#   EMBEDDED_SWIFT_FLAGS: more swiftc flags (-g for valgrind's stacks, say)
#   RELR=0: no packed relative relocations (they need glibc 2.36 or later to load), as make lib RELR=0
set -euo pipefail
out=${1:?usage: embedded_build.sh OUT.so VERSION_SCRIPT SONAME}
map=${2:?version script}
soname=${3:?soname}
cd "$(dirname "$0")/.."

SWIFTC=${SWIFTC:-swiftc}
CLANG=${CLANG:-$(dirname "$(command -v "$SWIFTC")")/clang}
dir=${EMBEDDED_DIR:-build/embedded}
mkdir -p "$dir"
target=x86_64-unknown-linux-gnu
toolchain_lib=$(dirname "$(command -v "$SWIFTC")")/../lib/swift/embedded/$target

# The language mode and code generation: Embedded Swift, one module at a time, smallest code,
# each function in its own section so the link drops what no export reaches. The functions a
# lock screen calls on every redraw (passcode_is_set, passcode_lock_screen_read and the path
# under them) are marked @_optimize(speed) in the sources: built for size, the poll took 125 ns
# against the EMBEDDED=0 build's 150; with them built for speed, 85 ns, and 0.01 MB more code
# (all of it for speed: 0.15 MB more, and a slower load).
# No -g for the Swift modules: the code is the same with it, but the compiler then writes unwind
# tables for every function into .eh_frame, which is loaded (0.17 MB more, 1.12 MB against 0.95,
# measured with Swift 6.3.1; -gline-tables-only the same). The C parts below have DWARF 4
# (-gdwarf-4: the valgrind of Debian 12 cannot read clang's default DWARF 5); the -dbgsym
# package carries it and every function's symbol, under the build ID.
swift_flags=(-target "$target" -enable-experimental-feature Embedded -swift-version 6 -wmo -Osize -parse-as-library
             -Xfrontend -function-sections -Xcc -fPIC -package-name libpasscode ${EMBEDDED_SWIFT_FLAGS:-})
# The modules come from Package.swift, the one list (scripts/modules.py asks SwiftPM): the C
# modules' folders (the same module maps SwiftPM uses), the Swift modules in build order, the C
# targets' files.
c_modules=()
while read -r folder; do c_modules+=(-I "$folder"); done < <(python3 scripts/modules.py passcode include)
mapfile -t swift_modules < <(python3 scripts/modules.py passcode swift)
mapfile -t c_sources < <(python3 scripts/modules.py passcode c)
[ ${#swift_modules[@]} -gt 0 ] || { echo "embedded_build: no Swift module of product passcode in Package.swift" >&2; exit 1; }
for flag in $(pkg-config --cflags-only-I libsodium sqlite3); do c_modules+=(-Xcc "$flag"); done
# The version numbers of VERSION, as Package.swift passes them to CPasscodeVersion.
IFS=. read -r major minor patch < VERSION
version=(-Xcc -DPASSCODE_BUILD_VERSION_MAJOR="$major" -Xcc -DPASSCODE_BUILD_VERSION_MINOR="$minor"
         -Xcc -DPASSCODE_BUILD_VERSION_PATCH="$patch")

# One swiftc per module, dependencies first; each module's interface goes to $dir for the next.
objects=()
for entry in "${swift_modules[@]}"; do
    name=${entry%% *} path=${entry#* }
    sources=$(find "$path" -name '*.swift' | sort)
    extra=()
    # The C ABI module reads VERSION's numbers; its @c declarations are written out as C
    # (scripts/gen_header.py makes include/passcode.h of them: make header, make check-header).
    [ "$name" = Passcode ] && extra=("${version[@]}" -emit-clang-header-path "$dir/passcode-swift.h")
    # shellcheck disable=SC2086
    "$SWIFTC" "${swift_flags[@]}" "${c_modules[@]}" "${extra[@]}" -I "$dir" -module-name "$name" $sources \
        -emit-module -emit-module-path "$dir/$name.swiftmodule" -emit-object -o "$dir/$name.o"
    objects+=("$dir/$name.o")
done
[ "${EMBEDDED_CHECK:-0}" = 1 ] && exit 0

# The C parts: SQLite's loader (libsqlite3.so.0 is loaded at the first store opened, not linked:
# Sources/shared/CSQLite/loader.c), the one libm function the Embedded standard library calls
# (Sources/libpasscode/embedded/embedded_libm.c), so that NEEDED is libc and libsodium only, and its source of
# randomness (Sources/libpasscode/embedded/embedded_random.c), so that it needs no glibc 2.36.
c_flags=(-O2 -gdwarf-4 -fPIC -fvisibility=hidden -Wall -Wextra -Werror -std=gnu11 ${EMBEDDED_C_FLAGS:-})
for src in "${c_sources[@]}"; do
    "$CLANG" "${c_flags[@]}" -c -o "$dir/$(basename "$src" .c).o" "$src"
    objects+=("$dir/$(basename "$src" .c).o")
done
for src in Sources/libpasscode/embedded/*.c; do
    # shellcheck disable=SC2046
    "$CLANG" "${c_flags[@]}" $(pkg-config --cflags libsodium) -c -o "$dir/$(basename "$src" .c).o" "$src"
    objects+=("$dir/$(basename "$src" .c).o")
done

# The link: the header's functions exported (the version script), the Unicode tables that
# String's Character operations need from the toolchain, and libsodium; no Swift or C++ runtime
# library, no libm, no libsqlite3 (-z defs: a symbol found in none of these fails the link). The
# build ID names the debugging symbols (debian's -dbgsym package, debuginfod) for this build.
relr=()
[ "${RELR:-1}" = 1 ] && relr=(-Wl,-z,pack-relative-relocs)
"$CLANG" -shared -fuse-ld=lld -o "$out" "${objects[@]}" "${relr[@]}" \
    -Wl,--version-script="$map" -Wl,-soname="$soname" -Wl,--build-id=sha1 -Wl,-z,relro -Wl,-z,now -Wl,--gc-sections \
    -Wl,--as-needed -Wl,-Map="$(dirname "$out")/libpasscode.linkmap" \
    "$toolchain_lib/libswiftUnicodeDataTables.a" -lsodium -Wl,-z,defs -lc
