"""A copy of an upstream function that is itself new in the window (#22, S-1): body
drift compares upstream's baseline and HEAD versions, and a function that did not exist
at the baseline has no baseline to compare, so what the copy left out when it was taken
went unseen. Here: each call the copy makes to the same callee as upstream's new
function (``self.`` aside), where upstream passes keyword arguments the copy does not
(``pp_schedule.step(…, loss_kwargs=…, return_outputs=False)`` against
``pp_schedule.step(…)``). A concrete difference in a call both make, not a design the
copy chose elsewhere; logging and observing calls are left out.

Pure: parsed sources in, frozen records out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from agentops.scout.analyses import attribution, bodydrift
from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class NewCopyKeywords:
    """Keywords upstream's new function passes to a call the copy makes without them."""

    ours: str  # file:line of the copy's call
    upstream: str  # file:line of upstream's call
    function: str  # upstream's (qualified) function, new in the window
    callee: str  # the call both make (``self.`` dropped)
    missing: tuple[str, ...]  # keyword names the copy does not pass
    commit: str  # the commit of the window that added upstream's function ("" unknown)


def _calls(func: ps.FuncDef) -> dict[str, list[ast.Call]]:
    out: dict[str, list[ast.Call]] = {}
    for node in ps.walk(func):
        if isinstance(node, ast.Call):
            text = bodydrift._norm(ast.unparse(node.func))
            if "(" not in text and not bodydrift._LOG.search(text + "(") \
                    and not bodydrift._quiet(f"call:{text}"):
                out.setdefault(text, []).append(node)
    return out


def analyse(inp: Inputs) -> list[NewCopyKeywords]:
    if inp.base is None:
        return []
    out: list[NewCopyKeywords] = []
    for mine, ours_file, up_file, qual in bodydrift.distinct_pairs(inp):
        new = bodydrift._find(inp.head.text(up_file), qual)
        if new is None:
            continue
        old_text = inp.base.text(up_file)
        if old_text is None:
            old_text = bodydrift._moved_from(inp, qual)
        if bodydrift._find(old_text, qual) is not None:
            continue  # upstream had it at the baseline: body drift and copy lag compare it
        if bodydrift._how(inp, ours_file, mine, qual) == "override" \
                and bodydrift.similarity(new, mine) < bodydrift.MIN_SIMILAR:
            continue  # an override of its own design
        positional = bodydrift._positional(mine)
        theirs, ours = _calls(new), _calls(mine)
        for callee, u_calls in theirs.items():
            mine_calls = [c for c in ours.get(callee, ())
                          if not any(k.arg is None for k in c.keywords)]
            if not mine_calls or len(mine_calls) != len(ours.get(callee, ())):
                continue  # not made by the copy, or made with **kwargs (anything may pass)
            for u in u_calls:
                wanted = {k.arg: bodydrift._norm(ast.unparse(k.value)) for k in u.keywords
                          if k.arg}
                # the copy's call closest to upstream's (most keywords in common)
                best = max(mine_calls, key=lambda c: len(wanted.keys() & {
                    k.arg for k in c.keywords}))
                have = {k.arg for k in best.keywords}
                short = callee.rsplit(".", 1)[-1]
                missing = tuple(sorted(a for a, v in wanted.items() if a not in have
                                       and (short, v) not in positional))
                if missing:
                    sha = attribution.introduced(
                        inp, up_file, lambda t, q=qual: bodydrift._find(t, q) is not None)
                    out.append(NewCopyKeywords(f"{ours_file}:{best.lineno}",
                                               f"{up_file}:{u.lineno}", qual, callee,
                                               missing, sha))
    return out
