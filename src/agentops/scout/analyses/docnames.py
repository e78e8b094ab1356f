"""S-5, docs resolved against the code (#22 defect 7): imports in a doc's Python code
blocks (the module must exist in the repository and define the name), class names a
doc mentions that the code no longer defines but nearly does (a renamed class), usage
comments in the sub-project's scripts that name files or modules that do not exist;
and the claims the scout cannot verify (a TODO list, a feature or support list), named
so the report never says "docs are current" while they are unchecked.

Pure: loaded texts in, ``DocProblem`` records out.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass

from agentops.scout.analyses import doclists
from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs


@dataclass(frozen=True)
class NameProblem:
    file: str
    line: int
    problem: str
    kind: str  # "reference" | "unverified"


_FROM = re.compile(r"^\s*from\s+([A-Za-z_][\w.]*)\s+import\s+\(?([\w\s,]+)\)?")
_IMPORT = re.compile(r"^\s*import\s+([A-Za-z_][\w.]*)")
_CAMEL = re.compile(r"(?<![\w.])([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+)(?![\w])")
_CLASS_DEF = re.compile(r"^[ \t]*class[ \t]+(\w+)", re.M)
_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)|^(\w+)[ \t]*[:=]", re.M)
_USAGE = re.compile(r"(?i)^\s*(?:#|\*|//)?\s*(?:usage|example|run(?: with)?)\s*:?\s*(.*)$")
_CMD_PATH = re.compile(r"(?:python3?|bash|sh|torchrun[^\n]*?)\s+((?:\./)?[\w./-]+\.(?:py|sh))"
                       r"|(?<![\w/])(\./[\w./-]+\.sh)")
_CMD_MOD = re.compile(r"python3?\s+-m\s+([A-Za-z_][\w.]*)")
_UNVERIFIED_HEAD = re.compile(r"(?i)^#{1,6}\s.*\b(todo|roadmap|road map|features?|support(ed)?"
                              r"|status|limitations?|known issues)\b")
_LIST_MARK = re.compile(r"^\s*[-*]\s+\[[ xX]\]|[✅❌🚧✔✗]")
# A sentence that limits what is supported ("we only support HF -> DCP", "X is not
# supported yet"): a claim about the code the scout does not verify, so its presence
# keeps the Docs status from saying "current".
_LIMIT_CLAIM = re.compile(r"(?i)\b(only\s+supports?|supports?\s+only|(?:is|are)\s+not\s+"
                          r"(?:yet\s+)?supported|(?:does|do)\s*(?:n't|\s+not)\s+(?:yet\s+)?"
                          r"support|unsupported|not\s+yet\s+supported"
                          # "(single-turn only for now)": a limit stated as temporary
                          r"|[\w-]+\s+only\s+(?:for\s+now|at\s+(?:the\s+)?moment|currently|"
                          r"so\s+far))\b")


def _repo_packages(inp: Inputs) -> set[str]:
    return {p.split("/", 1)[0] for p in inp.head.paths
            if p.endswith("/__init__.py") and p.count("/") == 1}


def _in_python(inp: Inputs, key: str, pattern: re.Pattern[str]) -> set[str]:
    """Every match of ``pattern`` in the checkout's Python files, cached under ``key``
    for the run (each doc check asks for the same set)."""
    if key not in inp.head.cache:
        found: set[str] = set()
        for path, text in inp.head.files.items():
            if path.endswith(".py"):
                found.update(pattern.findall(text))
        inp.head.cache[key] = found
    return inp.head.cache[key]


def _class_names(inp: Inputs) -> set[str]:
    return _in_python(inp, "docnames-classes", _CLASS_DEF)


def _defines(text: str, name: str) -> bool:
    if re.search(rf"^[ \t]*(?:class|def|async[ \t]+def)[ \t]+{re.escape(name)}\b", text, re.M):
        return True
    if re.search(rf"^{re.escape(name)}[ \t]*[:=]", text, re.M):
        return True
    return bool(re.search(rf"\bimport\b[^\n]*\b{re.escape(name)}\b", text))


def _defines_here(text: str, name: str) -> bool:
    """A definition (``class``/``def``/assignment) in the file itself: an import is
    not one (#22: "the `Trainer` class from `train.py`" where train.py imports it)."""
    return bool(re.search(rf"^[ \t]*(?:class|def|async[ \t]+def)[ \t]+{re.escape(name)}\b",
                          text, re.M) or re.search(rf"^{re.escape(name)}[ \t]*[:=]", text, re.M))


def _reexports(path: str, text: str, name: str) -> bool:
    """A package's ``__init__.py``, or a module listing the name in ``__all__``,
    publishes what it imports: naming it as the place to take the name from is right."""
    if path.endswith("__init__.py"):
        return True
    m = re.search(r"^__all__\s*[:=][^\]\)]*", text, re.M)
    return bool(m and re.search(rf"[\"']{re.escape(name)}[\"']", m.group(0)))


def _import_source(inp: Inputs, text: str, name: str) -> str | None:
    """The repository file ``text`` imports ``name`` from, when that file defines it."""
    module, orig = ps.imports(ps.parse(text)).get(name, ("", ""))
    path = ps.module_path(module, inp.head.paths) if module and orig else None
    return path if path and any(f == path for f, _ln in _definers(inp).get(orig, [])) \
        else None


def _imports(inp: Inputs, doc: str, n: int, line: str, packages: set[str]
             ) -> list[NameProblem]:
    out = []
    m = _FROM.match(line)
    if m and m.group(1).split(".")[0] in packages:
        module = m.group(1)
        path = ps.module_path(module, inp.head.paths)
        if path is None:
            return [NameProblem(doc, n, f"`from {module} import …`: module {module} does not "
                                        "exist; fix the import", "reference")]
        text = inp.head.text(path) or ""
        for name in (x.strip().split(" as ")[0] for x in m.group(2).split(",")):
            if name and ps.module_path(f"{module}.{name}", inp.head.paths) is None \
                    and not _defines(text, name):
                near = difflib.get_close_matches(name, _names_in(text), n=1, cutoff=0.8)
                fix = f"; it defines `{near[0]}`" if near else ""
                out.append(NameProblem(doc, n, f"`from {module} import {name}`: {module} "
                                               f"does not define {name}{fix}", "reference"))
        return out
    m = _IMPORT.match(line)
    if m and m.group(1).split(".")[0] in packages and "." in m.group(1) \
            and ps.module_path(m.group(1), inp.head.paths) is None:
        out.append(NameProblem(doc, n, f"`import {m.group(1)}`: no such module", "reference"))
    return out


def _names_in(text: str) -> list[str]:
    return [a or b for a, b in _DEF.findall(text)] + _CLASS_DEF.findall(text)


def _code_words(inp: Inputs) -> set[str]:
    """Every CamelCase word the Python files mention (names, comments, strings)."""
    return _in_python(inp, "docnames-code-words", _CAMEL)


def _prose(line: str) -> str:
    """A Markdown line without its code spans, link targets, URLs and HTML."""
    line = re.sub(r"`[^`]*`", " ", line)
    line = re.sub(r"\]\([^)]*\)", "] ", line)
    line = re.sub(r"<[^>]*>|https?://\S+", " ", line)
    return line


def _renamed_class(inp: Inputs, doc: str, n: int, line: str, seen: set[str], *,
                   prose: bool = False) -> list[NameProblem]:
    """A CamelCase name the code defines nowhere, nearly equal to one it defines. In
    plain prose only a word the code does not even mention (a product name such as
    PyTorch or GitHub appears in comments and strings; a renamed class does not)."""
    classes = _class_names(inp)
    out = []
    for name in _CAMEL.findall(line):
        if name in classes or name in seen or (prose and name in _code_words(inp)):
            continue
        seen.add(name)
        near = difflib.get_close_matches(name, classes, n=1, cutoff=0.85)
        if near:
            out.append(NameProblem(doc, n, f"`{name}` is defined nowhere in the repository; "
                                           f"renamed to `{near[0]}`?", "reference"))
    return out


# ``apply_moe_ep_tp`` / ``build_x(...)``: a snake_case name with an underscore (a plain
# word is prose), alone in a code span, optionally called.
_FUNC_SPAN = re.compile(r"^([a-z_][a-z0-9]*(?:_[a-z0-9]+)+)(?:\([^()]{0,80}\))?$")


def _removed_function(inp: Inputs, doc: str, n: int, span: str, seen: set[str]
                      ) -> list[NameProblem]:
    """A function or class name in a code span that the code defined at the baseline and
    no longer names anywhere at HEAD (no definition, no use): the doc tells readers to
    call something the window removed. A name defined at neither commit is left alone
    (it may be a field, a flag, a variable of an example)."""
    m = _FUNC_SPAN.match(span.strip())
    if m is None or inp.base is None or m.group(1) in seen:
        return []
    name = m.group(1)
    seen.add(name)
    key = ("docnames-removed", name)
    if key not in inp.head.cache:
        word = re.compile(rf"\b{re.escape(name)}\b")
        gone = not any(name in t and word.search(t) for p, t in inp.head.files.items()
                       if p.endswith(".py"))
        inp.head.cache[key] = gone and any(
            name in t and _defines_here(t, name) for p, t in inp.base.files.items()
            if p.endswith(".py"))
    if not inp.head.cache[key]:
        return []
    return [NameProblem(doc, n, f"names `{name}`, which the code defined at "
                                f"{inp.baseline.since} and no longer defines or uses anywhere "
                                "(removed or renamed since)", "reference")]


_PLACEHOLDER = re.compile(r"<[a-z_]{1,20}>")
_WORD = re.compile(r"\b[a-z_][a-z0-9_]*\b")


def _spelled(inp: Inputs, name: str) -> bool:
    """Whether any Python file of the repository spells ``name`` at HEAD."""
    key = ("docnames-spelled", name)
    if key not in inp.head.cache:
        word = re.compile(rf"\b{re.escape(name)}\b")
        inp.head.cache[key] = any(name in t and word.search(t)
                                  for p, t in inp.head.files.items() if p.endswith(".py"))
    return bool(inp.head.cache[key])


def _own_words(inp: Inputs) -> dict[tuple[int, str], list[str]]:
    """The snake_case names the sub-project's own Python spells, by (word count, words
    but one) so a name one word away is found in one look-up per word."""
    key = ("docnames-own-words", inp.target.subproject)
    if key not in inp.head.cache:
        sub = inp.target.subproject.rstrip("/") + "/"
        names = sorted({w for p, t in inp.head.files.items()
                        if p.startswith(sub) and p.endswith(".py")
                        for w in _WORD.findall(t) if "_" in w.strip("_")})
        index: dict[tuple[int, str], list[str]] = {}
        for name in names:
            parts = name.split("_")
            for k in range(len(parts)):
                index.setdefault((k, "_".join([*parts[:k], "*", *parts[k + 1:]])),
                                 []).append(name)
        inp.head.cache[key] = index
    return inp.head.cache[key]  # type: ignore[no-any-return]


def _one_word_away(inp: Inputs, name: str) -> list[tuple[str, str, str]]:
    """Names of the sub-project's own code that differ from ``name`` in exactly one
    word, both words letters only (``sharding_spec`` -> ``sharding_config``; never
    ``x_8b`` -> ``x_70b``, sizes of one family): (old word, new word, name) each."""
    parts = name.split("_")
    out = []
    for k, word in enumerate(parts):
        if not word.isalpha() or len(word) < 3:
            continue
        pattern = "_".join([*parts[:k], "*", *parts[k + 1:]])
        for cand in _own_words(inp).get((k, pattern), ()):
            other = cand.split("_")[k]
            if other.isalpha() and len(other) >= 3 and other != word:
                out.append((word, other, cand))
    return out


def _renamed_names(inp: Inputs, doc: str, n: int, spans: list[str]) -> list[NameProblem]:
    """snake_case names a doc line gives in code spans (a ``<model>`` placeholder read as
    the folder's name) that no Python of the repository spells at HEAD, each one word
    away from a name the sub-project's own code spells, by the same word change for
    the whole line: the code renamed what the doc still tells readers to define or call
    (``set_<model>_sharding_spec`` and ``sharding_spec`` while the folder has
    ``set_x_sharding_config`` and ``sharding_config``). A two-word name counts only
    when a longer name of the line takes the same change (one word apart is weak
    evidence between two words); a name with no neighbour is left alone (a field, a
    flag, an example's variable)."""
    leaf = inp.target.subproject.rstrip("/").rsplit("/", 1)[-1]
    options: dict[str, list[tuple[str, str, str]]] = {}
    for span in spans:
        m = _FUNC_SPAN.match(_PLACEHOLDER.sub(leaf, span.strip()))
        if m is None or m.group(1) in options or _spelled(inp, m.group(1)) \
                or inp.head.cache.get(("docnames-removed", m.group(1))):
            continue  # (a name the baseline defined is the removed-function check's)
        near = _one_word_away(inp, m.group(1))
        if near:
            options[m.group(1)] = near
    long_changes = {(a, b) for name, near in options.items() if name.count("_") >= 2
                    for a, b, _ in near}
    pairs: dict[str, str] = {}
    for name, near in options.items():
        agreed = [c for a, b, c in near if (a, b) in long_changes]
        if agreed:
            pairs[name] = agreed[0]
    if not pairs:
        return []
    said = ", ".join(f"`{a}`" for a in pairs)
    has = ", ".join(f"`{b}`" for b in pairs.values())
    return [NameProblem(doc, n, f"names {said}, which no code of the repository spells at "
                                f"HEAD, while the folder's own code has {has} (one word "
                                "apart): the code renamed what the doc still tells readers "
                                "to use", "reference")]


# ``build_spec(name, width)``: a bare function name called with plain parameter names.
_SIGNATURE = re.compile(r"^([A-Za-z_]\w*)\(\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*\)$")


def _signature_claim(inp: Inputs, doc: str, n: int, span: str, seen: set[str]
                     ) -> list[NameProblem]:
    """A code span giving a function with its parameters (``build_spec(name)``) where
    the sub-project's own code defines that function once, at module level, with other
    parameters: the doc shows a signature the code changed (a parameter added or
    dropped). Not judged: an empty or elided list (``f()``, ``f(x, ...)``), a dotted
    name, a ``*args``/``**kwargs`` signature, a name the folder defines twice."""
    m = _SIGNATURE.match(span.strip())
    if m is None or m.group(1) in seen:
        return []
    name = m.group(1)
    seen.add(name)
    sub = inp.target.subproject.rstrip("/") + "/"
    places = [(p, line) for p, line in _definers(inp).get(name, ()) if p.startswith(sub)]
    if len(places) != 1:
        return []
    path, line = places[0]
    mod = ps.parse(inp.head.text(path))
    node = next((d for d in (mod.body if mod is not None else ())
                 if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and d.name == name), None)
    if node is None or node.args.vararg or node.args.kwarg:
        return []
    a = node.args
    params = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    given = [x.strip() for x in m.group(2).split(",")]
    if params == given:
        return []
    extra = [x for x in params if x not in given]
    lacking = [x for x in given if x not in params]
    what = "; ".join(w for w in (
        f"it also takes {', '.join(f'`{x}`' for x in extra)}" if extra else "",
        f"it has no {', '.join(f'`{x}`' for x in lacking)}" if lacking else "") if w)
    if not what:
        return []
    return [NameProblem(doc, n, f"documents `{name}({', '.join(given)})`, but the folder's "
                                f"`{name}` (`{path}:{line}`) takes ({', '.join(params)}): "
                                f"{what}; the signature the doc shows is out of date",
                        "reference")]


# "Under `--section.mode fast`, do X": a rule a doc scopes to one value of a setting.
_SCOPED_FLAG = re.compile(r"(?i)\b(?:under|with|when|if|for|only\s+(?:under|with|for))\s+"
                          r"`(--(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*))[ =]([A-Za-z_][\w-]*)`")


_SETTING_VALUE = re.compile(r"[\w.:/+-]{1,40}")
_MAX_VALUES = 8


def _value_groups(inp: Inputs) -> dict[str, list[tuple[str, int, tuple[str, ...]]]]:
    """Field name -> (file, line, values) of each ``x.field in ("a", "b")`` test in the
    sub-project's own code: values the code treats alike."""
    key = ("docnames-value-groups", inp.target.subproject)
    if key not in inp.head.cache:
        sub = inp.target.subproject.rstrip("/") + "/"
        found: dict[str, list[tuple[str, int, tuple[str, ...]]]] = {}
        for path, text in sorted(inp.head.files.items()):
            if not (path.startswith(sub) and path.endswith(".py")) or (" in (" not in text \
                    and " in [" not in text and " in {" not in text):
                continue
            mod = ps.parse(text)
            for node in ps.walk(mod) if mod is not None else ():
                if not (isinstance(node, ast.Compare) and len(node.ops) == 1
                        and isinstance(node.ops[0], ast.In)
                        and isinstance(node.left, ast.Attribute)
                        and isinstance(node.comparators[0], (ast.Tuple, ast.List, ast.Set))):
                    continue
                # Setting values are short words; other strings (messages, paths with
                # spaces) are no setting value and would carry unbounded repository
                # text into the item's title. A long tuple is cut to its first values.
                values = tuple(e.value for e in node.comparators[0].elts
                               if isinstance(e, ast.Constant) and isinstance(e.value, str)
                               and _SETTING_VALUE.fullmatch(e.value))[:_MAX_VALUES]
                if len(values) >= 2:
                    found.setdefault(node.left.attr, []).append((path, node.lineno, values))
        inp.head.cache[key] = found
    return inp.head.cache[key]  # type: ignore[no-any-return]


def _scoped_rule(inp: Inputs, doc: str, n: int, line: str) -> list[NameProblem]:
    """A doc line scoping a rule to one value of a setting ("Under `--x.mode fast`, …")
    while the sub-project's own code tests that setting against several values at once
    (``if cfg.mode in ("fast", "lean"):``) and the line names none of the others: the
    code took another value into the same path, the doc still limits the rule to one."""
    out = []
    for m in _SCOPED_FLAG.finditer(line):
        flag, field, value = m.group(1), m.group(2), m.group(3)
        for path, at, values in sorted(_value_groups(inp).get(field, ()),
                                       key=lambda g: (g[0], g[1])):
            others = [v for v in values if v != value and v not in line]
            if value in values and others:
                out.append(NameProblem(doc, n, f"states a rule for `{flag} {value}` "
                                               f"only, while the folder's code treats "
                                               f"{', '.join(f'`{v}`' for v in others)} the "
                                               f"same (`{path}:{at}` tests `{field}` in "
                                               f"{', '.join(values)}): the rule applies "
                                               "to those values too, or the doc says why "
                                               "not", "reference"))
                break
    return out


# "`Trainer` class from [train.py](x/train.py)", "`foo()` in `bar.py`", "`Foo` (defined
# in `x/foo.py`)": a symbol span, a few connecting words, then a Python file (a code
# span or a link).
_SYMBOL = re.compile(r"`(?:class\s+|def\s+)?([A-Za-z_]\w*)(?:\.[A-Za-z_]\w*)*(?:\(\))?`")
_FILE_REF = re.compile(r"`([\w./-]+\.py)`"
                       r"|\[[^\]]*\]\(([\w./-]+\.py)(?:#[\w-]*)?\)"
                       r"|\[[^\]]*\]\(https://github\.com/[\w.-]+/[\w.-]+/blob/[\w.-]+/"
                       r"([\w./-]+\.py)(?:#[\w-]*)?\)"
                       r"|\[`?([\w./-]+\.py)`?\]\([^)\s]*\)")
_CONNECT = re.compile(r"(?i)^[\s(,]*(?:(?:class|function|method|helper|decorator|module)\s+)?"
                      r"(?:(?:is|are)\s+)?(?:(?:defined|implemented|declared|lives?|located|"
                      r"found)\s+)?(?:in|from|inside|at|under)\s+(?:the\s+)?(?:file\s+)?$")


def _definers(inp: Inputs) -> dict[str, list[tuple[str, int]]]:
    """Name -> (file, line) of every top-level or nested ``class``/``def`` of it."""
    key = "docnames-definers"
    if key not in inp.head.cache:
        found: dict[str, list[tuple[str, int]]] = {}
        pattern = re.compile(r"^[ \t]*(?:class|def|async[ \t]+def)[ \t]+(\w+)", re.M)
        for path, text in sorted(inp.head.files.items()):
            if path.endswith(".py"):
                for m in pattern.finditer(text):
                    found.setdefault(m.group(1), []).append(
                        (path, text.count("\n", 0, m.start()) + 1))
        inp.head.cache[key] = found
    return inp.head.cache[key]


def _resolve_file(ref: str, doc: str, inp: Inputs) -> str | None:
    if ref.startswith("/"):  # a link from the repository's root, as GitHub renders it
        return ref.lstrip("/") if ref.lstrip("/") in inp.head.paths else None
    ref = ref.removeprefix("./")
    here = doc.rsplit("/", 1)[0] if "/" in doc else ""
    parts: list[str] = []
    for part in (f"{here}/{ref}" if here else ref).split("/"):
        if part == "..":
            if parts:
                parts.pop()
        elif part and part != ".":
            parts.append(part)
    for cand in ("/".join(parts), ref):
        if cand in inp.head.paths:
            return cand
    return None


# An abbreviation a sentence is about (CP, FSDP, MoE); words every doc shouts are not.
_ACRONYM = re.compile(r"(?<![\w./-])([A-Z][A-Za-z]?[A-Z]{1,4})(?![\w/-])")
_SHOUTED = frozenset({"NOTE", "TODO", "API", "APIs", "CLI", "GPU", "CPU", "HF", "PR", "OK",
                      "README", "FIXME", "WIP", "TBD", "URL", "IO", "OSS", "FAQ", "PT",
                      "MD", "UI", "ID", "IDs", "CI", "E2E", "YAML", "JSON", "TOML"})
# "… is enabled via a context manager in `x/train.py`": the file a claim places it in.
_PLACED_IN = re.compile(r"\b(?:in|inside|by|from)\s+(?:the\s+)?(?:file\s+)?$")


def _absent_topic(inp: Inputs, doc: str, n: int, line: str) -> list[NameProblem]:
    """A sentence placing a feature (named by its abbreviation) in a file that never
    mentions it, not even inside a longer name (``apply_cp``): the feature lives
    elsewhere now. Only files that exist are judged (a missing one is the path check's)."""
    out = []
    for ref in _FILE_REF.finditer(line):
        if not _PLACED_IN.search(line[:ref.start()]):
            continue
        start = max(line.rfind(". ", 0, ref.start()) + 1, 0)
        topics = [a for a in dict.fromkeys(_ACRONYM.findall(line[start:ref.start()]))
                  if a not in _SHOUTED]
        given = next(g for g in ref.groups() if g)
        path = given if ref.group(3) and given in inp.head.paths else \
            _resolve_file(given, doc, inp)
        text = inp.head.text(path) if path else None
        if not topics or text is None:
            continue
        missing = [a for a in topics if not re.search(
            rf"(?<![A-Za-z]){re.escape(a)}(?![a-z])", text, re.I)]
        if missing and len(missing) == len(topics):
            names = ", ".join(missing)
            out.append(NameProblem(doc, n, f"places {names} in `{given}`, which never "
                                           f"mentions {names}: the claim is stale or "
                                           "points at the wrong file", "reference"))
        elif not missing and path and path.endswith(".py"):
            out.extend(_unwired(inp, doc, n, topics, given=given, text=text))
    return out


def _unwired(inp: Inputs, doc: str, n: int, topics: list[str], *, given: str,
             text: str) -> list[NameProblem]:
    """The file a sentence places a capability in mentions it but makes no call that
    wires it (``doclists.CAPABILITIES``), while the sub-project's own code does: the
    work moved into the folder (a parallelize function now applies it) and the sentence
    still sends the reader to the old place."""
    out = []
    for topic in topics:
        cap = next((c for c in doclists.CAPABILITIES if c.parallelism
                    and c.words.fullmatch(topic)), None)
        if cap is None or doclists.wires(text, cap):
            continue
        own = _wired(inp).get(cap.name)
        if own is None:
            continue
        where, line, callee = own
        out.append(NameProblem(doc, n, f"places {topic} in `{given}`, which makes no call "
                                       f"that applies it, while the folder's own code does "
                                       f"(`{where}:{line}` calls `{callee}`): the claim "
                                       "is stale, the folder does the work the sentence "
                                       "puts elsewhere", "reference"))
    return out


def _wired(inp: Inputs) -> dict[str, tuple[str, int, str]]:
    key = ("docnames.wired", inp.target.subproject)
    if key not in inp.head.cache:
        inp.head.cache[key] = doclists.wired(inp)
    return inp.head.cache[key]  # type: ignore[no-any-return]


def _misplaced(inp: Inputs, doc: str, n: int, line: str) -> list[NameProblem]:
    """A sentence that places a symbol in a file the code shows does not define it,
    while another file does: the right file is the fix."""
    out = []
    for sym in _SYMBOL.finditer(line):
        ref = _FILE_REF.search(line, sym.end())
        if ref is None or not _CONNECT.match(line[sym.end():ref.start()]):
            continue
        name = sym.group(1)
        given = next(g for g in ref.groups() if g)
        # A GitHub blob link names a path from the repository's root.
        path = given if ref.group(3) and given in inp.head.paths else \
            _resolve_file(given, doc, inp)
        text = inp.head.text(path) if path else None
        if text is None or _defines_here(text, name) or (
                _defines(text, name) and _reexports(path or "", text, name)):
            continue  # no such file (the path check says so) or it is right
        elsewhere = [(f, ln) for f, ln in _definers(inp).get(name, []) if f != path]
        if not elsewhere:
            continue  # defined nowhere: not a misplacement (the name checks say so)
        # The module the file imports it from is the one the sentence meant.
        source = _import_source(inp, text, name)
        elsewhere.sort(key=lambda d: d[0] != source)
        at = ", ".join(f"{f}:{ln}" for f, ln in elsewhere[:2]) + (
            f" and {len(elsewhere) - 2} more" if len(elsewhere) > 2 else "")
        how = "only imported in" if source else "not defined in"
        problem = (f"`{name}` is {how} `{given}`; it is defined in {at}: point "
                   "the sentence there")
        if all(p.problem != problem for p in out):
            out.append(NameProblem(doc, n, problem, "reference"))
    return out


def _unverified(doc: str, lines: list[str]) -> list[NameProblem]:
    """TODO lists and feature/support lists: the scout does not verify them."""
    out = []
    for n, line in enumerate(lines, 1):
        head = _UNVERIFIED_HEAD.match(line)
        if head:
            out.append(NameProblem(doc, n, f"{head.group(1).lower()} list", "unverified"))
    if not out:
        marks = [n for n, line in enumerate(lines, 1) if _LIST_MARK.search(line)]
        if marks:
            out.append(NameProblem(doc, marks[0], "checklist", "unverified"))
    in_code = False
    for n, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        claim = _LIMIT_CLAIM.search(line) if not in_code else None
        if claim:
            # the clause around the claim, in the doc's words, as inert text
            start = max(line.rfind(".", 0, claim.start()) + 1, claim.start() - 40)
            said = re.sub(r"[`*_\[\]<>]", "", line[start:claim.end() + 50]).strip()
            out.append(NameProblem(doc, n, f'support claim "{said}"', "unverified"))
    return out


def _usage_comments(inp: Inputs) -> list[NameProblem]:
    """Usage lines in the sub-project's scripts naming files or modules that are gone."""
    sub = inp.target.subproject + "/"
    out = []
    for path, text in sorted(inp.head.files.items()):
        if not (path.startswith(sub) and path.endswith((".py", ".sh"))) or (
                "sage" not in text and "xample" not in text):
            continue
        lines = text.splitlines()
        for n, line in enumerate(lines, 1):
            m = _USAGE.match(line)
            if not m or not (line.lstrip().startswith(("#", "*")) or _in_docstring(
                    lines, n)):
                continue
            rest = m.group(1) + " " + (lines[n].strip().lstrip("#").strip()
                                       if n < len(lines) else "")
            for pm in _CMD_PATH.finditer(rest):
                target = (pm.group(1) or pm.group(2)).removeprefix("./")
                here = f"{path.rsplit('/', 1)[0]}/{target}"
                if target not in inp.head.paths and here not in inp.head.paths:
                    out.append(NameProblem(path, n, f"usage names `{target}`, which does not "
                                                    "exist", "reference"))
            for mm in _CMD_MOD.finditer(rest):
                module = mm.group(1).rstrip(".")
                if module.split(".")[0] in _repo_packages(inp) and \
                        ps.module_path(module, inp.head.paths) is None:
                    out.append(NameProblem(path, n, f"usage runs `python -m {module}`, which "
                                                    "does not exist", "reference"))
    return out


def _in_docstring(lines: list[str], n: int) -> bool:
    before = "\n".join(lines[:n - 1])
    return (before.count('"""') + before.count("'''")) % 2 == 1


def check(inp: Inputs) -> list[NameProblem]:
    """The #22 doc checks over the configured docs and the sub-project's scripts."""
    out: list[NameProblem] = []
    packages = _repo_packages(inp)
    for doc in inp.target.docs:
        text = inp.head.text(doc)
        if text is None:
            continue
        lines = text.splitlines()
        in_code, lang = False, ""
        # Names the doc defines itself (``class MyRollouter(Rollouter):`` in an example)
        # are the reader's, not the code's.
        seen: set[str] = set(_CLASS_DEF.findall(text))
        gone_seen: set[str] = set()
        sig_seen: set[str] = set()
        for n, line in enumerate(lines, 1):
            fence = line.lstrip()
            if fence.startswith("```"):
                in_code, lang = (not in_code), fence[3:].strip().lower()
                continue
            if in_code and lang in ("", "python", "py"):
                out += _imports(inp, doc, n, line, packages)
            spans = re.findall(r"`([^`]+)`", line) if not in_code else [line]
            for span in spans:
                out += _renamed_class(inp, doc, n, span, seen)
                if not in_code:
                    out += _removed_function(inp, doc, n, span, gone_seen)
                    out += _signature_claim(inp, doc, n, span, sig_seen)
            if not in_code:
                out += _renamed_names(inp, doc, n, spans)
            if not in_code:
                out += _renamed_class(inp, doc, n, _prose(line), seen, prose=True)
            if not in_code and "`--" in line:
                out += _scoped_rule(inp, doc, n, line)
            if not in_code and ".py" in line:
                out += _misplaced(inp, doc, n, line)
                out += _absent_topic(inp, doc, n, line)
        out += _unverified(doc, lines)
    return out + _unlisted(inp) + _usage_comments(inp)


UNLISTED = "Markdown in the sub-project, not in the target's `docs`"


def _unlisted(inp: Inputs) -> list[NameProblem]:
    """The sub-project's own docs the target does not list: never checked, so the
    report never calls the docs current while one of them may be stale."""
    sub = inp.target.subproject + "/"
    listed = set(inp.target.docs)
    return [NameProblem(path, 1, UNLISTED, "unverified") for path in sorted(inp.head.paths)
            if path.startswith(sub) and path.endswith((".md", ".rst")) and path not in listed]
