"""Copied bodies drift (#22 defect 4): for each function the sub-project copies from
upstream (``duplicate_logic`` pairs, matched by name or content) or overrides (a
method of an upstream base class it re-implements without ``super()``), upstream's
version at the baseline and at HEAD are compared; every guard (``if`` test),
assertion, ``raise``, call statement or keyword argument upstream added in the window
that the copy lacks is a finding naming both sides (``file:line``) and the commit
that added it.

Pure: parsed sources in, frozen records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import attribution, duplicates
from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs

MAX_UNITS = 12  # more added units than this: upstream rewrote the function (one line)
_LOG = re.compile(r"^(logger|logging|log|warnings|print|warn|_log)\b|\.(debug|info|warning|"
                  r"error|exception)\(")


@dataclass(frozen=True)
class BodyDrift:
    """Units upstream added to a function the sub-project copies, that the copy lacks."""

    ours: str  # file:line of the copy
    upstream: str  # file:line of upstream's function at HEAD
    function: str  # upstream's (qualified) name
    units: tuple[str, ...]  # "guard `if x is None`", "kwarg `f(strict=)`", …
    commits: tuple[str, ...]  # commit per unit (same order)
    how: str  # "copy" | "override"
    rewritten: bool = False  # too many units: a rewrite, reported as one line


def _norm(text: str) -> str:
    return re.sub(r"\bself\.", "", re.sub(r"\s+", " ", text)).strip()


def units(func: ps.FuncDef, tests: dict[str, ast.expr] | None = None,
          skip: set[int] | None = None) -> dict[str, str]:
    """Key -> label of the guards, assertions, raises, call statements and keyword
    arguments in ``func`` (logging left out: it changes no behaviour); ``tests``
    collects each guard's condition by key."""
    out: dict[str, str] = {}
    for node in ps.walk(func):
        if node is func or (skip and id(node) in skip):
            continue
        if isinstance(node, ast.If | ast.While):
            test = _norm(ast.unparse(node.test))
            out[f"if:{test}"] = f"guard `if {test[:80]}`"
            if tests is not None:
                tests[f"if:{test}"] = node.test
        elif isinstance(node, ast.Assert):
            test = _norm(ast.unparse(node.test))
            out[f"assert:{test}"] = f"assertion `assert {test[:80]}`"
        elif isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = ast.unparse(exc)
            out[f"raise:{name}"] = f"`raise {name}`"
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            text = _norm(ast.unparse(node.value.func))
            if not _LOG.search(text + "("):
                out[f"call:{text}"] = f"call `{text[:80]}(…)`"
        if isinstance(node, ast.Call):
            callee = _norm(ast.unparse(node.func)).rsplit(".", 1)[-1]
            if _LOG.search(_norm(ast.unparse(node.func)) + "("):
                continue
            for k in node.keywords:
                if k.arg:
                    out[f"kw:{callee}:{k.arg}"] = f"keyword `{callee}({k.arg}=…)`"
    return out


def _has(mine: dict[str, str], key: str) -> bool:
    if key in mine:
        return True
    if key.startswith("kw:"):  # the same keyword to a renamed/wrapped callee still counts
        return any(k.startswith("kw:") and k.rsplit(":", 1)[1] == key.rsplit(":", 1)[1]
                   and k.split(":")[1].endswith(key.split(":")[1]) for k in mine)
    return False


def _pairs(inp: Inputs) -> list[tuple[ps.FuncDef, str, str, str]]:
    """(our function, its file, upstream file, upstream qualname)."""
    out: list[tuple[ps.FuncDef, str, str, str]] = []
    for ours, up, _why in duplicates._pairs(inp):
        o_text, u_text = inp.head.text(ours), inp.head.text(up)
        o_mod = ps.parse(o_text or "")
        imported = {local for local, (_m, name) in ps.imports(o_mod).items() if name}
        for mine, theirs in duplicates._match_functions(
                duplicates._function_defs(o_text), duplicates._function_defs(u_text),
                imported):
            if not duplicates.calls_super(mine):
                out.append((mine, ours, up, _qualname(ps.parse(u_text or ""), theirs)))
    return out + _overrides(inp)


def _qualname(mod: ast.Module | None, func: ps.FuncDef) -> str:
    for node in mod.body if mod is not None else ():
        if isinstance(node, ast.ClassDef) and func in node.body:
            return f"{node.name}.{func.name}"
    return func.name


def _overrides(inp: Inputs) -> list[tuple[ps.FuncDef, str, str, str]]:
    """Methods of the sub-project's classes that re-implement a method of the upstream
    class they derive from (imported from the repository), without ``super()``."""
    sub = inp.target.subproject + "/"
    out = []
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")) or "class " not in text:
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        imported = ps.imports(mod)
        for cls in (n for n in ps.statements(mod) if isinstance(n, ast.ClassDef)):
            for base in cls.bases:
                local = ast.unparse(base).split("[")[0].split(".")[-1]
                module, name = imported.get(local, ("", ""))
                found = _upstream_class(inp, module, name) if name else None
                if found is None:
                    continue
                up_file, up_cls = found
                theirs = {n.name for n in up_cls.body if isinstance(n, ps.FuncDef.__args__)}
                for fn in cls.body:
                    if isinstance(fn, ps.FuncDef.__args__) and fn.name in theirs \
                            and not duplicates.calls_super(fn):
                        out.append((fn, path, up_file, f"{up_cls.name}.{fn.name}"))
    return out


def _upstream_class(inp: Inputs, module: str, name: str) -> tuple[str, ast.ClassDef] | None:
    path = ps.module_path(module, inp.head.paths)
    sub = inp.target.subproject + "/"
    if not path or path.startswith(sub):
        return None
    candidates = [path]
    if path.endswith("/__init__.py"):  # a package re-exporting it: its modules
        folder = path[:-len("__init__.py")]
        candidates += sorted(p for p in inp.head.files if p.startswith(folder)
                             and p.endswith(".py") and p.count("/") == folder.count("/")
                             and f"class {name}" in inp.head.files[p])
    for cand in candidates:
        node = ps.find(ps.parse(inp.head.text(cand) or ""), name)
        if isinstance(node, ast.ClassDef):
            return cand, node
    return None


def _find(text: str | None, qualname: str) -> ps.FuncDef | None:
    node = ps.find(ps.parse(text), qualname) if text is not None else None
    return node if isinstance(node, ps.FuncDef.__args__) else None


def analyse(inp: Inputs) -> list[BodyDrift]:
    """Per copied/overridden function: the units upstream added since the baseline that
    the copy lacks (none when upstream's version did not change)."""
    if inp.base is None:
        return []
    out: list[BodyDrift] = []
    seen: set[tuple[str, str]] = set()
    for mine, ours_file, up_file, qual in _pairs(inp):
        key = (f"{ours_file}:{mine.lineno}", f"{up_file}:{qual}")
        if key in seen:
            continue
        seen.add(key)
        old_text, new_text = inp.base.text(up_file), inp.head.text(up_file)
        if old_text is None or old_text == new_text:
            continue
        old, new = _find(old_text, qual), _find(new_text, qual)
        if old is None or new is None or ast.dump(old) == ast.dump(new):
            continue
        if _how(inp, ours_file, mine, qual) == "override" and similarity(old, mine) < MIN_SIMILAR:
            continue  # an override of its own design, not a copy of upstream's body
        refused = refusals(mine)
        # What upstream does only under a mode the copy refuses never runs in the copy.
        dead = {id(n) for node in ps.walk(new) if isinstance(node, ast.If)
                and _unreachable(node.test, refused)
                for stmt in node.body for n in ps.walk(stmt)}
        tests: dict[str, ast.expr] = {}
        mine_tests: dict[str, ast.expr] = {}
        before, after, copy = units(old), units(new, tests, dead), units(mine, mine_tests)
        added = [k for k in after if k not in before and not _has(copy, k)
                 and not (k in tests and (_unreachable(tests[k], refused)
                                          or _renamed(tests[k], mine_tests.values())))]
        if not added:
            continue
        if len(added) > MAX_UNITS:
            out.append(BodyDrift(key[0], f"{up_file}:{new.lineno}", qual, (), (),
                                 _how(inp, ours_file, mine, qual), rewritten=True))
            continue
        commits = tuple(_introduced(inp, up_file, qual, k) for k in added)
        out.append(BodyDrift(key[0], f"{up_file}:{new.lineno}", qual,
                             tuple(after[k] for k in added), commits,
                             _how(inp, ours_file, mine, qual)))
    return out


MIN_SIMILAR = 0.5  # share of upstream's (baseline) statements an override must repeat


def _lines(func: ps.FuncDef) -> list[str]:
    return [_norm(ast.unparse(stmt)) for stmt in ps.statements(func)
            if not isinstance(stmt, ast.Expr | ast.Pass) or isinstance(
                getattr(stmt, "value", None), ast.Call)]


def similarity(upstream: ps.FuncDef, mine: ps.FuncDef) -> float:
    """Share of upstream's simple statements (and compound heads) the copy repeats."""
    theirs = [ln.split("\n", 1)[0] for ln in _lines(upstream)]
    ours = {ln.split("\n", 1)[0] for ln in _lines(mine)}
    return sum(1 for ln in theirs if ln in ours) / len(theirs) if theirs else 0.0


def refusals(func: ps.FuncDef) -> dict[str, frozenset[object]]:
    """``if x.attr != C: raise`` (or ``not in``): attribute -> the values the copy
    accepts; every other value is refused before any branch could need it."""
    out: dict[str, frozenset[object]] = {}
    for node in ps.walk(func):
        if isinstance(node, ast.If) and node.body and isinstance(node.body[-1], ast.Raise):
            found = duplicates._compared(node.test)
            if found is not None and not found[1]:
                out[found[0]] = found[2]
    return out


def _shape(test: ast.expr) -> tuple[str, list[str]]:
    """A condition with its variable names abstracted, and those names."""
    names = [n.id for n in ast.walk(test) if isinstance(n, ast.Name)]
    return re.sub(r"\b(" + "|".join(map(re.escape, sorted(set(names), key=len,
                                                          reverse=True))) + r")\b", "_",
                  ast.unparse(test)) if names else ast.unparse(test), names


def _renamed(test: ast.expr, mine: object) -> bool:
    """The copy has the same guard over renamed local variables (``batch_degree`` for
    ``dp_degree``): same shape, and most of the names the same."""
    shape, names = _shape(test)
    for other in mine:  # type: ignore[attr-defined]
        o_shape, o_names = _shape(other)
        if o_shape == shape and len(o_names) == len(names) and names and \
                sum(a == b for a, b in zip(names, o_names, strict=True)) * 2 >= len(names):
            return True
    return False


def _unreachable(test: ast.expr, refused: dict[str, frozenset[object]]) -> bool:
    """A guard on a mode the copy refuses (``spmd_backend == "x"`` where the copy raises
    unless it is ``"y"``): under the copy it never holds (or reduces to what it has)."""
    for node in ast.walk(test):
        if isinstance(node, ast.Compare):
            found = duplicates._compared(node)
            if found is not None and found[1] and found[0] in refused \
                    and not (found[2] & refused[found[0]]):
                return True
    return False


def _how(inp: Inputs, ours_file: str, mine: ps.FuncDef, qual: str) -> str:
    configured = {f for pair in inp.target.raw.get("duplicate_logic", []) for f in pair["ours"]}
    return "copy" if ours_file in configured else "override"


def _introduced(inp: Inputs, path: str, qual: str, key: str) -> str:
    def state(text: str | None) -> object:
        fn = _find(text, qual)
        return fn is not None and key in units(fn)
    return attribution.introduced(inp, path, state)


def upstream_files(inp: Inputs) -> set[str]:
    """Upstream files whose history the attribution needs: configured copies' sources
    and the repository modules the sub-project imports (cheap: imports only)."""
    out = {f for pair in inp.target.raw.get("duplicate_logic", []) for f in pair["upstream"]}
    sub = inp.target.subproject + "/"
    for path, text in inp.head.files.items():
        if path.startswith(sub) and path.endswith(".py") and "class " in text:
            for module, _name in ps.imports(ps.parse(text)).values():
                found = ps.module_path(module, inp.head.paths)
                if found and not found.startswith(sub):
                    out.add(found)
    return out
