"""A FLOP count that derives the attention head size from the width while the model
sizes its heads on its own (#22, census row sc-fit21a: sets 4, 15, 21; set 15's census
named it): a function of the sub-project whose name speaks of FLOPs computes the head
size as ``<width> // <head count>`` (``self.dim // self.n_heads``), copied from a model
where that holds, while the model declares or reads a head size of its own (a field
``head_dim: int = 128``, MLA's ``qk_nope_head_dim`` / ``v_head_dim``, a config's
``attn.head_dim`` the folder's code reads). Where a flavor's head size is not width over
heads the per-token FLOPs, and the MFU reported from them, are off.

The evidence of an own head size, one of:

- the class holding the FLOP function (or a class of the same module) declares a field
  or sets an attribute whose name ends in ``head_dim`` to something other than the same
  width-over-heads division;
- the folder's code reads an attribute ending in ``head_dim`` of an object other than
  ``self`` (``attn.head_dim``: a size the config carries), and no code of the folder
  sets such an attribute to width over heads.

A FLOP function that itself reads a ``head_dim`` name (``self.head_dim or dim //
heads``) honours it and is left alone. Test files are not read; each file at most
``_MAX_FILE`` characters. Pure: the HEAD tree in, one record per FLOP function.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout import gitrepo
from agentops.scout.analyses import pysource as ps
from agentops.scout.config import is_test_name
from agentops.scout.model import Inputs

_MAX_FILE = gitrepo.MAX_PYTHON_CHARS
_WIDTH = re.compile(r"^(dim|d_model|model_dim|hidden_size|embed_dim)$")
_HEADS = re.compile(r"^(n_heads|num_heads|num_attention_heads|n_head|n_attention_heads)$")
_FLOPS = re.compile(r"flop", re.I)
_HEAD_SIZE = "head_dim"
MAX_FINDINGS = 4


@dataclass(frozen=True)
class FlopsHeadSize:
    file: str
    line: int  # the division
    function: str  # the FLOP function (``get_nparams_and_flops``)
    function_line: int
    derived: str  # the division as written (``self.dim // self.n_heads``)
    own: tuple[str, ...]  # the head-size names the model has (``head_dim``)
    own_at: str  # file:line of the first of them


def _is_test(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return any(f"/{d}/" in f"/{path}" for d in ("tests", "test")) \
        or is_test_name(name) or name == "conftest.py"


def _last(node: ast.expr) -> str:
    """The last name of ``a.b[0].c`` (``c``), of a bare name the name itself."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _width_over_heads(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv) \
        and bool(_WIDTH.match(_last(node.left))) and bool(_HEADS.match(_last(node.right)))


def _head_size(name: str) -> bool:
    return name.endswith(_HEAD_SIZE)


def _declared(cls: ast.ClassDef) -> list[tuple[str, int]]:
    """Head-size fields of a class (its nested classes too): ``x_head_dim: int = 64``
    in the body, or ``self.x_head_dim = v`` in a method with ``v`` no width-over-heads
    division."""
    out: list[tuple[str, int]] = []
    for node in ps.walk(cls):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and _head_size(node.target.id) \
                and not (node.value is not None and _width_over_heads(node.value)):
            out.append((node.target.id, node.lineno))
        elif isinstance(node, ast.Assign) and not _width_over_heads(node.value):
            for t in node.targets:
                chain = ps.name_chain(t)
                if len(chain) == 2 and chain[0] == "self" and _head_size(chain[1]):
                    out.append((chain[1], node.lineno))
    return out


def _reads_and_derivations(mod: ast.Module) -> tuple[list[tuple[str, int]], bool]:
    """Reads of ``<obj>.x_head_dim`` on an object other than ``self``, and whether the
    module sets such an attribute to width over heads."""
    reads: list[tuple[str, int]] = []
    derives = False
    for node in ps.walk(mod):
        owner = ps.name_chain(node.value) if isinstance(node, ast.Attribute) else []
        if owner and owner[0] != "self" and _head_size(node.attr) \
                and isinstance(node.ctx, ast.Load):
            reads.append((node.attr, node.lineno))
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None \
                and _width_over_heads(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            derives |= any(_head_size(_last(t)) for t in targets)
    return reads, derives


def _flop_functions(cls_or_mod: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ps.walk(cls_or_mod)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and _FLOPS.search(n.name)]


def analyse(inp: Inputs) -> list[FlopsHeadSize]:
    sub = inp.target.subproject.rstrip("/")
    if not sub:
        return []
    files = inp.head.files
    mods: dict[str, ast.Module] = {}
    for path in sorted(files):
        if not (path.startswith(sub + "/") and path.endswith(".py")) or _is_test(path):
            continue
        text = files[path]
        if not text or len(text) > _MAX_FILE or ("//" not in text and _HEAD_SIZE not in text):
            continue
        mod = ps.parse(text)
        if mod is not None:
            mods[path] = mod
    candidates: list[tuple[str, ast.Module, ast.AST, ast.BinOp]] = []
    for path, mod in mods.items():
        for fn in _flop_functions(mod):
            if any(isinstance(n, (ast.Attribute, ast.Name))
                   and _head_size(n.attr if isinstance(n, ast.Attribute) else n.id)
                   for n in ps.walk(fn)):
                continue  # the function reads a head size: it honours it
            divs = [n for n in ps.walk(fn) if _width_over_heads(n)]
            if divs:
                candidates.append((path, mod, fn, min(divs, key=lambda d: d.lineno)))
    if not candidates:
        return []
    folder_reads: list[tuple[str, str, int]] = []
    folder_derives = False
    for path, mod in mods.items():
        reads, derives = _reads_and_derivations(mod)
        folder_reads += [(path, name, line) for name, line in reads]
        folder_derives |= derives
    out: list[FlopsHeadSize] = []
    for path, mod, fn, div in candidates:
        declared: list[tuple[str, str, int]] = []
        for cls in (n for n in ps.walk(mod) if isinstance(n, ast.ClassDef)):
            declared += [(path, name, line) for name, line in _declared(cls)]
        own = declared or ([] if folder_derives else folder_reads)
        if not own:
            continue
        names = tuple(sorted({name for _p, name, _ln in own}))
        first = min(own, key=lambda o: (o[0] != path, o[0], o[2]))
        out.append(FlopsHeadSize(path, div.lineno, fn.name, fn.lineno, ast.unparse(div),
                                 names, f"{first[0]}:{first[2]}"))
    return out[:MAX_FINDINGS]
