#!/usr/bin/env python3
"""make check-docs: every `passcode_*` name that a comment or document mentions exists in
include/passcode.h's declarations (a function, type or enum; comments do not count), or is the
stored name of a setting (the header's "Stored as `...`"), a log kind's name (passcode(7)'s generated
list, docs/passcode.7.md), or names a file of the tree
(passcode_demo.c). Read: the header, README.md, docs/*.md, the Python binding and the
comments of the Swift sources. Prints each unknown name with where it is; exits 1 if any.
    check_doc_names.py [ROOT]"""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent.parent)
NAME = re.compile(r"(?<![A-Za-z0-9_])passcode_[a-z0-9_]*[a-z0-9]")


def main():
    header = (ROOT / "include" / "passcode.h").read_text()
    code = re.sub(r"/\*.*?\*/", "", header, flags=re.S)
    known = set(NAME.findall(code))
    known |= set(re.findall(r"Stored as\s+`(\w+)`", header.replace("\n *", " ")))
    security = (ROOT / "docs" / "passcode.7.md").read_text()
    if "<!-- log kinds:" in security:  # the log's kinds as the library names them (generated there)
        known |= set(NAME.findall(security.split("<!-- log kinds:", 1)[1].split("<!-- end of the log kinds -->", 1)[0]))
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True).stdout.split()
    known |= {Path(f).name.split(".")[0] for f in tracked}
    sources = [ROOT / "include" / "passcode.h", ROOT / "README.md"]
    sources += sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "python" / "passcode").glob("*.py"))
    swift = sorted((ROOT / "Sources").rglob("*.swift"))
    unknown = []
    for path in sources + swift:
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if path.suffix == ".swift":
                if "//" not in line:
                    continue
                line = line[line.index("//"):]  # the comment only: Swift code names the C shims
            for name in NAME.findall(line):
                if name not in known:
                    unknown.append(f"{path.relative_to(ROOT)}:{n}: {name}")
    for u in unknown:
        print(f"docs: FAIL: names {u.split(': ')[-1]}, which include/passcode.h does not declare ({u.rsplit(': ', 1)[0]})",
              file=sys.stderr)
    if unknown:
        sys.exit(1)
    print(f"docs: every passcode_* name in the header's comments, README, docs, the binding and the "
          f"Swift comments is declared ({len(known)} known)")


if __name__ == "__main__":
    main()
