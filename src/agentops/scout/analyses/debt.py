"""S-4 freshness and debt: private API use (``_``-prefixed imports under the configured
roots, configured names) and duplicated-logic pairs whose upstream side changed since
the baseline.

Pure: reads the loaded trees; returns frozen records.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentops.scout.analyses import direction
from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class PrivateUse:
    file: str
    line: int
    module: str
    name: str
    reason: str  # "private module" | "private name" | "configured private API"
    public_alternative: str = ""  # "torch.x.Name" when the installed torch defines one


@dataclass(frozen=True)
class DuplicateChange:
    ours: tuple[str, ...]
    upstream: tuple[str, ...]  # the upstream files that changed since the baseline
    why: str
    commits: tuple[str, ...]


def private_api_uses(inp: Inputs) -> list[PrivateUse]:
    """Every private import in the sub-project (tests included: they break too), from
    any package it imports (#22 defect 9): ``private_import_roots`` only decides which
    ones are listed first; a private name of the repository's core or of vLLM breaks as
    easily as one of torch."""
    cfg = inp.target.section("private_api")
    names = set(cfg.get("names", []))
    own = inp.target.own_packages
    sub = inp.target.subproject + "/"
    out: list[PrivateUse] = []
    for path in sorted(inp.head.files):
        if not (path.startswith(sub) and path.endswith(".py")):
            continue
        for use in ps.import_uses(ps.parse(inp.head.files[path])):
            root = use.module.split(".")[0]
            if use.module.startswith(".") or any(use.module == o or use.module.startswith(
                    o + ".") for o in own):
                continue  # the sub-project's own `_names` are its business, not private API
            if use.name in names or (not use.name and use.module.split(".")[-1] in names):
                out.append(PrivateUse(path, use.line, use.module, use.name,
                                      "configured private API",
                                      _public_alternative(inp, use.name, use.module)))
            elif root != "__future__" and any(p.startswith("_") and not p.startswith("__")
                                              for p in use.module.split(".")):
                out.append(PrivateUse(path, use.line, use.module, use.name, "private module"))
            elif use.name.startswith("_") and not use.name.startswith("__"):
                out.append(PrivateUse(path, use.line, use.module, use.name, "private name"))
    return out


def _public_alternative(inp: Inputs, name: str, module: str) -> str:
    """A public home for a private API in the indexed installed package (``--torch``),
    when the private API comes from that package: the name without its leading
    underscore, or the same name, defined in a module with no private part."""
    if inp.torch is None or not name or module.split(".", maxsplit=1)[0] != inp.torch.name:
        return ""
    for cand in dict.fromkeys((name.lstrip("_"), name)):
        # The same name where it is imported from already is not an alternative.
        mods = [m for m in inp.torch.public_modules(cand) if cand != name or m != module]
        if mods:
            return f"{mods[0]}.{cand}"
    return ""


def duplicate_changes(inp: Inputs) -> list[DuplicateChange]:
    """Configured (ours, upstream) pairs whose upstream files changed since the
    baseline: the duplicated logic may now differ, or core may offer it."""
    if inp.base is None:
        return []
    out = []
    downstream = direction.downstream_files(inp)  # a copy of ours: its changes are its own
    for pair in inp.target.raw.get("duplicate_logic", []):
        changed = tuple(u for u in pair["upstream"]
                        if inp.head.text(u) is not None and inp.base.text(u) != inp.head.text(u)
                        and u not in downstream)
        if changed:
            shas = tuple(dict.fromkeys(c.sha for c in inp.commits
                                       if any(u in c.files for u in changed)))
            ours = tuple(o for o in pair["ours"] if o in inp.head.paths)
            out.append(DuplicateChange(ours or tuple(pair["ours"]), changed,
                                       pair.get("why", ""), shas))
    return out
