#!/bin/sh
# `pip wheel ./python` builds a wheel whose metadata has the license, a project URL, the
# classifiers (Typing :: Typed among them), and which ships py.typed and VERSION.
set -eu
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 -m pip wheel -q --no-deps -w "$tmp" ./python >/dev/null 2>&1 || python3 -m pip wheel --no-deps -w "$tmp" ./python
python3 - "$tmp" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/passcode-*.whl")[0]
z = zipfile.ZipFile(wheel)
meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
want = ["License: MIT", "Project-URL: Homepage", "Classifier: Typing :: Typed",
        "Classifier: License :: OSI Approved :: MIT License", "Requires-Python: >=3.8"]
missing = [w for w in want if w not in meta] + [f for f in ("passcode/py.typed", "passcode/VERSION") if f not in z.namelist()]
if missing:
    sys.exit("wheel: FAIL: missing " + ", ".join(missing))
print("wheel: %s has the license, project URL, classifiers (Typing :: Typed), py.typed and VERSION" % wheel.split("/")[-1])
PY
