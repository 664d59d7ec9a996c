#!/bin/sh
# make deb-test: builds the Debian packages from a clean copy of the tree, runs lintian (no
# errors or warnings allowed), installs them on this machine, builds examples/c against the
# installed header with pkg-config and strict warnings and runs it scripted, imports the Python
# binding from the installed package and runs a flow, then removes the packages again.
# The symbols file is checked during the build (dh_makeshlibs -- -c4).
set -eu
root=$(pwd)
version=$(cat VERSION)
# The installed packages used: examples/c built against them with pkg-config and run, the Python
# binding, autopkgtest. Run through hide_installed.sh: another installed copy (`make install`
# into /usr/local) would come first for the compiler, pkg-config and the dynamic loader, and is
# hidden from it, as on a machine with the packages alone.
use_packages() {
    # examples/c against the installed package only: pkg-config, strict warnings, no repo paths.
    cp -r "$root/examples/c" "$tmp/ex"
    flags=$(pkg-config --cflags --libs passcode)
    cc -std=c99 -Wall -Wextra -Wpedantic -Werror -O2 -D_POSIX_C_SOURCE=200809L -o "$tmp/ex/passcode_demo" "$tmp/ex/passcode_demo.c" $flags $(pkg-config --libs ncursesw)
    ldd "$tmp/ex/passcode_demo" | grep -qE "=> /(usr/)?lib/$multiarch/libpasscode.so.0 " || { echo "deb-test: FAIL: demo not linked to the installed library" >&2; exit 1; }
    # In a session keyring of its own, as make test-frontends (no user-keyring fallback since 0.7).
    (cd "$root" && $(command -v keyctl >/dev/null && echo keyctl session -) Tests/frontends/run.sh "$tmp/ex/passcode_demo")
    # The Python binding from the installed package, with Debian's python3 and no hints.
    (cd "$tmp" && env -u PASSCODE_LIBRARY -u PYTHONPATH /usr/bin/python3 - <<'PY'
import os, tempfile
import passcode
assert passcode.__file__.startswith("/usr/lib/python3/dist-packages/"), passcode.__file__
d = tempfile.mkdtemp()
with passcode.Store(os.path.join(d, "s.db"), ops_limit=1, mem_limit=8192) as s:
    with s.flow(passcode.FlowKind.CREATE) as f:
        f.type("386491"); f.type("386491")
        assert f.result == passcode.FlowResult.SUCCESS
    s.verify("386491")
print("deb-test: python3-passcode", passcode.version(), "from", os.path.dirname(passcode.__file__), "ran a create flow")
PY
    )
    # autopkgtest (debian/tests/control) against the installed packages, with the null runner: the
    # tests run on this machine. When autopkgtest cannot run here, the same test scripts run directly.
    dpkg -s autopkgtest >/dev/null 2>&1 || apt-get install -y -qq autopkgtest >/dev/null 2>&1 || true
    rc=99
    if command -v autopkgtest >/dev/null 2>&1; then
        rc=0; autopkgtest --no-built-binaries "$src" -- null > "$tmp/autopkgtest.log" 2>&1 || rc=$?
    fi
    case $rc in
        0) grep -E '^(c-quickstart|python-flow|passcoded-verify|pam-pamtester) ' "$tmp/autopkgtest.log" | sort -u | sed 's/^/deb-test: autopkgtest (null runner): /' ;;
        2|4|8) tail -30 "$tmp/autopkgtest.log"; echo "deb-test: FAIL: autopkgtest exit $rc (a test failed or was skipped)" >&2; exit 1 ;;
        *)  [ -f "$tmp/autopkgtest.log" ] && tail -20 "$tmp/autopkgtest.log"
            echo "deb-test: autopkgtest could not run here (exit $rc); running debian/tests directly" >&2
            for t in c-quickstart python-flow passcoded-verify pam-pamtester; do
                (cd "$src" && AUTOPKGTEST_TMP=$(mktemp -d) "debian/tests/$t") || { echo "deb-test: FAIL: debian/tests/$t" >&2; exit 1; }
            done ;;
    esac
}
if [ "${1:-}" = --use ]; then  # deb.sh --use TMP SRC MULTIARCH: the part above alone
    tmp=$2 src=$3 multiarch=$4
    use_packages
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "deb-test: SKIPPED: installing packages needs root (CI runs as root); run 'sudo make deb-test'" >&2
    if [ -n "${PASSCODE_SKIPPED:-}" ]; then echo "installing packages needs root" > "$PASSCODE_SKIPPED/deb-test"; fi
    exit 0
fi
Tests/packaging/deb_deps.sh nobody || exit 1
need=""
for p in debhelper lintian dh-python python3-all python3-setuptools pybuild-plugin-pyproject fakeroot dpkg-dev doxygen devscripts man-db libpam0g-dev pamtester; do
    dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
    echo "deb-test: installing$need"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq $need >/dev/null
fi
tmp=$(mktemp -d)
cleanup() {
    dpkg -r libpam-passcode passcoded python3-passcode libpasscode-dev libpasscode0 >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT
src="$tmp/libpasscode-$version"
mkdir -p "$src"
git ls-files -z | xargs -0 tar -cf - | tar -xf - -C "$src"
# Under make test, the artefacts the other groups tested (the library, passcoded, the PAM module
# and passcodectl, the man pages) come along with their times, so that debian/rules' make finds
# them up to date: the packages carry exactly what was tested, and nothing is compiled a second
# time (dpkg-buildpackage -nc: no clean first). DEB_TEST_REUSE=0, or a tree without them: built
# from the tracked files alone, as make deb does. tar keeps the sources' times, so a source
# changed after its artefact was built still rebuilds it.
clean=""
reuse="build/libpasscode.so.$version build/libpasscode.so.${version%%.*} build/libpasscode.so build/passcode.map build/link_trim.o
       build/link-flags build/types-h.stamp build/passcode.pc build/passcoded build/pam_passcode.so build/passcodectl build/docs"
if [ "${DEB_TEST_REUSE:-1}" = 1 ] && (for f in $reuse; do [ -e "$f" ] || exit 1; done); then
    mkdir -p "$src/build" && cp -a $reuse "$src/build/" && clean=-nc
    (cd "$src/build" && sha256sum "libpasscode.so.$version" passcoded pam_passcode.so passcodectl) > "$tmp/tested.sha256"
fi
(cd "$src" && dpkg-buildpackage -us -uc -b $clean > "$tmp/build.log" 2>&1) || { tail -40 "$tmp/build.log"; echo "deb-test: FAIL: dpkg-buildpackage" >&2; exit 1; }
if [ -n "$clean" ]; then
    if (cd "$src/build" && sha256sum --quiet -c "$tmp/tested.sha256" >/dev/null 2>&1); then
        echo "deb-test: the packages carry the tested build (the library, passcoded, pam_passcode, passcodectl: the same bytes)"
    else
        echo "deb-test: debian/rules rebuilt part of the tested build (a source newer than it): $(cd "$src/build" && sha256sum -c "$tmp/tested.sha256" 2>/dev/null | grep -v ': OK$' | cut -d: -f1 | tr '\n' ' ')"
    fi
fi
# The symbols file matches the library exactly, and a symbol missing from it fails (-c4).
(cd "$src" && dpkg-gensymbols -plibpasscode0 -Pdebian/libpasscode0 -Idebian/libpasscode0.symbols -O"$tmp/ok.symbols" -c4 >/dev/null) \
    || { echo "deb-test: FAIL: debian/libpasscode0.symbols does not match the library" >&2; exit 1; }
grep -v 'passcode_verify@Base' "$src/debian/libpasscode0.symbols" > "$tmp/short.symbols"
if (cd "$src" && dpkg-gensymbols -plibpasscode0 -Pdebian/libpasscode0 -I"$tmp/short.symbols" -O"$tmp/x.symbols" -c4 >/dev/null 2>&1); then
    echo "deb-test: FAIL: a symbol missing from the symbols file went unnoticed" >&2
    exit 1
fi
echo "deb-test: symbols file matches all $(grep -c '@Base' "$src/debian/libpasscode0.symbols") exported symbols; a missing entry fails dpkg-gensymbols -c4"
echo "deb-test: built $(cd "$tmp" && ls *.deb | tr '\n' ' ')"
# Each package's libc6 dependency is true for the files it carries: the newest glibc version any
# of them needs (readelf -V: GLIBC_2.x of the functions imported, and GLIBC_ABI_DT_RELR, packed
# relative relocations, which need 2.36) is at most what the package's Depends asks for.
for deb in "$tmp"/libpasscode0_*.deb "$tmp"/passcoded_*.deb "$tmp"/libpam-passcode_*.deb; do
    name=$(dpkg-deb -f "$deb" Package)
    rm -rf "$tmp/x" && dpkg-deb -x "$deb" "$tmp/x"
    need=2.2.5 why=
    for f in $(find "$tmp/x" -type f); do
        file -b "$f" | grep -q '^ELF' || continue
        for v in $(readelf -V "$f" | sed -n 's/.*Name: GLIBC_\([0-9.]*\) .*/\1/p'); do
            if dpkg --compare-versions "$v" gt "$need"; then need=$v why="GLIBC_$v in $(basename "$f")"; fi
        done
        if readelf -V "$f" | grep -q 'Name: GLIBC_ABI_DT_RELR' && dpkg --compare-versions 2.36 gt "$need"; then
            need=2.36 why="GLIBC_ABI_DT_RELR (packed relocations) in $(basename "$f")"
        fi
    done
    asked=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed -n 's/^ *libc6 (>= \([0-9.]*\)).*/\1/p' | sort -V | tail -n 1)
    if [ -z "$asked" ] || dpkg --compare-versions "$asked" lt "$need"; then
        echo "deb-test: FAIL: $name needs glibc $need ($why) but depends on libc6 (>= ${asked:-nothing})" >&2
        exit 1
    fi
    echo "deb-test: $name needs glibc $need ($why) and depends on libc6 (>= $asked)"
done
rm -rf "$tmp/x"
# The library carries a build ID, and its debugging symbols come in libpasscode0-dbgsym under it.
lib_built=$(find "$src/debian/libpasscode0" -name "libpasscode.so.$version")
id=$(readelf -n "$lib_built" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
dbg=$(ls "$tmp"/libpasscode0-dbgsym_*.*deb 2>/dev/null | head -n 1)
if [ -z "$id" ] || [ -z "$dbg" ] || ! dpkg-deb -c "$dbg" | grep -q "usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"; then
    echo "deb-test: FAIL: the library's build ID (${id:-none}) has no debugging symbols in libpasscode0-dbgsym (${dbg:-not built})" >&2
    exit 1
fi
echo "deb-test: libpasscode.so has build ID $id; $(basename "$dbg") carries its debugging symbols"
# Every tag lintian knows, experimental (-E), info (-I) and pedantic (-L +pedantic) ones
# included: none may be left. A tag we cannot fix is overridden in debian/*.lintian-overrides,
# with the reason as its comment; an override that no longer matches is itself a tag.
lintian --allow-root -EvIL +pedantic --tag-display-limit 0 "$tmp"/libpasscode_*.changes > "$tmp/lintian.log" 2>&1 || true
if grep -E '^[EWIPX]:' "$tmp/lintian.log"; then
    echo "deb-test: FAIL: lintian -EvIL +pedantic reported tags" >&2
    exit 1
fi
overridden=$(lintian --allow-root -EIL +pedantic --show-overrides --tag-display-limit 0 "$tmp"/libpasscode_*.changes 2>/dev/null \
    | sed -n 's/^O: [^ ]* \([^ ]*\).*/\1/p' | sort | uniq -c | awk '{ printf "%s%s (%s)", sep, $2, $1; sep = ", " }')
echo "deb-test: lintian -EvIL +pedantic: no tags; overridden with a reason: ${overridden:-none}"
# hardening-check (devscripts) on the library: PIE, stack protector, RELRO and BIND_NOW must
# pass. Fortify and CET cannot, because of the statically linked Swift runtime (docs/hacking.md,
# "Debian packages"): those two are checked to fail for exactly that reason and no other.
command -v hardening-check >/dev/null 2>&1 || apt-get install -y -qq devscripts >/dev/null
lib=$(find "$src/debian/libpasscode0" -name "libpasscode.so.$version")
hardening-check --nofortify --nocfprotection "$lib" > "$tmp/hardening.log" 2>&1 \
    || { cat "$tmp/hardening.log"; echo "deb-test: FAIL: hardening-check" >&2; exit 1; }
hardening-check -v "$lib" > "$tmp/hardening-all.log" 2>&1 || true
for f in memcpy memmove memset; do  # emitted by the Swift compiler as plain calls (Swift checks bounds itself)
    grep -q "unprotected: $f\$" "$tmp/hardening-all.log" || { echo "deb-test: FAIL: the Swift compiler's unprotected $f is gone: re-check the fortify note" >&2; exit 1; }
done
echo "deb-test: hardening-check: $(grep -E ': yes' "$tmp/hardening.log" | sed 's/^ *//; s/: yes//' | tr '\n' ',' | sed 's/,$//'): yes; fortify and CET: not possible with the Swift compiler's output (docs/hacking.md)"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq "$tmp"/libpasscode0_*.deb "$tmp"/libpasscode-dev_*.deb "$tmp"/python3-passcode_*.deb "$tmp"/passcoded_*.deb \
    "$tmp"/libpam-passcode_*.deb >/dev/null
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
[ -e "/usr/lib/$multiarch/libpasscode.so.$version" ] && [ -e /usr/include/passcode.h ] || { echo "deb-test: FAIL: files not installed" >&2; exit 1; }
# passcoded's polkit rule for fprintd: the passcode user may verify and name the user, not enroll.
rule=/usr/share/polkit-1/rules.d/50-passcoded-fprintd.rules
[ "$(dpkg -S "$rule" 2>/dev/null | cut -d: -f1)" = passcoded ] && grep -q 'net.reactivated.fprint.device.verify' "$rule" \
    && ! grep -q 'enroll"' "$rule" || { echo "deb-test: FAIL: passcoded lacks its fprintd polkit rule" >&2; exit 1; }
# The man pages from libpasscode-dev, as a user opens them.
MANWIDTH=80 man passcode_verify 2>/dev/null | grep -q 'passcode_status passcode_verify (passcode_store \* store' \
    || { echo "deb-test: FAIL: man passcode_verify after installing libpasscode-dev" >&2; exit 1; }
MANWIDTH=80 man 7 passcode 2>/dev/null | grep -q 'Write-ahead' || { echo "deb-test: FAIL: man 7 passcode" >&2; exit 1; }
echo "deb-test: man passcode_verify and man 7 passcode open from the installed libpasscode-dev"
Tests/packaging/hide_installed.sh "/usr/lib/$multiarch /lib/$multiarch" "$root/Tests/packaging/deb.sh" --use "$tmp" "$src" "$multiarch"
echo "deb-test: packages built, lintian-clean, installed, and used from C (pkg-config), Python and through passcoded"

