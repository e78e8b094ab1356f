"""#22 component-use items (group D): a method upstream calls on one of its components
in a function the copy re-implements, which the copy never calls (or calls without a
keyword every upstream call passes). One Opportunity per component and method, naming
both sites.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.itemize.common import code, place_file, rel
from agentops.scout.model import Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    sub = inp.target.subproject
    # A keyword call parity already reports on the same call is not repeated.
    parity = {(p.file, p.line, p.keyword) for p in res.get("call_parity", ())}
    out: list[Item] = []
    for g in res.get("component_use", ()):
        if g.how == "dropped" and (g.file, g.line, g.keyword) in parity:
            continue
        call = code(f"self.{g.component}.{g.method}(…)") if g.method else ""
        if g.how == "skipped":
            title = (f"upstream calls {call} ({g.upstream}) in a function the copy "
                     f"re-implements, and the copy ({rel(g.file, sub)}:{g.line}) never "
                     f"calls {code(g.method)} on its {code(g.component)}")
            why = (f"what core does to {code(g.component)} after building it (logs, "
                   "registers, hands over) does not happen in the copy")
        elif g.how == "spread":
            title = (f"{code(g.component + '(…)')} at {rel(g.file, sub)}:{g.line} does not "
                     f"get {code(g.keyword)}, which upstream's function of the same name "
                     f"builds and spreads into every such call ({g.upstream})")
            why = ("arguments core's loop hands this callee are dropped by the copy (inputs "
                   "beyond the first, model keywords)")
        else:
            title = (f"{call} at {rel(g.file, sub)}:{g.line} omits {code(g.keyword)}, "
                     f"which every upstream call ({g.upstream}) passes")
            why = f"the copy hands {code(g.component)} less than core does"
        out.append(Item(
            id=stable_id("component-use", g.file, g.component, g.method, g.how, g.keyword),
            section="S-4", kind="opportunity", title=title,
            why=why + "; do the same as upstream, or note why the copy differs",
            where=f"{g.file}:{g.line}", files=(g.file, place_file(g.upstream)),
            facts=(g.component, g.method, g.how, g.keyword)))
    return out
