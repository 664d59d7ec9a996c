#!/bin/sh
# The Python terminal demo in its interactive mode (a tty: a tmux pane 80 wide) with COLUMNS=40:
# every line it draws fits in 40 columns and long lines are broken at spaces, not mid-word (the
# text read back with the breaks joined is the whole message); the dots' count and the delete key
# are in words.
#   PYTHONPATH=python PASSCODE_LIBRARY=build/libpasscode.so.0 Tests/frontends/wrap.sh python3 examples/python/passcode_demo.py
set -eu
command -v tmux >/dev/null 2>&1 || { echo "wrap: FAIL: tmux is missing (scripts/ensure-deps.sh installs it)" >&2; exit 1; }
tmp=$(mktemp -d)
sock="passcode-wrap-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT
cmd=""
for a in "$@"; do cmd="$cmd '$a'"; done
screen() { tmux -L "$sock" capture-pane -p -t demo; }
keys() { tmux -L "$sock" send-keys -t demo "$@"; sleep 0.3; }
wait_for() {  # wait_for TEXT: up to 10 s for TEXT on screen, the lines joined with spaces
    i=0
    while ! screen | tr -s ' \n' '  ' | grep -qF -- "$1"; do
        i=$((i + 1))
        if [ $i -ge 50 ]; then echo "wrap: FAIL: '$1' never showed whole; the screen:" >&2; screen >&2; exit 1; fi
        sleep 0.2
    done
}
fits() {  # fits WHAT: no line on screen is wider than 40 columns
    wide=$(screen | awk 'length($0) > 40' | head -n 3)
    [ -z "$wide" ] || { echo "wrap: FAIL: $1: lines wider than COLUMNS=40:" >&2; echo "$wide" >&2; screen >&2; exit 1; }
}
tmux -L "$sock" -f /dev/null new-session -d -s demo -x 80 -y 40 \
    "env COLUMNS=40 LANG=C.UTF-8 LC_ALL=C.UTF-8 LANGUAGE= TERM=xterm-256color PYTHONPATH='${PYTHONPATH:-}' PASSCODE_LIBRARY='${PASSCODE_LIBRARY:-}' $cmd --store '$tmp/demo.db' --fake-clock; sleep 30"
# The first launch: the welcome (47 characters) on two lines, whole words.
wait_for "Welcome: create a passcode to protect the app."
fits "the first launch"
wait_for "dots: ______ 0 of 6 digits entered"  # the count in words: a console screen reader reads "_" as a shape
wait_for "0 del"  # the pad's delete key in words
# A refusal (73 characters): a common passcode.
keys 1 4 7 2 5 8
wait_for "error: Choose a harder passcode: it is one of the most commonly chosen passcodes."
fits "a refusal"
keys 3 8 6 4 9 1; keys 3 8 6 4 9 1
# The home screen's launch line (93 characters) and the key list, broken at spaces.
wait_for "launch: lock at launch on | require biometrics on launch off | passcode after every launch off"
wait_for "[t]imeout [i] biometric [a] require on launch [h] background [l]ock"
fits "the home screen"
keys q
echo "wrap: the Python demo, interactive with COLUMNS=40: the welcome, a refusal and the home screen broken at spaces, no line wider than 40; the dots' count and the delete key in words"
