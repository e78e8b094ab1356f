"""Refusals the sibling folders changed in the window and the sub-project did not follow
(#22 defect 6, duplicated logic that diverges): folders beside each other
(``models/<name>``) often carry the same refusal (``if cp > 1 and attn != "sdpa": raise``)
because each copied it from the other. When, in the window, a sibling rewrites its copy
(narrows the condition once the feature works, corrects a test that can no longer fire)
or two siblings add the same new refusal, a folder that still has the old form, or lacks
the new one, has fallen out of step.

A refusal is an ``if`` whose body only raises (logging calls aside), inside a function of
the folder's non-test code; its condition is the conjunction of its own test and the tests
of the ``if`` bodies enclosing it in that function, each written with attribute leaves only
(``job.parallelism.cp_degree`` -> ``cp_degree``, ``getattr(args, "attn", "x")`` -> ``attn``),
so the same check reads the same through another holder or a local.

- rewritten: a condition a sibling had at the baseline and no longer has at HEAD, while it
  gained one sharing at least half of its names (the rewrite), and the sub-project has the
  old condition both at the baseline and at HEAD (it did not follow);
- added: a condition two or more siblings gained in the window, that the sub-project never
  refuses (no refusal of its own whose conditions are a subset of it), though its code
  spells every name of it and tests one of its conjuncts in an ``if`` (the place to add
  it); when a refusal of its own reads every name of it, written otherwise, that refusal
  is named instead ("differs").

A sibling that drops a refusal without a rewrite (a feature removed) says nothing. An
Opportunity, never an action: the sibling's reason may not apply here. Pure: the HEAD and
baseline trees in, ``RefusalDrift`` records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.siblingguards import sibling_folders
from agentops.scout.analyses.siblinghooks import _WORD, _py
from agentops.scout.model import Inputs

MAX_FINDINGS = 6
MIN_ADDERS = 2
_NOT_NAMES = {"len", "getattr", "hasattr", "isinstance", "int", "str", "bool", "float",
              "None", "True", "False", "self", "any", "all"}

Cond = frozenset[str]  # the conjuncts, each unparsed after reduction to leaves


@dataclass(frozen=True)
class RefusalDrift:
    change: str  # "rewritten" | "added" | "differs"
    file: str  # the sub-project's refusal (rewritten) or its nearest test (added)
    line: int
    condition: str  # the condition the sub-project still refuses / lacks
    now: str  # rewritten, differs: the siblings' new condition; added: ""
    message: str  # the sibling's new refusal's message (start), or ""
    siblings: tuple[str, ...]  # file:line of each sibling's refusal at HEAD


class _Leaves(ast.NodeTransformer):
    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        return ast.copy_location(ast.Name(id=node.attr, ctx=ast.Load()), node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        f = node.func
        if (isinstance(f, ast.Name) and f.id == "getattr" and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)):
            return ast.copy_location(ast.Name(id=node.args[1].value, ctx=ast.Load()), node)
        self.generic_visit(node)
        return node


def _conjuncts(test: ast.expr) -> list[str]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [c for v in test.values for c in _conjuncts(v)]
    try:
        reduced = _Leaves().visit(ast.parse(ast.unparse(test), mode="eval").body)
        return [ast.unparse(reduced)]
    except (SyntaxError, ValueError, RecursionError):
        return []


def names(cond: Cond) -> set[str]:
    return {w for c in cond for w in _WORD.findall(re.sub(r"(['\"]).*?\1", "", c))
            if w not in _NOT_NAMES and not w.isupper()} - {"and", "or", "not", "in", "is"}


def _message(stmt: ast.Raise) -> str:
    parts = [n.value for n in ast.walk(stmt) if isinstance(n, ast.Constant)
             and isinstance(n.value, str)]
    return " ".join(" ".join(parts).split())[:100]


def _only_raises(body: list[ast.stmt]) -> ast.Raise | None:
    if not body or not isinstance(body[-1], ast.Raise):
        return None
    if all(isinstance(s, (ast.Raise, ast.Expr)) for s in body):
        return body[-1]
    return None


@dataclass(frozen=True)
class _Refusal:
    path: str
    line: int
    message: str


def _refusals(stmts: list[ast.stmt], path: str, outer: tuple[str, ...],
              out: dict[Cond, _Refusal], tests: list[tuple[Cond, str, int]]) -> None:
    for s in stmts:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            _refusals(s.body, path, (), out, tests)
        elif isinstance(s, ast.If):
            own = tuple(_conjuncts(s.test))
            cond = frozenset(outer + own)
            tests.append((frozenset(own), path, s.lineno))
            raise_ = _only_raises(s.body)
            if raise_ is not None and own:
                out.setdefault(cond, _Refusal(path, s.lineno, _message(raise_)))
            else:
                _refusals(s.body, path, outer + own, out, tests)
            _refusals(s.orelse, path, outer, out, tests)
        elif isinstance(s, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
            _refusals(s.body, path, outer, out, tests)
            _refusals(getattr(s, "orelse", []), path, outer, out, tests)
        elif isinstance(s, ast.Try):
            for block in (s.body, s.orelse, s.finalbody, *(h.body for h in s.handlers)):
                _refusals(block, path, outer, out, tests)
        elif isinstance(s, ast.Match):
            for case in s.cases:
                raise_ = _only_raises(case.body)
                if raise_ is not None and isinstance(case.pattern, ast.MatchValue):
                    # ``case "v": raise`` refuses ``subject == "v"``.
                    own = tuple(_conjuncts(ast.Compare(left=s.subject, ops=[ast.Eq()],
                                                       comparators=[case.pattern.value])))
                    if own:
                        out.setdefault(frozenset(outer + own),
                                       _Refusal(path, case.pattern.lineno, _message(raise_)))
                    continue
                _refusals(case.body, path, outer, out, tests)


def folder_refusals(files: dict[str, str], folder: str
                    ) -> tuple[dict[Cond, _Refusal], list[tuple[Cond, str, int]]]:
    """Every refusal of the folder's non-test code by its condition, and every ``if``
    test (its own conjuncts, file, line)."""
    out: dict[Cond, _Refusal] = {}
    tests: list[tuple[Cond, str, int]] = []
    for path, text in _py(files, folder):
        if "if " not in text:
            continue
        mod = ps.parse(text)
        if mod is not None:
            _refusals(mod.body, path, (), out, tests)
    return out, tests


def _show(cond: Cond) -> str:
    return " and ".join(sorted(cond))


def analyse(inp: Inputs) -> list[RefusalDrift]:
    base = inp.base
    if base is None or base.commit == inp.head.commit:
        return []
    sub = inp.target.subproject.rstrip("/")
    parent, siblings = sibling_folders(inp)
    if not siblings:
        return []
    ours_head, our_tests = folder_refusals(inp.head.files, sub + "/")
    ours_base, _ = folder_refusals(base.files, sub + "/")
    words = {w for _p, t in _py(inp.head.files, sub + "/") for w in _WORD.findall(t)}
    rewritten: dict[Cond, tuple[Cond, _Refusal, list[str]]] = {}
    added: dict[Cond, list[tuple[str, _Refusal]]] = {}
    for s in siblings:
        folder = f"{parent}/{s}/"
        if not any(p.startswith(folder) for p in base.paths):
            continue  # new in the window: nothing of it changed
        theirs_base, _ = folder_refusals(base.files, folder)
        theirs_head, _ = folder_refusals(inp.head.files, folder)
        new = [c for c in theirs_head if c not in theirs_base]
        for old in theirs_base:
            if old in theirs_head or old not in ours_head or old not in ours_base:
                continue
            want = names(old)
            best = max(new, key=lambda c: len(names(c) & want), default=None)
            if best is None or not want or 2 * len(names(best) & want) < len(want):
                continue
            at = theirs_head[best]
            if old not in rewritten:
                rewritten[old] = (best, at, [])
            rewritten[old][2].append(f"{at.path}:{at.line}")
        for c in new:
            added.setdefault(c, []).append((s, theirs_head[c]))
    out: list[RefusalDrift] = []
    for old, (best, at, where) in sorted(rewritten.items(), key=lambda kv: _show(kv[0])):
        mine = ours_head[old]
        out.append(RefusalDrift("rewritten", mine.path, mine.line, _show(old), _show(best),
                                at.message, tuple(where)))
    for cond, holders in sorted(added.items(), key=lambda kv: _show(kv[0])):
        if len(holders) < MIN_ADDERS or cond in ours_head:
            continue
        need = names(cond)
        if not need or not need <= words:
            continue
        if any(mine <= cond for mine in ours_head):
            continue  # ours already refuses whenever this holds
        sites = tuple(f"{r.path}:{r.line}" for _s, r in holders)
        # Ours refuses over the same names, written otherwise (``not isinstance`` where
        # the siblings now test ``isinstance``): the copies differ, say how.
        other = next((c for c in sorted(ours_head, key=_show) if names(c) >= need), None)
        if other is not None:
            mine = ours_head[other]
            out.append(RefusalDrift("differs", mine.path, mine.line, _show(other),
                                    _show(cond), holders[0][1].message, sites))
            continue
        place = next(((p, ln) for own, p, ln in our_tests if own & cond), None)
        if place is None:
            continue
        out.append(RefusalDrift("added", place[0], place[1], _show(cond), "",
                                holders[0][1].message, sites))
    return out[:MAX_FINDINGS]
