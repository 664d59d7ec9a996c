#!/usr/bin/env bash
# make test's runner: builds everything the groups need first (one make -j2 of the build
# target), then runs the groups in two lanes at once, and ends with a summary that names every
# group that failed or was skipped, each group's time and the total. A group that cannot run here
# (deb-test when not root, say) writes its reason to $PASSCODE_SKIPPED/<group> and exits 0: it is
# reported as SKIPPED, and the summary then does not say "all test groups passed". A group that
# runs but leaves out a part the machine cannot do (root, a mount namespace) adds a line
# "GROUP: what (why)" to $PASSCODE_SKIPPED/parts: the summary lists and counts those too.
#
#   Tests/run_groups.sh [--build TARGET] [--system "GROUP..."] GROUP...
#
# --build TARGET: made first with -j2 (every artefact of every group), so that no group builds
#   and two groups never build the same file at once. If it fails, the groups run one after the
#   other, as they would without it, so that each failure is where it belongs.
# --system "GROUP...": the groups that start passcoded, make users, install packages or bind a
#   display: they run one after the other in their own lane, in the order given; the other groups
#   (checks, the library's own tests) run in the second lane, in the order of GROUP....
# Each group's output is kept whole and printed when the group ends (=== make GROUP ... ===
# make GROUP: N s), so that two lanes never interleave their lines. Every group runs, also after
# one failed.
set -u
build="" system=""
while [ $# -gt 0 ]; do
    case $1 in
        --build) build=$2; shift 2 ;;
        --system) system=$2; shift 2 ;;
        *) break ;;
    esac
done
export PASSCODE_SKIPPED
PASSCODE_SKIPPED=$(mktemp -d)
logs=$(mktemp -d)
trap 'rm -rf "$PASSCODE_SKIPPED" "$logs"' EXIT
total_start=$SECONDS

# run_group GROUP: make it, its output to $logs/GROUP.log, its status and time to $logs/GROUP.done.
run_group() {
    local group=$1 start=$SECONDS rc=0
    make --no-print-directory "$group" > "$logs/$group.log" 2>&1 || rc=$?
    echo "$rc $((SECONDS - start))" > "$logs/$group.done.tmp"
    mv "$logs/$group.done.tmp" "$logs/$group.done"
}

build_ok=1
if [ -n "$build" ]; then
    echo "=== make -j2 $build (every group's artefacts, built once)"
    start=$SECONDS
    if ! make --no-print-directory -j2 "$build"; then
        build_ok=0
        echo "=== make $build FAILED: the groups run one after the other"
    fi
    build_time=$((SECONDS - start))
    echo "=== make $build: $build_time s"
fi

lane_a=() lane_b=()
for group in "$@"; do
    if [ "$build_ok" = 1 ] && [[ " $system " == *" $group "* ]]; then lane_a+=("$group"); else lane_b+=("$group"); fi
done
# The system lane in the order --system gives.
ordered=()
for group in $system; do [[ " ${lane_a[*]:-} " == *" $group "* ]] && ordered+=("$group"); done
lane_a=("${ordered[@]:-}")

if [ "${#lane_a[@]}" -gt 0 ] && [ -n "${lane_a[0]}" ]; then
    ( for group in "${lane_a[@]}"; do run_group "$group"; done ) &
fi
( for group in "${lane_b[@]}"; do run_group "$group"; done ) &

# Print each group's output as it ends.
printed=()
pending=$#
while [ "$pending" -gt 0 ]; do
    for group in "$@"; do
        [[ " ${printed[*]:-} " == *" $group "* ]] && continue
        if [ -e "$logs/$group.done" ]; then
            read -r rc secs < "$logs/$group.done"
            echo "=== make $group"
            cat "$logs/$group.log"
            echo "=== make $group: $secs s$([ "$rc" = 0 ] || echo ", FAILED (exit status $rc)")"
            printed+=("$group")
            pending=$((pending - 1))
        fi
    done
    [ "$pending" -gt 0 ] && sleep 1
done
wait

passed=() failed=() skipped=()
echo
echo "make test summary (seconds each group took; two lanes ran at once)"
[ -n "$build" ] && printf '  %-8s %5s s  %s\n' "$([ "$build_ok" = 1 ] && echo BUILT || echo FAILED)" "$build_time" "$build (make -j2)"
for group in "$@"; do
    read -r rc secs < "$logs/$group.done"
    if [ "$rc" != 0 ]; then
        state=FAILED; failed+=("$group")
    elif [ -s "$PASSCODE_SKIPPED/$group" ]; then
        state=SKIPPED; skipped+=("$group ($(head -n 1 "$PASSCODE_SKIPPED/$group"))")
    else
        state=PASSED; passed+=("$group")
    fi
    lane=b; [[ " ${lane_a[*]:-} " == *" $group "* ]] && lane=a
    printf '  %-8s %5s s  %s%s\n' "$state" "$secs" "$group" "$([ "$lane" = a ] && echo "   (system lane)")"
done
for g in "${skipped[@]:-}"; do [ -n "$g" ] && echo "  SKIPPED: $g"; done
parts=0
if [ -s "$PASSCODE_SKIPPED/parts" ]; then
    parts=$(wc -l < "$PASSCODE_SKIPPED/parts")
    sed 's/^/  SKIPPED part of /' "$PASSCODE_SKIPPED/parts"
fi
echo "make test: total $((SECONDS - total_start)) s ($(( (SECONDS - total_start) / 60 )) min $(( (SECONDS - total_start) % 60 )) s) for the build and the groups"
if [ ${#failed[@]} -eq 0 ] && [ ${#skipped[@]} -eq 0 ] && [ "$parts" = 0 ] && [ "$build_ok" = 1 ]; then
    echo "make test: all test groups passed"
fi
echo "make test: ${#passed[@]} passed, ${#failed[@]} failed, ${#skipped[@]} skipped$([ "$parts" = 0 ] || echo " (and $parts parts of groups skipped)")"
[ ${#failed[@]} -eq 0 ] && [ "$build_ok" = 1 ]
