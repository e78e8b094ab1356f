"""The GitHub Actions runner's interface, in one place: outputs, job summary,
annotations, log groups, masking, and the sanitisers for untrusted text.

Adapter side of the I/O line. It never decides anything; outside a runner (no
``GITHUB_OUTPUT`` / ``GITHUB_STEP_SUMMARY``) the file commands are no-ops and the log
commands degrade to plain stderr lines, so every script runs the same from a shell.

Library choice (see README, "Why github-action-utils"): ``github-action-utils`` writes
the ``GITHUB_OUTPUT``/``GITHUB_STEP_SUMMARY`` file commands with a random delimiter
and validates names, and is maintained; ``actions-toolkit`` (last release 2022) has no
job-summary helper. Workflow *commands* are emitted here on stderr, because the library
prints them on stdout, where our scripts write JSON; their escaping is ours
(``escape_data``, ``escape_property``, as GitHub documents it), so nothing private of
the library is used.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

import github_action_utils as gau

from agentops import console, markdown_escape, redaction


def in_runner() -> bool:
    """True inside a GitHub Actions job (``GITHUB_ACTIONS=true``)."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


def escape_data(value: str) -> str:
    """A workflow command's value as the runner reads it back: ``%`` -> ``%25``,
    ``\r`` -> ``%0D``, ``\n`` -> ``%0A`` (``%`` first, so an escape is not escaped
    twice)."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """A workflow command's property value (``title=…``): as ``escape_data``, and
    also ``:`` -> ``%3A`` and ``,`` -> ``%2C``, which end a property."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def _command(name: str, message: str, **props: Any) -> None:
    # The values go through the one line gate first, so a ``##[`` or a command in a
    # title or message is broken before the runner's own escaping is applied.
    opts = ",".join(f"{k}={escape_property(console.inert_line(v))}"
                    for k, v in props.items() if v is not None)
    head = f"::{name} {opts}::" if opts else f"::{name}::"
    console.command(head + escape_data(console.inert_line(message)))


def set_output(name: str, value: Any) -> None:
    """Set a step output (multi-line safe); a no-op outside a runner."""
    if os.environ.get("GITHUB_OUTPUT"):
        gau.set_output(name, redaction.scrub(str(value)))


def append_summary(markdown: str) -> None:
    """Append Markdown to the job summary; a no-op outside a runner."""
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        # the library adds the newline
        gau.append_job_summary(redaction.scrub(markdown).rstrip("\n"))


def error(message: str, *, title: str | None = None) -> None:
    """An ``::error::`` annotation in a runner, ``error: …`` on stderr elsewhere."""
    if in_runner():
        _command("error", message, title=title)
    else:
        console.say(f"error: {message}", err=True)


def warning(message: str, *, title: str | None = None) -> None:
    """An ``::warning::`` annotation in a runner, ``warning: …`` on stderr elsewhere."""
    if in_runner():
        _command("warning", message, title=title)
    else:
        console.say(f"warning: {message}", err=True)


def notice(message: str) -> None:
    """A progress/notice line on stderr (plain text in both modes)."""
    console.say(message, err=True)


def mask(value: str) -> None:
    """Ask the runner to mask a secret-derived value in all later log lines."""
    if in_runner() and value:
        for line in value.splitlines():
            if line.strip():
                # Not through the line gate: the value must reach the runner exactly.
                console.command("::add-mask::" + escape_data(line))


def secret(value: str | None, *, user: str | None = None) -> None:
    """A secret read from the environment or a URL: scrubbed from every later output
    in every form it travels in (``agentops.redaction``; with ``user``: also the
    ``user:secret`` Basic form), and masked in the runner's log in each of them."""
    if not value:
        return
    mask(value)
    for form in sorted(redaction.register(value, user=user) - {value}):
        mask(form)


@contextlib.contextmanager
def group(title: str) -> Iterator[None]:
    """A collapsible log group in a runner; a ``== title ==`` header elsewhere."""
    if in_runner():
        _command("group", title)
        try:
            yield
        finally:
            console.command("::endgroup::")
    else:
        console.say(f"== {title} ==", err=True)
        yield


# --- untrusted text -------------------------------------------------------------------
# Log lines: ``console.inert_line`` (every line printed goes through it anyway).


def inert_markdown(text: str, *, limit: int = 300, cell: bool = False) -> str:
    """Untrusted text made inert for a summary or comment (``cell``: inside a table
    cell): no link, image, mention, reference, HTML or workflow command takes effect.
    The one implementation is ``agentops.markdown_escape.text``; code spans use
    ``markdown_escape.code``."""
    return markdown_escape.text(text, limit=limit, cell=cell)
