#!/usr/bin/env python3
"""Generate include/passcode.h from the Swift sources.

The Swift compiler writes a C header for every @c declaration (-emit-clang-header-path, set in
Package.swift). That header is full of Swift macros, sorts declarations by name, hands out
handles as `void *` and names enum cases `passcode_statusErrMisuse`. This script keeps the
compiler's declarations and doc comments and rewrites them into a plain C header:

  * declarations in the order of the Swift sources, grouped by their `// MARK: -` sections;
  * `passcode_store *` / `passcode_options *` / `passcode_flow *` for handle parameters,
    chosen by parameter name (store, options, flow; out_store etc. become `**out`);
  * enum cases as PASSCODE_<ENUM>_<CASE> (status codes as PASSCODE_<CASE>);
  * Doxygen comments (@param, @return) in ASCII;
  * version macros read from the VERSION file;
  * the structs of Sources/CPasscodeTypes/types.h, copied as they are.

  * each setting's stored name, default, values and weakening changes, asked of the built
    library (scripts/gen_lists.py), at the end of its doc.

usage: gen_header.py --library LIBPASSCODE_SO COMPILER_HEADER... > include/passcode.h
"""
import re
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_lists  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SWIFT_DIRS = [ROOT / "Sources" / "Passcode", ROOT / "Sources" / "PasscodeCore"]
# Files whose declarations come first, in this order; the rest follow by name.
FIRST = ["Version.swift", "Status.swift", "API.swift", "API+Lock.swift", "API+Flow.swift", "API+Reset.swift",
         "API+Account.swift", "API+Events.swift", "API+Callbacks.swift"]

HANDLES = {"store": "passcode_store", "options": "passcode_options", "flow": "passcode_flow",
           "list": "passcode_session_list", "log": "passcode_event_log", "screen": "passcode_lock_screen"}
# The C API's structs, written in C (the Swift code fills them through this header): the text
# between its PUBLIC markers is copied into the generated header.
TYPES_HEADER = ROOT / "Sources" / "CPasscodeTypes" / "types.h"


def public_types():
    text = TYPES_HEADER.read_text()
    return text.split("/* PUBLIC BEGIN */\n", 1)[1].split("/* PUBLIC END */", 1)[0].rstrip("\n")


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
    """[(kind, value)]: ("mark", title) and ("decl", c_name) in source order."""
    files = []
    for d in SWIFT_DIRS:
        # Subfolders too (PasscodeCore/Policy, Store, ...), in the order of the file names alone
        # (a store part by its job: PasscodeStore+Events.swift as Events.swift), so that moving
        # or renaming a file between folders leaves the header as it is.
        paths = {p.name: p for p in d.rglob("*.swift")}
        names = sorted(paths, key=lambda n: n.removeprefix("PasscodeStore+"))
        ordered = [n for n in FIRST if n in names] + [n for n in names if n not in FIRST]
        files += [paths[n] for n in ordered]
    order = []
    for f in files:
        for line in f.read_text().splitlines():
            m = re.match(r"\s*// MARK: - (.+)", line)
            if m and f.parent.name == "Passcode":
                order.append(("mark", m.group(1).strip()))
            m = re.match(r"\s*@c\((\w+)\)", line)
            if m:
                order.append(("decl", m.group(1)))
    return order


# The man page (a Doxygen group) of each `// MARK: -` section of the Swift sources; every
# function's name opens its section's page (`man passcode_verify`).
SECTION_PAGES = {
    "Version": ("passcode-version", "the library's version at run time"),
    "Errors": ("passcode-errors", "the text of a status"),
    "Options": ("passcode-options", "how a store is opened: cost, pepper, clock, busy timeout"),
    "Stores": ("passcode-stores", "opening and closing a store, and its last error"),
    "Passcode": ("passcode-verify", "setting, verifying, changing, disabling and removing the passcode"),
    "Settings": ("passcode-settings", "security settings, their bounds, choices and defaults"),
    "Lock state and app lifecycle": ("passcode-lock", "locking on launch, after the background, or on request"),
    "Biometrics": ("passcode-biometrics", "biometric unlock as a policy decision"),
    "Entry flows": ("passcode-flows", "the keypad screens: unlock, create, change, disable, reset"),
    "Reset codes and forgot passcode": ("passcode-reset", "forgot passcode and the emailed reset code"),
    "Account security": ("passcode-account", "password changes, device sessions, deleting the account"),
    "Security event log": ("passcode-events", "the log of unlocks, failures and changes"),
    "Callbacks": ("passcode-callbacks", "the host's callbacks and hooks"),
    "Data key and sealing": ("passcode-key", "the data key an unlock releases, sealing, the recovery key"),
    "TPM": ("passcode-tpm", "binding a store to a TPM 2.0"),
}


# Enums renamed before 1.0 (one name per vocabulary): new name -> old name. The old names stay
# as deprecated aliases (the type and every constant) for one release.
RENAMED = {"passcode_app_event": "passcode_event", "passcode_log_kind": "passcode_security_event"}


def aliases(name, cases_constants):
    """The deprecated old names of a renamed enum: a typedef and a #define per constant."""
    old = RENAMED[name]
    new_prefix, old_prefix = name.upper() + "_", old.upper() + "_"
    lines = [f"\n/** @cond DEPRECATED */",
             f"/* Deprecated since 0.7.0, to be removed in 0.8.0: {old} is the old name of",
             f" * {name}, {old_prefix}* of its constants. */",
             f"typedef {name} {old};"]
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


def group_open(title):
    """The Doxygen group (one man page) that a section's functions belong to."""
    if title not in SECTION_PAGES:
        sys.exit(f"gen_header.py: the section '{title}' has no man page name in SECTION_PAGES")
    page, what = SECTION_PAGES[title]
    return (f"/**\n * @defgroup {page} {what}\n"
            " * `#include <passcode.h>`. The conventions every function here follows (statuses, handles,\n"
            " * ownership, threads) are in passcode(3); the security model is passcode(7).\n * @{\n */")


def version():
    return [int(n) for n in (ROOT / "VERSION").read_text().strip().split(".")]


def main(argv):
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
 * GENERATED by scripts/gen_header.py from the Swift sources (Sources/Passcode, and the @c
 * enums of Sources/PasscodeCore). Do not edit: change the Swift doc comments and run `make header`.
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
    enums = [v for k, v in order if k == "decl" and decls.get(v, ("",))[0] == "enum"]
    funcs = [(k, v) for k, v in order if k == "mark" or decls.get(v, ("",))[0] == "func"]
    for name in enums:
        if name in seen:
            continue
        seen.add(name)
        _, doc, (ctype, cases) = decls[name]
        prefix = "PASSCODE_" if name == "passcode_status" else name.upper() + "_"
        constant = lambda swift_case: prefix + snake_upper(swift_case[0].upper() + swift_case[1:])
        if name == "passcode_setting":  # each setting's facts, from its definition in the library
            constants = {int(v): constant(c[len(name):]) for c, v, _ in cases}
            enums_so_far = {e: [(pre + snake_upper(c[len(e):][0].upper() + c[len(e) + 1:]), int(v), "")
                                for c, v, _ in decls[e][2][1]]
                            for e, pre in ((e, e.upper() + "_") for e in enums if e != "passcode_status")}
            docs = {int(v): " ".join(d) for c, v, d in cases}
            facts = gen_lists.setting_lines(gen_lists.load(library), constants,
                                            gen_lists.value_names(docs, enums_so_far))
            cases = [(c, v, d + textwrap.wrap(facts[constant(c[len(name):])], 88)) for c, v, d in cases]
        out.append("\n" + doc_block(doc) + f"typedef enum {name} {{")
        if not doc:
            undocumented.append(name)
        for cname, value, cdoc in cases:
            swift_case = cname[len(name):]
            if not cdoc:
                undocumented.append(cname)
            block = doc_block(cdoc, indent="    ")
            out.append(block.rstrip("\n") if block else None)
            out.append(f"    {constant(swift_case)} = {value},")
        if name == "passcode_status":  # a negative value keeps the type a signed int, as int32_t was
            out.append("    /** Not a status: makes passcode_status a signed int in C and C++, so that code mixing it\n"
                       "     *  with int32_t compares as before (-Wsign-compare). */")
            out.append("    PASSCODE_STATUS_SIGNED_ = (-0x7fffffff - 1),")
        out[-1] = out[-1].rstrip(",")
        out.append(f"}} {name};")
        if name in RENAMED:
            out.append(aliases(name, [constant(c[len(name):]) for c, _, _ in cases]))
        out = [l for l in out if l is not None]
    out.append("\n/** @} */")
    pending_mark, open_group = None, False
    for kind, name in funcs:
        if kind == "mark":
            pending_mark = name
            continue
        if name in seen:
            continue
        seen.add(name)
        if pending_mark:
            if open_group:
                out.append("\n/** @} */")
            out.append(f"\n/* ---- {pending_mark} " + "-" * max(3, 88 - len(pending_mark)) + " */")
            out.append(group_open(pending_mark))
            pending_mark, open_group = None, True
        _, doc, (ret, params) = decls[name]
        if not doc:
            undocumented.append(name)
        renames = {}
        plist = [rewrite_param(p, renames) for p in split_params(params)] or ["void"]
        ret, plist = typed(doc, strip_nullability(ret), plist, set(enums))
        sep = "" if ret.endswith("*") else " "
        out.append("\n" + doc_block(doc, renames=renames) + f"{ret}{sep}{name}({', '.join(plist)});")
    if open_group:
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
    listing = "\n".join(f" *  - {page}(3): {what}" for page, what in SECTION_PAGES.values())
    sys.stdout.write("\n".join(out).replace("{SECTION_LIST}", listing) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
