"""S-4 items: config drift and lossy copies, call-site drift and divergence against
upstream's copies, hand-rolled construction where upstream has a factory, upstream
subclasses a patch never reaches, private API use, duplicated pairs whose upstream
side moved.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

import ast
from typing import Any

from agentops.scout.analyses import siblinghooks
from agentops.scout.analyses.privateattrs import category_folder
from agentops.scout.itemize.common import base, code, listed, names, place_file, plural, rel
from agentops.scout.model import PRIORITY_OF, Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    sub = inp.target.subproject
    out = _drift(res) + _lossy(res) + _calls(res, sub) + _divergence(res, sub)
    out += _factories(inp, res)
    out += _bypasses(res) + _private(inp, res) + _private_attrs(inp, res)
    out += _swallowed(inp, res)
    out += _duplicates(inp, res) + _dead(inp, res)
    out += _pinned(inp, res) + _compiled_checks(inp, res) + _sibling_guards(inp, res)
    out += _sibling_hooks(inp, res) + _borrowed_specs(inp, res)
    out += _sibling_imports(inp, res) + _sibling_wraps(inp, res) + _model_helpers(inp, res)
    out += _outside_writes(inp, res) + _bare_imports(inp, res)
    out += _ignored_settings(inp, res) + _copied_settings(inp, res)
    out += _lags(res) + _stale(res) + _dead_classes(inp, res)
    return out


def _dead_classes(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22 defect 8: public classes nothing in the repository refers to (re-exports
    aside), in one opportunity with file:line: remove them, or use them."""
    dead = res.get("dead_classes", ())
    if not dead:
        return []
    sub = inp.target.subproject

    def one(d: Any) -> str:
        via = f", re-exported by {', '.join(rel(f, sub) for f in d.exported_by[:2])}" \
            if d.exported_by else ""
        return f"{code(d.name)} ({rel(d.file, sub)}:{d.line}{via})"

    return [Item(
        id=stable_id("dead-classes", inp.target.name), section="S-4", kind="opportunity",
        title=f"{len(dead)} public class(es) nothing in the repository refers to (no call, "
              f"annotation, base, test, string or doc; imports that re-export them "
              f"aside): " + listed([one(d) for d in dead], 6),
        why="a relic of code that moved on, exported as if it were API: remove it, or "
            "say what uses it",
        severity="nice-to-have", files=tuple(sorted({d.file for d in dead})),
        facts=tuple(sorted(f"{d.file}:{d.name}" for d in dead)))]


def _stale(res: dict[str, Any]) -> list[Item]:
    """#22: a statement the copy still has in upstream's older form (a local read from
    the environment where upstream now takes it from a call; a guard upstream narrowed
    around the same calls). An opportunity: the copy runs, only the way upstream used
    to, and may keep it on purpose."""
    found = res.get("stale_copies")
    out = []
    for e in found.envs if found is not None else ():
        ours_file, up_file = place_file(e.ours), place_file(e.upstream)
        out.append(Item(
            id=stable_id("stale-env", ours_file, e.function, e.local, e.env),
            section="S-4", kind="opportunity",
            title=f"Our copy of {code(e.function)} at {e.ours} reads {code(e.local)} from "
                  f"the environment variable {code(e.env)}; upstream's takes it from "
                  f"{code(e.source)} ({e.upstream})",
            why=f"a run without a launcher that sets {code(e.env)} fails in the copy "
                "only; upstream no longer needs it",
            where=f"{e.ours} (upstream {e.upstream})", files=(ours_file, up_file),
            facts=(ours_file, e.function, e.local, e.env)))
    for g in found.guards if found is not None else ():
        ours_file, up_file = place_file(g.ours), place_file(g.upstream)
        out.append(Item(
            id=stable_id("stale-guard", ours_file, g.function, g.mine, g.theirs),
            section="S-4", kind="opportunity",
            title=f"Our copy of {code(g.function)} at {g.ours} runs {names(g.calls, 3)} "
                  f"under {code('if ' + g.mine)}; upstream's ({g.upstream}) now runs them "
                  f"under {code('if ' + g.theirs)}",
            why=f"upstream's condition also reads {names(g.names, 3)}, which the copy's "
                "does not; check whether the copy needs the narrower condition",
            where=f"{g.ours} (upstream {g.upstream})", files=(ours_file, up_file),
            facts=(ours_file, g.function, g.mine, g.theirs)))
    return out


LAG_SHOWN = 4  # units named in a lag's title; the rest are counted


def _lags(res: dict[str, Any]) -> list[Item]:
    """#22: what upstream's current version of a copied/overridden function has that
    the copy lacks, from before the window: one quiet opportunity per copy (never an
    action: nothing changed recently, and the copy may do without it on purpose). The
    fingerprint is everything lacking, not what the window leaves to show, so an
    unchanged copy stays unchanged night to night and is silenced like other
    opportunities."""
    out = []
    for lag in res.get("copy_lag", ()):
        shown = listed(lag.units, LAG_SHOWN)
        ours_file, up_file = place_file(lag.ours), place_file(lag.upstream)
        out.append(Item(
            id=stable_id("copy-lag", ours_file, lag.function), section="S-4",
            kind="opportunity",
            # What the data show is upstream's side (had at the baseline); the copy may
            # be new in the window, so the lag is never dated "from before the window".
            title=f"Our {lag.how} at {lag.ours} lacks what upstream's "
                  f"{code(lag.function)} ({lag.upstream}) already had at the baseline: "
                  f"{shown}",
            why=f"upstream's current {code(lag.function)} has these and had them before "
                "the baseline; check whether the copy needs them or says why not",
            where=f"{lag.ours} (upstream {lag.upstream})", files=(ours_file, up_file),
            facts=(place_file(lag.ours), lag.function, *lag.lacking)))
    return out


def _drift(res: dict[str, Any]) -> list[Item]:
    out = []
    for d in res["config_drift"]:
        if d.severity in ("nice-to-have", "not checked"):
            continue  # said in the S-1 line of changes / the "not checked" line (S-7)
        out.append(Item(
            id=stable_id("drift", d.kind, d.source, d.other, d.field, d.problem),
            section="S-4", kind="action", title=d.problem,
            why=f"config drift between {d.source} and {d.other}", where=d.file,
            priority=PRIORITY_OF[d.severity], severity=d.severity, files=(d.file,),
            fix=f"handle {code(d.field)} in {code(d.other)}" if d.field else
                "update the target config or restore the definition",
            facts=(d.problem,)))
    return out


def _lossy(res: dict[str, Any]) -> list[Item]:
    out = []
    for c in res["lossy_config_copies"]:
        where = f"{c.file}:{c.line}"
        if c.kind == "fresh default":
            lost = (" (" + names(c.lost, limit=8) + ")") if c.lost else ""
            out.append(Item(
                id=stable_id("lossy", c.function, c.field, c.kind), section="S-4",
                kind="action",
                title=f"{code(c.function)} replaces the user's {code(c.field)} with a fresh "
                      f"{code(c.constructed + '(...)')}",
                why=f"every sub-field the user set is silently discarded{lost}",
                where=where, priority="P1", severity="should-fix", files=(c.file,),
                fix=(f"`{c.replacement}`" if c.replacement else
                     "copy the user's value with `dataclasses.replace(...)`")
                    + f" instead of `{c.code.split('=', 1)[-1].strip()}`",
                facts=(c.field, c.constructed, *c.lost)))
        else:
            out.append(Item(
                id=stable_id("lossy", c.function, c.field, c.kind), section="S-4",
                kind="action",
                title=f"{code(c.function)} mutates the caller's {code(c.field)} in place: "
                      f"{code(c.code)}",
                why="the copy is shallow, so the source config changes too (a second "
                    "conversion, or the caller's own use, sees the mutation)",
                where=where, priority="P1", severity="should-fix", files=(c.file,),
                fix=f"assign a copy instead: `d[{c.field!r}] = dataclasses.replace(...)`",
                facts=(c.field, c.code)))
    return out


def _calls(res: dict[str, Any], sub: str) -> list[Item]:
    out = _gated(res["call_drift"], sub)
    for d in res["call_drift"]:
        if not (d.missing or d.extra or d.dropped):
            continue  # only default-equal omissions: the FYI line above says so
        ours_file = place_file(d.ours)
        parts, fixes = [], []
        severity = "should-fix"
        if d.missing:
            parts.append(f"omits {names(d.missing)}, which upstream's copy passes "
                         f"({', '.join(d.values)})")
            fixes.append("pass " + ", ".join(d.values) + " as upstream does")
        if d.extra:
            parts.append(f"passes {names(d.extra)}, which {code(d.callee)} no longer accepts")
            fixes.append("drop " + ", ".join(d.extra))
            severity = "blocking"
        if d.dropped:
            parts.append(f"passes {names(d.dropped)}, which upstream stopped passing")
            fixes.append("check whether " + ", ".join(d.dropped) + " still belongs")
        out.append(Item(
            id=stable_id("call-drift", ours_file, d.callee), section="S-4", kind="action",
            title=f"{code(d.callee)} call in {code(rel(ours_file, sub))} "
                  + "; ".join(parts),
            why=f"the duplicated {d.why or 'logic'} drifted from upstream "
                f"({d.upstream}): the behaviour those arguments switch on is silently off",
            where=d.ours, priority=PRIORITY_OF[severity], severity=severity,
            files=(ours_file, place_file(d.upstream)),
            fix=f"at {d.ours}, " + "; ".join(fixes) + " (or say in a comment why not)",
            facts=tuple([*(f"missing:{k}" for k in d.missing),
                         *(f"extra:{k}" for k in d.extra),
                         *(f"dropped:{k}" for k in d.dropped)])))
    return out


def _gated(drifts: list[Any], sub: str) -> list[Item]:
    """#22 item 5: arguments a copy omits whose upstream value is the callee's default
    unless a feature the sub-project never refers to is on: one FYI line, no action."""
    gated = [d for d in drifts if d.gated]
    if not gated:
        return []
    shown = [f"{names(d.gated)} to {code(d.callee)} at {rel(d.ours, sub)} (unless "
             f"{', '.join(code(g) for g in d.gated_by)})" for d in gated]
    return [Item(
        id=stable_id("call-drift-gated", sub),
        section="S-4", kind="fyi",
        title=f"{len(gated)} call(s) omit an argument upstream's copy passes, equal to the "
              f"callee's default unless a feature the sub-project never refers to is on: "
              + listed(shown, 4),
        severity="nice-to-have",
        files=tuple(sorted({place_file(d.ours) for d in gated})),
        facts=tuple(sorted(f"gated:{d.callee}:{k}" for d in gated for k in d.gated)))]


def _divergence(res: dict[str, Any], sub: str) -> list[Item]:
    out = []
    for d in res["divergences"]:
        parts = []
        if d.ops:
            parts.append("ops " + names(d.ops))
        if d.config_fields:
            parts.append("config field(s) " + names(d.config_fields))
        if d.calls:
            parts.append("calls to " + names(d.calls) + " (under a condition ours checks "
                         "too)")
        ours_file = place_file(d.ours)
        out.append(Item(
            id=stable_id("divergence", ours_file, d.ours_function, d.upstream_function),
            section="S-4", kind="action",
            title=f"{code(d.ours_function)} ({code(rel(ours_file, sub))}) lacks what upstream's "
                  f"{code(d.upstream_function)} handles: " + "; ".join(parts),
            why=f"duplicated {d.why or 'logic'} diverged from {d.upstream}: the sub-project "
                "behaves differently from core there",
            where=d.ours, priority="P1", severity="should-fix",
            files=(ours_file, place_file(d.upstream)),
            fix="; ".join(
                ([f"call {names(d.calls)} under the same condition as upstream's copy "
                  f"({d.upstream})"] if d.calls else [])
                + ([f"port {names((*d.ops, *d.config_fields))} into "
                    f"{code(d.ours_function)}, or reuse upstream's "
                    f"{code(d.upstream_function)}"] if d.ops or d.config_fields else [])),
            facts=(*d.ops, *d.config_fields, *d.calls)))
    return out


def _factories(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    out = []
    for h in res["hand_rolled_constructions"]:
        since = (f"added since {inp.baseline.since}" if h.new_in_window
                 else "already there")
        fix = f"use {code(f'{h.cls}.{h.factory}(...)')} ({h.upstream_file}:{h.factory_line})"
        title = (f"{code(base(h.file))} builds {code(h.cls)} field by field; upstream has "
                 f"{code(f'{h.cls}.{h.factory}()')} ({since})")
        if not h.omitted:
            # Every field the factory fills is passed from the same source: nothing
            # differs today, a clean-up (#22 issue item 6, severity from what it does).
            out.append(Item(
                id=stable_id("factory", h.file, h.cls, h.factory), section="S-4",
                kind="opportunity", title=title + f" — {fix}",
                why=f"the hand-rolled copy of {', '.join(h.shared)} must follow every "
                    "upstream change by hand", where=f"{h.file}:{h.line}",
                files=(h.file, h.upstream_file), facts=(h.cls, h.factory)))
            continue
        out.append(Item(
            id=stable_id("factory", h.file, h.cls, h.factory), section="S-4", kind="action",
            title=title + f": leaves {names(h.omitted)} at the default",
            why=f"the factory fills {names(h.omitted)}, the hand-rolled copy does not; it "
                "must follow every upstream change by hand", where=f"{h.file}:{h.line}",
            priority="P2", severity="nice-to-have", files=(h.file, h.upstream_file),
            fix=fix, facts=(h.cls, h.factory)))
    return out


def _bypasses(res: dict[str, Any]) -> list[Item]:
    found = res["patch_bypasses"]
    if not found:
        return []
    by_sub: dict[tuple[str, str, int], list[str]] = {}
    for b in found:
        by_sub.setdefault((b.subclass, b.file, b.line), []).append(b.site.target)
    parts = [f"{cls} ({base(file)}:{line}) overrides {names(targets)}" for (cls, file, line),
             targets in sorted(by_sub.items())]
    return [Item(
        id=stable_id("patch-bypass", *sorted({b.site.target for b in found})), section="S-4",
        kind="opportunity",
        title="Upstream subclasses override patched methods without calling super(), so the "
              "sub-project's monkey-patches never run for them: " + "; ".join(parts),
        why="whatever the patch adds (annotations, wrapping) is lost when that subclass is "
            "used; patch the subclass too if the sub-project may use it",
        files=tuple(sorted({b.file for b in found} | {b.site.file for b in found})),
        facts=tuple(sorted(f"{b.subclass}:{b.site.target}" for b in found)))]


MAX_PRIVATE_SHOWN = 12


def _dotted(use: Any) -> str:
    return f"{use.module}.{use.name}" if use.name else use.module


def _private(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    out = []
    configured: dict[str, list[Any]] = {}
    generic = []
    for p in res["private_api_uses"]:
        if p.reason == "configured private API":
            configured.setdefault(p.name or p.module, []).append(p)
        else:
            generic.append(p)
    for name, uses in sorted(configured.items()):
        root = uses[0].module.split(".")[0]
        indexed = inp.torch is not None and inp.torch.name == root
        package = f"{inp.torch.name} {inp.torch.version}" if indexed and inp.torch else root
        files = tuple(sorted({u.file for u in uses}))
        alt = next((u.public_alternative for u in uses if u.public_alternative), "")
        if alt:
            out.append(Item(
                id=stable_id("private-alt", name, alt), section="S-4", kind="action",
                title=f"Private API {code(name)} has a public alternative {code(alt)} in the "
                      f"installed {package}",
                why=f"used in {', '.join(files)}; private APIs change without notice",
                where=f"{uses[0].file}:{uses[0].line}", priority="P2",
                severity="nice-to-have", files=files, fix=f"import {code(alt)} instead",
                facts=(alt, *files)))
            continue
        check = (f"no public alternative in the installed {package}" if indexed else
                 f"public alternative not checked (no installed {root} was indexed)")
        out.append(Item(
            id=stable_id("private", name), section="S-4", kind="fyi",
            title=f"Private API {code(name)} used in {names(files)}; {check}",
            severity="nice-to-have", files=files, facts=files))
    if generic:
        files = tuple(sorted({u.file for u in generic}))
        first = tuple(inp.target.section("private_api").get("private_import_roots", []))
        roots = sorted({u.module.split(".")[0] for u in generic},
                       key=lambda r: (r not in first, r))
        # Each use by file:line (#22 defect 9), the configured roots first.
        shown = sorted(generic, key=lambda u: (u.module.split(".")[0] not in first,
                                               u.file, u.line))
        uses = "; ".join(f"{code(_dotted(u))} ({rel(u.file, inp.target.subproject)}:"
                         f"{u.line})" for u in shown[:MAX_PRIVATE_SHOWN])
        more = (f"; and {len(generic) - MAX_PRIVATE_SHOWN} more (`private_api_uses` in "
                "--json)" if len(generic) > MAX_PRIVATE_SHOWN else "")
        out.append(Item(
            id=stable_id("private-imports", inp.target.name), section="S-4", kind="fyi",
            title=f"{len(generic)} imports of private (`_`-prefixed) {'/'.join(roots)} "
                  f"modules/names in {len(files)} files: {uses}{more}",
            severity="nice-to-have", files=files,
            facts=tuple(sorted(f"{u.file}:{u.module}:{u.name}" for u in generic))))
    return out


def _private_attrs(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22 defect 9: private attributes of imported packages read in code through a
    public import (``privateattrs``), which no code outside the category folder reads;
    one FYI per target beside the private imports, each use by file:line."""
    found = res.get("private_attributes", ())
    if not found:
        return []
    sub = inp.target.subproject
    outside = category_folder(sub)
    # One entry per private path, its places grouped by file (``a.py:3, :9``).
    places: dict[str, dict[str, list[int]]] = {}
    for f in found:
        places.setdefault(f.dotted, {}).setdefault(rel(f.file, sub), []).append(f.line)
    shown = "; ".join(
        f"{code(dotted)} ("
        + ", ".join(f"{file}:" + ", :".join(map(str, lines[:3]))
                    + (f" and {len(lines) - 3} more" if len(lines) > 3 else "")
                    for file, lines in by.items())
        + ")" for dotted, by in list(places.items())[:MAX_PRIVATE_SHOWN])
    more = (f"; and {len(places) - MAX_PRIVATE_SHOWN} more (`private_attributes` in "
            "--json)" if len(places) > MAX_PRIVATE_SHOWN else "")
    roots = sorted({f.dotted.split(".", 1)[0] for f in found})
    files = tuple(sorted({f.file for f in found}))
    elsewhere = f"outside {code(outside)}"
    n = len(places)
    return [Item(
        id=stable_id("private-attrs", inp.target.name), section="S-4", kind="fyi",
        title=f"{n} private (`_`-prefixed) {'/'.join(roots)} attribute{'s' if n > 1 else ''} "
              f"read in code through a public import ({plural(len(found), 'place')}), "
              f"which no code {elsewhere} reads: "
              f"{shown}{more}",
        why="a private name changes or goes in the package's next release without notice, "
            "and nothing else in the repository would notice it for this folder",
        severity="nice-to-have", files=files,
        facts=tuple(sorted({f"{f.file}:{f.dotted}" for f in found})))]


def _swallowed(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22 (census row of sets 16, 18, 19, 23): exception handlers of the folder's library
    code that turn a failure into a value the function does not otherwise return
    (``swallowed``); one FYI per target, each handler by function and file:line."""
    found = res.get("swallowed_errors", ())
    if not found:
        return []
    sub = inp.target.subproject
    shown = "; ".join(
        f"`except {s.caught}` in {code(s.function)} ({rel(s.file, sub)}:{s.line}) {s.gives}"
        for s in found[:MAX_PRIVATE_SHOWN])
    more = (f"; and {len(found) - MAX_PRIVATE_SHOWN} more (`swallowed_errors` in --json)"
            if len(found) > MAX_PRIVATE_SHOWN else "")
    n = len(found)
    return [Item(
        id=stable_id("swallowed-errors", inp.target.name), section="S-4", kind="fyi",
        title=f"{plural(n, 'exception handler')} turning a failure into a value "
              f"the function does not otherwise return, which the caller takes as a "
              f"result: {shown}{more}",
        why="the caller fails later on an empty value, far from the real error, whose "
            "cause is lost (or carries on with a wrong result)",
        severity="nice-to-have", files=tuple(sorted({s.file for s in found})),
        facts=tuple(sorted({f"{s.file}:{s.line}:{s.function}" for s in found})))]


def _duplicates(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    changed = res["duplicate_logic_changes"]
    return _reversed(inp, res) + ([] if not changed else [Item(
        id=stable_id("dup-changed", inp.target.name), section="S-4", kind="fyi",
        title="Upstream side of duplicated logic changed since "
              f"{inp.baseline.since}: " + "; ".join(
                  f"{', '.join(code(u) for u in d.upstream)} ({d.why or 'logic'})"
                  for d in changed) + " (compared call by call above)",
        files=tuple(f for d in changed for f in d.upstream),
        facts=tuple(sorted(c for d in changed for c in d.commits)))])


def _reversed(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22 precision: a configured "upstream" that is built on the sub-project is not
    compared; one line says which and why, so the entry can be swapped or dropped."""
    rev = res.get("reversed_copies", ())
    if not rev:
        return []
    sub = inp.target.subproject
    shown = "; ".join(f"{code(r.upstream)} (imports the folder at {r.evidence})"
                      for r in rev[:4])
    return [Item(
        id=stable_id("dup-reversed", inp.target.name), section="S-4", kind="fyi",
        title=f"{len(rev)} configured duplicate_logic upstream(s) are built on "
              f"`{sub}/` itself, so their copy follows ours, not the reverse; not compared "
              f"(what they add is their own): {shown}"
              + (f" and {len(rev) - 4} more" if len(rev) > 4 else "")
              + " — swap the entry's sides or drop it",
        files=tuple(r.upstream for r in rev),
        facts=tuple(sorted(f"{r.upstream}<-{','.join(r.ours)}" for r in rev)))]


def _dead(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22 defect 8: parameters no caller sets, in one FYI line with file:line."""
    dead = res.get("dead_parameters", ())
    if not dead:
        return []
    shown = "; ".join(f"{code(d.function)}({', '.join(d.params)}) "
                      f"({rel(d.file, inp.target.subproject)}:{d.line})" for d in dead[:6])
    return [Item(
        id=stable_id("dead-params", inp.target.name), section="S-4", kind="fyi",
        title=f"{len(dead)} function(s) with parameters no caller sets (keep the default "
              f"or drop them): {shown}" + (f" and {len(dead) - 6} more" if len(dead) > 6
                                           else ""),
        severity="nice-to-have", files=tuple(sorted({d.file for d in dead})),
        facts=tuple(sorted(f"{d.file}:{d.function}:{','.join(d.params)}" for d in dead)))]


def _pinned(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22 defect 8: a parameter every call pins to its default; one Opportunity per
    function, the parameter's file:line named, the path behind the other value untested."""
    by_fn: dict[tuple[str, str], list[Any]] = {}
    for p in res.get("pinned_parameters", ()):
        by_fn.setdefault((p.file, p.function), []).append(p)
    out = []
    for (file, fn), ps_ in sorted(by_fn.items()):
        shown = ", ".join(f"{code(p.param + '=' + p.value)} "
                          f"({rel(file, inp.target.subproject)}:{p.line})" for p in ps_)
        calls = max(p.calls for p in ps_)
        out.append(Item(
            id=stable_id("pinned-param", file, fn), section="S-4", kind="opportunity",
            title=f"{code(fn)}: every one of its {calls} calls passes or keeps the default "
                  f"{shown}; no caller, config or test selects another value",
            why="the code path behind the other value runs nowhere (dead or untested); "
                "drop the parameter or add a config/test that selects it",
            files=(file,),
            facts=tuple(f"{file}:{p.line}:{fn}:{p.param}={p.value}" for p in ps_)))
    return out


def _sibling_guards(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22: a rejection the sibling folders' same method makes and the sub-project's
    lacks; one Opportunity per method, the siblings' file:line named."""
    out = []
    for g in res.get("sibling_guards", ()):
        where = f"{g.file}:{g.line}"
        out.append(Item(
            id=stable_id("sibling-guard", g.file, g.method, g.guard), section="S-4",
            kind="opportunity",
            title=f"{code(g.method)} ({rel(g.file, inp.target.subproject)}:{g.line}) does "
                  f"not reject what {len(g.siblings)} sibling folders reject in the same "
                  f"method: `if {g.guard}: raise` ({', '.join(g.siblings[:4])})",
            why="the combination the siblings refuse early may fail late or silently "
                "here; add the same check, or note why this model supports it",
            where=where, files=(g.file, *sorted({s.rsplit(':', 1)[0] for s in g.siblings})),
            facts=(g.guard, *g.siblings)))
    return out


def _sibling_hooks(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22: a registration slot the sub-project leaves ``None``, fills with another
    function, or leaves out, where the siblings register a repository function; one
    Opportunity per slot, file:line of the sub-project's call, the function and the
    siblings' calls."""
    out = []
    for h in res.get("sibling_hooks", ()):
        where = f"{h.file}:{h.line}"
        at = f"{rel(h.file, inp.target.subproject)}:{h.line}"
        if h.form == siblinghooks.LEFT_OUT:
            ours = f"{code(h.callee + '(...)')} at {at} leaves out {code(h.keyword)}"
        elif h.form == siblinghooks.OTHER:
            ours = f"{code(h.callee + '(' + h.keyword + '=' + h.ours + ')')} at {at}"
        else:
            ours = f"{code(h.callee + '(' + h.keyword + '=None)')} at {at}"
        count = (f"{len(h.siblings)} of the {h.calling} sibling folders calling it"
                 if h.calling else f"{len(h.siblings)} sibling folders")
        reads = (f", which reads {', '.join(code(m) for m in h.markers)} this folder also has"
                 if h.markers else f"; {code(h.ours)} {h.differs}" if h.differs else "")
        out.append(Item(
            id=stable_id("sibling-hook", h.file, h.callee, h.keyword, h.value),
            section="S-4", kind="opportunity",
            title=f"{ours}, while {count} pass {code(h.value)} ({h.defined}) there "
                  f"({listed(h.siblings, 4)}){reads}",
            why=("the slot's caller, written for the siblings' function, cannot call this "
                 "one as it calls theirs; register theirs, or adapt this one to its "
                 "parameters") if h.differs and not h.markers else
                f"what the siblings{' with the same feature' if h.markers else ''} run at "
                "that point never runs here; register it, or note why this model does not "
                "need it",
            where=where, files=(h.file, place_file(h.defined),
                                *sorted({s.rsplit(':', 1)[0] for s in h.siblings})),
            facts=(h.keyword, h.value, *h.markers)))
    return out


def _borrowed_specs(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22: a registration built from another folder's parts (its model class or flavor
    table, or its helpers) that leaves out slots that folder's own registration fills;
    one Opportunity per call and folder, with both calls' file:line."""
    out = []
    sub = inp.target.subproject
    for d in res.get("borrowed_specs", ()):
        slots = [f"{code(k)} ({code(v)})" for k, v in d.dropped]
        what = "the same model" if d.same_model else "helpers"
        out.append(Item(
            id=stable_id("borrowed-spec", d.file, d.callee, d.source,
                         *(k for k, _v in d.dropped)),
            section="S-4", kind="opportunity",
            title=f"{code(d.callee + '(...)')} at {rel(d.file, sub)}:{d.line} is built "
                  f"from {code(d.source)}'s parts ({listed([code(b) for b in d.borrowed], 3)}) "
                  f"but leaves out {listed(slots, 4)}, which that folder's registration "
                  f"passes ({d.reference})",
            why=f"the registration it copies ({what}) provides "
                f"{'these' if len(slots) > 1 else 'this'} and this one silently does not; "
                "register the same, or note why this folder cannot",
            where=f"{d.file}:{d.line}", files=(d.file, place_file(d.reference)),
            facts=(d.source, *(k for k, _v in d.dropped))))
    return out


def _outside_writes(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22: library code of the folder writing into a module or class it imports from
    outside (a replaced function, a private switch or registry), which changes it for
    the whole process; one Opportunity per file, each write with its line."""
    out = []
    sub = inp.target.subproject
    for f in res.get("outside_writes", ()):
        lines: dict[str, list[str]] = {}
        for w in f.writes:
            lines.setdefault(w.target, []).append(f":{w.line}")
        shown = [f"{code(t)} ({', '.join(ls)})" for t, ls in lines.items()]
        replaced = len({w.target for w in f.writes if w.replaces})
        private = len({w.target for w in f.writes if w.private})
        parts = ([f"{replaced} replace{'s' if replaced == 1 else ''} behaviour"]
                 if replaced else []) + ([f"{private} reach{'es' if private == 1 else ''} "
                                          "private (`_`-prefixed) state"] if private else [])
        out.append(Item(
            id=stable_id("outside-writes", f.file, *lines),
            section="S-4", kind="opportunity",
            title=f"{rel(f.file, sub)} writes into modules or classes it imports from "
                  f"outside the folder, for the whole process: {listed(shown, 4)}",
            why=f"{' and '.join(parts)}; every later user of "
                f"{'them' if len(lines) > 1 else 'it'} in the process (other "
                "models, core code, tests run in the same process) sees the change, and "
                "the owner can change what is replaced with its next version without "
                "notice; scope it (restore it after use, a per-call option) or note why "
                "the whole process needs it",
            where=f"{f.file}:{f.writes[0].line}", files=(f.file,),
            facts=tuple(lines)))
    return out


def _bare_imports(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22: modules of a folder the repository imports as a package that import the
    modules beside them by bare name (a root only the folder itself on ``sys.path``
    gives); one Opportunity per folder, each module with its lines."""
    out = []
    sub = inp.target.subproject
    for f in res.get("bare_imports", ()):
        shown = [f"{code(rel(m.file, sub))} ("
                 + ", ".join(f"{code(i.name)} :{i.line}" for i in m.imports) + ")"
                 for m in f.modules]
        users = [f"{rel(m.file, sub)} by {rel(m.imported_by, sub)}" for m in f.modules]
        n = len(f.modules)
        out.append(Item(
            id=stable_id("bare-imports", f.folder, *(m.file for m in f.modules)),
            section="S-4", kind="opportunity",
            title=f"{n} module{'s' if n > 1 else ''} of {code(rel(f.folder, sub) + '/')} "
                  f"import{'' if n > 1 else 's'} the modules beside {'them' if n > 1 else 'it'} "
                  f"by bare name, which resolves only with that folder on `sys.path`: "
                  f"{listed(shown, 3)}",
            why=f"the folder is also imported by its package path ({code(f.package_name)} "
                f"at {f.package_import}) and {'these modules are' if n > 1 else 'the module is'} "
                f"imported by other code "
                f"({listed(users, 3)}): imported through the package, a bare sibling import "
                "raises ModuleNotFoundError, and where both roots work the sibling is loaded "
                "twice, as two modules with their own state; import the siblings by package "
                "path or relatively (`from .x import ...`)",
            where=f"{f.modules[0].file}:{f.modules[0].imports[0].line}",
            files=tuple(m.file for m in f.modules),
            facts=tuple(i.name for m in f.modules for i in m.imports)))
    return out


def _model_helpers(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22: functions of one model's folder that read that model's structure (its
    layers, its config fields) and run for other models or for shared code dispatching
    over models; one Opportunity per defining module, with its users' imports."""
    out = []
    sub = inp.target.subproject
    for h in res.get("model_helpers", ()):
        out.append(Item(
            id=stable_id("model-helper", h.file, *h.names),
            section="S-4", kind="opportunity",
            title=f"{listed([code(n) for n in h.names], 4)} ({rel(h.file, sub)}:{h.line}) "
                  f"read {code(h.model)}'s structure ({listed([code(r) for r in h.reads], 5)}) "
                  f"but also run for other models or shared code: imported at "
                  f"{listed([rel(u, sub) for u in h.users], 4)}",
            why=f"what {code(h.model)}'s folder changes for its own model reaches every "
                "other user; move the helpers to shared code taking what differs as "
                "parameters, or give each model its own",
            where=f"{h.file}:{h.line}",
            files=(h.file, *sorted({place_file(u) for u in h.users})),
            facts=(h.model, *h.names)))
    return out


def _sibling_imports(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22: a function the sub-project registers calls functions imported from another
    model's folder while other siblings make them their own way; one Opportunity per
    registered function and sibling module, with the import's file:line."""
    out = []
    sub = inp.target.subproject
    for b in res.get("sibling_imports", ()):
        out.append(Item(
            id=stable_id("sibling-import", b.file, b.registered, b.module),
            section="S-4", kind="opportunity",
            title=f"{code(b.registered)} (registered as {code(b.keyword)} at "
                  f"{rel(b.registered_at, sub)}) calls "
                  f"{', '.join(code(f) for f in b.functions)}, imported at "
                  f"{rel(b.file, sub)}:{b.line} from another model's folder "
                  f"({code(b.module)}), while other sibling folders make them their own "
                  f"way ({listed(b.otherwise, 4)})",
            why="this model's wiring changes whenever that model's folder does; move "
                "the helpers to shared code, or own them here",
            where=f"{b.file}:{b.line}",
            files=(b.file, place_file(b.registered_at),
                   *sorted({place_file(o) for o in b.otherwise})),
            facts=(b.registered, b.module, *b.functions)))
    return out


def _conjunct(test: str) -> str:
    """A test written as one part of an ``and``: a disjunction in parentheses."""
    try:
        body = ast.parse(test, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return f"({test})"
    loose = isinstance(body, ast.IfExp | ast.Lambda | ast.NamedExpr) or (
        isinstance(body, ast.BoolOp) and isinstance(body.op, ast.Or))
    return f"({test})" if loose else test


def _sibling_wraps(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22: a call of a registered function made under a narrower ``if`` than two or
    more siblings make it, the extra case being one the folder reads; one Opportunity
    per ``if``, both file:line."""
    out = []
    sub = inp.target.subproject
    for w in res.get("sibling_wraps", ()):
        wider = " or ".join([w.condition, *w.extra])
        # Every condition the call runs under, outermost first.
        runs_if = " and ".join(_conjunct(c) for c in (*w.within, w.condition) if c) \
            if w.within else w.condition
        out.append(Item(
            id=stable_id("sibling-wrap", w.file, w.function, w.callee),
            section="S-4", kind="opportunity",
            title=f"{code(w.callee)} in {code(w.function)} (registered as "
                  f"{code(w.keyword)}) runs only if {code(runs_if)} "
                  f"({rel(w.file, sub)}:{w.line}), while {len(w.siblings)} sibling folders "
                  f"make the same call if {code(wider)} ({listed(w.siblings, 4)}); "
                  f"this folder reads {', '.join(code(e) for e in w.extra)} too",
            why="the call is skipped here in the case only the siblings cover; widen the "
                "condition, or note why this model does not need it",
            where=f"{w.file}:{w.line}",
            files=(w.file, *sorted({place_file(a) for a in w.siblings})),
            facts=(w.callee, w.condition, *w.extra)))
    return out


def _ignored_settings(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22: a derivation computed where other code of the sub-project prefers an
    explicit setting first; one Opportunity per function."""
    out = []
    for s in res.get("ignored_settings", ()):
        out.append(Item(
            id=stable_id("ignored-setting", s.file, s.function, s.field), section="S-4",
            kind="opportunity",
            title=f"{code(s.function)} ({rel(s.file, inp.target.subproject)}:{s.line}) "
                  f"derives {code(s.expr)} and never reads {code(s.field)}, which "
                  + (f"the module declares with a value of its own ({', '.join(s.honoured[:3])})"
                     if s.declared else f"{', '.join(s.honoured[:3])} prefer(s) when it is set"),
            why=(f"the derivation holds only where {code(s.field)} equals it (the code it was "
                 "copied from); every flavor that sizes it otherwise gets a wrong value (a FLOP "
                 f"count and the MFU from it, a shape); read {code(s.field)}"
                 if s.declared else
                 f"wrong for every configuration that sets {code(s.field)} explicitly; "
                 f"use the same `{s.field} or …` fallback"),
            where=f"{s.file}:{s.line}", files=(s.file, *sorted({h.rsplit(':', 1)[0]
                                                               for h in s.honoured})),
            facts=(s.expr, s.field)))
    return out


def _copied_settings(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22 defect 4: a function of the folder with the name of one in a module it imports
    from, which it does not call, that never reads settings the original reads; one
    Opportunity per function naming both ``def`` lines and each setting with the
    original's line."""
    out = []
    sub = inp.target.subproject
    for c in res.get("copied_settings", ()):
        shown = ", ".join(f"`{s}` (:{line})" for s, line in c.missing[:6])
        more = f" and {len(c.missing) - 6} more" if len(c.missing) > 6 else ""
        out.append(Item(
            id=stable_id("copied-settings", c.file, c.function), section="S-4",
            kind="opportunity",
            title=f"{code(c.function)} ({rel(c.file, sub)}:{c.line}) re-implements "
                  f"{code(c.function)} of {c.original}:{c.original_line} (imported from at "
                  f":{c.import_line}) but never reads {plural(len(c.missing), 'setting')} "
                  f"the original acts on: {shown}{more}",
            why="a run that sets them gets the original's behaviour nowhere in this copy "
                "and no warning; honour them as the original does, or refuse them with a "
                "message",
            where=f"{c.file}:{c.line}", files=(c.file, c.original),
            facts=tuple(s for s, _line in c.missing)))
    return out


def _compiled_checks(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """Checks the window added to compiled forwards: one Opportunity per file."""
    by_file: dict[str, list[Any]] = {}
    for c in res.get("compiled_checks", ()):
        by_file.setdefault(c.file, []).append(c)
    out = []
    for file, cs in sorted(by_file.items()):
        shown = ", ".join(f"{code(c.call)} in `{c.cls}.forward` "
                          f"({rel(file, inp.target.subproject)}:{c.line})" for c in cs[:4])
        out.append(Item(
            id=stable_id("compiled-check", file), section="S-4", kind="opportunity",
            title=f"Checks added since {inp.baseline.since} run inside a forward the "
                  f"sub-project compiles, with no is_compiling guard: {shown}"
                  + (f" and {len(cs) - 4} more" if len(cs) > 4 else ""),
            why="Dynamo traces or breaks on a runtime check; run the compiled model with "
                "the setting that enables it, or skip the check while compiling",
            files=(file,), facts=tuple(f"{c.file}:{c.line}:{c.call}" for c in cs)))
    return out
