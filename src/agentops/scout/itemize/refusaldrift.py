"""#22 defect 6 items: a refusal the sibling folders rewrote or added in the window that
the sub-project did not follow (``refusaldrift``). Opportunities: the sibling's reason
may not apply here.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.itemize.common import code, listed, place_file, rel
from agentops.scout.model import Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    sub = inp.target.subproject
    out: list[Item] = []
    for d in res.get("refusal_drift") or []:
        where = listed(d.siblings, 3)
        said = f": \"{d.message[:60]}\"" if d.message else ""
        if d.change == "rewritten":
            title = (f"this folder still refuses {code('if ' + d.condition)} "
                     f"({rel(d.file, sub)}:{d.line}), a check {len(d.siblings)} sibling folder(s) "
                     f"rewrote in the window to {code('if ' + d.now)} ({where}{said})")
            why = ("the copies of this check have diverged: the sibling narrowed it once "
                   "the case worked, or corrected a test that could no longer fire; follow "
                   "it or say why this folder differs")
        elif d.change == "differs":
            title = (f"this folder refuses {code('if ' + d.condition)} "
                     f"({rel(d.file, sub)}:{d.line}), written otherwise than the refusal "
                     f"{code('if ' + d.now)} {len(d.siblings)} sibling folders added in the "
                     f"window ({where}{said})")
            why = ("the copies of this check differ: the siblings refuse another case of the "
                   "same settings now; follow them or say why this folder differs")
        else:
            title = (f"{len(d.siblings)} sibling folders added the refusal "
                     f"{code('if ' + d.condition)} in the window ({where}{said}); this "
                     f"folder tests the same setting ({rel(d.file, sub)}:{d.line}) and never "
                     f"refuses that case")
            why = ("the siblings found the case fails and refuse it with a message; this "
                   "folder runs into it silently unless it handles the case another way")
        out.append(Item(
            id=stable_id("refusal-drift", d.file, d.change, d.condition), section="S-4",
            kind="opportunity", title=title, why=why, where=f"{d.file}:{d.line}",
            files=tuple(dict.fromkeys((d.file, *(place_file(s) for s in d.siblings)))),
            facts=(d.change, d.condition[:60])))
    return out
