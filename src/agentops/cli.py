"""The one entry-point shape of every script: argparse with a teaching ``--help``, one
top-level handler mapping ``AgentopsError`` to exit codes, and the closing
"API calls: N" line.

Shell side: prints to stderr and writes the job summary on errors; decides nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Sequence

from agentops import ghactions, markdown_escape
from agentops.errors import AgentopsError, ExitStatus

EXIT_CODES = """\
exit codes:
  0    done, or nothing to do
  1    bad input, data or configuration (nothing was written)
  2    bad command line
  3    refused by a gate on purpose (the message lists what is missing)
  4    partly applied: some writes landed, some did not (rerun to converge)
  5    remote API failed before anything was written
  70   unexpected error: a bug in agentops (traceback on stderr)
  130  interrupted"""


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the hand-wrapped examples in descriptions and epilogs."""


def parser(prog: str, description: str, epilog: str) -> argparse.ArgumentParser:
    """An ``ArgumentParser`` whose epilog ends with the exit-code table."""
    return argparse.ArgumentParser(
        prog=prog,
        description=description,
        epilog=f"{epilog.rstrip()}\n\n{EXIT_CODES}",
        formatter_class=HelpFormatter,
    )


def run(
    build: Callable[[], argparse.ArgumentParser],
    dispatch: Callable[[argparse.Namespace], int],
    argv: Sequence[str] | None,
) -> int:
    """Parse ``argv`` and call ``dispatch``; map every failure to its exit code."""
    p = build()
    try:
        args = p.parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code or 0) if isinstance(exc.code, int) else ExitStatus.USAGE
    try:
        return int(dispatch(args))
    except AgentopsError as exc:
        report_error(exc, prog=p.prog)
        return int(exc.status)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return int(ExitStatus.INTERRUPTED)
    except BrokenPipeError:
        # Sanity: `script | head` closing the pipe is the reader's choice, not a failure.
        return int(ExitStatus.OK)
    except Exception as exc:
        traceback.print_exc()
        ghactions.error(f"{type(exc).__name__}: {exc} (a bug in agentops; please report it "
                        "with the traceback above)", title=f"{p.prog}: unexpected error")
        return int(ExitStatus.BUG)


def report_error(exc: AgentopsError, *, prog: str) -> None:
    """One line as an annotation/stderr line; the long form in the job summary."""
    ghactions.error(exc.one_line(), title=f"{prog} failed")
    reasons = getattr(exc, "reasons", None) or []
    for reason in reasons:
        print(f"  - {reason}", file=sys.stderr)
    # Messages quote commands and flags in backticks, and values someone else chose
    # (file names, API messages) around them: spans as code, the rest inert text.
    long = [f"### {prog} failed", "", markdown_escape.marked(exc.message, limit=4000)]
    if reasons:
        long += ["", *[f"- {markdown_escape.marked(r, limit=500)}" for r in reasons]]
    if exc.fix:
        long += ["", f"**Fix:** {markdown_escape.marked(exc.fix, limit=4000)}"]
    ghactions.append_summary("\n".join(long) + "\n")


def env_default(name: str, default: str | None = None) -> str | None:
    """Default of a flag from ``AGENTOPS_<NAME>``: how ``action.yml`` inputs reach the
    script (inputs → ``env:`` → argparse), never through ``${{ }}`` in ``run:``."""
    value = os.environ.get(name)
    return value if value not in (None, "") else default


def env_flag(name: str) -> bool:
    """A boolean ``AGENTOPS_<NAME>`` (``true``/``1``/``yes``) as a flag's default."""
    return (os.environ.get(name) or "").strip().lower() in ("1", "true", "yes", "on")
