"""Paths two settings select together that no single test case sets together (#22
defect 10, untested configuration), the pair reading of ``settingbranches``:

- an ``if`` of the folder's code on a degree property of a typed parameter
  (``if parallel_dims.tp_enabled:``, a property ``return self.tp > 1`` of a class the
  repository builds with ``tp=<x>.tensor_parallel_degree``), and inside its body a read
  of a second setting: a field of a ``*Config`` parameter (``parallelism.flag``) or
  another degree property;
  or a local bound once in the function from a field of the model's arguments
  (``kind = getattr(model.args, "kind", "plain")``, ``kind = model.args.kind``) that an
  entry of one of the folder's flavor tables sets (``{"small_x": Args(kind="x")}``);
- the folder's integration cases set each of the two somewhere (so both are live
  settings and ``settingbranches`` is silent), but no one case sets both: the body's
  handling of the second setting under the first runs on no CI job;
- or no live case sets both while a case written out and then commented out (a block of
  comment lines in a test file that runs the folder — the folder's own test files, or a
  shared one whose live cases launch it — that parses as an ``OverrideDefinitions``
  call) sets both: the one case meant for that combination is disabled, and it is named.
  The folder's own test files count as cases here (their runner launches the folder).

A second setting read through a chain (``job_config.section.field`` on a ``*Config``
parameter) is the chain's last part, as ``parallelism.field`` is.

A case "sets" a degree when a flag of it names the setting with a value other than 1, or
the registry config or config file it loads assigns it one; it sets a field when a flag
of it names the field (``--section.field v``, ``--section.no-field``) or what it loads
assigns it; it sets a flavor field when it names (a flag value, or a quoted string of
the config it loads) a flavor whose entry sets the field. An Opportunity, one per target,
each pair with ``file:line``.

Pure: the HEAD tree in, ``SettingPair`` records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import settingbranches as sb
from agentops.scout.analyses import testowner
from agentops.scout.model import Inputs

_MAX_CONDITION = 80


@dataclass(frozen=True)
class SettingPair:
    file: str
    line: int  # the outer ``if``
    inner_line: int  # the read of the second setting
    outer: str  # the outer condition as written
    outer_settings: str  # "tensor_parallel_degree"
    inner: str  # the second read as written: parallelism.enable_sequence_parallel
    inner_settings: str  # "enable_sequence_parallel"
    disabled: str = ""  # file:line of the commented-out case that set both, if that form


@dataclass(frozen=True)
class Found:
    pairs: tuple[SettingPair, ...]
    cases: int  # how many cases of the folder were read


def _norm(flag: str) -> str:
    name = flag.replace("-", "_")
    return name.removeprefix("no_")


def flavor_fields(sub: str, files: dict[str, str]) -> dict[str, set[str]]:
    """Field → the flavors (keys of a dict literal of the folder whose values are calls)
    whose entry passes it as a keyword constant."""
    out: dict[str, set[str]] = {}
    for path, text in files.items():
        if not (path.startswith(sub) and path.endswith(".py")) or "{" not in text \
                or testowner.in_test_folder(path):
            continue
        mod = ps.parse(text)
        for node in ps.nodes(mod) if mod is not None else ():
            if not isinstance(node, ast.Dict):
                continue
            for k, v in zip(node.keys, node.values, strict=True):
                if isinstance(k, ast.Constant) and isinstance(k.value, str) \
                        and isinstance(v, ast.Call):
                    for kw in v.keywords:
                        if kw.arg and isinstance(kw.value, ast.Constant):
                            out.setdefault(kw.arg, set()).add(k.value)
    return out


def _names_flavor(case: tuple[dict[str, set[str]], str], flavors: set[str]) -> bool:
    flags, text = case
    return any(v in flavors for vals in flags.values() for v in vals) or any(
        re.search(rf"[\"']{re.escape(f)}[\"']", text) for f in flavors)


def _case_sets(case: tuple[dict[str, set[str]], str], names: tuple[str, ...], *,
               degree: bool) -> bool:
    flags, text = case
    for k, vals in flags.items():
        if _norm(k) in names and (not degree or any(v not in ("1", "") for v in vals)):
            return True
    return _text_sets(text, names, degree)


@lru_cache(maxsize=65_536)
def _text_sets(text: str, names: tuple[str, ...], degree: bool) -> bool:
    """Whether the configs a case loads assign one of ``names`` (a degree: other than
    1). Memoized: each read of each ``if`` body asks it of every case, and cases share
    their configs (150 cases loading one 2,000-line file took 240 s on two made-up
    files of 40 plans)."""
    for n in names:
        for m in re.finditer(rf"\b{re.escape(n)}\s*[=:]\s*([^\s,)]+)", text):
            if not degree or m.group(1).strip("\"'") != "1":
                return True
    return False


def _function_pairs(inp: Inputs, path: str, fn: ps.FuncDef, cases,
                    flavors: dict[str, set[str]], *, props: dict[str, dict[str, str]],
                    built: dict[str, dict[str, tuple[str, ...]]],
                    disabled: tuple[tuple[str, dict[str, set[str]]], ...] = (),
                    setters_of: dict[tuple[tuple[str, ...], bool], list] | None = None
                    ) -> list[SettingPair]:
    # The cases that set a second setting, per setting: the same for every read of it.
    setters_of = {} if setters_of is None else setters_of
    typed, configs = sb.typed_params(fn)
    # A local bound exactly once, from a flavor field: ``getattr(x, "f", d)`` or ``x.f``.
    binds = sb.plain_binds(fn)
    local_field: dict[str, str] = {}
    for name, vals in binds.items():
        v = vals[0]
        if len(vals) != 1:
            continue
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "getattr" \
                and len(v.args) >= 2 and isinstance(v.args[1], ast.Constant):
            field = str(v.args[1].value)
        elif isinstance(v, ast.Attribute) and not (isinstance(v.value, ast.Name)
                                                   and v.value.id in configs):
            field = v.attr
        else:
            continue
        if field in flavors:
            local_field[name] = field

    def degree(node: ast.expr) -> tuple[str, ...]:
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
            return ()
        cls = typed.get(node.value.id, "")
        if not cls or cls.endswith("Config"):
            return ()
        if cls not in props:
            props[cls] = sb._degree_properties(inp, cls)
        keyword = props[cls].get(node.attr)
        if not keyword:
            return ()
        if cls not in built:
            built[cls] = sb._constructions(inp, cls)
        return built[cls].get(keyword, ())

    out: list[SettingPair] = []
    for st in ps.statements(fn):
        if not isinstance(st, ast.If):
            continue
        outer = degree(st.test)
        if not outer or not any(_case_sets(c, outer, degree=True) for c in cases):
            continue
        seen: set[str] = set()
        body = [n for b in st.body for n in ast.walk(b)]
        # ``cfg.section`` as the holder of ``cfg.section.field`` is no setting of its own.
        holders = {id(n.value) for n in body if isinstance(n, ast.Attribute)}
        for node in body:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) \
                    and node.id in local_field:
                field = local_field[node.id]
                inner, key = (field,), node.id
                if key in seen:
                    continue
                seen.add(key)
                setters = [c for c in cases if _names_flavor(c, flavors[field])]
                if setters and not any(_case_sets(c, outer, degree=True) for c in setters):
                    shown = ", ".join(sorted(flavors[field])[:3])
                    out.append(SettingPair(path, st.lineno, node.lineno,
                                           ast.unparse(st.test)[:_MAX_CONDITION],
                                           " or ".join(outer), key,
                                           f"{field} (flavors {shown})"))
                continue
            if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)) \
                    or id(node) in holders:
                continue
            root = node.value
            if isinstance(root, ast.Attribute) and isinstance(root.value, ast.Name) \
                    and root.value.id in configs:
                inner, is_degree = (node.attr,), False  # cfg.section.field
            elif not isinstance(root, ast.Name):
                continue
            elif root.id in configs:
                inner, is_degree = (node.attr,), False
            else:
                inner, is_degree = degree(node), True
            key = ast.unparse(node)
            if not inner or set(inner) & set(outer) or key in seen:
                continue
            seen.add(key)
            if (inner, is_degree) not in setters_of:
                setters_of[(inner, is_degree)] = [
                    c for c in cases if _case_sets(c, inner, degree=is_degree)]
            setters = setters_of[(inner, is_degree)]
            if any(_case_sets(c, outer, degree=True) for c in setters):
                continue
            off = "" if setters else next(
                (where for where, flags in disabled
                 if _case_sets((flags, ""), outer, degree=True)
                 and _case_sets((flags, ""), inner, degree=is_degree)), "")
            if not setters and not off:
                continue
            out.append(SettingPair(path, st.lineno, node.lineno,
                                   ast.unparse(st.test)[:_MAX_CONDITION], " or ".join(outer),
                                   key[:_MAX_CONDITION], " or ".join(inner), off))
    return out


_COMMENT = re.compile(r"^[ \t]*#[ ]?(.*)$")
_MAX_CASE_LINES = 40  # a case longer than this is not read back from its comment
_MAX_CASE_CHARS = 4_000  # nor one of more characters (a real case: under 1,000)
_MAX_DISABLED = 50  # commented-out cases read per file
# Characters parsed per file in all the tries above: each start parses every longer
# run that ends in ``)``, so a file of hostile comment blocks (50 starts, 39 long lines
# each that never parse) took 250 s; real files spend a few thousand.
_MAX_PARSED_CHARS = 200_000


def _flags(call: ast.Call) -> dict[str, set[str]]:
    return sb.flags_of(sb.case_pairs(call))


def _commented_cases(path: str, text: str) -> list[tuple[str, ast.Call]]:
    """(``file:line``, call) of each ``OverrideDefinitions`` call written out in a block of
    comment lines: from each comment line naming it, the shortest run of the following
    comment lines (at most ``_MAX_CASE_LINES``) that parses once the comment marks and a
    trailing comma are taken off; a case that never parses, or is longer than
    ``_MAX_CASE_CHARS``, says nothing, and a file stops being read once its tries have
    parsed ``_MAX_PARSED_CHARS``. Text only, never run."""
    out: list[tuple[str, ast.Call]] = []
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines)
              if "OverrideDefinitions" in line and _COMMENT.match(line)]
    budget = _MAX_PARSED_CHARS
    for i in starts[:_MAX_DISABLED]:
        block: list[str] = []
        size = 0
        for other in lines[i:i + _MAX_CASE_LINES]:
            mm = _COMMENT.match(other)
            size += len(other) + 1
            if mm is None or size > _MAX_CASE_CHARS:
                break
            block.append(mm.group(1))
            piece = "\n".join(block).strip().rstrip(",")
            if not piece.endswith(")"):
                continue
            budget -= len(piece)
            if budget < 0:
                return out
            calls = sb.override_calls(ps.parse(piece))
            if calls:
                out.append((f"{path}:{i + 1}", calls[0]))
                break
    return out


def disabled_cases(inp: Inputs, run: sb.Runs) -> tuple[tuple[str, dict[str, set[str]]], ...]:
    """``file:line`` and flags of each commented-out case of a test file that runs the
    folder: its own test files, and the shared files whose live cases launch it."""
    sub = inp.target.subproject.rstrip("/") + "/"
    out: list[tuple[str, dict[str, set[str]]]] = []
    for path, text in sorted(inp.head.files.items()):
        if not path.endswith(".py") or "OverrideDefinitions" not in text:
            continue
        own = path.startswith(sub) and testowner.in_test_folder(path)
        if not own and path not in run.cases:
            continue
        for where, call in _commented_cases(path, text):
            flags = _flags(call)
            if own or _launches(flags, inp):
                out.append((where, flags))
    return tuple(out)


def _launches(flags: dict[str, set[str]], inp: Inputs) -> bool:
    """A shared case that names the folder (its module, or a config of its registry)."""
    folder = inp.target.subproject.rstrip("/").rsplit("/", 1)[-1]
    configs = sb._registry_functions(
        inp, f"{inp.target.subproject.rstrip('/')}/{sb._registry_name(inp)}")
    return folder in flags.get("module", set()) | flags.get("name", set()) or bool(
        flags.get("config", set()) & set(configs))


def own_cases(inp: Inputs) -> tuple[tuple[dict[str, set[str]], str], ...]:
    """Each live ``OverrideDefinitions`` case of the folder's own test files."""
    sub = inp.target.subproject.rstrip("/") + "/"
    out: list[tuple[dict[str, set[str]], str]] = []
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith(".py")
                and testowner.in_test_folder(path)) or "OverrideDefinitions" not in text:
            continue
        for call in sb.override_calls(ps.parse(text)):
            if not sb._disabled(call):
                out.append((_flags(call), ""))
    return tuple(out)


def analyse(inp: Inputs) -> Found:
    sub = inp.target.subproject.rstrip("/") + "/"
    candidates = [p for p, t in sorted(inp.head.files.items())
                  if p.startswith(sub) and p.endswith(".py")
                  and not testowner.in_test_folder(p) and "_enabled" in t and "if " in t]
    if not candidates:
        return Found((), 0)
    run = sb.runs(inp)
    cases = run.per_case + own_cases(inp)
    if len(cases) < 2:
        return Found((), len(cases))
    disabled = disabled_cases(inp, run)
    props: dict[str, dict[str, str]] = {}
    built: dict[str, dict[str, tuple[str, ...]]] = {}
    flavors = flavor_fields(sub, inp.head.files)
    out: list[SettingPair] = []
    setters_of: dict[tuple[tuple[str, ...], bool], list] = {}
    for path in candidates:
        mod = ps.parse(inp.head.files[path])
        for node in ps.nodes(mod) if mod is not None else ():
            if isinstance(node, ps.FuncDef.__args__):
                out += _function_pairs(inp, path, node, cases, flavors, props=props,
                                       built=built, disabled=disabled, setters_of=setters_of)
    return Found(tuple(sorted(set(out), key=lambda p: (p.file, p.line, p.inner_line))),
                 len(cases))
