#!/bin/sh
# Provisions a TPM for libpasscode's hardware guess limit (README "Provisioned mode"): sets the
# owner and lockout authorizations, which Linux installations leave empty, to 32 random bytes each,
# and writes them to root-only files. libpasscode reads the owner one (its path:
# passcode_options_set_tpm_owner_auth_file) to give every new passcode a PIN_FAIL index that no
# one else can rewrite or remove; the lockout one stays with the administrator (it clears the
# TPM's dictionary-attack lockout: `tpm2_dictionarylockout -c -p hex:$(cat FILE)`).
#
#   tpm-provision.sh [--tcti TCTI] [--owner-auth-file PATH] [--lockout-auth-file PATH]
#
# The same by hand:
#   umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > /etc/passcode/tpm-owner-auth
#   tpm2_changeauth -c o "hex:$(cat /etc/passcode/tpm-owner-auth)"
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
mkdir -p "$(dirname "$owner")" "$(dirname "$lockout")"
random_hex() { od -An -tx1 -N32 /dev/urandom | tr -d ' \n'; }
random_hex > "$owner.new"; echo >> "$owner.new"
random_hex > "$lockout.new"; echo >> "$lockout.new"
chown 0:0 "$owner.new" "$lockout.new"
chmod 600 "$owner.new" "$lockout.new"
if ! tpm2_changeauth -T "$tcti" -c o "hex:$(head -c 64 "$owner.new")"; then
    rm -f "$owner.new" "$lockout.new"
    echo "tpm-provision: tpm2_changeauth -c o failed; nothing changed" >&2
    exit 1
fi
mv "$owner.new" "$owner"
if ! tpm2_changeauth -T "$tcti" -c l "hex:$(head -c 64 "$lockout.new")"; then
    rm -f "$lockout.new"
    echo "tpm-provision: the owner authorization is set ($owner), the lockout one failed" >&2
    exit 1
fi
mv "$lockout.new" "$lockout"
echo "tpm-provision: owner authorization in $owner, lockout authorization in $lockout (both root-only)"
