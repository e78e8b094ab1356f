"""Turn analysis results into report items (S-7), then reconcile them with the prior
reports: new vs carried (exact, by stable id), resolved, and FYIs dropped after three
unchanged reports.

Pure: results and prior payloads in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.livedata import BoardItem
from agentops.scout.model import PRIORITY_OF, Inputs, Item, PriorPayload, stable_id

# Findings about a change between the baseline and HEAD: reported once, then tracked on
# the board. They are never "carried" or "resolved" just because the baseline moved on.
DELTA_SECTIONS = ("S-1",)


def _short(sha: str) -> str:
    return sha[:9] if sha else "before the baseline window"


def build(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """Candidate items of this run (before reconciliation with the priors)."""
    items: list[Item] = []
    since = inp.baseline.since
    drift_sources = {p["source"]["name"] for p in
                     inp.target.section("config_drift").get("copies", [])}
    drift_sources |= {p["base"]["name"] for p in
                      inp.target.section("config_drift").get("subclasses", [])}

    # S-1 fragile surfaces (field additions on drift-checked classes are said by S-4).
    for ch in res["fragile_surface_changes"]:
        if ch.change.startswith("field added") and ch.symbol.rsplit(".", 1)[0] in drift_sources:
            continue
        items.append(Item(
            id=stable_id("surface", ch.surface, ch.symbol, ch.change), section="S-1",
            kind="action", title=f"`{ch.symbol}` {ch.change}",
            why=ch.why or "a fragile surface the sub-project depends on",
            where=f"{ch.file} ({_short(ch.commit)})", priority=PRIORITY_OF[ch.severity],
            severity=ch.severity, files=(ch.file,), fingerprint=stable_id(ch.change)))
    for ch in res["stale_patches"]:
        items.append(Item(
            id=stable_id("stale-patch", ch.symbol, ch.change), section="S-1", kind="action",
            title=f"Stale monkey-patch `{ch.symbol}`: upstream {ch.change}", why=ch.why,
            where=f"{ch.file} ({_short(ch.commit)})", priority=PRIORITY_OF[ch.severity],
            severity=ch.severity, files=(ch.file,), fingerprint=stable_id(ch.change)))
    for d in res["config_drift"]:
        delta = d.severity == "nice-to-have"
        items.append(Item(
            id=stable_id("drift", d.kind, d.source, d.other, d.field, d.problem),
            section="S-1" if delta else "S-4", kind="action", title=d.problem,
            why="config drift" + (f" ({d.kind})" if d.kind else ""), where=d.file,
            priority=PRIORITY_OF[d.severity], severity=d.severity, files=(d.file,),
            fingerprint=stable_id(d.problem)))
    # Only modules the sub-project already imports make a line each; the rest is one
    # FYI line (the JSON lists them all) so the report stays short.
    others = [a for a in res["new_apis"] if not a.imported_by_subproject]
    for api in res["new_apis"]:
        if not api.imported_by_subproject:
            continue
        items.append(Item(
            id=stable_id("new-api", api.file, *api.names), section="S-1", kind="opportunity",
            title=f"New upstream API in `{api.file}`: {', '.join(api.names[:6])}"
                  + (" …" if len(api.names) > 6 else ""),
            why="the sub-project imports this module; may replace something it hand-rolls",
            where=_short(api.commit), files=(api.file,)))
    if others:
        items.append(Item(
            id=stable_id("new-api-others", inp.target.name, since), section="S-1", kind="fyi",
            title=f"{sum(len(a.names) for a in others)} new public names in {len(others)} "
                  "watched upstream module(s) the sub-project does not import (`new_apis` in "
                  "--json)", files=tuple(a.file for a in others)))
    for model in res["new_models"]:
        items.append(Item(
            id=stable_id("new-model", model), section="S-1", kind="opportunity",
            title=f"New upstream model variant `{model}`",
            why="consider supporting it", files=()))

    # S-2 TODOs.
    todos, resolved = res["todos"]
    for t in todos:
        for ref, state in t.pr_states:
            if state.startswith("merged"):
                items.append(Item(
                    id=stable_id("todo-unblocked", t.id, ref), section="S-2", kind="action",
                    title=f"TODO unblocked: {ref} {state} — `{t.file}:{t.line}` {t.text[:120]}",
                    why="the upstream change it waits for has landed",
                    where=f"{t.file}:{t.line}" + (f", owned by {t.owner}" if t.owner else ""),
                    priority="P1", severity="should-fix", files=(t.file,),
                    fingerprint=stable_id(state)))
            elif state == "closed":
                items.append(Item(
                    id=stable_id("todo-closed", t.id, ref), section="S-2", kind="fyi",
                    title=f"{ref} was closed without merging; TODO `{t.file}:{t.line}` "
                          "waits on it", files=(t.file,), fingerprint=stable_id(state)))
    for t in todos:
        for name, module in t.api_hits:
            items.append(Item(
                id=stable_id("todo-api", t.id, name), section="S-2", kind="action",
                title=f"TODO may be unblocked: `{name}` exists in the installed torch "
                      f"{inp.torch.version if inp.torch else ''} ({module}) — "
                      f"`{t.file}:{t.line}` {t.text[:120]}",
                why="the API it waits for is there; check and remove the workaround",
                where=f"{t.file}:{t.line}" + (f", owned by {t.owner}" if t.owner else ""),
                priority="P2", severity="nice-to-have", files=(t.file,),
                fingerprint=stable_id(module)))
    if inp.priors:
        for t in todos:
            if t.status in ("new", "changed"):
                owner = f" (owned by {t.owner})" if t.owner else ""
                items.append(Item(
                    id=stable_id("todo-" + t.status, t.id, t.fingerprint), section="S-2",
                    kind="fyi", title=f"{t.status.capitalize()} {t.tag} `{t.file}:{t.line}`"
                    f"{owner}: {t.text[:160]}", files=(t.file,),
                    fingerprint=t.fingerprint))
        for t in resolved:
            items.append(Item(
                id=stable_id("todo-resolved", t["id"]), section="S-2", kind="fyi",
                title=f"{t.get('tag', 'TODO')} resolved (gone from `{t['file']}`): "
                      f"{str(t.get('text', ''))[:160]}", files=(t["file"],),
                fingerprint=t["id"]))
        carried = [t for t in todos if t.status == "carried"]
        if carried:
            items.append(Item(
                id=stable_id("todo-carried", inp.target.name), section="S-2", kind="fyi",
                title=f"{len(carried)} TODO/FIXME/HACK/XXX carried from prior reports, "
                      f"unchanged (oldest first reported "
                      f"{min(t.first_reported for t in carried)})",
                fingerprint=stable_id(*sorted(t.id for t in carried))))
    elif todos:
        refs = sum(1 for t in todos if t.refs)
        items.append(Item(
            id=stable_id("todo-first", inp.target.name), section="S-2", kind="fyi",
            title=f"First run: {len(todos)} TODO/FIXME/HACK/XXX tracked in "
                  f"{len({t.file for t in todos})} file(s) ({refs} with upstream references, "
                  f"{sum(1 for t in todos if t.owner)} with an owner)",
            fingerprint=stable_id(*sorted(t.id for t in todos))))

    # S-3d CI.
    ci = res["ci"]
    for f in ci.missing:
        items.append(Item(
            id=stable_id("ci-missing", f), section="S-3", kind="action",
            title=f"`{f}` runs in no CI workflow",
            why=f"suggest adding `pytest {f} -v` to {inp.target.workflows[0]}",
            where=f, priority="P2", severity="should-fix", files=(f,)))
    for s in ci.empty_steps:
        items.append(Item(
            id=stable_id("ci-empty", s.workflow, s.command), section="S-3", kind="action",
            title=f"CI step collects no test: `{s.command[:140]}`", why=s.reason,
            where=f"{s.workflow} ({s.step})", priority="P1", severity="should-fix",
            files=(s.workflow,), fingerprint=stable_id(s.reason)))
    via: dict[str, list[str]] = {}
    for c in ci.covered:
        if c.how.startswith("via import into "):
            via.setdefault(c.how.removeprefix("via import into "), []).append(c.file)
    for host, files in sorted(via.items()):
        items.append(Item(
            id=stable_id("ci-via-import", host), section="S-3", kind="fyi",
            title=f"{', '.join(f'`{f}`' for f in sorted(files))} run in CI only because "
                  f"`{host}` imports them (counted as covered)",
            files=(host, *sorted(files)), fingerprint=stable_id(*sorted(files))))
    # S-3e coverage.
    for g in res["coverage_gaps"]:
        if g.kind == "parallelism":
            items.append(Item(
                id=stable_id("gap", g.kind, g.subject), section="S-3", kind="opportunity",
                title=f"Parallelism combination {g.subject} not tested by the sub-project",
                why=g.detail, files=g.files))
        else:
            items.append(Item(
                id=stable_id("gap", g.kind, g.subject, *g.files), section="S-1", kind="fyi",
                title=g.detail, files=g.files))
    for u in res["passes_without_tests"]:
        items.append(Item(
            id=stable_id("pass-untested", u.name), section="S-3", kind="action",
            title=f"Graph pass `{u.name}` has no test",
            why="no pass-test file mentions it", where=f"{u.file}:{u.line}",
            priority="P2", severity="nice-to-have", files=(u.file,)))
    by_registry: dict[str, list[Any]] = {}
    for u in res["configs_without_tests"]:
        by_registry.setdefault(u.file, []).append(u)
    for file, unused in by_registry.items():
        names = sorted(u.name for u in unused)
        items.append(Item(
            id=stable_id("config-untested", file), section="S-3", kind="opportunity",
            title=f"{len(names)} config(s) in `{file}` used by no test or workflow: "
                  + ", ".join(f"`{n}`" for n in names),
            why="a registered config nobody runs rots silently", files=(file,),
            fingerprint=stable_id(*names)))

    # S-4 debt.
    configured = {}
    generic = []
    for p in res["private_api_uses"]:
        if p.reason == "configured private API":
            configured.setdefault(p.name or p.module, []).append(p)
        else:
            generic.append(p)
    for name, uses in sorted(configured.items()):
        files = tuple(sorted({u.file for u in uses}))
        alt = next((u.public_alternative for u in uses if u.public_alternative), "")
        if alt:
            items.append(Item(
                id=stable_id("private-alt", name, alt), section="S-4", kind="action",
                title=f"Private API `{name}` has a public alternative `{alt}` in the installed "
                      f"torch {inp.torch.version if inp.torch else ''}",
                why=f"used in {', '.join(files)}", priority="P2", severity="nice-to-have",
                files=files))
            continue
        check = ("no public alternative in the installed torch "
                 f"{inp.torch.version}" if inp.torch else
                 "public alternative not checked (no torch installed)")
        items.append(Item(
            id=stable_id("private", name), section="S-4", kind="fyi",
            title=f"Private API `{name}` used in {', '.join(f'`{f}`' for f in files)}; "
                  f"{check}",
            severity="nice-to-have", files=files, fingerprint=stable_id(*files)))
    if generic:
        files = tuple(sorted({u.file for u in generic}))
        items.append(Item(
            id=stable_id("private-imports", inp.target.name), section="S-4", kind="fyi",
            title=f"{len(generic)} imports of private (`_`-prefixed) torch modules/names "
                  f"in {len(files)} files",
            severity="nice-to-have", files=files,
            fingerprint=stable_id(*sorted(f"{u.file}:{u.module}:{u.name}" for u in generic))))
    for d in res["duplicate_logic_changes"]:
        items.append(Item(
            id=stable_id("dup", *d.ours, *d.upstream), section="S-1", kind="opportunity",
            title=f"Upstream {', '.join(f'`{u}`' for u in d.upstream)} changed since "
                  f"{since}; re-check duplicated {d.why or 'logic'} in "
                  f"{', '.join(f'`{o}`' for o in d.ours)}",
            why="core may now provide it, or the copies diverged", severity="nice-to-have",
            files=d.ours + d.upstream, fingerprint=stable_id(*d.commits)))

    # S-5 docs.
    lines: dict[tuple[str, str], list[int]] = {}
    for p in res["doc_inaccuracies"]:
        lines.setdefault((p.file, p.problem), []).append(p.line)
    for (file, problem), at in lines.items():
        items.append(Item(
            id=stable_id("doc", file, problem), section="S-5", kind="docs",
            title=f"`{file}:{', '.join(map(str, at))}`: {problem}", files=(file,),
            fingerprint=stable_id(*map(str, at))))

    # S-6 open work (LiveData).
    ow = res["open_work"]
    if ow is not None:
        for pr in ow.waiting_prs:
            items.append(Item(
                id=stable_id("pr-waiting", pr.repo, str(pr.number)), section="S-6",
                kind="fyi", title=f"PR {pr.repo}#{pr.number} waiting for review: {pr.title}",
                where=pr.url, fingerprint=stable_id(pr.updated_at)))
        for pr in ow.merged_recently:
            items.append(Item(
                id=stable_id("pr-merged", pr.repo, str(pr.number)), section="S-6",
                kind="fyi", title=f"Merged {pr.repo}#{pr.number}: {pr.title} — follow-up "
                                  "docs/tests?", where=pr.url))
        for issue in ow.stale_issues:
            items.append(Item(
                id=stable_id("issue-stale", issue.repo, str(issue.number)), section="S-6",
                kind="fyi", title=f"Issue {issue.repo}#{issue.number} without activity since "
                                  f"{issue.updated_at[:10]}: {issue.title}", where=issue.url,
                fingerprint=stable_id(issue.updated_at)))
    items += _all_clear(inp, res, items)
    return _dedupe(items)


def _dedupe(items: list[Item]) -> list[Item]:
    seen: set[str] = set()
    out = []
    for it in items:
        if it.id not in seen:
            seen.add(it.id)
            out.append(it)
    return out


def _all_clear(inp: Inputs, res: dict[str, Any], items: list[Item]) -> list[Item]:
    """Areas with nothing to report (S-7 All Clear)."""
    by_section = {i.section for i in items if i.kind in ("action", "opportunity")}
    since = inp.baseline.since
    out: list[tuple[str, str]] = []
    n = len(res["upstream_commits"])
    if inp.base is None:
        out.append(("S-1", f"Upstream delta: no commit before {since} to compare against"))
    elif "S-1" not in by_section:
        out.append(("S-1", f"Upstream delta: {n} commit(s) on watched paths since {since}, "
                           "nothing actionable"))
    patches = res["monkey_patches"]
    if patches and not res["stale_patches"] and inp.base is not None:
        out.append(("S-4", f"Monkey-patches: {len({p.target for p in patches})} patched "
                           "upstream method(s), signatures unchanged"))
    if not any(d.severity != "nice-to-have" for d in res["config_drift"]):
        out.append(("S-4", "Config drift: no config field left uncopied, dangling or "
                           "retyped under an override"))
    ci = res["ci"]
    if not ci.missing:
        out.append(("S-3", f"Tests in CI: every test file is reached by a configured workflow "
                           f"({len(ci.covered)} file(s) run)"))
    if not ci.empty_steps:
        out.append(("S-3", f"CI steps: all {len(ci.invocations)} Python invocations collect "
                           "tests"))
    if not res["passes_without_tests"] and inp.target.section("coverage").get("passes_file"):
        out.append(("S-3", "Graph passes: every pass has a test"))
    if inp.live.pulls is not None and not any(i.section == "S-2" and i.kind == "action"
                                              for i in items):
        out.append(("S-2", "TODOs: no referenced upstream PR has merged"))
    return [Item(id=stable_id("clear", s, t.split(":")[0]), section=s, kind="all_clear",
                 title=t, fingerprint=stable_id(t)) for s, t in out]


def reconcile(candidates: list[Item], priors: tuple[PriorPayload, ...], date: str
              ) -> tuple[list[Item], list[Item], list[str]]:
    """(items, resolved, suppressed): carried forward = an action item of a prior report
    found again; resolved = a prior action item (not a one-time delta) no longer found;
    an FYI unchanged in the three newest prior reports (or already suppressed) is dropped.
    """
    first: dict[str, str] = {}
    last_fp: dict[str, tuple[str, str]] = {}
    for p in priors:  # oldest first
        for it in p.items:
            if it.get("kind") in ("action", "carried"):
                first.setdefault(it["id"], it.get("first_reported") or p.date)
                last_fp[it["id"]] = (it.get("fingerprint", ""), p.date)
    newest = priors[-1] if priors else None
    suppressed_before = set(newest.suppressed) if newest else set()
    last3 = priors[-3:] if len(priors) >= 3 else ()
    items: list[Item] = []
    suppressed: list[str] = []
    for cand in candidates:
        it = cand
        if it.kind == "action" and it.id in first:
            fp, when = last_fp[it.id]
            status = (f"still open, unchanged since {when}" if fp == it.fingerprint
                      else f"still open, changed since {when}")
            items.append(Item(**{**it.__dict__, "kind": "carried",
                                 "first_reported": first[it.id], "status": status}))
            continue
        if it.section == "S-6" and newest is not None and not any(
                p_it["id"] == it.id for p_it in newest.items):
            # S-6: highlight what changed since the previous report.
            it = Item(**{**it.__dict__, "status": f"new since {newest.date}"})
        if it.kind == "fyi":
            key = f"{it.id}:{it.fingerprint}"
            unchanged_3 = bool(last3) and all(
                any(p_it["id"] == it.id and p_it.get("fingerprint", "") == it.fingerprint
                    for p_it in p.items) for p in last3)
            if key in suppressed_before or unchanged_3:
                suppressed.append(key)
                continue
        items.append(Item(**{**it.__dict__, "first_reported": it.first_reported or date}))
    current = {i.id for i in items}
    resolved: list[Item] = []
    if newest is not None:
        for it in newest.items:
            if it.get("kind") in ("action", "carried") and it["id"] not in current \
                    and it.get("section") not in DELTA_SECTIONS:
                resolved.append(Item(
                    id=it["id"], section=it.get("section", ""), kind="all_clear",
                    title=f"Resolved since {newest.date}: {it.get('title', '')}",
                    files=tuple(it.get("files", ())),
                    first_reported=it.get("first_reported", "")))
    return items, resolved, sorted(suppressed)


def annotate_board(items: list[Item], board: tuple[BoardItem, ...]) -> list[Item]:
    """S-0b: say where an action item stands on the board (its item body carries the
    ``scout-item:<id>`` marker, or its title ends with the item's title)."""
    out = []
    for it in items:
        found = None
        if it.kind in ("action", "carried"):
            found = next((b for b in board if f"scout-item:{it.id}" in b.body
                          or (b.title.startswith("[NightlyScout]")
                              and it.title[:60] in b.title)), None)
        if found is not None:
            note = f"board: {found.status or 'no status'}"
            out.append(Item(**{**it.__dict__,
                               "status": f"{it.status}; {note}" if it.status else note}))
        else:
            out.append(it)
    return out
