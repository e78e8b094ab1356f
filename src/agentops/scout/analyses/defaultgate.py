"""#22 item 5: a keyword upstream's copy passes and ours omits is no drift when what
upstream passes equals the callee's default unless a feature the sub-project never
turns on is enabled.

Upstream's value is followed to where it is decided: the expression itself, or the
local variable it names (every assignment to it in the enclosing function). Each
decision either yields the callee's default, or a different value only under a positive
test (``x if cond else default``, ``default if not cond else x``, ``if cond: v = x``)
of something the sub-project never refers to: an attribute, name or config field that
no code, string or config file of the sub-project mentions. Then the omission changes
nothing the sub-project can reach; the report says so in one line, not as an action.

What keeps it an action: a value that differs with no condition, a condition the
sub-project can reach (it mentions every name of it), a negative test (``"" if
feature.on else x``: off is where the sub-project is), a parameter of the enclosing
function (the caller decides), and ``self.`` conditions when the copy's class inherits
from a class of the repository outside the sub-project (the attribute may come with
it).

Pure: the parsed modules and the sub-project's files in, ``Gate`` records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps

# Roots whose own name says nothing about a feature: the object, not the attribute.
_SELF = {"self", "cls"}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Non-Python files of a sub-project that can turn a feature on (configs, launchers).
_CONFIG_SUFFIXES = (".toml", ".yaml", ".yml", ".json", ".sh", ".cfg", ".ini")


@dataclass(frozen=True)
class Gate:
    keyword: str
    condition: str  # the positive test that selects a non-default value, as source
    unknown: tuple[str, ...]  # its names the sub-project never mentions


def known_names(files: dict[str, str], prefix: str) -> frozenset[str]:
    """Every identifier the sub-project's code uses (names, attributes, parameters,
    keywords, definitions), every word of its string constants, and every word of its
    config files. Comments do not count: a commented-out field is not turned on."""
    out: set[str] = set()
    for path, text in files.items():
        if not path.startswith(prefix):
            continue
        if path.endswith(".py"):
            mod = ps.parse(text)
            if mod is not None:
                out |= _identifiers(mod)
        elif path.endswith(_CONFIG_SUFFIXES):
            out.update(_WORD.findall(text[:200_000]))
    return frozenset(out)


def _identifiers(mod: ast.Module) -> set[str]:
    out: set[str] = set()
    for n in ps.nodes(mod):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.arg) or (isinstance(n, ast.keyword) and n.arg):
            out.add(n.arg)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.alias):
            out.update(n.name.split("."))
            if n.asname:
                out.add(n.asname)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            out.update(_WORD.findall(n.value[:2000]))
    return out


def gate(module: ast.Module, call: ast.Call, keyword: str, default: str,
         known: frozenset[str], *, self_reachable: bool = False) -> Gate | None:
    """The feature test under which upstream's ``keyword=`` value of ``call`` (in
    ``module``) differs from ``default`` (the callee's default, as source), when the
    sub-project (``known``) cannot reach it; ``None`` when the omission may matter."""
    value = next((k.value for k in call.keywords if k.arg == keyword), None)
    if value is None:
        return None
    ctx = _Context(module, call, default, known, self_reachable)
    found = ctx.decide(value)
    if not found:
        return None
    tests = sorted({ast.unparse(t) for t, _u in found})
    unknown = sorted({u for _t, names in found for u in names})
    return Gate(keyword, " / ".join(tests), tuple(unknown))


class _Context:
    """One look-up: the enclosing function, the default, what the sub-project knows."""

    def __init__(self, module: ast.Module, call: ast.Call, default: str,
                 known: frozenset[str], self_reachable: bool) -> None:
        self.func = _enclosing(module, call)
        self.call = call
        self.default = default
        self.known = known
        self.self_reachable = self_reachable

    def decide(self, value: ast.expr, depth: int = 0
               ) -> list[tuple[ast.expr, tuple[str, ...]]] | None:
        """The unreachable tests that select a non-default value (empty when it is
        always the default), or ``None`` when a non-default value is reachable."""
        if _equals(value, self.default):
            return []
        if depth > 2:
            return None
        if isinstance(value, ast.IfExp):
            return self._branch(value.test, value.body, value.orelse, depth)
        if isinstance(value, ast.Name) and self.func is not None:
            return self._assignments(value.id, depth)
        return None

    def _branch(self, test: ast.expr, body: ast.expr, orelse: ast.expr, depth: int
                ) -> list[tuple[ast.expr, tuple[str, ...]]] | None:
        # The non-default side must sit behind a positive test of an unknown feature.
        positive, negated = _strip_not(test)
        on, off = (orelse, body) if negated else (body, orelse)
        rest = self.decide(off, depth + 1)
        if rest is None:
            return None
        if _equals(on, self.default):
            return rest
        unknown = self._unreachable(positive)
        return None if unknown is None else [*rest, (positive, unknown)]

    def _assignments(self, name: str, depth: int
                     ) -> list[tuple[ast.expr, tuple[str, ...]]] | None:
        assert self.func is not None
        if name in ps.param_names(self.func):
            return None  # the caller decides: nothing here says what it is
        found: list[tuple[ast.expr, tuple[str, ...]]] = []
        seen = 0
        for stmt, guards in _assigns(self.func.body, ()):
            if not _assigns_to(stmt, name) or stmt.lineno >= self.call.lineno:
                continue
            seen += 1
            value = stmt.value
            if value is None:
                return None
            decided = self.decide(value, depth + 1)
            if decided is None:
                # A non-default value: fine only behind a positive unknown guard.
                hit = next(((g, u) for g in guards
                            if (u := self._unreachable(g)) is not None), None)
                if hit is None:
                    return None
                decided = [hit]
            found += decided
        return found if seen else None

    def _unreachable(self, test: ast.expr) -> tuple[str, ...] | None:
        """The names of a positive test the sub-project never mentions, or ``None`` when
        it can reach the test (every name known, or a negative part)."""
        if isinstance(test, ast.BoolOp):
            parts = [self._unreachable(v) for v in test.values]
            if isinstance(test.op, ast.And):
                hit = [p for p in parts if p]
                return hit[0] if hit else None
            return tuple(n for p in parts for n in p or ()) if all(parts) else None
        if isinstance(test, ast.Compare):
            # ``x is not None``: x is there; anything else compares values we do not know.
            if len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) \
                    and isinstance(test.comparators[0], ast.Constant) \
                    and test.comparators[0].value is None:
                return self._unreachable(test.left)
            return None
        if isinstance(test, ast.Call):
            return self._unreachable(test.func)
        names = ps.name_chain(test)
        if len(names) < 2:
            return None  # a bare name: a local or global nothing here resolves
        if names[0] in _SELF:
            if self.self_reachable:
                return None
            # The copy's own state: its attribute, or the object that holds the flag.
            held = names[1:-1] or names[1:]
        else:
            # A variable's subsystem (``cfg.fault_tolerance.enable``): the last name is a
            # property of an object the sub-project may hold and reach through config.
            held = names[1:-1]
        unknown = tuple(n for n in held if n not in self.known)
        return unknown or None


def _strip_not(test: ast.expr) -> tuple[ast.expr, bool]:
    negated = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, not negated
    return test, negated


def _equals(node: ast.expr, default: str) -> bool:
    try:
        return bool(ast.literal_eval(node) == ast.literal_eval(default)
                    and type(ast.literal_eval(node)) is type(ast.literal_eval(default)))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return ast.unparse(node) == default


def _enclosing(module: ast.Module, call: ast.Call) -> ps.FuncDef | None:
    best: ps.FuncDef | None = None
    for n in ps.nodes(module):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and n.lineno <= call.lineno <= (n.end_lineno or n.lineno) \
                and (best is None or n.lineno >= best.lineno):
            best = n
    return best


def _assigns(body: list[ast.stmt], guards: tuple[ast.expr, ...]
             ) -> list[tuple[ast.Assign | ast.AnnAssign, tuple[ast.expr, ...]]]:
    """Assignments in a function body with the positive ``if`` tests above each (a
    test's ``else`` side adds nothing a positive reading could use)."""
    out: list[tuple[ast.Assign | ast.AnnAssign, tuple[ast.expr, ...]]] = []
    for stmt in body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            out.append((stmt, guards))
        elif isinstance(stmt, ast.If):
            positive, negated = _strip_not(stmt.test)
            on, off = (stmt.orelse, stmt.body) if negated else (stmt.body, stmt.orelse)
            out += _assigns(on, (*guards, positive))
            out += _assigns(off, guards)
        elif isinstance(stmt, (ast.With, ast.AsyncWith, ast.Try, ast.For, ast.While)):
            for attr in ("body", "orelse", "finalbody"):
                out += _assigns(getattr(stmt, attr, []) or [], guards)
            for h in getattr(stmt, "handlers", []) or []:
                out += _assigns(h.body, guards)
    return out


def _assigns_to(stmt: ast.Assign | ast.AnnAssign, name: str) -> bool:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return any(isinstance(t, ast.Name) and t.id == name for t in targets)
