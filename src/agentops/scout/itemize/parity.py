"""#22 parity items: calls a copied module makes differently from upstream's module
(a component pinned to ``None``, a keyword or a positional argument left out, a returned
value thrown away), one Opportunity per call and keyword, naming both call sites.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.itemize.common import code, place_file, rel
from agentops.scout.model import Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    return call_items(inp, res)


def call_items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    sub = inp.target.subproject
    # A call call_drift already reports (a configured pair's omitted keyword) is not
    # repeated.
    drifted = {(d.ours, k) for d in res.get("call_drift", ()) for k in d.missing}
    # A binding stale copies already names (read from the environment where upstream
    # takes the call's value) is the same finding.
    stale = {e.ours for e in getattr(res.get("stale_copies"), "envs", ())}
    out = []
    for p in res.get("call_parity", ()):
        where = f"{p.file}:{p.line}"
        if p.how == "omitted" and (where, p.keyword) in drifted:
            continue
        if p.how == "discarded" and p.ours_instead.split(" ", 1)[0] in stale:
            continue
        at = f"{code(p.callee)} at {rel(p.file, sub)}:{p.line}"
        if p.how == "pinned":
            title = (f"{at} passes {code(p.keyword + '=None')}, where upstream's call "
                     f"({p.upstream}) passes {code(p.keyword + '=' + p.upstream_value)}")
            why = f"what upstream hands over as {code(p.keyword)} is switched off in the copy"
        elif p.how == "omitted":
            title = (f"{at} omits {code(p.keyword)}, which upstream's call ({p.upstream}) "
                     f"passes as {code(p.upstream_value)} (not the callee's default)")
            why = "the copy runs the callee with its default where upstream does not"
        elif p.how == "short":
            what = p.keyword if p.keyword.startswith("argument ") else code(p.keyword)
            title = (f"{at} passes fewer positional arguments than upstream's call "
                     f"({p.upstream}), which also passes {code(p.upstream_value)} as {what}")
            why = ("the copy leaves out what upstream hands over: the call fails when "
                   "reached if the parameter has no default, else runs with the default")
        else:
            title = (f"{at} discards the value it returns, which upstream's call "
                     f"({p.upstream}) binds to {code(p.keyword)}; the copy sets "
                     f"{code(p.keyword)} from {p.ours_instead} instead")
            why = ("the copy's own source may disagree with what the call computed "
                   "(another launcher, a debug mode)")
        out.append(Item(
            id=stable_id("call-parity", p.file, p.callee, p.how, p.keyword), section="S-4",
            kind="opportunity", title=title,
            why=why + "; do the same as upstream, or note why the copy differs",
            where=where, files=(p.file, place_file(p.upstream)),
            facts=(p.callee, p.how, p.keyword, p.upstream_value)))
    return out

