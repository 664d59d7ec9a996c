#!/bin/sh
# The terminal demo's ncurses screens, driven by keys in an 80x24 tmux pane (a private tmux
# server, stopped at the end) and read back with capture-pane: the email box stays until a key,
# the first launch opens "Create Passcode", every refusal is a line on screen, f asks first, n says the failed match, long errors wrap
# inside the pad's box, and the banner naming the store stays. For a screen reader's console
# mode, what the screen shows is in words too: the dots' count ("3 of 6 digits"), the delete key,
# the error written again with each shake (read from what the demo writes to the terminal), the
# lockout in the library's words under its countdown, the biometric prompt.
#   Tests/frontends/curses.sh examples/c/passcode_demo
set -eu
demo=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
command -v tmux >/dev/null 2>&1 || { echo "curses: FAIL: tmux is missing (scripts/ensure-deps.sh installs it)" >&2; exit 1; }
tmp=$(mktemp -d)
sock="passcode-curses-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT
fails=0
screen() { tmux -L "$sock" capture-pane -p -t demo; }
keys() { tmux -L "$sock" send-keys -t demo "$@"; sleep 0.4; }
# wait_for TEXT: up to 10 s for TEXT to be on screen (Argon2id runs at each full entry).
wait_for() {
    i=0
    while ! screen | grep -qF -- "$1"; do
        i=$((i + 1))
        if [ $i -ge 50 ]; then echo "curses: FAIL: '$1' never showed; the screen:" >&2; screen >&2; exit 1; fi
        sleep 0.2
    done
}
expect() {  # expect WHAT TEXT: TEXT is on screen now
    if screen | grep -qF -- "$2"; then :; else echo "curses: FAIL: $1: '$2' is not on screen:" >&2; screen >&2; fails=$((fails + 1)); fi
}
absent() {  # absent WHAT TEXT: TEXT is not on screen now
    if screen | grep -qF -- "$2"; then echo "curses: FAIL: $1: '$2' is still on screen:" >&2; screen >&2; fails=$((fails + 1)); fi
}
# The pad's box has whole borders: each of its rows has the border character at the column of
# the top row's right corner (tmux gives the line-drawing characters as VT100's q, x, k, ...).
box_whole() {
    screen | python3 -c '
import sys
what, rows = sys.argv[1], sys.stdin.read().split("\n")
top = rows[0].rstrip()
if not top.endswith("k"):
    sys.exit("curses: FAIL: %s: no box on screen" % what)
right = len(top) - 1
for n, row in enumerate(rows[1:19], 2):
    if len(row) <= right or row[right] != "x":
        sys.exit("curses: FAIL: %s: row %d of the box lost its border:\n%s" % (what, n, row))
' "$1" >&2 || fails=$((fails + 1))
}
tmux -L "$sock" -f /dev/null new-session -d -s demo -x 80 -y 24 \
    "env LANG=C.UTF-8 LC_ALL=C.UTF-8 LANGUAGE= TERM=xterm-256color '$demo' --store '$tmp/demo.db' --fake-clock; sleep 30"
# The first launch, with no passcode: "Create Passcode" is on screen, and says why .
wait_for "Create Passcode"
expect "the first launch" "Welcome: create a passcode to protect the app."
expect "the dots' count in words" "0 of 6 digits"
expect "the delete key in words" "x del x"
keys 3 8 6
expect "the dots' count in words after three digits" "3 of 6 digits"
keys Escape
wait_for "screen: home"
expect "banner" "demo, store $tmp/demo.db"
keys r
expect "r with no passcode" "error: No passcode is set."
keys c; keys 3 8 6 4 9 1; keys 9 1 5 3 7 2
wait_for "Passcodes don't match."
box_whole "the mismatch error"
keys 3 8 6 4 9 1; keys 3 8 6 4 9 1
wait_for "create: done"
expect "banner after a flow" "demo, store $tmp/demo.db"
keys r
wait_for "Your libpasscode reset code:"
sleep 1.2  # the screen redraws twice a second while idle: the email must stay
expect "the email stays" "Your libpasscode reset code:"
expect "the reset entry behind the email" "Enter the code from the email"
# The code from the box, typed; the new passcode twice: the reset's result is said above the
# banner with the box still open (the box sits above it, never over it), and stays when the key
# that closes the box is pressed (that key once cleared it).
code=$(screen | sed -n 's/.*Your libpasscode reset code: \([0-9]*\).*/\1/p' | head -n 1)
[ -n "$code" ] || { echo "curses: FAIL: no code in the email box" >&2; screen >&2; exit 1; }
for d in $(echo "$code" | sed 's/./& /g'); do keys "$d"; done
expect "the email stays while digits are typed" "Your libpasscode reset code:"
wait_for "Enter a new passcode"
keys 5 0 2 8 1 7; keys 5 0 2 8 1 7
wait_for "reset: done"
expect "the email box stays over the reset's result, not on it" "Your libpasscode reset code:"
keys Space
absent "a key closes the email" "Your libpasscode reset code:"
expect "the reset's result stays when the box closes" "reset: done"
keys r
expect "a second r is refused on screen" "Too many code requests. Try again in"
keys Escape
keys g; keys 5 0 2 8 1 7
wait_for "Enter new passcode"
keys 1 2 3 4 5 6
wait_for "Choose a harder"
box_whole "the weak-passcode error"
keys Escape
keys i
wait_for "biometric on"
keys l
wait_for "Forgot Passcode?"
expect "the biometric prompt said" "Face ID prompt shown: [b] match"
keys n
expect "n says the failed match" "biometric: no match; 1 failed match"
keys f
expect "f asks first" "Your passcode will be removed."
keys x
absent "any other key cancels" "Your passcode will be removed."
expect "still locked after cancel" "Enter Passcode"
# Enough events for more than one page of the log: v shows the next page, and the oldest event.
# What the demo writes to the terminal (what a console screen reader reads) is kept meanwhile:
# each wrong passcode's shake writes the error again, in words.
tmux -L "$sock" pipe-pane -o -t demo "cat > '$tmp/written'"
for round in 1 2 3; do
    [ "$round" = 1 ] || keys l
    for wrong in 1${round}1111 2${round}2222 3${round}3333; do
        for digit in $(echo "$wrong" | sed 's/./& /g'); do keys "$digit"; done
    done
    keys 5 0 2 8 1 7
    wait_for "3 failed attempts since your last unlock"
done
tmux -L "$sock" pipe-pane -t demo
said=$(grep -o "Incorrect passcode" "$tmp/written" | wc -l)
[ "$said" -ge 9 ] || { echo "curses: FAIL: 9 wrong passcodes wrote \"Incorrect passcode\" $said times" >&2; fails=$((fails + 1)); }
keys v
wait_for "screen: security log"
expect "the log's first page says there is more" "[v] the next ones"
keys v
expect "the log's next page has the oldest event" "Passcode set"
keys Space
keys l
# Five wrong passcodes: the lockout is said in words, not only as its countdown.
for wrong in 901111 902222 903333 904444 905555; do keys $(echo "$wrong" | sed 's/./& /g'); done
wait_for "Try again in 1:00"
expect "the lockout in words" "Too many attempts. Try again in"
keys f; keys y
wait_for "Signed out."
expect "banner on the last screen" "demo, store $tmp/demo.db"
# A message wider than the terminal is broken at spaces over two rows, not cut (a 40-column pane).
tmux -L "$sock" kill-session -t demo
rm -f "$tmp/demo.db"*
tmux -L "$sock" -f /dev/null new-session -d -s demo -x 40 -y 24 \
    "env LANG=C.UTF-8 LC_ALL=C.UTF-8 LANGUAGE= TERM=xterm-256color '$demo' --store '$tmp/demo.db' --fake-clock; sleep 30"
wait_for "Create Passcode"
expect "a long message's first row ends at a word" " Welcome: create a passcode to protect"
expect "a long message's second row" " the app."
# In German (LANGUAGE=de with the C.UTF-8 locale; Tests/frontends/language.sh checks the scripted
# screens): the pad's title, its count and delete key, the notice, the home screen and its keys.
# (The new session starts before the old one goes: the tmux server ends with its last session.)
tmux -L "$sock" -f /dev/null new-session -d -s de -x 80 -y 24 \
    "env -u LC_ALL LANG=C.UTF-8 LANGUAGE=de TERM=xterm-256color '$demo' --store '$tmp/de.db' --fake-clock; sleep 30"
tmux -L "$sock" kill-session -t demo
tmux -L "$sock" rename-session -t de demo
wait_for "Code erstellen"
expect "German: the prompt" "Einen Code eingeben"
expect "German: the dots' count (its short form: the long ones do not fit in the pad)" "0 von 6"
expect "German: the delete key" "Entf"
expect "German: the notice" "Willkommen: Erstelle einen Code, um die App zu schützen."
expect "German: the footer" "Esc bricht ab"
keys Escape
wait_for "Bildschirm: Start"
expect "German: the home screen's keys" "Tasten: [c] erstellen [g] ändern"
expect "German: the banner" "libpasscode-$(cat VERSION)-Demo, Speicher $tmp/de.db"
if [ "$fails" -ne 0 ]; then echo "curses: $fails check(s) failed" >&2; exit 1; fi
echo "curses: the terminal demo's ncurses screens: first launch opens Create Passcode, email box kept until a key, above the reset's result, the log paged to its oldest event, long messages broken at spaces, refusals on screen, f confirms, n said, errors wrapped inside the box, banner kept; in words: the dots' count, the delete key, the error written with each shake, the lockout, the biometric prompt; in German with LANGUAGE=de"
