#!/usr/bin/env python3
"""Writes python/passcode/_enums.py from include/passcode.h: every C enum of the header becomes a
Python IntEnum with the same values, its doc comment as the docstring. Run by `make header`;
Tests/python/test_ffi_table.py checks that the committed file is what this makes.
    gen_python_enums.py [HEADER]   (prints the module)"""
import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: C enum -> Python name, where it is not the CamelCase of the C name without "passcode_".
NAMES = {"passcode_lockout_schedule": "Schedule"}


def python_name(cname):
    return NAMES.get(cname) or "".join(part.capitalize() for part in cname[len("passcode_"):].split("_"))


def enums(header):
    """(C name, doc, prefix, [(constant, value)]) for every enum, in header order."""
    out = []
    pattern = r"/\*\*((?:(?!\*/).)*?)\*/\s*typedef enum (passcode_\w+) \{(.*?)\} \2;"
    for m in re.finditer(pattern, header, re.S):
        doc = " ".join(line.strip(" *") for line in m.group(1).strip().splitlines()).strip()
        consts = re.findall(r"(PASSCODE_\w+) = (-?\d+)", m.group(3))
        prefix = "PASSCODE_" if m.group(2) == "passcode_status" else m.group(2).upper() + "_"
        out.append((m.group(2), doc, prefix, consts))
    return out


def module(header):
    lines = ['"""The header\'s enums, as Python enums. GENERATED from include/passcode.h by',
             'scripts/gen_python_enums.py (`make header`); do not edit."""',
             "from enum import IntEnum", ""]
    table = []
    for cname, doc, prefix, consts in enums(header):
        name = python_name(cname)
        lines += ["", f"class {name}(IntEnum):"]
        lines += textwrap.wrap(f'"""{doc} ({cname})"""', 96, initial_indent="    ", subsequent_indent="    ")
        lines += [f"    {c[len(prefix):]} = {v}" for c, v in consts]
        lines.append("")
        table.append(f'    "{cname}": ({name}, "{prefix}"),')
    old_names = re.findall(r"^typedef (passcode_\w+) (passcode_\w+);", header, re.M)
    if old_names:
        lines += ["", "# Deprecated since 0.7.0 (the header keeps the old C names for one release too):"]
        lines += [f"{python_name(old)} = {python_name(new)}" for new, old in old_names]
        lines.append("")
    lines += ["", "#: C enum name -> (Python enum, prefix of its constants in passcode.h)", "HEADER_ENUMS = {"]
    lines += table + ["}", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "include" / "passcode.h"
    sys.stdout.write(module(path.read_text()))
