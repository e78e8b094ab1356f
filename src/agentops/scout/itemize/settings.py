"""S-3 items for configuration nothing runs: branches a setting selects that nothing
running the folder sets (``settingbranches``, one Opportunity per target, each branch
with ``file:line``), paths two settings select that no one case sets together
(``settingpairs``, one per target), table entries no config or test selects
(``flavors``), entries of a registered table no test case runs (``specflavors``), and
branches on a model-args value no flavor sets (``fieldvalues``, one per field).

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.itemize.common import code, names, plural, rel
from agentops.scout.model import Inputs, Item, stable_id

_SHOWN = 6


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    return (_branches(inp, res) + _pairs(inp, res) + flavor_items(inp, res)
            + unrun_flavor_items(inp, res) + value_items(inp, res))


def _pairs(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """One Opportunity per target: paths two settings select together that no single
    test case of the folder sets together (``settingpairs``)."""
    result = res.get("setting_pairs")
    found = result.pairs if result is not None else ()
    if not found:
        return []
    sub = inp.target.subproject
    shown = "; ".join(
        f"{code(p.inner)} under {code(p.outer)} ({rel(p.file, sub)}:{p.line}, read at "
        f":{p.inner_line}; needs `{p.outer_settings}` above 1 with `{p.inner_settings}`"
        + (f"; the one case setting both is commented out at {rel(p.disabled, sub)}"
           if p.disabled else "") + ")"
        for p in found[:_SHOWN])
    more = f" and {len(found) - _SHOWN} more" if len(found) > _SHOWN else ""
    apart = any(not p.disabled for p in found)
    off = any(p.disabled for p in found)
    how = "; ".join(
        (["each setting is set by some case, never both by one"] if apart else [])
        + (["a case that set both was commented out and no live case took its place"]
           if off else []))
    return [Item(
        id=stable_id("setting-pairs", inp.target.name), section="S-3", kind="opportunity",
        title=f"{plural(len(found), 'path')} of {code(sub + '/')} two settings select "
              f"together that no test case sets together: {shown}{more}",
        why=f"searched: the folder's {result.cases} integration test cases one by one and "
            f"the configs each loads; {how}, so that combination runs on no CI job "
            "(add a case that sets both, or re-enable the disabled one)"
            if off else
            f"searched: the folder's {result.cases} integration test cases one by one and "
            f"the configs each loads; {how}, so that combination runs on no CI job "
            "(add a case that sets both)",
        files=tuple(sorted({p.file for p in found})),
        facts=tuple(sorted(f"{p.file}:{p.line}:{p.inner_line}" for p in found)))]


def _branches(inp: Inputs, res: dict[str, Any]) -> list[Item]:
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


def flavor_items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """One Opportunity per table with keys nothing selects (``flavors``)."""
    out: list[Item] = []
    for f in res.get("unreached_flavors", ()):
        shown = ", ".join(f"`{k}` (:{line})" for k, line in zip(f.keys, f.lines, strict=True))
        out.append(Item(
            id=stable_id("unreached-flavors", f.file, f.table), section="S-3",
            kind="opportunity",
            title=f"{plural(len(f.keys), 'key')} of `{f.table}` in "
                  f"{code(rel(f.file, inp.target.subproject))} that no config or test "
                  f"selects through `{f.lookup}(…)`: {shown}",
            why=f"{f.reached} other keys are chosen by a call with the name or by a test; "
                "these exist only for a command line nobody runs, so a break in them shows "
                "first on a cluster (add a config or test that builds them, or drop them)",
            files=(f.file,), facts=tuple(f"{f.table}:{k}" for k in f.keys)))
    return out


def unrun_flavor_items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """One Opportunity per registered table with keys no test case runs
    (``specflavors``)."""
    sub = inp.target.subproject
    out: list[Item] = []
    for f in res.get("unrun_flavors", ()):
        configs: dict[str, list[str]] = {}
        for key, path in f.configs:
            configs.setdefault(key, []).append(rel(path, sub))
        shown = ", ".join(
            f"`{k}` (:{line}" + (f"; set only by {names(configs[k], limit=2)}, which no test "
                                 "runs" if k in configs else "") + ")"
            for k, line in zip(f.keys, f.lines, strict=True))
        out.append(Item(
            id=stable_id("unrun-flavors", f.file, f.table), section="S-3",
            kind="opportunity",
            title=f"{plural(len(f.keys), 'flavor')} of `{f.table}` in "
                  f"{code(rel(f.file, sub))} that no test case or workflow runs for "
                  f"`--{f.selector.split('.')[0]}.name {f.model}`: {shown}",
            why=f"{plural(f.run, 'other key')} of the table run in test "
                f"cases (selected by `{f.selector}` or left at the test config's default); "
                "these are built only from a command line or config nobody runs, so a "
                "break in them shows first on a cluster (add a test case that runs one, "
                "or drop them)",
            files=(f.file, *sorted({p for _k, p in f.configs})),
            facts=tuple(f"{f.table}:{k}" for k in f.keys)))
    return out


def value_items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """One Opportunity per field whose branches select values nothing sets."""
    sub = inp.target.subproject
    groups: dict[str, list[Any]] = {}
    for v in res.get("unselected_values", ()):
        groups.setdefault(v.field, []).append(v)
    out: list[Item] = []
    for field, found in groups.items():
        by_value: dict[str, list[str]] = {}
        for v in found:
            by_value.setdefault(v.value, []).append(f"{rel(v.file, sub)}:{v.line}")
        shown = "; ".join(f"`{field} == {value!r}` ({', '.join(locs)})"
                          for value, locs in by_value.items())
        first = found[0]
        out.append(Item(
            id=stable_id("unselected-values", inp.target.name, field), section="S-3",
            kind="opportunity",
            title=f"{plural(len(found), 'branch')} on `{field}` that no flavor, config or "
                  f"test of {code(sub + '/')} selects: {shown}",
            why=f"`{field}` is declared at {rel(first.declared, sub)} with default "
                f"{first.default!r}, and no flavor table, config registry, test or "
                "integration case of the folder sets the values above, so these paths run "
                "only for a hand-edited flavor (add a flavor and a test case that select "
                "them, or drop them)",
            files=tuple(sorted({v.file for v in found})),
            facts=tuple(sorted(f"{v.file}:{v.line}:{v.value}" for v in found))))
    return out
