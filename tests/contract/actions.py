"""Static contract of a composite ``action.yml`` (style practice 10).

Test-side helper; reads files only. For one action it reports, as ``where: what``:
- ``${{`` inside a ``run:`` (an expression there is pasted into the shell script);
- an input not passed to a run step as ``AGENTOPS_<INPUT_UPPER_SNAKE>`` in ``env:``
  (token/secret inputs may instead be passed as their own upper-snake name, or
  ``GITHUB_TOKEN``/``GH_TOKEN``), or an ``env:`` naming an undeclared input;
- an ``AGENTOPS_*`` variable that no code reads (the script, the package under
  ``src/``, or the run line itself);
- a declared output not written by the step it names (``set_output("name"`` in
  Python, ``name=`` into ``$GITHUB_OUTPUT`` in shell);
- an output a step's script writes (``set_output`` in the script or any agentops module
  it imports, directly or lazily) that the action does not declare, or one whose name
  is not a string literal (so it cannot be checked);
- a ``$GITHUB_ACTION_PATH/…`` script that does not exist;
- a ``uses:`` not pinned to a full commit SHA, or a local ``uses: ./`` (which would
  resolve against the caller's workspace, actions/runner#1348).
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

SECRET_INPUT = re.compile(r"token|secret|password|api-key|email", re.IGNORECASE)
TOKEN_ENVS = ("GITHUB_TOKEN", "GH_TOKEN")
# Plumbing between the action's own steps, not user inputs.
PLUMBING_ENVS = frozenset({"AGENTOPS_VENV_PYTHON", "AGENTOPS_SETUP_PYTHON"})
_INPUT_REF = re.compile(r"^\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}$")
_ANY_INPUT_REF = re.compile(r"inputs\.([A-Za-z0-9_-]+)")
_STEP_OUT = re.compile(r"^\$\{\{\s*steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)\s*\}\}$")
_SCRIPT = re.compile(r"""\$\{?GITHUB_ACTION_PATH\}?/([^\s"';|&)]+)""")
_PINNED = re.compile(r"^[^@\s]+@[0-9a-f]{40}$")


def env_name(input_name: str) -> str:
    """The env var an input must arrive in: ``dry-run`` → ``AGENTOPS_DRY_RUN``."""
    return "AGENTOPS_" + re.sub(r"[^A-Za-z0-9]", "_", input_name).upper()


def discover(root: Path) -> list[Path]:
    """The repository's actions: ``action.yml`` and ``actions/*/action.yml``."""
    found = [root / "action.yml"] if (root / "action.yml").exists() else []
    return found + sorted(root.glob("actions/*/action.yml"))


@functools.cache
def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def _sources(scripts: Iterable[Path]) -> list[tuple[Path, str]]:
    """Each script plus, for a Python script, the package beside it (``../src``)."""
    out: dict[Path, str] = {}
    for script in scripts:
        if not script.exists():
            continue
        out[script] = _read(script)
        src = script.parent.parent / "src"
        if script.suffix == ".py" and src.is_dir():
            for py in sorted(src.rglob("*.py")):
                out.setdefault(py, _read(py))
    return list(out.items())


def _reads_env(var: str, run: str, sources: list[tuple[Path, str]]) -> bool:
    if re.search(r"\$\{?" + re.escape(var) + r"\b", run):
        return True
    # Python: the exact name as a string literal (env_default("X"), environ.get("X"),
    # env["X"], a mapping passed around); shell: $X / ${X}.
    py = re.compile(r"""["']""" + re.escape(var) + r"""["']""")
    sh = re.compile(r"\$\{?" + re.escape(var) + r"\b")
    return any((py if path.suffix == ".py" else sh).search(text) for path, text in sources)


def _writes_output(name: str, run: str, sources: list[tuple[Path, str]]) -> bool:
    direct = re.compile(r"""set_output\(\s*["']""" + re.escape(name) + "[\"']")
    # Outputs built as a dict and written in a loop: the name as a key, in a module
    # that calls set_output.
    keyed = re.compile(r"""["']""" + re.escape(name) + r"""["']\s*:""")
    sh = re.compile(r"""(?:^|[\s"'])""" + re.escape(name) + r"(?:=|<<)")
    if sh.search(run) and "GITHUB_OUTPUT" in run:
        return True
    for path, text in sources:
        if path.suffix == ".py":
            if direct.search(text) or ("set_output(" in text and keyed.search(text)):
                return True
        elif sh.search(text) and "GITHUB_OUTPUT" in text:
            return True
    return False


def _imported(tree: ast.AST) -> set[str]:
    """Module names a module imports anywhere (function-level imports and
    ``importlib.import_module("…")`` included): both ``a.b`` and ``a.b.c`` for
    ``from a.b import c``, since c may be a module."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "import_module" and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            out.add(node.args[0].value)
    return out


def module_closure(script: Path) -> list[Path]:
    """The script and every module of the package beside it (``../src``) that it can
    import, transitively: what runs when the action runs that script."""
    src = script.parent.parent / "src"
    seen: dict[Path, None] = {}
    todo = [script]
    while todo:
        path = todo.pop()
        if path in seen or not path.exists():
            continue
        seen[path] = None
        for name in _imported(ast.parse(_read(path), filename=str(path))):
            parts = name.split(".")
            # The module itself and each parent package (its __init__ runs first).
            for i in range(1, len(parts) + 1):
                base = src.joinpath(*parts[:i])
                for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                    if candidate.exists() and candidate not in seen:
                        todo.append(candidate)
    return list(seen)


def written_outputs(scripts: Iterable[Path]) -> tuple[dict[str, list[str]], list[str]]:
    """``({output: [file:line, …]}, [file:line of a set_output with a computed name])``
    over the module closure of ``scripts`` (Python only)."""
    found: dict[str, list[str]] = {}
    dynamic: list[str] = []
    for script in scripts:
        if script.suffix != ".py":
            continue
        for path in module_closure(script):
            tree = ast.parse(_read(path), filename=str(path))
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Call) and node.args and (
                        (isinstance(node.func, ast.Attribute)
                         and node.func.attr == "set_output")
                        or (isinstance(node.func, ast.Name) and node.func.id == "set_output"))):
                    continue
                where = f"{path.name}:{node.lineno}"
                if path.name == "ghactions.py":
                    continue  # the runner interface itself, which forwards a name
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.setdefault(arg.value, []).append(where)
                else:
                    dynamic.append(where)
    return found, dynamic


def check_action(action_yml: Path, *, display: str | None = None) -> list[str]:
    """Every contract problem of one composite action (empty when it is sound)."""
    name = display or str(action_yml)
    spec: dict[str, Any] = yaml.safe_load(_read(action_yml)) or {}
    inputs = spec.get("inputs") or {}
    runs = spec.get("runs") or {}
    steps = runs.get("steps") or []
    out: list[str] = []
    if runs.get("using") != "composite":
        return [f"{name}: runs.using must be composite (got {runs.get('using')!r})"]

    passed: dict[str, list[str]] = {}  # input -> env names it reaches
    step_sources: dict[str, tuple[str, list[tuple[Path, str]]]] = {}
    step_scripts: dict[str, list[Path]] = {}
    for i, step in enumerate(steps):
        where = f"{name}: steps[{i}]" + (f" ({step['id']})" if step.get("id") else "")
        if "uses" in step:
            uses = str(step["uses"])
            if uses.startswith("./"):
                out.append(f"{where}: local uses: {uses} resolves against the caller's "
                           "workspace; run the script by $GITHUB_ACTION_PATH instead")
            elif not _PINNED.match(uses):
                out.append(f"{where}: uses: {uses} is not pinned to a full commit SHA")
            continue
        run = str(step.get("run") or "")
        if "${{" in run:
            out.append(f"{where}: run: contains '${{{{' (pass values through env:, "
                       "never expressions in the script)")
        if step.get("shell") != "bash":
            out.append(f"{where}: shell: must be bash (got {step.get('shell')!r})")
        scripts: list[Path] = []
        for rel in _SCRIPT.findall(run):
            if "$" in rel:
                # A dispatcher choosing the script from a fixed list (`script=x.py` in a
                # case): every file the variable part could name is a candidate.
                pattern = re.sub(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", "*", rel)
                found = sorted(action_yml.parent.glob(pattern))
                scripts += [f.resolve() for f in found]
                if not found:
                    out.append(f"{where}: no script matches $GITHUB_ACTION_PATH/{rel}")
                continue
            path = (action_yml.parent / rel).resolve()
            scripts.append(path)
            if not path.exists():
                out.append(f"{where}: script $GITHUB_ACTION_PATH/{rel} does not exist "
                           f"({path})")
        sources = _sources(scripts)
        if step.get("id"):
            step_sources[str(step["id"])] = (run, sources)
            step_scripts[str(step["id"])] = scripts
        for var, raw_value in (step.get("env") or {}).items():
            value = str(raw_value).strip()
            refs = _ANY_INPUT_REF.findall(value)
            for ref in refs:
                if ref not in inputs:
                    out.append(f"{where}: env {var} reads inputs.{ref}, which is not declared")
            m = _INPUT_REF.match(value)
            if m:
                passed.setdefault(m.group(1), []).append(var)
            if var.startswith("AGENTOPS_") and var not in PLUMBING_ENVS \
                    and not _reads_env(var, run, sources):
                out.append(f"{where}: env {var} is set but nothing reads it "
                           f"(no \"{var}\" in the script or src/)")

    for input_name in inputs:
        want = env_name(input_name)
        got = passed.get(input_name, [])
        allowed = {want}
        if SECRET_INPUT.search(input_name):
            allowed |= {re.sub(r"[^A-Za-z0-9]", "_", input_name).upper(), *TOKEN_ENVS}
        if not set(got) & allowed:
            found = f" (found {', '.join(got)})" if got else ""
            out.append(f"{name}: input {input_name!r} must reach the script as env {want}: "
                       f"${{{{ inputs.{input_name} }}}}{found}")

    for out_name, meta in (spec.get("outputs") or {}).items():
        value = str((meta or {}).get("value") or "").strip()
        m = _STEP_OUT.match(value)
        if not m:
            out.append(f"{name}: output {out_name!r}: value must be "
                       "${{ steps.<id>.outputs.<name> }}")
            continue
        sid, key = m.groups()
        if sid not in step_sources:
            uses_ids = {str(s.get("id")) for s in steps if "uses" in s}
            if sid not in uses_ids:
                out.append(f"{name}: output {out_name!r} reads step {sid!r}, "
                           "and no step of the action has that id")
            continue
        run, sources = step_sources[sid]
        if not _writes_output(key, run, sources):
            out.append(f"{name}: output {out_name!r}: step {sid!r} never writes {key!r} "
                       "(no set_output(\"" + key + "\") in its script or src/)")

    declared: dict[str, set[str]] = {}  # step id -> output names the action reads
    for meta in (spec.get("outputs") or {}).values():
        m = _STEP_OUT.match(str((meta or {}).get("value") or "").strip())
        if m:
            declared.setdefault(m.group(1), set()).add(m.group(2))
    for sid, scripts in step_scripts.items():
        written, dynamic = written_outputs(scripts)
        for key in sorted(set(written) - declared.get(sid, set())):
            out.append(f"{name}: step {sid!r} writes output {key!r} "
                       f"({', '.join(written[key][:3])}) but the action does not declare it")
        for where in dynamic:
            out.append(f"{name}: step {sid!r}: set_output with a computed name at {where} "
                       "(write each output by its literal name, so it can be declared)")
    return out
