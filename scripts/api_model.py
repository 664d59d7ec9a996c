#!/usr/bin/env python3
"""The one model of the C API: its man pages, functions, enums and statuses, read from
include/passcode.h in one place.

scripts/gen_header.py writes the header from Sources/libpasscode/Passcode (each `@c` function, its
doc comment and, on its `@c` line, the man page it belongs to: `@c(passcode_verify)  // man:
passcode-verify`, one of PAGES below) and checks that load() reads back what it wrote. Every
other generator takes the API from here and none parses the header itself: gen_abi.py (the
symbols file, _ffi.py's FUNCTIONS), gen_python_enums.py (_enums.py), gen_lists.py (the settings'
and statuses' lists, the tests' enum bounds), gen_doc_lists.py (README's API at a glance),
man_pages.py (passcode(3)'s list of pages) and gen_version_script.sh (the exports).

usage: api_model.py [HEADER]                   the model as JSON (`make header` writes build/api.json)
       api_model.py --version-script [HEADER]  the linker version script: the header's functions
                                               exported, everything else hidden
Python 3 standard library only; needs no build.
"""
import dataclasses
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = ROOT / "include" / "passcode.h"

# The man pages of the functions, in the header's order: page -> (the header's section title,
# the page's one-line description). A function names its page on its `@c` line in the Swift
# source (`// man: passcode-user`); gen_header.py fails on a function without one or with a page
# not listed here. `man passcode_user_state` opens its page, passcode-user(3).
PAGES = {
    "passcode-version": ("Version", "the library's version at run time"),
    "passcode-errors": ("Errors", "the text of a status"),
    "passcode-options": ("Options", "how a store is opened: cost, pepper, clock, busy timeout"),
    "passcode-stores": ("Stores", "opening and closing a store, and its last error"),
    "passcode-verify": ("Passcode", "setting, verifying, changing, disabling and removing the passcode"),
    "passcode-settings": ("Settings", "security settings, their bounds, choices and defaults"),
    "passcode-lock": ("Lock state and app lifecycle", "locking on launch, after the background, or on request"),
    "passcode-biometrics": ("Biometrics", "biometric unlock as a policy decision"),
    "passcode-flows": ("Entry flows", "the keypad screens: unlock, create, change, disable, reset"),
    "passcode-reset": ("Reset codes and forgot passcode", "forgot passcode and the emailed reset code"),
    "passcode-account": ("Account security", "password changes, device sessions, deleting the account"),
    "passcode-events": ("Security event log", "the log of unlocks, failures and changes"),
    "passcode-callbacks": ("Callbacks", "the host's callbacks and hooks"),
    "passcode-key": ("Data key and sealing", "the data key an unlock releases, sealing, the recovery key"),
    "passcode-messages": ("Messages", "every message a person may see: its code, its text in the host's language"),
    "passcode-tpm": ("TPM", "binding a store to a TPM 2.0"),
    "passcode-user": ("A user's store by uid", "a user's store named by uid: what pam_passcode(8) and passcodectl(8) call"),
}
# A page's own paragraph, where its functions share more than the conventions of passcode(3).
PAGE_TEXT = {
    "passcode-user": "Each call names a user by uid and reaches that user's store of the handle's app id, "
                     "kept by passcoded (pam_passcode(8) and passcodectl(8) use the app id `login`). They need "
                     "a handle in service mode (passcode_options_set_service); an embedded handle gets "
                     "PASSCODE_ERR_NOT_IN_SERVICE_MODE. Root may name any uid, any other caller only its own; "
                     "each function says what only root may do.",
}
# The comment on a function's `@c` line that names its page.
MAN_COMMENT = re.compile(r"^\s*@c\((\w+)\)\s*(?://\s*man:\s*([\w-]+)\s*)?$")


@dataclasses.dataclass(frozen=True)
class Param:
    text: str  # as the header writes it: "const char *digits"
    type: str  # "const char *"; a callback's signature without its name: "void (*)(void *)"
    name: str


@dataclasses.dataclass(frozen=True)
class Function:
    name: str
    ret: str  # "passcode_status", "const char *"
    params: tuple  # of Param; () for (void)
    doc: tuple  # the lines of its doc comment
    summary: str  # its first sentence
    deprecated: str  # the text of its @deprecated line, "" when it is not
    page: str  # its man page: "passcode-verify"


@dataclasses.dataclass(frozen=True)
class Case:
    name: str  # PASSCODE_ERR_MISUSE
    value: int
    doc: str  # its doc comment in one line


@dataclasses.dataclass(frozen=True)
class Enum:
    name: str  # passcode_status
    doc: str
    prefix: str  # of its constants: PASSCODE_ for the status, else PASSCODE_<NAME>_
    cases: tuple  # of Case, in the header's order (without the status's signedness sentinel)
    alias: str  # the deprecated old name that the header keeps (typedef and constants), or ""


@dataclasses.dataclass(frozen=True)
class Page:
    name: str  # passcode-verify
    brief: str
    functions: tuple  # names, in the header's order


@dataclasses.dataclass(frozen=True)
class Api:
    version: str
    pages: tuple
    functions: tuple  # every function, in the header's order
    enums: tuple

    def enum(self, name):
        return next(e for e in self.enums if e.name == name)

    @property
    def statuses(self):
        """The passcode_status cases: name, value, and the doc comment that describes it."""
        return self.enum("passcode_status").cases


def fail(message):
    sys.exit(f"api_model.py: {message}")


def flat(comment):
    """A doc comment's text (between /** and */) in one line."""
    return " ".join(line.strip(" *") for line in comment.strip().splitlines()).strip()


def comment_lines(comment):
    """A doc comment's text (between /** and */) as its lines, without the comment's marks."""
    if "\n" not in comment:
        return (comment.strip(),)
    return tuple(re.sub(r"^\s*\* ?", "", l).rstrip() for l in comment.split("\n")[1:-1])


def c_type(t):
    return re.sub(r"\s*\*", " *", t.strip()).replace("* *", "**").strip()


def param(text):
    if "(*" in text:
        return Param(text, re.sub(r"\(\*\s*\w*\s*\)", "(*)", text), re.search(r"\(\*\s*(\w*)\s*\)", text).group(1))
    m = re.match(r"(.*?)(\w+)$", text)
    return Param(text, c_type(m.group(1)), m.group(2))


def split_params(params):
    parts, depth, cur = [], 0, ""
    for ch in params:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return [] if parts == ["void"] else parts


PROTOTYPE = r"^([a-z][\w ]*?\s*\**)\s*(passcode_\w+)\((.*)\);$"
COMMENT = r"/\*\*((?:(?!\*/)[\s\S])*?)\*/"


def parse(text, source="include/passcode.h"):
    """The model of a header as scripts/gen_header.py writes it."""
    m = re.search(r'^#define PASSCODE_VERSION_STRING "([^"]+)"$', text, re.M)
    if not m:
        fail(f"{source}: no PASSCODE_VERSION_STRING")
    version = m.group(1)
    aliases = dict(re.findall(r"^typedef (passcode_\w+) (passcode_\w+);", text, re.M))
    enums = []
    for m in re.finditer(COMMENT + r"\s*typedef enum (passcode_\w+) \{([\s\S]*?)\} \2;", text):
        doc, name, body = m.groups()
        cases = re.findall(r"(?:" + COMMENT + r"\s*)?(PASSCODE_\w+) = (-?\d+)", body)
        prefix = "PASSCODE_" if name == "passcode_status" else name.upper() + "_"
        enums.append(Enum(name, flat(doc), prefix, tuple(Case(c, int(v), flat(d)) for d, c, v in cases),
                          aliases.get(name, "")))
    if len(enums) != len(re.findall(r"^typedef enum ", text, re.M)):
        fail(f"{source}: an enum without its doc comment, or not closed by its own name")
    pages, functions = [], []
    for m in re.finditer(r"@defgroup (passcode-[\w-]+) ([^\n]*)\n([\s\S]*?)/\*\* @\} \*/", text):
        page, brief, body = m.group(1), m.group(2).strip(), m.group(3)
        names = []
        for f in re.finditer(COMMENT + r"\n" + PROTOTYPE, body, re.M):
            doc, ret, name, params = f.groups()
            lines = comment_lines(doc)
            summary = re.match(r"(.*?\.)(?=\s|$)|.*", flat(doc)).group(0)
            deprecated = next((l.strip()[len("@deprecated"):].strip() for l in lines if l.strip().startswith("@deprecated")), "")
            functions.append(Function(name, c_type(ret), tuple(param(p) for p in split_params(params)), lines,
                                      summary, deprecated, page))
            names.append(name)
        pages.append(Page(page, brief, tuple(names)))
    declared = [m.group(2) for m in re.finditer(PROTOTYPE, text, re.M)]
    if not declared:
        fail(f"{source}: no prototypes found")
    placed = [f.name for f in functions]
    if declared != placed:
        fail(f"{source}: declared outside every @defgroup page or without a doc comment: "
             f"{[n for n in declared if n not in placed]} (run make header)")
    return Api(version, tuple(pages), tuple(functions), tuple(enums))


_loaded = {}


def load(header=HEADER):
    """The model of include/passcode.h (or of the header at `header`)."""
    path = Path(header)
    if path not in _loaded:
        _loaded[path] = parse(path.read_text(), str(path))
    return _loaded[path]


def version_script(api):
    return "\n".join(["{", "  global:"] + [f"    {f.name};" for f in api.functions]
                     + ["  local: *;", "};"]) + "\n"


def main(argv):
    if argv[:1] == ["--version-script"]:
        sys.stdout.write(version_script(load(*argv[1:2])))
    elif not argv or not argv[0].startswith("-"):
        json.dump(dataclasses.asdict(load(*argv[:1])), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
