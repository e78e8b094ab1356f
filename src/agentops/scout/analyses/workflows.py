"""The Python invocations of a GitHub Actions workflow: every ``run:`` (and reusable
workflow ``with: script:``) script split into commands, each command parsed the way
the shell and pytest/torchrun/python would see it (node ids, directories, ``-k``,
``-m``, ``--pyargs``, ``torchrun … -m pytest``, ``python -m`` runners, scripts), and
the invocations a maintainer commented out (with the comment that says why).

Pure: workflow text in, frozen records out.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

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
# ``python -m X`` that installs or sets up, never runs the project's code or tests.
_TOOL_MODULES = {"pip", "venv", "ensurepip", "build", "twine", "virtualenv", "pipx",
                 "http.server", "json.tool", "site"}


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
    marker: str | None = None  # pytest -m
    line: int = 0  # 1-based line in the workflow file (0: not located)


@dataclass(frozen=True)
class Disabled:
    """An invocation commented out in the workflow, and the comment above it."""

    invocation: Invocation
    reason: str  # nearest comment text above that is not itself a command ("" if none)


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
    if prog in ("bash", "sh") and rest and rest[0].endswith(".sh"):
        return Invocation(workflow, step, command, "script", (rest[0],), None, tuple(rest[1:]))
    if prog.endswith(".sh"):
        return Invocation(workflow, step, command, "script", (argv[0],), None, tuple(rest))
    return None


def _module_or_pytest(workflow: str, step: str, command: str, rest: list[str]
                      ) -> Invocation | None:
    if not rest or rest[0] in _TOOL_MODULES:
        return None
    if rest[0] == "pytest":
        return _pytest(workflow, step, command, rest[1:])
    return Invocation(workflow, step, command, "module", (rest[0],), None, tuple(rest[1:]))


def _pytest(workflow: str, step: str, command: str, rest: list[str]) -> Invocation:
    targets: list[str] = []
    values: dict[str, str | None] = {"-k": None, "-m": None}
    pyargs = "--pyargs" in rest
    i = 0
    while i < len(rest):
        tok = rest[i]
        if tok.startswith("-"):
            opt, eq, val = tok.partition("=")
            takes = opt in _PYTEST_VALUE_OPTS and not eq
            if opt in values:
                values[opt] = val if eq else (rest[i + 1] if i + 1 < len(rest) else None)
            elif tok[:2] in values and len(tok) > 2:
                values[tok[:2]] = tok[2:]
            i += 2 if takes else 1
            continue
        targets.append(("pyargs:" if pyargs else "") + tok)
        i += 1
    return Invocation(workflow, step, command, "pytest", tuple(targets), values["-k"],
                      marker=values["-m"])


def locate(text: str, command: str) -> int:
    """The 1-based line of ``text`` where ``command`` starts (0 when not found)."""
    head = command.split("\\", 1)[0].strip()
    lines = text.splitlines()
    # The whole first line of the command first: two commands that share a long prefix
    # (``pytest tests/test_x.py::A``, ``…::B``) must not both point at the first one.
    for n, line in enumerate(lines, 1):
        if head and line.strip().rstrip("\\").strip() == head:
            return n
    for n, line in enumerate(lines, 1):
        if head and head in line and not line.lstrip().startswith("#"):
            return n
    short = head[:60]  # folded or re-wrapped in the YAML: its start
    for n, line in enumerate(lines, 1):
        if short and short in line and not line.lstrip().startswith("#"):
            return n
    return 0


def invocations(workflow: str, doc: object, text: str) -> list[Invocation]:
    """Every Python invocation in the parsed workflow, with its line in ``text``."""
    out: list[Invocation] = []
    for step, script in scripts_of(doc):
        for cmd in commands(script):
            inv = parse_command(workflow, step, cmd)
            if inv is not None:
                out.append(_with_line(inv, locate(text, cmd)))
    return out


def _with_line(inv: Invocation, line: int) -> Invocation:
    return Invocation(inv.workflow, inv.step, inv.command, inv.kind, inv.targets, inv.keyword,
                      inv.args, inv.marker, line)


def disabled(workflow: str, text: str) -> list[Disabled]:
    """Invocations that are commented out (``# pytest tests/test_x.py``), each with the
    comment above it that is not a command itself (usually the reason: a TODO, a link)."""
    out: list[Disabled] = []
    lines = text.splitlines()
    for n, raw in enumerate(lines, 1):
        stripped = raw.strip()
        if not stripped.startswith("#"):
            continue
        body = stripped.lstrip("#").strip()
        inv = parse_command(workflow, "(commented out)", body) if body else None
        if inv is None:
            continue
        reason = ""
        for back in range(n - 2, max(-1, n - 6), -1):
            prev = lines[back].strip()
            if not prev.startswith("#"):
                break
            prev_body = prev.lstrip("#").strip()
            if prev_body and parse_command(workflow, "", prev_body) is None:
                reason = prev_body
                break
        out.append(Disabled(_with_line(inv, n), reason))
    return out
