"""Flavors nothing selects (#22 defect 10, untested configuration): a module-level table
of the sub-project keyed by name (``llama3_configs = {"8B": …, "8B_flex": …}``) that a
function of the same module looks up by one of its parameters (``def
model_registry(flavor): … llama3_configs[flavor]``). The keys some code selects are the
string constants passed for that parameter anywhere in the repository (the config
registries: ``model_registry("8B")``) and the names test cases give for it
(``--model.flavor 8B``, ``flavor="8B"`` in a test). A key nothing selects is a model
size that exists only for a command line nobody runs: no config builds it, no test
loads it.

Judged only when the lookup is selected by constant somewhere (at least one key is
reached that way): a table chosen by a computed name says nothing.

Pure: the HEAD tree in, ``UnreachedFlavor`` records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import testowner
from agentops.scout.model import Inputs

MIN_KEYS = 3
# Between a test's parameter name and its value: ``=`` or ``:`` with any spacing around,
# or spacing with at least one blank. Security: written so a run of blanks splits one
# way only; ``\s*[=: ]\s*`` tries every split of it, quadratic in a test file with a
# long run of blanks after ``flavor`` (20,000 of them took 9 s per key).
_SEPARATOR = r"(?:\s*[=:]|[^\S ]*[ ])\s*"


@dataclass(frozen=True)
class UnreachedFlavor:
    file: str
    table: str  # llama3_configs
    lookup: str  # model_registry
    keys: tuple[str, ...]  # the keys nothing selects
    lines: tuple[int, ...]  # each key's line
    reached: int  # how many keys some call or test selects


def _tables(mod: ast.Module) -> dict[str, ast.Dict]:
    out: dict[str, ast.Dict] = {}
    for node in mod.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 \
            else node.target if isinstance(node, ast.AnnAssign) else None
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if isinstance(target, ast.Name) and isinstance(value, ast.Dict):
            keys = [k for k in value.keys if isinstance(k, ast.Constant)
                    and isinstance(k.value, str)]
            if len(keys) >= MIN_KEYS and len(keys) == len(value.keys):
                out[target.id] = value
    return out


def _lookups(mod: ast.Module, tables: dict[str, ast.Dict]) -> dict[str, tuple[str, str, int]]:
    """Function name → (table, parameter, its position) for ``table[param]`` lookups."""
    out: dict[str, tuple[str, str, int]] = {}
    for fn in mod.body:
        if not isinstance(fn, ps.FuncDef.__args__):
            continue
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        kwonly = [a.arg for a in fn.args.kwonlyargs]
        for node in ps.walk(fn):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                    and node.value.id in tables and isinstance(node.slice, ast.Name) \
                    and node.slice.id in params + kwonly:
                pos = params.index(node.slice.id) if node.slice.id in params else -1
                out[fn.name] = (node.value.id, node.slice.id, pos)
    return out


def _selected(inp: Inputs, fn: str, param: str, pos: int) -> set[str]:
    """String constants passed to ``fn`` for ``param`` anywhere in the repository."""
    out: set[str] = set()
    needle = f"{fn}("
    sub = inp.target.subproject.rstrip("/")
    importer = re.compile(re.escape(sub.replace("/", ".")) + r"(?![\w])")
    for path, text in inp.head.files.items():
        # Another folder's function of the same name (every model has a
        # ``model_registry``) selects that folder's table, not this one.
        if not path.endswith(".py") or needle not in text or not (
                path.startswith(sub + "/") or importer.search(text)):
            continue
        mod = ps.parse(text)
        for node in ps.nodes(mod) if mod is not None else ():
            if not (isinstance(node, ast.Call)
                    and ast.unparse(node.func).rsplit(".", 1)[-1] == fn):
                continue
            args = [k.value for k in node.keywords if k.arg == param]
            if 0 <= pos < len(node.args):
                args.append(node.args[pos])
            out |= {a.value for a in args if isinstance(a, ast.Constant)
                    and isinstance(a.value, str)}
    return out


def _named_by_tests(inp: Inputs, param: str, keys: list[str]) -> set[str]:
    """Keys a test names for the parameter: ``--model.flavor 8B`` / ``flavor="8B"``."""
    texts = [t for p, t in inp.head.files.items()
             if testowner.in_test_folder(p) or p in inp.target.workflows]
    out: set[str] = set()
    for key in keys:
        rx = re.compile(rf"{re.escape(param)}['\"]?{_SEPARATOR}['\"]?{re.escape(key)}(?![\w.])")
        if any(rx.search(t) for t in texts):
            out.add(key)
    return out


def analyse(inp: Inputs) -> list[UnreachedFlavor]:
    sub = inp.target.subproject.rstrip("/") + "/"
    out: list[UnreachedFlavor] = []
    for path in sorted(inp.head.files):
        if not (path.startswith(sub) and path.endswith(".py")) or testowner.in_test_folder(path):
            continue
        text = inp.head.files[path]
        if "{" not in text or "[" not in text:
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        tables = _tables(mod)
        if not tables:
            continue
        for fn, (table, param, pos) in sorted(_lookups(mod, tables).items()):
            entries = {k.value: k.lineno for k in tables[table].keys
                       if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            chosen = _selected(inp, fn, param, pos) & set(entries)
            if not chosen:
                continue  # selected by computed names only: nothing to judge
            chosen |= _named_by_tests(inp, param, [k for k in entries if k not in chosen])
            left = [k for k in entries if k not in chosen]
            if left:
                out.append(UnreachedFlavor(path, table, fn, tuple(left),
                                           tuple(entries[k] for k in left), len(chosen)))
    return out
