#!/bin/sh
# The terminal front ends with --service APP_ID: the store passcoded keeps, through a private bus
# and this checkout's passcoded (scripts/try-service.sh, as root; it creates a service user and
# removes it, the bus and the stores after). Scripted, on the real clock (the service refuses a
# host's clock): create, lock, a wrong passcode (counted: seen from a relaunch), the right one,
# five wrong ones (the lockout and its wait shown). Then with no passcoded to reach: the library's
# SERVICE_UNAVAILABLE message, exit status 1, no traceback. Then Tests/frontends/service_demo.py.
#   Tests/frontends/service.sh PASSCODED COMMAND...
set -eu
passcoded=$1
shift
cmd="$*"
if [ "$(id -u)" != 0 ]; then
    echo "SKIPPED front ends in service mode: needs root (passcoded starts as root and drops to a user made for it)"
    [ -n "${PASSCODE_SKIPPED:-}" ] && echo "test-frontends: $cmd in service mode (passcoded needs root)" >> "$PASSCODE_SKIPPED/parts"
    exit 0
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
app="org.libpasscode.FrontendTest$$"
cat > "$tmp/script" <<'SCRIPT'
create 386491 386491
lock
900001
relaunch
386491
lock
900002 900003 900004 900005 900006
SCRIPT
fail() { echo "FAIL front end $cmd in service mode: $1" >&2; echo "--- its output:" >&2; cat "$tmp/out" >&2; exit 1; }
SUDO_USER='' "$root/scripts/try-service.sh" "$passcoded" "$@" --service "$app" --store "$tmp/label.db" --script \
    < "$tmp/script" > "$tmp/out" 2>&1 || fail "it exited with $?"
grep -q "demo, service mode: passcoded's store for $app\$" "$tmp/out" || fail "the banner does not name the service"
[ ! -e "$tmp/label.db" ] || fail "a store file was made at the label path"
grep -q "^notice: create: done" "$tmp/out" || fail "no passcode was set"
grep -q "^error: Incorrect passcode" "$tmp/out" || fail "the wrong passcode was not refused"
grep -q "^notice: unlock: done; 1 failed attempt since your last unlock" "$tmp/out" \
    || fail "the failed attempt was not counted across the relaunch"
grep -q "^prompt: Passcode locked" "$tmp/out" || fail "five wrong passcodes did not lock out"
grep -Eq "^lockout: (1:00|0:5[0-9])$" "$tmp/out" || fail "the lockout wait is not shown"
grep -Eq "^error: Too many attempts. Try again in [0-9]+ seconds.$" "$tmp/out" || fail "the lockout's message is not shown"
# No passcoded to reach: the library's message, which names the bus it tried.
rc=0
DBUS_SYSTEM_BUS_ADDRESS="unix:path=$tmp/no-bus" "$@" --service "$app" --script < /dev/null > "$tmp/out" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "with no service it exited with $rc, not 1"
grep -q "^cannot open passcoded's store for $app: cannot connect to the system bus at unix:path=$tmp/no-bus" "$tmp/out" \
    || fail "with no service the message is not the library's"
! grep -q "Traceback" "$tmp/out" || fail "with no service it printed a traceback"
echo "front ends ($*) in service mode: set, lock, wrong (counted across a relaunch), right, lockout and its wait; unreachable service: the library's message, exit 1"
# With a fingerprint reader and a mail relay: the finger after lock now, NO_PASSCODE, the reset
# address set and confirmed, the ncurses wait for a finger said (Tests/frontends/service_demo.py).
/usr/bin/python3 "$root/Tests/frontends/service_demo.py" "$passcoded" "$@"
