"""S-1 items: upstream changes since the baseline. A change the sub-project's code
refers to is an action at that code (``file:line``); the rest is one FYI line. Patches:
stale only when the patch no longer fits; a wrapper that forwards every argument is
said to be still valid. New APIs are new, not moved.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.itemize.common import (
    code,
    listed,
    made_by,
    names,
    place_file,
    plural,
    rel,
    short,
)
from agentops.scout.model import PRIORITY_OF, Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    out: list[Item] = []
    quiet: list[str] = []  # upstream changes the sub-project never names
    said: set[str] = set()
    adapted: list[str] = []  # changes checked against the sub-project's uses: fine
    watched = inp.target.watched_paths
    for ch in res["fragile_surface_changes"]:
        if not ch.uses and ch.adapted:
            adapted.append(f"{code(ch.symbol)} ({_sites(ch.adapted)})")
            said.add(ch.symbol)
            continue
        if not ch.uses:
            quiet.append(f"{code(ch.symbol)} ({_what(ch.change)})")
            said.add(ch.symbol)
            continue
        where = listed(ch.uses, 3)
        out.append(Item(
            id=stable_id("surface", ch.surface, ch.symbol, ch.change), section="S-1",
            kind="action", title=f"{code(ch.symbol)} {ch.change} upstream "
                                 f"({made_by(ch.commit, ch.file, watched)}); the "
                                 "sub-project still uses it",
            why=(ch.why + "; " if ch.why else "") + (
                ch.detail if ch.detail else "the code below was written against the "
                "old definition"),
            where=where, priority=PRIORITY_OF[ch.severity], severity=ch.severity,
            files=(ch.file, *sorted({u.rsplit(':', 1)[0] for u in ch.uses})),
            fix=f"update {where} to the new {ch.surface} of {code(ch.symbol)} "
                f"(see {ch.file} at {short(ch.commit) or 'HEAD'})",
            facts=(ch.change, *sorted(place_file(u) for u in ch.uses))))
    for d in res["config_drift"]:
        if d.severity == "nice-to-have" and f"{d.source}.{d.field}" not in said:
            quiet.append(f"{code(f'{d.source}.{d.field}')} (new field, copied as is)")
    out += _use_checks(inp, res, adapted, said)
    out += _body_drift(inp, res) + _list_drift(inp, res) + _name_copies(inp, res) \
        + _init_gaps(res) + _new_copy(inp, res) + _fqn_names(inp, res)
    if adapted:
        out.append(Item(
            id=stable_id("surface-adapted", inp.target.name), section="S-1", kind="fyi",
            title=f"{plural(len(adapted), 'upstream signature change')} the sub-project "
                  "already fits (each call and override checked): " + "; ".join(adapted[:8])
                  + (f"; and {len(adapted) - 8} more" if len(adapted) > 8 else ""),
            facts=tuple(sorted(adapted))))
    if quiet:
        out.append(Item(
            id=stable_id("surface-quiet", inp.target.name), section="S-1", kind="fyi",
            title=f"{plural(len(quiet), 'upstream change')} on fragile surfaces the "
                  "sub-project does not refer to: " + "; ".join(quiet[:8])
                  + (f"; and {len(quiet) - 8} more" if len(quiet) > 8 else ""),
            facts=tuple(sorted(quiet))))
    out += _patches(inp, res)
    out += _new(inp, res)
    return out


def _body_drift(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22 defect 4: what upstream added since the baseline to a function the
    sub-project copies or overrides, that the copy lacks: an action naming both sides
    and the commit (so the delta is never "nothing actionable" while one exists)."""
    out: list[Item] = []
    rewritten: list[str] = []
    for d in res.get("body_drift", ()):
        if d.rewritten:
            rewritten.append(f"{code(d.function)} ({d.upstream}; our {d.how} at {d.ours})")
            continue
        by_commit: dict[str, list[str]] = {}
        for unit, sha in zip(d.units, d.commits, strict=True):
            by_commit.setdefault(sha, []).append(unit)
        what = "; ".join(f"{listed(u, 4)} ({_made_by(inp, sha, d.upstream)})"
                         for sha, u in by_commit.items())
        ours_file = place_file(d.ours)
        out.append(Item(
            id=stable_id("body-drift", ours_file, d.function), section="S-1",
            kind="action",
            title=f"Upstream's {code(d.function)} gained what our {d.how} at {d.ours} "
                  f"lacks: {what}",
            why=f"the {d.how} was taken from {d.upstream.rsplit(':', 1)[0]}; upstream's "
                "change since the baseline does not reach it",
            where=f"{d.ours} (upstream {d.upstream})", priority="P1",
            severity="should-fix", files=(ours_file, place_file(d.upstream)),
            fix=f"port the change into {d.ours} (see {d.upstream} at "
                f"{', '.join(short(s) if s else 'HEAD' for s in by_commit)}), or say in a "
                f"comment why the {d.how} does without it",
            facts=tuple(sorted(d.units))))
    if rewritten:
        out.append(Item(
            id=stable_id("body-drift-rewritten", inp.target.name), section="S-1",
            kind="fyi",
            title="Upstream rewrote functions the sub-project copies or overrides (compare "
                  "by hand): " + "; ".join(rewritten[:6]), facts=tuple(sorted(rewritten))))
    return out


def _list_drift(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22 defect 4: a collection of names the sub-project module repeats from core's
    twin module, lacking what core's gained in the window, or naming only the prefix of
    one of core's entries (a membership test against it never matches): an action."""
    out: list[Item] = []
    for d in res.get("list_drift", ()):
        ours_file, up_file = place_file(d.ours), place_file(d.upstream)
        parts = [f"{code(e)} where core's names {code(c)} (a membership test compares the "
                 "full name: the entry never matches)" for e, c in d.coarse]
        by_commit: dict[str, list[str]] = {}
        for entry, sha in zip(d.lacking, d.commits, strict=True):
            by_commit.setdefault(sha, []).append(code(entry))
        parts += [f"lacks {listed(e, 4)} ({_made_by(inp, sha, d.upstream)})"
                  for sha, e in by_commit.items()]
        out.append(Item(
            id=stable_id("list-drift", ours_file, d.name), section="S-1", kind="action",
            title=f"Our copy of {code(d.name)} at {d.ours} is out of step with core's "
                  f"({d.upstream}): " + "; ".join(parts),
            why=f"the collection repeats core's {code(d.name)} from a module it imports "
                "from; what core's holds now does not reach the copy",
            where=f"{d.ours} (upstream {d.upstream})", priority="P1",
            severity="should-fix", files=(ours_file, up_file),
            fix=f"make {d.ours} name what {d.upstream} names, or import core's collection",
            facts=(d.name, *sorted({*d.lacking, *(e for e, _c in d.coarse)}))))
    return out


def _name_copies(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22 defect 4: an override that re-implements core's method with all of its names
    while core's changed in the window: an opportunity (nothing lacks yet; each change
    of core's has to be made twice)."""
    out: list[Item] = []
    for c in res.get("name_copies", ()):
        ours_file, up_file = place_file(c.ours), place_file(c.upstream)
        out.append(Item(
            id=stable_id("name-copy", ours_file, c.function), section="S-4",
            kind="opportunity",
            title=f"The override at {c.ours} re-implements {code(c.function)} without "
                  f"super(), spelling every name core's does ({listed(c.names, 6)}); "
                  f"core's changed in the window ({_made_by(inp, c.commit, c.upstream)}) "
                  "and a name or step it adds later will not reach the override",
            why=f"the override repeats core's names ({c.upstream}) but too few of its "
                "statements for a unit-by-unit comparison",
            where=f"{c.ours} (upstream {c.upstream})", files=(ours_file, up_file),
            fix=f"build on {code(c.function)} (call it, then adapt its result), or list "
                f"at {c.ours} which of core's steps the override must follow",
            facts=(c.function.rsplit(".", 1)[-1], *c.names)))
    return out


def _init_gaps(res: dict[str, Any]) -> list[Item]:
    """#22 defect 6: a subclass constructor out of step with its base's. A step the
    base's ``__init__`` gained in the window that the subclass skips (it never calls the
    base's) is an action naming the commit; a skipped step from before the window, or a
    step the subclass takes again after ``super().__init__`` (work done twice), is an
    opportunity."""
    out: list[Item] = []
    for g in res.get("init_gaps", ()):
        ours_file, up_file = place_file(g.ours), place_file(g.upstream)
        where = f"{g.ours} (base {g.upstream})"
        if g.repeated:
            out.append(Item(
                id=stable_id("init-twice", ours_file, g.base), section="S-4",
                kind="opportunity",
                title=f"The constructor at {g.ours} calls {code(g.base + '.__init__')}, "
                      f"which already runs {listed(g.repeated, 4)}, then runs it again: "
                      "done twice",
                why=f"the base's __init__ ({g.upstream}) takes that step itself, through "
                    "the same (possibly overridden) method",
                where=where, files=(ours_file, up_file),
                fix=f"drop the repeated call at {g.ours}, or say why it must run twice",
                facts=("twice", *g.repeated)))
            continue
        init = code(g.base + ".__init__")
        made = f" ({short(g.commit)})" if g.commit else ""
        lead = f"{init} gained {listed(g.skipped, 4)} in the window{made}" \
            if g.gained else f"{init} sets up {listed(g.skipped, 4)}"
        out.append(Item(
            id=stable_id("init-skipped", ours_file, g.base), section="S-1" if g.gained
            else "S-4", kind="action" if g.gained else "opportunity",
            title=f"{lead}; the subclass constructor at {g.ours} never calls it (no "
                  "super().__init__) and does not do that itself",
            why="code that uses the base's attributes or what its steps set up fails or "
                "differs on this subclass",
            where=where, files=(ours_file, up_file),
            priority="P1" if g.gained else "", severity="should-fix" if g.gained else "",
            fix=f"call super().__init__ at {g.ours}, or take the missing steps there",
            facts=("__init__", "super", *g.skipped)))
    return out


def _new_copy(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22: a copy of an upstream function new in the window that makes one of its
    calls without keywords upstream passes: an action (the call differs now), one per
    call site."""
    out: list[Item] = []
    for d in res.get("new_copy_keywords", ()):
        ours_file, up_file = place_file(d.ours), place_file(d.upstream)
        out.append(Item(
            id=stable_id("new-copy-kw", ours_file, d.function, d.callee), section="S-1",
            kind="action",
            title=f"Upstream's {code(d.function)}, new in the window "
                  f"({_made_by(inp, d.commit, d.upstream)}), "
                  f"passes {names(d.missing, 4)} to {code(d.callee)} ({d.upstream}); our "
                  f"copy's call at {d.ours} does not",
            why="the copy was taken from a function that did not exist at the baseline, "
                "and its call leaves out what upstream's passes",
            where=f"{d.ours} (upstream {d.upstream})", priority="P1", severity="should-fix",
            files=(ours_file, up_file),
            fix=f"pass {names(d.missing, 4)} as {d.upstream} does, or say in a comment why "
                "the copy does without them",
            # the copy-lag labels of the same keywords: once the baseline moves past the
            # function's commit, the lag does not repeat what this action named
            facts=(d.function, *(f"keyword `{d.callee.rsplit('.', 1)[-1]}({k}=…)`"
                                 for k in d.missing))))
    return out


def _made_by(inp: Inputs, sha: str, where: str) -> str:
    """The commit that made a change upstream made since the baseline (``where`` is its
    ``file:line``); ``common.made_by`` says why none is named."""
    return made_by(sha, place_file(where), inp.target.watched_paths)


def _sites(locs: tuple[str, ...]) -> str:
    return listed(locs, 2)


def _use_checks(inp: Inputs, res: dict[str, Any], adapted: list[str], said: set[str]
                ) -> list[Item]:
    """#22 defects 3 and 5: changed upstream functions the sub-project calls or
    overrides (found by its imports and subclasses), each use checked: an action only
    where a call or override no longer fits, with that ``file:line``."""
    configured = {s.name for s in inp.target.symbols("fragile_surfaces", "functions")}
    out: list[Item] = []
    defaults: list[str] = []
    for uc in res.get("use_checks", ()):
        if uc.symbol in configured or uc.symbol in said:
            continue
        bad = [s for s in uc.sites if s.verdict in ("breaks", "needs change")]
        fine = tuple(s.loc for s in uc.sites if s.verdict == "adapted")
        for s in uc.sites:
            if s.verdict == "default":
                defaults.append(f"{code(uc.symbol)} at {s.loc}: {s.detail}")
        if not bad:
            if fine:
                adapted.append(f"{code(uc.symbol)} ({_sites(fine)})")
            continue
        sev = uc.severity or "should-fix"
        where = ", ".join(dict.fromkeys(s.loc for s in bad))
        detail = "; ".join(dict.fromkeys(f"{s.how} at {s.loc} {s.detail}" for s in bad))
        now = uc.change.split(" -> ", 1)[1]
        if uc.generated:  # a dataclass's fields: the class is what the sub-project calls
            call = uc.symbol.removesuffix(".__init__")
            now = now.replace("(self, ", "(", 1).replace("(self)", "()", 1)
            changed = (f"{code(call)}'s fields changed upstream (the constructor Python "
                       "generates from them)")
        else:
            call, changed = uc.symbol, f"{code(uc.symbol)} changed signature upstream"
        out.append(Item(
            id=stable_id("use-check", uc.file, uc.symbol), section="S-1", kind="action",
            title=f"{changed} "
                  f"({made_by(uc.commit, uc.file, inp.target.watched_paths)}); "
                  f"{'a call' if bad[0].how != 'override' else 'an override'} in the "
                  "sub-project no longer fits",
            why=detail, where=where, priority=PRIORITY_OF[sev], severity=sev,
            files=(uc.file, *sorted({s.loc.rsplit(':', 1)[0] for s in bad})),
            fix=f"update {where} to `{call}{now}` "
                f"(see {uc.file} at {short(uc.commit) or 'HEAD'})",
            facts=(uc.change, *sorted(f"{s.loc.rsplit(':', 1)[0]}:{s.detail}" for s in bad))))
    if defaults:
        out.append(Item(
            id=stable_id("use-check-defaults", inp.target.name), section="S-1", kind="fyi",
            title="Upstream changed a default the sub-project's calls rely on: "
                  + "; ".join(defaults[:6])
                  + (f"; and {len(defaults) - 6} more" if len(defaults) > 6 else ""),
            facts=tuple(sorted(defaults))))
    return out


def _what(change: str) -> str:
    """``field retyped: int -> int | None`` keeps its detail, the types as code (the
    one line is all a reader gets of a change the sub-project does not use)."""
    head, sep, detail = change.partition(": ")
    if not sep or "`" in detail or "`" in head:
        return head if sep else change
    return f"{head}: {code(detail)}" if len(detail) <= 40 else head


def _patches(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    out: list[Item] = []
    valid: list[str] = []
    for ch in res["stale_patches"]:
        site = ch.site
        if ch.verdict == "still valid":
            valid.append(f"{site.target} ({ch.change.split('; patch', 1)[0].split('; the', 1)[0]})")
            continue
        upstream = inp.upstreams[site.upstream].label if site.upstream else "upstream"
        out.append(Item(
            id=stable_id("stale-patch", site.target, ch.verdict), section="S-1", kind="action",
            title=f"Monkey-patch of {code(site.target)} no longer fits {upstream}: "
                  f"{ch.change}",
            why=f"patched at {', '.join(ch.sites)}; "
                + (f"upstream changed it in {short(ch.commit)}" if ch.commit else
                   f"checked against the source of {upstream}"),
            where=f"{site.file}:{site.line}", priority=PRIORITY_OF[ch.severity],
            severity=ch.severity, files=(site.file, site.upstream_file),
            fix="remove the patch" if ch.verdict == "gone" else
                "make the replacement take the new parameters (or forward *args, **kwargs)",
            facts=(ch.verdict, ch.change)))
    if valid:
        out.append(Item(
            id=stable_id("patch-still-valid", inp.target.name), section="S-1", kind="fyi",
            title="Signature changed upstream, patch still valid (the wrapper forwards every "
                  "argument): " + "; ".join(valid), facts=tuple(sorted(valid))))
    gone = [p for p in res["listed_patches"] if p.status == "no longer exists"]
    unpatched = [p for p in res["listed_patches"] if p.status != "no longer exists"]
    if gone or unpatched:
        parts = []
        if gone:
            parts.append("no longer exist upstream: " + names(f"{p.name}" for p in gone))
        if unpatched:
            parts.append("no code patches: " + names(p.name for p in unpatched))
        out.append(Item(
            id=stable_id("patch-listed", inp.target.name), section="S-1", kind="fyi",
            title="Patch targets listed in the target config that "
                  + "; ".join(parts) + " (update `fragile_surfaces.monkey_patches`)",
            facts=tuple(f"{p.name}:{p.status}" for p in res["listed_patches"])))
    return out


def _new(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    out: list[Item] = []
    # An opportunity only where the sub-project hand-rolls something of the same name;
    # every other new name is one FYI line (the JSON lists them all).
    others = []
    for api in res["new_apis"]:
        rest = [n for n in api.names if n not in dict(api.counterparts)]
        if rest:
            others.append((api, rest))
        for name, own in api.counterparts:
            out.append(Item(
                id=stable_id("new-api", api.file, name), section="S-1", kind="opportunity",
                title=f"New upstream API {code(name)} in {code(api.file)} "
                      f"({made_by(api.commit, api.file, inp.target.watched_paths)}) may "
                      f"replace the sub-project's {own}",
                why="one implementation instead of two that drift apart",
                files=(api.file,), facts=(name, own.split(" ")[0])))
    if others:
        count = sum(len(r) for _a, r in others)
        out.append(Item(
            id=stable_id("new-api-others", inp.target.name), section="S-1", kind="fyi",
            title=f"{count} new public upstream names in {len(others)} watched module(s) "
                  f"({', '.join(code(a.file.rsplit('/', 1)[-1]) for a, _r in others[:4])}"
                  + (" …" if len(others) > 4 else "") + "; `new_apis` in --json)",
            files=tuple(a.file for a, _r in others),
            facts=tuple(f"{a.file}:{n}" for a, r in others for n in r)))
    for model in res["new_models"]:
        out.append(Item(
            id=stable_id("new-model", model), section="S-1", kind="opportunity",
            title=f"New upstream model variant {code(model)}",
            why="consider supporting it", facts=(model,)))
    return out


def _lag_why(fs: list[Any], sub: str) -> str:
    """What each lagging use now does wrong, from the first site of each use: the
    analysis knows whether the literal feeds a module filter or a checkpoint key map,
    and which keyword holds it, so the item says which of the two breaks."""
    parts: list[str] = []
    for use in ("filters", "keys"):
        f = next((f for f in fs if f.use == use), None)
        if f is None:
            continue
        holder = f"{code(f.via)} at " if f.via else ""
        spot = f"{holder}{rel(f.file, sub)}:{f.line}"
        if use == "filters":
            parts.append(f"{spot} names {code(f.name)} to single out a module, but no module "
                         "has that name at HEAD: the filter matches nothing, so the module it "
                         "was written for is silently handled like every other one")
        else:
            parts.append(f"{spot} maps a checkpoint weight to {code(f.name)}, a name the "
                         "model no longer has: converting a checkpoint skips or mis-keys "
                         "that weight")
    return "; ".join(parts)


def _fqn_names(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """#22 defect 8: key maps and module-name filters that still name what the model
    renamed in the window: an action per file (file:line, old and new name), so the
    delta is never "nothing actionable" while one exists; names no model code defines
    at either commit: one opportunity per file, never an action."""
    by: dict[tuple[str, str], list[Any]] = {}
    for f in sorted(res.get("fqn_names", ()), key=lambda f: (f.file, f.line, f.name)):
        by.setdefault((f.how, f.file), []).append(f)
    out: list[Item] = []
    sub = inp.target.subproject
    for (how, file), fs in sorted(by.items()):
        shown = "; ".join(
            f"{rel(file, sub)}:{f.line} {'keys' if f.use == 'keys' else 'filters'} "
            f"{code(f.literal)}" + (f" (the model now names {code(f.name)} "
                                     f"{code(f.now)})" if f.now else "") for f in fs[:6])
        more = f"; and {len(fs) - 6} more" if len(fs) > 6 else ""
        olds = names(sorted({f.name for f in fs}))
        facts = tuple(sorted(f"{f.line}:{f.literal}"[:80] for f in fs))
        if how == "lagged":
            out.append(Item(
                id=stable_id("fqn-lag", file), section="S-1", kind="action",
                title=f"{rel(file, sub)} still names {olds}, which the model code defined "
                      f"at {inp.baseline.since} and no longer defines: {shown}{more}",
                why=_lag_why(fs, sub),
                where=f"{file}:{fs[0].line}", priority="P1", severity="should-fix",
                files=(file,), fix="rename the literal(s) to the model's current name(s)",
                facts=facts))
        else:
            out.append(Item(
                id=stable_id("fqn-unknown", file), section="S-4", kind="opportunity",
                title=f"{rel(file, sub)} names {olds} as a module, but no model code defines "
                      f"that name at HEAD or at {inp.baseline.since}: {shown}{more}",
                why="a filter or key naming no module matches nothing; check the name "
                    "against the model's module tree",
                files=(file,), facts=facts))
    return out
