"""S-3d tests missing from CI: which test files the configured workflows invoke
(pytest node ids, directories, ``-k``, ``-m pytest``, ``--pyargs`` modules,
``torchrun … -m pytest``, ``python -m module`` runners, and test modules imported
into an invoked file), which test files no workflow reaches, and which CI steps can
collect no test at all.

Pure: workflow YAML text and Python sources in, frozen records out.
"""

from __future__ import annotations

import ast
import fnmatch
import re
import shlex
from dataclasses import dataclass, field

import yaml

from agentops import untrusted_yaml
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import testsel
from agentops.scout.model import Inputs

# pytest options that take a value (the value is not a test path).
_PYTEST_VALUE_OPTS = {"-k", "-m", "-c", "-p", "-n", "-o", "-W", "--ignore", "--deselect",
                      "--junitxml", "--junit-xml", "--durations", "--timeout", "--rootdir",
                      "--maxfail", "--basetemp", "--confcutdir", "--log-level", "--tb",
                      "--reruns", "--dist", "--ignore-glob", "--import-mode", "-r",
                      "--cov", "--cov-report", "--override-ini", "--capture"}
_TORCHRUN_VALUE_OPTS = {"--nproc_per_node", "--nproc-per-node", "--nnodes", "--node_rank",
                        "--node-rank", "--master_addr", "--master-addr", "--master_port",
                        "--master-port", "--rdzv_backend", "--rdzv-backend", "--rdzv_endpoint",
                        "--rdzv-endpoint", "--rdzv_id", "--rdzv-id", "--local-ranks-filter",
                        "--local_ranks_filter", "--role", "--log_dir", "--log-dir", "-r",
                        "--redirects", "-t", "--tee", "--max_restarts", "--max-restarts",
                        "--monitor_interval", "--start_method", "--rdzv_conf"}
_WRAPPERS = {"sudo", "env", "time", "timeout", "xvfb-run", "nohup", "exec", "coverage"}


@dataclass(frozen=True)
class Invocation:
    """One command in a workflow step that runs Python tests or code."""

    workflow: str
    step: str  # step/job name
    command: str  # the command line as written (joined continuations)
    kind: str  # "pytest" | "module" | "script"
    targets: tuple[str, ...] = ()  # pytest targets or the module/script
    keyword: str | None = None
    args: tuple[str, ...] = ()  # remaining argv (module/script runners)


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


@dataclass(frozen=True)
class CiResult:
    invocations: tuple[Invocation, ...]
    covered: tuple[Coverage, ...]
    missing: tuple[str, ...]
    empty_steps: tuple[EmptyStep, ...]
    parse_errors: tuple[str, ...] = field(default=())


def scripts_of(doc: object) -> list[tuple[str, str]]:
    """(step name, script) for every ``run:`` and reusable-workflow ``with: script:``."""
    out: list[tuple[str, str]] = []

    def walk(node: object, name: str) -> None:
        if isinstance(node, dict):
            here = str(node.get("name") or name)
            for key, value in node.items():
                if key in ("run", "script") and isinstance(value, str):
                    out.append((here, value))
                else:
                    walk(value, here if key != "jobs" else name)
                    if key == "jobs" and isinstance(value, dict):
                        for job_id, job in value.items():
                            walk(job, str(job_id))
        elif isinstance(node, list):
            for v in node:
                walk(v, name)

    if isinstance(doc, dict) and isinstance(doc.get("jobs"), dict):
        for job_id, job in doc["jobs"].items():
            walk(job, str(job_id))
    return out


def commands(script: str) -> list[str]:
    """Shell commands of a script: continuations joined, comments dropped, split on
    ``&&``, ``||`` and ``;``."""
    text = re.sub(r"\\\n", " ", script)
    out: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        for part in re.split(r"\s*(?:&&|\|\||;)\s*", stripped):
            if part:
                out.append(part)
    return out


def _argv(command: str) -> list[str]:
    try:
        argv = shlex.split(command, comments=True)
    except ValueError:
        argv = command.split()
    # Drop leading VAR=value assignments and wrappers (sudo, env, timeout 600, …).
    while argv:
        head = argv[0]
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", head):
            argv.pop(0)
        elif head in _WRAPPERS:
            argv.pop(0)
            while argv and (argv[0].startswith("-") or re.match(r"^\d+[smh]?$", argv[0])):
                argv.pop(0)
        else:
            break
    return argv


def parse_command(workflow: str, step: str, command: str) -> Invocation | None:
    """The Python invocation a command makes, if any."""
    argv = _argv(command)
    if not argv:
        return None
    prog = argv[0].rsplit("/", 1)[-1]
    rest = argv[1:]
    if prog == "torchrun" or (prog.startswith("python") and rest[:2] == ["-m", "torchrun"]):
        rest = rest[2:] if prog.startswith("python") else rest
        i = 0
        while i < len(rest) and rest[i].startswith("-") and rest[i] != "-m":
            i += 2 if rest[i] in _TORCHRUN_VALUE_OPTS and "=" not in rest[i] else 1
        rest = rest[i:]
        if rest[:1] == ["-m"]:
            return _module_or_pytest(workflow, step, command, rest[1:])
        if rest and rest[0].endswith(".py"):
            return Invocation(workflow, step, command, "script", (rest[0],), None,
                              tuple(rest[1:]))
        return None
    if prog in ("pytest", "py.test"):
        return _pytest(workflow, step, command, rest)
    if re.match(r"^python(\d(\.\d+)?)?$", prog):
        while rest and rest[0] in ("-u", "-X", "-O", "-B", "-W"):
            rest = rest[2:] if rest[0] in ("-X", "-W") else rest[1:]
        if rest[:1] == ["-m"] and len(rest) > 1:
            return _module_or_pytest(workflow, step, command, rest[1:])
        if rest and rest[0].endswith(".py"):
            return Invocation(workflow, step, command, "script", (rest[0],), None,
                              tuple(rest[1:]))
    return None


def _module_or_pytest(workflow: str, step: str, command: str, rest: list[str]
                      ) -> Invocation | None:
    if not rest:
        return None
    if rest[0] == "pytest":
        return _pytest(workflow, step, command, rest[1:])
    return Invocation(workflow, step, command, "module", (rest[0],), None, tuple(rest[1:]))


def _pytest(workflow: str, step: str, command: str, rest: list[str]) -> Invocation:
    targets: list[str] = []
    keyword: str | None = None
    pyargs = "--pyargs" in rest
    i = 0
    while i < len(rest):
        tok = rest[i]
        if tok.startswith("-"):
            opt, eq, val = tok.partition("=")
            takes = opt in _PYTEST_VALUE_OPTS and not eq
            if opt == "-k":
                keyword = val if eq else (rest[i + 1] if i + 1 < len(rest) else None)
            elif tok.startswith("-k") and len(tok) > 2:
                keyword = tok[2:]
            i += 2 if takes else 1
            continue
        targets.append(("pyargs:" if pyargs else "") + tok)
        i += 1
    return Invocation(workflow, step, command, "pytest", tuple(targets), keyword)


def _test_files(inp: Inputs) -> list[str]:
    tests = inp.target.tests_dir + "/"
    glob = inp.target.test_glob
    return sorted(p for p in inp.head.paths if p.startswith(tests) and p.endswith(".py")
                  and fnmatch.fnmatch(p.rsplit("/", 1)[-1], glob))


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
            # Sanity: a file that never mentions the tests package cannot import from it
            # (relative imports aside), so most library files are never parsed.
            if "import" not in text:
                continue
            mod = ps.parse(text)
            if mod is None:
                continue
            for node in ps.statements(mod):
                names: list[str] = []
                if isinstance(node, ast.ImportFrom):
                    base = node.module or ""
                    if node.level:
                        parts = f.rsplit("/", 1)[0].split("/")
                        parts = parts[:len(parts) - (node.level - 1)] if node.level > 1 else parts
                        base = ".".join([*parts, *([base] if base else [])])
                    names = [base] + [f"{base}.{a.name}" for a in node.names]
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
    path = path.rstrip("/").removeprefix("./")
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


def analyse(inp: Inputs) -> CiResult:
    """S-3d over the configured workflows."""
    invocations: list[Invocation] = []
    errors: list[str] = []
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
        for step, script in scripts_of(doc):
            for cmd in commands(script):
                inv = parse_command(wf, step, cmd)
                if inv is not None:
                    invocations.append(inv)
    test_files = _test_files(inp)
    covered: dict[str, Coverage] = {}
    empty: list[EmptyStep] = []
    all_tests = sorted(p for p in inp.head.paths if p.endswith(".py"))
    for inv in invocations:
        invoked: list[str] = []
        if inv.kind == "pytest":
            selected_total = 0
            reasons: list[str] = []
            targets = inv.targets or ("",)
            for target in targets:
                if target == "":
                    # A bare `pytest` collects the rootdir: every test file counts.
                    files = [p for p in test_files]
                    node: list[str] = []
                    is_dir = True
                else:
                    path, node, is_dir = _resolve_target(target, inp)
                    if path is None:
                        reasons.append(f"{target} does not exist")
                        continue
                    files = ([p for p in all_tests if p.startswith(path + "/")
                              and fnmatch.fnmatch(p.rsplit("/", 1)[-1], "test_*.py")]
                             if is_dir else [path])
                for f in files:
                    how = "directory" if is_dir else ("node ids" if node or inv.keyword
                                                      else "direct")
                    covered.setdefault(f, Coverage(f, how, inv.workflow))
                    invoked.append(f)
                    cases = testsel.test_cases(f, inp.head.text(f) or "")
                    chosen = testsel.select(cases, node=node, keyword=inv.keyword)
                    live = [c for c in chosen if not c.skipped]
                    selected_total += len(live)
                    if not chosen:
                        what = "::".join([f, *node]) if node else f
                        kw = f" with -k {inv.keyword!r}" if inv.keyword else ""
                        reasons.append(f"{what}{kw} selects no test")
                    elif not live:
                        reasons.append(f"{'::'.join([f, *node])}: every selected test is "
                                       "skipped unconditionally")
            if selected_total == 0:
                empty.append(EmptyStep(inv.workflow, inv.step, inv.command,
                                       "; ".join(reasons) or "collects no test"))
        else:
            target = inv.targets[0]
            path = (ps.module_path(target, inp.head.paths) if inv.kind == "module"
                    else target.removeprefix("./") if target.removeprefix("./")
                    in inp.head.paths else None)
            if path is None:
                if target.startswith(inp.target.subproject.replace("/", ".")) or \
                        target.startswith(inp.target.subproject):
                    empty.append(EmptyStep(inv.workflow, inv.step, inv.command,
                                           f"{target} does not exist"))
                continue
            covered.setdefault(path, Coverage(path, "direct", inv.workflow))
            invoked.append(path)
            problem = _runner_test_name_problem(inv, inp.head.text(path) or "")
            if problem:
                empty.append(EmptyStep(inv.workflow, inv.step, inv.command, problem))
        for f in invoked:
            for imp in _imported_files(f, inp):
                if imp in test_files and imp not in covered:
                    covered[imp] = Coverage(imp, f"via import into {f}", inv.workflow)
    missing = tuple(f for f in test_files if f not in covered)
    return CiResult(tuple(invocations), tuple(covered[k] for k in sorted(covered)), missing,
                    tuple(empty), tuple(errors))


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
