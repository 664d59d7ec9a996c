#!/usr/bin/env python3
"""Writes python/passcode/_enums.py from include/passcode.h (read through scripts/api_model.py):
every C enum of the header becomes a Python IntEnum with the same values, its doc comment as the
docstring. Run by `make header`; Tests/python/test_ffi_table.py checks that the committed file is
what this makes.
    gen_python_enums.py [HEADER]   (prints the module)"""
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import api_model  # noqa: E402

#: C enum -> Python name, where it is not the CamelCase of the C name without "passcode_".
NAMES = {"passcode_lockout_schedule": "Schedule"}


def python_name(cname):
    return NAMES.get(cname) or "".join(part.capitalize() for part in cname[len("passcode_"):].split("_"))


def module(api):
    """The module's text; `api` is the model, or a header's text (Tests/python/test_ffi_table.py)."""
    if isinstance(api, str):
        api = api_model.parse(api)
    lines = ['"""The header\'s enums, as Python enums. GENERATED from include/passcode.h by',
             'scripts/gen_python_enums.py (`make header`); do not edit."""',
             "from enum import IntEnum", ""]
    table = []
    for enum in api.enums:
        name = python_name(enum.name)
        lines += ["", f"class {name}(IntEnum):"]
        lines += textwrap.wrap(f'"""{enum.doc} ({enum.name})"""', 96, initial_indent="    ", subsequent_indent="    ")
        lines += [f"    {c.name[len(enum.prefix):]} = {c.value}" for c in enum.cases]
        lines.append("")
        table.append(f'    "{enum.name}": ({name}, "{enum.prefix}"),')
    renamed = [e for e in api.enums if e.alias]
    if renamed:
        lines += ["", "# Deprecated since 0.7 (the header keeps the old C names too, until the next major version):"]
        lines += [f"{python_name(e.alias)} = {python_name(e.name)}" for e in renamed]
        lines.append("")
    lines += ["", "#: C enum name -> (Python enum, prefix of its constants in passcode.h)", "HEADER_ENUMS = {"]
    lines += table + ["}", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(module(api_model.load(*sys.argv[1:2])))
