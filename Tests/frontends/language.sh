#!/bin/sh
# A terminal front end in the user's language: Tests/frontends/language.keys run with LANGUAGE=de
# shows Tests/frontends/language.de.expected (the demo's words through its gettext domain,
# passcode-demo, and the library's through its own: prompts, errors, a lockout, plural forms, the
# log); LANGUAGE=fr shows French; an unknown language (LANGUAGE=xx) and the C locale (whatever
# LANGUAGE says) show the English screens of LC_ALL=C. The locale is C.UTF-8 with LANGUAGE: glibc
# reads LANGUAGE for every locale but C and POSIX, and C.UTF-8 needs no language's locale
# installed (when the machine lacks it, the test makes it with localedef in a folder of its own).
#   Tests/frontends/language.sh COMMAND...   e.g. examples/c/passcode_demo, or python3 examples/python/passcode_demo.py
# UPDATE=1 rewrites language.de.expected (review the diff before committing); its version is
# written @VERSION@.
set -eu
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for l in de fr; do
    [ -f "build/share/locale/$l/LC_MESSAGES/passcode-demo.mo" ] || { echo "language: FAIL: no build/share/locale/$l/LC_MESSAGES/passcode-demo.mo (make builds the catalogues)" >&2; exit 1; }
done
if ! locale -a 2>/dev/null | grep -qix 'c\.utf-\?8'; then
    if localedef -i C -f UTF-8 "$tmp/locale/C.UTF-8" >/dev/null 2>&1; then
        export LOCPATH="$tmp/locale"
    else
        echo "SKIPPED language ($*): no C.UTF-8 locale, and localedef could not make one"; exit 0
    fi
fi
version=$(cat VERSION)
# screens NAME VARIABLE=VALUE...: language.keys through the front end, in that environment only.
screens() {
    name=$1; shift
    env -u LC_ALL -u LC_MESSAGES -u LANG -u LANGUAGE "$@" $demo --store "$tmp/$name.db" --script --fake-clock \
        < Tests/frontends/language.keys > "$tmp/$name.out" 2>&1 || true
}
demo="$*"
screens de LANG=C.UTF-8 LANGUAGE=de
screens fr LANG=C.UTF-8 LANGUAGE=fr
screens xx LANG=C.UTF-8 LANGUAGE=xx
screens c-de LC_ALL=C LANGUAGE=de
screens english LC_ALL=C
fails=0
fail() { echo "language: FAIL: $*" >&2; fails=$((fails + 1)); }
if [ "${UPDATE:-0}" = 1 ]; then sed "1s/$version/@VERSION@/" "$tmp/de.out" > Tests/frontends/language.de.expected; fi
sed "1s/@VERSION@/$version/" Tests/frontends/language.de.expected > "$tmp/de.expected"
diff -u "$tmp/de.expected" "$tmp/de.out" > "$tmp/de.diff" || { fail "LANGUAGE=de:"; head -40 "$tmp/de.diff" >&2; }
# French: the demo's words and the library's, a plural form of each.
for line in "écran : accueil" "erreur : Code incorrect" "avis : déverrouillage : terminé ; 5 tentatives échouées depuis votre dernier déverrouillage" \
            "écran : journal de sécurité (14 événements, les plus récents d’abord)" "Blocage commencé : 1 minute"; do
    grep -qF -- "$line" "$tmp/fr.out" || fail "LANGUAGE=fr: no line with '$line':$(head -20 "$tmp/fr.out")"
done
# English: the same screens as LC_ALL=C, for a language without a catalogue and for the C locale.
grep -qx "screen: home" "$tmp/english.out" || fail "LC_ALL=C: no English home screen: $(head -5 "$tmp/english.out")"
for name in xx c-de; do
    cmp -s "$tmp/english.out" "$tmp/$name.out" || { fail "$name: not the English screens:"; diff -u "$tmp/english.out" "$tmp/$name.out" | head -20 >&2; }
done
[ "$fails" -eq 0 ] || exit 1
echo "language ($*): LANGUAGE=de the German screens of language.de.expected, LANGUAGE=fr French, an unknown language and the C locale English"
