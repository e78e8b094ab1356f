"""#22 config-field items (group I): a field of the sub-project's own config classes
(or a plain value its ``__init__`` keeps) no code reads, and an attribute read on such
a class that only one of its methods sets (with the dead field it stands for, when it is
one read under another name).
Opportunities: the code runs as long as the setting method is called first.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.itemize.common import code, listed, place_file, place_line, rel
from agentops.scout.model import Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    found = res.get("config_fields")
    if found is None:
        return []
    sub = inp.target.subproject
    out: list[Item] = []
    for d in found.dead:
        where = f"{d.file}:{d.line}"
        if d.kind == "field":
            title = (f"{code(d.cls + '.' + d.name)} ({rel(d.file, sub)}:{d.line}) is a field "
                     f"no code reads: setting it in a flavor or config changes nothing")
            if d.copied_to:
                into = listed((f"{code(a)} ({rel(f, sub)}:{n})" for a, f, n in d.copied_to), 2)
                title += (f" (its only reads copy it into {into}, "
                          f"which no code reads)")
            why = ("an option that does nothing misleads whoever sets it; read it where it "
                   "was meant to act, or drop it")
        else:
            title = (f"{code('self.' + d.name)} set by {code(d.cls + '.__init__')} "
                     f"({rel(d.file, sub)}:{d.line}) is read by no code")
            why = ("a value kept but never used: either the code that used it was removed "
                   "(drop it and its docstring) or the place meant to read it does not")
        out.append(Item(
            id=stable_id("dead-field", d.file, d.cls, d.name), section="S-4",
            kind="opportunity", title=title, why=why,
            where=where, files=(d.file,), facts=(d.cls, d.name, *(a for a, _f, _n in d.copied_to))))
    for u in found.undeclared:
        reads = listed((rel(place_file(r), sub) + ":" + place_line(r)
                        for r in u.reads), 3)
        sets = listed((s.replace(f" ({u.file}:", f" ({rel(u.file, sub)}:") for s in u.set_in), 2)
        title = (f"{code(u.name)} is read on {code(u.cls)} ({reads}) but is no field of it "
                 f"({rel(u.file, sub)}:{u.line}): only {sets} sets it, so code given a "
                 f"config that skipped that call fails with AttributeError")
        if u.from_field:
            title += (f"; it is set from {code(u.from_field)}, which is a field of the class "
                      f"no code reads (the field is read under another name)")
        first = u.reads[0]
        out.append(Item(
            id=stable_id("undeclared-field", u.file, u.cls, u.name), section="S-4",
            kind="opportunity", title=title,
            why=("a config built by another path (a conversion script, a test) lacks the "
                 "attribute; declare it as a field with a default"
                 + (f", or read {code(u.from_field)} where {code(u.name)} is read"
                    if u.from_field else "")),
            where=first, files=tuple(dict.fromkeys((u.file, *(r.rsplit(':', 1)[0]
                                                          for r in u.reads)))),
            facts=(u.cls, u.name, u.from_field)))
    return out
