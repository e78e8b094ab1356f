"""What a signature change breaks, classified with griffe's breakage API on the two
function versions already parsed: a removed or moved parameter, a new required one or
a changed kind breaks callers (blocking); a changed default or return type deserves a
look (should-fix); a new optional parameter breaks nobody who calls the function, but
does break a replacement that callers now pass it to.

Pure: function ASTs in, records out (griffe reads the source text we hand it, never
the file system).
"""

from __future__ import annotations

import ast
import logging
from dataclasses import dataclass
from pathlib import Path

import griffe

from agentops.scout.analyses import pysource as ps

_NAME = "target"
_BLOCKING = {
    griffe.BreakageKind.PARAMETER_REMOVED: "removed",
    griffe.BreakageKind.PARAMETER_MOVED: "moved",
    griffe.BreakageKind.PARAMETER_ADDED_REQUIRED: "added as required",
    griffe.BreakageKind.PARAMETER_CHANGED_KIND: "changed kind",
    griffe.BreakageKind.PARAMETER_CHANGED_REQUIRED: "became required",
}
_SHOULD_FIX = {
    griffe.BreakageKind.PARAMETER_CHANGED_DEFAULT: "default changed",
    griffe.BreakageKind.RETURN_CHANGED_TYPE: "return type changed",
}
logging.getLogger("griffe").setLevel(logging.ERROR)


@dataclass(frozen=True)
class Breakage:
    param: str  # "" for the return type
    what: str  # "removed" | "moved" | "added as required" | … | "added (optional)"
    severity: str  # blocking | should-fix | nice-to-have
    detail: str = ""  # "1 -> 2" for a default

    def text(self) -> str:
        name = f"`{self.param}` " if self.param else ""
        return f"{name}{self.what}" + (f" ({self.detail})" if self.detail else "")


def _module(func: ps.FuncDef) -> griffe.Module:
    """A one-function module griffe can read: the signature only, under a public name
    (griffe compares public members; ``_token_dispatch`` would be skipped)."""
    stub = ast.FunctionDef(name=_NAME, args=func.args, body=[ast.Pass()], decorator_list=[],
                           returns=func.returns, type_params=[])
    code = ast.unparse(ast.fix_missing_locations(ast.Module(body=[stub], type_ignores=[])))
    return griffe.visit("scout_sig", Path("scout_sig.py"), code + "\n")


def breakages(old: ps.FuncDef, new: ps.FuncDef) -> list[Breakage]:
    """What changed from ``old`` to ``new``, as it affects code that calls ``old``'s
    signature; most severe first."""
    out: list[Breakage] = []
    try:
        found = list(griffe.find_breaking_changes(_module(old), _module(new)))
    except Exception:
        found = []
    for b in found:
        param = getattr(b.old_value, "name", "") or getattr(b.new_value, "name", "")
        if b.kind in _BLOCKING:
            out.append(Breakage(param, _BLOCKING[b.kind], "blocking"))
        elif b.kind in _SHOULD_FIX:
            detail = ""
            if b.kind == griffe.BreakageKind.PARAMETER_CHANGED_DEFAULT:
                detail = f"{b.old_value.default} -> {b.new_value.default}"
            out.append(Breakage("" if b.kind == griffe.BreakageKind.RETURN_CHANGED_TYPE
                                else param, _SHOULD_FIX[b.kind], "should-fix", detail))
    before = set(ps.param_names(old))
    for name in ps.param_names(new):
        if name not in before and not name.startswith("*") \
                and not any(b.param == name for b in out):
            out.append(Breakage(name, "added (optional)", "nice-to-have"))
    if not found and not out:
        # Sanity: griffe saw nothing (or failed) but the parameter lists differ.
        gone = [p for p in before if p not in ps.param_names(new) and not p.startswith("*")]
        out += [Breakage(p, "removed", "blocking") for p in gone]
    order = {"blocking": 0, "should-fix": 1, "nice-to-have": 2}
    return sorted(dict.fromkeys(out), key=lambda b: (order[b.severity], b.param))


def worst(found: list[Breakage]) -> str:
    """The most severe severity among ``found`` ("" when empty)."""
    return found[0].severity if found else ""


def accepts_anything(func: ps.FuncDef) -> bool:
    """``def f(self, *args, **kwargs)``: takes whatever callers pass."""
    return func.args.vararg is not None and func.args.kwarg is not None


def forwards_everything(func: ps.FuncDef) -> bool:
    """A wrapper that takes ``*args, **kwargs`` and passes both on to a call."""
    if not accepts_anything(func):
        return False
    va, kw = func.args.vararg.arg, func.args.kwarg.arg  # type: ignore[union-attr]
    for node in ast.walk(func):
        if isinstance(node, ast.Call):
            star = any(isinstance(a, ast.Starred) and isinstance(a.value, ast.Name)
                       and a.value.id == va for a in node.args)
            dstar = any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kw
                        for k in node.keywords)
            if star and dstar:
                return True
    return False
