"""Untrusted text as inert Markdown: the one escaping helper every renderer uses (job
summaries, the scout report and its board drafts, the triage summary, post-mortem
drafts, error summaries).

What "inert" means here (docs/security.md): rendered by GitHub, the text shows as
written, and nothing in it takes effect — no link, image, autolink, @mention, issue
cross-reference, HTML, emphasis, table cell break or block structure. Two forms:

- ``text``: inline text. HTML's three specials become entities (they stay entities
  inside an HTML block, where backslash escapes do not apply), the rest of Markdown's
  punctuation is backslash-escaped, newlines are folded, and GitHub's autolinkers are
  broken with an invisible zero-width space, U+200B (after ``@``; before the digits
  of ``#123`` and ``GH-123``, any case; before ``://``; inside ``www.``), as is a
  workflow command (``::``) that would start the line.
- ``code``: a code span. Its content is literal in CommonMark (no escapes, entities,
  links or mentions), so nothing is escaped: ``->`` shows as ``->`` and a repro
  command copies exactly. The fence is one backtick longer than any run inside.

``marked`` renders a string that uses backtick spans for identifiers (the scout's
finding titles): each span becomes ``code``, the rest ``text``, pairing backtick runs
as CommonMark does. Pure functions, no I/O.
"""

from __future__ import annotations

import re

ZWSP = "\u200b"
# C0 controls (but tab), DEL, and the bidi controls and marks that can reorder what
# a reader sees (Trojan Source).
CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u061c\u200e\u200f"
                         r"\u202a-\u202e\u2066-\u2069]")
_NEWLINES_RE = re.compile(r"\r\n|\r|\n")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
# Markdown punctuation that can start a construct inside a line: escapes, code spans,
# emphasis, strikethrough, link/image brackets. An underscore unless it sits between
# two letters or digits (``snake_case`` never emphasises, so it stays readable).
_PUNCT_RE = re.compile(r"[\\`*~\[\]]|(?<![^\W_])_|_(?![^\W_])")
_PIPE_RE = re.compile(r"\|")
# The text may be the first thing on its line, where these open a heading (``# ``), a
# list item (``- ``, ``+ ``, ``1. ``) or a setext underline / thematic break (a line of
# ``=`` or ``-``); anywhere else they are plain characters and stay unescaped.
_LEADING_RE = re.compile(r"^(\s*)(?:(#{1,6}(?=\s|$)|[+-](?=\s|$)|[=-](?=[=\-\s]*$))|"
                         r"(\d{1,9})([.)])(?=\s|$)|(?<=[ \t]{4})|(?<=\t))")
# GitHub's autolinkers and reference filters: @user/@org/team (and e-mail addresses),
# #123 and GH-123 (any case) cross-references, scheme://… and www. autolinks.
_DEFUSE_RE = re.compile(r"@(?=[A-Za-z0-9])|#(?=\d)|(?i:gh-)(?=\d)|"
                        r"(?<=[A-Za-z0-9+.-]):(?=//)|(?<![A-Za-z0-9])www\.")
# A workflow command (::set-output, ::add-mask::) only starts a line; newlines are
# folded, so only the text's own start can be one (pytest ids like a.py::T stay as is).
_COMMAND_RE = re.compile(r"^(\s*):(?=:)")


def _clean(value: object, limit: int) -> str:
    text = CONTROL_RE.sub("", str(value))
    text = _NEWLINES_RE.sub(" ", text)
    if len(text) > limit:
        text = text[:limit] + "…"
    return text


def _escape_leading(match: re.Match[str]) -> str:
    indent, marker, number, delimiter = match.groups()
    if marker is None and number is None:
        return " "  # an indent that would start an indented code block
    return _indent(indent) + ("\\" + marker if marker else number + "\\" + delimiter)


def _indent(whitespace: str) -> str:
    # Four columns (or a tab) at the start of a line open an indented code block; as
    # inline text a single space shows the same.
    return " " if "\t" in whitespace or len(whitespace) >= 4 else whitespace


def _defuse(match: re.Match[str]) -> str:
    found = match.group(0)
    if found == ":":
        return ZWSP + ":"
    if found == "www.":
        return "www" + ZWSP + "."
    return found + ZWSP


def text(value: object, *, limit: int = 300, cell: bool = False) -> str:
    """Untrusted text as inert inline Markdown (``cell``: also inside a table cell,
    where an unescaped ``|`` would end the cell). Cut to ``limit`` characters."""
    out = _clean(value, limit)
    out = "".join(_HTML.get(ch, ch) for ch in out)
    out = _PUNCT_RE.sub(lambda m: "\\" + m.group(0), out)
    out = _LEADING_RE.sub(_escape_leading, out)
    out = _DEFUSE_RE.sub(_defuse, out)
    out = _COMMAND_RE.sub(lambda m: m.group(1) + ":" + ZWSP, out)
    if cell:
        out = _PIPE_RE.sub(r"\\|", out)
    return out


def code(value: object, *, limit: int = 300, cell: bool = False) -> str:
    """Untrusted text as a code span that shows it exactly (``cell``: inside a table
    cell, where GitHub needs ``\\|`` even in code). Empty text renders nothing."""
    out = _clean(value, limit)
    if not out:
        return ""
    longest = max((len(run) for run in re.findall(r"`+", out)), default=0)
    fence = "`" * (longest + 1)
    # CommonMark strips one space from each end when both ends have one; a backtick
    # at an end would merge with the fence. One pad space on each side covers both.
    pad = " " if (out[0] == "`" or out[-1] == "`"
                  or (out[0] == " " and out[-1] == " " and out.strip())) else ""
    if cell:
        out = out.replace("|", "\\|")
    return f"{fence}{pad}{out}{pad}{fence}"


_RUN_RE = re.compile(r"`+")


def marked(value: object, *, limit: int = 400, cell: bool = False) -> str:
    """A string whose backtick spans mark identifiers (``Trainer.step`` changed…), as
    inert Markdown: each span rendered with ``code``, the text between with ``text``.
    A backtick run with no closing run of the same length is plain text, as in
    CommonMark."""
    raw = _clean(value, limit)
    out: list[str] = []
    pos = 0
    plain_from = 0
    while True:
        opening = _RUN_RE.search(raw, pos)
        if opening is None:
            break
        width = len(opening.group(0))
        closing = next((m for m in _RUN_RE.finditer(raw, opening.end())
                        if len(m.group(0)) == width), None)
        if closing is None:
            pos = opening.end()  # unmatched: stays in the plain text around it
            continue
        if opening.start() > plain_from:
            out.append(text(raw[plain_from:opening.start()], limit=len(raw), cell=cell))
        content = raw[opening.end():closing.start()]
        if len(content) > 1 and content[0] == " " and content[-1] == " " and content.strip():
            content = content[1:-1]  # the author's own padding, as CommonMark strips it
        out.append(code(content, limit=len(raw), cell=cell))
        pos = plain_from = closing.end()
    if plain_from < len(raw):
        out.append(text(raw[plain_from:], limit=len(raw), cell=cell))
    return "".join(out)


def link(label: object, url: str, *, limit: int = 300) -> str:
    """A link whose URL the program chose (an API's ``html_url``): the label is inert
    text; a URL that is not plain http(s) is dropped and the label shown alone."""
    shown = text(label, limit=limit)
    if not re.fullmatch(r"https?://[^\s<>\\`]+", url or ""):
        return shown
    return f"[{shown}](<{url}>)"
