#!/usr/bin/env python3
"""The message table (Sources/libpasscode/Passcode/Types/messages.txt) and what is made from it.

Every message libpasscode and pam_passcode may show a person is one row of the table: a stable
code, a name, its English text (with its plural when a number is in it). From it this writes:
  - the enum passcode_message between the MESSAGES markers of types.h (gen_header.py then copies
    it into include/passcode.h, PublicEnumCases.swift and python/passcode/_enums.py);
  - Sources/shared/PasscodeCore/Policy/Messages.generated.swift, each message's English text;
  - po/libpasscode.pot and po/pam_passcode/pam_passcode.pot, the templates of the translations
    (xgettext has no Swift mode, so the table is the one place a script extracts them from).

    gen_messages.py            write them all (make header)
    gen_messages.py --check    exit 1 naming each file that is not what the table makes, and each
                               row without a code, a name or a text (make check-header)
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "Sources" / "libpasscode" / "Passcode" / "Types" / "messages.txt"
TYPES = ROOT / "Sources" / "libpasscode" / "Passcode" / "Types" / "types.h"
SWIFT = ROOT / "Sources" / "shared" / "PasscodeCore" / "Policy" / "Messages.generated.swift"
POTS = {"libpasscode": ROOT / "po" / "libpasscode.pot", "pam_passcode": ROOT / "po" / "pam_passcode" / "pam_passcode.pot"}
BEGIN, END = "/* MESSAGES BEGIN */\n", "/* MESSAGES END */\n"


class Row:
    def __init__(self, code, name, domain, text, plural, notes, line):
        self.code, self.name, self.domain = code, name, domain
        self.text, self.plural, self.notes, self.line = text, plural, notes, line

    @property
    def swift(self):
        first, *rest = self.name.lower().split("_")
        return first + "".join(p.capitalize() for p in rest)


def load(path=TABLE):
    """The rows, in the table's order; exits naming the line of a row it cannot read."""
    rows, notes, domain, problems = [], [], None, []
    for n, line in enumerate(path.read_text().split("\n"), 1):
        if line.startswith("#."):
            notes.append(line[2:].strip())
            continue
        if not line.strip() or line.startswith("#"):
            notes = [] if not line.strip() else notes
            continue
        m = re.fullmatch(r"\[(\w+)\]", line.strip())
        if m:
            domain = m.group(1)
            if domain not in POTS:
                problems.append(f"{path.name}:{n}: unknown domain [{domain}]")
            continue
        m = re.fullmatch(r"(\d+)\s+([A-Z][A-Z0-9_]*)(?:\s+(.*))?", line)
        if not m or domain is None:
            problems.append(f"{path.name}:{n}: a row is CODE NAME TEXT after a [domain] line: {line!r}")
            continue
        code, name, text = int(m.group(1)), m.group(2), (m.group(3) or "").strip()
        singular, _, plural = text.partition(" | ")
        if code != 0 and not singular:
            problems.append(f"{path.name}:{n}: {name} has no text")
        if plural and ("%d" not in singular or "%d" not in plural):
            problems.append(f"{path.name}:{n}: {name}: a text with a plural has %d in both forms")
        if re.search(r"%(?!d)", singular + plural) or singular.count("%d") > 1:
            problems.append(f"{path.name}:{n}: {name}: %d, once, is the only conversion a message may hold")
        rows.append(Row(code, name, domain, singular, plural or None, notes, n))
        notes = []
    seen_codes, seen_names = {}, {}
    for r in rows:
        if r.code in seen_codes:
            problems.append(f"{path.name}:{r.line}: code {r.code} is also {seen_codes[r.code]}'s")
        if r.name in seen_names:
            problems.append(f"{path.name}:{r.line}: {r.name} is written twice")
        seen_codes[r.code], seen_names[r.name] = r.name, r.line
    if problems:
        sys.exit("gen_messages.py: " + "\n  ".join(problems))
    return rows


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def enum_text(rows):
    out = ["/**",
           " * Every message libpasscode may show a person, with a stable code: a host with its own",
           " * translations shows its text for the code, and passcode_message_text() gives the library's,",
           " * in the host's language. GENERATED from Types/messages.txt by scripts/gen_messages.py.",
           " * Values are only ever appended; the PAM_ ones (500 on) are pam_passcode(8)'s.",
           " */",
           "typedef PASSCODE_CLOSED_ENUM(passcode_message, Message) {"]
    for i, r in enumerate(rows):
        if r.code == 0:
            doc = "No message."
        else:
            doc = '"' + r.text.replace("*/", "* /") + '"' + (" (%d: the number)" if "%d" in r.text else "")
            if r.notes:
                doc += ": " + " ".join(r.notes)
        comma = "," if i < len(rows) - 1 else ""
        out.append(f"    /** {doc} */")
        out.append(f"    PASSCODE_MESSAGE_{r.name} PASSCODE_SWIFT_NAME({r.swift}) = {r.code}{comma}")
    out.append("} passcode_message;")
    return "\n".join(out) + "\n"


def types_text(rows):
    text = TYPES.read_text()
    if BEGIN not in text or END not in text:
        sys.exit("gen_messages.py: types.h has no MESSAGES BEGIN / END markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + BEGIN + enum_text(rows) + END + tail


def swift_text(rows):
    out = ["// GENERATED by scripts/gen_messages.py from Sources/libpasscode/Passcode/Types/messages.txt. Do not",
           "// edit: change the table and run `make header` (`make check-header` fails when this file is stale).",
           "",
           "extension Message {",
           "    /// The English text (gettext's msgid) and its plural (msgid_plural; nil when the text has no",
           "    /// number): where the number goes, `%d`.",
           "    public var english: (singular: StaticString, plural: StaticString?) {",
           "        switch self {"]
    for r in rows:
        plural = c_string(r.plural) if r.plural else "nil"
        out.append(f"        case .{r.swift}: return ({c_string(r.text)}, {plural})")
    out += ["        }", "    }", "",
            "    /// The gettext domain the message is translated in: false libpasscode's, true pam_passcode's.",
            "    public var isPAM: Bool {",
            "        switch self {"]
    pam = [r for r in rows if r.domain == "pam_passcode"]
    if pam:
        out.append("        case " + ", ".join("." + r.swift for r in pam) + ": return true")
    out += ["        default: return false", "        }", "    }", "}"]
    return "\n".join(out) + "\n"


def po_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def pot_text(rows, domain):
    out = ["# The messages of " + ("libpasscode" if domain == "libpasscode" else "pam_passcode(8)") +
           " a person may see. GENERATED by scripts/gen_messages.py",
           "# from Sources/libpasscode/Passcode/Types/messages.txt; do not edit (make header).",
           "#, fuzzy",
           'msgid ""',
           'msgstr ""',
           '"Project-Id-Version: libpasscode\\n"',
           '"Report-Msgid-Bugs-To: \\n"',
           '"Language: \\n"',
           '"MIME-Version: 1.0\\n"',
           '"Content-Type: text/plain; charset=UTF-8\\n"',
           '"Content-Transfer-Encoding: 8bit\\n"',
           '"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n"']
    by_text = {}
    for r in rows:
        if r.domain == domain and r.code != 0:
            by_text.setdefault((r.text, r.plural), []).append(r)
    for (text, plural), same in by_text.items():
        out.append("")
        for r in same:
            out += [f"#. {note}" for note in r.notes]
            out.append(f"#. PASSCODE_MESSAGE_{r.name} ({r.code})")
        out.append("#: " + " ".join(f"Sources/libpasscode/Passcode/Types/messages.txt:{r.line}" for r in same))
        if "%d" in text:
            out.append("#, c-format")
        if plural:
            out += [f"msgid {po_string(text)}", f"msgid_plural {po_string(plural)}", 'msgstr[0] ""', 'msgstr[1] ""']
        else:
            out += [f"msgid {po_string(text)}", 'msgstr ""']
    return "\n".join(out) + "\n"


def outputs(rows):
    files = {TYPES: types_text(rows), SWIFT: swift_text(rows)}
    for domain, path in POTS.items():
        files[path] = pot_text(rows, domain)
    return files


def main(argv):
    rows = load()
    files = outputs(rows)
    if argv[:1] == ["--check"]:
        stale = [str(p.relative_to(ROOT)) for p, text in files.items() if not p.exists() or p.read_text() != text]
        if stale:
            print("gen_messages.py: not what the message table makes (run make header): " + ", ".join(stale))
            return 1
        print(f"gen_messages.py: {len(rows) - 1} messages, each with a code; types.h, Messages.generated.swift "
              f"and the .pot files are the table's")
        return 0
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            print(f"gen_messages.py: wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
