"""What a copy still does the way upstream used to (#22, S-4): in each function the
sub-project copies (``duplicate_logic``) or overrides (repeating at least half of
upstream's statements), two differences that no added-or-lacking unit shows, because
the copy has a statement in the same place, only an older form of it:

- a local the copy binds from an environment variable where upstream's version (or a
  method of its class it calls on ``self``) binds the same local from a call
  (``world_size = int(os.environ["WORLD_SIZE"])`` against ``world_size =
  dist_utils.init_distributed(…)``): the copy depends on a launcher variable that
  upstream no longer needs;
- a guard around the same calls whose condition upstream now narrows with names the
  copy's condition lacks (``if self.step == 1`` against ``if self.step - loaded_step
  == 1``): same body, a condition that lags.

Pure: parsed sources in, frozen records out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from agentops.scout.analyses import bodydrift
from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class EnvSource:
    """A local the copy reads from the environment, upstream from a call."""

    ours: str  # file:line of the copy's assignment
    upstream: str  # file:line of upstream's assignment
    function: str  # upstream's (qualified) function the copy follows
    local: str  # the local both bind
    env: str  # the environment variable the copy reads
    source: str  # upstream's value (the call), shortened


@dataclass(frozen=True)
class LaggingGuard:
    """A guard whose condition upstream narrowed around the same calls."""

    ours: str  # file:line of the copy's guard
    upstream: str  # file:line of upstream's guard
    function: str
    mine: str  # the copy's condition
    theirs: str  # upstream's condition
    calls: tuple[str, ...]  # what both guard
    names: tuple[str, ...]  # names upstream's condition adds


@dataclass(frozen=True)
class StaleCopy:
    envs: tuple[EnvSource, ...] = ()
    guards: tuple[LaggingGuard, ...] = ()


def _env_name(node: ast.AST) -> str | None:
    """The variable a constant-name environment read names, anywhere in ``node``."""
    for n in ast.walk(node):
        arg: ast.expr | None = None
        if isinstance(n, ast.Subscript) and ast.unparse(n.value).endswith("environ"):
            arg = n.slice
        elif isinstance(n, ast.Call) and n.args and ast.unparse(n.func).endswith(
                ("environ.get", "getenv")):
            arg = n.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return arg.value
    return None


def _bindings(func: ps.FuncDef) -> dict[str, ast.Assign]:
    """Local name -> the first plain assignment of it (``x = …`` or ``a.b = x = …``)."""
    out: dict[str, ast.Assign] = {}
    for node in ps.walk(func):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out.setdefault(t.id, node)
    return out


def _helpers(cls: ast.ClassDef | None, func: ps.FuncDef) -> list[ps.FuncDef]:
    """Methods of upstream's class that ``func`` calls on ``self`` (one level: where
    upstream moved part of the body into a helper)."""
    if cls is None:
        return []
    called = {n.func.attr for n in ps.walk(func) if isinstance(n, ast.Call)
              and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
              and n.func.value.id == "self"}
    return [f for f in cls.body if isinstance(f, ps.FuncDef.__args__) and f.name in called
            and f is not func]


def _calls(stmts: list[ast.stmt]) -> frozenset[str]:
    """Callees a guard's body calls, logging left out."""
    out = set()
    for stmt in stmts:
        for n in ps.walk(stmt):
            if isinstance(n, ast.Call):
                text = bodydrift._norm(ast.unparse(n.func))
                if not bodydrift._LOG.search(text + "("):
                    out.add(text)
    return frozenset(out)


def _names(test: ast.expr) -> frozenset[str]:
    """What a condition reads: its settings (``self.`` dropped) and plain locals."""
    called = {id(n.func) for n in ast.walk(test) if isinstance(n, ast.Call)}
    plain = {n.id for n in ast.walk(test) if isinstance(n, ast.Name) and id(n) not in called
             and n.id not in ("self", "None", "True", "False")}
    heads = {s.split(".", 1)[0] for s in bodydrift._settings(test)}
    return frozenset(bodydrift._settings(test) | (plain - heads))


def _guards(func: ps.FuncDef) -> list[tuple[ast.If, frozenset[str]]]:
    return [(n, _calls(n.body)) for n in ps.walk(func) if isinstance(n, ast.If)]


def _lagging(mine: ps.FuncDef, new: ps.FuncDef) -> list[tuple[ast.If, ast.If, frozenset[str]]]:
    """(copy's guard, upstream's guard, names upstream adds) for guards around the same
    calls whose conditions differ, where upstream reads every name the copy's condition
    reads and more."""
    theirs = _guards(new)
    texts = {bodydrift._norm(ast.unparse(g.test)) for g, _c in theirs}
    out = []
    for g, calls in _guards(mine):
        text = bodydrift._norm(ast.unparse(g.test))
        if not calls or text in texts:
            continue
        mine_names = _names(g.test)
        for u, u_calls in theirs:
            u_names = _names(u.test)
            if u_calls == calls and mine_names and mine_names < u_names:
                out.append((g, u, u_names - mine_names))
                break
    return out


def analyse(inp: Inputs) -> StaleCopy:
    """Per copied/overridden function: environment reads upstream replaced by a call,
    and guards upstream narrowed around the same calls."""
    envs: list[EnvSource] = []
    guards: list[LaggingGuard] = []
    for mine, ours_file, up_file, qual in bodydrift.distinct_pairs(inp):
        up_mod = ps.parse(inp.head.text(up_file) or "")
        new = bodydrift._find(inp.head.text(up_file), qual)
        if new is None or up_mod is None:
            continue
        how = bodydrift._how(inp, ours_file, mine, qual)
        if how == "override" and bodydrift.similarity(new, mine) < bodydrift.MIN_SIMILAR:
            continue  # an override of its own design
        cls = ps.find(up_mod, qual.rsplit(".", 1)[0]) if "." in qual else None
        up_binds: dict[str, ast.Assign] = {}
        for fn in [new, *_helpers(cls if isinstance(cls, ast.ClassDef) else None, new)]:
            for name, node in _bindings(fn).items():
                up_binds.setdefault(name, node)
        for name, node in sorted(_bindings(mine).items()):
            env = _env_name(node.value)
            up = up_binds.get(name)
            if env is None or up is None or _env_name(up.value) is not None \
                    or not any(isinstance(n, ast.Call) for n in ast.walk(up.value)):
                continue
            envs.append(EnvSource(f"{ours_file}:{node.lineno}", f"{up_file}:{up.lineno}",
                                  qual, name, env, bodydrift._norm(ast.unparse(up.value))[:80]))
        for g, u, added in _lagging(mine, new):
            guards.append(LaggingGuard(
                f"{ours_file}:{g.lineno}", f"{up_file}:{u.lineno}", qual,
                bodydrift._norm(ast.unparse(g.test))[:80],
                bodydrift._norm(ast.unparse(u.test))[:80],
                tuple(sorted(_calls(u.body)))[:4], tuple(sorted(added))))
    return StaleCopy(tuple(envs), tuple(guards))
