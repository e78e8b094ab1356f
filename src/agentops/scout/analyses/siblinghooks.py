"""Registrations the sibling folders make and the sub-project does not (#22, sibling
parity): a model folder that builds its spec with ``post_optimizer_build_fn=None``, with
another function in a slot (``build_optimizers_fn=build_optimizers``), or without the
keyword at all, while the sibling folders register a repository function there (an MoE
model without the expert-bias update its MoE siblings register; a spec without the
validator builder its siblings wire).

For each call in the sub-project passing keywords, the calls to the same callee (the same
imported name) in the folders beside it (``models/<name>`` with the other ``models/*``)
are read. When at least two siblings pass the same name for a keyword the sub-project
passes ``None``, passes another plain name, or leaves out, and that name resolves
(through the sibling's imports) to a function the repository defines, the function's
body tells what it is about. Three forms:

- *none* and *other*: the finding needs a *marker*: an attribute the function reads
  (``moe_enabled``) that every sibling passing it spells, that the sub-project spells,
  and that fewer than half of the other siblings calling the same callee (passing
  ``None``, another value, or nothing there) spell. A dense model, whose dense siblings
  also pass ``None`` or the plain function, has no marker; an MoE model does. The
  sub-project's explicit value is a visible choice, so agreement alone is not enough.
- *left out*: a keyword the call never names is no visible choice; the finding needs a
  marker, or the siblings passing the function being a majority of the siblings calling
  the callee.

- *other*, also without a marker: the sub-project's function (one the repository
  defines) cannot take what the siblings' function takes, so the caller of the slot,
  written for the siblings' function, hands it the wrong thing: at some position of the
  required parameters both are annotated with different types (``model_id: str`` where
  the siblings' builder takes ``job_config: JobConfig``), or it requires more arguments
  than the siblings' function has. A difference the caller never sees (names alone,
  an unannotated side) is no reason.

A call with ``**kwargs`` is not judged (the keyword may be in it). An Opportunity, never
an action: the sibling's reason may not apply. Pure: the HEAD tree in, ``MissingHook``
records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.siblingguards import MIN_SIBLINGS, sibling_folders
from agentops.scout.model import Inputs

MAX_FINDINGS = 10
_WORD = re.compile(r"[A-Za-z_]\w*")

# What the sub-project has in the slot: an explicit ``None``, another name, nothing.
NONE, OTHER, LEFT_OUT = "none", "other", "left out"


@dataclass(frozen=True)
class MissingHook:
    file: str  # the sub-project's call
    line: int
    callee: str  # last part of the called name (``ModelSpec``)
    keyword: str  # ``post_optimizer_build_fn``
    value: str  # what the siblings pass (``register_moe_load_balancing_hook``)
    defined: str  # file:line of that function
    markers: tuple[str, ...]  # what the function reads that the sub-project has
    siblings: tuple[str, ...]  # file:line of each sibling's call
    form: str = NONE  # NONE | OTHER | LEFT_OUT
    ours: str = ""  # the name the sub-project passes there (form OTHER)
    calling: int = 0  # siblings calling the callee at all
    differs: str = ""  # form OTHER without a marker: how the two signatures disagree


@dataclass(frozen=True)
class _Call:
    path: str
    line: int
    callee: str  # last part of the called name
    key: tuple[str, str]  # ("imported", dotted name as imported) or ("", callee)
    values: dict[str, tuple[str, str]]  # keyword -> (name or "None" or "", module)
    spread: bool  # passes ``**kwargs``


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _py(files: dict[str, str], folder: str) -> list[tuple[str, str]]:
    return [(p, t) for p, t in sorted(files.items())
            if p.startswith(folder) and p.endswith(".py")
            and "/tests/" not in p and not p.rsplit("/", 1)[-1].startswith("test_")]


def _calls(files: list[tuple[str, str]], wanted: set[str] | None = None) -> list[_Call]:
    """Every call passing keywords (of a callee in ``wanted`` when given)."""
    out = []
    for path, text in files:
        if wanted is not None and not any(w in text for w in wanted):
            continue
        mod = ps.parse(text)
        if mod is None:
            continue
        imported = ps.imports(mod)
        for node in ps.nodes(mod):
            if not (isinstance(node, ast.Call) and node.keywords):
                continue
            callee = _callee(node)
            if not callee or (wanted is not None and callee not in wanted):
                continue
            chain = ps.name_chain(node.func)
            module, orig = imported.get(chain[0], ("", "")) if chain else ("", "")
            # The dotted name as imported (a re-export under another module path is the
            # same class); a local name is every folder's own.
            key = ("imported", ".".join([orig or chain[0], *chain[1:]])) if module \
                else ("", callee)
            values: dict[str, tuple[str, str]] = {}
            for k in node.keywords:
                if not k.arg:
                    continue
                if isinstance(k.value, ast.Constant) and k.value.value is None:
                    values[k.arg] = ("None", "")
                elif isinstance(k.value, ast.Name):
                    m, o = imported.get(k.value.id, ("", ""))
                    values[k.arg] = (o or k.value.id, m)
                else:
                    values[k.arg] = ("", "")
            out.append(_Call(path, node.lineno, callee, key, values,
                             any(k.arg is None for k in node.keywords)))
    return out


def _definition(files: dict[str, str], paths: frozenset[str], module: str, name: str
                ) -> tuple[str, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    path = ps.module_path(module, paths) if module else None
    if path is None:
        return None
    mod = ps.parse(files.get(path))
    for node in mod.body if mod is not None else ():
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return path, node
    return None


def _required(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    """Positional parameters without a default (``self``/``cls`` of a method left off)."""
    params = [*fn.args.posonlyargs, *fn.args.args]
    params = params[:len(params) - len(fn.args.defaults)]
    return params[1:] if params and params[0].arg in ("self", "cls") else params


def _type(annotation: ast.expr | None) -> str:
    """Last part of an annotation's name (``cm.JobConfig`` → ``JobConfig``), or ""."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.rsplit(".", 1)[-1]
    if isinstance(annotation, (ast.Name, ast.Attribute)):
        return ps.name_chain(annotation)[-1] if ps.name_chain(annotation) else ""
    return ""


def _disagrees(ours: ast.FunctionDef | ast.AsyncFunctionDef,
               theirs: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """How a call written for ``theirs`` cannot bind ``ours``: a required parameter
    annotated with another type at the same position, or more required arguments than
    ``theirs`` has; "" when nothing the caller sees differs."""
    mine, other = _required(ours), _required(theirs)
    for a, b in zip(mine, other, strict=False):
        ta, tb = _type(a.annotation), _type(b.annotation)
        if ta and tb and ta != tb:
            return f"takes `{a.arg}: {ta}` where `{theirs.name}` takes `{b.arg}: {tb}`"
    positional = len([*theirs.args.posonlyargs, *theirs.args.args])
    if len(mine) > positional and theirs.args.vararg is None:
        return f"requires {len(mine)} arguments where `{theirs.name}` takes {positional}"
    return ""


def _reads(fn: ast.AST) -> set[str]:
    """Specific attribute names the function reads (``moe_enabled``, not ``values``)."""
    return {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute)
            and "_" in n.attr.strip("_")}


def analyse(inp: Inputs) -> list[MissingHook]:
    sub = inp.target.subproject.rstrip("/")
    parent, siblings = sibling_folders(inp)
    if not siblings:
        return []
    files = inp.head.files
    ours = _py(files, sub + "/")
    mine = [c for c in _calls(ours) if not c.spread]
    if not mine:
        return []
    wanted = {c.callee for c in mine}
    theirs = {s: _py(files, f"{parent}/{s}/") for s in siblings}
    their_calls = {s: _calls(t, wanted) for s, t in theirs.items()}
    words: dict[str, set[str]] = {}

    def spelled(folder: str, texts: list[tuple[str, str]]) -> set[str]:
        if folder not in words:
            words[folder] = {w for _p, t in texts for w in _WORD.findall(t)}
        return words[folder]

    out: list[MissingHook] = []
    seen: set[tuple[tuple[str, str], str]] = set()
    for call in mine:
        # The slots the siblings fill with a name, for calls of the same callee.
        by_sibling = {s: [c for c in cs if c.key == call.key] for s, cs in their_calls.items()}
        by_sibling = {s: cs for s, cs in by_sibling.items() if cs}
        if len(by_sibling) < MIN_SIBLINGS:
            continue
        slots = sorted({k for cs in by_sibling.values() for c in cs
                        for k, (v, m) in c.values.items() if m and v != "None"})
        for keyword in slots:
            mine_value = call.values.get(keyword)
            if mine_value is None:
                form = LEFT_OUT
            elif mine_value[0] == "None":
                form = NONE
            elif mine_value[0]:
                form = OTHER
            else:
                continue  # an expression of its own: a choice we cannot compare
            # A module-less callee (a local name) is compared as before, for None only.
            if form != NONE and not call.key[0]:
                continue
            if (call.key, keyword) in seen:
                continue
            by_value: dict[tuple[str, str], list[tuple[str, str]]] = {}
            for s, cs in sorted(by_sibling.items()):
                named = [c for c in cs if c.values.get(keyword, ("", ""))[1]
                         and c.values[keyword][0] != "None"]
                for c in named[:1]:
                    by_value.setdefault(c.values[keyword], []).append((s, f"{c.path}:{c.line}"))
            for (value, module), holders in sorted(by_value.items()):
                if len(holders) < MIN_SIBLINGS or (form == OTHER and mine_value == (value, module)):
                    continue
                if form == OTHER and mine_value[0] == value:
                    continue
                found = _definition(files, inp.head.paths, module, value)
                if found is None:
                    continue
                def_path, fn = found
                held = {s for s, _at in holders}
                others = [s for s in by_sibling if s not in held]
                reads = _reads(fn)
                for s in held:
                    reads &= spelled(s, theirs[s])
                reads &= spelled(sub, ours)
                # A marker: what the other siblings mostly lack (the feature the
                # function serves), not what every model spells.
                markers = sorted(m for m in reads if not others or 2 * sum(
                    m in spelled(n, theirs[n]) for n in others) < len(others))
                majority = 2 * len(holders) > len(by_sibling)
                differs = ""
                if not markers and form == OTHER and mine_value[1]:
                    own = _definition(files, inp.head.paths, mine_value[1], mine_value[0])
                    differs = _disagrees(own[1], fn) if own else ""
                if not markers and not (form == LEFT_OUT and majority) and not differs:
                    continue
                seen.add((call.key, keyword))
                out.append(MissingHook(
                    call.path, call.line, call.callee, keyword, value,
                    f"{def_path}:{fn.lineno}", tuple(markers[:4]),
                    tuple(at for _s, at in holders), form,
                    mine_value[0] if form == OTHER and mine_value else "", len(by_sibling),
                    differs))
                if len(out) >= MAX_FINDINGS:
                    return out
    return out
