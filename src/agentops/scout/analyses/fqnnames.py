"""Module names that lag a rename (#22 defect 8): string literals of the sub-project
that name parts of a module/parameter FQN — the model side of a state-dict adapter's
key map, and module-name filter lists (float8 ``filter_fqns``, parameter-group
``pattern``, LoRA ``target_modules``) — checked against the names the model code
defines (``self.<name> =`` in the model classes, config keywords, registered
parameter names, string keys of module dicts).

A name the model code defined at the baseline and defines nowhere at HEAD was renamed
or removed in the window: the adapter keys a weight the model no longer has, or the
filter silently matches nothing (``lagged``). A name defined at neither commit matches
no module at all (``unknown``): worth a look, never an action, because the name may come
from code this check does not read.

Precision first: regex patterns are judged by their literal word segments only; a name
that any model file still defines is never reported; the HF side of an adapter map (the
other project's names) is never read.

Pure: the two trees' texts in, ``FqnName`` records out.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses.commentrefs import own_sources
from agentops.scout.gitrepo import Tree
from agentops.scout.model import Inputs

# Keyword/assignment names whose string values are module-name filters.
_FILTER_NAME = re.compile(
    r"(?:^|_)(?:fqns?|patterns?|target_modules|module_names|modules_to_\w+|filter_\w+)$")
# A name the model code defines: an attribute set on self, a config keyword that builds
# a sub-module, a parameter registered by name, a string key of a dict of modules.
_DEFINES = (
    re.compile(r"\bself\.([A-Za-z_]\w*)\s*(?::[^=\n]{1,80})?=(?!=)"),
    re.compile(r"\b([A-Za-z_]\w*)\s*=\s*[A-Za-z_][\w.]*\.Config\("),
    re.compile(r"\b(?:register_parameter|register_buffer|register_module|add_module)\(\s*"
               r"[\"']([A-Za-z_]\w*)[\"']"),
    re.compile(r"[\"']([A-Za-z_]\w*)[\"']\s*:\s*(?:nn\.|spmd\.|partial\()"),
)
# Segments every FQN carries whatever the model calls its modules.
_GENERIC = frozenset({"weight", "bias", "model", "layers"})
_REGEX_GROUP = re.compile(r"\(\?P?<[^>]*>|\(\?[:=!]")
_REGEX_PART = re.compile(r"\\[^.]|\[[^\]]*\]|\{\d*,?\d*\}")
_IDENT = re.compile(r"[A-Za-z_]\w*")
# A word of a regex is a whole name only between separators; one touching a character
# class, an escape or a quantifier (``w[123]``, ``\dx``, ``ab*``) is part of a name.
_WHOLE = re.compile(r"(?<![\w\x00])([A-Za-z_]\w*)(?![\w\x00*+?{])")
MAX_SITES = 200


@dataclass(frozen=True)
class FqnName:
    file: str
    line: int
    name: str  # the segment that names no module at HEAD
    literal: str  # the whole string it came from
    use: str  # "keys" (adapter map) or "filters" (a filter list / pattern)
    how: str  # "lagged" (defined at the baseline, gone at HEAD) or "unknown"
    now: str = ""  # the HEAD name that replaced it, when one is evident
    via: str = ""  # the keyword or variable holding the literal (``filter_fqns``, ``from_hf_map``)


def _model_files(tree: Tree, roots: tuple[str, ...]) -> list[tuple[str, str]]:
    return list(own_sources(tree.files, roots))


def defined_names(tree: Tree, roots: tuple[str, ...]) -> frozenset[str]:
    """Every module/parameter name the model code under ``roots`` defines."""
    key = ("fqnnames-defined", roots)
    if key not in tree.cache:
        names: set[str] = set()
        for _path, text in _model_files(tree, roots):
            for rx in _DEFINES:
                names.update(rx.findall(text))
        tree.cache[key] = frozenset(names)
    return tree.cache[key]


_SEGMENT = re.compile(r"[A-Za-z_]\w*|\d+|\{\w*\}")


def module_like(literal: str, *, pattern: bool) -> bool:
    """Whether a string can name modules at all: a module path holds no whitespace, so
    neither does a pattern over module paths (no blank, no ``\\s``); a pattern must be a
    regex (a file glob such as ``*.ext`` does not compile as one), and a plain value a
    dotted path of identifiers (``{}`` placeholders and layer numbers allowed). A prose
    regex or a download's file globs held under a ``patterns`` name are not module
    filters, nor is anything listed beside them under the same holder (#22, set 20
    kind b)."""
    if any(ch.isspace() for ch in literal):
        return False
    if not pattern:
        return all(_SEGMENT.fullmatch(s) for s in literal.split("."))
    if "\\s" in literal:
        return False
    try:
        re.compile(literal)
    except re.error:
        return False
    return True


def segments(literal: str, *, pattern: bool) -> list[str]:
    """The module-name parts of an FQN string; of a regex, its literal words only."""
    if pattern:
        return [s for s in _WHOLE.findall(
            _REGEX_PART.sub("\x00", _REGEX_GROUP.sub(" ", literal)))
                if s not in _GENERIC]
    return [s for s in literal.split(".") if _IDENT.fullmatch(s) and s not in _GENERIC]


def _strings(node: ast.AST) -> list[ast.Constant]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Constant)
            and isinstance(n.value, str) and len(n.value) <= 200]


def _listed(node: ast.AST) -> list[ast.Constant]:
    """The strings a filter value spells out: itself, or the items of a list/tuple/set
    literal; a string inside other code (a subscript key, a call) names something else."""
    items = node.elts if isinstance(node, (ast.List, ast.Tuple, ast.Set)) else [node]
    return [c for c in items if isinstance(c, ast.Constant) and isinstance(c.value, str)
            and len(c.value) <= 200]


def _target_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else ""


def uses(path: str, text: str) -> list[tuple[int, str, str, bool, str]]:
    """(line, literal, use, is_pattern, holder) for each FQN-naming literal of one file;
    the holder is the keyword or variable the literal is given to."""
    mod = ps.parse(text)
    if mod is None:
        return []
    adapter = "state_dict_adapter" in path.rsplit("/", 1)[-1]
    out: list[tuple[int, str, str, bool, str]] = []
    for n in ps.walk(mod):
        pairs: list[tuple[str, ast.AST]] = []
        if isinstance(n, ast.keyword) and n.arg:
            pairs = [(n.arg, n.value)]
        elif isinstance(n, (ast.Assign, ast.AnnAssign)) and n.value is not None:
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            pairs = [(_target_name(t), n.value) for t in targets]
        for name, value in pairs:
            if _FILTER_NAME.search(name):
                pat = "pattern" in name
                listed = _listed(value)
                if not all(module_like(c.value, pattern=pat) for c in listed):
                    # One holder holds one kind of string: a list with a file glob
                    # (``*.ext``) beside a file name is a list of file globs.
                    continue
                out += [(c.lineno, c.value, "filters", pat, name) for c in listed]
            elif adapter and isinstance(value, ast.Dict) and ("from_hf" in name
                                                              or "to_hf" in name):
                # Only the model's side: the values of a from-HF map, the keys of a
                # to-HF map; the HF names are the other project's.
                side = value.values if "from_hf" in name else value.keys
                out += [(c.lineno, c.value, "keys", False, name)
                        for s in side if s is not None for c in _strings(s)]
    return out[:MAX_SITES]


def _renamed_to(name: str, then: frozenset[str], now: frozenset[str]) -> str:
    new = sorted(n for n in now - then if n.startswith(name + "_") or n.endswith("_" + name))
    return new[0] if len(new) == 1 else ""


def _class_attrs(text: str) -> dict[str, set[str]]:
    mod = ps.parse(text)
    if mod is None:
        return {}
    out: dict[str, set[str]] = {}
    for cls in ps.walk(mod):
        if isinstance(cls, ast.ClassDef):
            out[cls.name] = {t.attr for n in ast.walk(cls)
                             if isinstance(n, (ast.Assign, ast.AnnAssign))
                             for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                             if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                             and t.value.id == "self"}
    return out


def class_renames(inp: Inputs, roots: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """old name -> (class, new name) for attributes a model class renamed in the window
    (one removed, one added that extends it), over the files the window changed."""
    assert inp.base is not None
    out: dict[str, tuple[str, str]] = {}
    for path, text in _model_files(inp.head, roots):
        old = inp.base.text(path)
        if old is None or old == text:
            continue
        before, after = _class_attrs(old), _class_attrs(text)
        for cls, attrs in after.items():
            gone, new = before.get(cls, set()) - attrs, attrs - before.get(cls, set())
            for name in gone:
                cand = [n for n in new if n.startswith(name + "_")]
                if len(cand) == 1:
                    out[name] = (cls, cand[0])
    return out


def _holds(tree: Tree, roots: tuple[str, ...], attr: str, cls: str) -> bool:
    """Whether some model file builds ``cls`` into an attribute or field named ``attr``."""
    rx = re.compile(rf"\b(?:self\.)?{re.escape(attr)}\s*(?::[^=\n]{{0,80}})?[=:]\s*"
                    rf"(?:\w+\.)*{re.escape(cls)}\b")
    return any(rx.search(t) for _p, t in _model_files(tree, roots))


def analyse(inp: Inputs) -> list[FqnName]:
    if inp.base is None:
        return []
    sub = inp.target.subproject.rstrip("/") + "/"
    pkg = sub.split("/", 1)[0] + "/"
    roots = tuple(sorted({sub, pkg + "models/"}))
    now = defined_names(inp.head, roots)
    then = defined_names(inp.base, roots)
    renames = class_renames(inp, roots)
    out: list[FqnName] = []
    for path, text in own_sources(inp.head.files, sub):
        for line, literal, use, pat, via in uses(path, text):
            if not module_like(literal, pattern=pat):
                continue
            segs = segments(literal, pattern=pat)
            for i, seg in enumerate(dict.fromkeys(segs)):
                if seg in renames and not pat and i > 0:
                    # Another module may still use the old name (a dense w1 beside the
                    # experts' renamed w1): the segment before it says which module.
                    cls, new = renames[seg]
                    if _holds(inp.head, roots, segs[segs.index(seg) - 1], cls):
                        out.append(FqnName(path, line, seg, literal, use, "lagged", new, via))
                        continue
                if seg in now:
                    continue
                how = "lagged" if seg in then else "unknown"
                out.append(FqnName(path, line, seg, literal, use, how,
                                   _renamed_to(seg, then, now) if how == "lagged" else "", via))
    return out
