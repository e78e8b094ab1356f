"""S-4 items for references to core that are broken at HEAD (#22): one action per
missing name (every site that uses it listed), P0 where it fails when the line runs,
with the commit that removed it when the window shows it; and one FYI line counting
the references that could not be checked, and why.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

import difflib
from typing import Any

from agentops.scout.analyses import coreindex
from agentops.scout.analyses import pysource as ps
from agentops.scout.itemize.common import base, code, names, place_file, short
from agentops.scout.model import PRIORITY_OF, Inputs, Item, stable_id

_WHAT = {"attribute": "has no attribute", "keyword": "no longer accepts the keyword",
         "import": "no longer defines", "argument": "requires",
         "module": "no longer defines"}


def _near(inp: Inputs, ref: Any) -> str:
    """A member of the class that is close to the missing name (a rename), or ""."""
    if ref.kind != "attribute" or not ref.owner_file:
        return ""
    owner = coreindex.for_tree(inp.head).resolve(ref.owner_file, ref.owner)
    if owner is None or owner.kind != "class":
        return ""
    names, _why = coreindex.for_tree(inp.head).members(owner)
    found = difflib.get_close_matches(ref.name, sorted(names), n=1, cutoff=0.75)
    return found[0] if found else ""


def _defined_in(inp: Inputs, name: str) -> list[str]:
    """Core modules (dotted) that define ``name`` at top level, for a moved import."""
    sub = inp.target.subproject.rstrip("/") + "/"
    found = []
    for path, text in sorted(inp.head.files.items()):
        if path.endswith(".py") and not path.startswith(sub) and name in text \
                and name in ps.top_level_defs(text):
            found.append(ps.module_name(path))
    return found


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    result = res.get("core_refs")
    if result is None:
        return []
    groups: dict[tuple[str, str, str], list[Any]] = {}
    for ref in result.broken:
        groups.setdefault((ref.kind, ref.owner, ref.name), []).append(ref)
    out: list[Item] = []
    for (kind, owner, name), refs in sorted(groups.items()):
        first = refs[0]
        severity = "blocking" if any(r.severity == "blocking" for r in refs) else "should-fix"
        sites = sorted({r.loc for r in refs})
        shown = names(sites, 4)
        changed = "changed" if kind == "argument" else "removed"
        if first.when == "in the window":
            when = (f"{changed} in the window by {short(first.commit)}" if first.commit
                    else f"{changed} in the window")
        elif first.when == "owner new in the window":
            # The break came with what the name is looked up on, not before the window.
            when = f"{code(owner)} itself is new in the window" + (
                f" ({short(first.commit)})" if first.commit else "")
        elif first.when == "before the window":
            # Absent at the baseline too: when it went (if it ever was) is not shown.
            when = ("the same at the baseline" if kind == "argument"
                    else "absent at the baseline too")
        else:
            when = "no baseline commit to tell when it went"
        target = f"{code(owner)} ({base(first.owner_file)})" if first.owner_file else \
            code(owner)
        near = _near(inp, first)
        if kind == "attribute":
            how = f"reads it ({first.detail})" if len(refs) == 1 else "read it"
            breaks = "raises AttributeError when that line runs"
            fix = (f"use `{near}` (the nearest member {code(owner)} has now)" if near else
                   f"take it from where core keeps it now, or drop the use (grep core's "
                   f"history for `{name}`)")
        elif kind == "keyword":
            how = "passes it" if len(refs) == 1 else "pass it"
            breaks = "raises TypeError when that call runs"
            fix = f"drop `{name}=` or pass what the callee takes now"
        elif kind == "argument":
            # The callee's own file:line next to the call's: both sides of the break.
            target = f"{code(owner)} ({first.detail.split(' ', 1)[0]})"
            positional = name.endswith(" positional")
            how = (f"pass{'es' if len(refs) == 1 else ''} "
                   + (f"{name.split()[0]} positional arguments" if positional
                      else "no value for it"))
            breaks = "raises TypeError when that call runs"
            fix = (f"pass `{name}` the way core's own callers do" if not positional else
                   f"bind the arguments to {code(owner)}'s signature at HEAD "
                   f"({first.detail.split(' ', 1)[-1]})")
        elif kind == "module":
            # ``m.X`` on an imported core module: the detail is that dotted read.
            how = f"reads it as {code(first.detail)}" if len(refs) == 1 else "read it"
            breaks = "raises AttributeError when that line runs"
            homes = _defined_in(inp, name)
            fix = (f"take `{name}` from `{homes[0]}`, where core defines it now" if homes
                   else f"`{name}` is defined nowhere in core now: use what replaced it "
                        f"(grep core's history for `{name}`) or drop the use")
        else:
            how = "imports it" if len(refs) == 1 else "import it"
            breaks = "fails on import"
            homes = _defined_in(inp, name)
            fix = (f"import `{name}` from `{homes[0]}`, where core defines it now"
                   + (f" (also defined in {len(homes) - 1} other file(s))"
                      if len(homes) > 1 else "") if homes else
                   f"`{name}` is defined nowhere in core now: drop the import or vendor it")
        title = f"{target} {_WHAT[kind]} {code(name)} at HEAD; {shown} {how}"
        if kind == "argument" and name.endswith(" positional"):
            title = f"{target} takes fewer positional arguments at HEAD; {shown} {how}"
        if kind == "import" and first.detail:
            title = (f"core module {code(owner)} does not exist at HEAD; {shown} "
                     f"{how.replace(' it', '')} {code(name)} from it")
        out.append(Item(
            id=stable_id("core-ref", kind, owner, name), section="S-4", kind="action",
            title=title,
            why=f"{breaks} ({when})", where=", ".join(sites),
            priority=PRIORITY_OF[severity], severity=severity,
            files=tuple(dict.fromkeys(place_file(s) for s in sites))
            + ((first.owner_file,) if first.owner_file else ()),
            fix=fix, facts=tuple(sites)))
    if out and result.unchecked:
        out.append(Item(
            id=stable_id("core-ref-unchecked", inp.target.name), section="S-4", kind="fyi",
            title="References to core"
                  + unchecked_tail(result).replace("; not checked:", " not checked:", 1),
            facts=tuple(sorted(result.unchecked))))
    return out


def clear_line(res: dict[str, Any]) -> str:
    """The All Clear line when every checked reference resolves ("" when nothing was
    checked or something is broken); the not-checked counts ride along."""
    result = res.get("core_refs")
    if result is None or result.broken or not sum(result.checked.values()):
        return ""
    parts = ", ".join(f"{n} {k} reference(s)" for k, n in sorted(result.checked.items()))
    return f"References to core: {parts} resolve at HEAD" + unchecked_tail(result)


def unchecked_tail(result: Any) -> str:
    if not result.unchecked:
        return ""
    shown = "; ".join(f"{n} ({why})" for why, n in sorted(result.unchecked.items(),
                                                          key=lambda kv: -kv[1])[:4])
    return f"; not checked: {shown}"
