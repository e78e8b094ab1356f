"""S-5, a documented command that runs the launcher's default instead of the
sub-project (#22 defect 7). A launcher script selects what it runs from environment
variables with a default (``MODULE=${MODULE:-"llama3"}``); when the doc's other
commands for that script all set the variable to the sub-project's value (two or more,
one value), a command of the same doc that runs the script without setting it runs the
default — core's model and its options (``NGPU=1 ./run_train.sh --help`` prints
llama3's flags, not the sub-project's).

Pure: loaded texts in, ``LaunchProblem`` records out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentops.scout.analyses import docclaims, docs
from agentops.scout.model import Inputs

# Security: the indent is ``[ \t]*``: ``\s*`` crosses newlines under ``re.M``, so each line
# start rescanned the blank lines after it (10,000 of them: 4 s).
_DEFAULT = re.compile(r"^[ \t]*(?:export\s+)?([A-Za-z_]\w*)=\$\{\1:-[\"']?([^\"'}]*)[\"']?\}",
                      re.M)


@dataclass(frozen=True)
class LaunchProblem:
    file: str
    line: int
    problem: str
    kind: str = "command"


def _commands(text: str) -> list[tuple[int, dict[str, str], list[str], str]]:
    """(line, variables set, words, the command) of each command: code-block lines and
    inline code spans with a space."""
    out = []
    for n, raw, in_code in docclaims.lines(text):
        for cmd in [raw] if in_code else [s for s in docs._CODE_SPAN.findall(raw) if " " in s]:
            words = docs._words(cmd)
            env: dict[str, str] = {}
            while words and (m := docs._ENV_ASSIGN.match(words[0])):
                env[m.group(1)] = words[0].split("=", 1)[1]
                words = words[1:]
            if words:
                out.append((n, env, words, cmd.strip()))
    return out


def check(inp: Inputs) -> list[LaunchProblem]:
    out: list[LaunchProblem] = []
    for doc in inp.target.docs:
        text = inp.head.text(doc)
        if not text:
            continue
        by_script: dict[str, list[tuple[int, dict[str, str], str]]] = {}
        for line, env, words, cmd in _commands(text):
            found = docs._script_of(words, doc, inp)
            if found is not None and found[1] == "shell":
                by_script.setdefault(found[0], []).append((line, env, cmd))
        for script, runs in sorted(by_script.items()):
            defaults = dict(_DEFAULT.findall(inp.head.text(script) or ""))
            unset: dict[tuple[int, str], list[str]] = {}
            for var, default in sorted(defaults.items()):
                values = {env[var] for _n, env, _c in runs if var in env}
                setting = sum(1 for _n, env, _c in runs if var in env)
                if len(values) != 1 or setting < 2 or default in values:
                    continue
                for n, env, cmd in runs:
                    if var not in env:
                        unset.setdefault((n, cmd), []).append(
                            f"{var}={next(iter(values))} (default {default!r})")
            for (n, cmd), what in sorted(unset.items()):
                shown = cmd[:120].replace("`", "'")
                out.append(LaunchProblem(
                    doc, n, f"`{shown}` runs {script} with its defaults: the doc's other "
                            f"commands set {', '.join(what)}; set them here too"))
    return out
