#!/bin/sh
# make deb with build dependencies missing (make deb-test, root): run as root it installs them
# with apt-get build-dep on the tree and goes on; run as a user it prints the command and stops.
# dpkg-checkbuilddeps and apt-get are stand-ins on PATH that record their calls (nothing is
# installed), and dpkg-buildpackage one that stops the build there: only the decision is tested.
#   Tests/packaging/deb_deps.sh USER
set -u
user=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
mkdir "$tmp/bin"
cat > "$tmp/bin/dpkg-checkbuilddeps" <<'FAKE'
#!/bin/sh
[ -e "$FAKE_DIR/installed" ] && exit 0
echo "dpkg-checkbuilddeps: error: Unmet build dependencies: debhelper-compat (= 13) dh-python" >&2
exit 1
FAKE
cat > "$tmp/bin/apt-get" <<'FAKE'
#!/bin/sh
echo "$*" >> "$FAKE_DIR/apt-get.calls"
case " $* " in *" build-dep "*) touch "$FAKE_DIR/installed" ;; esac
FAKE
printf '#!/bin/sh\necho "dpkg-buildpackage reached" >&2\nexit 3\n' > "$tmp/bin/dpkg-buildpackage"
chmod 0755 "$tmp/bin"/*
# The tree: a copy of what make deb reads before building, where the other user can read it.
mkdir -p "$tmp/tree/scripts" && cp scripts/build_deb.sh "$tmp/tree/scripts/" && cp VERSION "$tmp/tree/"
cd "$tmp/tree" && git init -q && git add scripts VERSION
fail=0
out=$(FAKE_DIR=$tmp PATH="$tmp/bin:$PATH" scripts/build_deb.sh "$tmp/out" 2>&1)
if grep -q "build-dep -y -qq $(pwd)" "$tmp/apt-get.calls" 2>/dev/null && printf '%s' "$out" | grep -q 'dpkg-buildpackage reached'; then
    echo "deb-deps: as root, make deb installs the missing build dependencies (apt-get $(grep build-dep "$tmp/apt-get.calls")) and builds"
else
    echo "deb-deps: FAIL: as root, make deb did not install its build dependencies: $out" >&2; fail=1
fi
rm -f "$tmp/installed" "$tmp/apt-get.calls"
chmod 0777 "$tmp"
out=$(setpriv --reuid="$(id -u "$user")" --regid="$(id -g "$user")" --clear-groups env FAKE_DIR="$tmp" PATH="$tmp/bin:$PATH" scripts/build_deb.sh "$tmp/out" 2>&1)
rc=$?
if [ $rc -ne 0 ] && [ ! -e "$tmp/apt-get.calls" ] && printf '%s' "$out" | grep -q "sudo apt-get build-dep -y $(pwd)" \
   && ! printf '%s' "$out" | grep -q 'dpkg-buildpackage reached'; then
    echo "deb-deps: as a user, make deb stops and says: $(printf '%s' "$out" | tr '\n' ' ')"
else
    echo "deb-deps: FAIL: as a user (exit $rc): $out" >&2; fail=1
fi
exit $fail
