"""Gradient reductions divided otherwise than the code around them assumes (#22, census
row of sets 9, 22 and 23): data-parallel wrapping decides what the reduced gradients are
divided by (DDP and FSDP average over their mesh unless told otherwise; FSDP takes a
``gradient_divide_factor``, or ``set_gradient_divide_factor`` on the wrapped module),
and the loss is normalised to match. Where the repository sets that division explicitly
on one path and the folder takes another path without it, the gradients come out scaled
by a mesh size: a step larger or smaller than the one the rest of the code computes.

Three readings, each over the folder's library code (tests aside):

- *sibling*: one function of the folder makes two wrapping calls (repository functions
  whose bodies wrap, or the torch wrappers themselves), one that turns the division off
  (a factor of 1, directly or through a helper such as a ``disable_*_division`` function)
  and one that keeps the wrapper's default averaging: the two data-parallel paths scale
  the same loss differently.
- *mesh*: a function of the folder wraps parts of one model with the torch wrappers over
  two or more meshes (its ``mesh=`` / ``device_mesh=`` values), each with the default
  division, while the folder sets no division anywhere and the repository's code
  outside it passes a divide factor of its own (not 1): FSDP then divides each part's
  gradients by its own mesh's size, while parts sharded over the smaller mesh receive
  gradients from the larger one (routed experts beside a dense model), which the
  repository's factor evens out. The factor named is the folder's namesake's when there
  is one (the same folder name elsewhere), else one new since the baseline.
- *borrowed*: the folder builds its model with a parallelize function of the repository
  that turns the division off (called by name, or through a spec's ``parallelize_fn``,
  read as the functions the repository registers under that keyword, more than half of
  them off), and runs its own backward (``.backward()``), while its code sets no division
  and makes no cross-rank reduction (``all_reduce``, ``dist_sum``, ...) that could carry
  the loss normalisation the division-off wrapping expects: each rank's loss is summed
  over ranks as it stands.

Calls are resolved through the repository's imports (relative ones too, re-exports
followed a few hops); what a function does is what its body does plus what the
repository functions it calls do (depth ``MAX_DEPTH``). Pure: the HEAD (and base) trees
in, ``GradDivision`` records out, at most ``MAX_FINDINGS``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from agentops.scout.analyses import pysource as ps
from agentops.scout.config import is_test_path
from agentops.scout.model import Inputs

MAX_FINDINGS = 6
MAX_DEPTH = 4
SIBLING, MESH, BORROWED = "sibling", "mesh", "borrowed"
OFF, FACTOR = "off", "factor"
# torch's data-parallel wrappers, by the name they are imported as from ``torch...``.
WRAPPERS = frozenset({"fully_shard", "replicate", "DistributedDataParallel",
                      "FullyShardedDataParallel"})
_KEYWORD = "gradient_divide_factor"
_SETTERS = frozenset({"set_gradient_divide_factor", "set_reduce_scatter_divide_factor"})
# Cross-rank reductions that can carry a global normaliser (a token count summed over
# ranks, a mean loss).
_REDUCTIONS = frozenset({"all_reduce", "all_reduce_coalesced", "all_reduce_tensor",
                         "dist_sum", "dist_mean"})
_SPEC_KEYWORD = "parallelize_fn"
_FuncDef = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class GradDivision:
    form: str  # SIBLING | MESH | BORROWED
    file: str  # the folder's line: the default-averaging call, the wrap, the backward
    line: int
    function: str  # the folder's function holding it
    callee: str  # what it calls (the wrapper or the repository function)
    other: str  # the explicit division: ``file:line``
    other_name: str  # what sets it (the function or the call)
    kind: str  # OFF | FACTOR: what the explicit side sets
    through: str = ""  # BORROWED: the folder's parallelize call ``file:line``
    registered: tuple[int, int] = (0, 0)  # BORROWED via a spec: (off, resolved)
    helper: str = ""  # the function whose line sets the division (``other``)
    off_line: int = 0  # SIBLING: the folder's division-off call
    meshes: tuple[str, ...] = ()  # MESH: the meshes the folder's wraps use
    new: bool = False  # MESH: the repository's factor is new since the baseline


@dataclass
class _Summary:
    wraps: bool = False
    division: set[str] = field(default_factory=set)
    division_at: str = ""  # the first ``file:line`` setting it
    division_fn: str = ""  # the function holding that line


def _constant_one(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and not isinstance(node.value, bool) \
        and isinstance(node.value, (int, float)) and node.value == 1


def _marker(call: ast.Call) -> str:
    """OFF / FACTOR when the call sets a gradient division itself, else ""."""
    for k in call.keywords:
        if k.arg == _KEYWORD and not (isinstance(k.value, ast.Constant)
                                      and k.value.value is None):
            return OFF if _constant_one(k.value) else FACTOR
    chain = ps.name_chain(call.func)
    if chain and chain[-1] in _SETTERS:
        return OFF if call.args and _constant_one(call.args[0]) else FACTOR
    return ""


class _Repo:
    """The repository's library modules, their imports and top-level functions."""

    def __init__(self, files: dict[str, str]):
        self.files = files
        self.paths = frozenset(files)
        self._mods: dict[str, ast.Module | None] = {}
        self._imports: dict[str, dict[str, tuple[str, str, int]]] = {}
        self._summaries: dict[tuple[str, str], _Summary] = {}

    def module(self, path: str) -> ast.Module | None:
        if path not in self._mods:
            text = self.files.get(path)
            self._mods[path] = ps.parse(text) if text and not is_test_path(path) else None
        return self._mods[path]

    def imports(self, path: str) -> dict[str, tuple[str, str, int]]:
        """Local name -> (absolute module, name, line) for ``from`` imports, relative
        included (``pysource.from_imports``)."""
        if path not in self._imports:
            self._imports[path] = ps.from_imports(path, self.module(path))
        return self._imports[path]

    def function(self, path: str, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        mod = self.module(path)
        for node in mod.body if mod is not None else ():
            if isinstance(node, _FuncDef) and node.name == name:
                return node
        return None

    def resolve(self, path: str, name: str, hops: int = 4) -> tuple[str, str] | None:
        """(path, function) the local ``name`` of ``path`` is, when a repository
        function: defined there, or imported (re-exports followed ``hops`` times)."""
        if self.function(path, name) is not None:
            return path, name
        got = self.imports(path).get(name)
        if got is None or hops <= 0:
            return None
        target = ps.module_path(got[0], self.paths)
        if target is None:
            return None
        return self.resolve(target, got[1], hops - 1)

    def torch_wrapper(self, path: str, call: ast.Call) -> str:
        chain = ps.name_chain(call.func)
        if not chain or chain[-1] not in WRAPPERS:
            return ""
        if len(chain) > 1:
            return chain[-1] if chain[0] == "torch" else ""
        got = self.imports(path).get(chain[0])
        return got[1] if got and got[0].startswith("torch") and got[1] in WRAPPERS else ""

    def summary(self, path: str, name: str, depth: int = MAX_DEPTH) -> _Summary:
        key = (path, name)
        if key in self._summaries:
            return self._summaries[key]
        out = _Summary()
        self._summaries[key] = out  # a recursion sees the partial answer
        fn = self.function(path, name)
        if fn is None:
            return out
        for call in _calls(fn):
            mark = _marker(call)
            if mark and not out.division_at:
                out.division_at, out.division_fn = f"{path}:{call.lineno}", name
            if mark:
                out.division.add(mark)
            if self.torch_wrapper(path, call):
                out.wraps = True
                continue
            if depth > 0 and isinstance(call.func, ast.Name):
                got = self.resolve(path, call.func.id)
                if got is not None and got != key:
                    sub = self.summary(*got, depth=depth - 1)
                    out.wraps |= sub.wraps
                    if sub.division:
                        out.division |= sub.division
                        if not out.division_at:
                            out.division_at, out.division_fn = (sub.division_at,
                                                                sub.division_fn)
        return out


def _calls(node: ast.AST) -> Iterator[ast.Call]:
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            yield n


def _functions(mod: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(mod):
        if isinstance(node, _FuncDef):
            yield node


def _path_functions(repo: _Repo, paths: list[str]
                    ) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function of the parsed modules among ``paths``, with its path."""
    for path in paths:
        mod = repo.module(path)
        if mod is not None:
            for fn in _functions(mod):
                yield path, fn


def _own_calls(fn: ast.AST) -> Iterator[ast.Call]:
    """Calls of ``fn``'s body, nested definitions aside (they are functions of their own)."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        if isinstance(node, (*_FuncDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Call):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _ours(sub: str, files: dict[str, str]) -> list[str]:
    return sorted(p for p in files if p.startswith(sub) and p.endswith(".py")
                  and not is_test_path(p))


def _first_arg(call: ast.Call) -> list[str]:
    return ps.name_chain(call.args[0]) if call.args else []


def _covers(off: ast.Call, default: ast.Call) -> bool:
    """A division-off call made after the default one, on the module holding it (its
    first argument a prefix of the default call's: ``model`` over ``model.encoder``),
    switches the earlier wrap's division off too (a helper looping over ``modules()``)."""
    a, b = _first_arg(off), _first_arg(default)
    return off.lineno > default.lineno and bool(a) and b[:len(a)] == a


def _sibling(repo: _Repo, ours: list[str]) -> list[GradDivision]:
    out = []
    for path, fn in _path_functions(repo, ours):
        offs: list[tuple[ast.Call, str, str, str]] = []
        default: list[tuple[ast.Call, str, str]] = []
        for call in sorted(_own_calls(fn), key=lambda c: (c.lineno, c.col_offset)):
            mark = _marker(call)
            wrapper = repo.torch_wrapper(path, call)
            if wrapper:
                if mark == OFF:
                    offs.append((call, wrapper, f"{path}:{call.lineno}", fn.name))
                elif not mark:
                    default.append((call, wrapper, ""))
                continue
            if not isinstance(call.func, ast.Name):
                continue
            got = repo.resolve(path, call.func.id)
            if got is None:
                continue
            s = repo.summary(*got)
            if mark == OFF or OFF in s.division:
                # A helper that only switches the division off covers what it is given.
                own = mark == OFF  # the call passes the factor of 1 itself
                offs.append((call, call.func.id,
                             f"{path}:{call.lineno}" if own else s.division_at,
                             "" if own else s.division_fn))
            elif s.wraps and not mark and not s.division:
                fdef = repo.function(*got)
                default.append((call, call.func.id,
                                f"{got[0]}:{fdef.lineno}" if fdef else got[0]))
        wrapping_offs = [o for o in offs if _wraps_or_marks(repo, path, o[0])]
        left = [d for d in default if not any(_covers(o[0], d[0]) for o in offs)]
        if not wrapping_offs or not left:
            continue
        call, callee, defined = left[0]
        off = wrapping_offs[0]
        out.append(GradDivision(SIBLING, path, call.lineno, fn.name, callee, off[2],
                                off[1], OFF, through=defined, helper=off[3],
                                off_line=off[0].lineno))
    return out


def _wraps_or_marks(repo: _Repo, path: str, call: ast.Call) -> bool:
    """The division-off side is itself a data-parallel path: a wrapper, or a helper
    whose body wraps."""
    if repo.torch_wrapper(path, call):
        return True
    got = repo.resolve(path, call.func.id) if isinstance(call.func, ast.Name) else None
    return got is not None and repo.summary(*got).wraps


def _markers(repo: _Repo, sub: str) -> dict[tuple[str, str, str], int]:
    """(path, function, kind) -> line of the first division of that kind a function
    outside the folder sets itself (library code)."""
    out: dict[tuple[str, str, str], int] = {}
    for path in sorted(repo.files):
        if path.startswith(sub) or not path.endswith(".py") or is_test_path(path):
            continue
        text = repo.files[path]
        if _KEYWORD not in text and not any(s in text for s in _SETTERS):
            continue
        mod = repo.module(path)
        if mod is None:
            continue
        for fn in _functions(mod):
            for call in _own_calls(fn):
                mark = _marker(call)
                if mark:
                    out.setdefault((path, fn.name, mark), call.lineno)
    return out


def _sets_division(repo: _Repo, ours: list[str], *, calls: bool = True) -> bool:
    """Whether the folder's code sets a division anywhere: itself, or (``calls``)
    through a repository function it calls."""
    for path in ours:
        mod = repo.module(path)
        for call in _calls(mod) if mod is not None else ():
            if _marker(call):
                return True
            if calls and isinstance(call.func, ast.Name):
                got = repo.resolve(path, call.func.id)
                if got is not None and repo.summary(*got).division:
                    return True
    return False


def _mesh_of(call: ast.Call) -> str:
    for k in call.keywords:
        if k.arg in ("mesh", "device_mesh"):
            return ast.unparse(k.value)
    return ""


def _mesh(repo: _Repo, base: _Repo | None, sub: str, ours: list[str]) -> list[GradDivision]:
    """The folder's own wrapping of one model's parts over different meshes, with the
    default division each, while the repository divides by a factor of its own."""
    factors = {k: v for k, v in _markers(repo, sub).items() if k[2] == FACTOR}
    if not factors or _sets_division(repo, ours):
        return []
    before = _markers(base, sub) if base is not None else {}
    name = sub.rstrip("/").rsplit("/", 1)[-1]
    # The namesake first (the same folder name elsewhere: the core version of this
    # code), then a factor new since the baseline, then path order.
    (where, fname, _kind), line = min(
        factors.items(), key=lambda kv: (name not in kv[0][0].split("/"),
                                         kv[0] in before, kv[0]))
    out = []
    for path, fn in _path_functions(repo, ours):
        wraps = sorted((c.lineno, w, _mesh_of(c)) for c in _own_calls(fn)
                       if (w := repo.torch_wrapper(path, c)) and not _marker(c))
        meshes = sorted({m for _l, _w, m in wraps if m})
        if len(meshes) >= 2:
            first = next(x for x in wraps if x[2])
            out.append(GradDivision(MESH, path, first[0], fn.name, first[1],
                                    f"{where}:{line}", fname, FACTOR,
                                    meshes=tuple(meshes[:3]),
                                    new=(where, fname, FACTOR) not in before
                                    and base is not None))
    return out


def _registered(repo: _Repo, sub: str) -> list[tuple[str, str]]:
    """The repository functions (outside the folder) registered as ``parallelize_fn=``."""
    out: set[tuple[str, str]] = set()
    for path in sorted(repo.files):
        if path.startswith(sub) or not path.endswith(".py") or is_test_path(path) \
                or _SPEC_KEYWORD not in repo.files[path]:
            continue
        mod = repo.module(path)
        for call in _calls(mod) if mod is not None else ():
            for k in call.keywords:
                if k.arg == _SPEC_KEYWORD and isinstance(k.value, ast.Name):
                    got = repo.resolve(path, k.value.id)
                    if got is not None and not got[0].startswith(sub):
                        out.add(got)
    return sorted(out)


def _reduces(repo: _Repo, ours: list[str]) -> bool:
    for path in ours:
        mod = repo.module(path)
        for call in _calls(mod) if mod is not None else ():
            chain = ps.name_chain(call.func)
            if chain and chain[-1] in _REDUCTIONS:
                return True
    return False


def _borrowed(repo: _Repo, sub: str, ours: list[str]) -> list[GradDivision]:
    backward: tuple[str, int, str] | None = None
    through: list[tuple[str, int, str, str, str, tuple[int, int]]] = []
    spec: list[tuple[str, str]] | None = None
    for path, fn in _path_functions(repo, ours):
        for call in sorted(_own_calls(fn), key=lambda c: (c.lineno, c.col_offset)):
            chain = ps.name_chain(call.func)
            if isinstance(call.func, ast.Attribute) and call.func.attr == "backward":
                backward = backward or (path, call.lineno, fn.name)
            elif isinstance(call.func, ast.Attribute) and call.func.attr == _SPEC_KEYWORD:
                if spec is None:
                    spec = _registered(repo, sub)
                summaries = [repo.summary(*g) for g in spec]
                off = [s for s in summaries if OFF in s.division]
                if off and 2 * len(off) > len(summaries):
                    through.append((path, call.lineno, ".".join(chain) or _SPEC_KEYWORD,
                                    off[0].division_at, off[0].division_fn,
                                    (len(off), len(summaries))))
            elif isinstance(call.func, ast.Name):
                got = repo.resolve(path, call.func.id)
                if got is None or got[0].startswith(sub):
                    continue
                s = repo.summary(*got)
                if s.wraps and OFF in s.division:
                    through.append((path, call.lineno, call.func.id, s.division_at,
                                    s.division_fn, (0, 0)))
    if backward is None or not through or _sets_division(repo, ours, calls=False) \
            or _reduces(repo, ours):
        return []
    path, line, fname = backward
    t = through[0]
    return [GradDivision(BORROWED, path, line, fname, t[2], t[3], t[4], OFF,
                         through=f"{t[0]}:{t[1]}", registered=t[5], helper=t[4])]


def analyse_trees(head: dict[str, str], base: dict[str, str] | None, subproject: str
                  ) -> list[GradDivision]:
    sub = subproject.rstrip("/") + "/"
    repo = _Repo(head)
    ours = _ours(sub, head)
    out = _sibling(repo, ours)
    out += _mesh(repo, _Repo(base) if base is not None else None, sub, ours)
    out += _borrowed(repo, sub, ours)
    return out[:MAX_FINDINGS]


def analyse(inp: Inputs) -> list[GradDivision]:
    return analyse_trees(inp.head.files, inp.base.files if inp.base is not None else None,
                         inp.target.subproject)
