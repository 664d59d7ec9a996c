#!/bin/sh
# Part of make check-docs: the tree says what the code does, not how the work was organised. No
# tracked text (sources, docs, NEWS, tests and what they print) names an issue number, a
# reviewer, a review round or an attack by its tracker name; say what is checked instead.
set -u
cd "$(dirname "$0")/../.."
pattern='\bissue (#)?[0-9]+|\breviewers?\b|\breview [0-9]+[a-z]?\b|\battack found\b|found by (an|a|the) (attack|review|helper)|\bhelper.s attack|\batt[0-9]+[a-z]?\b'
hits=$(git grep -n -I -i -E "$pattern" -- . ':!Tests/fixtures' ':!Tests/docs/process_words.sh' 2>/dev/null)
if [ -n "$hits" ]; then
    printf '%s\n' "$hits" >&2
    echo "process words: the lines above name an issue, a review or an attack by its tracker name; say what the code or test does" >&2
    exit 1
fi
echo "process words: no issue number, reviewer, review round or attack name in the tracked text"
