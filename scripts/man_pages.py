#!/usr/bin/env python3
"""make docs, after Doxygen: the Markdown pages become man pages of their own section, and
passcode(3) reads as a library's overview page does (libcurl(3)).

  * docs/passcode.7.md, docs/passcode-tpm.7.md, docs/passcoded.8.md and docs/passcode-service.3.md
    come out of Doxygen as section-3 pages named by their label; each becomes NAME (its one name
    line), DESCRIPTION, its topics, SEE ALSO, in the section its file name says.
  * The section-8 pages (pam_passcode(8), passcodectl(8), passcoded(8)) are written with the
    sections an administrator looks for (## Synopsis, ## Description, ## Options, ## Examples,
    ## Files): their Doxygen headings become SYNOPSIS, DESCRIPTION, ... (every .SH in capitals), and
    no DESCRIPTION is added before SYNOPSIS. Inline code is never broken at a hyphen. Their code blocks are printed as written: Doxygen
    leaves a backslash and a line's leading quote to troff, which would read them as an escape and
    a request; and an inline code span's double quotes, which Doxygen makes single ones, are put
    back from the Markdown source. (Tests/docs/commands.py checks every command against its source.)
  * passcode(3): NAME, a SYNOPSIS of the include and the link line, DESCRIPTION (the overview, the
    conventions, the functions by page as scripts/api_model.py reads them, then the service-mode
    page), then the types, macros and enumerations documented one by one; the SYNOPSIS dumps of
    macros and enums go, and so does the sentinel that keeps passcode_status a signed int
    (PASSCODE_STATUS_SIGNED_), which is no value a caller sees.

usage: man_pages.py DOCS-DIR   (build/docs)
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import api_model  # noqa: E402

# label (Doxygen's page name) -> (name, section, the NAME line's description, SEE ALSO)
PAGES = {
    "passcode-security": ("passcode", 7, "the security model of libpasscode",
                          ["passcode(3)", "passcode-tpm(7)", "passcoded(8)", "passcode_open(3)", "passcode_verify(3)",
                           "passcode_setting_set(3)"]),
    "tpm-binding": ("passcode-tpm", 7, "binding a libpasscode store to the TPM",
                    ["passcode(7)", "passcode_tpm_bind(3)", "passcode_options_set_tpm(3)", "passcoded(8)",
                     "tpm2_getcap(1)"]),
    "passcoded-service": ("passcoded", 8, "libpasscode's store service on the system bus",
                          ["passcode-service(3)", "passcode(7)", "passcode(3)", "busctl(1)"]),
    "pam-passcode": ("pam_passcode", 8, "the passcode of a user's login store as a PAM module",
                     ["passcodectl(8)", "passcoded(8)", "passcode-user(3)", "pam(8)", "pam-auth-update(8)"]),
    "passcodectl": ("passcodectl", 8, "a user's login passcode as passcoded keeps it",
                    ["pam_passcode(8)", "passcoded(8)", "passcode-user(3)", "faillock(8)"]),
    "passcode-service": ("passcode-service", 3, "the C API in service mode, over passcoded",
                         ["passcode(3)", "passcode_options_set_service(3)", "passcode-user(3)", "passcoded(8)",
                          "passcode(7)"]),
}


def see_also(refs):
    items = []
    for ref in refs:
        name, section = re.match(r"(.*)\((\d)\)", ref).groups()
        items.append(f"\\fB{name}\\fP({section})")
    return ['.SH "SEE ALSO"', ", ".join(items)]


def markdown_source(label):
    """The docs/*.md file whose page is {#label}."""
    for md in sorted(Path(__file__).resolve().parents[1].glob("docs/*.md")):
        if "{#" + label + "}" in md.read_text():
            return md
    sys.exit(f"man_pages.py: no docs/*.md holds the page {{#{label}}}")


def code_as_written(lines, label):
    """The code of an administrator's page as its source writes it (see the module's docstring)."""
    out, nofill = [], False
    for line in lines:
        if line == ".nf":
            nofill = True
        elif line == ".fi":
            nofill = False
        elif nofill:
            line = re.sub(r"\\(?!&)", r"\\e", line)
            if line.startswith("'"):
                line = "\\&" + line
        out.append(line)
    text = "\n".join(out)
    prose = re.sub(r"^ *```.*?^ *```", "", markdown_source(label).read_text(), flags=re.S | re.M)
    for para in re.split(r"\n\s*\n", prose):
        for m in re.finditer(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", para, flags=re.S):
            span = " ".join(m.group(2).split())
            if '"' not in span:
                continue
            roff = span.replace(".", "\\&.")
            text = text.replace("\\fC" + roff.replace('"', "'") + "\\fP", "\\fC" + roff + "\\fP")
    # troff breaks a line after a hyphen: pam-auth-update would be copied as "pam-auth- update".
    # \% at the start of a word (only there: inside one it is a place to hyphenate) keeps a word
    # that holds inline code whole.
    out, nofill, code = [], False, False
    for line in text.split("\n"):
        if line in (".nf", ".fi"):
            nofill = line == ".nf"
        if nofill or line.startswith("."):
            out.append(line)
            continue
        words = []
        for word in line.split(" "):
            has_code = code or "\\fC" in word
            for m in re.finditer(r"\\f[CPBIR]", word):
                code = m.group(0) == "\\fC"
            words.append("\\%" + word if has_code and "-" in word else word)
        out.append(" ".join(words))
    return out


def page(docs, label, name, section, description, refs):
    source = docs / "man" / "man3" / f"{label}.3"
    lines = source.read_text().splitlines()
    admin = section == 8
    if admin:
        lines = code_as_written(lines, label)
    own_synopsis = '.SH "Synopsis"' in lines
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(".TH "):
            line = re.sub(r'^\.TH "[^"]*" 3', f'.TH "{name}" {section}', line)
        if line == ".SH NAME":
            out += [line, f"{name} \\- {description}"] + ([] if own_synopsis else [".SH DESCRIPTION"])
            i += 2  # Doxygen's NAME line (the label and the title)
            if own_synopsis:  # nothing but blank lines and paragraph breaks before it
                while lines[i] != '.SH "Synopsis"':
                    if lines[i].strip() not in ("", ".PP"):
                        sys.exit(f"man_pages.py: {label}: text before its Synopsis: {lines[i]!r}")
                    i += 1
            continue
        if admin and line.startswith(".SH ") and line != ".SH NAME":
            line = ".SH " + line[4:].upper()
        if line.startswith('.SH "See also"') or line.startswith('.SH "SEE ALSO"'):
            break  # the page's own list, replaced by the one below
        out.append(line)
        i += 1
    while out and out[-1].startswith(".SH \"Author\"") is False and out[-1].strip() == "":
        out.pop()
    # Doxygen's "Author" section ends every page: it goes, SEE ALSO is the last section.
    text = "\n".join(out)
    text = re.sub(r'\n\.SH "Author"\n.*\Z', "", text, flags=re.S)
    text += "\n" + "\n".join(see_also(refs)) + "\n"
    target = docs / "man" / f"man{section}" / f"{name}.{section}"
    target.parent.mkdir(parents=True, exist_ok=True)
    if target != source:
        source.unlink()
    target.write_text(text)


def sections(text):
    """[(heading line or '', body lines)] split at .SH."""
    out = [["", []]]
    for line in text.splitlines():
        if line.startswith(".SH "):
            out.append([line, []])
        else:
            out[-1][1].append(line)
    return out


def library_page(docs):
    path = docs / "man" / "man3" / "passcode.3"
    parts = sections(path.read_text())
    by = {h: body for h, body in parts}
    head = parts[0][1]
    name = by[".SH NAME"]
    synopsis = by[".SH SYNOPSIS"]
    # Keep the data structures and typedefs of the synopsis (what a caller declares); the macros
    # and the enums are documented one by one below.
    kept, keep = [], False
    for line in synopsis:
        if line.startswith(".SS "):
            keep = line in ('.SS "Data Structures"', '.SS "Typedefs"')
        if keep:
            kept.append(line)
    new_synopsis = [".nf", "\\fB#include <passcode.h>\\fP", "",
                    "cc \\fIprogram.c\\fP $(pkg-config \\-\\-cflags \\-\\-libs passcode)", ".fi"] + kept
    description = by['.SH "Detailed Description"']
    out = head + [".SH NAME"] + name + [".SH SYNOPSIS"] + new_synopsis + [".SH DESCRIPTION"] + description
    for h, body in parts[1:]:
        if h in (".SH NAME", ".SH SYNOPSIS", '.SH "Detailed Description"', '.SH "Author"'):
            continue
        out += [h] + body
    text = "\n".join(out) + "\n"
    # The sentinel: its line in an enum's list, and its entry where the enum is documented.
    text = re.sub(r"\n\.TP\n\\fB\\fIPASSCODE_STATUS_SIGNED_\\fP\s*\\fP\n[^\n]*\n", "\n", text)
    text = "\n".join(l for l in text.splitlines() if "PASSCODE_STATUS_SIGNED_" not in l) + "\n"
    # The functions by page (scripts/api_model.py's pages, in the header's order): the service-mode
    # page is a page too, after the last.
    last = re.compile(r"^" + re.escape(api_model.load().pages[-1].name) + r"\(3\): .*$", re.M)
    if not last.search(text):
        sys.exit(f"man_pages.py: passcode(3) has no {api_model.load().pages[-1].name}(3) line to add the service-mode page after")
    text = last.sub(lambda m: m.group(0) + "\n.IP \"\\(bu\" 2\npasscode-service(3): the same calls in service mode, over passcoded(8)",
                    text, count=1)
    text = re.sub(r"(\\fBSee also\\fP\n\.RS 4\n)(.*?)\n\.RE", lambda m: m.group(1) + m.group(2).rstrip()
                  + "\n.br\npasscode-tpm(7): binding a store to the TPM\\&.\n.br\n"
                  "passcoded(8) and passcode-service(3): the service, and the same calls over it\\&.\n.RE", text, count=1, flags=re.S)
    path.write_text(text)
    if "PASSCODE_STATUS_SIGNED_" in text:
        sys.exit("man_pages.py: passcode(3) still shows PASSCODE_STATUS_SIGNED_")


def main(argv):
    docs = Path(argv[0] if argv else "build/docs")
    for label, (name, section, description, refs) in PAGES.items():
        page(docs, label, name, section, description, refs)
    library_page(docs)


if __name__ == "__main__":
    main(sys.argv[1:])
