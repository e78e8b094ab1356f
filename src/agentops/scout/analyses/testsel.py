"""What a test file defines and what a pytest selection collects from it, decided
statically: test functions and test classes (``Test*`` by pytest's default, and any
``unittest.TestCase`` subclass), classes imported into the module (pytest collects
them there too), unconditional skips (``@unittest.skip``, ``@pytest.mark.skip``,
module-level ``pytest.skip(..., allow_module_level=True)``), dead ``if False:`` blocks,
marks, and pytest's ``-k`` keyword and ``-m`` marker expressions.

Pure: source text in, plain values out.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from agentops.scout.analyses import pysource as ps

# ``(module, imported name, importing file) -> (path, source)`` of a test module, or None.
Resolver = Callable[[str, str, str], tuple[str, str] | None]


@dataclass(frozen=True)
class TestCase:
    module: str  # file stem of the module pytest collects it in, e.g. test_passes
    cls: str  # "" for a module-level function
    name: str
    skipped: bool
    path: str = ""  # the file pytest collects it in
    origin: str = ""  # the file that defines the class ("" = ``path``)
    marks: frozenset[str] = field(default_factory=frozenset)


def _is_unconditional_skip(dec: ast.expr) -> bool:
    # Sanity: skipIf/skipUnless/mark.skipif depend on the runner (GPU, versions), so
    # they may collect; only a bare skip is certain to run nothing.
    target = dec.func if isinstance(dec, ast.Call) else dec
    src = ast.unparse(target)
    return src in ("unittest.skip", "skip", "pytest.mark.skip", "mark.skip")


def _mark_names(decorators: list[ast.expr]) -> set[str]:
    """``@pytest.mark.slow`` / ``@mark.gpu(...)`` → {"slow", "gpu"}."""
    out: set[str] = set()
    for dec in decorators:
        target = dec.func if isinstance(dec, ast.Call) else dec
        src = ast.unparse(target)
        m = re.match(r"^(?:pytest\.)?mark\.(\w+)$", src)
        if m and m.group(1) not in ("parametrize", "usefixtures", "filterwarnings"):
            out.add(m.group(1))
    return out


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


def _module_marks(mod: ast.Module) -> set[str]:
    for s in _live_body(mod.body):
        if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark"
                                             for t in s.targets):
            marks = s.value.elts if isinstance(s.value, (ast.List, ast.Tuple)) else [s.value]
            return _mark_names(list(marks))
    return set()


def _is_test_class(cls: ast.ClassDef, classes: dict[str, ast.ClassDef], depth: int = 0
                   ) -> bool:
    """pytest collects ``Test*`` classes, and unittest collects every ``TestCase``
    subclass whatever its name (bases seen through same-file classes)."""
    if cls.name.startswith("_"):
        return False
    if cls.name.startswith("Test"):
        return True
    for base in cls.bases:
        name = ast.unparse(base).rsplit(".", 1)[-1]
        if name.endswith("TestCase"):
            return True
        inner = classes.get(name)
        if inner is not None and inner is not cls and depth < 5 \
                and _is_test_class(inner, classes, depth + 1):
            return True
    return False


def _class_cases(path: str, stem: str, cls: ast.ClassDef, classes: dict[str, ast.ClassDef],
                 *, whole: bool, marks: set[str], origin: str = "") -> list[TestCase]:
    cls_skip = whole or any(_is_unconditional_skip(d) for d in cls.decorator_list)
    cls_marks = marks | _mark_names(cls.decorator_list)
    return [TestCase(stem, cls.name, name, cls_skip or any(
        _is_unconditional_skip(d) for d in fn.decorator_list), path, origin,
        frozenset(cls_marks | _mark_names(fn.decorator_list)))
        for name, fn in _methods(cls, classes, depth=0).items()]


def test_cases(path: str, text: str, resolve: Resolver | None = None) -> list[TestCase]:
    """Every test pytest would collect from the file (skipped ones flagged); with
    ``resolve``, test classes imported from other test modules are collected here too
    (with ``origin`` naming the file that defines them)."""
    mod = ps.parse(text)
    if mod is None:
        return []
    stem = path.rsplit("/", 1)[-1].removesuffix(".py")
    whole = module_skipped(mod)
    marks = _module_marks(mod)
    body = _live_body(mod.body)
    classes = {s.name: s for s in body if isinstance(s, ast.ClassDef)}
    out: list[TestCase] = []
    for s in body:
        if isinstance(s, ps.FuncDef) and s.name.startswith("test"):
            out.append(TestCase(stem, "", s.name, whole or any(
                _is_unconditional_skip(d) for d in s.decorator_list), path, "",
                frozenset(marks | _mark_names(s.decorator_list))))
        elif isinstance(s, ast.ClassDef) and _is_test_class(s, classes):
            out += _class_cases(path, stem, s, classes, whole=whole, marks=marks)
        elif isinstance(s, ast.ImportFrom) and resolve is not None:
            out += _imported_cases(path, stem, s, resolve, whole=whole, marks=marks)
    return out


def _imported_cases(path: str, stem: str, node: ast.ImportFrom, resolve: Resolver, *,
                    whole: bool, marks: set[str]) -> list[TestCase]:
    """``from .test_x import TestY``: pytest collects TestY in this module as well."""
    out: list[TestCase] = []
    module = "." * node.level + (node.module or "")
    for alias in node.names:
        local = alias.asname or alias.name
        if not local.startswith(("Test", "test")):
            continue
        found = resolve(module, alias.name, path)
        if found is None:
            continue
        origin, source = found
        other = ps.parse(source)
        if other is None:
            continue
        body = _live_body(other.body)
        func = next((s for s in body if isinstance(s, ps.FuncDef) and s.name == alias.name),
                    None)
        if func is not None and local.startswith("test"):
            out.append(TestCase(stem, "", local, whole or module_skipped(other) or any(
                _is_unconditional_skip(d) for d in func.decorator_list), path, origin,
                frozenset(marks | _module_marks(other) | _mark_names(func.decorator_list))))
            continue
        classes = {s.name: s for s in body if isinstance(s, ast.ClassDef)}
        cls = classes.get(alias.name)
        if cls is None or not local.startswith("Test"):
            continue
        cases = _class_cases(path, stem, cls, classes, whole=whole or module_skipped(other),
                             marks=marks | _module_marks(other), origin=origin)
        out += [TestCase(c.module, local, c.name, c.skipped, c.path, c.origin, c.marks)
                for c in cases]
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


_EXPR_TOKEN = re.compile(r"\(|\)|\band\b|\bor\b|\bnot\b|[^\s()]+")
# Security/Sanity: the expression comes from a workflow of the checkout (someone else's
# text). Real ``-k``/``-m`` expressions nest a few levels and hold a few dozen words;
# past these bounds the selection is reported "not checked" instead of evaluated (a
# recursive descent 5,000 ``not``s deep would end in RecursionError).
MAX_EXPR_DEPTH = 32
MAX_EXPR_TOKENS = 512


class UncheckedExpression(ValueError):
    """A ``-k``/``-m`` expression past what the evaluator takes; the message says why."""


def _tokens(expr: str) -> list[str]:
    tokens = _EXPR_TOKEN.findall(expr)
    if len(tokens) > MAX_EXPR_TOKENS:
        raise UncheckedExpression(f"the expression has more than {MAX_EXPR_TOKENS} words")
    return tokens


def check_expression(expr: str) -> None:
    """``UncheckedExpression`` when ``expr`` has more than ``MAX_EXPR_TOKENS`` words or
    nests (``not``, parentheses) deeper than ``MAX_EXPR_DEPTH``: one evaluation with
    every word false walks the whole expression."""
    evaluate(expr, lambda _word: False)


def evaluate(expr: str, atom_matches: Callable[[str], bool]) -> bool:
    """A pytest ``-k``/``-m`` boolean expression (``and``/``or``/``not``/parentheses)
    with ``atom_matches`` deciding each bare word. Raises ``UncheckedExpression`` for an
    expression past the bounds."""
    tokens = _tokens(expr)
    pos = 0
    level = 0

    def atom() -> bool:
        nonlocal pos, level
        tok = tokens[pos] if pos < len(tokens) else ""
        pos += 1
        if tok in ("not", "("):
            level += 1
            if level > MAX_EXPR_DEPTH:
                raise UncheckedExpression(
                    f"the expression nests deeper than {MAX_EXPR_DEPTH} levels")
            try:
                if tok == "not":
                    return not atom()
                val = disj()
                pos += 1  # ")"
                return val
            finally:
                level -= 1
        return atom_matches(tok)

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


def keyword_names(case: TestCase) -> list[str]:
    """The names pytest matches ``-k`` words against: the test function, its class, the
    module file, the directories above it (its collection parents) and its marks."""
    names = [case.name, case.cls]
    if case.path:
        parts = case.path.split("/")
        names += [parts[-1], *parts[:-1]]
    else:
        names.append(f"{case.module}.py")
    return [n.lower() for n in (*names, *case.marks) if n]


def keyword_matches(expr: str, case: TestCase) -> bool:
    """pytest ``-k``: each bare word matches case-insensitively as a substring of one of
    the test's names."""
    names = keyword_names(case)
    return evaluate(expr, lambda word: any(word.lower() in n for n in names))


def marker_matches(expr: str, case: TestCase) -> bool:
    """pytest ``-m``: each bare word is a mark name the test carries (exact)."""
    return evaluate(expr, lambda word: word in case.marks)


def select(cases: list[TestCase], *, node: list[str], keyword: str | None,
           marker: str | None = None) -> list[TestCase]:
    """The cases a ``file::A::b`` node id (parts after the file), ``-k`` and ``-m``
    select. Raises ``UncheckedExpression`` (before any case is judged) when ``-k`` or
    ``-m`` is past the evaluator's bounds."""
    for expr in (keyword, marker):
        if expr:
            check_expression(expr)
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
        if marker and not marker_matches(marker, c):
            continue
        out.append(c)
    return out
