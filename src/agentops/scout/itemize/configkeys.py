"""#22 train-config keys that name no config field (S-4): a TOML of the sub-project sets
a key the job config's section has no field for. An action when the key (or section) was
a field at the baseline (renamed or removed in the window: what the file asks for is now
silently lost); an opportunity when it never named one.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.itemize.common import code, rel, short
from agentops.scout.model import Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    found = res.get("config_keys") or []
    sub = inp.target.subproject
    out: list[Item] = []
    for k in found:
        where = f"{k.file}:{k.line}"
        if k.cls:
            title = (f"{code(k.key)} set in {rel(k.file, sub)}:{k.line} names no field of "
                     f"the job config ({code(k.cls)}, {rel(k.cls_file, sub)} has none)")
        else:
            title = (f"section {code(k.key)} of {rel(k.file, sub)}:{k.line} names no section "
                     f"of the job config")
        if k.near:
            title += f"; the closest field is {code(k.near)}"
        if k.was_field:
            title += (": it was one at the baseline, renamed or removed in the window"
                      + (f" ({short(k.commit)})" if k.commit else "")
                      + ", so what the file asks for is lost")
        else:
            title += ": the setting is read by nothing (ignored or rejected at load)"
        out.append(Item(
            id=stable_id("unread-config-key", k.file, k.key), section="S-4",
            kind="action" if k.was_field else "opportunity", title=title,
            priority="P1" if k.was_field else "",
            why=("a config key the loader does not map to a field changes nothing the run "
                 "does; rename it to the field that replaced it, or drop it"),
            fix=(f"rename {code(k.key)} to {code(k.near)}" if k.near
                 else f"drop {code(k.key)} or restore the field it set"),
            where=where, files=(k.file, *((k.cls_file,) if k.cls_file else ())),
            facts=(k.key, k.cls, k.near)))
    return out
