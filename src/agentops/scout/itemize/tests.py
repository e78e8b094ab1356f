"""S-3 items: test files, test classes and runner modules no CI invocation reaches
(and the ones a maintainer commented out, with their reason), CI steps that collect
nothing, graph passes without a test (one line), coverage gaps, unused configs.

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

import fnmatch
from typing import Any

from agentops.scout.analyses import ci as ci_analysis
from agentops.scout.analyses import testowner
from agentops.scout.config import is_test_name
from agentops.scout.itemize.common import (
    base,
    code,
    listed,
    names,
    place_file,
    place_line,
    plural,
    rel,
)
from agentops.scout.model import Inputs, Item, stable_id


def _disabled(notes: tuple[str, ...]) -> tuple[str, str]:
    """("commented out at ci.yaml:66, :67", "TODO: re-enable …") from the notes
    ``"wf:line (reason)"`` of commented-out invocations."""
    lines: dict[str, list[str]] = {}
    reasons: list[str] = []
    for note in notes:
        where, _, reason = note.partition(" (")
        lines.setdefault(base(place_file(where)), []).append(place_line(where))
        if reason and reason.rstrip(")") not in reasons:
            reasons.append(reason.rstrip(")"))
    if not lines:
        return "", ""
    at = ", ".join(f"{wf}:{', :'.join(ls)}" for wf, ls in lines.items())
    return f"commented out at {at}", "; ".join(reasons)


def _runner_for(inp: Inputs, ci: Any, kind: str) -> str:
    """The workflow that already runs the sub-project's tests that way (pytest or
    module runners), else the first configured one."""
    for inv in ci.invocations:
        if inv.kind == kind:
            return inv.workflow
    return inp.target.workflows[0]


def _launcher(ci: Any, kind: str, default: str) -> str:
    """How the workflows already launch that kind of file (``torchrun
    --nproc-per-node=2 -m pytest``, ``python -m``): the command before its target,
    environment assignments dropped; ``default`` when no invocation of that kind."""
    for inv in ci.invocations:
        if inv.kind != kind or not inv.targets:
            continue
        words = inv.command.split()
        first = inv.targets[0]
        if first not in words:
            continue
        head = [w for w in words[:words.index(first)] if "=" not in w or w.startswith("-")]
        while head and head[0] in ("sudo", "env", "time", "exec"):
            head.pop(0)
        if head:
            return " ".join(head)
    return default


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else "."


def _missing(inp: Inputs, ci: Any) -> list[Item]:
    """Test files no CI invocation runs. Files of one folder that share the fix (none
    was commented out with a reason of its own) make ONE action item for the folder: a
    maintainer adds one step that collects the folder, not one per file (#22: a
    sub-project with a dozen uncollected files gets one action, not a dozen). The
    facts keep one ``file:line`` per file so a later report says which were added or
    fixed."""
    out: list[Item] = []
    launcher = _launcher(ci, "pytest", "pytest")
    wf = _runner_for(inp, ci, "pytest")
    by_folder: dict[str, list[Any]] = {}
    for m in ci.missing_detail:
        if not m.disabled:
            by_folder.setdefault(_folder(m.file), []).append(m)
    grouped = {m.file for ms in by_folder.values() if len(ms) > 1 for m in ms}
    for folder, ms in sorted(by_folder.items()):
        if len(ms) < 2:
            continue
        # Test files under the folder that CI already runs (some by selected classes
        # only) must not run a second time, unselected; the folder's other missing
        # files (commented out for a reason, or a sub-folder's own item) have their
        # own fix.
        mine = {m.file for m in ms}
        # (Only files pytest collects need an --ignore: a runner script it would not.)
        run = sorted(c.file for c in ci.covered if c.file.startswith(folder + "/")
                     and fnmatch.fnmatch(base(c.file), inp.target.test_glob))
        nested = sorted({m.file for m in ci.missing_detail if m.file not in mine
                         and m.file.startswith(folder + "/")})
        ignore = "".join(f" --ignore={f}" for f in (*run, *nested))
        at = [f"{rel(m.file, folder)}:{m.line}" for m in ms]
        out.append(Item(
            id=stable_id("ci-missing-folder", folder), section="S-3", kind="action",
            title=f"{len(ms)} test files in {code(folder + '/')} run in no CI workflow: "
                  + names((rel(m.file, folder) for m in ms), limit=8),
            why="nothing catches a regression in what they test"
                + (f"; CI runs only {names((rel(f, folder) for f in run), limit=4)} of "
                   "that folder" if run else ""),
            where=", ".join(f"{folder}/{a}" for a in at), priority="P1",
            severity="should-fix", files=tuple(m.file for m in ms),
            fix=f"add one step `{launcher} {folder}{ignore} -v` to {wf} (collects the "
                f"{len(ms)} files; the way it runs the other test files)",
            facts=tuple(at)))
    for m in ci.missing_detail:
        if m.file in grouped:
            continue
        off, reason = _disabled(m.disabled)
        out.append(Item(
            id=stable_id("ci-missing", m.file), section="S-3", kind="action",
            title=f"{code(m.file)} runs in no CI workflow" + (f" ({off})" if off else ""),
            why="nothing catches a regression in what it tests" + (
                f"; it was disabled, not removed ({reason})" if reason else
                "; it was disabled, not removed" if off else ""),
            where=f"{m.file}:{m.line}", priority="P1", severity="should-fix",
            files=(m.file,),
            fix=(f"fix the cause and uncomment it ({off.removeprefix('commented out at ')})"
                 if off else f"add `{launcher} {m.file} -v` to {wf}"
                 " (the way it runs the other test files)"),
            facts=(m.file, *sorted(m.disabled))))
    return out


def _no_tests(inp: Inputs) -> list[Item]:
    """A sub-project with no tests of its own gets no "every test is reached" (#22).
    When test files of a shared tree import it or launch it by name, they exercise it
    outside its test scope: one FYI line naming them (its CI is not checked, nothing is
    claimed about it). Otherwise an opportunity; another sub-project's tests importing
    it are named as such, never as its tests (``testowner``)."""
    if ci_analysis.own_tests(inp):
        return []
    sub = inp.target.subproject.rstrip("/")
    loose = _loose_tests(inp, sub)
    if loose:
        return _loose_items(inp, sub, loose)
    dotted = sub.replace("/", ".")
    launch = testowner.launch_pattern(sub.rsplit("/", 1)[-1])
    importers: list[str] = []
    launchers: list[str] = []
    for p, text in sorted(inp.head.files.items()):
        if not p.endswith(".py") or p.startswith(sub + "/"):
            continue
        if fnmatch.fnmatch(base(p), "test_*.py") and (f"import {dotted}" in text
                                                      or f"from {dotted}" in text):
            importers.append(p)
        elif testowner.in_test_folder(p) and launch.search(text) \
                and testowner.relation(p, sub) == testowner.SHARED:
            launchers.append(p)
    foreign = [p for p in importers if testowner.relation(p, sub) == testowner.FOREIGN]
    shared = sorted({*launchers, *(p for p in importers if p not in foreign)})
    scope = f"`{inp.target.tests_dir}/{inp.target.test_glob}`"
    other = ""
    if testowner.relation(inp.target.tests_dir, sub, is_dir=True) == testowner.FOREIGN:
        other = (f"; `tests_dir` is {code(testowner.owner_of(inp.target.tests_dir, is_dir=True))}"
                 "'s tests folder, not its own")
    if foreign:
        owners = sorted({testowner.owner_of(p) for p in foreign})
        other += (f"; tests of {names(owners, limit=2)} import it ({names(foreign, limit=2)}): "
                  "that sub-project's tests, not its own")
    if shared:
        return [Item(
            id=stable_id("no-own-tests-shared", sub), section="S-3", kind="fyi",
            title=f"{code(sub + '/')} has no test file in its test scope ({scope}, no runner "
                  f"script), but {plural(len(shared), 'test file')} of a shared tree import "
                  f"it or launch it by name: {names(shared, limit=3)} — whether CI runs "
                  "them is not checked here; point `tests_dir`/`test_glob` (or "
                  "`ci.runners`) at them" + other,
            files=(sub,), facts=(scope, *shared[:8]))]
    return [Item(
        id=stable_id("no-own-tests", sub), section="S-3", kind="opportunity",
        title=f"{code(sub + '/')} has no tests of its own (nothing matches {scope}, no "
              "runner script)" + other + ("" if foreign else
                                          "; no test file of the repository imports it"),
        why=("only another sub-project's tests exercise its code" if foreign else
             "no CI run exercises its code") + ", so a core change that breaks it is found "
            "by a user", files=(sub,), facts=(scope, *foreign[:8]))]


# A folder of tests by its name's ``_``-separated parts (``tests``, ``unit_testing``).
_TEST_PARTS = frozenset({"test", "tests", "testing"})


def _loose_tests(inp: Inputs, sub: str) -> list[str]:
    """Test modules inside the folder but outside its configured test scope (a
    ``test_x.py`` anywhere, or any module of a ``unit_testing/`` folder, beside a scope of
    ``tests/test_*.py``): the folder has tests, whatever the scope says."""
    return sorted(p for p in inp.head.paths if p.startswith(sub + "/") and p.endswith(".py")
                  and base(p) != "__init__.py"
                  and (is_test_name(base(p))
                       or any(_TEST_PARTS & set(d.split("_"))
                              for d in p[len(sub) + 1:].split("/")[:-1])))


def _loose_items(inp: Inputs, sub: str, loose: list[str]) -> list[Item]:
    """"Tests exist, CI does not run them" in place of "no tests of its own" (#22): the
    test modules outside the scope, and whether any workflow names one or its folder."""
    flows = [t for p, t in sorted(inp.head.files.items())
             if p in inp.target.workflows or (p.startswith(".github/workflows/")
                                              and p.endswith((".yml", ".yaml")))]
    named = sorted(p for p in loose if any(p in t or p.rsplit("/", 1)[0] + "/" in t
                                           or p.rsplit("/", 1)[0] + " " in t for t in flows))
    scope = f"`{inp.target.tests_dir}/{inp.target.test_glob}`"
    shown = names([rel(p, sub) for p in loose], limit=3)
    if named:
        return [Item(
            id=stable_id("no-own-tests-loose", sub), section="S-3", kind="fyi",
            title=f"{code(sub + '/')} has {plural(len(loose), 'test file')} outside its test "
                  f"scope ({scope}): {shown}; a workflow names "
                  f"{names([rel(p, sub) for p in named], limit=2)} — point "
                  "`tests_dir`/`test_glob` at them so their CI is checked",
            files=tuple(loose[:8]), facts=(scope, *loose[:8]))]
    return [Item(
        id=stable_id("no-own-tests", sub), section="S-3", kind="opportunity",
        title=f"{code(sub + '/')} has {plural(len(loose), 'test file')} outside its test "
              f"scope ({scope}): {shown} — tests exist, but they are run by no workflow "
              "(none names them or their folder)",
        why="no CI run exercises its code, so a core change that breaks it is found by a "
            "user (run them in a workflow, or point `tests_dir`/`test_glob` at them)",
        files=tuple(loose[:8]), facts=(scope, *loose[:8]))]


def _path_gaps(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """Workflows whose ``paths``/``paths-ignore`` filters miss files their tests
    depend on (#22): the sub-project's own files (an action: its own PRs run none of
    its tests), else core files it copies, subclasses or imports (an opportunity)."""
    out: list[Item] = []
    for g in res.get("ci_paths", ()):
        where = f"{g.workflow}:{g.line}"
        after = ("; only its scheduled run would notice, after merge" if g.scheduled
                 else "")
        if g.own:
            out.append(Item(
                id=stable_id("ci-paths-own", g.workflow), section="S-3", kind="action",
                title=f"{code(base(g.workflow))} runs the sub-project's tests, but its "
                      f"`{g.filters}` filter ({where}) does not trigger on "
                      f"{plural(len(g.own), 'file')} of the sub-project, e.g. "
                      f"{code(g.own[0])}",
                why="a pull request changing them runs none of its tests before merge"
                    + after, where=where, priority="P1", severity="should-fix",
                files=(g.workflow, *g.own[:3]),
                fix=f"add `{inp.target.subproject.rstrip('/')}/**` to the `paths` of "
                    f"{', '.join(g.events)} (or take it out of `paths-ignore`)",
                facts=(g.workflow, g.filters, *g.own[:8])))
            continue
        shown = listed((f"{code(f)} ({why})" for f, why in g.core), 3)
        out.append(Item(
            id=stable_id("ci-paths-core", g.workflow), section="S-3", kind="opportunity",
            title=f"{code(base(g.workflow))} runs the sub-project's tests, but its "
                  f"`{g.filters}` filter ({where}) does not trigger on core files the "
                  f"sub-project depends on: {shown}",
            why="a core pull request that breaks the sub-project runs none of its tests "
                "before merge" + after + "; add those files (or their folders) to the "
                "workflow's paths",
            files=(g.workflow, *(f for f, _w in g.core[:3])),
            facts=(g.workflow, g.filters, *(f for f, _w in g.core[:8]))))
    return out


def _foreign(inp: Inputs, ci: Any) -> list[Item]:
    """Configured workflows that are another sub-project's CI (``testowner``): one FYI
    line naming them, never an action — their gaps belong in that sub-project's report
    (#22: graph_trainer's workflows are not a model folder's CI because graph_trainer's
    tests import the model)."""
    if not ci.foreign:
        return []
    owners = sorted({o for f in ci.foreign for o in f.owners})
    return [Item(
        id=stable_id("ci-foreign", inp.target.name), section="S-3", kind="fyi",
        title=f"{plural(len(ci.foreign), 'configured workflow')} "
              f"({names(base(f.workflow) for f in ci.foreign)}) run only tests of "
              f"{names(owners)}, not of the sub-project: not checked here (that "
              "sub-project's report covers them; drop them from `workflows`)",
        files=tuple(f.workflow for f in ci.foreign),
        facts=tuple(f"{f.workflow}: {', '.join(f.owners)}" for f in ci.foreign))]


def items(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    ci = res["ci"]
    out: list[Item] = []
    out += _no_tests(inp) + _path_gaps(inp, res) + _foreign(inp, ci)
    out += _missing(inp, ci)
    for g in ci.class_gaps:
        how = ("; ".join(g.filters[:2]) if g.filters else "no invocation names them")
        off, _reason = _disabled(g.disabled)
        out.append(Item(
            id=stable_id("ci-classes", g.file), section="S-3", kind="action",
            title=f"{plural(len(g.classes), 'test class', )} of {code(base(g.file))} "
                  f"selected by no CI invocation: {names(g.classes)}"
                  + (f" (imported into {names(base(h) for h in g.hosts)})" if g.hosts else ""),
            why=(f"CI runs only {names(g.selected)}" if g.selected else
                 "CI runs none of its classes") + f" ({how})" + (f"; {off}" if off else ""),
            where=g.file, priority="P2", severity="should-fix", files=(g.file, *g.hosts),
            fix=f"select them too (add them to the -k expression, or add "
                f"`{_launcher(ci, 'pytest', 'pytest')} {g.file}::{g.classes[0]}`) in "
                f"{_runner_for(inp, ci, 'pytest')}",
            facts=g.classes))
    for r in ci.runner_gaps:
        off, _reason = _disabled(r.disabled)
        run = (f"bash {r.file}" if r.file.endswith(".sh") else
               f"{_launcher(ci, 'module', 'python -m')} {r.module}")
        out.append(Item(
            id=stable_id("ci-runner", r.file), section="S-3", kind="action",
            title=f"Test runner {code(r.file)} is called by no CI workflow"
                  + (f" ({off})" if off else ""),
            why="the tests it defines never run", where=r.file, priority="P2",
            severity="should-fix", files=(r.file,),
            fix=f"add `{run}` to {_runner_for(inp, ci, 'module')}",
            facts=(r.file, *sorted(r.disabled))))
    for s in ci.empty_steps:
        where = f"{s.workflow}:{s.line}" if s.line else f"{s.workflow} ({s.step})"
        out.append(Item(
            id=stable_id("ci-empty", s.workflow, s.command), section="S-3", kind="action",
            title=f"CI step collects no test: `{s.command[:140]}`", why=s.reason,
            where=where, priority="P1", severity="should-fix", files=(s.workflow,),
            fix="point the step at tests that exist and are not skipped",
            facts=(s.reason,)))
    return out + _coverage(inp, res)


def _coverage(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    out: list[Item] = []
    new_code = []
    for g in res["coverage_gaps"]:
        if g.kind == "parallelism":
            out.append(Item(
                id=stable_id("gap", g.kind, g.subject), section="S-3", kind="opportunity",
                title=f"Parallelism combination {g.subject} not tested by the sub-project",
                why=g.detail, files=g.files, facts=(g.subject,)))
        else:
            new_code.append(g)
    if new_code:
        shown = ", ".join(f"{code(g.subject)} ({g.detail.split('(', 1)[1].split(')', 1)[0]})"
                          for g in new_code[:6])
        out.append(Item(
            id=stable_id("untested-new-code", inp.target.name), section="S-3", kind="fyi",
            title=f"{len(new_code)} public function(s) or class(es) added since the "
                  f"baseline that no test mentions: {shown}"
                  + (f" and {len(new_code) - 6} more" if len(new_code) > 6 else ""),
            files=tuple(sorted({f for g in new_code for f in g.files})),
            facts=tuple(g.subject for g in new_code)))
    by_model: dict[str, dict[str, list[str]]] = {}
    for p in res["model_parity"]:
        for m in p.missing:
            by_model.setdefault(p.model, {}).setdefault(m, []).append(p.other)
    for model, missing in sorted(by_model.items()):
        others = sorted({o for v in missing.values() for o in v})
        files = tuple(sorted({f for p in res["model_parity"] for f in p.files}))
        out.append(Item(
            id=stable_id("parity", model), section="S-3", kind="opportunity",
            title=f"{code(model)} is never tested with settings {names(others)} "
                  f"{'is' if len(others) == 1 else 'are'} tested with: "
                  + names(sorted(missing), limit=8),
            why="a feature that works for one model is untested for the other",
            files=files, facts=tuple(sorted(missing))))
    for u in res["untested_settings"]:
        out.append(Item(
            id=stable_id("setting-untested", u.flag), section="S-3", kind="opportunity",
            title=f"{code(u.flag)} is exercised by core's integration tests "
                  f"({names(u.core_tests, limit=2)}) and read by the sub-project "
                  f"({', '.join(u.reads)}), but no sub-project test sets it",
            why="the sub-project's own handling of that setting is never run in CI",
            files=tuple(sorted({r.rsplit(':', 1)[0] for r in u.reads})), facts=(u.flag,)))
    untested = res["passes_without_tests"]
    if untested:
        total = len(res["graph_passes"])
        files = tuple(sorted({u.file for u in untested}))
        out.append(Item(
            id=stable_id("passes-untested", inp.target.name), section="S-3", kind="action",
            title=f"{len(untested)} of {total} graph passes have no test: "
                  + names((u.name for u in untested), limit=12),
            why="no test file refers to them; a pass that breaks the graph is found only in "
                "a full training run", where=", ".join(files), priority="P2",
            severity="nice-to-have", files=files,
            fix="add a unit test per pass (a small traced graph in, the expected nodes out) "
                "next to the existing pass tests",
            facts=tuple(u.name for u in untested)))
    by_registry: dict[str, list[Any]] = {}
    for u in res["configs_without_tests"]:
        by_registry.setdefault(u.file, []).append(u)
    for file, unused in by_registry.items():
        found = sorted(u.name for u in unused)
        at = sorted(unused, key=lambda u: u.line)
        out.append(Item(
            id=stable_id("config-untested", file), section="S-3", kind="opportunity",
            title=f"{len(found)} config(s) in {code(file)} used by no test or workflow: "
                  + listed((f"{code(u.name)} (:{u.line})" for u in at), 6),
            why="a registered config nobody runs rots silently", files=(file,),
            facts=tuple(found)))
    for d in res.get("duplicate_configs", ()):
        shown = listed((f"{code(n)} (:{line})" for n, line in zip(d.names, d.lines,
                                                                   strict=True)), 6)
        out.append(Item(
            id=stable_id("config-duplicate", d.file, *d.names), section="S-3",
            kind="opportunity",
            title=f"configs in {code(d.file)} build the same config: {shown}",
            why="a variant whose name promises a difference but builds what its sibling "
                "builds misleads whoever picks it (often left behind when core removed the "
                "field that set it apart)", files=(d.file,), facts=d.names))
    branches = res.get("untested_branches", ())
    if branches:
        shown = "; ".join(f"`{b.condition}` ({rel(b.file, inp.target.subproject)}:{b.line})"
                          for b in branches[:8])
        out.append(Item(
            id=stable_id("branches-untested", inp.target.name), section="S-3",
            kind="opportunity",
            title=f"{len(branches)} branch(es) selected by a config value no test, config "
                  f"registry or workflow sets: {shown}"
                  + (f" and {len(branches) - 8} more" if len(branches) > 8 else ""),
            why="configuration nothing runs in CI breaks unnoticed",
            files=tuple(sorted({b.file for b in branches})),
            facts=tuple(sorted(f"{b.file}:{b.condition}" for b in branches))))
    return out
