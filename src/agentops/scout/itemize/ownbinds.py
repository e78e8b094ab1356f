"""#22 defect 5 items: a call of the folder's own function that cannot bind at HEAD
(``ownbinds``): one action per call, naming the call's and the function's ``file:line``,
what fails binding, and who changed the signature when the baseline had another one. A
call through a parameter that falls back to the function runs only when the caller
passes nothing: P1 (the title says so); a direct call breaks whenever it runs: P0.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.itemize.common import code, made_by, rel
from agentops.scout.model import PRIORITY_OF, Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    sub = inp.target.subproject
    out: list[Item] = []
    for b in res.get("own_binds") or []:
        call = f"{b.file}:{b.line}"
        callee = f"{b.callee_file}:{b.callee_line}"
        how = (f"through {code(b.via)} (set to it when no {code(b.via)} is given) "
               if b.via else "")
        title = (f"{code(b.callee)} ({rel(callee, sub)}) takes {code(b.signature[:80])} at "
                 f"HEAD; the call at {rel(call, sub)} {how}{'; '.join(b.problems)}")
        changed = (f"; its signature changed in the window "
                   f"({made_by(b.commit, b.callee_file, inp.target.watched_paths)})"
                   if b.changed else "")
        severity = "should-fix" if b.via else "blocking"
        out.append(Item(
            id=stable_id("own-bind", b.file, b.callee, b.via), section="S-4", kind="action",
            title=title,
            why=f"raises TypeError when that call runs{changed}",
            where=call, priority=PRIORITY_OF[severity], severity=severity,
            files=tuple(dict.fromkeys((b.file, b.callee_file))),
            fix=f"call {code(b.callee)} with what it takes now ({callee}), or give it back "
                "the parameters its callers pass",
            facts=(b.callee, call)))
    return out
