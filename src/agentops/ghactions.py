"""The GitHub Actions runner's interface, in one place: outputs, job summary,
annotations, log groups, masking, and the sanitisers for untrusted text.

Adapter side of the I/O line. It never decides anything; outside a runner (no
``GITHUB_OUTPUT`` / ``GITHUB_STEP_SUMMARY``) the file commands are no-ops and the log
commands degrade to plain stderr lines, so every script runs the same from a shell.

Library choice (see README, "Why github-action-utils"): ``github-action-utils`` writes
the ``GITHUB_OUTPUT``/``GITHUB_STEP_SUMMARY`` file commands with a random delimiter
and validates names, and is maintained; ``actions-toolkit`` (last release 2022) has no
job-summary helper. Workflow *commands* are emitted here on stderr with the library's
escaping, because the library prints them on stdout, where our scripts write JSON.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

import github_action_utils as gau
from github_action_utils import _serialization as gau_serial

from agentops import markdown_escape

_ZWSP = "\u200b"


def in_runner() -> bool:
    """True inside a GitHub Actions job (``GITHUB_ACTIONS=true``)."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


def _stream() -> TextIO:
    return sys.stderr


def _command(name: str, message: str, **props: Any) -> None:
    opts = ",".join(
        f"{k}={gau_serial.escape_property(str(v))}" for k, v in props.items() if v is not None
    )
    head = f"::{name} {opts}::" if opts else f"::{name}::"
    print(head + gau_serial.escape_data(message), file=_stream(), flush=True)


def set_output(name: str, value: Any) -> None:
    """Set a step output (multi-line safe); a no-op outside a runner."""
    if os.environ.get("GITHUB_OUTPUT"):
        gau.set_output(name, value)


def append_summary(markdown: str) -> None:
    """Append Markdown to the job summary; a no-op outside a runner."""
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        gau.append_job_summary(markdown.rstrip("\n"))  # the library adds the newline


def error(message: str, *, title: str | None = None) -> None:
    """An ``::error::`` annotation in a runner, ``error: …`` on stderr elsewhere."""
    if in_runner():
        _command("error", message, title=title)
    else:
        print(f"error: {message}", file=_stream(), flush=True)


def warning(message: str, *, title: str | None = None) -> None:
    """An ``::warning::`` annotation in a runner, ``warning: …`` on stderr elsewhere."""
    if in_runner():
        _command("warning", message, title=title)
    else:
        print(f"warning: {message}", file=_stream(), flush=True)


def notice(message: str) -> None:
    """A progress/notice line on stderr (plain text in both modes)."""
    print(message, file=_stream(), flush=True)


def mask(value: str) -> None:
    """Ask the runner to mask a secret-derived value in all later log lines."""
    if in_runner() and value:
        for line in value.splitlines():
            if line.strip():
                _command("add-mask", line)


@contextlib.contextmanager
def group(title: str) -> Iterator[None]:
    """A collapsible log group in a runner; a ``== title ==`` header elsewhere."""
    if in_runner():
        _command("group", title)
        try:
            yield
        finally:
            print("::endgroup::", file=_stream(), flush=True)
    else:
        print(f"== {title} ==", file=_stream(), flush=True)
        yield


# --- untrusted text -------------------------------------------------------------------

_CMD_RE = re.compile(r"::")


def inert_log(text: str, *, limit: int = 2000) -> str:
    """Untrusted text made safe for a log line: no workflow command can start in it
    (``::`` is split), control and bidi characters are dropped, and it is cut."""
    text = markdown_escape.CONTROL_RE.sub("", text)
    text = _CMD_RE.sub(":" + _ZWSP + ":", text)
    if len(text) > limit:
        text = text[:limit] + "…"
    return text


def inert_markdown(text: str, *, limit: int = 300, cell: bool = False) -> str:
    """Untrusted text made inert for a summary or comment (``cell``: inside a table
    cell): no link, image, mention, reference, HTML or workflow command takes effect.
    The one implementation is ``agentops.markdown_escape.text``; code spans use
    ``markdown_escape.code``."""
    return markdown_escape.text(text, limit=limit, cell=cell)
