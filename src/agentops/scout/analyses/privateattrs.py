"""Private attributes of imported packages read in code (#22 defect 9, census row
sc-fit23a: sets 18, 21 and 23): ``torch.distributed.device_mesh._mesh_resources``,
``tl._experimental_descriptor_load(...)``, ``torch._scaled_grouped_mm(...)`` - a ``_``
name reached through a name an import binds, where the import itself is public, so the
private-import reading (``debt.private_api_uses``, which reads import paths and imported
names) never sees it. Such a name changes or goes without notice in the package's next
release.

Counted for a use when

- the chain of attributes starts at a name an absolute import of the file binds
  (``import torch``, ``import triton.language as tl``, ``from transformers import X``)
  to a package that is neither the standard library's, ``__future__`` nor one of the
  sub-project's own packages, and that import names no private part (it is reported as
  a private import already);
- some attribute of the chain after the import is ``_``-prefixed (dunders aside); the
  use is named by the dotted path up to that attribute;
- the chain does not go through an operator registry (``torch.ops``): its attributes are
  the names of registered operators (ATen's own ops begin with ``_``), not Python API;
- no code of the repository outside the sub-project's category folder (the folder
  holding it, ``experiments/`` or ``models/``; the whole repository but the sub-project
  when it has none) reads the same dotted path: a private API core relies on too is the
  repository's convention and core's own runs notice when it changes (``torch._dynamo``,
  ``torch._inductor.config``), while one only this folder uses breaks unseen.

Tests of the folder count (they break too). Which files are read: a file of the folder is
parsed only when its text has a ``._`` attribute; outside the folder only the files whose
text has one of the private names found, each at most ``_MAX_FILE`` characters.

Pure: the HEAD tree in, one record per (file, line, dotted path).
"""

from __future__ import annotations

import ast
import posixpath
import re
from dataclasses import dataclass

from agentops.scout import gitrepo
from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs

_MAX_FILE = gitrepo.MAX_PYTHON_CHARS
# Registries whose attributes are operator names, not the package's Python API.
_OP_REGISTRIES = ("torch.ops",)
_PRIVATE_ATTR = re.compile(r"\._[A-Za-z0-9]")


@dataclass(frozen=True)
class PrivateAttr:
    file: str
    line: int
    dotted: str  # the path up to the private attribute (``torch._grouped_mm``)


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def _bindings(mod: ast.Module, own: tuple[str, ...]) -> dict[str, str]:
    """Local name -> the dotted path it stands for, for the public absolute imports of a
    package other than the standard library, ``__future__`` and the sub-project's own."""
    out: dict[str, str] = {}
    for local, (module, name) in ps.imports(mod).items():
        dotted = f"{module}.{name}" if name else module
        root = dotted.split(".", 1)[0]
        if root in ps.STDLIB_MODULES or any(
                dotted == o or dotted.startswith(o + ".") for o in own):
            continue
        if any(_private(p) for p in dotted.split(".")):
            continue  # a private import: the import reading reports it
        out[local] = dotted
    return out


def uses(mod: ast.Module | None, own: tuple[str, ...] = ()) -> list[tuple[int, str]]:
    """(line, dotted path up to the first private attribute) of every chain of
    attributes on an imported public name that reaches a ``_`` attribute."""
    if mod is None:
        return []
    binds = _bindings(mod, own)
    if not binds:
        return []
    out: set[tuple[int, str]] = set()
    for node in ps.walk(mod):
        if not isinstance(node, ast.Attribute) or not _private(node.attr):
            continue
        chain = ps.name_chain(node)
        if not chain or chain[0] not in binds:
            continue
        parts = binds[chain[0]].split(".") + chain[1:]
        first = next(i for i, p in enumerate(parts) if _private(p))
        dotted = ".".join(parts[:first + 1])
        if any(dotted.startswith(r + ".") for r in _OP_REGISTRIES):
            continue
        out.add((node.lineno, dotted))
    return sorted(out)


def category_folder(sub: str) -> str:
    """The folder holding the sub-project (``pkg/experiments/``); the sub-project's own
    folder when it sits at the top. The FYI names it as where no other code reads the path."""
    parent = posixpath.dirname(sub.rstrip("/"))
    return parent + "/" if parent else sub.rstrip("/") + "/"


def analyse(inp: Inputs) -> list[PrivateAttr]:
    sub = inp.target.subproject.rstrip("/")
    if not sub:
        return []
    own = inp.target.own_packages
    files = inp.head.files
    found: list[PrivateAttr] = []
    for path in sorted(files):
        if not (path.startswith(sub + "/") and path.endswith(".py")):
            continue
        text = files[path]
        if not text or len(text) > _MAX_FILE or not _PRIVATE_ATTR.search(text):
            continue
        found += [PrivateAttr(path, line, dotted)
                  for line, dotted in uses(ps.parse(text), own)]
    if not found:
        return []
    # The same private path read by code outside the category folder: not the folder's
    # own risk.
    outside = category_folder(sub)
    leaves = {f.dotted.rsplit(".", 1)[-1] for f in found}
    shared: set[str] = set()
    for path in sorted(files):
        if path.startswith(outside) or not path.endswith(".py"):
            continue
        text = files[path]
        if not text or len(text) > _MAX_FILE or not any(leaf in text for leaf in leaves):
            continue
        shared |= {dotted for _line, dotted in uses(ps.parse(text))}
    return [f for f in found if f.dotted not in shared]
