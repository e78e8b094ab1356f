"""A doc's parity claim against the copies' measured lag (#22 item 7, docs resolved
against the code): a line of the sub-project's docs saying its code does the same as
an upstream file ("the same functionality as `pkg/train.py` (except …)", "identical
to", "equivalent to") while the scout found functions the sub-project copies from
upstream that lack what upstream's versions do (``body_drift`` this window,
``copy_lag`` from before it). The claim no longer holds as written; the finding names
the doc line, quotes the claim (inert, bounded) and lists the lagging copies.

Pure: doc texts and the two analyses' records in, ``DocProblem`` records out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agentops.scout.analyses.bodydrift import BodyDrift, Lag
from agentops.scout.analyses.docs import DocProblem
from agentops.scout.model import Inputs

# Security: a doc is untrusted text; each line is cut before the regexes run.
MAX_LINE = 2000
MAX_QUOTE = 120
MAX_NAMED = 4
_CLAIM = re.compile(r"\b(?:the\s+)?(?:same|identical|equivalent)\b[\w\s-]{0,40}?\b(?:as|to)\b",
                    re.I)
_PATH = re.compile(r"(?<![\w/.-])((?:[A-Za-z_][\w-]{0,60}/){0,12}[A-Za-z_][\w-]{0,80}\.py)"
                   r"(?![\w/-])")


def _quote(line: str, start: int) -> str:
    """The claim from a few words before it to the end of its sentence (bounded),
    markup removed: what the claim says, its exceptions included ("except …")."""
    begin = line.rfind(" ", 0, max(0, start - 24)) + 1
    end = line.find(". ", start)
    text = line[begin:end + 1 if end >= 0 else len(line)]
    text = " ".join(re.sub(r"[`<>\[\]()*_|]", " ", text).split())
    text = ("…" if begin else "") + text
    return text if len(text) <= MAX_QUOTE else text[:MAX_QUOTE - 1] + "…"


def _upstream_named(ref: str, paths: frozenset[str]) -> str | None:
    """The repository file a doc's path means: the path itself, or the one file whose
    path ends with it."""
    if ref in paths:
        return ref
    found = [p for p in paths if p.endswith("/" + ref)]
    return found[0] if len(found) == 1 else None


def analyse(inp: Inputs, drifts: Sequence[BodyDrift], lags: Sequence[Lag]
            ) -> list[DocProblem]:
    sub = inp.target.subproject.rstrip("/") + "/"
    # (function, what it lacks) of each copy that lags upstream, by the copy's file.
    lacking: list[tuple[str, str]] = []
    for d in drifts:
        if d.ours.startswith(sub) and d.units:
            lacking.append((d.function, d.units[0]))
    for g in lags:
        if g.ours.startswith(sub) and g.units:
            lacking.append((g.function, g.units[0]))
    if not lacking:
        return []
    seen: set[str] = set()
    named = []
    for fn, unit in lacking:
        if fn not in seen:
            seen.add(fn)
            named.append(f"`{fn}` ({unit.replace('`', '')})")
    out: list[DocProblem] = []
    for doc in inp.target.docs:
        text = inp.head.text(doc)
        if not text:
            continue
        for n, raw in enumerate(text.splitlines(), 1):
            line = raw[:MAX_LINE]
            claim = _CLAIM.search(line)
            if not claim:
                continue
            # The upstream file the claim compares with, on the same line after the
            # claim, must be a file outside the sub-project.
            ref = next((m.group(1) for m in _PATH.finditer(line, claim.start())
                        if (f := _upstream_named(m.group(1), inp.head.paths))
                        and not f.startswith(sub)), None)
            if ref is None:
                continue
            out.append(DocProblem(
                doc, n, f"claims parity with `{ref}` (\"{_quote(line, claim.start())}\"), but "
                f"{len(named)} function(s) copied from upstream lack what upstream's do: "
                + ", ".join(named[:MAX_NAMED]) + ("…" if len(named) > MAX_NAMED else "")))
    return out
