"""Analysis results → report items (S-7), one module per report area; each item says
what was found, why it matters and the concrete fix, and points at the sub-project's
code (``file:line``) whenever it is an action.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.itemize import (
    clear,
    commentconds,
    componentuse,
    configfields,
    configkeys,
    corerefs,
    debt,
    delta,
    docs,
    graddivision,
    guardgaps,
    modelprep,
    openwork,
    ownbinds,
    parity,
    partreads,
    refusaldrift,
    savelists,
    settings,
    siblingsettings,
    tests,
    todos,
    unbound,
)
from agentops.scout.model import Inputs, Item


def build(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """Candidate items of this run (before reconciliation with the priors)."""
    items: list[Item] = []
    for area in (delta, todos, tests, settings, debt, parity, componentuse, configfields,
                 configkeys,
                 siblingsettings, partreads, modelprep, refusaldrift, guardgaps, savelists,
                 corerefs, unbound, ownbinds, commentconds, graddivision, docs, openwork):
        items += area.items(inp, res)
    items += clear.items(inp, res, items)
    seen: set[str] = set()
    out = []
    for it in items:
        if it.id not in seen:
            seen.add(it.id)
            out.append(it)
    return out
