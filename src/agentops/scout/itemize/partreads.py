"""#22 defect 8 items: a member the repository's shared training code reads on every
model part, unguarded, that the sub-project's registered module class neither defines
nor inherits while a sibling folder's class registered the same way does (``partreads``).
Opportunities: the run fails only on the path that reads it.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.itemize.common import code, listed, place_file, rel
from agentops.scout.model import Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    sub = inp.target.subproject
    out: list[Item] = []
    for m in res.get("part_member_reads") or []:
        reads = listed(m.reads, 3)
        title = (f"{reads} read {code('.' + m.member)} on every model part with no "
                 f"`hasattr` guard, but {code(m.cls)} ({rel(m.file, sub)}:{m.line}, "
                 f"registered as {code(m.keyword)}) neither defines nor inherits "
                 f"{code(m.member)} ({code(m.sibling)}, registered the same way, does)")
        if m.reach:
            title += (f"; this folder lets that path run ({rel(m.reach.rsplit(':', 1)[0], sub)}"
                      f":{m.reach.rsplit(':', 1)[1]} tests the same condition)")
        out.append(Item(
            id=stable_id("part-member-read", m.file, m.cls, m.member), section="S-4",
            kind="opportunity", title=title,
            why=("the shared code still uses a name this model renamed or never had: "
                 "the path that reads it fails with AttributeError; keep the member under "
                 "the name the shared code reads, or refuse the path with a clear message"),
            where=f"{m.file}:{m.line}",
            files=tuple(dict.fromkeys((m.file, *(place_file(r) for r in m.reads),
                                       *((place_file(m.reach),) if m.reach else ())))),
            facts=(m.cls, m.member, m.keyword)))
    return out
