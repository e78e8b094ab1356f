"""#22 defect 4 items: an op save list of the sub-project that keeps the outputs of a
family of kernels, one op per member the shared code selects, but lacks the op of a
member the same code also selects (``savelists``). Opportunities: the gap costs time
only where that member is picked.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.itemize.common import code, names, rel
from agentops.scout.model import Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    sub = inp.target.subproject
    out: list[Item] = []
    for g in res.get("save_list_gaps") or []:
        title = (f"the op save list {code(g.name)} ({rel(g.file, sub)}:{g.line}) keeps the "
                 f"ops of {names(f'{g.enum}.{m}' for m in g.covered)} but not "
                 f"{code(g.op)}, the op of {code(f'{g.enum}.{g.member}')}, which "
                 f"{g.select_file}:{g.select_line} selects too")
        out.append(Item(
            id=stable_id("save-list-gap", g.file, g.name, g.member), section="S-4",
            kind="opportunity", title=title,
            why=("a selective checkpoint policy saves only the ops its list names: where the "
                 "shared code picks that kernel, its output is recomputed in the backward, "
                 "which the list keeps for the others; add the op to the list or say why "
                 "it is left out"),
            where=f"{g.file}:{g.line}",
            files=(g.file, g.select_file),
            facts=(g.name, g.member, g.op)))
    return out
