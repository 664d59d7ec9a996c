#!/bin/sh
# The Swift toolchain the build needs: Swift 6.3 or later (Embedded Swift's @c functions). When
# SWIFT (the first argument, default swift) is missing or older, says so in one line with what to
# do, and fails; otherwise silent.
#   scripts/check_swift.sh [SWIFT]
swift=${1:-swift}
need=6.3
how="install Swift $need or later (https://www.swift.org/install/linux/) and put its usr/bin on PATH, or give its path: make SWIFT=/path/to/usr/bin/swift"
path=$(command -v "$swift" 2>/dev/null) || {
    echo "libpasscode is written in Swift and '$swift' is not found: $how" >&2
    exit 1
}
have=$("$path" --version 2>/dev/null | sed -n 's/.*Swift version \([0-9][0-9.]*\).*/\1/p' | head -n 1)
if [ -z "$have" ]; then
    echo "libpasscode: '$path' does not say which Swift it is (swift --version): $how" >&2
    exit 1
fi
if [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n 1)" != "$need" ]; then
    echo "libpasscode needs Swift $need or later, and '$path' is Swift $have: $how" >&2
    exit 1
fi
