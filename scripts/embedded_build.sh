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
swift_flags=(-target "$target" -enable-experimental-feature Embedded -swift-version 6 -wmo -Osize -parse-as-library
             -Xfrontend -function-sections -Xcc -fPIC -package-name libpasscode ${EMBEDDED_SWIFT_FLAGS:-})
# The C modules (the same module maps SwiftPM uses) and their libraries' headers.
c_modules=(-I Sources/CSodium -I Sources/CSQLite/include -I Sources/CKeyring -I Sources/CTss2
           -I Sources/Passcode/Types -I Sources/CPasscodeShims -I Sources/CSdBus -I Sources/CPasscodeVersion)
for flag in $(pkg-config --cflags-only-I libsodium sqlite3); do c_modules+=(-Xcc "$flag"); done
# The version numbers of VERSION, as Package.swift passes them to CPasscodeVersion.
IFS=. read -r major minor patch < VERSION
version=(-Xcc -DPASSCODE_BUILD_VERSION_MAJOR="$major" -Xcc -DPASSCODE_BUILD_VERSION_MINOR="$minor"
         -Xcc -DPASSCODE_BUILD_VERSION_PATCH="$patch")

core_sources=$(find Sources/PasscodeCore -name '*.swift' | sort)
bus_sources=$(find Sources/PasscodeBus -name '*.swift' | sort)
backend_sources=$(find Sources/PasscodeBackend -name '*.swift' | sort)
api_sources=$(find Sources/Passcode -maxdepth 1 -name '*.swift' | sort)

# shellcheck disable=SC2086
"$SWIFTC" "${swift_flags[@]}" "${c_modules[@]}" -module-name PasscodeCore $core_sources \
    -emit-module -emit-module-path "$dir/PasscodeCore.swiftmodule" -emit-object -o "$dir/PasscodeCore.o"
# The seam (Package.swift's order): what both sides of the bus share, then the back ends.
# shellcheck disable=SC2086
"$SWIFTC" "${swift_flags[@]}" "${c_modules[@]}" -I "$dir" -module-name PasscodeBus $bus_sources \
    -emit-module -emit-module-path "$dir/PasscodeBus.swiftmodule" -emit-object -o "$dir/PasscodeBus.o"
# shellcheck disable=SC2086
"$SWIFTC" "${swift_flags[@]}" "${c_modules[@]}" -I "$dir" -module-name PasscodeBackend $backend_sources \
    -emit-module -emit-module-path "$dir/PasscodeBackend.swiftmodule" -emit-object -o "$dir/PasscodeBackend.o"
# shellcheck disable=SC2086
"$SWIFTC" "${swift_flags[@]}" "${c_modules[@]}" "${version[@]}" -I "$dir" -module-name Passcode $api_sources \
    -emit-object -o "$dir/Passcode.o"
[ "${EMBEDDED_CHECK:-0}" = 1 ] && exit 0

# The C parts: SQLite's loader (libsqlite3.so.0 is loaded at the first store opened, not linked:
# Sources/CSQLite/loader.c), the one libm function the Embedded standard library calls
# (scripts/embedded_libm.c), so that NEEDED is libc and libsodium only, and its source of
# randomness (scripts/embedded_random.c), so that it needs no glibc 2.36.
c_flags=(-O2 -fPIC -fvisibility=hidden -Wall -Wextra -Werror -std=gnu11 ${EMBEDDED_C_FLAGS:-})
"$CLANG" "${c_flags[@]}" -c -o "$dir/sqlite_loader.o" Sources/CSQLite/loader.c
"$CLANG" "${c_flags[@]}" -c -o "$dir/embedded_libm.o" scripts/embedded_libm.c
"$CLANG" "${c_flags[@]}" $(pkg-config --cflags libsodium) -c -o "$dir/embedded_random.o" scripts/embedded_random.c

# The link: the header's functions exported (the version script), the Unicode tables that
# String's Character operations need from the toolchain, and libsodium; no Swift or C++ runtime
# library, no libm, no libsqlite3 (-z defs: a symbol found in none of these fails the link).
relr=()
[ "${RELR:-1}" = 1 ] && relr=(-Wl,-z,pack-relative-relocs)
"$CLANG" -shared -fuse-ld=lld -o "$out" "$dir/PasscodeCore.o" "$dir/PasscodeBus.o" "$dir/PasscodeBackend.o" "$dir/Passcode.o" \
    "$dir/sqlite_loader.o" "$dir/embedded_libm.o" "$dir/embedded_random.o" "${relr[@]}" \
    -Wl,--version-script="$map" -Wl,-soname="$soname" -Wl,-z,relro -Wl,-z,now -Wl,--gc-sections \
    -Wl,--as-needed -Wl,-Map="$(dirname "$out")/libpasscode.linkmap" \
    "$toolchain_lib/libswiftUnicodeDataTables.a" -lsodium -Wl,-z,defs -lc
