"""#22 defect 5 items: a name the sub-project's code reads that nothing binds
(``unbound``): one P0 action per module and name, every read listed (a should-fix
opportunity when only functions nothing reaches read it; a P1 action in the folder's
test files, whose NameError fails a test, not the folder's code), with the core
modules that define the name when there are any (the import the copy lacks). Its
fingerprint is the module and the name: a read that only moved is the same finding.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.itemize.common import code, names, rel
from agentops.scout.itemize.corerefs import _defined_in
from agentops.scout.model import PRIORITY_OF, Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    sub = inp.target.subproject
    out: list[Item] = []
    for u in res.get("unbound_names") or []:
        sites = [f"{u.file}:{n}" for n in u.lines]
        where = f" (in {code(u.scope)})" if u.scope else ""
        title = (f"{code(u.name)} is read at {names([rel(s, sub) for s in sites], 4)}{where}, "
                 f"but {rel(u.file, sub)} never imports, defines or assigns it and it is "
                 f"no builtin")
        homes = _defined_in(inp, u.name)
        fix = (f"import {code(u.name)} from {code(homes[0])}" if len(homes) == 1 else
               f"import {code(u.name)} from the module that defines it "
               f"({', '.join(code(h) for h in homes[:3])})" if homes else
               f"define or import {code(u.name)}")
        if not u.reached:
            # Only functions nothing in the repository calls or names read it: dead or
            # unreached code, a NameError for the first caller, not a break now (#22
            # defect 5: P0 only for code that breaks now).
            out.append(Item(
                id=stable_id("unbound-name", u.file, u.name), section="S-4",
                kind="opportunity", title=f"{title}; no code of the repository calls or "
                f"names the function that reads it",
                why="dead or unreached code: NameError once anything calls it",
                where=f"{u.file}:{u.line}", priority=PRIORITY_OF["should-fix"],
                severity="should-fix", files=(u.file,),
                fix=f"{fix}, or remove the unreached function", facts=(u.file, u.name)))
            continue
        severity = "should-fix" if u.test else "blocking"
        out.append(Item(
            id=stable_id("unbound-name", u.file, u.name), section="S-4", kind="action",
            title=title,
            why="the line raises NameError whenever it is reached"
            + (" (a test file: the test fails on it, not what it means to check)"
               if u.test else ""),
            where=f"{u.file}:{u.line}", priority=PRIORITY_OF[severity],
            severity=severity, files=(u.file,), fix=fix, facts=(u.file, u.name)))
    return out
