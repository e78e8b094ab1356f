"""S-5 docs freshness: file paths, test commands and CLI flags in the configured docs
that no longer exist or parse. A ``--section.field`` flag is resolved through the
configured config classes (``GraphTrainer.Config`` → ``compile`` →
``GraphTrainerCompileConfig`` → fields, bases, subclasses); ``Literal`` values are
checked too. Anything that cannot be resolved statically is left alone rather than
guessed at.

Pure: reads the loaded tree; returns frozen records.
"""

from __future__ import annotations

import ast
import posixpath
import re
import shlex
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import testsel
from agentops.scout.model import Inputs

_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_PATHLIKE = re.compile(r"^[\w.{}<>*~-]*[/\w.-]*[\w-]+(\.(py|md|sh|ya?ml|toml|json|txt|cfg))"
                       r"(::[\w:\[\]-]+)?$|^[\w.-]+(/[\w.-]+)+/?$")
_FLAG = re.compile(r"(?<![\w-])(--[A-Za-z][\w-]*(?:\.[A-Za-z][\w-]*)*)"
                   r"(?:[= ]+([^\s\\`-][^\s\\`]*))?")


@dataclass(frozen=True)
class DocProblem:
    file: str
    line: int
    problem: str


_CLASS_RE = re.compile(r"^[ \t]*class[ \t]+(\w+)[ \t]*(?:\(([^)]*)\))?", re.M)


class ConfigIndex:
    """Classes across the loaded sources, for flag resolution. A regex pre-scan maps
    class names (and textual bases) to files; a file is parsed only when a class in it
    is asked for, so a large checkout costs a few parses, not hundreds."""

    def __init__(self, files: dict[str, str]) -> None:
        self._files = files
        self._parsed: dict[str, list[ast.ClassDef]] = {}
        self._subs: dict[str, list[ast.ClassDef]] = {}
        self._fields: dict[tuple[int, ...], dict[str, ast.AnnAssign] | None] = {}
        self._where: dict[str, set[str]] = {}
        self._sub_where: dict[str, set[str]] = {}
        for path, text in files.items():
            if not path.endswith(".py") or "class" not in text:
                continue
            for m in _CLASS_RE.finditer(text):
                self._where.setdefault(m.group(1), set()).add(path)
                for base in (m.group(2) or "").split(","):
                    last = base.strip().split(".")[-1].split("[")[0]
                    if last:
                        self._sub_where.setdefault(last, set()).add(path)

    def _classes_in(self, paths: set[str]) -> list[ast.ClassDef]:
        out: list[ast.ClassDef] = []
        for path in sorted(paths):
            if path not in self._parsed:
                mod = ps.parse(self._files[path])
                self._parsed[path] = [] if mod is None else [
                    n for n in ps.statements(mod) if isinstance(n, ast.ClassDef)]
            out += self._parsed[path]
        return out

    def resolve(self, dotted: str) -> list[ast.ClassDef]:
        """Classes named ``A`` or ``A.B`` (nested)."""
        first, *rest = dotted.split(".")
        found = [c for c in self._classes_in(self._where.get(first, set())) if c.name == first]
        for part in rest:
            found = [n for c in found for n in c.body
                     if isinstance(n, ast.ClassDef) and n.name == part]
        return found

    def subclasses(self, name: str) -> list[ast.ClassDef]:
        """Classes whose bases name ``name`` (last dotted part)."""
        if name not in self._subs:
            self._subs[name] = [c for c in self._classes_in(self._sub_where.get(name, set()))
                                if any(ast.unparse(b).split(".")[-1] == name for b in c.bases)]
        return self._subs[name]

    def fields(self, classes: list[ast.ClassDef], depth: int = 0
               ) -> dict[str, ast.AnnAssign] | None:
        """Fields of the classes, their bases and subclasses; ``None`` when a base
        cannot be resolved (then nothing can be said to be missing)."""
        key = (depth, *(id(c) for c in classes))
        if key not in self._fields:
            self._fields[key] = self._compute_fields(classes, depth)
        return self._fields[key]

    def _compute_fields(self, classes: list[ast.ClassDef], depth: int
                        ) -> dict[str, ast.AnnAssign] | None:
        out: dict[str, ast.AnnAssign] = {}
        for cls in classes:
            for stmt in cls.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    out.setdefault(stmt.target.id, stmt)
            if depth > 6:
                continue
            for base in cls.bases:
                src = ast.unparse(base)
                if src in ("object", "Generic") or src.startswith(("Generic[", "Protocol")):
                    continue
                resolved = self.resolve(src)
                if not resolved:
                    return None
                more = self.fields(resolved, depth + 1)
                if more is None:
                    return None
                for k, v in more.items():
                    out.setdefault(k, v)
            for sub in self.subclasses(cls.name) if depth == 0 else []:
                for stmt in sub.body:
                    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                        out.setdefault(stmt.target.id, stmt)
        return out

    def types_of(self, field: ast.AnnAssign) -> list[ast.ClassDef] | None:
        """Classes a field's annotation (and default_factory) names; ``None`` when any
        name cannot be resolved."""
        exprs: list[ast.expr] = [field.annotation]
        if isinstance(field.value, ast.Call):
            exprs += [k.value for k in field.value.keywords if k.arg == "default_factory"]
        out: list[ast.ClassDef] = []
        for expr in exprs:
            for node in ast.walk(expr):
                if isinstance(node, (ast.Name, ast.Attribute)) and not isinstance(
                        getattr(node, "ctx", None), ast.Store):
                    src = ast.unparse(node)
                    if src in ("None", "str", "int", "float", "bool", "list", "dict",
                               "Literal", "Annotated", "Optional", "tuple", "Any"):
                        continue
                    if src.startswith(("tyro.", "typing.", "torch.")):
                        continue
                    out += self.resolve(src)
        return out or None


def _literal_values(field: ast.AnnAssign) -> list[object] | None:
    for node in ast.walk(field.annotation):
        if isinstance(node, ast.Subscript) and ast.unparse(node.value).endswith("Literal"):
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return [e.value for e in elts if isinstance(e, ast.Constant)]
    return None


def check_flag(flag: str, value: str | None, index: ConfigIndex, roots: list[str]
               ) -> str | None:
    """The problem with ``--a.b`` (and its value when the field is a ``Literal``)."""
    parts = flag[2:].split(".")
    parts[-1] = re.sub(r"^no[-_]", "", parts[-1])
    classes = [c for r in roots for c in index.resolve(r)]
    if not classes:
        return None
    for i, part in enumerate(parts):
        fields = index.fields(classes)
        if fields is None:
            return None
        name = part.replace("-", "_")
        if name not in fields and part not in fields:
            where = ".".join(parts[:i]) or "the config"
            return f"flag {flag}: {where} has no field {part!r}"
        field = fields.get(name) or fields[part]
        if i == len(parts) - 1:
            allowed = _literal_values(field)
            if allowed and value is not None and not value.startswith("-") \
                    and value not in [str(a) for a in allowed]:
                return (f"flag {flag} {value}: not one of "
                        + ", ".join(repr(a) for a in allowed if a is not None))
            return None
        nxt = index.types_of(field)
        if nxt is None:
            return None
        classes = nxt
    return None


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=True)
    except ValueError:
        return text.split()


def _candidates(line: str, in_code: bool) -> list[str]:
    spans = _LINK.findall(line)
    for span in _CODE_SPAN.findall(line):
        spans += [span, *_words(span)] if " " in span else [span]
    if in_code:
        spans += _words(line)
    return spans


def _path_problem(token: str, doc: str, inp: Inputs) -> str | None:
    tok = token.strip().rstrip(".,:;").removeprefix("./")
    if not tok or "://" in tok or tok.startswith(("/", "~", "$", "-", "#")) \
            or any(ch in tok for ch in "{}<>*$=") or "..." in tok:
        return None
    if not _PATHLIKE.match(tok):
        return None
    path, _, node = tok.partition("::")
    path = path.rstrip("/")
    doc_dir = posixpath.dirname(doc)
    tops = {p.split("/", 1)[0] for p in inp.head.paths}
    bases = ["", doc_dir, inp.target.subproject]
    for base in bases:
        cand = posixpath.normpath(posixpath.join(base, path)) if base else posixpath.normpath(path)
        if cand in inp.head.paths or any(p.startswith(cand + "/") for p in inp.head.paths):
            if node and cand in inp.head.paths:
                cases = testsel.test_cases(cand, inp.head.text(cand) or "")
                if not testsel.select(cases, node=node.split("::"), keyword=None):
                    return f"test {cand}::{node} does not exist"
            return None
    # Only paths that would live in this repository are checked: `torch/...` or
    # `outputs/...` name other trees or generated files.
    rel_doc = posixpath.normpath(posixpath.join(doc_dir, path))
    first = path.split("/", 1)[0]
    if first in tops or (path.startswith("..") and rel_doc.split("/", 1)[0] in tops) \
            or (("/" not in path) and path.endswith(".py")):
        return f"path {token.strip()} does not exist"
    return None


def _module_problem(line: str, inp: Inputs) -> str | None:
    m = re.search(r"python[\d.]*\s+-m\s+([\w.]+)", line)
    if not m or m.group(1) in ("pytest", "pip", "torch.distributed.run", "torchrun", "venv"):
        return None
    mod = m.group(1)
    top = mod.split(".")[0]
    if not any(p.startswith(top + "/") or p == f"{top}.py" for p in inp.head.paths):
        return None  # an installed package, not this repo's code
    if ps.module_path(mod, inp.head.paths) is None:
        return f"module {mod} (python -m) does not exist"
    return None


def argparse_flags(files: dict[str, str]) -> set[str]:
    """Every ``add_argument("--x")`` option string in the loaded sources."""
    out: set[str] = set()
    for text in files.values():
        for m in re.finditer(r"add_argument\(\s*((?:[\"']-[^\"']+[\"']\s*,\s*)+)", text):
            out.update(re.findall(r"[\"'](-[^\"']+)[\"']", m.group(1)))
    return out


def analyse(inp: Inputs) -> list[DocProblem]:
    """S-5 over the configured docs."""
    roots = [s["name"] for s in inp.target.raw.get("doc_config_roots", [])]
    known = set(inp.target.raw.get("known_flags", []))
    index: ConfigIndex | None = None
    parsers: set[str] | None = None
    out: list[DocProblem] = []
    for doc in inp.target.docs:
        text = inp.head.text(doc)
        if text is None:
            out.append(DocProblem(doc, 0, "doc file does not exist"))
            continue
        in_code = False
        for n, raw in enumerate(text.splitlines(), 1):
            if raw.lstrip().startswith("```"):
                in_code = not in_code
                continue
            seen: set[str] = set()
            for tok in _candidates(raw, in_code):
                problem = _path_problem(tok, doc, inp)
                if problem and problem not in seen:
                    seen.add(problem)
                    out.append(DocProblem(doc, n, problem))
            mod_problem = _module_problem(raw, inp)
            if mod_problem:
                out.append(DocProblem(doc, n, mod_problem))
            for flag, value in _FLAG.findall(raw if in_code else " ".join(
                    _CODE_SPAN.findall(raw))):
                if flag in known:
                    continue
                if "." in flag:
                    if index is None:
                        index = ConfigIndex(inp.head.files)
                    problem = check_flag(flag, value or None, index, roots)
                elif in_code and _runs_repo_code(raw, inp):
                    if parsers is None:
                        parsers = argparse_flags(inp.head.files)
                        if index is None:
                            index = ConfigIndex(inp.head.files)
                        top = index.fields([c for r in roots for c in index.resolve(r)])
                        parsers |= {f"--{name}" for name in (top or {})}
                    problem = None if flag in parsers else (
                        f"flag {flag} is not a config field, a known flag, or an argparse "
                        "option in the repo")
                else:
                    problem = None
                if problem and problem not in seen:
                    seen.add(problem)
                    out.append(DocProblem(doc, n, problem))
    return out


def _runs_repo_code(line: str, inp: Inputs) -> bool:
    """Whether a command line runs this repository's code: a script in the repo
    (``./run_train.sh``), ``python -m <repo package>``, or ``python <repo file>``."""
    words = [w for w in _words(line) if not re.match(r"^[A-Za-z_]\w*=", w)]
    if not words:
        return False
    if words[0].removeprefix("./") in inp.head.paths:
        return True
    if re.match(r"^python[\d.]*$", words[0]) and len(words) > 1:
        if words[1] == "-m" and len(words) > 2:
            top = words[2].split(".")[0]
            return any(p.startswith(top + "/") for p in inp.head.paths)
        return words[1] in inp.head.paths
    return words[0] == "torchrun"
