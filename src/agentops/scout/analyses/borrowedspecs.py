"""Registrations built from another folder's parts that leave out what that folder
registers (#22, S-4, census row "borrowed registration").

A registration call of the sub-project (a call of a name imported from the repository
passing keywords, ``TrainSpec(model_args=llama3_args, ...)``; a library helper such as
``functools.partial`` is none) whose keyword values include names imported
from another folder of the repository borrows that folder's parts. The folder is the
nearest directory above the imported module that holds calls of the same imported name
(exactly one: that folder's own registration; none: look one level up; several: an
umbrella of many registrations, no reference); a directory holding the sub-project is
never one. The two registrations are compared field by field: a keyword the reference
passes a name to and the sub-project's call does not name at all is a part the copy
dropped. Which dropped parts count depends on what was borrowed:

- a part the reference takes from outside its own folder (a shared builder, a validator
  from the components package) fits any registration borrowing from it;
- a part of the reference folder's own (its state-dict adapter) fits only a registration
  built on the same model: one that borrows a class or a module-level value (the model
  class, the flavor table) of that folder, not only one of its functions (a pipeline
  helper reused by another model).

An explicit value (``None``, another name, an expression) is a visible choice and is not
judged; nor is a call spreading ``**kwargs``. A slot the sibling-hooks reading already
reports for the same call is not repeated. An Opportunity: the folder may leave the part
out on purpose. Pure: the HEAD tree in (the tree loader's caps apply), ``DroppedParts``
records out.
"""

from __future__ import annotations

import ast
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.siblinghooks import LEFT_OUT, _Call, _calls, _py
from agentops.scout.model import Inputs

MAX_FINDINGS = 6


@dataclass(frozen=True)
class DroppedParts:
    file: str  # the sub-project's registration call
    line: int
    callee: str  # ``TrainSpec``
    source: str  # the folder the parts come from
    borrowed: tuple[str, ...]  # ``model_args=llama3_args``
    reference: str  # file:line of that folder's call
    dropped: tuple[tuple[str, str], ...]  # (keyword, the reference's value)
    same_model: bool  # a class or value of the folder borrowed, not only functions


def _owner(module_file: str, key: tuple[str, str], sub: str, files: dict[str, str],
           cache: dict[tuple[str, str], list[_Call]]) -> tuple[str, _Call] | None:
    """The nearest folder above ``module_file`` holding exactly one call of ``key``."""
    folder = posixpath.dirname(module_file)
    name = key[1].rsplit(".", 1)[-1]
    while folder and not (sub + "/").startswith(folder + "/"):
        # Per folder and callee: the calls are read for one callee name only.
        if (folder, name) not in cache:
            cache[folder, name] = _calls(_py(files, folder + "/"), {name})
        same = [c for c in cache[folder, name] if c.key == key]
        if len(same) == 1:
            return folder, same[0]
        if same:
            return None
        folder = posixpath.dirname(folder)
    return None


def _kinds(files: dict[str, str], folder: str, names: Iterable[str]) -> dict[str, str]:
    """Name → "function" / "value" for the folder's module-level definitions of them."""
    wanted, out = set(names), {}
    for _path, text in _py(files, folder + "/"):
        if not any(n in text for n in wanted):
            continue
        mod = ps.parse(text)
        for node in mod.body if mod is not None else ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in wanted:
                out.setdefault(node.name, "function")
            elif isinstance(node, ast.ClassDef) and node.name in wanted:
                out.setdefault(node.name, "value")
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name) and t.id in wanted:
                        out.setdefault(t.id, "value")
    return out


def _shared(files: dict[str, str], paths: frozenset[str], ref: _Call, folder: str,
            keyword: str) -> bool:
    """Whether the reference takes the keyword's value from outside its own folder."""
    _value, module = ref.values[keyword]
    if not module:
        return False  # defined in the file, or a relative import: the folder's own
    target = ps.module_path(module, paths)
    if target is None:
        return module.replace(".", "/") != folder and \
            not module.replace(".", "/").startswith(folder + "/")
    return not target.startswith(folder + "/")


def _repository_callee(files: dict[str, str], paths: frozenset[str], call: _Call,
                       imported: dict[str, dict[str, tuple[str, str]]]) -> bool:
    """Whether the call's callee is imported from the repository (a registration class
    of the project): a library helper such as ``functools.partial`` takes keywords of
    whatever it wraps, and two of its calls are no copies of one registration."""
    if call.path not in imported:
        imported[call.path] = ps.imports(ps.parse(files.get(call.path)))
    first = call.key[1].split(".", 1)[0]
    for local, (module, orig) in imported[call.path].items():
        if (orig or local) == first:
            return ps.module_path(module, paths) is not None or (
                bool(orig) and ps.module_path(f"{module}.{orig}", paths) is not None)
    return False


def analyse(inp: Inputs, reported: Iterable[object] = ()) -> list[DroppedParts]:
    sub = inp.target.subproject.rstrip("/")
    files, paths = inp.head.files, inp.head.paths
    done = {(h.file, h.line, h.keyword) for h in reported
            if getattr(h, "form", "") == LEFT_OUT}
    cache: dict[tuple[str, str], list[_Call]] = {}
    out: list[DroppedParts] = []
    imported: dict[str, dict[str, tuple[str, str]]] = {}
    for call in _calls(_py(files, sub + "/")):
        if call.spread or not call.key[0] or not _repository_callee(files, paths, call,
                                                                     imported):
            continue
        by_folder: dict[str, tuple[_Call, list[tuple[str, str]]]] = {}
        for keyword, (name, module) in sorted(call.values.items()):
            if not module or name == "None":
                continue
            module_file = ps.module_path(module, paths)
            if module_file is None or module_file.startswith(sub + "/"):
                continue
            found = _owner(module_file, call.key, sub, files, cache)
            if found is None:
                continue
            folder, ref = found
            by_folder.setdefault(folder, (ref, []))[1].append((keyword, name))
        for folder, (ref, borrowed) in sorted(by_folder.items()):
            kinds = _kinds(files, folder, [n for _k, n in borrowed])
            same_model = any(kinds.get(n) == "value" for _k, n in borrowed)
            dropped = []
            for keyword, (value, _module) in sorted(ref.values.items()):
                if keyword in call.values or not value or value == "None":
                    continue
                if (call.path, call.line, keyword) in done:
                    continue
                if same_model or _shared(files, paths, ref, folder, keyword):
                    dropped.append((keyword, value))
            if not dropped:
                continue
            out.append(DroppedParts(
                call.path, call.line, call.callee, folder,
                tuple(f"{k}={n}" for k, n in borrowed), f"{ref.path}:{ref.line}",
                tuple(dropped), same_model))
            if len(out) >= MAX_FINDINGS:
                return out
    return out
