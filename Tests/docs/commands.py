#!/usr/bin/env python3
"""Part of make check-docs: a command copied from the administrator's pages (pam_passcode(8),
passcodectl(8), passcoded(8)) is the command their Markdown source gives, byte for byte, in the
man page as `man` prints it and in the HTML.

  * Every line of a fenced code block of docs/<page>.8.md is a line of `man -l`'s text, all the
    block's lines in a row at one indentation (the man page's own), and the block is one of the
    page's HTML code fragments, line for line.
  * Every inline code span (`...`) of the source is the text of a <code> element of the HTML, and
    stands in `man -l`'s text (its spaces and line breaks taken as one space) with no letter,
    digit or backtick glued to either end, so that a span the renderer misread (a command run
    into the next word, a stray backtick, "--" made a dash) is caught.

No root, no network: only `man` and the files `make docs` wrote.

usage: Tests/docs/commands.py [DOCS-DIR]   (default build/docs)
"""
import html
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Markdown source -> (man page, HTML page: the label Doxygen names the page by)
PAGES = {
    "docs/pam_passcode.8.md": ("man8/pam_passcode.8", "pam-passcode.html"),
    "docs/passcodectl.8.md": ("man8/passcodectl.8", "passcodectl.html"),
    "docs/passcoded.8.md": ("man8/passcoded.8", "passcoded-service.html"),
}
FENCE = re.compile(r"^( *)(```+|~~~+)")


def source_parts(text):
    """(fenced blocks as lists of lines, the text outside them)."""
    blocks, prose, lines, i = [], [], text.splitlines(), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            prose.append(lines[i])
            i += 1
            continue
        indent, fence = len(m.group(1)), m.group(2)
        block, i = [], i + 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            line = lines[i]
            block.append(line[indent:] if line[:indent].strip() == "" else line)
            i += 1
        blocks.append(block)
        prose.append("")  # a block ends a paragraph
        i += 1
    return blocks, "\n".join(prose)


def inline_spans(prose):
    """The inline code spans of the prose, whitespace taken as one space (CommonMark), within a
    paragraph (no span crosses a blank line)."""
    spans = []
    for para in re.split(r"\n\s*\n", prose):
        for m in re.finditer(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", para, flags=re.S):
            spans.append(" ".join(m.group(2).split()))  # its ends' spaces are not seen
    return spans


def man_text(page):
    env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8", MAN_KEEP_FORMATTING="")
    env.pop("MAN_KEEP_FORMATTING")
    out = subprocess.run(["man", "-l", str(page)], capture_output=True, text=True, env=env, check=True).stdout
    return [line.rstrip() for line in out.splitlines()]


def man_has_block(rendered, block):
    first = block[0]
    for i, line in enumerate(rendered):
        if not line.endswith(first) or line[:len(line) - len(first)].strip():
            continue
        indent = line[:len(line) - len(first)]
        want = [(indent + b).rstrip() for b in block]
        if rendered[i:i + len(block)] == want:
            return True
    return False


def strip_tags(s):
    return html.unescape(re.sub(r"<[^>]+>", "", s))


def html_fragments(page_html):
    frags = []
    for frag in re.findall(r'<div class="fragment">(.*?)</div><!-- fragment -->', page_html, flags=re.S):
        frags.append([strip_tags(line).rstrip() for line in re.findall(r'<div class="line">(.*?)</div>', frag, flags=re.S)])
    return frags


def html_codes(page_html):
    return {re.sub(r"\s+", " ", strip_tags(c)) for c in re.findall(r"<code>(.*?)</code>", page_html, flags=re.S)}


def main(argv):
    docs = Path(argv[0] if argv else ROOT / "build/docs")
    fail = 0
    counts = [0, 0]

    def bad(msg):
        nonlocal fail
        print(f"commands: FAIL: {msg}", file=sys.stderr)
        fail = 1

    for source, (man_rel, html_rel) in PAGES.items():
        blocks, prose = source_parts((ROOT / source).read_text())
        spans = inline_spans(prose)
        rendered = man_text(docs / "man" / man_rel)
        flat = " ".join(" ".join(rendered).split())
        page_html = (docs / "html" / html_rel).read_text()
        frags = html_fragments(page_html)
        codes = html_codes(page_html)
        name = Path(man_rel).name
        if "\u2010" in "\n".join(rendered):
            bad(f"{name}: the man page breaks a word at a hyphen it adds (U+2010), which a copy would carry")
        for block in blocks:
            if not block:
                continue
            counts[0] += 1
            shown = block[0] if len(block) == 1 else block[0] + " ..."
            if not man_has_block(rendered, block):
                bad(f"{name}: the man page does not show this block of {source} as written: {shown!r}")
            if [b.rstrip() for b in block] not in frags:
                bad(f"{name}: the HTML ({html_rel}) does not show this block of {source} as written: {shown!r}")
        for span in spans:
            counts[1] += 1
            if span not in codes:
                bad(f"{name}: the HTML ({html_rel}) has no code element {span!r} (from {source})")
            if not re.search(r"(?<![\w`])" + re.escape(span) + r"(?![\w`])", flat):
                bad(f"{name}: the man page does not show {span!r} (from {source}) as a word of its own")
    if fail:
        print("commands: a command copied from the man page or the HTML would not be the one the source gives;"
              " write it in a fenced code block (a line each) or fix the renderer (scripts/man_pages.py)", file=sys.stderr)
        return 1
    print(f"commands: {counts[0]} code blocks and {counts[1]} inline code spans of pam_passcode(8), passcodectl(8) and"
          " passcoded(8) are in the man pages and the HTML as their sources write them")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
