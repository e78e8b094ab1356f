"""#22 defect 8 items: a second caller of the model parts in the shared code (the object
the trainer hands its parts to) that calls them without the call the first caller makes
on the same input under a condition on one of the sub-project's fields, while a value
the sub-project sets makes that condition hold (``modelprep``). Opportunities: the path
runs only with that setting on.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.itemize.common import code, listed
from agentops.scout.model import Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    out: list[Item] = []
    for s in res.get("skipped_preparations") or []:
        setters = (f"flavor {s.flavors[0]} sets" if len(s.flavors) == 1
                   else f"flavors {listed(s.flavors, 3)} set" if s.flavors
                   else "this folder's code sets")
        title = (f"{s.file}:{s.line} ({code(s.caller)}) calls the model parts without "
                 f"{code(s.prep)}, which {code(s.first)} ({s.prep_file}:{s.prep_line}) "
                 f"makes on the same input when {code(s.field)} is "
                 f"{' or '.join(s.values)}; {setters} it so, and then "
                 f"{code(s.caller)} runs the model without that preparation")
        out.append(Item(
            id=stable_id("skipped-preparation", s.file, s.caller, s.field), section="S-4",
            kind="opportunity", title=title,
            why=("the two callers feed the model differently: with that setting the second "
                 "one runs it on state left by the first (a mask of another batch) or without "
                 "an argument the model then requires; make the same call there, or share "
                 "one helper that prepares the input for both"),
            where=f"{s.file}:{s.line}",
            files=(s.file, s.prep_file),
            facts=(s.caller, s.first, s.field)))
    return out
