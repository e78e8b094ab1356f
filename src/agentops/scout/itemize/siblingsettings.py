"""#22 sibling-setting items (S-4): a setting every sibling folder hands to a shared
helper that the sub-project's call leaves out, and a fallback the siblings apply in a
method the sub-project also defines. Opportunities: the sibling's reason may not apply.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.itemize.common import code, listed, place_file, rel
from agentops.scout.model import Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    sub = inp.target.subproject
    out: list[Item] = []
    for s in res.get("sibling_settings", ()):
        where = f"{s.file}:{s.line}"
        sibs = listed(s.siblings, 4)
        files = (s.file, *sorted({place_file(a) for a in s.siblings}))
        if s.rule == "keyword":
            callee = s.place.rsplit(":", 1)[-1]
            title = (f"{code(callee)} is called at {rel(s.file, sub)}:{s.line} without "
                     f"{', '.join(code(n) for n in s.names)}, which every sibling folder "
                     f"calling it passes from the setting(s) {code(s.setting)} ({sibs}); "
                     f"no code of this folder reads that setting")
            why = ("a user who sets it gets the default here without a word; pass it on "
                   "as the siblings do, or refuse the setting for this model")
        else:
            title = (f"{code(s.place)} ({rel(s.file, sub)}:{s.line}) lacks the fallback "
                     f"{len(s.siblings)} sibling folders make there ({sibs}): under "
                     f"{code(s.setting)} they set {code(s.names[0])}, which no code of this "
                     f"folder sets although its method reaches the same sub-config")
            why = ("where the siblings fall back (older hardware, an unsupported "
                   "combination) this model fails or runs the unsupported path; add the "
                   "same fallback, or note why this model does not need it")
        out.append(Item(
            id=stable_id("sibling-setting", s.file, s.rule, s.place, *s.names),
            section="S-4", kind="opportunity", title=title, why=why, where=where,
            files=files, facts=(s.place, *s.names, s.setting)))
    return out
