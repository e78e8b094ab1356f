"""Branches selected by a setting that no test running the folder sets (#22 defect 10,
untested configuration), for code that reads its settings through typed parameters
rather than one ``config`` object — a model folder's ``parallelize(model, parallel_dims:
ParallelDims, parallelism: ParallelismConfig, …)``:

- ``if parallelism.x == "v"`` / ``in ("v", "w")`` on a parameter annotated with a
  ``*Config`` class, directly or through a local bound once from it
  (``backend = parallelism.x; if backend in (…)``): untested when no value it compares
  with appears where the folder is run;
- ``if parallel_dims.cp_enabled`` on a parameter annotated with a repository class whose
  property is ``return self.cp > 1``, where the repository builds that class with
  ``cp=<something>.context_parallel_degree``: the branch needs that setting above one,
  and is untested when nothing that runs the folder sets it.

"Where the folder is run": its own test files, the integration test cases of shared
test trees that launch it (``--module <folder>`` or one of its registry's configs by
name) — their flags, case by case, not the whole file, which also holds other models'
cases — and the bodies of the folder's registry configs those cases or the target's
workflows name. A value named only by a registry config nothing runs is untested.

An Opportunity: the branch may be exercised by hand on hardware CI lacks.

Pure: the HEAD tree in, ``SettingBranch`` records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import testowner
from agentops.scout.model import Inputs

_FLAG = re.compile(r"--([\w.-]+)(?:[ \t]*=[ \t]*|[ \t]+)?(['\"]?)([^\s'\"-][^\s'\"]*)?\2")
# A launcher's default for a variable a test case's flag of the same name overrides
# (``MODULE=${MODULE:-"llama3"}`` in run_train.sh, ``--module qwen3`` in a case).
# Security: the indent is ``[ \t]*``, never ``\s*``: ``\s`` also takes newlines, so every
# line start would rescan all the blank lines after it, quadratic in a launcher of
# blank lines (20,000 of them took 35 s).
_DEFAULT = re.compile(r"^[ \t]*(\w+)=\$\{\1:-[\"']?([\w.-]+)", re.M)
_MAX_CONDITION = 120


@dataclass(frozen=True)
class SettingBranch:
    file: str
    line: int
    condition: str  # the condition as written (bounded)
    setting: str  # the field the tests would have to set: expert_parallel_comm_backend
    wanted: str  # "'deepep', 'hybridep'" or "above 1"


@dataclass(frozen=True)
class Found:
    branches: tuple[SettingBranch, ...]
    cases: tuple[str, ...]  # the shared test files whose cases launch the folder


@dataclass(frozen=True)
class Runs:
    """What runs the folder: test case flags (name → values) and texts (own tests and
    the registry configs something runs)."""

    flags: dict[str, set[str]]
    text: str
    cases: tuple[str, ...]  # file of each shared test tree that launches the folder
    # Each case of the folder on its own: its flags (name → values) and the text of the
    # registry config and config files it loads (``settingpairs`` reads them together).
    per_case: tuple[tuple[dict[str, set[str]], str], ...] = ()


def _registry_name(inp: Inputs) -> str:
    return inp.target.section("coverage").get("config_registry_name", "config_registry.py")


def _registry_functions(inp: Inputs, registry: str) -> dict[str, str]:
    """Config function name → its source, for the folder's registry."""
    text = inp.head.files.get(registry) or ""
    mod = ps.parse(text) if text else None
    out: dict[str, str] = {}
    for node in mod.body if mod is not None else ():
        if isinstance(node, ps.FuncDef.__args__):
            out[node.name] = ast.get_source_segment(text, node) or ""
    return out


def _case_strings(call: ast.Call) -> list[str]:
    first = call.args[0] if call.args else next(
        (k.value for k in call.keywords if k.arg == "override_args"), None)
    return [n.value for n in ps.walk(first) if isinstance(n, ast.Constant)
            and isinstance(n.value, str)] if first is not None else []


def override_calls(mod: ast.AST | None) -> list[ast.Call]:
    """The ``OverrideDefinitions`` calls of a module: the integration runner's cases."""
    return [n for n in (ps.nodes(mod) if mod is not None else ())
            if isinstance(n, ast.Call) and ast.unparse(n.func).endswith("OverrideDefinitions")]


def case_pairs(call: ast.Call) -> list[tuple[str, str]]:
    """(flag, value) of each flag a case passes (``--a.b v``: ("a.b", "v"); a bare flag's
    value is "")."""
    return [(m.group(1), m.group(3) or "") for s in _case_strings(call)
            for m in _FLAG.finditer(s)]


def flags_of(pairs: list[tuple[str, str]]) -> dict[str, set[str]]:
    """A case's flags by the last part of their name (``--a.b`` is ``b``) → its values."""
    out: dict[str, set[str]] = {}
    for k, v in pairs:
        out.setdefault(k.rsplit(".", 1)[-1], set()).add(v)
    return out


def _launcher_defaults(inp: Inputs) -> dict[str, str]:
    """Variable (lower case) → the default a top-level launcher script gives it: cases
    that name no module run the launcher's default one."""
    return {m.group(1).lower(): m.group(2) for p, t in inp.head.files.items()
            if "/" not in p and p.endswith(".sh") for m in _DEFAULT.finditer(t)}


# The flag a case names its model with: ``--module m`` now, ``--model.name m`` before.
_MODULE_KEYS = ("module", "model.name")
_MODEL_NAME = re.compile(r"^\[model\][^\[]*?^name[ \t]*=[ \t]*[\"']([\w.-]+)", re.M | re.S)


def _base_config_names(inp: Inputs, folder: str) -> bool:
    """Whether the integration runner's base config (a ``.toml`` directly in a shared test
    tree whose ``[model]`` table names a model) names the folder: its cases that name no
    model run that one."""
    for path, text in inp.head.files.items():
        if path.endswith(".toml") and testowner.in_test_folder(path) \
                and path.count("/") <= 2 and "[model]" in text:
            m = _MODEL_NAME.search(text)
            if m and m.group(1) == folder:
                return True
    return False


def _disabled(call: ast.Call) -> bool:
    return any(k.arg == "disabled" and isinstance(k.value, ast.Constant)
               and k.value.value is True for k in call.keywords)


def runs(inp: Inputs) -> Runs:
    sub = inp.target.subproject.rstrip("/")
    folder = sub.rsplit("/", 1)[-1]
    configs = _registry_functions(inp, f"{sub}/{_registry_name(inp)}")
    dotted = sub.replace("/", ".")
    own: list[str] = []
    flags: dict[str, set[str]] = {}
    named: set[str] = set()
    cases: set[str] = set()
    per_case: list[tuple[dict[str, set[str]], str]] = []
    is_default = _launcher_defaults(inp).get("module") == folder or _base_config_names(
        inp, folder)
    for path, text in inp.head.files.items():
        if not path.endswith(".py"):
            continue
        if path.startswith(sub + "/"):
            if testowner.in_test_folder(path):
                own.append(text)
            continue
        if not testowner.in_test_folder(path):
            continue
        if f"import {dotted}" in text or f"from {dotted}" in text:
            own.append(text)
        if "OverrideDefinitions" not in text or (folder not in text and not is_default):
            continue
        for node in override_calls(ps.parse(text)):
            pairs = case_pairs(node)
            mine = [v for k, v in pairs if (k in _MODULE_KEYS and v == folder)
                    or (k == "config" and v in configs) or f"{sub}/" in v]
            if not mine and not (is_default and not any(k in _MODULE_KEYS for k, _ in pairs)):
                continue
            if _disabled(node):
                continue
            cases.add(path)
            # A config file the case loads sets what its flags do not.
            loaded = [inp.head.files.get(v.removeprefix("./")) or "" for _k, v in pairs
                      if v.endswith((".toml", ".yaml", ".json"))]
            own += loaded
            mine_flags = flags_of(pairs)
            for k, vs in mine_flags.items():
                flags.setdefault(k, set()).update(vs)
            named |= {v for k, v in pairs if k == "config"}
            per_case.append((mine_flags, "\n".join(
                loaded + [configs[v] for k, v in pairs if k == "config" and v in configs])))
    for wf in inp.target.workflows:
        wtext = inp.head.files.get(wf) or ""
        named |= {n for n in configs if n in wtext}
    text = "\n".join(own + [configs[n] for n in sorted(named) if n in configs])
    return Runs(flags, text, tuple(sorted(cases)), tuple(per_case))


def _config_class(annotation: ast.expr | None) -> str:
    if annotation is None:
        return ""
    name = ast.unparse(annotation).split("|")[0].strip().rsplit(".", 1)[-1]
    return name if re.fullmatch(r"[A-Z]\w*", name) else ""


def _degree_properties(inp: Inputs, cls: str) -> dict[str, str]:
    """Property → the keyword of ``cls(...)`` it tests (``cp_enabled`` → ``cp``), for
    properties written ``return self.<f> > 1``."""
    rx = re.compile(rf"^class {re.escape(cls)}\b", re.M)
    for path, text in inp.head.files.items():
        if not path.endswith(".py") or not rx.search(text):
            continue
        mod = ps.parse(text)
        for node in mod.body if mod is not None else ():
            if not (isinstance(node, ast.ClassDef) and node.name == cls):
                continue
            out: dict[str, str] = {}
            for fn in node.body:
                if not (isinstance(fn, ps.FuncDef.__args__) and any(
                        ast.unparse(d) == "property" for d in fn.decorator_list)):
                    continue
                ret = fn.body[-1] if fn.body else None
                val = ret.value if isinstance(ret, ast.Return) else None
                if isinstance(val, ast.Compare) and len(val.ops) == 1 \
                        and isinstance(val.ops[0], ast.Gt) \
                        and isinstance(val.left, ast.Attribute) \
                        and isinstance(val.left.value, ast.Name) \
                        and val.left.value.id == "self" \
                        and isinstance(val.comparators[0], ast.Constant) \
                        and val.comparators[0].value == 1:
                    out[fn.name] = val.left.attr
            return out
    return {}


def _constructions(inp: Inputs, cls: str) -> dict[str, tuple[str, ...]]:
    """Keyword → the settings ``cls(keyword=<x>.<setting>)`` calls in the repository
    pass: every place that builds the class may read another one (the trainer, a
    serving path), and the class's own classmethods build it as ``cls(...)``."""
    needle = f"{cls}("
    own = re.compile(rf"^class {re.escape(cls)}\b", re.M)
    out: dict[str, set[str]] = {}
    for path, text in sorted(inp.head.files.items()):
        if not path.endswith(".py") or testowner.in_test_folder(path):
            continue
        home = "cls(" in text and bool(own.search(text))
        if needle not in text and not home:
            continue
        mod = ps.parse(text)
        for node in ps.nodes(mod) if mod is not None else ():
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(
                f, ast.Attribute) else ""
            if name == cls or (home and name == "cls" and isinstance(f, ast.Name)):
                for k in node.keywords:
                    if k.arg and isinstance(k.value, ast.Attribute):
                        out.setdefault(k.arg, set()).add(k.value.attr)
    return {k: tuple(sorted(v)) for k, v in out.items()}


def _values(node: ast.expr) -> list[str]:
    vals = [node.value] if isinstance(node, ast.Constant) else [
        e.value for e in getattr(node, "elts", ()) if isinstance(e, ast.Constant)]
    return [v for v in vals if isinstance(v, str) and v]


def typed_params(fn: ps.FuncDef) -> tuple[dict[str, str], set[str]]:
    """The config class each parameter's annotation names, and the parameters whose class
    is a ``...Config`` (the ones a setting is read from)."""
    args = fn.args
    typed = {a.arg: _config_class(a.annotation)
             for a in args.posonlyargs + args.args + args.kwonlyargs}
    return typed, {a for a, c in typed.items() if c.endswith("Config")}


def plain_binds(fn: ps.FuncDef) -> dict[str, list[ast.expr]]:
    """Every value a plain name is assigned in ``fn`` (nested scopes aside), so a caller can
    keep the locals bound exactly once."""
    binds: dict[str, list[ast.expr]] = {}
    for st in ps.statements(fn):
        if isinstance(st, ast.Assign):
            for t in st.targets:
                if isinstance(t, ast.Name):
                    binds.setdefault(t.id, []).append(st.value)
    return binds


def _function_branches(inp: Inputs, path: str, fn: ps.FuncDef, run: Runs, *,
                       props: dict[str, dict[str, str]],
                       built: dict[str, dict[str, tuple[str, ...]]]) -> list[SettingBranch]:
    typed, configs = typed_params(fn)
    # A local bound exactly once, from ``<config param>.<field>``.
    binds = plain_binds(fn)
    alias = {name: vals[0] for name, vals in binds.items() if len(vals) == 1
             and isinstance(vals[0], ast.Attribute) and isinstance(vals[0].value, ast.Name)
             and vals[0].value.id in configs}

    def setting(expr: ast.expr) -> ast.Attribute | None:
        if isinstance(expr, ast.Name) and expr.id in alias:
            expr = alias[expr.id]
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) \
                and expr.value.id in configs:
            return expr
        return None

    out: list[SettingBranch] = []
    for st in ps.statements(fn):
        if not isinstance(st, ast.If):
            continue
        test = st.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1 \
                and isinstance(test.ops[0], ast.Eq | ast.In):
            field = setting(test.left)
            values = _values(test.comparators[0])
            if field is None or not values:
                continue
            if any(v in run.flags.get(field.attr, ()) or re.search(
                    rf"(?<![\w-]){re.escape(v)}(?![\w-])", run.text) for v in values):
                continue
            out.append(SettingBranch(path, st.lineno, _condition(test), field.attr,
                                     ", ".join(repr(v) for v in values)))
        elif isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name):
            cls = typed.get(test.value.id, "")
            if not cls or cls.endswith("Config"):
                continue
            if cls not in props:
                props[cls] = _degree_properties(inp, cls)
            keyword = props[cls].get(test.attr)
            if not keyword:
                continue
            if cls not in built:
                built[cls] = _constructions(inp, cls)
            names = built[cls].get(keyword, ())
            # Selected when the folder's runs set any setting the class is built from.
            if not names or any(
                    any(v != "1" for v in run.flags.get(name, ()))
                    or re.search(rf"\b{re.escape(name)}\s*=", run.text) for name in names):
                continue
            out.append(SettingBranch(path, st.lineno, _condition(test), " or ".join(names),
                                     "above 1"))
    return out


def _condition(test: ast.expr) -> str:
    # Unparsed only for a branch reported: most ``if``s of a folder are not.
    return ast.unparse(test)[:_MAX_CONDITION]


def analyse(inp: Inputs) -> Found:
    sub = inp.target.subproject.rstrip("/") + "/"
    registry = _registry_name(inp)
    candidates = []
    for path in sorted(inp.head.files):
        if not (path.startswith(sub) and path.endswith(".py")) \
                or testowner.in_test_folder(path) or path.endswith("/" + registry):
            continue
        text = inp.head.files[path]
        if "if " in text and "Config" in text:
            candidates.append(path)
    if not candidates:
        return Found((), ())
    run = runs(inp)
    if not run.cases:
        return Found((), ())  # nothing runs it: the no-tests item says so, once
    props: dict[str, dict[str, str]] = {}
    built: dict[str, dict[str, tuple[str, ...]]] = {}
    out: list[SettingBranch] = []
    for path in candidates:
        mod = ps.parse(inp.head.files[path])
        for node in ps.nodes(mod) if mod is not None else ():
            if isinstance(node, ps.FuncDef.__args__):
                out += _function_branches(inp, path, node, run, props=props, built=built)
    return Found(tuple(sorted(set(out), key=lambda b: (b.file, b.line))), run.cases)
