"""#22 defect 6 items: a setting no refusal covers as it should (``guardgaps``): a check
stricter than the reason its property gives, a refusal lost with the shared function
that held it, a value that silently takes a catch-all path. Opportunities: the refusal
(or its absence) may be deliberate.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.itemize.common import code, listed, names, place_file, rel
from agentops.scout.model import Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    sub = inp.target.subproject
    out: list[Item] = []
    for g in res.get("guard_gaps") or []:
        at = f"{rel(g.file, sub)}:{g.line}"
        where = listed(g.elsewhere, 3)
        if g.form == "reason":
            title = (f"the check at {at} refuses through {code(g.detail)} ({where}), whose "
                     f"comments give a feature as the reason, but it never reads that "
                     f"feature's switch {code(g.setting)}, which this folder reads elsewhere: "
                     f"with the switch off it still refuses what only the feature needs")
            why = ("a check stricter than its stated reason rejects runs that would work; "
                   "test the switch in the check, or say why the limit holds without the "
                   "feature")
        elif g.form == "lost":
            title = (f"at the baseline this folder reached the refusal {code('if ' + g.detail)} "
                     f"of {code(g.path)} ({where}) through its call at {at}; it no longer "
                     f"calls {code(g.path)} and no refusal at HEAD reads "
                     f"{names(g.setting.split(', '))} together, so that combination now runs "
                     f"unchecked")
            why = ("a refusal that lived in a shared builder went away with the builder; "
                   "the settings it refused can still be chosen and now run silently; "
                   "restore the check where the settings are read, or say why the case "
                   "works now")
        else:
            runs = f", which calls {code(g.path)}" if g.path else ""
            title = (f"{code(g.setting)} values {names(g.detail.split(', '))} (dispatched "
                     f"on at {where}) fall to the catch-all arm at {at}{runs}; nothing in "
                     f"this folder names or refuses them, so such a setting runs that path "
                     f"silently")
            why = ("a catch-all that runs a path turns an unsupported or misspelt value into "
                   "a silent change of behaviour; name the supported values and raise on the "
                   "rest, as the code that dispatches on the other values does")
        out.append(Item(
            id=stable_id("guard-gap", g.file, g.form, g.setting), section="S-4",
            kind="opportunity", title=title, why=why, where=f"{g.file}:{g.line}",
            files=tuple(dict.fromkeys((g.file, *(place_file(s) for s in g.elsewhere)))),
            facts=(g.form, g.setting[:60])))
    return out
