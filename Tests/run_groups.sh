#!/usr/bin/env bash
# make test: runs each test group (a make target), goes on after a failure, and ends with a
# summary that names every group that failed or was skipped. A group that cannot run here
# (deb-test when not root, say) writes its reason to $PASSCODE_SKIPPED/<group> and exits 0:
# it is reported as SKIPPED, and the summary then does not say "all test groups passed".
#   Tests/run_groups.sh GROUP...
set -u
export PASSCODE_SKIPPED
PASSCODE_SKIPPED=$(mktemp -d)
trap 'rm -rf "$PASSCODE_SKIPPED"' EXIT
passed=() failed=() skipped=()
for group in "$@"; do
    echo "=== make $group"
    start=$SECONDS
    if make --no-print-directory "$group"; then
        if [ -s "$PASSCODE_SKIPPED/$group" ]; then
            skipped+=("$group ($(head -n 1 "$PASSCODE_SKIPPED/$group"))")
        else
            passed+=("$group")
        fi
    else
        failed+=("$group")
    fi
    echo "=== make $group: $((SECONDS - start)) s"
done
echo
echo "make test summary"
for g in "${passed[@]}"; do echo "  PASSED   $g"; done
for g in "${skipped[@]}"; do echo "  SKIPPED  $g"; done
for g in "${failed[@]}"; do echo "  FAILED   $g"; done
if [ ${#failed[@]} -eq 0 ] && [ ${#skipped[@]} -eq 0 ]; then
    echo "make test: all test groups passed"
fi
echo "make test: ${#passed[@]} passed, ${#failed[@]} failed, ${#skipped[@]} skipped"
[ ${#failed[@]} -eq 0 ]
