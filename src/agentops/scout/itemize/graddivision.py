"""#22 items: gradient reductions divided otherwise than the code around them assumes
(``graddivision``): one Action per finding (P1, should-fix), naming the folder's line,
the repository line that sets the division it lacks or borrows, and the scale the
gradients take. An action: a step scaled by a mesh size is a training bug, though only
runs with that data-parallel degree above one show it.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.analyses.graddivision import BORROWED, MESH, SIBLING
from agentops.scout.itemize.common import code, names, rel
from agentops.scout.model import PRIORITY_OF, Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    sub = inp.target.subproject
    out: list[Item] = []
    for g in res.get("gradient_divisions") or []:
        at = f"{rel(g.file, sub)}:{g.line}"
        helper = f" (`{g.helper}`, {g.other})" if g.helper else f" ({g.other})"
        if g.form == SIBLING:
            title = (f"{code(g.function)} at {at} wraps through {code(g.callee)} "
                     f"({g.through}), which keeps data-parallel gradient averaging, while "
                     f"{code(g.other_name)} at :{g.off_line} switches the gradient division "
                     f"off{helper}: the two data-parallel paths divide the same loss's "
                     "gradients differently")
            why = ("the loss is normalised for the division-off path; on the averaging "
                   "path its gradients are divided by the data-parallel degree once more "
                   "(smaller steps on that path only)")
            fix = ("give the averaging path the same division (a gradient divide factor "
                   "of 1, or the helper that switches it off), or normalise its loss to "
                   "match")
        elif g.form == MESH:
            since = " since the baseline" if g.new else ""
            title = (f"{code(g.function)} at {at} wraps parts of one model with "
                     f"{code(g.callee)} over different meshes ({names(g.meshes, 3)}), each "
                     "with FSDP's default gradient division (no `gradient_divide_factor`), "
                     f"while {code(g.other_name)} at {g.other} sets a gradient divide "
                     f"factor{since}: the parts' gradients are divided by different mesh "
                     "sizes")
            why = ("parameters sharded over the smaller mesh still receive gradients "
                   "from tokens of the larger one, so their averaged gradients come out "
                   "larger than the rest of the model's by the ratio of the mesh sizes")
            fix = ("pass one `gradient_divide_factor` (the degree the loss is averaged "
                   "over) to each wrap, as the repository's own wrapping does")
        elif g.form == BORROWED:
            said = f"`{g.helper}`, {g.other}" if g.helper else g.other
            if g.registered[1]:
                said += (f"; {g.registered[0]} of the {g.registered[1]} parallelize "
                         "functions the repository registers do so")
            title = (f"{code(g.function)} runs its own backward at {at} on a model built "
                     f"by {code(g.callee)} ({rel(g.through, sub)}), whose wrapping switches "
                     f"FSDP's gradient division off ({said}), and nothing in the "
                     "folder divides the loss by a count summed over ranks: with data "
                     "parallel above one, the gradients are summed over the ranks")
            why = ("the division-off wrapping expects a loss normalised across ranks; a "
                   "per-rank loss makes the step grow with the data-parallel degree")
            fix = ("normalise the loss by a count (or rank number) summed over the "
                   "data-parallel ranks, or switch the division back on for this model")
        else:
            continue
        out.append(Item(
            id=stable_id("gradient-division", g.file, g.form, g.function), section="S-4",
            kind="action", title=title, why=why, where=f"{g.file}:{g.line}",
            priority=PRIORITY_OF["should-fix"], severity="should-fix",
            files=(g.file,), fix=fix,
            facts=tuple(x for x in (g.callee, g.other_name, g.helper) if x)))
    return out
