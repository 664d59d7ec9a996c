#!/usr/bin/env python3
"""The stripped size of libpasscode and its parts, against the 1.5 MB bar of the Embedded Swift
build (make bench; the EMBEDDED=0 build, with the Swift runtime inside, was 5.8 MB).

The parts come from the linker's map (build/libpasscode.linkmap, written by `make lib`): every
input section that ends up in the file is attributed to what it came from (our code, the Swift
standard library, the runtime's demangler, backtracing, Unicode tables, ...); what the linker
makes itself (dynamic symbols, relocations, PLT, headers, padding) is the rest. Sections that
take no room in the file (.bss) and those `strip` removes (symbols, debug info) are left out.

usage: size_parts.py LIBRARY [LINKMAP]       (LINKMAP defaults to LIBRARY's folder/libpasscode.linkmap)
       size_parts.py --raw LIBRARY [LINKMAP]  part<TAB>bytes lines, for scripts
"""
import os
import re
import subprocess
import sys
import tempfile

BAR_MB = 1.5

# (part, pattern on the input file's name), first match wins.
PARTS = [
    ("our code (Passcode, PasscodeCore)", re.compile(r"/(Passcode|PasscodeCore)\.build/")),
    # EMBEDDED=1 (scripts/embedded_build.sh): one object per module, all the Swift code it uses
    # (the standard library's generic code is specialized into them).
    ("our code + the stdlib it uses (Embedded Swift)", re.compile(r"(^|/)embedded/Passcode\w*\.o\b")),
    ("Embedded Swift: Unicode data tables", re.compile(r"libswiftUnicodeDataTables\.a")),
    ("Swift runtime: demangler", re.compile(r"libswiftCore\.a\((Demangl|OldDemangl|Remangl|OldRemangl|NodePrinter|NodeDumper|Punycode|ManglingUtils|Context\.cpp|Errors\.cpp)")),
    ("Swift runtime: backtracing", re.compile(r"libswiftCore\.a\((Backtrace|BacktraceUtils|CrashHandler\w*|SymbolInfo|Paths)\.")),
    ("Swift runtime: Unicode tables", re.compile(r"libswiftCore\.a\(Unicode")),
    ("Swift stdlib (Swift.o: one section)", re.compile(r"libswiftCore\.a\(Swift\.o\)")),
    ("Swift runtime: the rest (C++)", re.compile(r"libswiftCore\.a\(")),
    ("other static (Glibc overlay, crt)", re.compile(r".")),
]


def sh(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def file_sections(lib):
    """Names of the sections that take room in the stripped file (allocated, not NOBITS)."""
    out = set()
    for line in sh("readelf", "-SW", lib).splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+(\S*)", line)
        if m and m.group(2) != "NOBITS" and "A" in m.group(3):
            out.add(m.group(1))
    return out


LINKER_MADE = [
    ("dynamic relocations", re.compile(r"^\.rel[ar]?\.|^\.relr")),
    ("unwind index (.eh_frame_hdr)", re.compile(r"^\.eh_frame_hdr$")),
    ("unwind tables (gold: not by part)", re.compile(r"^\.eh_frame$")),
]


def bucket_of(section, name):
    if name.startswith("<internal>") or name.startswith("**"):
        for part, pattern in LINKER_MADE:
            if pattern.search(section):
                return part
        return None  # the rest of the linker's own: counted as what is left
    for part, pattern in PARTS:
        if pattern.search(name):
            return part
    return None


def parts_lld(text, keep):
    """lld's map: VMA LMA Size Align, then the output section (1 space in), an input (9 in) or a symbol."""
    sizes = {}
    section = None
    for line in text.splitlines()[1:]:
        m = re.match(r"\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+( +)(\S.*)$", line)
        if not m:
            continue
        indent, name = len(m.group(2)), m.group(3)
        if indent == 1:
            section = name
        elif indent == 9 and section in keep:
            part = bucket_of(section, name)
            if part:
                sizes[part] = sizes.get(part, 0) + int(m.group(1), 16)
    return sizes


def parts(linkmap, keep):
    text = open(linkmap, errors="replace").read()
    sizes = {p: 0 for p, _ in PARTS + LINKER_MADE}
    if text.lstrip().startswith("VMA"):
        sizes.update(parts_lld(text, keep))
        return sizes
    text = text[text.index("\nMemory map") if "\nMemory map" in text else 0:]
    section, pending = None, None
    for line in text.splitlines():
        if line and not line[0].isspace():
            section = line.split()[0]
            continue
        if section not in keep:
            continue
        tokens = line.split()
        if line.lstrip().startswith("**") and not any(t.startswith("0x") for t in tokens):
            pending = "**"  # the linker's own, its numbers on the next line
            continue
        if pending == "**" and len(tokens) == 2 and all(t.startswith("0x") for t in tokens):
            part = bucket_of(section, "**")
            if part:
                sizes[part] += int(tokens[1], 16)
            pending = None
            continue
        if len(tokens) == 1 and not tokens[0].startswith("0x"):
            pending = tokens[0]  # a long input-section name: its numbers are on the next line
            continue
        if tokens and not tokens[0].startswith("0x"):
            tokens = tokens[1:]
        if line.lstrip().startswith("**") and len(tokens) >= 2 and tokens[-1].startswith("0x") and tokens[-2].startswith("0x"):
            part = bucket_of(section, "**")  # the linker's own (gold)
            if part:
                sizes[part] += int(tokens[-1], 16)
        elif len(tokens) >= 3 and tokens[0].startswith("0x") and tokens[1].startswith("0x") and not tokens[2].startswith("**"):
            part = bucket_of(section, " ".join(tokens[2:]))
            if part:
                sizes[part] += int(tokens[1], 16)
        pending = None
    return sizes


def main(argv):
    raw = argv[:1] == ["--raw"]
    if raw:
        argv = argv[1:]
    if not argv:
        sys.exit(__doc__)
    lib = argv[0]
    linkmap = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(lib)), "libpasscode.linkmap")
    what = "libpasscode.so.0 stripped vs the bar"
    if not os.path.exists(lib):
        print("%-52s could not measure: %s does not exist (make lib)" % (what, lib))
        return
    with tempfile.TemporaryDirectory() as d:
        stripped = os.path.join(d, "lib.so")
        try:
            sh("strip", "-o", stripped, lib)
        except (OSError, subprocess.CalledProcessError) as e:
            print("%-52s could not measure: strip failed (%s)" % (what, e))
            return
        total = os.path.getsize(stripped)
        keep = file_sections(stripped)
    mb = total / 1e6
    if raw:
        print("total\t%d" % total)
    else:
        print("%-52s %10.2fMB %10.2fMB %8.3f  bar <= 1.0x: %s" % (what, mb, BAR_MB, mb / BAR_MB,
                                                                  "within" if mb <= BAR_MB else "MISSED"))
        print("%-52s %12s %12s %8s" % ("  its parts (baseline: the whole stripped file)", "part", "whole", "share"))
    if not os.path.exists(linkmap):
        if not raw:
            print("%-52s could not measure: no link map at %s (make lib writes it)" % ("  its parts", linkmap))
        return
    sizes = parts(linkmap, keep)
    sizes["linker's own (symbols, PLT, padding)"] = total - sum(sizes.values())
    for part, size in sizes.items():
        if raw:
            print("%s\t%d" % (part, size))
        else:
            print("%-52s %10.2fMB %10.2fMB %8.3f" % ("  " + part, size / 1e6, mb, size / total))


if __name__ == "__main__":
    main(sys.argv[1:])
