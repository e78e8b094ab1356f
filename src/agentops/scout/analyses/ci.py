"""S-3d tests missing from CI, at the level pytest sees them: for every workflow
invocation, the test cases it selects (node ids, directories, ``-k`` and ``-m``
evaluated the way pytest does, classes imported into an invoked module); then the test
files no invocation reaches, the test classes (own or imported) no invocation selects,
the runner modules under the tests folder no workflow calls, the CI steps that can
collect no test at all, and which of the gaps a maintainer commented out (and why).

Pure: workflow YAML text and Python sources in, frozen records out.
"""

from __future__ import annotations

import ast
import fnmatch
import posixpath
import re
from dataclasses import dataclass, field

import yaml

from agentops import untrusted_yaml
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import testowner, testsel
from agentops.scout.analyses.workflows import (  # noqa: F401 - re-exported for callers
    Disabled,
    Invocation,
    commands,
    disabled,
    invocations,
    parse_command,
    scripts_of,
)
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class Coverage:
    """How a test file is reached from CI."""

    file: str
    how: str  # "direct" | "via import into X" | "directory" | "node ids"
    workflow: str


@dataclass(frozen=True)
class EmptyStep:
    workflow: str
    step: str
    command: str
    reason: str
    line: int = 0


@dataclass(frozen=True)
class ClassGap:
    """Test classes of one file that no CI invocation selects."""

    file: str  # the file defining the classes
    classes: tuple[str, ...]
    selected: tuple[str, ...]  # the file's classes some invocation does select
    hosts: tuple[str, ...] = ()  # invoked files the classes are imported into
    filters: tuple[str, ...] = ()  # "wf:line -k EXPR" of the invocations that left them out
    disabled: tuple[str, ...] = ()  # "wf:line (reason)" of commented-out selections


@dataclass(frozen=True)
class MissingFile:
    file: str
    disabled: tuple[str, ...] = ()  # "wf:line (reason)" of commented-out invocations
    line: int = 1  # its first test (class or function)


@dataclass(frozen=True)
class RunnerGap:
    """A runner module under the tests folder (``if __name__ == "__main__"``) that no
    workflow calls."""

    file: str
    module: str
    disabled: tuple[str, ...] = ()


@dataclass(frozen=True)
class ForeignWorkflow:
    """A configured workflow whose steps run only another sub-project's tests: its
    CI, not this one's (``testowner``); named in one FYI line, never an action."""

    workflow: str
    owners: tuple[str, ...]  # the folders whose tests its steps select


@dataclass(frozen=True)
class CiResult:
    invocations: tuple[Invocation, ...]
    covered: tuple[Coverage, ...]
    missing: tuple[str, ...]
    empty_steps: tuple[EmptyStep, ...]
    parse_errors: tuple[str, ...] = field(default=())
    class_gaps: tuple[ClassGap, ...] = ()
    runner_gaps: tuple[RunnerGap, ...] = ()
    missing_detail: tuple[MissingFile, ...] = ()
    workflows_read: int = 0
    foreign: tuple[ForeignWorkflow, ...] = ()


def _test_files(inp: Inputs) -> list[str]:
    """Test files of the target's test scope; never another sub-project's (a
    ``tests_dir`` under a folder beside the sub-project holds that folder's tests, even
    when they import this one: ``testowner``)."""
    tests = inp.target.tests_dir + "/"
    glob = inp.target.test_glob
    sub = inp.target.subproject
    return sorted(p for p in inp.head.paths if p.startswith(tests) and p.endswith(".py")
                  and fnmatch.fnmatch(p.rsplit("/", 1)[-1], glob)
                  and testowner.relation(p, sub) != testowner.FOREIGN)


def _absolute(module: str, importer: str) -> str | None:
    """``.test_x`` imported by ``a/b/test_y.py`` → ``a.b.test_x`` (the module as the
    import statement spells it, dots included); None above the repository's top."""
    level = len(module) - len(module.lstrip("."))
    return ps.from_module(importer, level, module[level:] or None)


def resolver(inp: Inputs) -> testsel.Resolver:
    """Find the test module an ``import`` names, inside the tests folder only."""
    tests = inp.target.tests_dir + "/"

    def resolve(module: str, name: str, importer: str) -> tuple[str, str] | None:
        base = _absolute(module, importer)
        if base is None:
            return None
        for cand in (base, f"{base}.{name}") if base else (name,):
            path = ps.module_path(cand, inp.head.paths)
            if path and path.startswith(tests) and path != importer:
                text = inp.head.text(path)
                if text is not None:
                    return path, text
        return None

    return resolve


def _imported_files(path: str, inp: Inputs, depth: int = 3) -> set[str]:
    """Files under the tests directory imported (transitively, bounded) by ``path``: a
    test module pytest collects through an import into an invoked file."""
    tests = inp.target.tests_dir + "/"
    seen: set[str] = set()
    frontier = [path]
    for _ in range(depth):
        nxt = []
        for f in frontier:
            text = inp.head.text(f) or ""
            # Sanity: a file without an import statement cannot import a test module.
            if "import" not in text:
                continue
            mod = ps.parse(text)
            if mod is None:
                continue
            for node in ps.statements(mod):
                names: list[str] = []
                if isinstance(node, ast.ImportFrom):
                    base = ps.from_module(f, node.level, node.module)
                    names = [base] + [f"{base}.{a.name}" if base else a.name
                                      for a in node.names] if base is not None else []
                elif isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                for name in names:
                    target = ps.module_path(name, inp.head.paths)
                    if target and target.startswith(tests) and target not in seen \
                            and target != path:
                        seen.add(target)
                        nxt.append(target)
        frontier = nxt
    return seen


def _resolve_target(target: str, inp: Inputs) -> tuple[str | None, list[str], bool]:
    """(path, node parts, is_dir) of a pytest target; path None when it does not exist."""
    if target.startswith("pyargs:"):
        mod = target[len("pyargs:"):]
        return ps.module_path(mod, inp.head.paths), [], False
    path, *node = target.split("::")
    path = posixpath.normpath(path.rstrip("/").removeprefix("./")) if path else path
    if path in inp.head.paths:
        return path, node, False
    if any(p.startswith(path + "/") for p in inp.head.paths):
        return path, [], True
    if "/" not in path and not path.endswith(".py"):
        # `python -m pytest pkg.tests.test_x`: a dotted module name
        mod = ps.module_path(path, inp.head.paths)
        if mod is not None:
            return mod, node, mod.endswith("/__init__.py")
    return None, node, False


class _Selector:
    """Test cases of files (cached) and what each invocation selects from them."""

    def __init__(self, inp: Inputs) -> None:
        self.inp = inp
        self._cases: dict[str, list[testsel.TestCase]] = {}
        self._resolve = resolver(inp)
        self.all_py = sorted(p for p in inp.head.paths if p.endswith(".py"))

    def cases(self, path: str) -> list[testsel.TestCase]:
        if path not in self._cases:
            self._cases[path] = testsel.test_cases(path, self.inp.head.text(path) or "",
                                                   self._resolve)
        return self._cases[path]

    def files_of(self, target: str, test_files: list[str]
                 ) -> tuple[list[str], list[str], bool, str]:
        """(files, node parts, is_dir, problem) of one pytest target."""
        if target == "":
            return list(test_files), [], True, ""  # bare `pytest`: the rootdir
        path, node, is_dir = _resolve_target(target, self.inp)
        if path is None:
            return [], node, False, f"{target} does not exist"
        if is_dir:
            return [p for p in self.all_py if p.startswith(path + "/")
                    and fnmatch.fnmatch(p.rsplit("/", 1)[-1], "test_*.py")], [], True, ""
        return [path], node, False, ""


def _where(inv: Invocation) -> str:
    return f"{inv.workflow}:{inv.line}" if inv.line else inv.workflow


def _pytest_collected(inp: Inputs, sel: _Selector, test_files: list[str],
                      chosen: set[tuple[str, str]] | None = None) -> dict[str, str]:
    """File -> workflow, for every file a pytest invocation of any workflow of the
    repository collects (configured or not): such a module is run in CI (#22 defect 1).
    ``chosen`` gathers the (defining file, class) that those invocations select (their
    node ids, -k and -m; every case when the filter is past the evaluator): the classes
    a workflow runs are run, whichever workflow it is (#22, set 22 kind b: a file counted
    as run through another workflow was also said to have none of its classes run)."""
    out: dict[str, str] = {}
    for wf, inv in _any_workflow_invocations(inp):
        if inv.kind != "pytest":
            continue
        unchecked = bool(_unchecked_filter(inv))
        for target in inv.targets or ("",):
            files, node, _is_dir, problem = sel.files_of(target, test_files)
            for f in [] if problem else files:
                out.setdefault(f, wf)
                if chosen is not None:
                    picked = sel.cases(f) if unchecked else testsel.select(
                        sel.cases(f), node=node, keyword=inv.keyword, marker=inv.marker)
                    chosen |= {(c.origin or c.path, c.cls) for c in picked}
    return out


def _any_workflow_invocations(inp: Inputs) -> list[tuple[str, Invocation]]:
    """(workflow, invocation) of every workflow of the repository, configured or not,
    each parsed once per tree (kept in its cache). A workflow that does not parse is
    skipped here (the configured ones say so)."""
    key = ("ci.any_workflow_invocations",)
    if key not in inp.head.cache:
        out: list[tuple[str, Invocation]] = []
        for wf in sorted(p for p in inp.head.files if p.startswith(".github/workflows/")
                         and p.endswith((".yml", ".yaml"))):
            text = inp.head.text(wf) or ""
            try:
                doc = untrusted_yaml.load(text)
            except (untrusted_yaml.UnsafeYAML, yaml.YAMLError):
                continue
            out += [(wf, inv) for inv in invocations(wf, doc, text)]
        inp.head.cache[key] = out
    return inp.head.cache[key]


def _runners_run_anywhere(inp: Inputs) -> dict[str, str]:
    """File -> workflow, for every script a run step of any workflow of the repository
    executes (configured or not): by path, as a ``python -m`` module, or from a shell
    script the step calls (one level: a script that script calls is run too, but its
    own commands are not read). A target drafted before the folder had its own workflow
    lists none of it, yet the script runs in CI (#22, set 17 kind c)."""
    out: dict[str, str] = {}
    todo = list(_any_workflow_invocations(inp))
    for wf, inv in todo:
        if inv.kind == "pytest":
            continue
        path = _runner_path(inv, inp)
        if path is None or path in out:
            continue
        out[path] = wf
        if path.endswith(".sh") and inv.workflow == wf:
            for command in commands(inp.head.text(path) or ""):
                found = parse_command(path, inv.step, command)
                if found is not None:
                    todo.append((wf, found))
    return out


def own_tests(inp: Inputs) -> list[str]:
    """The sub-project's own tests: test files in its test scope and runner scripts
    (empty when it has none: then no "every test is reached" can be said)."""
    return sorted({*_test_files(inp), *runner_files(inp)})


def step_is_ours(inv: Invocation, inp: Inputs) -> bool:
    """Whether a CI step runs the sub-project's tests (see ``_step_is_ours``)."""
    return _step_is_ours(inv, inp)


def _is_dir(path: str, inp: Inputs) -> bool:
    return path not in inp.head.paths and any(p.startswith(path + "/")
                                              for p in inp.head.paths)


def _target_owner(target: str, inp: Inputs) -> tuple[str, str, bool]:
    """(path, ``testowner`` relation, is_dir) of one invocation target."""
    t = testowner.module_path(target).rstrip("/")
    if t and "/" in t and t not in inp.head.paths and t + ".py" in inp.head.paths:
        t += ".py"  # a dotted module
    is_dir = bool(t) and _is_dir(t, inp)
    if not t:
        return t, testowner.SHARED, True  # bare `pytest`: the rootdir
    return t, testowner.relation(t, inp.target.subproject, is_dir=is_dir), is_dir


def _step_is_ours(inv: Invocation, inp: Inputs) -> bool:
    """Whether a CI step is the sub-project's CI: a test it selects is the sub-project's
    own (#22) — a target in the sub-project's folder; in a shared tree (``testowner``),
    a folder holding the sub-project or its test scope, a folder inside that scope, or
    a file of its test scope (``tests_dir`` + ``test_glob``, or a runner that refers to
    it). A target under another sub-project's folder never is, even when its tests
    import this one or ``tests_dir`` points there: an empty step there is that
    sub-project's to fix, not this report's."""
    tests = inp.target.tests_dir.rstrip("/")
    targets = (inv.targets or ("",)) if inv.kind == "pytest" else inv.targets[:1]
    for target in targets:
        t, rel, is_dir = _target_owner(target, inp)
        if rel == testowner.OWN or not t:
            return True
        if rel == testowner.FOREIGN:
            continue
        if is_dir and (t == tests or tests.startswith(t + "/") or t.startswith(tests + "/")):
            return True
        if not is_dir and t.startswith(tests + "/") and t in own_tests(inp):
            return True
    return False


def _foreign_workflows(invs: list[Invocation], inp: Inputs) -> list[ForeignWorkflow]:
    """Configured workflows none of whose steps is the sub-project's while some select
    another sub-project's tests (``testowner``)."""
    by_wf: dict[str, list[Invocation]] = {}
    for inv in invs:
        by_wf.setdefault(inv.workflow, []).append(inv)
    out = []
    for wf, steps in by_wf.items():
        if any(_step_is_ours(inv, inp) for inv in steps):
            continue
        owners = sorted({testowner.owner_of(t, is_dir=is_dir) for inv in steps
                         for t, rel, is_dir in (_target_owner(x, inp) for x in inv.targets)
                         if rel == testowner.FOREIGN})
        if owners:
            out.append(ForeignWorkflow(wf, tuple(owners)))
    return out


def analyse(inp: Inputs) -> CiResult:
    """S-3d over the configured workflows."""
    invs: list[Invocation] = []
    off: list[Disabled] = []
    errors: list[str] = []
    read = 0
    for wf in inp.target.workflows:
        text = inp.head.text(wf)
        if text is None:
            errors.append(f"{wf}: workflow file not found at HEAD")
            continue
        try:
            doc = untrusted_yaml.load(text)
        except untrusted_yaml.UnsafeYAML as exc:
            errors.append(f"{wf}: refused: {exc}")
            continue
        except yaml.YAMLError as exc:
            errors.append(f"{wf}: not valid YAML ({exc})")
            continue
        read += 1
        invs += invocations(wf, doc, text)
        off += disabled(wf, text)
    test_files = _test_files(inp)
    sel = _Selector(inp)
    covered: dict[str, Coverage] = {}
    empty: list[EmptyStep] = []
    chosen_keys: set[tuple[str, str]] = set()  # (defining file, class or "") selected
    filters: dict[str, list[str]] = {}  # invoked file -> invocations that filter it
    invoked_runners: set[str] = set()
    for inv in invs:
        invoked: list[str] = []
        if inv.kind == "pytest":
            unchecked = _unchecked_filter(inv)
            if unchecked:
                # Security: an expression past the evaluator's bounds (someone else's
                # workflow) is said "not checked (why)"; its files count as run, so no
                # finding is made from a selection that was never evaluated.
                errors.append(f"{inv.workflow}: {unchecked}")
                for target in inv.targets or ("",):
                    files, _node, _is_dir, problem = sel.files_of(target, test_files)
                    for f in [] if problem else files:
                        covered.setdefault(f, Coverage(f, "not checked", inv.workflow))
                        invoked.append(f)
                        chosen_keys |= {(c.origin or c.path, c.cls) for c in sel.cases(f)}
                for f in invoked:
                    for imp in _imported_files(f, inp):
                        if imp in test_files and imp not in covered:
                            covered[imp] = Coverage(imp, f"via import into {f}", inv.workflow)
                continue
            selected_total = 0
            reasons: list[str] = []
            for target in inv.targets or ("",):
                files, node, is_dir, problem = sel.files_of(target, test_files)
                if problem:
                    reasons.append(problem)
                    continue
                for f in files:
                    how = "directory" if is_dir else (
                        "node ids" if node or inv.keyword or inv.marker else "direct")
                    covered.setdefault(f, Coverage(f, how, inv.workflow))
                    invoked.append(f)
                    chosen = testsel.select(sel.cases(f), node=node, keyword=inv.keyword,
                                            marker=inv.marker)
                    chosen_keys |= {(c.origin or c.path, c.cls) for c in chosen}
                    if node or inv.keyword or inv.marker:
                        how_filtered = " ".join(
                            p for p in (("::".join(node)) if node else "",
                                        f"-k {inv.keyword!r}" if inv.keyword else "",
                                        f"-m {inv.marker!r}" if inv.marker else "") if p)
                        filters.setdefault(f, []).append(f"{_where(inv)} {how_filtered}")
                    live = [c for c in chosen if not c.skipped]
                    selected_total += len(live)
                    if not chosen:
                        what = "::".join([f, *node]) if node else f
                        kw = f" with -k {inv.keyword!r}" if inv.keyword else ""
                        mk = f" with -m {inv.marker!r}" if inv.marker else ""
                        reasons.append(f"{what}{kw}{mk} selects no test")
                    elif not live:
                        reasons.append(f"{'::'.join([f, *node])}: every selected test is "
                                       "skipped unconditionally")
            if selected_total == 0 and _step_is_ours(inv, inp):
                empty.append(EmptyStep(inv.workflow, inv.step, inv.command,
                                       "; ".join(reasons) or "collects no test", inv.line))
        else:
            path = _runner_path(inv, inp)
            if path is None:
                target = inv.targets[0]
                if target.startswith(inp.target.subproject.replace("/", ".")) or \
                        target.removeprefix("./").startswith(inp.target.subproject):
                    empty.append(EmptyStep(inv.workflow, inv.step, inv.command,
                                           f"{target} does not exist", inv.line))
                continue
            invoked_runners.add(path)
            covered.setdefault(path, Coverage(path, "direct", inv.workflow))
            invoked.append(path)
            chosen_keys |= {(c.origin or c.path, c.cls) for c in sel.cases(path)}
            problem = _runner_test_name_problem(inv, inp.head.text(path) or "")
            if problem and _step_is_ours(inv, inp):
                empty.append(EmptyStep(inv.workflow, inv.step, inv.command, problem, inv.line))
        for f in invoked:
            for imp in _imported_files(f, inp):
                if imp in test_files and imp not in covered:
                    covered[imp] = Coverage(imp, f"via import into {f}", inv.workflow)
    # A file counts as run when one of its tests is selected (directly or imported
    # into an invoked module), or a runner executes it.
    ran = {f for f, _cls in chosen_keys}
    imported_only = set()
    for f in list(covered):
        if covered[f].how.startswith("via import into ") and f not in ran:
            # Imported into an invoked module, but none of its tests is ever selected:
            # a class-level gap (said with the host), not coverage.
            del covered[f]
            imported_only.add(f)
    off_by_file = _disabled_by_file(off, inp, sel, test_files)
    # A test file the configured workflows miss but another workflow's pytest collects
    # runs in CI all the same (the target may list only the sub-project's own workflow).
    chosen_elsewhere: set[tuple[str, str]] = set()
    elsewhere = _pytest_collected(inp, sel, test_files, chosen_elsewhere)
    for f in test_files:
        if f not in covered and f not in ran and f not in imported_only and f in elsewhere:
            covered[f] = Coverage(f, "collected by pytest there", elsewhere[f])
    chosen_keys |= chosen_elsewhere
    missing = tuple(f for f in test_files if f not in covered and f not in ran
                    and f not in imported_only)
    return CiResult(
        tuple(invs), tuple(covered[k] for k in sorted(covered)), missing, tuple(empty),
        tuple(errors),
        class_gaps=tuple(_class_gaps(test_files, set(missing), sel, chosen=chosen_keys,
                                     filters=filters, off=off_by_file,
                                     expected=inp.target.section("ci").get("test_classes",
                                                                           {}))),
        runner_gaps=tuple(_runner_gaps(inp, invoked_runners | set(elsewhere)
                                       | set(_runners_run_anywhere(inp)), off_by_file)),
        missing_detail=tuple(MissingFile(f, tuple(off_by_file.get((f, ""), ())),
                                         _first_test_line(inp.head.text(f) or ""))
                             for f in missing),
        workflows_read=read, foreign=tuple(_foreign_workflows(invs, inp)))


def _first_test_line(text: str) -> int:
    mod = ps.parse(text)
    for node in mod.body if mod is not None else ():
        if isinstance(node, (ast.ClassDef, *ps.FuncDef.__args__)) and (
                node.name.startswith(("test", "Test"))):
            return node.lineno
    return 1


def _runner_path(inv: Invocation, inp: Inputs) -> str | None:
    target = inv.targets[0]
    if inv.kind == "module":
        return ps.module_path(target, inp.head.paths)
    path = posixpath.normpath(target.removeprefix("./"))
    return path if path in inp.head.paths else None


def runner_path(inv: Invocation, inp: Inputs) -> str | None:
    """The repository file a module or script invocation runs (None: outside it)."""
    return _runner_path(inv, inp)


def _unchecked_filter(inv: Invocation) -> str:
    """Why the invocation's ``-k``/``-m`` is not evaluated ("" when it is)."""
    for flag, expr in (("-k", inv.keyword), ("-m", inv.marker)):
        if not expr:
            continue
        try:
            testsel.check_expression(expr)
        except testsel.UncheckedExpression as exc:
            return (f"{flag} of the pytest command at line {inv.line} not checked ({exc}; "
                    f"at most {testsel.MAX_EXPR_TOKENS} words and {testsel.MAX_EXPR_DEPTH} "
                    "levels are evaluated)")
    return ""


def _disabled_by_file(off: list[Disabled], inp: Inputs, sel: _Selector,
                      test_files: list[str]) -> dict[tuple[str, str], list[str]]:
    """(file, class or "") → "wf:line (reason)" of commented-out invocations naming it."""
    out: dict[tuple[str, str], list[str]] = {}
    for d in off:
        inv = d.invocation
        note = f"{inv.workflow}:{inv.line}" + (f" ({d.reason})" if d.reason else "")
        if inv.kind != "pytest":
            path = _runner_path(inv, inp)
            if path:
                out.setdefault((path, ""), []).append(note)
            continue
        if _unchecked_filter(inv):
            continue  # a commented-out line whose filter cannot be evaluated names nothing
        for target in inv.targets:
            files, node, _is_dir, problem = sel.files_of(target, test_files)
            for f in [] if problem else files:
                out.setdefault((f, ""), []).append(note)
                for c in testsel.select(sel.cases(f), node=node, keyword=inv.keyword,
                                        marker=inv.marker):
                    key = (c.origin or c.path, c.cls)
                    if note not in out.get(key, []):
                        out.setdefault(key, []).append(note)
    return out


def _bases_of(sel: _Selector, path: str, classes: set[str]) -> set[str]:
    """Same-file base classes (transitively) of ``classes`` in ``path``."""
    mod = ps.parse(sel.inp.head.text(path) or "")
    bases: dict[str, set[str]] = {}
    for node in ps.nodes(mod) if mod is not None else ():
        if isinstance(node, ast.ClassDef):
            bases[node.name] = {ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases}
    out: set[str] = set()
    todo = list(classes)
    while todo:
        for b in bases.get(todo.pop(), set()):
            if b in bases and b not in out:
                out.add(b)
                todo.append(b)
    return out


def _class_gaps(test_files: list[str], missing: set[str], sel: _Selector, *,
                chosen: set[tuple[str, str]], filters: dict[str, list[str]],
                off: dict[tuple[str, str], list[str]],
                expected: dict[str, list[str]]) -> list[ClassGap]:
    """Per defining file, the test classes no invocation selects (files no workflow
    reaches at all are reported as missing files, not class by class)."""
    out: list[ClassGap] = []
    for f in test_files:
        if f in missing:
            continue
        own = sorted({c.cls for c in sel.cases(f) if c.cls and not c.origin})
        if f in expected:  # the target says which classes CI must run in this file
            own = sorted(expected[f])
        hosts = sorted({h for h in test_files for c in sel.cases(h)
                        if c.origin == f}) if own else []
        # A base class's tests run in every selected subclass: covered through them.
        run_through = _bases_of(sel, f, {c for (path, c) in chosen if path == f})
        gaps = [c for c in own if (f, c) not in chosen and c not in run_through]
        if not gaps:
            continue
        picked = tuple(c for c in own if (f, c) in chosen)
        how = [*filters.get(f, [])] + [x for h in hosts for x in filters.get(h, [])]
        notes = tuple(dict.fromkeys(n for c in gaps for n in off.get((f, c), [])))
        out.append(ClassGap(f, tuple(gaps), picked, tuple(hosts),
                            tuple(dict.fromkeys(how)), notes))
    return out


def _is_runner(text: str) -> bool:
    return ps.has_main_block(ps.parse(text))


# The file names pytest collects by default (``python_files``): such a module's tests
# run wherever pytest is pointed at its folder, so it is a test file, not a runner.
PYTEST_FILES = ("test_*.py", "*_test.py")
# Words in a function or class name that say it defines or runs a test case.
_TEST_WORDS = re.compile(r"(?i)test|case|check|verify|compare|assert")


def defines_tests(text: str) -> bool:
    """Whether a script defines tests: an ``assert``, a call to an ``assert*`` helper,
    or a function or class whose name says it is a test, case or check. A data script
    (packs a dataset, downloads assets) defines none, so it is no runner (#22)."""
    mod = ps.parse(text)
    if mod is None:
        return False
    for node in ast.walk(mod):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, (ast.ClassDef, *ps.FuncDef.__args__)) and \
                _TEST_WORDS.search(node.name):
            return True
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func).rsplit(".", 1)[-1]
            if name.startswith(("assert", "assert_")):
                return True
    return False


def _in_scope(inp: Inputs, path: str, text: str) -> bool:
    """A runner in a tests folder the sub-project shares with others (``tests/``) is the
    sub-project's only when it refers to it (imports its package or names its folder);
    one under another sub-project's folder never is (``testowner``)."""
    sub = inp.target.subproject.rstrip("/")
    rel = testowner.relation(path, sub)
    if rel != testowner.SHARED:
        return rel == testowner.OWN
    return sub in text or sub.replace("/", ".") in text


def runner_files(inp: Inputs) -> list[str]:
    """Runner modules under the tests folder: scripts with a ``__main__`` block that
    define tests pytest would not collect (their file name is not pytest's), within the
    target's test scope; and the runners the target lists (``ci.runners``: shell
    scripts, modules)."""
    tests = inp.target.tests_dir + "/"
    test_files = set(_test_files(inp))
    out = [p for p in inp.target.section("ci").get("runners", []) if p in inp.head.paths]
    for path in sorted(inp.head.paths):
        name = path.rsplit("/", 1)[-1]
        if not path.startswith(tests) or not path.endswith(".py") or path in test_files \
                or name in ("__init__.py", "conftest.py") \
                or any(fnmatch.fnmatch(name, g) for g in PYTEST_FILES):
            continue
        text = inp.head.text(path)
        if text is not None and "__main__" in text and _is_runner(text) \
                and defines_tests(text) and _in_scope(inp, path, text) and path not in out:
            out.append(path)
    return out


def _runner_gaps(inp: Inputs, invoked: set[str], off: dict[tuple[str, str], list[str]]
                 ) -> list[RunnerGap]:
    return [RunnerGap(path, path.removesuffix(".py").replace("/", "."),
                      tuple(off.get((path, ""), ())))
            for path in runner_files(inp) if path not in invoked]


def _runner_test_name_problem(inv: Invocation, source: str) -> str:
    """A custom runner given ``--test_name X``: X must be a test the runner defines,
    and not one marked ``disabled=True``."""
    args = list(inv.args)
    names = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--test_name"]
    names += [a.split("=", 1)[1] for a in args if a.startswith("--test_name=")]
    if not names:
        return ""
    mod = ps.parse(source)
    if mod is None:
        return ""
    consts = {n.targets[0].id: n.value.value for n in mod.body
              if isinstance(n, ast.Assign) and len(n.targets) == 1
              and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Constant)}
    problems = []
    for name in names:
        calls = [c for c in ast.walk(mod) if isinstance(c, ast.Call) and any(
            isinstance(a, ast.Constant) and a.value == name
            for a in [*c.args, *(k.value for k in c.keywords)])]
        if not calls and f'"{name}"' not in source and f"'{name}'" not in source:
            problems.append(f"--test_name {name} is not defined by the runner")
            continue
        for c in calls:
            for k in c.keywords:
                val = k.value.value if isinstance(k.value, ast.Constant) else \
                    consts.get(k.value.id) if isinstance(k.value, ast.Name) else None
                if k.arg == "disabled" and val is True:
                    problems.append(f"--test_name {name} is disabled in the runner")
    return "; ".join(problems) if problems and len(problems) >= len(names) else ""
