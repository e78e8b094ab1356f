"""Hooks the sibling folders register and the sub-project leaves empty (#22, sibling
parity): a model folder that builds its spec with ``post_optimizer_build_fn=None``
while the sibling folders with the same feature pass a repository function there
(an MoE model without the expert-bias update its MoE siblings register).

For each call in the sub-project passing a keyword an explicit ``None``, the calls to
the same callee in the folders beside it (``models/<name>`` with the other
``models/*``) are read: when at least two siblings pass the same name there, and that
name resolves (through the sibling's imports) to a function the repository defines,
the function's body tells what it is about. The finding needs a *marker*: an
attribute the function reads (``moe_enabled``) that every sibling passing it spells,
that the sub-project spells, and that fewer than half of the siblings passing
``None`` spell. A dense model, whose dense siblings also pass ``None``, has no marker;
an MoE model does.

An Opportunity, never an action: the sibling's reason may not apply. Pure: the HEAD
tree in, ``MissingHook`` records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.commentrefs import MAX_FILE_CHARS
from agentops.scout.analyses.siblingguards import MIN_SIBLINGS, sibling_folders
from agentops.scout.model import Inputs

MAX_FINDINGS = 10
_WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class MissingHook:
    file: str  # the sub-project's call
    line: int
    callee: str  # last part of the called name (``ModelSpec``)
    keyword: str  # ``post_optimizer_build_fn``
    value: str  # what the siblings pass (``register_moe_load_balancing_hook``)
    defined: str  # file:line of that function
    markers: tuple[str, ...]  # what the function reads that the sub-project has
    siblings: tuple[str, ...]  # file:line of each sibling's call


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _py(files: dict[str, str], folder: str) -> list[tuple[str, str]]:
    return [(p, t) for p, t in sorted(files.items())
            if p.startswith(folder) and p.endswith(".py") and len(t) <= MAX_FILE_CHARS
            and "/tests/" not in p and not p.rsplit("/", 1)[-1].startswith("test_")]


def _none_keywords(files: list[tuple[str, str]]) -> list[tuple[str, int, str, str]]:
    """(file, line, callee, keyword) of every ``callee(..., keyword=None)``."""
    out = []
    for path, text in files:
        if "=None" not in text.replace(" ", ""):
            continue
        mod = ps.parse(text)
        for node in ps.nodes(mod) if mod is not None else ():
            if isinstance(node, ast.Call) and _callee(node):
                for k in node.keywords:
                    if k.arg and isinstance(k.value, ast.Constant) and k.value.value is None:
                        out.append((path, node.lineno, _callee(node), k.arg))
    return out


def _passes(files: list[tuple[str, str]], callee: str, keyword: str
            ) -> list[tuple[str, int, str, str]]:
    """(file, line, value text, module the value is imported from) of each call to
    ``callee`` passing ``keyword`` a name; ``None`` values give value text ``None``."""
    out = []
    for path, text in files:
        if callee not in text or keyword not in text:
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        imported = ps.imports(mod)
        for node in ps.nodes(mod):
            if not (isinstance(node, ast.Call) and _callee(node) == callee):
                continue
            for k in node.keywords:
                if k.arg != keyword:
                    continue
                if isinstance(k.value, ast.Constant) and k.value.value is None:
                    out.append((path, node.lineno, "None", ""))
                elif isinstance(k.value, ast.Name):
                    module, orig = imported.get(k.value.id, ("", ""))
                    out.append((path, node.lineno, orig or k.value.id, module))
    return out


def _definition(files: dict[str, str], paths: frozenset[str], module: str, name: str
                ) -> tuple[str, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    path = ps.module_path(module, paths) if module else None
    if path is None:
        return None
    mod = ps.parse(files.get(path, "")[:MAX_FILE_CHARS])
    for node in mod.body if mod is not None else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return path, node
    return None


def _reads(fn: ast.AST) -> set[str]:
    """Specific attribute names the function reads (``moe_enabled``, not ``values``)."""
    return {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute)
            and "_" in n.attr.strip("_")}


def analyse(inp: Inputs) -> list[MissingHook]:
    sub = inp.target.subproject.rstrip("/")
    parent, siblings = sibling_folders(inp)
    if not siblings:
        return []
    files = inp.head.files
    ours = _py(files, sub + "/")
    empty = _none_keywords(ours)
    if not empty:
        return []
    theirs = {s: _py(files, f"{parent}/{s}/") for s in siblings}
    words: dict[str, set[str]] = {}

    def spelled(folder: str, texts: list[tuple[str, str]]) -> set[str]:
        if folder not in words:
            words[folder] = {w for _p, t in texts for w in _WORD.findall(t)}
        return words[folder]

    out: list[MissingHook] = []
    seen: set[tuple[str, str]] = set()
    for path, line, callee, keyword in empty:
        if (callee, keyword) in seen:
            continue
        seen.add((callee, keyword))
        by_value: dict[tuple[str, str], list[tuple[str, str]]] = {}
        none_siblings: list[str] = []
        for s, texts in theirs.items():
            calls = _passes(texts, callee, keyword)
            if not calls:
                continue
            named = [c for c in calls if c[2] != "None"]
            if not named:
                none_siblings.append(s)
            for p, ln, value, module in named[:1]:
                by_value.setdefault((value, module), []).append((s, f"{p}:{ln}"))
        for (value, module), holders in sorted(by_value.items()):
            if len(holders) < MIN_SIBLINGS:
                continue
            found = _definition(files, inp.head.paths, module, value)
            if found is None:
                continue
            def_path, fn = found
            reads = _reads(fn)
            for s, _at in holders:
                reads &= spelled(s, theirs[s])
            reads &= spelled(sub, ours)
            # A marker: what the siblings passing None mostly lack (the feature the
            # function serves), not what every model spells.
            markers = sorted(m for m in reads if not none_siblings or 2 * sum(
                m in spelled(n, theirs[n]) for n in none_siblings) < len(none_siblings))
            if not markers:
                continue
            out.append(MissingHook(path, line, callee, keyword, value,
                                   f"{def_path}:{fn.lineno}", tuple(markers[:4]),
                                   tuple(at for _s, at in holders)))
            if len(out) >= MAX_FINDINGS:
                return out
    return out
