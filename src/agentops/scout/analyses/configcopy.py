"""S-4 lossy config conversion: in the configured copy functions
(``config_drift.copies``), a nested config replaced by a freshly constructed one
(``X.Config()``, ``XConfig(mode=...)``) instead of ``dataclasses.replace`` of the
user's value, which silently discards every sub-field the user set; and a nested
config of the caller mutated in place through a shallow copy.

Pure: reads the loaded tree; returns frozen records.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from agentops.scout.analyses import classindex
from agentops.scout.analyses import pysource as ps
from agentops.scout.config import Symbol
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class LossyCopy:
    function: str  # to_graph_trainer_config
    file: str
    line: int
    field: str  # activation_checkpoint
    kind: str  # "fresh default" | "in-place mutation"
    code: str  # the statement, unparsed (shortened)
    lost: tuple[str, ...] = ()  # sub-fields a fresh default drops
    constructed: str = ""  # ActivationCheckpointConfig
    replacement: str = ""  # the lossless spelling: dataclasses.replace(ac, mode='selective')


def _is_config_ctor(call: ast.Call) -> str:
    """``XConfig(...)`` / ``X.Config(...)`` → the class expression, else ""."""
    name = ast.unparse(call.func)
    last = name.rsplit(".", 1)[-1]
    return name if last.endswith("Config") and last[:1].isupper() else ""


def _key(target: ast.expr, dict_names: set[str], params: set[str]) -> str:
    """The config field an assignment target stands for: ``d["k"]`` (d a copy dict),
    ``cfg.k`` (cfg a parameter or the result), else ""."""
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
            and target.value.id in dict_names and isinstance(target.slice, ast.Constant) \
            and isinstance(target.slice.value, str):
        return target.slice.value
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
            and target.value.id in params:
        return target.attr
    return ""


def _user_value(expr: ast.expr, dict_names: set[str], params: set[str]) -> str:
    """The field whose caller-owned value ``expr`` is: ``d.get("k")``, ``d["k"]``,
    ``base.k``, ``getattr(base, "k")``; else ""."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
            and expr.func.attr == "get" and isinstance(expr.func.value, ast.Name) \
            and expr.func.value.id in dict_names and expr.args \
            and isinstance(expr.args[0], ast.Constant) and isinstance(expr.args[0].value, str):
        return expr.args[0].value
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) \
            and expr.func.id == "getattr" and len(expr.args) >= 2 \
            and isinstance(expr.args[0], ast.Name) and expr.args[0].id in params \
            and isinstance(expr.args[1], ast.Constant) and isinstance(expr.args[1].value, str):
        return expr.args[1].value
    return _key(expr, dict_names, params)


def _spreads(call: ast.Call, carriers: set[str]) -> bool:
    """The call carries the user's value over: ``**{...}``/``**asdict(v)`` of it, or
    names a variable holding it."""
    for k in call.keywords:
        if k.arg is None:
            return True
    return any(isinstance(n, ast.Name) and n.id in carriers for n in ast.walk(call))


def _fields_of(inp: Inputs, expr: str, imported: dict[str, tuple[str, str]]) -> list[str]:
    idx = classindex.for_tree(inp.head)
    found = idx.resolve(expr)
    if len(found) > 1:
        module = imported.get(expr.split(".", maxsplit=1)[0], ("", ""))[0]
        prefix = module.replace(".", "/")
        found = [c for c in found if idx.path(c).startswith(prefix)] or found[:1]
    fields = idx.fields(found[:1], subclasses=False) if found else None
    return list(fields or {})


def lossy_copies(inp: Inputs) -> list[LossyCopy]:
    """Fresh defaults and in-place mutations in each configured copy function."""
    out: list[LossyCopy] = []
    for pair in inp.target.section("config_drift").get("copies", []):
        fn = Symbol(**pair["copy_function"])
        text = inp.head.text(fn.file)
        mod = ps.parse(text) if text is not None else None
        func = ps.find(mod, fn.name)
        if not isinstance(func, ps.FuncDef):
            continue  # config_drift says the function is missing
        out += _scan(inp, fn, func, ps.imports(mod))
    return out


def _scan(inp: Inputs, fn: Symbol, func: ps.FuncDef,
          imported: dict[str, tuple[str, str]]) -> list[LossyCopy]:
    params = {p.lstrip("*") for p in ps.param_names(func)}
    dict_names: set[str] = set()
    carriers: dict[str, str] = {}  # variable -> field whose caller-owned value it holds
    out: list[LossyCopy] = []
    # Source order matters: a variable holds the caller's value from its assignment on.
    for stmt in sorted(ps.statements(func), key=lambda s: (s.lineno, s.col_offset)):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
            if isinstance(target, ast.Name):
                if isinstance(value, (ast.DictComp, ast.Dict)) or (
                        isinstance(value, ast.Call) and ast.unparse(value.func) in (
                            "dict", "vars", "asdict", "dataclasses.asdict", "copy.copy")):
                    dict_names.add(target.id)
                owned = _user_value(value, dict_names, params)
                if owned:
                    carriers[target.id] = owned
                else:
                    carriers.pop(target.id, None)
                continue
            key = _key(target, dict_names, params)
            if key and isinstance(value, ast.Call) and _is_config_ctor(value) \
                    and not _spreads(value, {v for v, f in carriers.items() if f == key}):
                ctor = _is_config_ctor(value)
                passed = {k.arg for k in value.keywords if k.arg}
                known = _fields_of(inp, ctor, imported)
                lost = tuple(f for f in known if f not in passed and not f.startswith("_"))
                if known and not lost:
                    continue  # nothing the user can set is dropped
                holder = next((v for v, f in carriers.items() if f == key), "")
                kws = ", ".join(f"{k.arg}={ast.unparse(k.value)}" for k in value.keywords
                                if k.arg)
                fix = f"dataclasses.replace({holder}{', ' + kws if kws else ''})" \
                    if holder else ""
                out.append(LossyCopy(fn.name, fn.file, stmt.lineno, key, "fresh default",
                                     _short(stmt), lost, ctor, fix))
                continue
            owner = _mutated_owner(target, dict_names, params, carriers)
            if owner:
                out.append(LossyCopy(fn.name, fn.file, stmt.lineno, owner,
                                     "in-place mutation", _short(stmt)))
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and stmt.value is not None:
            owner = _mutated_owner(stmt.target, dict_names, params, carriers)
            if owner:
                out.append(LossyCopy(fn.name, fn.file, stmt.lineno, owner,
                                     "in-place mutation", _short(stmt)))
    return out


def _mutated_owner(target: ast.expr, dict_names: set[str], params: set[str],
                   carriers: dict[str, str]) -> str:
    """``profiler.x = …`` (profiler holds the caller's ``profiler``), ``d["k"].x = …``
    or ``base.k.x = …``: the caller-owned field mutated in place, else ""."""
    if not isinstance(target, ast.Attribute):
        return ""
    owner = target.value
    if isinstance(owner, ast.Name) and owner.id in carriers:
        return carriers[owner.id]
    if isinstance(owner, (ast.Subscript, ast.Attribute)):
        return _key(owner, dict_names, params)
    return ""


def _short(stmt: ast.stmt) -> str:
    code = ast.unparse(stmt).splitlines()[0]
    return code if len(code) <= 100 else code[:97] + "..."
