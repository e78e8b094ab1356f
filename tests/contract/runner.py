"""Runs a composite ``action.yml`` the way the GitHub Actions runner does, offline.

Test-side helper. What it reproduces, because each is a way an action breaks in a real
job and not in a unit test:
- ``${{ … }}`` expressions (inputs, prior steps' outputs, github/runner/env contexts)
  are substituted into ``env:``, ``with:``, ``if:`` and, exactly as the runner does,
  into ``run:`` text (so an injected expression there is really injected);
- composite actions get no ``INPUT_*`` variables: inputs reach a step only through the
  expressions in its ``env:``;
- each ``run:`` executes as a file under ``bash --noprofile --norc -e -o pipefail``
  with ``GITHUB_ACTION_PATH``, a fresh ``GITHUB_OUTPUT`` and ``GITHUB_STEP_SUMMARY``
  per step, ``GITHUB_EVENT_PATH``/``GITHUB_EVENT_NAME``, ``RUNNER_TEMP``;
- step outputs are parsed from ``GITHUB_OUTPUT`` (``k=v`` and ``k<<DELIM`` forms) and
  the action's ``outputs:`` are evaluated from them.

What it simulates instead of running: ``uses:`` steps (setup-python reports this
interpreter as ``python-path``) and the venv step (reports this interpreter as
``python``), so nothing is downloaded. The environment starts empty (no token from
the developer's shell) and the API URL and proxies point at a closed loopback port,
so a command that tries the network fails instead of reaching it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

CLOSED_PORT_URL = "http://127.0.0.1:9"
_EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)
_TOKEN = re.compile(r"""\s*(?:
    (?P<str>'(?:[^']|'')*')
  | (?P<num>-?\d+(?:\.\d+)?)
  | (?P<op>==|!=|&&|\|\||!|\(|\)|<=|>=|<|>)
  | (?P<ref>[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_*][A-Za-z0-9_-]*|\[[^\]]+\])*)
)""", re.VERBOSE)


class ActionError(Exception):
    """The action failed (a step exited non-zero) or cannot run as written."""


@dataclass
class StepResult:
    id: str
    outputs: dict[str, str]
    returncode: int = 0
    stdout: str = ""
    stderr: str = ""
    simulated: bool = False


@dataclass
class RunResult:
    """What a workflow would see after ``uses: ./actions/x``."""

    outputs: dict[str, str]
    summary: str
    steps: list[StepResult] = field(default_factory=list)
    failed_step: str | None = None

    @property
    def ok(self) -> bool:
        return self.failed_step is None

    @property
    def log(self) -> str:
        """Everything the steps printed, as the job log would show it."""
        return "".join(s.stdout + s.stderr for s in self.steps)


class Contexts:
    """The expression contexts one action run can see."""

    def __init__(self, *, inputs: Mapping[str, str], github: Mapping[str, Any],
                 runner: Mapping[str, str], env: Mapping[str, str]) -> None:
        self.data: dict[str, Any] = {"inputs": dict(inputs), "github": dict(github),
                                     "runner": dict(runner), "env": dict(env), "steps": {}}
        self.status_ok = True

    def lookup(self, ref: str) -> Any:
        parts = re.findall(r"[^.\[\]]+|\[[^\]]+\]", ref)
        value: Any = self.data
        for part in parts:
            key = part[1:-1].strip("'\"") if part.startswith("[") else part
            if isinstance(value, Mapping):
                # Sanity: contexts are case-insensitive in the runner.
                match = next((k for k in value if str(k).lower() == key.lower()), None)
                value = value.get(match) if match is not None else None
            else:
                value = None
        return value


class _Expr:
    """The subset of the Actions expression language our actions use: literals,
    context references, ``! == != && ||``, parentheses and the status functions."""

    def __init__(self, text: str, ctx: Contexts) -> None:
        self.toks: list[tuple[str, str]] = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise ActionError(f"expression not supported by the test runner: {text!r}")
            pos = m.end()
            self.toks.append((str(m.lastgroup), m.group(m.lastgroup)))
        self.i = 0
        self.ctx = ctx

    def parse(self) -> Any:
        value = self.or_()
        if self.i != len(self.toks):
            raise ActionError(f"trailing tokens in expression: {self.toks[self.i:]}")
        return value

    def peek(self) -> str | None:
        return self.toks[self.i][1] if self.i < len(self.toks) else None

    def or_(self) -> Any:
        value = self.and_()
        while self.peek() == "||":
            self.i += 1
            right = self.and_()
            value = value if _truthy(value) else right
        return value

    def and_(self) -> Any:
        value = self.cmp()
        while self.peek() == "&&":
            self.i += 1
            right = self.cmp()
            value = right if _truthy(value) else value
        return value

    def cmp(self) -> Any:
        value = self.unary()
        while self.peek() in ("==", "!="):
            op = self.toks[self.i][1]
            self.i += 1
            right = self.unary()
            same = _loose(value) == _loose(right)
            value = same if op == "==" else not same
        return value

    def unary(self) -> Any:
        if self.peek() == "!":
            self.i += 1
            return not _truthy(self.unary())
        if self.peek() == "(":
            self.i += 1
            value = self.or_()
            if self.peek() != ")":
                raise ActionError("missing ) in expression")
            self.i += 1
            return value
        kind, tok = self.toks[self.i]
        self.i += 1
        if kind == "str":
            return tok[1:-1].replace("''", "'")
        if kind == "num":
            return float(tok) if "." in tok else int(tok)
        if tok in ("true", "false"):
            return tok == "true"
        if tok == "null":
            return None
        if tok in ("success", "failure", "always", "cancelled") and self.peek() == "(":
            self.i += 2  # "(" ")"
            return {"success": self.ctx.status_ok, "failure": not self.ctx.status_ok,
                    "always": True, "cancelled": False}[tok]
        if kind != "ref":
            raise ActionError(f"unexpected {tok!r} in expression")
        return self.ctx.lookup(tok)


def _truthy(value: Any) -> bool:
    return value not in (None, False, 0, "", 0.0)


def _loose(value: Any) -> Any:
    # The runner compares case-insensitively for strings and coerces numbers.
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value.lower()
    if isinstance(value, bool):
        return float(value)
    return value


def _to_string(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def evaluate(text: Any, ctx: Contexts) -> str:
    """Substitute every ``${{ expr }}`` in ``text`` (a YAML scalar) as the runner does."""
    if text is None:
        return ""
    return _EXPR.sub(lambda m: _to_string(_Expr(m.group(1), ctx).parse()), _to_string(text))


def evaluate_condition(text: Any, ctx: Contexts) -> bool:
    """An ``if:``: with or without ``${{ }}``; a bare condition implies ``success() &&``."""
    raw = _to_string(text).strip()
    m = re.fullmatch(r"\$\{\{(.*)\}\}", raw, re.DOTALL)
    expr = m.group(1) if m else raw
    if not re.search(r"\b(success|failure|always|cancelled)\(", expr):
        expr = f"success() && ({expr})"
    return _truthy(_Expr(expr, ctx).parse())


def parse_file_commands(text: str) -> dict[str, str]:
    """``GITHUB_OUTPUT`` contents → outputs (``k=v`` lines and ``k<<DELIM`` blocks)."""
    out: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            body = []
            while i < len(lines) and lines[i] != delim:
                body.append(lines[i])
                i += 1
            if i >= len(lines):
                raise ActionError(f"GITHUB_OUTPUT: {name}: delimiter {delim!r} never closed")
            i += 1
            out[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
        else:
            raise ActionError(f"GITHUB_OUTPUT: malformed line {line!r}")
    return out


def default_simulations() -> dict[str, dict[str, str]]:
    """``uses:`` prefixes and step ids whose outputs are simulated, never run."""
    return {
        "actions/setup-python": {"python-path": sys.executable,
                                 "python-version": ".".join(map(str, sys.version_info[:3]))},
        # The venv step (scripts/setup_venv.sh) would pip-install the pinned runtime;
        # this test process already runs in a venv with exactly those pins.
        "step:venv": {"python": sys.executable},
    }


def run_action(action_dir: Path, inputs: Mapping[str, str] | None = None, *,
               event_name: str = "workflow_dispatch", event: Mapping[str, Any] | None = None,
               workspace: Path | None = None, env: Mapping[str, str] | None = None,
               simulate: Mapping[str, Mapping[str, str]] | None = None,
               repository: str = "octo-org/octo-repo", timeout: float = 300,
               runner_temp: Path | None = None) -> RunResult:
    """Run ``action_dir/action.yml`` as ``uses: ./<action_dir>`` would in a job."""
    action_dir = Path(action_dir).resolve()
    spec = yaml.safe_load((action_dir / "action.yml").read_text(encoding="utf-8"))
    runs = spec.get("runs") or {}
    if runs.get("using") != "composite":
        raise ActionError(f"{action_dir}/action.yml: runs.using is {runs.get('using')!r}, "
                          "this harness runs composite actions")
    sims = {**default_simulations(), **(simulate or {})}
    given = dict(inputs or {})
    declared = spec.get("inputs") or {}
    unknown = sorted(set(given) - set(declared))
    if unknown:
        # The runner only warns; a test passing an input the action lacks is a bug.
        raise ActionError(f"unexpected input(s) {unknown}; valid: {sorted(declared)}")

    tmp = Path(tempfile.mkdtemp(prefix="agentops-runner-"))
    workspace = Path(workspace or tmp / "workspace").resolve()
    workspace.mkdir(parents=True, exist_ok=True)
    if runner_temp is None:
        runner_temp = tmp / "runner-temp"
        runner_temp.mkdir()
    event_path = tmp / "event.json"
    event_path.write_text(json.dumps(dict(event or {"inputs": {}})), encoding="utf-8")
    base_env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp),
        "LANG": "C.UTF-8", "CI": "true", "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace), "GITHUB_REPOSITORY": repository,
        "GITHUB_EVENT_NAME": event_name, "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_ACTION_PATH": str(action_dir), "GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "1",
        "GITHUB_SERVER_URL": "https://github.com", "GITHUB_API_URL": CLOSED_PORT_URL,
        "GITHUB_GRAPHQL_URL": CLOSED_PORT_URL + "/graphql",
        "RUNNER_TEMP": str(runner_temp), "RUNNER_OS": "Linux",
        # Security: anything that tries the network hits a closed local port.
        "HTTP_PROXY": CLOSED_PORT_URL, "HTTPS_PROXY": CLOSED_PORT_URL,
        "http_proxy": CLOSED_PORT_URL, "https_proxy": CLOSED_PORT_URL,
        # Loopback stays reachable: test servers (an index, an API stand-in) live there.
        "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
        "PYTHONDONTWRITEBYTECODE": "1",
        **(env or {}),
    }
    ctx = Contexts(inputs={}, github={"event_name": event_name, "event": dict(event or {}),
                                      "repository": repository, "action_path": str(action_dir),
                                      "workspace": str(workspace), "token": ""},
                   runner={"temp": str(runner_temp), "os": "Linux"}, env=base_env)
    resolved = {}
    for name, raw_meta in declared.items():
        meta = raw_meta or {}
        if name in given:
            resolved[name] = given[name]
        elif "default" in meta:
            resolved[name] = evaluate(meta["default"], ctx)
        elif meta.get("required"):
            raise ActionError(f"Input required and not supplied: {name}")
        else:
            resolved[name] = ""
    ctx.data["inputs"] = resolved

    result = RunResult(outputs={}, summary="")
    summaries: list[str] = []
    for n, step in enumerate(runs.get("steps") or []):
        sid = str(step.get("id") or f"__step{n}")
        if "if" in step and not evaluate_condition(step["if"], ctx):
            continue
        if "uses" in step:
            uses = str(step["uses"])
            sim = next((v for k, v in sims.items() if uses.split("@", maxsplit=1)[0] == k), None)
            if sim is None:
                raise ActionError(f"step {sid}: no simulation for uses: {uses}")
            for key in step.get("with") or {}:
                evaluate(step["with"][key], ctx)  # expressions must still evaluate
            sr = StepResult(sid, dict(sim), simulated=True)
        elif f"step:{sid}" in sims:
            for value in (step.get("env") or {}).values():
                evaluate(value, ctx)
            sr = StepResult(sid, dict(sims[f"step:{sid}"]), simulated=True)
        else:
            sr = _run_step(sid, step, ctx, base_env=base_env, tmp=tmp, workspace=workspace,
                           timeout=timeout)
            summary = tmp / f"summary-{sid}.md"
            if summary.exists():
                summaries.append(summary.read_text(encoding="utf-8"))
        result.steps.append(sr)
        ctx.data["steps"][sid] = {"outputs": sr.outputs,
                                  "outcome": "success" if sr.returncode == 0 else "failure"}
        if sr.returncode != 0 and not step.get("continue-on-error"):
            ctx.status_ok = False
            result.failed_step = sid
            break
    result.summary = "".join(summaries)
    for name, meta in (spec.get("outputs") or {}).items():
        result.outputs[name] = evaluate((meta or {}).get("value"), ctx)
    # The result holds strings only: the harness's own HOME, event file, summaries and
    # (when the caller gave none) workspace and RUNNER_TEMP go with it.
    shutil.rmtree(tmp, ignore_errors=True)
    return result


def _run_step(sid: str, step: Mapping[str, Any], ctx: Contexts, *,
              base_env: Mapping[str, str], tmp: Path, workspace: Path,
              timeout: float, sessions: list[int] | None = None) -> StepResult:
    shell = str(step.get("shell") or "")
    if shell != "bash":
        raise ActionError(f"step {sid}: shell {shell!r}; composite run steps must say "
                          "shell: bash")
    script = tmp / f"step-{sid}.sh"
    # As the runner: expressions are substituted into the script text itself.
    script.write_text(evaluate(step.get("run"), ctx), encoding="utf-8")
    output_file = tmp / f"output-{sid}"
    output_file.write_text("")
    env = {**base_env,
           **{k: evaluate(v, ctx) for k, v in (step.get("env") or {}).items()},
           "GITHUB_OUTPUT": str(output_file),
           "GITHUB_STEP_SUMMARY": str(tmp / f"summary-{sid}.md")}
    for key, value in env.items():
        if "\x00" in value:
            raise ActionError(f"step {sid}: env {key} contains NUL, which no process "
                              "environment can carry")
    cwd = workspace / evaluate(step["working-directory"], ctx) \
        if step.get("working-directory") else workspace
    # Its own session, so whatever the step leaves running in the background (a
    # loopback server) can be stopped by process group when the job ends.
    with subprocess.Popen(
            ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", str(script)],
            cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True) as proc:
        if sessions is not None:
            sessions.append(proc.pid)  # the session id: bash leads its own group
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
            stderr += f"\n(step {sid} timed out after {timeout}s)"
    return StepResult(sid, parse_file_commands(output_file.read_text(encoding="utf-8")),
                      returncode=proc.returncode, stdout=stdout, stderr=stderr)


@dataclass
class JobResult:
    """One workflow job run by ``run_job``."""

    outputs: dict[str, str]
    steps: list[StepResult] = field(default_factory=list)
    failed_step: str | None = None

    @property
    def ok(self) -> bool:
        return self.failed_step is None

    @property
    def log(self) -> str:
        return "".join(s.stdout + s.stderr for s in self.steps)


def run_job(workflow: Path, job_id: str, *, workspace: Path,
            matrix: Mapping[str, Any] | None = None,
            needs: Mapping[str, Mapping[str, str]] | None = None,
            event_name: str = "workflow_dispatch", timeout: float = 300) -> JobResult:
    """Run one job of a workflow on an existing checkout (``workspace``): checkout is a
    no-op, setup-python puts this interpreter first on PATH, ``uses: ./actions/x`` goes
    through ``run_action``, ``run:`` steps through bash as in ``run_action``."""
    spec = yaml.safe_load(Path(workflow).read_text(encoding="utf-8"))
    job = spec["jobs"][job_id]
    workspace = Path(workspace).resolve()
    tmp = Path(tempfile.mkdtemp(prefix="agentops-job-"))
    runner_temp = tmp / "runner-temp"
    runner_temp.mkdir()
    event_path = tmp / "event.json"
    event_path.write_text("{}", encoding="utf-8")
    path = os.environ.get("PATH", "/usr/bin:/bin")
    base_env = {
        "PATH": path, "HOME": str(tmp), "LANG": "C.UTF-8", "CI": "true",
        "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_REPOSITORY": "octo-org/octo-repo", "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path), "GITHUB_API_URL": CLOSED_PORT_URL,
        "RUNNER_TEMP": str(runner_temp), "RUNNER_OS": "Linux",
        "HTTP_PROXY": CLOSED_PORT_URL, "HTTPS_PROXY": CLOSED_PORT_URL,
        "http_proxy": CLOSED_PORT_URL, "https_proxy": CLOSED_PORT_URL,
        "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
    }
    ctx = Contexts(inputs={}, github={"event_name": event_name, "token": "",
                                      "repository": "octo-org/octo-repo",
                                      "workspace": str(workspace)},
                   runner={"temp": str(runner_temp), "os": "Linux"}, env=base_env)
    ctx.data["matrix"] = dict(matrix or {})
    ctx.data["needs"] = {k: {"outputs": dict(v)} for k, v in (needs or {}).items()}
    result = JobResult(outputs={})
    sessions: list[int] = []
    try:
        for n, step in enumerate(job.get("steps") or []):
            sid = str(step.get("id") or f"__step{n}")
            if "if" in step and not evaluate_condition(step["if"], ctx):
                continue
            uses = str(step.get("uses") or "")
            if uses.startswith("actions/checkout@"):
                sr = StepResult(sid, {}, simulated=True)
            elif uses.startswith("actions/setup-python@"):
                bindir = str(Path(sys.executable).parent)
                base_env["PATH"] = f"{bindir}:{base_env['PATH']}"
                sr = StepResult(sid, dict(default_simulations()["actions/setup-python"]),
                                simulated=True)
            elif uses.startswith("./"):
                inputs = {k: evaluate(v, ctx) for k, v in (step.get("with") or {}).items()}
                res = run_action(workspace / uses, inputs,
                                 event_name=event_name, workspace=workspace,
                                 env={k: evaluate(v, ctx)
                                      for k, v in (step.get("env") or {}).items()},
                                 timeout=timeout, runner_temp=runner_temp)
                sr = StepResult(sid, res.outputs, returncode=0 if res.ok else 1,
                                stdout="".join(s.stdout for s in res.steps),
                                stderr="".join(s.stderr for s in res.steps))
            elif uses:
                raise ActionError(f"job {job_id} step {sid}: no simulation for uses: {uses}")
            else:
                sr = _run_step(sid, {"shell": "bash", **step}, ctx, base_env=base_env,
                               tmp=tmp, workspace=workspace, timeout=timeout,
                               sessions=sessions)
            result.steps.append(sr)
            ctx.data["steps"][sid] = {"outputs": sr.outputs}
            if sr.returncode != 0:
                ctx.status_ok = False
                result.failed_step = sid
                break
    finally:
        for pid in sessions:
            # Security: only the process groups this harness started.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGTERM)
    for name, value in (job.get("outputs") or {}).items():
        result.outputs[name] = evaluate(value, ctx)
    # The result holds strings only, so the job's HOME, event file and RUNNER_TEMP go:
    # a suite run used to leave hundreds of these folders behind.
    shutil.rmtree(tmp, ignore_errors=True)
    return result
