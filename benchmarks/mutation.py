#!/usr/bin/env python3
"""Mutation benchmark (#26): would the tests notice if safety-critical code broke?

For each module of ``benchmarks/data/mutation_targets.json`` it makes small mutants of
the source — a flipped comparison, an ``if``/``while`` condition forced True or False,
an ``and``/``or`` swapped or one operand dropped, ``not`` removed, an integer constant
±1, a regex alternation branch or character-class member removed, a guard (``raise``,
a call statement) dropped, a return value replaced by None/True/False, ``break`` and
``continue`` swapped — and runs, against each mutant, only the test files that reach
the module, with ``pytest -x`` and a timeout: a test file reaches it when it mentions the
module (its dotted name, or an import of it) or imports a test helper module that does
(``from tests.triage.plankit import plan_ok``, where plankit.py imports
``agentops.triage.plan``; helpers are followed one level, conftest.py fixtures are not).
A mutant is caught when those tests fail (or time out), survives when they pass.

Mutants run in a temporary copy of the tree (one per job), never in the worktree; the
copy's file is restored after every mutant and the copies are deleted at the end, on
Ctrl-C too. Prints the score per module and every surviving mutant (file:line, the
operator, the line before and after).

    python benchmarks/mutation.py --list                       # count the mutants
    python benchmarks/mutation.py --max-mutants 15 --seed 1    # a sample per module
    python benchmarks/mutation.py --module agentops.triage.constraints --jobs 2
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import dataclasses
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from queue import Queue

ROOT = Path(__file__).resolve().parent.parent
TARGETS = ROOT / "benchmarks" / "data" / "mutation_targets.json"
_COPY_IGNORE = shutil.ignore_patterns(".git", "__pycache__", ".pytest_cache", ".venv",
                                      ".ruff_cache", ".hypothesis", "*.pyc")
_RE_FUNCS = {"compile", "match", "search", "fullmatch", "sub", "subn", "split", "findall",
             "finditer"}
_FLIP = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt,
         ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
         ast.Is: ast.IsNot, ast.IsNot: ast.Is}


@dataclasses.dataclass(frozen=True)
class Target:
    module: str
    functions: tuple[str, ...] = ()
    optional: bool = False

    @property
    def path(self) -> Path:
        return Path("src", *self.module.split(".")).with_suffix(".py")


@dataclasses.dataclass(frozen=True)
class Mutant:
    module: str
    path: Path  # relative to the tree
    line: int
    op: str
    before: str
    after: str
    source: bytes  # the whole mutated file

    @property
    def key(self) -> str:
        return hashlib.sha256(self.source).hexdigest()[:10]


# --- targets -------------------------------------------------------------------------------

def load_targets(path: Path = TARGETS) -> list[Target]:
    """The target list, validated: errors name the file and the key."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SystemExit(f"{path}: cannot read: {exc}") from exc
    entries = data.get("targets") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise SystemExit(f"{path}: 'targets' must be a non-empty list")
    out = []
    for i, e in enumerate(entries):
        where = f"{path}: targets[{i}]"
        if not isinstance(e, dict) or not isinstance(e.get("module"), str) or not e["module"]:
            raise SystemExit(f"{where}.module: a dotted module name is required")
        funcs = e.get("functions", [])
        if not isinstance(funcs, list) or not all(isinstance(f, str) and f for f in funcs):
            raise SystemExit(f"{where}.functions: a list of function names (or Class.method)")
        unknown = set(e) - {"module", "functions", "optional", "why"}
        if unknown:
            raise SystemExit(f"{where}: unknown key(s) {sorted(unknown)}")
        out.append(Target(e["module"], tuple(funcs), bool(e.get("optional"))))
    return out


# --- mutant generation ---------------------------------------------------------------------

class _Source:
    """Byte offsets of AST positions (col_offset counts UTF-8 bytes)."""

    def __init__(self, text: str) -> None:
        self.data = text.encode("utf-8")
        self.starts = [0]
        for line in self.data.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.starts[node.lineno - 1] + node.col_offset,  # type: ignore[attr-defined]
                self.starts[node.end_lineno - 1] + node.end_col_offset)  # type: ignore[attr-defined]

    def replace(self, node: ast.AST, new: str) -> bytes:
        a, b = self.span(node)
        return self.data[:a] + new.encode("utf-8") + self.data[b:]

    def line(self, n: int) -> str:
        return self.data[self.starts[n - 1]:self.starts[n]].decode("utf-8").strip()


def _scoped_nodes(tree: ast.Module, functions: tuple[str, ...]) -> list[ast.AST]:
    """The roots to mutate: the named functions (and the module-level assignments they
    read, e.g. a compiled regex or a limit), or the whole module."""
    if not functions:
        return [tree]
    wanted = set(functions)
    roots: list[ast.AST] = []
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in wanted:
            roots.append(node)
            found.add(node.name)
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                name = f"{node.name}.{getattr(sub, 'name', '')}"
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and name in wanted:
                    roots.append(sub)
                    found.add(name)
    missing = wanted - found
    if missing:
        raise SystemExit(f"{TARGETS}: functions {sorted(missing)} not found")
    used = {n.id for r in roots for n in ast.walk(r) if isinstance(n, ast.Name)}
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id in used for t in targets):
                roots.append(node)
    return roots


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _annotations(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        anns = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            anns = [a.annotation for a in (*node.args.args, *node.args.kwonlyargs,
                                           *node.args.posonlyargs) if a.annotation]
            anns += [node.returns] if node.returns else []
        elif isinstance(node, ast.AnnAssign):
            anns = [node.annotation]
        for a in anns:
            out.update(id(n) for n in ast.walk(a))
    return out


def _regex_patterns(tree: ast.AST) -> set[int]:
    """String constants that are the pattern of an ``re`` call."""
    out = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in _RE_FUNCS and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re" and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            out.add(id(node.args[0]))
    return out


def regex_variants(pattern: str) -> Iterator[tuple[str, str]]:
    """(description, pattern) with one alternation branch, or one member of a character
    class, removed. A small scanner: escapes, groups and classes, nothing more."""
    groups: list[dict] = [{"start": 0, "bars": []}]  # content start, '|' positions
    done: list[tuple[int, int, list[int]]] = []  # (content start, content end, bars)
    classes: list[tuple[int, int]] = []  # content spans
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            start = j
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            classes.append((start, j))
            i = j + 1
            continue
        if ch == "(":
            j = i + 1
            if pattern.startswith("?", j):  # (?:…) (?=…) (?<!…) (?P<n>…) flags
                if pattern.startswith("?P<", j) or (pattern.startswith("?<", j)
                                                    and pattern[j + 2:j + 3] not in ("=", "!")):
                    j = pattern.index(">", j) + 1
                elif pattern.startswith("?<", j):
                    j += 3
                else:
                    j += 2
            groups.append({"start": j, "bars": []})
            i = j
            continue
        if ch == ")" and len(groups) > 1:
            g = groups.pop()
            done.append((g["start"], i, g["bars"]))
        elif ch == "|":
            groups[-1]["bars"].append(i)
        i += 1
    g = groups[0]
    done.append((g["start"], n, g["bars"]))
    for start, end, bars in done:
        if not bars:
            continue
        edges = [start - 1, *bars, end]
        for k in range(len(edges) - 1):
            a, b = edges[k] + 1, edges[k + 1]
            # Drop branch k and one '|' next to it.
            cut = (a, b + 1) if k == 0 else (a - 1, b)
            yield f"regex: drop alternative {pattern[a:b]!r}", pattern[:cut[0]] + pattern[cut[1]:]
    for start, end in classes:
        items = _class_items(pattern, start, end)
        if len(items) < 2:
            continue
        for a, b in items:
            yield (f"regex: drop {pattern[a:b]!r} from a character class",
                   pattern[:a] + pattern[b:])


def _class_items(p: str, start: int, end: int) -> list[tuple[int, int]]:
    def atom(i: int) -> int:
        if p[i] != "\\":
            return i + 1
        nxt = p[i + 1:i + 2]
        width = {"x": 4, "u": 6, "U": 10}.get(nxt, 2)
        if nxt == "N" and p[i + 2:i + 3] == "{":
            return p.index("}", i) + 1
        return i + width
    items = []
    i = start
    while i < end:
        j = atom(i)
        if j < end - 1 and p[j] == "-":
            j = atom(j + 1)
        items.append((i, j))
        i = j
    return items


def generate(target: Target, root: Path = ROOT) -> list[Mutant]:
    """Every mutant of ``target`` that compiles, one per distinct mutated file."""
    text = (root / target.path).read_text(encoding="utf-8")
    tree = ast.parse(text)
    src = _Source(text)
    skip = _docstrings(tree) | _annotations(tree)
    patterns = _regex_patterns(tree)
    out: dict[bytes, Mutant] = {}

    def add(node: ast.AST, op: str, new: str) -> None:
        data = src.replace(node, new)
        try:
            compile(data, str(target.path), "exec")
        except SyntaxError:
            return
        if data == src.data or data in out:
            return
        line = node.lineno  # type: ignore[attr-defined]
        after_text = data.decode("utf-8")
        a = src.starts[line - 1]
        after_line = after_text.encode("utf-8")[a:].split(b"\n", 1)[0].decode("utf-8").strip()
        out[data] = Mutant(target.module, target.path, line, op, src.line(line), after_line, data)

    def unparse(node: ast.AST) -> str:
        return f"({ast.unparse(node)})"

    seen: set[int] = set()
    for root_node in _scoped_nodes(tree, target.functions):
        for node in ast.walk(root_node):
            if id(node) in seen or id(node) in skip:
                continue
            seen.add(id(node))
            if isinstance(node, ast.Compare):
                for k, cmp in enumerate(node.ops):
                    flip = _FLIP.get(type(cmp))
                    if flip:
                        m = copy.deepcopy(node)
                        m.ops[k] = flip()
                        add(node, f"flip comparison {type(cmp).__name__}->{flip.__name__}",
                            unparse(m))
            elif isinstance(node, ast.BoolOp):
                m = copy.deepcopy(node)
                m.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
                add(node, "swap and/or", unparse(m))
                for k in range(len(node.values)):
                    m = copy.deepcopy(node)
                    del m.values[k]
                    add(node, "drop a condition",
                        unparse(m if len(m.values) > 1 else m.values[0]))
            elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
                add(node, "drop not", unparse(node.operand))
            elif isinstance(node, (ast.If, ast.While, ast.IfExp)):
                for value in ("True", "False"):
                    add(node.test, f"condition -> {value}", value)
            elif isinstance(node, ast.comprehension):
                for cond in node.ifs:
                    add(cond, "comprehension filter -> True", "True")
            elif isinstance(node, ast.Constant) and id(node) in patterns:
                for desc, new in regex_variants(node.value):
                    add(node, desc, repr(new))
            elif (isinstance(node, ast.Constant) and type(node.value) is int
                  and not isinstance(node.value, bool)):
                for delta in (1, -1):
                    add(node, f"constant {node.value} -> {node.value + delta}",
                        str(node.value + delta))
            elif isinstance(node, ast.Raise):
                add(node, "drop raise", "pass")
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                add(node, "drop call statement", "pass")
            elif isinstance(node, ast.Return) and node.value is not None:
                if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                    add(node, "return None", "return None")
                if isinstance(node.value, (ast.Compare, ast.BoolOp, ast.UnaryOp)):
                    for value in ("True", "False"):
                        add(node, f"return {value}", f"return {value}")
            elif isinstance(node, ast.Continue):
                add(node, "continue -> break", "break")
            elif isinstance(node, ast.Break):
                add(node, "break -> continue", "continue")
    return sorted(out.values(), key=lambda m: (m.line, m.op, m.key))


# --- which tests -----------------------------------------------------------------------------

def _mentions(text: str, module: str) -> bool:
    """``module``'s dotted name in ``text``, or an import of it (``from agentops.triage
    import apply``)."""
    if module in text:
        return True
    parent, _, leaf = module.rpartition(".")
    if leaf not in text:
        return False
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    return any(isinstance(n, ast.ImportFrom) and n.module == parent
               and any(a.name == leaf for a in n.names) for n in ast.walk(tree))


def _helper_imports(text: str) -> set[str]:
    """Dotted names of the ``tests.…`` modules a test file imports (``from
    tests.triage.plankit import plan_ok``, ``import tests.ci_fixtures``,
    ``from tests.triage import plankit``)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            out.update(a.name for a in n.names if a.name.startswith("tests."))
        elif isinstance(n, ast.ImportFrom) and n.level == 0 and n.module and (
                n.module == "tests" or n.module.startswith("tests.")):
            out.add(n.module)
            out.update(f"{n.module}.{a.name}" for a in n.names)
    return out


def tests_for(module: str, root: Path = ROOT) -> list[str]:
    """Test files (tests/**/test_*.py) that reach ``module``: they mention it (its dotted
    name in the text, or an import of it), or they import a test helper module (a
    non-test ``tests/**/*.py`` such as tests/triage/plankit.py) that mentions it. Helpers
    are followed one level: a helper's own helpers are not."""
    leaf = module.rpartition(".")[2]
    helpers = set()
    for path in (root / "tests").rglob("*.py"):
        if path.name.startswith("test_"):
            continue
        if _mentions(path.read_text(encoding="utf-8", errors="replace"), module):
            rel = path.relative_to(root).with_suffix("")
            helpers.add(".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts))
    found = []
    for path in sorted((root / "tests").rglob("test_*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if _mentions(text, module) or (helpers and _helper_imports(text) & helpers):
            found.append(path)
    # With -x the first failure ends the run: the module's own test files first, then
    # the smaller ones, so a caught mutant costs seconds (the set is the same).
    found.sort(key=lambda f: (leaf not in f.name, f.stat().st_size))
    return [f.relative_to(root).as_posix() for f in found]


# --- running -------------------------------------------------------------------------------

class Runner:
    """A pool of tree copies in a temporary folder; one pytest at a time in each."""

    def __init__(self, jobs: int) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="agentops-mutation-"))
        self.free: Queue[Path] = Queue()
        self.procs: set[subprocess.Popen[bytes]] = set()
        for k in range(jobs):
            tree = self.tmp / f"tree{k}"
            shutil.copytree(ROOT, tree, ignore=_COPY_IGNORE, symlinks=True)
            # Some tests read the checkout they run in as a git repository: the copy is
            # one of its own (never linked to the worktree's repository).
            git = ["git", "-c", "user.name=mutation", "-c", "user.email=mutation@localhost",
                   "-c", "commit.gpgsign=false"]
            for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "tree copy"]):
                subprocess.run([*git, *cmd], cwd=tree, check=True, stdout=subprocess.DEVNULL)
            self.free.put(tree)

    def close(self) -> None:
        for p in list(self.procs):
            _kill(p)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run(self, tests: list[str], mutant: Mutant | None, timeout: float) -> tuple[str, float]:
        """('pass' | 'fail' | 'timeout', seconds) of ``tests`` with ``mutant`` in place."""
        tree = self.free.get()
        target = tree / mutant.path if mutant else None
        original = target.read_bytes() if target else b""
        try:
            if target and mutant:
                target.write_bytes(mutant.source)
            env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1",
                   "PYTHONPATH": f"{tree / 'src'}{os.pathsep}{tree}"}
            cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                   "--no-header", "-o", "addopts=", *tests]
            start = time.monotonic()
            proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True)
            self.procs.add(proc)
            try:
                rc = proc.wait(timeout=timeout)
                status = "pass" if rc == 0 else "fail"
            except subprocess.TimeoutExpired:
                _kill(proc)
                status = "timeout"
            except BaseException:
                # Ctrl-C or SIGTERM while waiting (the clean run waits in the main
                # thread): the pytest has a session of its own, so nothing else ends it,
                # and close() no longer sees it once the finally below forgets it.
                _kill(proc)
                raise
            finally:
                self.procs.discard(proc)
            return status, time.monotonic() - start
        finally:
            if target:
                target.write_bytes(original)
            self.free.put(tree)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--module", action="append", default=[],
                   help="only this target module (repeatable); default: every target")
    p.add_argument("--max-mutants", type=int, default=0,
                   help="at most this many mutants per module, sampled with --seed (0: all)")
    p.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    p.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    p.add_argument("--timeout-factor", type=float, default=3.0,
                   help="a mutant's timeout: this times the clean run, plus 20 s")
    p.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    args = p.parse_args(argv)
    if args.jobs < 1 or args.max_mutants < 0:
        p.error("--jobs must be >= 1 and --max-mutants >= 0")
    # Ctrl-C must clean up even when the shell started this with SIGINT ignored (a
    # background job), and so must a plain kill (SIGTERM).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    targets = load_targets()
    names = {t.module for t in targets}
    unknown = [m for m in args.module if m not in names]
    if unknown:
        p.error(f"--module {unknown[0]!r} is not in {TARGETS.relative_to(ROOT)}; "
                f"known: {', '.join(sorted(names))}")
    chosen = [t for t in targets if not args.module or t.module in args.module]
    rng = random.Random(args.seed)
    plan: list[tuple[Target, list[Mutant], list[str]]] = []
    for t in chosen:
        if not (ROOT / t.path).exists():
            if t.optional:
                print(f"{t.module}: {t.path} does not exist yet (optional target); skipped")
                continue
            raise SystemExit(f"{TARGETS}: {t.module}: {t.path} does not exist")
        mutants = generate(t)
        total = len(mutants)
        if args.max_mutants and total > args.max_mutants:
            mutants = sorted(rng.sample(mutants, args.max_mutants), key=lambda m: m.line)
        plan.append((t, mutants, tests_for(t.module)))
        print(f"{t.module}: {total} mutants, running {len(mutants)}; "
              f"{len(plan[-1][2])} test file(s) reach it", flush=True)
    if args.list:
        for t, mutants, tests in plan:
            print(f"\n== {t.module}  tests: {' '.join(tests) or '(none)'}")
            for m in mutants:
                print(f"  {m.path}:{m.line}  {m.op}\n      - {m.before}\n      + {m.after}")
        return 0

    runner = Runner(args.jobs)
    results: dict[str, list[tuple[Mutant, str]]] = {}
    interrupted = False
    try:
        for t, mutants, tests in plan:
            if not tests:
                print(f"{t.module}: no test file reaches it; every mutant survives")
                results[t.module] = [(m, "pass") for m in mutants]
                continue
            status, clean = runner.run(tests, None, timeout=1800)
            if status != "pass":
                print(f"{t.module}: the clean run of its tests does not pass ({status}); "
                      "skipped", flush=True)
                continue
            timeout = clean * args.timeout_factor + 20
            print(f"{t.module}: clean run {clean:.1f} s, timeout {timeout:.0f} s", flush=True)
            pool = ThreadPoolExecutor(max_workers=args.jobs)
            outcomes = []
            try:
                statuses = pool.map(runner.run, [tests] * len(mutants), mutants,
                                    [timeout] * len(mutants))
                for m, (status, _) in zip(mutants, statuses, strict=True):
                    outcomes.append((m, status))
            finally:
                # On Ctrl-C: no new mutant starts, and runner.close() kills the running
                # ones instead of waiting for them.
                pool.shutdown(wait=False, cancel_futures=True)
                results[t.module] = outcomes
            caught = sum(s != "pass" for _, s in outcomes)
            print(f"{t.module}: {caught}/{len(outcomes)} caught", flush=True)
    except KeyboardInterrupt:
        interrupted = True
        print("\ninterrupted: partial results below", file=sys.stderr)
    finally:
        runner.close()
    report(results)
    return 130 if interrupted else 0


def report(results: dict[str, list[tuple[Mutant, str]]]) -> None:
    print("\n== mutation score per module (caught = tests failed or timed out)")
    print(f"{'module':34} {'mutants':>7} {'caught':>7} {'timeout':>7} {'survived':>8} "
          f"{'score':>6}")
    total = caught_all = 0
    for module, outcomes in results.items():
        n = len(outcomes)
        caught = sum(s != "pass" for _, s in outcomes)
        timeouts = sum(s == "timeout" for _, s in outcomes)
        total += n
        caught_all += caught
        score = f"{100 * caught / n:5.1f}%" if n else "   n/a"
        print(f"{module:34} {n:7} {caught:7} {timeouts:7} {n - caught:8} {score:>6}")
    if total:
        print(f"{'all':34} {total:7} {caught_all:7} {'':7} {total - caught_all:8} "
              f"{100 * caught_all / total:5.1f}%")
    survivors = [(m, s) for outcomes in results.values() for m, s in outcomes if s == "pass"]
    print(f"\n== surviving mutants: {len(survivors)}")
    for m, _ in survivors:
        print(f"{m.path}:{m.line}  {m.op}\n    - {m.before}\n    + {m.after}")


if __name__ == "__main__":
    sys.exit(main())
