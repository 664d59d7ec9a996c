#!/usr/bin/env python3
"""The modules of one product, read from Package.swift (the one list of modules and their
folders), for the builds that do not go through SwiftPM (scripts/embedded_build.sh).

    scripts/modules.py PRODUCT swift      the Swift modules it is built from, in build order: NAME PATH
    scripts/modules.py PRODUCT include    the folders of its C modules (module maps), one a line
    scripts/modules.py PRODUCT c          the C files of its C targets, one a line

It asks SwiftPM (`swift package describe --type json`), so a module added to Package.swift is
built by both builds without a second list.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def describe() -> dict:
    swift = os.environ.get("SWIFT", "swift")
    out = subprocess.run([swift, "package", "describe", "--type", "json"], cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def closure(targets: dict, roots: list) -> list:
    """The targets the roots depend on, dependencies first (a topological order)."""
    order, seen = [], set()

    def visit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        for dep in targets[name].get("target_dependencies") or []:
            visit(dep)
        order.append(name)

    for root in roots:
        visit(root)
    return order


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[2] not in ("swift", "include", "c"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    product, what = sys.argv[1], sys.argv[2]
    desc = describe()
    targets = {t["name"]: t for t in desc["targets"]}
    products = {p["name"]: p for p in desc["products"]}
    if product not in products:
        print(f"modules: no product {product!r} in Package.swift", file=sys.stderr)
        return 2
    for name in closure(targets, products[product]["targets"]):
        t = targets[name]
        kind, path = t["module_type"], t["path"]
        if what == "swift" and kind == "SwiftTarget":
            print(name, path)
        elif what == "include" and kind == "SystemLibraryTarget":
            print(path)
        elif what == "include" and kind == "ClangTarget":
            print(f"{path}/include")
        elif what == "c" and kind == "ClangTarget":
            for src in t.get("sources") or []:
                print(f"{path}/{src}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
