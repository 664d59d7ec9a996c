#!/bin/sh
# Provisions a TPM for libpasscode's hardware guess limit (passcode-tpm(7) "Provisioned mode"): sets the
# owner and lockout authorizations, which Linux installations leave empty, to 32 random bytes each,
# and writes them to root-only files. libpasscode reads the owner one (its path:
# passcode_options_set_tpm_owner_auth_file) to give every new passcode a PIN_FAIL index that no
# one else can rewrite or remove; the lockout one stays with the administrator (it clears the
# TPM's dictionary-attack lockout: `xxd -r -p FILE | tpm2_dictionarylockout -c -p file:-`).
# Secrets never go on a command line (any user reads /proc/PID/cmdline): pass them on stdin
# (`file:-`) or as a root-only file (`file:PATH`, the raw bytes), never as `hex:...`.
#
#   tpm-provision.sh [--tcti TCTI] [--owner-auth-file PATH] [--lockout-auth-file PATH]
#
# The same by hand:
#   umask 077; f=/etc/passcode/tpm-owner-auth
#   until head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > $f && ! grep -q '^\(..\)*00' $f; do :; done
#   (no zero byte: tpm2-tools would read the authorization only up to it)
#   xxd -r -p /etc/passcode/tpm-owner-auth | tpm2_changeauth -c o file:-
#   (the same with -c l and /etc/passcode/tpm-lockout-auth)
# Everything else that uses the owner hierarchy (systemd-cryptenroll's storage key, other
# programs' NV indexes) then needs the owner authorization too: provision after they are set up.
set -eu
tcti=device:/dev/tpmrm0
owner=/etc/passcode/tpm-owner-auth
lockout=/etc/passcode/tpm-lockout-auth
while [ $# -gt 0 ]; do
    case "$1" in
        --tcti) tcti=$2; shift 2 ;;
        --owner-auth-file) owner=$2; shift 2 ;;
        --lockout-auth-file) lockout=$2; shift 2 ;;
        *) echo "usage: $0 [--tcti TCTI] [--owner-auth-file PATH] [--lockout-auth-file PATH]" >&2; exit 2 ;;
    esac
done
[ "$(id -u)" = 0 ] || { echo "tpm-provision: run as root (the files are root's)" >&2; exit 1; }
perm=$(tpm2_getcap -T "$tcti" properties-variable) || { echo "tpm-provision: no TPM answers at $tcti" >&2; exit 1; }
if ! printf '%s\n' "$perm" | grep -q '^ *ownerAuthSet: *0$' || ! printf '%s\n' "$perm" | grep -q '^ *lockoutAuthSet: *0$'; then
    echo "tpm-provision: the TPM's owner or lockout authorization is already set; change it with tpm2_changeauth -p" >&2
    exit 1
fi
umask 077
# The folders must be root's and writable by no one else (else a planted symlink or a swapped
# file could take the secrets); the temporary files are mktemp's, in the target folder.
check_dir() {
    mkdir -p "$1"
    [ -d "$1" ] && [ ! -L "$1" ] || { echo "tpm-provision: $1 is not a folder" >&2; exit 1; }
    st=$(stat -c '%u %a' "$1")
    uid=${st% *}; mode=${st#* }
    if [ "$uid" != 0 ] || [ $((0$mode & 022)) != 0 ]; then
        echo "tpm-provision: $1 must be owned by root and writable by no one else (owner $uid, mode $mode)" >&2
        exit 1
    fi
}
odir=$(dirname "$owner"); ldir=$(dirname "$lockout")
check_dir "$odir"; check_dir "$ldir"
ohex= obin= lhex= lbin=
cleanup() { rm -f $ohex $obin $lhex $lbin; }
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
ohex=$(mktemp "$odir/.tpm-owner-auth.XXXXXXXX"); obin=$(mktemp "$odir/.tpm-owner-bin.XXXXXXXX")
lhex=$(mktemp "$ldir/.tpm-lockout-auth.XXXXXXXX"); lbin=$(mktemp "$ldir/.tpm-lockout-bin.XXXXXXXX")
# 32 random bytes, raw (for tpm2-tools' file:PATH) and as hex (the library's file format)
# No zero byte: tpm2-tools reads a `file:` authorization as a string, up to its first zero byte,
# where the library takes all 32 bytes (one provisioning in eight then left a file that is not
# the TPM's authorization). Leaving zero out costs 0.2 of 256 bits.
new_auth() {
    while head -c 32 /dev/urandom > "$1" && od -An -tx1 -v "$1" | grep -qw 00; do :; done
    od -An -tx1 -v "$1" | tr -d ' \n' > "$2"; echo >> "$2"
}
new_auth "$obin" "$ohex"
new_auth "$lbin" "$lhex"
chown 0:0 "$ohex" "$lhex"
chmod 600 "$ohex" "$lhex" "$obin" "$lbin"
if ! tpm2_changeauth -T "$tcti" -c o "file:$obin"; then
    echo "tpm-provision: tpm2_changeauth -c o failed; nothing changed" >&2
    exit 1
fi
mv -f "$ohex" "$owner"; ohex=
if ! tpm2_changeauth -T "$tcti" -c l "file:$lbin"; then
    echo "tpm-provision: the owner authorization is set ($owner), the lockout one failed" >&2
    exit 1
fi
mv -f "$lhex" "$lockout"; lhex=
echo "tpm-provision: owner authorization in $owner, lockout authorization in $lockout (both root-only)"
