"""What a test file defines and what a pytest selection collects from it, decided
statically: test functions and ``Test*`` classes, unconditional skips
(``@unittest.skip``, ``@pytest.mark.skip``, module-level
``pytest.skip(..., allow_module_level=True)``), dead ``if False:`` blocks, and
pytest's ``-k`` keyword expressions.

Pure: source text in, plain values out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps


@dataclass(frozen=True)
class TestCase:
    module: str  # file stem, e.g. test_passes
    cls: str  # "" for a module-level function
    name: str
    skipped: bool


def _is_unconditional_skip(dec: ast.expr) -> bool:
    # Sanity: skipIf/skipUnless/mark.skipif depend on the runner (GPU, versions), so
    # they may collect; only a bare skip is certain to run nothing.
    target = dec.func if isinstance(dec, ast.Call) else dec
    src = ast.unparse(target)
    return src in ("unittest.skip", "skip", "pytest.mark.skip", "mark.skip")


def _dead(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and not test.value


def _live_body(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """Statements that are defined at import time (``if False:`` bodies dropped)."""
    out: list[ast.stmt] = []
    for s in stmts:
        if isinstance(s, ast.If):
            if not _dead(s.test):
                out += _live_body(s.body)
            if not (isinstance(s.test, ast.Constant) and s.test.value):
                out += _live_body(s.orelse)
        elif isinstance(s, ast.Try):
            out += _live_body(s.body) + _live_body(s.orelse)
        else:
            out.append(s)
    return out


def module_skipped(mod: ast.Module) -> bool:
    """A top-level ``pytest.skip(..., allow_module_level=True)`` or
    ``pytestmark = pytest.mark.skip``."""
    for s in _live_body(mod.body):
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) \
                and ast.unparse(s.value.func) in ("pytest.skip", "skip") \
                and any(k.arg == "allow_module_level" and isinstance(k.value, ast.Constant)
                        and k.value.value for k in s.value.keywords):
            return True
        if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark"
                                             for t in s.targets):
            marks = s.value.elts if isinstance(s.value, (ast.List, ast.Tuple)) else [s.value]
            if any(_is_unconditional_skip(m) for m in marks):
                return True
    return False


def test_cases(path: str, text: str) -> list[TestCase]:
    """Every test pytest would collect from the file (skipped ones flagged)."""
    mod = ps.parse(text)
    if mod is None:
        return []
    stem = path.rsplit("/", 1)[-1].removesuffix(".py")
    whole = module_skipped(mod)
    body = _live_body(mod.body)
    classes = {s.name: s for s in body if isinstance(s, ast.ClassDef)}
    out: list[TestCase] = []
    for s in body:
        if isinstance(s, ps.FuncDef) and s.name.startswith("test"):
            out.append(TestCase(stem, "", s.name, whole or any(
                _is_unconditional_skip(d) for d in s.decorator_list)))
        elif isinstance(s, ast.ClassDef) and s.name.startswith("Test"):
            cls_skip = whole or any(_is_unconditional_skip(d) for d in s.decorator_list)
            for name, fn in _methods(s, classes, depth=0).items():
                out.append(TestCase(stem, s.name, name, cls_skip or any(
                    _is_unconditional_skip(d) for d in fn.decorator_list)))
    return out


def _methods(cls: ast.ClassDef, classes: dict[str, ast.ClassDef], depth: int
             ) -> dict[str, ps.FuncDef]:
    found: dict[str, ps.FuncDef] = {}
    if depth < 5:  # same-file base classes contribute their tests (mixins)
        for base in cls.bases:
            b = classes.get(ast.unparse(base))
            if b is not None and b is not cls:
                found.update(_methods(b, classes, depth + 1))
    for s in _live_body(cls.body):
        if isinstance(s, ps.FuncDef) and s.name.startswith("test"):
            found[s.name] = s
    return found


_K_TOKEN = re.compile(r"\(|\)|\band\b|\bor\b|\bnot\b|[^\s()]+")


def keyword_matches(expr: str, case: TestCase) -> bool:
    """pytest ``-k``: each bare word matches case-insensitively as a substring of the
    test's names (function, class, module); ``and``/``or``/``not``/parentheses."""
    names = " ".join((case.name, case.cls, case.module)).lower()
    tokens = _K_TOKEN.findall(expr)
    pos = 0

    def atom() -> bool:
        nonlocal pos
        tok = tokens[pos] if pos < len(tokens) else ""
        pos += 1
        if tok == "not":
            return not atom()
        if tok == "(":
            val = disj()
            pos += 1  # ")"
            return val
        return tok.lower() in names

    def conj() -> bool:
        nonlocal pos
        val = atom()
        while pos < len(tokens) and tokens[pos] == "and":
            pos += 1
            rhs = atom()
            val = val and rhs
        return val

    def disj() -> bool:
        nonlocal pos
        val = conj()
        while pos < len(tokens) and tokens[pos] == "or":
            pos += 1
            rhs = conj()
            val = val or rhs
        return val

    return disj() if tokens else True


def select(cases: list[TestCase], *, node: list[str], keyword: str | None) -> list[TestCase]:
    """The cases a ``file::A::b`` node id (parts after the file) and ``-k`` select."""
    out = []
    for c in cases:
        if node:
            parts = [c.cls, c.name] if c.cls else [c.name]
            # "Class::test[param]" → strip the parametrization id
            want = [n.split("[", 1)[0] for n in node]
            if parts[:len(want)] != want:
                continue
        if keyword and not keyword_matches(keyword, c):
            continue
        out.append(c)
    return out
