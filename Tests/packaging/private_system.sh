#!/bin/sh
# Runs COMMAND as root in a mount namespace of its own in which every folder `make install` and
# `make install-service` write to for the live system is a private copy on a tmpfs: /usr/local,
# the folder libpam loads modules from, /usr/share/pam-configs, /etc/dbus-1/system.d,
# /usr/share/dbus-1/system-services, /etc/polkit-1, /etc/sysusers.d, systemd's unit folder, and
# what ldconfig and pam-auth-update rewrite (/etc/ld.so.cache, /etc/pam.d, /var/lib/pam,
# debconf's cache). /etc itself is a tmpfs whose files are copies and whose folders are bound
# back, so that a file can be renamed over (ldconfig does) and a folder made in it. Nothing
# outside the namespace changes. Not root, or no unshare: exits 77 saying why.
#   Tests/packaging/private_system.sh COMMAND [ARG...]
set -eu
if [ -z "${PASSCODE_PRIVATE_BASE:-}" ]; then
    if [ "$(id -u)" != 0 ]; then echo "private-system: needs root (a mount namespace)" >&2; exit 77; fi
    if ! unshare --mount --propagation private true 2>/dev/null; then
        echo "private-system: unshare --mount is not available here" >&2; exit 77
    fi
    base=$(mktemp -d /tmp/passcode-system.XXXXXX)
    rc=0
    PASSCODE_PRIVATE_BASE=$base unshare --mount --propagation private "$0" "$@" || rc=$?
    rmdir "$base"
    exit $rc
fi
base=$PASSCODE_PRIVATE_BASE
unset PASSCODE_PRIVATE_BASE
mount -t tmpfs passcode-system "$base"
n=0

# cp -a SRC DEST, where SRC may vanish meanwhile (a lock file such as /etc/gshadow.lock, which
# useradd holds for a moment while another test makes its users): then there is nothing to copy.
copy() {
    cp -a "$1" "$2" 2>/dev/null && return 0
    if [ -e "$1" ] || [ -L "$1" ]; then cp -a "$1" "$2"; else return 0; fi
}

# DIR replaced by a tmpfs folder whose files and links are copies and whose folders are bound back.
shadow() {
    n=$((n + 1)); s="$base/$n"; mkdir "$s"
    for e in "$1"/* "$1"/.[!.]*; do
        [ -e "$e" ] || [ -L "$e" ] || continue
        name=${e##*/}
        if [ -L "$e" ] || [ -f "$e" ]; then copy "$e" "$s/$name"
        elif [ -d "$e" ]; then mkdir "$s/$name"; mount --bind "$e" "$s/$name"
        else : > "$s/$name"; mount --bind "$e" "$s/$name"; fi
    done
    mount --rbind "$s" "$1"
}

# DIR replaced by a copy of itself (a folder over 50 MB inside it, such as /usr/local/bin, bound
# back); a DIR that does not exist may then be made: its parent is shadowed.
private() {
    d=$1
    if [ ! -e "$d" ]; then
        p=$(dirname "$d")
        [ -e "$p" ] || private "$p"
        shadow "$(readlink -f "$p")"
        return
    fi
    d=$(readlink -f "$d")
    n=$((n + 1)); s="$base/$n"; mkdir "$s"
    for e in "$d"/* "$d"/.[!.]*; do
        [ -e "$e" ] || [ -L "$e" ] || continue
        if [ -d "$e" ] && [ ! -L "$e" ] && [ "$(du -sm "$e" | cut -f1)" -gt 50 ]; then
            mkdir "$s/${e##*/}"; mount --bind "$e" "$s/${e##*/}"
        else copy "$e" "$s/"; fi
    done
    chmod --reference="$d" "$s"
    mount --rbind "$s" "$d"
}

pamdir=$(scripts/install.py pamdir)
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
shadow /etc
for d in /usr/local "$pamdir" /usr/share/pam-configs /etc/dbus-1/system.d /usr/share/dbus-1/system-services \
         /etc/polkit-1 /etc/pam.d /var/lib/pam /var/cache/debconf "$unitdir"; do
    private "$d"
done
exec "$@"
