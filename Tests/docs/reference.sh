#!/bin/sh
# make check-docs: every passcode_* name the docs and comments mention is declared; README's D-Bus
# method list is the XML's; every function the header declares (the library exports exactly those) opens
# a man page, every page renders with groff's warnings on and prints none, passcode(3) and
# passcode(7) exist, and the HTML reference documents every function.
# Usage: Tests/docs/reference.sh [DOCS-DIR]   (default build/docs, made by `make docs`)
set -eu
docs=${1:-build/docs}
man3="$docs/man/man3"
fail=0
bad() { echo "docs: FAIL: $*" >&2; fail=1; }
# Every passcode_* name a comment or document mentions is declared in the header.
python3 Tests/docs/check_doc_names.py || fail=1
# README's list of passcoded's D-Bus methods names exactly those of service/org.libpasscode.Passcode1.xml.
python3 scripts/gen_bus.py --check-readme || fail=1
functions=$(scripts/gen_version_script.sh include/passcode.h | sed -n 's/^ *\(passcode_[a-z_0-9]*\);$/\1/p')
[ -n "$functions" ] || { bad "no functions found in include/passcode.h"; exit 1; }
count=0
for fn in $functions; do
    count=$((count + 1))
    page="$man3/$fn.3"
    [ -f "$page" ] || { bad "$fn has no man page ($page)"; continue; }
    target=$page
    if head -n 1 "$page" | grep -q '^\.so '; then  # a link to its topic's page
        target="$docs/man/$(head -n 1 "$page" | sed 's/^\.so //')"
        [ -f "$target" ] || { bad "$fn: $page links to $target, which does not exist"; continue; }
    fi
    grep -q "^\.SS \".* $fn (" "$target" || bad "$fn: $target does not document it"
    grep -lq ">$fn</a> (" "$docs"/html/group__*.html || bad "$fn is missing from the HTML reference"
done
pages=0
stray=$(ls "$man3" | grep -v '^passcode\|^PASSCODE_' | tr '\n' ' ')
[ -z "$stray" ] || bad "section-3 pages outside the library's names (make install would put them in everyone's man3): $stray"
for page in "$man3"/*.3 "$docs"/man/man7/*.7 "$docs"/man/man8/*.8; do
    head -n 1 "$page" | grep -q '^\.so ' && continue
    pages=$((pages + 1))
    # -ww: all of groff's warnings; any text on stderr is a defect of the page.
    warnings=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings=w -l "$page" 2>&1 >/dev/null) || bad "man -l $page failed"
    [ -z "$warnings" ] || bad "man -l $page: $warnings"
done
for page in "$man3/passcode.3" "$docs/man/man7/passcode.7" "$docs/man/man7/passcode-tpm.7" "$docs/man/man8/passcoded.8" "$man3/passcode-service.3"; do
    [ -f "$page" ] || bad "$page missing"
done
MANWIDTH=80 man -l "$docs/man/man7/passcode.7" 2>/dev/null | grep -q 'Write-ahead' || bad "passcode(7) lacks the security model"
MANWIDTH=80 man -l "$man3/passcode.3" 2>/dev/null | grep -q 'PASSCODE_ERR_WRONG_PASSCODE' || bad "passcode(3) lacks the statuses"
# passcode(3) opens as a library's page does (libcurl(3)): NAME, a short SYNOPSIS, then DESCRIPTION
# with the overview and the conventions; no enum dump in the SYNOPSIS and no sentinel anywhere.
[ "$(grep '^\.SH' "$man3/passcode.3" | head -n 3 | tr '\n' '|')" = ".SH NAME|.SH SYNOPSIS|.SH DESCRIPTION|" ] \
    || bad "passcode(3) does not open with NAME, SYNOPSIS, DESCRIPTION: $(grep '^\.SH' "$man3/passcode.3" | head -n 3 | tr '\n' ' ')"
MANWIDTH=80 man -l "$man3/passcode.3" 2>/dev/null | awk '/^DESCRIPTION/ {exit} {print}' | grep -q 'enum\|#define' \
    && bad "passcode(3)'s SYNOPSIS lists enums or macros"
MANWIDTH=80 man -l "$man3/passcode.3" 2>/dev/null | grep -q 'PASSCODE_STATUS_SIGNED_' && bad "passcode(3) shows the sentinel PASSCODE_STATUS_SIGNED_"
conventions=$(MANWIDTH=80 man -l "$man3/passcode.3" 2>/dev/null | grep -n '^ *Conventions$' | cut -d: -f1)
[ -n "$conventions" ] && [ "$conventions" -lt 40 ] || bad "passcode(3)'s conventions start at line ${conventions:-none}, not within its first 40 lines"
MANWIDTH=80 man -l "$man3/passcode.3" 2>/dev/null | grep -q 'passcode-service(3)' || bad "passcode(3) does not name the service-mode page"
MANWIDTH=80 man -l "$man3/passcode-service.3" 2>/dev/null | grep -q 'PASSCODE_ERR_REFUSED_IN_SERVICE_MODE' || bad "passcode-service(3) lacks the refused calls"
MANWIDTH=80 man -l "$docs/man/man7/passcode-tpm.7" 2>/dev/null | grep -q 'PIN_FAIL' || bad "passcode-tpm(7) lacks the provisioned mode"
MANWIDTH=80 man -l "$docs/man/man8/passcoded.8" 2>/dev/null | grep -q 'clock_offset_file' || bad "passcoded(8) lacks the configuration"
MANWIDTH=80 man -l "$docs/man/man8/pam_passcode.8" 2>/dev/null | grep -q 'PAM_AUTHINFO_UNAVAIL' || bad "pam_passcode(8) lacks its return codes"
MANWIDTH=80 man -l "$docs/man/man8/passcodectl.8" 2>/dev/null | grep -q 'Exit 0' || bad "passcodectl(8) lacks its exit status"
for page in "$docs/man/man7/passcode-tpm.7" "$man3/passcode-service.3"; do
    [ "$(grep '^\.SH' "$page" | head -n 2 | tr '\n' '|')" = ".SH NAME|.SH DESCRIPTION|" ] || bad "$page does not open with NAME and DESCRIPTION"
    grep -q '^\.SH "SEE ALSO"' "$page" || bad "$page has no SEE ALSO"
done
# The administrator's pages have the sections of pam_faillock(8), in its order: NAME, SYNOPSIS,
# DESCRIPTION, OPTIONS, (others), EXAMPLES, FILES, SEE ALSO last; every heading in capitals.
for page in "$docs/man/man8/passcoded.8" "$docs/man/man8/pam_passcode.8" "$docs/man/man8/passcodectl.8"; do
    heads=$(grep '^\.SH' "$page" | sed 's/^\.SH *//; s/"//g')
    order=$(echo "$heads" | grep -x 'NAME\|SYNOPSIS\|DESCRIPTION\|OPTIONS\|EXAMPLES\|FILES\|SEE ALSO' | tr '\n' '|')
    [ "$order" = "NAME|SYNOPSIS|DESCRIPTION|OPTIONS|EXAMPLES|FILES|SEE ALSO|" ] \
        || bad "$page: its sections are not NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXAMPLES, FILES, SEE ALSO in that order: $(echo $heads)"
    [ "$(echo "$heads" | tail -n 1)" = "SEE ALSO" ] || bad "$page: SEE ALSO is not its last section"
    lower=$(echo "$heads" | grep '[a-z]' || true)
    [ -z "$lower" ] || bad "$page: section headings not in capitals: $lower"
done
# A command copied from those pages, in the man page or the HTML, is the one their source gives.
python3 Tests/docs/commands.py "$docs" || fail=1
# passcode(7) has the sections of a section-7 page: NAME is its one name line, then DESCRIPTION
# and SEE ALSO (man-pages(7)).
sections=$(grep '^\.SH' "$docs/man/man7/passcode.7" | sed 's/^\.SH *//; s/"//g')
[ "$(echo "$sections" | head -n 2 | tr '\n' '|')" = "NAME|DESCRIPTION|" ] || bad "passcode(7) does not open with NAME and DESCRIPTION: $sections"
echo "$sections" | grep -qx 'SEE ALSO' || bad "passcode(7) has no SEE ALSO"
name_lines=$(awk '/^\.SH NAME/ {on = 1; next} /^\.SH/ {on = 0} on && NF' "$docs/man/man7/passcode.7" | wc -l)
[ "$name_lines" -eq 1 ] || bad "passcode(7): NAME holds $name_lines lines, not the name line alone"
# The version string shows as the version, not in the single quotes Doxygen writes.
version=$(cat VERSION)
MANWIDTH=80 man -l "$man3/passcode.3" 2>/dev/null | grep -q "PASSCODE_VERSION_STRING   *$version\$" \
    || bad "passcode(3) does not show PASSCODE_VERSION_STRING as $version"
[ -f "$docs/html/index.html" ] || bad "no HTML index"
[ "$fail" = 0 ] || exit 1
echo "docs: passcode(3) opens with NAME, SYNOPSIS, DESCRIPTION (conventions at line $conventions), no sentinel; passcode(7), passcode-tpm(7), passcoded(8), passcode-service(3)"
echo "docs: $count functions, each with a man page (a topic page or a .so link to one) and in the HTML reference; $pages pages render under man --warnings=w with no warning"
