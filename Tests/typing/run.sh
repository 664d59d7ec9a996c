#!/bin/sh
# mypy --strict on the Python binding, the Python examples and a user-style script
# (Tests/typing/user_script.py, which is also run), and proof that the hints are not empty: every
# line of Tests/typing/misuse.py marked "# E: code" must be rejected with that code, and nothing else.
# mypy comes from PyPI when missing.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
python3 -m mypy --version >/dev/null 2>&1 || python3 -m pip install -q mypy
export MYPYPATH="$root/python"
python3 -m mypy --strict --no-incremental python/passcode examples/python/passcode_demo.py Tests/typing/user_script.py
PYTHONPATH="$root/python" python3 Tests/typing/user_script.py
out=$(python3 -m mypy --strict --no-incremental Tests/typing/misuse.py 2>&1 || true)
want=$(grep -n "# E: " Tests/typing/misuse.py | sed 's/^\([0-9]*\):.*# E: \([a-z-]*\).*/\1 \2/' | sort)
got=$(printf '%s\n' "$out" | sed -n 's/^Tests\/typing\/misuse.py:\([0-9]*\): error: .*\[\([a-z-]*\)\]$/\1 \2/p' | sort -u)
if [ "$want" != "$got" ]; then
    echo "types: misuse.py: expected these rejections:" >&2; echo "$want" >&2
    echo "types: mypy said:" >&2; printf '%s\n' "$out" >&2
    exit 1
fi
echo "types: mypy --strict clean on the package, the examples and a user script; $(echo "$want" | wc -l) misuses rejected"
