"""Refusals the sibling folders make right before a step this folder takes too (#22,
a check the counterpart has and this code lacks or writes otherwise): the model
folders beside the sub-project call the same repository function under the same
condition (``if parallel_dims.cp_enabled:`` … ``apply_cp_to_attention_module(…)``),
and most of them refuse a combination first (``if parallel_dims.tp_enabled: raise``),
or refuse it under another test (``world_size != mesh.size()`` where ours asks
``mesh.ndim > 1``), while the sub-project goes on.

Anchored on the call, not on the function's name: only a block that makes the same
call (a function neither folder defines) under an ``if`` testing the same names is
compared, so a refusal about a step this folder does not take is never counted. A
refusal counts when at least two siblings, and at least half of those making the call
there, make it. Not counted: a refusal the sub-project makes anywhere under the same
conditions (``siblingguards._refused``), and one whose names our block hands, whole,
to a helper the siblings do not call there (``maybe_enable_async_tp(parallelism, …)``
refuses for it). An Opportunity: the sibling's reason may not apply to this model.

Pure: the HEAD tree in, ``CallRefusal`` records out.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import siblingguards as sg
from agentops.scout.analyses import testowner
from agentops.scout.analyses.commentrefs import MAX_FILE_CHARS
from agentops.scout.model import Inputs

MIN_SIBLINGS = 2
MAX_FINDINGS = 10
_MAX_TEXT = 120
_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True)
class Refusal:
    key: frozenset[str]  # what the condition tests (siblingguards._key)
    roots: frozenset[str]  # the plain names it reads
    line: int
    text: str


@dataclass(frozen=True)
class Step:
    file: str
    line: int
    callee: str
    guard: frozenset[str]  # what the enclosing ``if``s test
    guard_text: str
    refusals: tuple[Refusal, ...]  # ``if …: raise`` earlier in the same block
    calls: frozenset[str]  # every callee the block names
    handed: frozenset[tuple[str, str]]  # (callee, plain name the block passes to it)


@dataclass(frozen=True)
class CallRefusal:
    file: str  # our call
    line: int
    callee: str
    guard: str  # our enclosing condition
    refusal: str  # the siblings' condition (the first one's text)
    siblings: tuple[str, ...]  # file:line of each sibling's refusal
    makers: int  # siblings making the call under the same condition
    ours: tuple[str, ...]  # our own refusals in that block, "line: condition"


def _short(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT - 3] + "..."


def _callee(st: ast.stmt) -> str:
    value = st.value if isinstance(st, ast.Expr | ast.Assign | ast.AnnAssign) else None
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
        return value.func.id
    return ""


def _is_refusal(st: ast.stmt) -> bool:
    return isinstance(st, ast.If) and bool(st.body) and isinstance(st.body[-1], ast.Raise) \
        and not st.orelse


def _steps(path: str, mod: ast.Module) -> list[Step]:
    out: list[Step] = []

    def block(body: list[ast.stmt], guard: frozenset[str], text: str) -> None:
        refusals: list[Refusal] = []
        calls = {n.func.id for st in body for n in ps.walk(st)
                 if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        handed = frozenset((n.func.id, a.id) for st in body for n in ps.walk(st)
                           if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                           for a in [*n.args, *(k.value for k in n.keywords)]
                           if isinstance(a, ast.Name))
        for st in body:
            if _is_refusal(st):
                assert isinstance(st, ast.If)
                roots = frozenset(n.id for n in ps.walk(st.test) if isinstance(n, ast.Name))
                refusals.append(Refusal(sg._key(st.test), roots - sg._NEUTRAL, st.lineno,
                                        _short(st.test)))
            elif isinstance(st, ast.If):
                block(st.body, guard | sg._key(st.test), _short(st.test))
                block(st.orelse, guard, text)
            elif isinstance(st, ps.FuncDef.__args__):
                block(st.body, frozenset(), "")
            elif isinstance(st, ast.For | ast.AsyncFor | ast.While | ast.With | ast.AsyncWith):
                block(st.body, guard, text)
            elif guard and (name := _callee(st)):
                out.append(Step(path, st.lineno, name, guard, text, tuple(refusals),
                                frozenset(calls), handed))

    block(mod.body, frozenset(), "")
    return out


def _folder_steps(files: dict[str, str], folder: str
                  ) -> tuple[list[Step], set[str], dict[str, str]]:
    """The folder's guarded call steps, the names its files define at top level, and
    where it imports names from (local name → module)."""
    steps: list[Step] = []
    defined: set[str] = set()
    imported: dict[str, str] = {}
    for path, text in sorted(files.items()):
        if not (path.startswith(folder) and path.endswith(".py")) \
                or testowner.in_test_folder(path) or len(text) > MAX_FILE_CHARS:
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        defined |= set(ps.top_level_names(mod))
        imported.update({k: m for k, (m, _n) in ps.imports(mod).items()})
        if "if " in text:
            steps += _steps(path, mod)
    return steps, defined, imported


def analyse(inp: Inputs) -> list[CallRefusal]:
    sub = inp.target.subproject.rstrip("/")
    parent, siblings = sg.sibling_folders(inp)
    if not siblings:
        return []
    files = inp.head.files
    ours, own_defs, imported = _folder_steps(files, sub + "/")
    wanted = {s.callee for s in ours} - own_defs - _BUILTINS
    if not wanted:
        return []
    theirs: dict[str, list[Step]] = {}
    for name in siblings:
        steps, defs, _imp = _folder_steps(files, f"{parent}/{name}/")
        # A sibling's own function of the same name is another step, unless ours
        # imports that very function from the sibling (qwen3 calls llama3's apply_ddp).
        package = f"{parent}/{name}".replace("/", ".")
        theirs[name] = [s for s in steps if s.callee in wanted and (
            s.callee not in defs or imported.get(s.callee, "").startswith(package + "."))]
    mine: list[frozenset[str]] | None = None
    dropped: list[Step] | None = None
    out: list[CallRefusal] = []
    seen: set[tuple[str, int, frozenset[str]]] = set()
    for step in ours:
        if step.callee not in wanted:
            continue
        makers = {name: [s for s in steps if s.callee == step.callee and s.guard == step.guard]
                  for name, steps in theirs.items()}
        makers = {k: v for k, v in makers.items() if v}
        if len(makers) < MIN_SIBLINGS:
            continue
        holders: dict[frozenset[str], list[tuple[Step, Refusal]]] = {}
        for sib_steps in makers.values():
            keys: set[frozenset[str]] = set()
            for s in sib_steps:
                for r in s.refusals:
                    if r.key and r.key not in keys:
                        keys.add(r.key)
                        holders.setdefault(r.key, []).append((s, r))
        for key, held in sorted(holders.items(), key=lambda kv: sorted(kv[0])):
            if len(held) < MIN_SIBLINGS or 2 * len(held) < len(makers):
                continue
            if any(sg._similar(key, r.key) for r in step.refusals):
                continue
            # Handed whole to a helper the siblings do not call there: it refuses for us.
            roots = frozenset().union(*(r.roots for _s, r in held))
            if any(name in roots and callee != step.callee and callee not in s.calls
                   for callee, name in step.handed for s, _r in held):
                continue
            if mine is None:
                mine = sg._refusals(files, sub + "/")
            if sg._refused(key | step.guard, mine):
                continue
            # The folder made this very refusal there at the baseline and dropped it in
            # the window: a decision (the combination now works here), not a lag.
            if dropped is None:
                dropped = _folder_steps(inp.base.files, sub + "/")[0] \
                    if inp.base is not None else []
            if any(b.callee == step.callee and b.guard == step.guard
                   and any(sg._similar(key, r.key) for r in b.refusals) for b in dropped):
                continue
            mark = (step.file, step.line, key)
            if mark in seen:
                continue
            seen.add(mark)
            first = held[0][1]
            out.append(CallRefusal(
                step.file, step.line, step.callee, step.guard_text, first.text,
                tuple(sorted(f"{s.file}:{r.line}" for s, r in held)), len(makers),
                tuple(f"{r.line}: {r.text}" for r in step.refusals)))
            if len(out) >= MAX_FINDINGS:
                return out
    return out
