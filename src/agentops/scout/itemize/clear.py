"""S-7 All Clear: an area is all clear only when its check ran and found nothing; a
check that could not run (no baseline commit, a workflow that does not parse, a doc
that is not there, a patched method outside the repository) says "not checked (why)"
instead, never "all clear".

Pure: results and the items built so far in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.analyses import bodydrift, upstream
from agentops.scout.analyses import ci as ci_analysis
from agentops.scout.itemize import corerefs
from agentops.scout.itemize.common import names, plural, short
from agentops.scout.model import Inputs, Item, stable_id


def items(inp: Inputs, res: dict[str, Any], built: list[Item]) -> list[Item]:
    found = {i.section for i in built if i.kind in ("action", "opportunity")}
    since = inp.baseline.since
    out: list[tuple[str, str]] = []
    n = len(res["upstream_commits"])
    if inp.base is None:
        out.append(("S-1", f"Upstream delta: not checked (no commit before {since} to "
                           "compare against)"))
    elif "S-1" not in found:
        # Copies upstream rewrote were not compared: no all-clear over them, and none
        # over an empty window either (a rewrite can come from outside watched paths).
        uncompared = [d.function for d in res.get("body_drift", ()) if d.rewritten]
        # A module name the model code defines nowhere was not settled by any check:
        # no all-clear over it (the filter may be a no-op, or name code not read).
        unsettled = sorted({f.name for f in res.get("fqn_names", ()) if f.how == "unknown"})
        on_delta = delta_actions(inp, built)
        if on_delta:
            # Never "no action" over a delta an action item of another area is about.
            shown = "; ".join(i.where or (i.files[0] if i.files else i.title[:60])
                              for i in on_delta[:MAX_DELTA_SHOWN])
            more = (f"; and {len(on_delta) - MAX_DELTA_SHOWN} more"
                    if len(on_delta) > MAX_DELTA_SHOWN else "")
            out.append(("S-1", f"Upstream delta: {n} commit(s) on watched paths since "
                               f"{since}; not all clear: "
                               f"{plural(len(on_delta), 'action item')} on code it changed "
                               f"listed above ({shown}{more})" + (
                                   "; not settled: module name(s) "
                                   f"{names(unsettled)}" if unsettled else "") + (
                                   "; not compared (upstream rewrote them, compare by "
                                   f"hand): {names(uncompared)}" if uncompared else "")
                               + f"; {_unseen(inp)}"))
        elif unsettled:
            out.append(("S-1", f"Upstream delta: {n} commit(s) on watched paths since "
                               f"{since}, no action found; not settled: module name(s) "
                               f"{names(unsettled)} that no model code defines at either "
                               "commit (see Opportunities)" + (
                                   "; not compared (upstream rewrote them, compare by "
                                   f"hand): {names(uncompared)}" if uncompared else "")))
        elif uncompared:
            out.append(("S-1", f"Upstream delta: {n} commit(s) on watched paths since "
                               f"{since}, no action found in what was compared; not "
                               "compared (upstream rewrote them, compare by hand): "
                               f"{names(uncompared)}"))
        elif n:
            out.append(("S-1", delta_scope(inp, res)))
        else:
            out.append(("S-1", f"Upstream delta: no commit on the watched paths since {since}"))
    out += _lost_symbols(inp)
    out += _patches(inp, res)
    out += _drift(inp, res)
    out += _ci(inp, res)
    passes = res["graph_passes"]
    refs = corerefs.clear_line(res)
    if refs:
        out.append(("S-4", refs))
    if passes and not res["passes_without_tests"]:
        out.append(("S-3", f"Graph passes: all {len(passes)} have a test"))
    absent = [p.file for p in res["doc_inaccuracies"] if p.kind == "absent"]
    if absent:
        out.append(("S-5", "Docs: not checked: " + ", ".join(absent) + " (not at HEAD)"))
    todo_list = res["todos"][0] if res.get("todos") else []
    if inp.live.pulls is not None and any(t.pr_states for t in todo_list) and not any(
            i.section == "S-2" and i.kind == "action" for i in built):
        out.append(("S-2", "TODOs: no referenced upstream PR has merged"))
    return [Item(id=stable_id("clear", s, t.split(":")[0]), section=s, kind="all_clear",
                 title=t, fingerprint=stable_id(t)) for s, t in out]


MAX_MIGRATED_SHOWN = 2
MAX_DELTA_SHOWN = 3


def delta_actions(inp: Inputs, built: list[Item]) -> list[Item]:
    """Action items outside S-1 that are about the upstream delta: one of their files
    is outside the sub-project and changed in the window, or their text names a
    window commit (a copy that lacks what core added, a call core's new signature
    breaks, a name core removed)."""
    sub = inp.target.subproject.rstrip("/") + "/"
    changed = {f for c in inp.commits for f in inp.commit_files.get(c.sha, c.files)
               if not f.startswith(sub)}
    shas = {short(c.sha) for c in inp.commits}
    return [i for i in built if i.kind == "action" and i.section != "S-1" and (
        any(f in changed for f in i.files)
        or any(sha in f"{i.title} {i.why} {i.fix}" for sha in shas))]


def delta_scope(inp: Inputs, res: dict[str, Any]) -> str:
    """The upstream delta with no action: what was compared, and what was not (#22 item
    7, no false all-clear). The checks compare signatures and fields the sub-project
    uses and the bodies it copies or overrides; a change with no signature change (a
    setting now read elsewhere, a hook to register) is seen by none, so the line names
    the window's commits that also edited the sub-project (core changes migrated into
    it, where a half-done migration hides) for a reader to check. One line, within the
    400 characters a title is shown with."""
    n = len(res["upstream_commits"])
    uses = len(res.get("use_checks", ())) + len(
        {ch.symbol for ch in res.get("fragile_surface_changes", ()) if ch.adapted})
    bodies = bodydrift.pair_count(inp)
    checked = [f"{plural(uses, 'changed signature')} it uses, each use checked" if uses
               else "no changed signature it uses"]
    if bodies:
        checked.append(f"{bodies} copied/overriding bod{'y' if bodies == 1 else 'ies'}")
    return (f"Upstream delta: {n} commit(s) on watched paths since {inp.baseline.since}, "
            f"no action in what was compared ({', '.join(checked)}); {_unseen(inp)}")


def _unseen(inp: Inputs) -> str:
    """What no check of the delta sees, and the window's commits that also edited the
    sub-project (core changes migrated into it) for a reader to check."""
    sub = inp.target.subproject.rstrip("/") + "/"
    migrated = [c for c in inp.commits
                if any(f.startswith(sub) for f in inp.commit_files.get(c.sha, c.files))]
    shown = "; ".join(f"`{short(c.sha)}` {c.subject[:36]}"
                      for c in migrated[:MAX_MIGRATED_SHOWN])
    more = (f"; and {len(migrated) - MAX_MIGRATED_SHOWN} more"
            if len(migrated) > MAX_MIGRATED_SHOWN else "")
    read = (f"read the {plural(len(migrated), 'commit')} that also edited the sub-project: "
            f"{shown}{more}" if migrated else "none of them edited the sub-project")
    return f"not checked: behaviour changed with no signature change — {read}"


def _lost_symbols(inp: Inputs) -> list[tuple[str, str]]:
    """A configured fragile surface that is not where the target says (moved, renamed,
    or the file is gone) at HEAD: "not checked (why)", never silence (#22)."""
    lost = []
    for key in ("classes", "functions", "return_tuples"):
        for sym in inp.target.symbols("fragile_surfaces", key):
            if sym.upstream:
                continue  # looked up in an upstream's source; said with the patches
            text = inp.head.text(sym.file)
            if text is None:
                lost.append(f"`{sym.name}` ({sym.file} is not at HEAD)")
            elif upstream.provided(inp.head, sym.file, sym.name) is None:
                # Imported into the file from elsewhere counts as there: it is compared
                # where it resolves.
                lost.append(f"`{sym.name}` (not defined in {sym.file})")
    if not lost:
        return []
    return [("S-1", "Fragile surfaces: not checked: " + "; ".join(dict.fromkeys(lost))
             + " — moved or renamed? update `fragile_surfaces` in the target")]


def _patches(inp: Inputs, res: dict[str, Any]) -> list[tuple[str, str]]:
    sites = res["monkey_patches"]
    if not sites:
        return []
    out = []
    outside = sorted({s.target for s in sites if not s.upstream_file and not s.upstream})
    inside = sorted({s.target for s in sites if s.upstream_file and not s.upstream})
    flagged = {c.site.target for c in res["stale_patches"] if c.verdict != "still valid"}
    for name, src in sorted(inp.upstreams.items()):
        mine = sorted({s.target for s in sites if s.upstream == name})
        if not mine:
            continue
        if src.missing:
            out.append(("S-4", f"Monkey-patches of {names(mine)} ({name}): not checked "
                               f"({src.missing}; set upstreams[].path or --upstream)"))
            continue
        found = [t for t in mine if any(s.target == t and s.upstream_file for s in sites)]
        lost = [t for t in mine if t not in found]
        if lost:
            out.append(("S-4", f"Monkey-patches of {names(lost)}: not checked (class not "
                               f"found in the source of {src.label})"))
        ok = [t for t in found if t not in flagged]
        if ok:
            out.append(("S-4", f"Monkey-patches of {names(ok)}: checked against the source "
                               f"of {src.label}; targets exist and replacements accept "
                               "its signatures"))
    if inp.base is None:
        out.append(("S-4", "Monkey-patches: not checked (no baseline commit to compare "
                           "signatures with)"))
    elif inside and not res["stale_patches"]:
        out.append(("S-4", f"Monkey-patches: {len(inside)} patched upstream method(s) "
                           f"({names(inside, limit=8)}), signatures unchanged since "
                           f"{inp.baseline.since}"))
    if outside:
        out.append(("S-4", f"Monkey-patches of {names(outside)}: not checked (defined "
                           "outside the repository; list the package under upstreams:)"))
    return out


def _drift(inp: Inputs, res: dict[str, Any]) -> list[tuple[str, str]]:
    drift = inp.target.section("config_drift")
    pairs = len(drift.get("copies", [])) + len(drift.get("subclasses", []))
    if not pairs:
        return []
    # A configured class or function that moved is the target's to update, not code
    # that breaks: "not checked (why)", never an action and never silence (#22).
    lost = [f"`{d.problem.split(' not found in ')[0]}` ({d.file})" for d in res["config_drift"]
            if d.severity == "not checked"]
    if lost:
        return [("S-4", "Config drift: not checked: " + "; ".join(dict.fromkeys(lost))
                 + " — not defined there at HEAD; moved or renamed? update `config_drift` "
                 "in the target")]
    if any(d.severity != "nice-to-have" for d in res["config_drift"]) \
            or res["lossy_config_copies"]:
        return []
    return [("S-4", f"Config drift: {pairs} configured copy/subclass pair(s) handle every "
                    "field, and no copy drops or mutates a nested config")]


def _ci(inp: Inputs, res: dict[str, Any]) -> list[tuple[str, str]]:
    ci = res["ci"]
    out = []
    if ci.parse_errors:
        out.append(("S-3", "Tests in CI: not checked for " + "; ".join(ci.parse_errors)))
    if not ci.workflows_read:
        return out
    # Only over a non-empty set (#22): a sub-project with no tests of its own has an
    # opportunity item instead, and steps that run other folders' tests are not its.
    own = set(ci_analysis.own_tests(inp))
    run = [c for c in ci.covered if c.file in own]
    if own and run and not (ci.missing or ci.class_gaps or ci.runner_gaps):
        out.append(("S-3", f"Tests in CI: every test class and runner of the sub-project "
                           f"is reached ({len(run)} of its file(s) run)"))
    ours = [i for i in ci.invocations if ci_analysis.step_is_ours(i, inp)]
    if ours and not ci.empty_steps:
        out.append(("S-3", f"CI steps: all {len(ours)} invocation(s) of the sub-project's "
                           "tests collect tests"))
    return out
