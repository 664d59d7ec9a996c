#!/bin/sh
# make deb: builds the Debian packages (libpasscode0, libpasscode-dev, python3-passcode, passcoded, libpam-passcode
# and their dbgsym) from a copy of the tracked files, as make deb-test does, and puts them in
# OUT-DIR (build/deb), printing each path. Needs dpkg-buildpackage and the Build-Depends of
# debian/control (make deps installs them).
#   scripts/build_deb.sh OUT-DIR
set -eu
out=$1
version=$(cat VERSION)
command -v dpkg-buildpackage >/dev/null || { echo "make deb needs dpkg-buildpackage (apt-get install dpkg-dev debhelper dh-python)" >&2; exit 1; }
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
