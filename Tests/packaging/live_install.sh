#!/bin/sh
# make test-install's install for the live system, as root, in a mount namespace whose system
# folders are private copies (Tests/packaging/private_system.sh: nothing outside it changes):
# `make install && make install-service` as an administrator types them; each file where the
# machine reads it; the installed module, loaded under env -i as sudo loads it, finds
# libpasscode.so.0, and so does passcodectl (env -i ldd); a PAMDIR libpam does not read is refused
# in one line, and a file a Debian package owns is not overwritten (the package named), both
# before anything is written; `pam-auth-update --enable passcode`, then `make uninstall && make
# uninstall-service` take the module out of the stack and leave the touched folders as they were
# (a list of every path in them, before and after). Not root, or no unshare: SKIPPED, saying why.
set -eu
if [ -z "${PASSCODE_LIVE_INSIDE:-}" ]; then
    rc=0
    PASSCODE_LIVE_INSIDE=1 "$(dirname "$0")/private_system.sh" "$0" "$@" 2> "${TMPDIR:-/tmp}/passcode-live.$$" || rc=$?
    if [ "$rc" = 77 ]; then
        why=$(tail -n 1 "${TMPDIR:-/tmp}/passcode-live.$$" | sed 's/^private-system: //')
        rm -f "${TMPDIR:-/tmp}/passcode-live.$$"
        echo "install: SKIPPED the install for the live system (make install, make install-service, make uninstall): $why"
        if [ -n "${PASSCODE_SKIPPED:-}" ]; then
            echo "test-install: make install for the live system in a private mount namespace ($why)" >> "$PASSCODE_SKIPPED/parts"
        fi
        exit 0
    fi
    cat "${TMPDIR:-/tmp}/passcode-live.$$" >&2
    rm -f "${TMPDIR:-/tmp}/passcode-live.$$"
    exit "$rc"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install: FAIL (live): $*" >&2; exit 1; }
pamdir=$(scripts/install.py pamdir)
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
multiarch=$(gcc -print-multiarch 2>/dev/null || dpkg-architecture -qDEB_HOST_MULTIARCH)
trees="/usr/local $pamdir /usr/share/pam-configs /etc/dbus-1/system.d /usr/share/dbus-1/system-services /etc/polkit-1 /etc/sysusers.d $unitdir /etc/pam.d"
listing() { for t in $trees; do if [ -e "$t" ]; then find "$t/" | sort; else echo "absent: $t"; fi; done; }
# Another copy on the machine (the packages) would make the install refuse (dpkg owns the module).
if dpkg -S "/usr/lib/$multiarch/security/pam_passcode.so" >/dev/null 2>&1; then
    fail "the package libpam-passcode is installed here: remove it first (make deb-test does)"
fi
# The checkout's python/passcode record is left alone (PASSCODE_RECORD), the rest as typed.
record="PASSCODE_RECORD=$tmp/record"
listing > "$tmp/before"

# A PAMDIR libpam does not read: one line (and make's own "Error 1"), nothing written.
rc=0; make -s install PAMDIR=/usr/local/lib/security "$record" > "$tmp/dead.out" 2>&1 || rc=$?
[ "$rc" != 0 ] && [ "$(grep -vc '^make' "$tmp/dead.out")" = 1 ] && grep -q "PAMDIR=/usr/local/lib/security is not read by this machine" "$tmp/dead.out" \
    || { cat "$tmp/dead.out" >&2; fail "make install PAMDIR=/usr/local/lib/security was not refused in one line"; }
listing | cmp -s - "$tmp/before" || fail "the refused install wrote something"
echo "install: refused, nothing written: $(grep -v '^make' "$tmp/dead.out")"

# A file a Debian package owns (here: libpam-modules lists the module's path, as the package
# libpam-passcode would, in its /usr/lib spelling): the package named, nothing written.
list="/var/lib/dpkg/info/libpam-modules:$(dpkg --print-architecture).list"
[ -f "$list" ] || list=/var/lib/dpkg/info/libpam-modules.list
cp "$list" "$tmp/owned.list"
echo "/usr/lib/$multiarch/security/pam_passcode.so" >> "$tmp/owned.list"
mount --bind "$tmp/owned.list" "$list"
rc=0; make -s install "$record" > "$tmp/owned.out" 2>&1 || rc=$?
umount "$list"
[ "$rc" != 0 ] && grep -q "pam_passcode.so belongs to the Debian package libpam-modules" "$tmp/owned.out" \
    || { cat "$tmp/owned.out" >&2; fail "make install overwrote (or did not name) a file a Debian package owns"; }
listing | cmp -s - "$tmp/before" || fail "the install refused for a package's file wrote something"
echo "install: refused, nothing written: $(grep -v '^make' "$tmp/owned.out")"

# The install, as typed.
make -s install "$record" > "$tmp/install.out" 2>&1 || { cat "$tmp/install.out" >&2; fail "make install"; }
make -s install-service "$record" > "$tmp/service.out" 2>&1 || { cat "$tmp/service.out" >&2; fail "make install-service"; }
sed 's/^/  | /' "$tmp/install.out" "$tmp/service.out"
for f in "$pamdir/pam_passcode.so" /usr/share/pam-configs/passcode /usr/local/lib/libpasscode.so.0 /usr/local/sbin/passcodectl \
         /etc/dbus-1/system.d/org.libpasscode.Passcode1.conf /usr/share/dbus-1/system-services/org.libpasscode.Passcode1.service \
         /etc/polkit-1/rules.d/50-passcoded-fprintd.rules /usr/local/libexec/passcoded "$unitdir/passcoded.service" \
         /etc/sysusers.d/passcoded.conf; do
    [ -e "$f" ] || fail "$f is not there after make install && make install-service"
    grep -qF "$f" "$tmp/install.out" "$tmp/service.out" || fail "$f is not in what the install printed"
done
grep -qx 'Exec=/usr/local/libexec/passcoded' /usr/share/dbus-1/system-services/org.libpasscode.Passcode1.service \
    || fail "the activation file does not start /usr/local/libexec/passcoded"
echo "install: each file where the machine reads it: the module in $pamdir (libpam's), the profile in /usr/share/pam-configs, the bus policy in /etc/dbus-1/system.d, the activation file in /usr/share/dbus-1/system-services, the polkit rule in /etc/polkit-1/rules.d"
ldconfig -p | grep -q 'libpasscode.so.0 (.*=> /usr/local/lib/libpasscode.so.0$' || fail "libpasscode.so.0 is not in the loader's cache"
ldd_module=$(env -i /usr/bin/ldd "$pamdir/pam_passcode.so")
! echo "$ldd_module" | grep -q 'not found' || fail "env -i ldd $pamdir/pam_passcode.so: $ldd_module"
ldd_ctl=$(env -i /usr/bin/ldd /usr/local/sbin/passcodectl | grep libpasscode)
echo "$ldd_ctl" | grep -q '=> /usr/local/lib/libpasscode.so.0 ' || fail "env -i ldd passcodectl: $ldd_ctl"
grep -q "checked: $pamdir/pam_passcode.so loads /usr/local/lib/libpasscode.so.0 with an empty environment" "$tmp/install.out" \
    || fail "make install did not check that the module finds its library"
echo "install: env -i: passcodectl's$(echo "$ldd_ctl" | tr -s '\t ' ' '); the module's own libraries all found; the module loads /usr/local/lib/libpasscode.so.0"

# In a PAM stack through pam-auth-update, then taken back out.
pam-auth-update --enable passcode > /dev/null 2>&1 || fail "pam-auth-update --enable passcode"
grep -q pam_passcode.so /etc/pam.d/common-auth || fail "pam-auth-update --enable passcode did not put the module in common-auth"
make -s uninstall "$record" > "$tmp/uninstall.out" 2>&1 || { cat "$tmp/uninstall.out" >&2; fail "make uninstall"; }
make -s uninstall-service "$record" > "$tmp/uninstall-service.out" 2>&1 || { cat "$tmp/uninstall-service.out" >&2; fail "make uninstall-service"; }
sed 's/^/  | /' "$tmp/uninstall.out" "$tmp/uninstall-service.out"
grep -q 'pam-auth-update --package --remove passcode' "$tmp/uninstall.out" || fail "make uninstall did not run pam-auth-update --remove"
! grep -rq pam_passcode /etc/pam.d || fail "pam_passcode is still in /etc/pam.d: $(grep -rl pam_passcode /etc/pam.d)"
listing > "$tmp/after"
diff -u "$tmp/before" "$tmp/after" >&2 || fail "make uninstall && make uninstall-service left the paths above (+) or took away (-)"
ldconfig -p | grep -q 'libpasscode' && fail "libpasscode is still in the loader's cache"
echo "install: make uninstall && make uninstall-service: the $(wc -l < "$tmp/before") paths under $trees are as before; no pam_passcode in /etc/pam.d; none in the loader's cache"
