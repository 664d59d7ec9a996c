#!/bin/sh
# make try-service, as a person runs it through sudo: the caller's command reaches the checkout's
# passcoded on the private bus (a passcode set and verified as that user), and afterwards the
# service user, the bus, the daemon and the folder are gone.
# usage: Tests/service/try_service.sh PASSCODED REPO
set -u
passcoded=$1 repo=$2
out=$(mktemp)
SUDO_USER=nobody "$repo/scripts/try-service.sh" "$passcoded" /usr/bin/python3 -c "
import sys; sys.path.insert(0, '$repo/python')
import passcode
s = passcode.Store('try', service='org.example.Try')
s.set_passcode('902714')
try:
    s.verify('111222')
except passcode.WrongPasscode:
    print('wrong refused')
s.verify('902714')
print('verified as uid', __import__('os').getuid())
" >"$out" 2>&1
rc=$?
fail=0
grep -q "wrong refused" "$out" && grep -q "verified as uid $(id -u nobody)" "$out" || { echo "FAIL try-service: the command did not reach passcoded as nobody (exit $rc):"; cat "$out"; fail=1; }
dir=$(sed -n 's/.*stores in \(\/tmp\/passcode-try\.[A-Za-z0-9_]*\)\/stores.*/\1/p' "$out")
user=$(sed -n 's/.*, as \(passcode-try-[0-9]*-svc\),.*/\1/p' "$out")
[ -n "$dir" ] && [ ! -e "$dir" ] || { echo "FAIL try-service: its folder '$dir' is still there"; fail=1; }
[ -n "$user" ] && ! getent passwd "$user" >/dev/null || { echo "FAIL try-service: its user '$user' is still there"; fail=1; }
rm -f "$out"
[ $fail = 0 ] && echo "ok   try-service: a passcode set and verified as nobody through the checkout's passcoded; its bus, folder and user $user gone after"
exit $fail
