#!/bin/sh
# Runs COMMAND in a mount namespace of its own in which every installed copy of libpasscode
# outside the KEEP directories is hidden: the library and its links in each directory the
# dynamic loader's cache names (and in /usr/local/lib, where `make install` puts it), the
# passcode.pc beside it (pkgconfig/) and the passcode.h of its prefix (../include). The compiler,
# pkg-config and the dynamic loader (whose cache entry then names a missing file, so it goes on
# to its default directories) see only the copies kept; nothing outside the namespace changes.
# With nothing to hide, COMMAND runs as it is. Needs root (a mount namespace); not root, with a
# copy to hide, it exits 77 saying why.
#   Tests/packaging/hide_installed.sh 'KEEP_DIR ...' COMMAND [ARG...]
set -eu
keep=$1
shift
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || echo none)

kept() {
    for k in $keep; do [ "$(readlink -f "$1")" = "$(readlink -f "$k")" ] && return 0; done
    return 1
}

# Each directory (once) that holds a libpasscode library outside KEEP.
libdirs() {
    { ldconfig -p 2>/dev/null | sed -n 's/.*libpasscode\.so[.0-9]* .*=> \(.*\)$/\1/p' | xargs -r -n1 dirname
      for d in /usr/local/lib "/usr/local/lib/$multiarch"; do
          ls "$d"/libpasscode.so* >/dev/null 2>&1 && echo "$d"
      done; } | sort -u | while read -r d; do kept "$d" || echo "$d"; done
}

# What to hide, one "DIR NAME" a line.
targets() {
    for d in $(libdirs); do
        for f in "$d"/libpasscode.so*; do [ -e "$f" ] || [ -L "$f" ] && echo "$d ${f##*/}"; done
        [ -e "$d/pkgconfig/passcode.pc" ] && echo "$d/pkgconfig passcode.pc"
        [ -e "$(dirname "$d")/include/passcode.h" ] && echo "$(dirname "$d")/include passcode.h"
    done | sort -u
}

if [ -n "${PASSCODE_HIDE_BASE:-}" ]; then
    # Inside the namespace: each directory with something to hide is replaced by a copy of
    # itself (entries bind-mounted back, symbolic links copied) without those names.
    all=$(targets)
    mount -t tmpfs passcode-hide "$PASSCODE_HIDE_BASE"
    n=0
    for dir in $(printf '%s\n' "$all" | cut -d' ' -f1 | sort -u); do
        n=$((n + 1))
        shadow="$PASSCODE_HIDE_BASE/$n"
        mkdir "$shadow"
        names=$(printf '%s\n' "$all" | awk -v d="$dir" '$1 == d { print $2 }')
        for e in "$dir"/* "$dir"/.[!.]*; do
            [ -e "$e" ] || [ -L "$e" ] || continue
            name=${e##*/}
            if printf '%s\n' "$names" | grep -qxF "$name"; then echo "hidden: $e"; continue; fi
            if [ -L "$e" ]; then cp -P "$e" "$shadow/$name"
            elif [ -d "$e" ]; then mkdir "$shadow/$name"; mount --bind "$e" "$shadow/$name"
            else : > "$shadow/$name"; mount --bind "$e" "$shadow/$name"; fi
        done
        mount --rbind "$shadow" "$dir"
    done >&2
    unset PASSCODE_HIDE_BASE
    exec "$@"
fi

if [ -z "$(targets)" ]; then
    exec "$@"
fi
if [ "$(id -u)" != 0 ]; then
    echo "hide-installed: libpasscode is installed in $(libdirs | tr '\n' ' ')and hiding it needs root (a mount namespace)" >&2
    exit 77
fi
base=$(mktemp -d /tmp/passcode-hide.XXXXXX)
rc=0
PASSCODE_HIDE_BASE=$base unshare --mount --propagation private "$0" "$keep" "$@" || rc=$?
rmdir "$base"
exit $rc
