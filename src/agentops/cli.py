"""The one entry-point shape of every script: argparse with a teaching ``--help``, one
top-level handler mapping ``AgentopsError`` to exit codes, and the closing
"API calls: N" line.

Shell side: prints to stderr and writes the job summary on errors; decides nothing.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import traceback
from collections.abc import Callable, Sequence

from agentops import console, ghactions, markdown_escape
from agentops.errors import AgentopsError, ExitStatus, UsageError

EXIT_CODES = """\
exit codes:
  0    done, or nothing to do
  1    bad input, data or configuration (nothing was written)
  2    bad command line
  3    refused by a gate on purpose (the message lists what is missing)
  4    partly applied: some writes landed, some did not (rerun to converge)
  5    remote API failed before anything was written
  6    findings: the input was read and checked, and the check found problems
       (post-mortem lint and check print them as file:line: rule: message)
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


SHARED_GROUP = "options of every verb (before or after the verb)"


def verbs(p: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser's verbs (subcommands) by name; empty when it has none."""
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _options(p: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in p._actions if a.option_strings
            and not isinstance(a, (argparse._HelpAction, argparse._VersionAction))]


def share_options(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Accept every option of the script after the verb too (``triage.py plan FILE
    --queue DIR``), and list it in each verb's ``--help``.

    Structural, so options and verbs added later need nothing: each top-level option
    is copied into every verb that does not define the same flag itself. The copy's
    default is SUPPRESS, so the value given before the verb (or its env default)
    stands unless the flag is repeated after the verb."""
    for sub in {id(sp): sp for sp in verbs(p).values()}.values():
        group = None
        for action in _options(p):
            if any(s in sub._option_string_actions for s in action.option_strings):
                continue
            clone = copy.copy(action)
            clone.default = argparse.SUPPRESS
            clone.required = False
            group = group or sub.add_argument_group(SHARED_GROUP)
            group._add_action(clone)
    return p


def verb_exit_codes(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """End every verb's ``--help`` with the exit-code table too: ``triage.py plan -h``
    is where a user looks for what exit 3 or 6 of that verb means. Structural, so a
    verb added later needs nothing."""
    for sub in {id(sp): sp for sp in verbs(p).values()}.values():
        if "exit codes:" not in (sub.epilog or ""):
            sub.epilog = f"{(sub.epilog or '').rstrip()}\n\n{EXIT_CODES}".lstrip("\n")
            sub.formatter_class = HelpFormatter
    return p


def _arity(action: argparse.Action | None) -> int:
    if action is None or action.nargs == 0:
        return 0
    if isinstance(action.nargs, int):
        return action.nargs
    return 1  # None, "?", "*", "+": one value is the common case on these scripts


def order_argv(p: argparse.ArgumentParser, argv: Sequence[str]) -> list[str]:
    """Move the verb's own options written before the verb to just after it
    (``scout.py --report r.md publish`` = ``scout.py publish --report r.md``).

    Top-level options stay where they are; an option no verb knows is left for
    argparse to report. Stops at ``--``."""
    subs = verbs(p)
    if not subs:
        return list(argv)
    top = p._option_string_actions
    known: dict[str, argparse.Action] = {}
    for sp in subs.values():
        for flag, action in sp._option_string_actions.items():
            known.setdefault(flag, action)
    args = list(argv)
    i, moved, kept = 0, [], []
    while i < len(args):
        tok = args[i]
        if tok == "--" or not tok.startswith("-") or tok == "-":
            break
        flag, has_value = tok.split("=", 1)[0], "=" in tok
        action = top.get(flag) or known.get(flag)
        width = 1 + (0 if has_value else _arity(action))
        (kept if flag in top or action is None else moved).extend(args[i:i + width])
        i += width
    if i >= len(args) or args[i] not in subs or not moved:
        return args
    return [*kept, args[i], *moved, *args[i + 1:]]


def run(
    build: Callable[[], argparse.ArgumentParser],
    dispatch: Callable[[argparse.Namespace], int],
    argv: Sequence[str] | None,
) -> int:
    """Parse ``argv`` and call ``dispatch``; map every failure to its exit code."""
    prog = os.path.basename(sys.argv[0] or "agentops")
    try:
        # Inside the handler: building the parser reads AGENTOPS_* defaults.
        p = verb_exit_codes(share_options(build()))
        prog = p.prog
        try:
            args = p.parse_args(order_argv(p, sys.argv[1:] if argv is None else argv))
        except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
            return int(exc.code or 0) if isinstance(exc.code, int) else ExitStatus.USAGE
        return int(dispatch(args))
    except AgentopsError as exc:
        report_error(exc, prog=prog)
        return int(exc.status)
    except KeyboardInterrupt:
        console.say("interrupted", err=True)
        return int(ExitStatus.INTERRUPTED)
    except BrokenPipeError:
        # Sanity: `script | head` closing the pipe is the reader's choice, not a failure.
        return int(ExitStatus.OK)
    except Exception as exc:
        console.say(traceback.format_exc(), err=True, end="")
        ghactions.error(f"{type(exc).__name__}: {exc} (a bug in agentops; please report it "
                        "with the traceback above)", title=f"{prog}: unexpected error")
        return int(ExitStatus.BUG)


def report_error(exc: AgentopsError, *, prog: str) -> None:
    """One line as an annotation/stderr line; the long form in the job summary. A gate
    that refused on purpose (exit 3) says "refused", not "error" or "failed"."""
    refused = exc.status == ExitStatus.REFUSED
    outcome = "refused" if refused else "failed"
    if refused and not ghactions.in_runner():
        console.say(f"refused: {exc.one_line()}", err=True)
    else:
        ghactions.error(exc.one_line(), title=f"{prog} {outcome}")
    reasons = getattr(exc, "reasons", None) or []
    for reason in reasons:
        console.say(f"  - {reason}", err=True)
    # Messages quote commands and flags in backticks, and values someone else chose
    # (file names, API messages) around them: spans as code, the rest inert text.
    long = [f"### {prog} {outcome}", "", markdown_escape.marked(exc.message, limit=4000)]
    if reasons:
        long += ["", *[f"- {markdown_escape.marked(r, limit=500)}" for r in reasons]]
    if exc.fix:
        long += ["", f"**Fix:** {markdown_escape.marked(exc.fix, limit=4000)}"]
    ghactions.append_summary("\n".join(long) + "\n")


def _given(value: object) -> bool:
    return value not in (None, False, "", [], ())


def refuse_flags(args: argparse.Namespace, flags: dict[str, str], *, context: str,
                 fix: str, env: dict[str, str] | None = None) -> None:
    """Exit 2 naming every flag in ``flags`` (dest → flag) that was given although
    ``context`` would not use it: no flag is silently ignored (issue #13). ``env``
    names the variables read in place of a flag's default (dest → AGENTOPS_X)."""
    env = env or {}
    given = [flag for dest, flag in flags.items()
             if _given(getattr(args, dest, None))
             or (dest in env and _given(os.environ.get(env[dest], "").strip()))]
    if given:
        verb = "does" if len(given) == 1 else "do"
        raise UsageError(", ".join(given), f"{verb} not apply to {context}", fix=fix)


def renamed(p: argparse.ArgumentParser, old: str, new: str, why: str) -> None:
    """Keep a retired flag only to say which one replaced it (exit 2), hidden from
    ``--help``: one word, one meaning across every script."""

    class _Renamed(argparse.Action):
        def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                     values: object, option_string: str | None = None) -> None:
            parser.error(f"{old} is not this flag: use {new} ({why})")

    p.add_argument(old, action=_Renamed, nargs="?", default=argparse.SUPPRESS,
                   help=argparse.SUPPRESS)


def env_default(name: str, default: str | None = None) -> str | None:
    """Default of a flag from ``AGENTOPS_<NAME>``: how ``action.yml`` inputs reach the
    script (inputs → ``env:`` → argparse), never through ``${{ }}`` in ``run:``."""
    value = os.environ.get(name)
    return value if value not in (None, "") else default


def env_flag(name: str) -> bool:
    """A boolean ``AGENTOPS_<NAME>`` (``true``/``1``/``yes``) as a flag's default."""
    return (os.environ.get(name) or "").strip().lower() in ("1", "true", "yes", "on")
