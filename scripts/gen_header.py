#!/usr/bin/env python3
"""Generate include/passcode.h from the Swift sources and the C types.

The Swift compiler writes a C header for every @c declaration (-emit-clang-header-path, set in
Package.swift). That header is full of Swift macros, sorts declarations by name, hands out
handles as `void *` and names enum cases `passcode_statusErrMisuse`. This script keeps the
compiler's declarations and doc comments and rewrites them into a plain C header:

  * declarations in the order of the Swift sources, grouped by the man page each function's `@c`
    line names (`@c(passcode_verify)  // man: passcode-verify`; the pages are PAGES in
    scripts/api_model.py, which reads the header back for every other generator);
  * `passcode_store *` / `passcode_options *` / `passcode_flow *` for handle parameters,
    chosen by parameter name (store, options, flow; out_store etc. become `**out`);
  * enum cases as PASSCODE_<ENUM>_<CASE> (status codes as PASSCODE_<CASE>);
  * Doxygen comments (@param, @return) in ASCII;
  * version macros read from the VERSION file;
  * the structs of Sources/libpasscode/Passcode/Types/types.h, copied as they are, and its enums, with
    their doc comments, without the macros that give them their Swift names;

  * each setting's stored name, default, values and weakening changes, asked of the built
    library (scripts/gen_lists.py), at the end of its doc.

usage: gen_header.py --library LIBPASSCODE_SO COMPILER_HEADER... > include/passcode.h
       gen_header.py --swift-cases > Sources/shared/PasscodeCore/PublicEnumCases.swift
         (each enum of types.h's list of cases for the Swift code, written before the build)
"""
import re
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import api_model  # noqa: E402
import gen_lists  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SWIFT_DIRS = [ROOT / "Sources" / "libpasscode" / "Passcode"]
# Files whose declarations come first, in this order; the rest follow by name.
FIRST = ["Version.swift", "Status.swift", "API.swift", "API+Lock.swift", "API+Flow.swift", "API+Reset.swift",
         "API+Account.swift", "API+Events.swift", "API+Callbacks.swift"]

HANDLES = {"store": "passcode_store", "options": "passcode_options", "flow": "passcode_flow",
           "list": "passcode_session_list", "log": "passcode_event_log", "screen": "passcode_lock_screen"}
# The C API's structs and enums, written in C (the Swift code uses them through this header):
# the text between its PUBLIC markers is copied into the generated header, its enums between the
# ENUMS markers are read by c_enums().
TYPES_HEADER = ROOT / "Sources" / "libpasscode" / "Passcode" / "Types" / "types.h"


def public_types():
    text = TYPES_HEADER.read_text()
    return text.split("/* PUBLIC BEGIN */\n", 1)[1].split("/* PUBLIC END */", 1)[0].rstrip("\n")


def comment_lines(text):
    """The lines of a /** */ comment, without the comment's marks."""
    text = text.strip()
    assert text.startswith("/**") and text.endswith("*/"), text
    body = text[3:-2]
    if "\n" not in body:
        return [body.strip()]
    return [re.sub(r"^\s*\* ?", "", l).rstrip() for l in body.split("\n")[1:-1]]


def c_enums():
    """The enums of types.h, in its order: [(name, swift_name, doc_lines, [(constant, value,
    swift_case, doc_lines)])]. Every enum and constant needs its doc comment and Swift name."""
    text = TYPES_HEADER.read_text().split("/* ENUMS BEGIN */\n", 1)[1].split("/* ENUMS END */", 1)[0]
    enums = []
    comment = r"(/\*\*(?:[^*]|\*(?!/))*\*/)"
    for m in re.finditer(comment + r"\s*typedef PASSCODE_CLOSED_ENUM\((\w+), (\w+)\) \{\n(.*?)\n\} (\w+);", text, re.S):
        doc, name, swift, body, typedef = m.groups()
        if typedef != name:
            sys.exit(f"gen_header.py: types.h: typedef name {typedef} differs from the enum's, {name}")
        cases = re.findall(r"\s*" + comment + r"\s*(\w+) PASSCODE_SWIFT_NAME\((\w+)\) = (-?\d+),?", body)
        if len(cases) != body.count("PASSCODE_SWIFT_NAME") or len(cases) != len(re.findall(r"^\s*PASSCODE_\w+", body, re.M)):
            sys.exit(f"gen_header.py: types.h: every constant of {name} needs a doc comment, its Swift name and its value")
        for _, const, _, _ in cases:
            if not const.startswith(name.upper() + "_"):
                sys.exit(f"gen_header.py: types.h: {const} does not start with {name.upper()}_")
        enums.append((name, swift, comment_lines(doc),
                      [(const, value, case, comment_lines(cdoc)) for cdoc, const, case, value in cases]))
    if len(enums) != text.count("PASSCODE_CLOSED_ENUM("):
        sys.exit("gen_header.py: types.h: an enum is not written as the others are (a doc comment, then "
                 "typedef PASSCODE_CLOSED_ENUM(name, SwiftName) { ... } name;)")
    return enums


def swift_cases():
    """Sources/shared/PasscodeCore/PublicEnumCases.swift: each C enum's cases, for Swift."""
    out = ["// GENERATED by scripts/gen_header.py from Sources/libpasscode/Passcode/Types/types.h. Do not edit: change",
           "// types.h and run `make header` (`make check-header` fails when this file is stale).",
           "// Every public C enum's cases in the header's order, for the Swift code: `allCases` and",
           "// `init(checked:)` (PublicEnums.swift), since a C enum's `init(rawValue:)` accepts any number.",
           "@_exported import CPasscodeTypes"]
    for name, swift, _, cases in c_enums():
        items = ", ".join("." + case for _, _, case, _ in cases)
        out += ["", f"extension {swift}: @retroactive CaseIterable {{",
                f"    public static let allCases: [{swift}] = [{items}]", "}"]
    return "\n".join(out) + "\n"


def snake_upper(name):
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    s = re.sub(r"(?<=[A-Za-z])(\d)", r"_\1", s)
    return s.upper()


def clean_doc_line(text):
    text = re.sub(r"</?code>", "", text)
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    text = text.replace("\u2014", "--").replace("\u2013", "-").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return text.encode("ascii", "replace").decode()


def doc_block(lines, indent="", renames=None):
    """Turns the compiler's /// lines into a /** */ comment."""
    renames = renames or {}
    out, pending_return = [], False
    for raw in lines:
        t = clean_doc_line(raw)
        if t.strip() == "":
            continue
        m = re.match(r"\s*\\param (\w+) ?(.*)", t)
        if m:
            name = renames.get(m.group(1), m.group(1))
            out.append(f"@param {name} {m.group(2)}".rstrip())
            continue
        if t.strip() == "returns:":
            pending_return = True
            continue
        if pending_return:
            out.append("@return " + t.strip())
            pending_return = False
            continue
        out.append(t.strip())
    if not out:
        return ""
    if len(out) == 1 and len(indent) + len(out[0]) < 92:
        return f"{indent}/** {out[0]} */\n"
    body = "\n".join(f"{indent} * {l}" if l else f"{indent} *" for l in out)
    return f"{indent}/**\n{body}\n{indent} */\n"


def parse_compiler_header(text):
    """Returns {name: ("enum"|"func", doc_lines, payload)}."""
    decls = {}
    lines = text.splitlines()
    i, doc = 0, []
    while i < len(lines):
        line = lines[i]
        if line.startswith("///"):
            doc.append(line[3:].lstrip(" ") if line.startswith("/// ") else line[3:])
            i += 1
            continue
        m = re.match(r"typedef SWIFT_ENUM_NAMED\((\w+), (\w+), \"\w+\", \w+\) \{", line)
        if m:
            ctype, name = m.group(1), m.group(2)
            cases, case_doc = [], []
            i += 1
            while not lines[i].startswith("};"):
                l = lines[i]
                if l.startswith("///"):
                    case_doc.append(l[4:] if l.startswith("/// ") else l[3:])
                else:
                    cm = re.match(r"\s+(\w+) = (-?\d+),?", l)
                    if cm:
                        cases.append((cm.group(1), cm.group(2), case_doc))
                        case_doc = []
                i += 1
            decls[name] = ("enum", doc, (ctype, cases))
            doc = []
            i += 1
            continue
        m = re.match(r"SWIFT_EXTERN (.+?) (\w+)\((.*)\) SWIFT_NOEXCEPT", line)
        if m:
            decls[m.group(2)] = ("func", doc, (m.group(1), m.group(3)))
            doc = []
            i += 1
            continue
        if line.strip() == "" or not line.startswith("///"):
            doc = [] if line.strip() != "" else doc
        i += 1
    return decls


def strip_nullability(t):
    t = re.sub(r"\s*_Null(able|_unspecified)\b", "", t)
    t = re.sub(r"\s*_Nonnull\b", "", t)
    t = re.sub(r"\b(char|uint8_t|uint32_t|int32_t|int64_t|uint64_t|void) const \*", r"const \1 *", t)
    t = t.replace("(* ", "(*")
    t = re.sub(r"\s+", " ", t).strip()
    while "* *" in t:
        t = t.replace("* *", "**")
    return t


def split_params(params):
    parts, depth, cur = [], 0, ""
    for ch in params:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def rewrite_param(p, renames):
    p = strip_nullability(p)
    if p == "void":
        return p
    if "(*" in p:  # a callback: keep as it is, drop the nullability only
        return p
    m = re.match(r"(.*?)(\w+)$", p)
    ctype, name = m.group(1).strip(), m.group(2)
    if name.startswith("out_") and name[4:] in HANDLES and ctype == "void **":
        renames[name] = "out"
        return f"{HANDLES[name[4:]]} **out"
    if name in HANDLES and ctype == "void *":
        return f"{HANDLES[name]} *{name}"
    if name == "out_":
        renames[name] = "out"
        name = "out"
    sep = "" if ctype.endswith("*") else " "
    return f"{ctype}{sep}{name}"


def swift_order():
    """[(c_name, page, where)] of every `@c` declaration in source order; page is the man page its
    `@c` line names (`@c(passcode_verify)  // man: passcode-verify`), "" where it names none."""
    files = []
    for d in SWIFT_DIRS:
        # Subfolders too, in the order of the file names alone, so that moving a file between
        # folders leaves the header as it is.
        paths = {p.name: p for p in d.rglob("*.swift")}
        names = sorted(paths)
        ordered = [n for n in FIRST if n in names] + [n for n in names if n not in FIRST]
        files += [paths[n] for n in ordered]
    order = []
    for f in files:
        for number, line in enumerate(f.read_text().splitlines(), 1):
            if re.match(r"\s*@c\(", line):
                m = api_model.MAN_COMMENT.match(line)
                if not m:
                    sys.exit(f"gen_header.py: {f.relative_to(ROOT)}:{number}: write the @c line as "
                             "`@c(name)  // man: page`, nothing else on it")
                order.append((m.group(1), m.group(2) or "", f"{f.relative_to(ROOT)}:{number}"))
    return order


# Enums renamed in 0.7 (one name per vocabulary): new name -> old name. The old names stay as
# deprecated aliases (the type and every constant): the header's version rules (a minor release
# adds and never takes away) keep them until the next major version.
RENAMED = {"passcode_app_event": "passcode_event", "passcode_log_kind": "passcode_security_event"}


def aliases(name, cases_constants):
    """The deprecated old names of a renamed enum: a typedef and a #define per constant."""
    old = RENAMED[name]
    new_prefix, old_prefix = name.upper() + "_", old.upper() + "_"
    text = textwrap.wrap(f"Deprecated since 0.7: {old} is the old name of {name}, {old_prefix}* of its "
                         "constants. Kept for the programs that use them (a minor version only adds); removed "
                         "at the next major version.", 94)
    lines = ["\n/** @cond DEPRECATED */", "/* " + text[0]] + [" * " + l for l in text[1:]]
    lines[-1] += " */"
    lines.append(f"typedef {name} {old};")
    lines += [f"#define {old_prefix}{c[len(new_prefix):]} {c}" for c in cases_constants]
    return "\n".join(lines + ["/** @endcond */"])


def typed(doc, ret, plist, enums):
    """The header's types for a function: `passcode_status` for a status it returns, and the
    enum a by-value int32_t parameter takes ("A `passcode_x` value" in its doc). The ABI does not
    change: every enum is passed and returned as a 32-bit int."""
    kinds = {}
    returns = ""
    for i, line in enumerate(doc):
        m = re.match(r"\s*\\param (\w+) (?:A|An) (?:<code>)?(passcode_\w+?)(?:</code>)?(?: value)?\b", line)
        if m and m.group(2) in enums:
            kinds[m.group(1)] = m.group(2)
        if line.strip() == "returns:" and i + 1 < len(doc):
            returns = doc[i + 1]
    if ret == "int32_t" and re.search(r"PASSCODE_|status", returns):
        ret = "passcode_status"
    out = []
    for p in plist:
        m = re.match(r"int32_t (\w+)$", p)
        out.append(f"{kinds[m.group(1)]} {m.group(1)}" if m and m.group(1) in kinds else p)
    return ret, out


def group_open(page):
    """The Doxygen group (one man page) that a page's functions belong to."""
    _, what = api_model.PAGES[page]
    lines = textwrap.wrap(api_model.PAGE_TEXT.get(page, ""), 94)
    text = "".join(f" * {line}\n".replace(" * \n", " *\n") for line in [""] + lines) if lines else ""
    return (f"/**\n * @defgroup {page} {what}\n"
            " * `#include <passcode.h>`. The conventions every function here follows (statuses, handles,\n"
            " * ownership, threads) are in passcode(3); the security model is passcode(7).\n" + text + " * @{\n */")


def pages_of(order, decls):
    """{function: its page}, or the exit naming each function without a known page."""
    pages, problems = {}, []
    for name, page, where in order:
        if decls.get(name, ("",))[0] != "func":
            continue
        if not page:
            problems.append(f"{where}: {name} names no man page: write it on its @c line, "
                            f"`@c({name})  // man: passcode-<topic>`, one of PAGES in scripts/api_model.py")
        elif page not in api_model.PAGES:
            problems.append(f"{where}: {name}'s man page {page} is not one of PAGES in scripts/api_model.py "
                            "(add it there, with its section title and description)")
        pages[name] = page
    if problems:
        sys.exit("gen_header.py: " + "\ngen_header.py: ".join(problems))
    return pages


def check_model(text, order, pages):
    """scripts/api_model.py, which every other generator reads the API through, reads back from
    the header the functions, their order and their pages as they were written."""
    api = api_model.parse(text, "the generated header")
    written = [(n, pages[n]) for n, _, _ in order if n in pages]
    read = [(f.name, f.page) for f in api.functions]
    if read != written:
        sys.exit("gen_header.py: scripts/api_model.py reads the header differently from what was written: "
                 f"{[w for w in written if w not in read] or [r for r in read if r not in written] or 'the order'}")
    briefs = [(p.name, p.brief) for p in api.pages]
    if briefs != [(p, api_model.PAGES[p][1]) for p, _ in briefs]:
        sys.exit("gen_header.py: scripts/api_model.py reads the pages' descriptions differently from PAGES")


def version():
    return [int(n) for n in (ROOT / "VERSION").read_text().strip().split(".")]


def main(argv):
    if argv == ["--swift-cases"]:
        sys.stdout.write(swift_cases())
        return
    if len(argv) < 2 or argv[0] != "--library":
        sys.exit("usage: gen_header.py --library LIBPASSCODE_SO COMPILER_HEADER...")
    library, paths = argv[1], argv[2:]
    decls = {}
    for p in paths:
        decls.update(parse_compiler_header(Path(p).read_text()))
    major, minor, patch = version()
    out = [f"""/*
 * passcode.h -- libpasscode {major}.{minor}.{patch}: the passcode-lock engine, C API.
 *
 * GENERATED by scripts/gen_header.py from Sources/libpasscode/Passcode (its Swift sources and the C types of
 * Types/types.h). Do not edit: change their doc comments and run `make header`.
 * The comments are Doxygen's: `make docs` turns them into the man pages and the HTML reference.
 */
#ifndef PASSCODE_H
#define PASSCODE_H

#include <stddef.h>
#include <stdint.h>

/**
 * @defgroup passcode libpasscode: the passcode-lock engine, C API
 *
 * `#include <passcode.h>`; compile and link with `pkg-config --cflags --libs passcode`.
 *
 * One library holds all the logic of an app passcode lock: setting, changing, disabling and
 * removing the passcode, verifying it, locking after a time in the background, lockout after
 * failed attempts, biometric unlock as a policy decision, resets by emailed code, security
 * settings, device sessions, and a data key that only an unlock releases.
 *
 * @par Conventions
 *  - Every function that can fail returns a passcode_status (0 = PASSCODE_OK); parameters
 *    that take one of the enums below have its type. Both are passed as 32-bit ints.
 *    Outputs come through pointers named `out`. passcode_strerror() names a status;
 *    passcode_errmsg() gives the detailed message of a handle's last failure.
 *  - Handles (passcode_store, passcode_options, passcode_flow) are opaque, made by a _new or
 *    _open function and released by the matching _free or _close, which accept NULL. A closed
 *    or foreign handle is reported as PASSCODE_ERR_INVALID_HANDLE, never followed.
 *  - Passcodes and codes are passed as (const char *digits, size_t length): ASCII digits, not
 *    necessarily NUL-terminated. The library copies them into memory it wipes; wipe yours.
 *  - Strings returned by the library belong to it; never free them.
 *  - "A store error" in a function's description means one of: PASSCODE_ERR_CORRUPT (a
 *    damaged file, or a value in it outside its range: the message names it),
 *    PASSCODE_ERR_TAMPERED (with a pepper: the security state was edited outside libpasscode),
 *    PASSCODE_ERR_FULL, PASSCODE_ERR_READ_ONLY, PASSCODE_ERR_BUSY, PASSCODE_ERR_IO,
 *    PASSCODE_ERR_NO_MEM. After any of them the store is as it was.
 *  - Every call that reads the clock (the host's, with passcode_options_set_clock) may also
 *    return PASSCODE_ERR_CLOCK_OUT_OF_RANGE: a boot clock outside 0 to 2^61 - 1 ms or a wall
 *    clock outside -(2^61 - 1) to 2^61 - 1 ms is refused before anything is done.
 *  - A length is checked before its buffer is touched: a length no buffer can have (SIZE_MAX)
 *    is a status, never a crash. A flow of a closed store answers PASSCODE_ERR_MISUSE.
 *  - Threads: a passcode_store may be used from several threads at once. Options and flow
 *    objects must be used by one thread at a time.
 *
 * @par The functions, by page
{{SECTION_LIST}}
 *
 * @par See also
 * passcode(7), the security model: what the passcode, the data key, the pepper and the TPM
 * protect against, and what they do not.
 * @{{
 */

/** The major version of this header: a new one changes the ABI (libpasscode.so.{major}). */
#define PASSCODE_VERSION_MAJOR {major}
/** The minor version of this header: new functions or values, old ones unchanged. */
#define PASSCODE_VERSION_MINOR {minor}
/** The patch version of this header: fixes only. */
#define PASSCODE_VERSION_PATCH {patch}
/** major * 10000 + minor * 100 + patch; compare with passcode_version_number(). */
#define PASSCODE_VERSION_NUMBER (PASSCODE_VERSION_MAJOR * 10000 + PASSCODE_VERSION_MINOR * 100 + PASSCODE_VERSION_PATCH)
/** The version as text, "major.minor.patch"; compare with passcode_version_string(). */
#define PASSCODE_VERSION_STRING "{major}.{minor}.{patch}"

#ifdef __cplusplus
extern "C" {{
#endif

/** A store: one SQLite file holding the passcode hash, settings and lock state. */
typedef struct passcode_store passcode_store;
/** Options for passcode_open(). */
typedef struct passcode_options passcode_options;
/** An entry flow (unlock, create, change, disable, reset) fed with key presses. */
typedef struct passcode_flow passcode_flow;
/** A snapshot of the device sessions, from passcode_session_list_new(). */
typedef struct passcode_session_list passcode_session_list;
/** A snapshot of the security event log, from passcode_event_log_new(). */
typedef struct passcode_event_log passcode_event_log;
"""]
    out.append("\n" + public_types())
    seen = set()
    undocumented = []
    order = swift_order()
    pages = pages_of(order, decls)
    # Every enum as (name, doc, [(constant, value, doc)]): the Swift ones of Sources/libpasscode/Passcode
    # (the status and the cost), then those of types.h, in its order.
    all_enums = []
    for name in dict.fromkeys(v for v, _, _ in order if decls.get(v, ("",))[0] == "enum"):
        _, doc, (_, cases) = decls[name]
        prefix = "PASSCODE_" if name == "passcode_status" else name.upper() + "_"
        all_enums.append((name, doc, [(prefix + snake_upper(c[len(name)].upper() + c[len(name) + 1:]), v, d)
                                      for c, v, d in cases]))
    all_enums += [(name, doc, [(const, value, d) for const, value, _, d in cases])
                  for name, _, doc, cases in c_enums()]
    enums = [name for name, _, _ in all_enums]
    for name, doc, cases in all_enums:
        seen.add(name)
        if name == "passcode_setting":  # each setting's facts, from its definition in the library
            constants = {int(v): c for c, v, _ in cases}
            enums_so_far = {e: [(c, int(v), "") for c, v, _ in ecases]
                            for e, _, ecases in all_enums if e != "passcode_status"}
            docs = {int(v): " ".join(d) for c, v, d in cases}
            facts = gen_lists.setting_lines(gen_lists.load(library), constants,
                                            gen_lists.value_names(docs, enums_so_far))
            cases = [(c, v, d + textwrap.wrap(facts[c], 88)) for c, v, d in cases]
        out.append("\n" + doc_block(doc) + f"typedef enum {name} {{")
        if not doc:
            undocumented.append(name)
        for const, value, cdoc in cases:
            if not cdoc:
                undocumented.append(const)
            block = doc_block(cdoc, indent="    ")
            out.append(block.rstrip("\n") if block else None)
            out.append(f"    {const} = {value},")
        if name == "passcode_status":  # a negative value keeps the type a signed int, as int32_t was
            out.append("    /** Not a status: makes passcode_status a signed int in C and C++, so that code mixing it\n"
                       "     *  with int32_t compares as before (-Wsign-compare). */")
            out.append("    PASSCODE_STATUS_SIGNED_ = (-0x7fffffff - 1),")
        out[-1] = out[-1].rstrip(",")
        out.append(f"}} {name};")
        if name in RENAMED:
            out.append(aliases(name, [c for c, _, _ in cases]))
        out = [l for l in out if l is not None]
    out.append("\n/** @} */")
    page_open, closed = None, set()
    for name, _, where in order:
        if name in seen or name not in pages:
            continue
        seen.add(name)
        if pages[name] != page_open:  # a page's functions are together, in source order
            if pages[name] in closed:
                sys.exit(f"gen_header.py: {where}: {name} is on {pages[name]}, whose functions came before "
                         f"others: keep a page's functions together (files in the order of FIRST, then by name)")
            if page_open:
                out.append("\n/** @} */")
                closed.add(page_open)
            title = api_model.PAGES[pages[name]][0]
            out.append(f"\n/* ---- {title} " + "-" * max(3, 88 - len(title)) + " */")
            out.append(group_open(pages[name]))
            page_open = pages[name]
        _, doc, (ret, params) = decls[name]
        if not doc:
            undocumented.append(name)
        renames = {}
        plist = [rewrite_param(p, renames) for p in split_params(params)] or ["void"]
        ret, plist = typed(doc, strip_nullability(ret), plist, set(enums))
        sep = "" if ret.endswith("*") else " "
        out.append("\n" + doc_block(doc, renames=renames) + f"{ret}{sep}{name}({', '.join(plist)});")
    if page_open:
        out.append("\n/** @} */")
    if undocumented:
        sys.exit(f"gen_header.py: every declaration needs a doc comment; missing on: {undocumented}")
    missing = [n for n in decls if n not in seen]
    if missing:
        sys.exit(f"gen_header.py: declarations missing from the Swift order: {missing}")
    out.append("""
#ifdef __cplusplus
}
#endif

#endif /* PASSCODE_H */""")
    listing = "\n".join(f" *  - {page}(3): {what}" for page, (_, what) in api_model.PAGES.items())
    text = "\n".join(out).replace("{SECTION_LIST}", listing) + "\n"
    check_model(text, order, pages)
    sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
