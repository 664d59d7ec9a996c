#!/bin/sh
# make deb: builds the Debian packages (libpasscode0, libpasscode-dev, python3-passcode, passcoded, libpam-passcode
# and their dbgsym) from a copy of the tracked files, as make deb-test does, and puts them in
# OUT-DIR (build/deb), printing each path. Needs dpkg-buildpackage and the Build-Depends of
# debian/control: run as root, it installs what is missing (apt-get build-dep on the tree, as
# make test installs its own tools); otherwise it prints the command that would.
#   scripts/build_deb.sh OUT-DIR
set -eu
out=$1
version=$(cat VERSION)
if ! command -v dpkg-checkbuilddeps >/dev/null || ! unmet=$(dpkg-checkbuilddeps 2>&1); then
    if [ "$(id -u)" -ne 0 ]; then
        echo "make deb: the build dependencies are missing (${unmet:-dpkg-dev}); install them with:" >&2
        echo "  sudo apt-get install -y dpkg-dev && sudo apt-get build-dep -y $(pwd)" >&2
        exit 1
    fi
    echo "deb: installing the build dependencies (apt-get build-dep on this tree)"
    export DEBIAN_FRONTEND=noninteractive
    { command -v dpkg-checkbuilddeps >/dev/null || apt-get install -y -qq dpkg-dev; } >/dev/null
    apt-get build-dep -y -qq "$(pwd)" >/dev/null || { echo "deb: FAIL: apt-get build-dep $(pwd)" >&2; exit 1; }
    dpkg-checkbuilddeps || exit 1
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
src="$tmp/libpasscode-$version"
mkdir -p "$src"
git ls-files -z | xargs -0 tar -cf - | tar -xf - -C "$src"
echo "deb: building from a copy of the tracked files in $src (the log: $out/build.log)"
mkdir -p "$out"
(cd "$src" && dpkg-buildpackage -us -uc -b) > "$out/build.log" 2>&1 \
    || { tail -30 "$out/build.log" >&2; echo "deb: FAIL: dpkg-buildpackage (the whole log: $out/build.log)" >&2; exit 1; }
rm -f "$out"/*.deb "$out"/*.ddeb "$out"/*.changes "$out"/*.buildinfo
for f in "$tmp"/*.deb "$tmp"/*.ddeb "$tmp"/*.changes "$tmp"/*.buildinfo; do
    [ -e "$f" ] && mv "$f" "$out/"
done
echo "deb: the packages are in $(cd "$out" && pwd):"
for f in "$out"/*.deb "$out"/*.ddeb; do
    [ -e "$f" ] && echo "  $(cd "$(dirname "$f")" && pwd)/$(basename "$f")"
done
echo "deb: install them with: sudo apt-get install $(cd "$out" && pwd)/libpasscode-dev_${version}_*.deb $(cd "$out" && pwd)/libpasscode0_${version}_*.deb"
