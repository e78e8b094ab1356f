"""S-5 docs checked against the code, beyond paths and flags: ``Class.attr`` /
``Class.Config.field`` named in backticks, counted claims ("two compilation modes")
against the ``Literal`` of the matching config field, a feature/support table against
what the sub-project's own code and tests show, and the graph passes, models and test
runners that no doc mentions.

Pure: reads the loaded tree and the results of other analyses; returns records.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from agentops.scout.analyses import classindex
from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.classindex import ClassIndex
from agentops.scout.model import Inputs

_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10}
_COUNT = re.compile(r"\b(one|two|three|four|five|six|seven|eight|nine|ten|\d{1,2})\s+"
                    r"((?:[A-Za-z][\w-]*\s+){0,2}?)([a-z]+s)\b", re.I)
_DOTTED = re.compile(r"`([A-Z]\w*(?:\.\w+)+)(?:\(\))?`")
_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
_YES, _NO = ("✅",), ("🚧", "❌", "⚠️", "⛔")
_STOP = {"and", "or", "the", "of", "with", "for", "training", "support", "a", "+"}


@dataclass(frozen=True)
class Claim:
    file: str
    line: int
    problem: str
    kind: str  # "attribute" | "count" | "table" | "undocumented"


def lines(text: str) -> Iterator[tuple[int, str, bool]]:
    """(line number, line, inside a fenced code block)."""
    in_code = False
    for n, raw in enumerate(text.splitlines(), 1):
        if raw.lstrip().startswith("```"):
            in_code = not in_code
            continue
        yield n, raw, in_code


# --- Class.attr in backticks ----------------------------------------------------------------

def members(cls: ast.ClassDef, idx: ClassIndex) -> set[str] | None:
    """Names a class has, its bases' included (``None`` when a base is not in the
    repository)."""
    return _members(cls, idx)


def _members(cls: ast.ClassDef, idx: ClassIndex, depth: int = 0) -> set[str] | None:
    """Names a class has: fields, class attributes, methods, nested classes, ``self.x``
    attributes, and its bases' (``None`` when a base is not in the repository)."""
    out: set[str] = set()
    for node in cls.body:
        if isinstance(node, (ast.ClassDef, *ps.FuncDef.__args__)):
            out.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
        elif isinstance(node, ast.Assign):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    for node in ps.walk(cls):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "self" and isinstance(node.ctx, ast.Store):
            out.add(node.attr)
    for base in cls.bases:
        src = ast.unparse(base)
        if src in ("object", "ABC") or src.startswith(("Generic", "Protocol", "Enum")):
            continue
        resolved = idx.resolve(src.split("[")[0])
        if not resolved or depth > 5:
            return None
        for b in resolved:
            more = _members(b, idx, depth + 1)
            if more is None:
                return None
            out |= more
    return out


def not_settable(classes: list[ast.ClassDef], name: str, idx: ClassIndex,
                 depth: int = 0) -> str | None:
    """Why ``name`` of these (config) classes cannot be set, or None: a read-only
    ``@property`` (or ``cached_property``), or a field declared ``field(init=False)``
    (derived in ``__post_init__``). Bases in the repository are followed."""
    for cls in classes:
        for node in cls.body:
            if isinstance(node, ps.FuncDef.__args__) and node.name == name and any(
                    ast.unparse(d).split(".")[-1] in ("property", "cached_property")
                    for d in node.decorator_list):
                setter = any(isinstance(n, ps.FuncDef.__args__) and n.name == name and any(
                    ast.unparse(d).endswith(f"{name}.setter") for d in n.decorator_list)
                    for n in cls.body)
                return None if setter else "a read-only property"
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                    and node.target.id == name and isinstance(node.value, ast.Call) and any(
                    k.arg == "init" and isinstance(k.value, ast.Constant)
                    and k.value.value is False for k in node.value.keywords):
                return "derived (field(init=False)), not an input"
        if depth < 4:
            bases = [c for b in cls.bases for c in idx.resolve(ast.unparse(b).split("[")[0])]
            why = not_settable(bases, name, idx, depth + 1) if bases else None
            if why:
                return why
    return None


def _lineage(classes: list[ast.ClassDef], idx: ClassIndex, depth: int = 0
             ) -> list[ast.ClassDef]:
    """The classes and their bases in the repository, nearest first."""
    out = list(classes)
    if depth < 4:
        for cls in classes:
            bases = [c for b in cls.bases for c in idx.resolve(ast.unparse(b).split("[")[0])]
            out += [b for b in _lineage(bases, idx, depth + 1) if b not in out]
    return out


def _self_reads(node: ast.AST) -> list[str]:
    return list(dict.fromkeys(
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Name) and n.value.id == "self"
        and isinstance(n.ctx, ast.Load)))


def computed_from(classes: list[ast.ClassDef], name: str, idx: ClassIndex) -> list[str]:
    """The settable fields a read-only ``name`` is computed from: the ``self.x`` a
    property's body reads (through other properties), or that the ``__post_init__``
    assignment of a ``field(init=False)`` reads. Empty when none is found."""
    chain = _lineage(classes, idx)
    fields = idx.fields(classes) or {}

    def props(n: str) -> ast.AST | None:
        for cls in chain:
            for node in cls.body:
                if isinstance(node, ps.FuncDef.__args__) and node.name == n and any(
                        ast.unparse(d).split(".")[-1] in ("property", "cached_property")
                        for d in node.decorator_list):
                    return node
        return None

    def post_init(n: str) -> list[ast.AST]:
        return [a.value for cls in chain for node in cls.body
                if isinstance(node, ps.FuncDef.__args__) and node.name == "__post_init__"
                for a in ast.walk(node) if isinstance(a, (ast.Assign, ast.AnnAssign))
                and any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                        and t.value.id == "self" and t.attr == n
                        for t in (a.targets if isinstance(a, ast.Assign) else [a.target]))
                and a.value is not None]

    out: list[str] = []
    seen = {name}
    todo = [name]
    while todo:
        cur = todo.pop(0)
        body = props(cur)
        sources = [body] if body is not None else post_init(cur)
        for src in sources:
            for read in _self_reads(src):
                if read in seen:
                    continue
                seen.add(read)
                if read in fields and not_settable(classes, read, idx) is None:
                    out.append(read)
                elif props(read) is not None or post_init(read):
                    todo.append(read)
    return out


def settable_fix(classes: list[ast.ClassDef], name: str, idx: ClassIndex,
                 prefix: str = "") -> str:
    """"set `a`, `b` (what it is computed from)" for a read-only ``name``, or a plain
    "drop it" when its inputs cannot be told."""
    inputs = computed_from(classes, name, idx)
    if inputs:
        return ("set what it is computed from instead: "
                + ", ".join(f"`{prefix}{i}`" for i in inputs))
    return "drop it, or set the fields it is derived from"


def _is_config(cls: ast.ClassDef, name: str) -> bool:
    return name.endswith("Config") or any(
        ast.unparse(d).split("(")[0].split(".")[-1] == "dataclass" for d in cls.decorator_list)


def attribute_problem(ref: str, idx: ClassIndex) -> str | None:
    """``Trainer.Config.steps``: the first part that does not exist, or None (also
    when the class is not in the repository: nothing can be said)."""
    parts = ref.split(".")
    classes = idx.resolve(parts[0])
    if len(classes) != 1:
        return None
    cls = classes[0]
    for i, part in enumerate(parts[1:], 1):
        members = _members(cls, idx)
        if members is None:
            return None
        if part not in members:
            close = difflib.get_close_matches(part, sorted(members), n=1, cutoff=0.8)
            return (f"`{ref}`: {'.'.join(parts[:i])} has no attribute {part!r}"
                    + (f"; use `{'.'.join(parts[:i])}.{close[0]}`" if close else ""))
        nested = next((n for n in cls.body if isinstance(n, ast.ClassDef) and n.name == part),
                      None)
        if nested is None:
            # A config's member named in docs is a setting: it must be settable.
            why = not_settable([cls], part, idx) if i == len(parts) - 1 and _is_config(
                cls, parts[i - 1]) else None
            if why:
                return (f"`{ref}` is {why} of {'.'.join(parts[:i])}, not a setting one "
                        f"can give; {settable_fix([cls], part, idx, '.'.join(parts[:i]) + '.')}")
            return None  # a field or method: what it holds is not followed further
        cls = nested
    return None


# --- counted claims -------------------------------------------------------------------------

def reachable_fields(idx: ClassIndex, roots: list[str], depth: int = 2
                      ) -> list[tuple[str, ast.AnnAssign]]:
    """(dotted path, field) of every config field reachable from the roots (computed
    once per index)."""
    key = (tuple(roots), depth)
    if key not in idx.memo:
        idx.memo[key] = _reachable(idx, roots, depth)
    return idx.memo[key]


def _reachable(idx: ClassIndex, roots: list[str], depth: int
               ) -> list[tuple[str, ast.AnnAssign]]:
    out: list[tuple[str, ast.AnnAssign]] = []
    frontier = [("", [c for r in roots for c in idx.resolve(r)])]
    seen: set[int] = set()
    for level in range(depth):
        nxt = []
        for prefix, classes in frontier:
            key = hash(tuple(id(c) for c in classes))
            if not classes or key in seen:
                continue
            seen.add(key)
            fields = idx.fields(classes) or {}
            for name, node in fields.items():
                path = f"{prefix}.{name}" if prefix else name
                out.append((path, node))
                if level + 1 < depth:  # the last level's types are never followed
                    types = idx.types_of(node)
                    if types:
                        nxt.append((path, types))
        frontier = nxt
    return out


def literal_values(field: ast.AnnAssign) -> list[object] | None:
    for node in ps.walk(field.annotation):
        if isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith("Literal"):
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return [e.value for e in elts if isinstance(e, ast.Constant)
                    and e.value is not None]
    return None


def _stem(word: str) -> str:
    return word.lower()[:5]


def count_problem(sentence: str, fields: list[tuple[str, ast.AnnAssign]]) -> str | None:
    """"Two compilation modes are supported" against the ``Literal`` of the one config
    field named like the noun (``mode``) whose path matches the qualifier
    (``compile.mode``)."""
    for m in _COUNT.finditer(sentence):
        word, quals, noun = m.group(1).lower(), m.group(2).split(), m.group(3).lower()
        count = _NUMBERS.get(word) or (int(word) if word.isdigit() else 0)
        singular = noun[:-1]
        cands = [(p, f) for p, f in fields if p.rsplit(".", 1)[-1] == singular
                 and literal_values(f)]
        if quals:
            stems = {_stem(q) for q in quals}
            cands = [(p, f) for p, f in cands
                     if any(_stem(part) in stems for part in p.split(".")[:-1])]
        if len(cands) != 1 or not count:
            continue
        path, field = cands[0]
        values = literal_values(field) or []
        if len(values) != count:
            return (f"says {m.group(0).strip()}, but `--{path}` accepts {len(values)}: "
                    + ", ".join(str(v) for v in values))
    return None


# --- feature/support tables -----------------------------------------------------------------

def _acronym(words: list[str]) -> str:
    return "".join(w[0] for w in words).lower() if len(words) > 1 else ""


def _feature_tokens(name: str) -> list[set[str]]:
    """Per ``+``-joined part, the tokens that stand for it (its acronym, or its words)."""
    parts = []
    for part in re.split(r"\s*\+\s*", name):
        words = [w for w in re.findall(r"[A-Za-z0-9]+", part) if w.lower() not in _STOP]
        acro = _acronym(words)
        parts.append({acro} if acro else {w.lower() for w in words})
    return parts


def table_problems(doc: str, text: str, gaps: dict[str, list[str]]) -> list[Claim]:
    """Rows marked supported whose own code path is known to skip the feature: a
    parallelism the sub-project's call sites leave out (``enable_cp`` omitted,
    ``apply_cp_to_attention_module`` never called); ``gaps`` maps a token (``cp``) to
    those call sites."""
    out: list[Claim] = []
    for n, raw, in_code in lines(text):
        m = _ROW.match(raw)
        if in_code or not m:
            continue
        cells = [c.strip() for c in m.group(1).split("|")]
        if len(cells) < 2 or not any(mark in cells[-1] for mark in _YES):
            continue
        parts = _feature_tokens(cells[0])
        if len(parts) != 1:
            continue
        hits = sorted({w for t in parts[0] for w in gaps.get(t, [])})
        if hits:
            out.append(Claim(doc, n, f"marks {cells[0]} ✅, but " + "; ".join(hits[:2])
                             + (f" (and {len(hits) - 2} more)" if len(hits) > 2 else ""),
                             "table"))
    return out


# --- what no doc mentions -------------------------------------------------------------------

def undocumented(inp: Inputs, texts: dict[str, str], *, passes: list[tuple[str, str, int]],
                 runners: list[str]) -> list[Claim]:
    """Registered graph passes, model folders and test runners no configured doc
    names (one claim per kind)."""
    allt = "\n".join(texts.values())
    first = next(iter(texts), "")
    out: list[Claim] = []

    def mentioned(*names: str) -> bool:
        return any(re.search(rf"(?<![\w-]){re.escape(x)}(?![\w-])", allt) for x in names if x)

    keys = _registry_keys(inp, {p[0] for p in passes})
    documents_passes = any(mentioned(*k) for k in keys.values())
    missing = [f"{name} (`{'`, `'.join(keys[name])}`)" for name, _f, _l in passes
               if documents_passes and keys.get(name) and not mentioned(name, *keys[name])]
    if missing:
        out.append(Claim(first, 0, f"{len(missing)} registered graph pass(es) no doc "
                         "mentions: " + ", ".join(missing), "undocumented"))
    tests = inp.target.tests_dir + "/"
    documents_tests = any(p.startswith(tests) and (p.rsplit("/", 1)[-1] in allt)
                          for p in inp.head.paths)
    lost = [r for r in runners if not mentioned(r.rsplit("/", 1)[-1],
                                                r.removesuffix(".py").replace("/", "."))]
    if lost and documents_tests:  # only docs that say how to run the tests miss a runner
        out.append(Claim(first, 0, "test runner(s) no doc mentions: "
                         + ", ".join(f"`{r}`" for r in lost), "undocumented"))
    models = _model_dirs(inp)
    bare = [m for m in models if not mentioned(m, f"{inp.target.subproject.rsplit('/', 1)[-1]}"
                                               f".{m}")]
    if bare:
        out.append(Claim(first, 0, "model folder(s) no doc mentions: "
                         + ", ".join(f"`{m}`" for m in bare), "undocumented"))
    return out


def _registry_keys(inp: Inputs, names: set[str]) -> dict[str, list[str]]:
    """Pass function → the string keys dict literals in the sub-project map to it
    (``{"auto_bucketing": autobucketing_reordering_pass}``)."""
    out: dict[str, list[str]] = {}
    sub = inp.target.subproject + "/"
    for path, text in inp.head.files.items():
        if not path.startswith(sub) or not path.endswith(".py") \
                or not any(n in text for n in names):
            continue
        mod = ps.parse(text)
        for node in ps.nodes(mod) if mod is not None else ():
            if isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values, strict=False):
                    if isinstance(k, ast.Constant) and isinstance(k.value, str) \
                            and isinstance(v, ast.Name) and v.id in names:
                        out.setdefault(v.id, []).append(k.value)
    return out


def _model_dirs(inp: Inputs) -> list[str]:
    """Sub-project folders that mirror an upstream model folder (``models_dir``) and
    hold a config registry: the models the sub-project supports."""
    name = inp.target.section("coverage").get("config_registry_name", "")
    models = str(inp.target.raw.get("models_dir", "")).rstrip("/")
    if not name or not models:
        return []
    upstream = {p[len(models) + 1:].split("/", 1)[0] for p in inp.head.paths
                if p.startswith(models + "/")}
    sub = inp.target.subproject + "/"
    return sorted({p[len(sub):].split("/", 1)[0] for p in inp.head.paths
                   if p.startswith(sub) and p.endswith("/" + name)
                   and p[len(sub):].count("/") == 1} & upstream)


def check(inp: Inputs, *, gaps: dict[str, list[str]], passes: list[tuple[str, str, int]],
          runners: list[str]) -> list[Claim]:
    """Every claim check over the configured docs that exist at HEAD."""
    idx = classindex.for_tree(inp.head)
    roots = [s["name"] for s in inp.target.raw.get("doc_config_roots", [])]
    fields = reachable_fields(idx, roots) if roots else []
    texts = {d: t for d in inp.target.docs if (t := inp.head.text(d)) is not None}
    out: list[Claim] = []
    for doc, text in texts.items():
        for n, raw, in_code in lines(text):
            if in_code:
                continue
            for ref in dict.fromkeys(_DOTTED.findall(raw)):
                problem = attribute_problem(ref, idx)
                if problem:
                    out.append(Claim(doc, n, problem, "attribute"))
            problem = count_problem(re.sub(r"`[^`]*`", "", raw), fields) if fields else None
            if problem:
                out.append(Claim(doc, n, problem, "count"))
        out += table_problems(doc, text, gaps)
    if texts:
        out += undocumented(inp, texts, passes=passes, runners=runners)
    return out
