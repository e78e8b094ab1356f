"""Every line this process prints, through one gate: ``say`` for text, ``say_json``
for JSON documents; registered secrets are scrubbed here too (``agentops.redaction``).
Nothing else in agentops writes to stdout or stderr
(``tests/test_console.py`` checks the source for it), so no line can carry a
workflow command someone else wrote, whatever the call site forgot.

Why every line and not only "untrusted" ones: the runner reads commands from every
line a step prints, on stdout and stderr alike, and a message quoting a title, a
server's answer, a file name or a log excerpt is outside text however it was
assembled. What the runner honours (docs/security.md, "Inert text"):

- ``::name args::value`` when it is the first thing on a line after whitespace
  (``  ::add-mask::x`` too; the runner trims the line first);
- the legacy form ``##[name args]value`` anywhere in a line;
- a line break is ``\\n``, ``\\r\\n`` or a lone ``\\r``, so text after any of them
  starts a new line.

``inert_line`` breaks each with an invisible zero-width space (U+200B, not
whitespace to the runner) and drops control and bidi characters; a document that
must stay byte-for-byte data (JSON on stdout) is made inert with JSON's own
escapes instead (``json_text``), so its parsed values do not change.

Adapter side: the only writer of the standard streams. Workflow commands agentops
means to send (``::error::``, ``::add-mask::``, ``::group::``) go through ``command``,
whose value is escaped by ``ghactions``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import sys
from typing import Any, TextIO

from agentops import redaction
from agentops.markdown_escape import CONTROL_RE

ZWSP = "\u200b"
_LINE_BREAK_RE = re.compile(r"(\r\n|\r|\n)")
# Python's ``\s`` covers what .NET's ``Trim`` removes (Unicode white space).
_COMMAND_START_RE = re.compile(r"^(\s*):(?=:)")
# A ``#`` before ``[``: breaking every such pair leaves no ``##[`` (``###[`` included).
_LEGACY_RE = re.compile(r"#(?=\[)")


def inert_line(text: object, *, limit: int | None = None) -> str:
    """``text`` made safe to print: registered secrets scrubbed (``redaction``),
    control and bidi characters dropped, cut to ``limit`` characters (when given), and
    on each of its lines a leading ``::`` and every ``##[`` broken. Line breaks are
    kept; no new line can start a command."""
    out = redaction.scrub(CONTROL_RE.sub("", str(text)))
    if limit is not None and len(out) > limit:
        out = out[:limit] + "…"
    parts = _LINE_BREAK_RE.split(out)
    for i in range(0, len(parts), 2):  # even items are lines, odd ones their breaks
        line = _COMMAND_START_RE.sub(lambda m: m.group(1) + ":" + ZWSP, parts[i])
        parts[i] = _LEGACY_RE.sub("#" + ZWSP, line)
    return "".join(parts)


def json_text(doc: Any, **dumps: Any) -> str:
    """``json.dumps(doc, **dumps)`` with the same guarantees as ``inert_line`` but the
    same data: a ``#`` before ``[`` and the control and bidi characters become
    ``\\uXXXX`` escapes (they can only occur inside strings, where an escape means
    the same character). A JSON text has no raw line break inside a value, and no
    line of it starts with ``::``."""
    return inert_json(json.dumps(doc, **dumps))


def inert_json(text: str) -> str:
    """A JSON text made inert as ``json_text`` does (for JSON built elsewhere, e.g. an
    ADF document's bytes), secrets scrubbed."""
    text = _LEGACY_RE.sub(r"\\u0023", redaction.scrub(text))
    return CONTROL_RE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def _stream(err: bool) -> TextIO:
    return sys.stderr if err else sys.stdout


def say(text: object = "", *, err: bool = False, limit: int | None = None,
        end: str = "\n") -> None:
    """Print ``text`` (on stderr with ``err``) through ``inert_line``."""
    stream = _stream(err)
    stream.write(inert_line(text, limit=limit) + end)
    stream.flush()


def say_json(doc: Any, *, err: bool = False, **dumps: Any) -> None:
    """Print a JSON document (``json.dumps`` options in ``dumps``) through
    ``json_text``."""
    stream = _stream(err)
    stream.write(json_text(doc, **dumps) + "\n")
    stream.flush()


def command(line: str) -> None:
    """A workflow command agentops sends itself, on stderr (stdout carries the
    scripts' data). ``line`` is built by ``ghactions`` from escaped values only."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


class _Gate(logging.Handler):
    """Python's last-resort log handler (a library's warning, e.g. about a file of a
    checked-out repository) writes to stderr directly; this one goes through ``say``."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            say(self.format(record), err=True)
        except Exception:  # logging must never raise into the caller
            self.handleError(record)

    def handleError(self, record: logging.LogRecord) -> None:
        # logging's own version writes a traceback and the record's message and
        # arguments (outside text: a ``##[`` command, a registered secret) straight to
        # stderr, past the gate. One line through the gate instead; if even that fails
        # (a closed stream), nothing: logging must not raise.
        failure = sys.exc_info()[1]
        with contextlib.suppress(Exception):
            say(f"{record.levelname}: {record.name}: a log message could not be printed "
                f"({type(failure).__name__}): {record.msg!r} {record.args!r}", err=True)


logging.lastResort = _Gate(logging.WARNING)
