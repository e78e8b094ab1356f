"""S-3 items for branches a setting selects that nothing running the folder sets
(``settingbranches``): one Opportunity per target, each branch with ``file:line``.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.itemize.common import code, names, plural, rel
from agentops.scout.model import Inputs, Item, stable_id

_SHOWN = 6


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    result = res.get("setting_branches")
    found = result.branches if result is not None else ()
    if not found:
        return []
    sub = inp.target.subproject
    # The same test in several places of one file is one untested setting, several lines.
    groups: dict[tuple[str, str, str, str], list[int]] = {}
    for b in found:
        groups.setdefault((b.file, b.condition, b.setting, b.wanted), []).append(b.line)
    shown = "; ".join(
        f"{code(cond)} ({rel(file, sub)}:{', '.join(map(str, lines))}; needs `{setting}` "
        f"{'set ' + wanted if wanted == 'above 1' else 'in ' + wanted})"
        for (file, cond, setting, wanted), lines in list(groups.items())[:_SHOWN])
    keys = list(groups)
    more = f" and {len(keys) - _SHOWN} more" if len(keys) > _SHOWN else ""
    cases = result.cases
    ran = (f"the folder's test cases in {names(cases, limit=3)} and the registry configs "
           "they run" if cases else "no integration test case launches the folder")
    return [Item(
        id=stable_id("setting-branches", inp.target.name), section="S-3",
        kind="opportunity",
        title=f"{plural(len(keys), 'branch')} selected by a setting no test running "
              f"{code(sub + '/')} sets: {shown}{more}",
        why=f"searched: its own tests, {ran}; a branch no CI job selects breaks unnoticed "
            "(add a test case that sets it, or say where it is run)",
        files=tuple(sorted({g[0] for g in keys})),
        facts=tuple(sorted(f"{g[0]}:{g[1]}" for g in keys)))]
