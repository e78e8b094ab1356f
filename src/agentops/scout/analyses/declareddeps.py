"""Third-party packages a folder imports that no requirements list declares (#22, S-5;
census row sc-fit24c: sets 19, 21 and 23). A module of the sub-project imports a package
at module level (so importing the module fails without it) that neither the folder's own
requirements file(s) nor the project's declared dependencies list: ``pyproject.toml``
(dependencies, optional groups, build requires), the requirements files at the root and in
its dot-folders (``.ci/``, ``.github/``: what CI installs; a root file that is a link to
one of them is read there), and what the root README has the reader install (its
``pip install`` lines, and the words of its install sentences: "Install PyTorch"). An
install by the documented steps then has the package only by chance (as another
package's dependency) or by hand. A folder requirements file that lists no package at all
(only comments, e.g. a TODO) is said so, and so are the packages the folder's own docs
``pip install`` by hand. A requirements file in a folder below the sub-project's declares
for that folder's modules only.

What is not judged, so that a report line is a fact, not a guess:

- standard-library modules (``sys.stdlib_module_names``), ``__future__``, relative
  imports, and names of the repository's own modules or packages at its root or anywhere
  below the folder (a script's sibling, a helper folder); the folder's own name is no
  such name (a package may share it);
- optional imports: inside ``try`` blocks whose handler catches ``ImportError`` (or a
  broader class), under ``if TYPE_CHECKING``, and inside functions or classes (imported
  only when called);
- the import name against the distribution name: equal after normalisation
  (``tomli_w``/``tomli-w``), or a known pair from ``_PROVIDERS`` (``yaml``/PyYAML). An
  undeclared name that a declared distribution's name contains (``dateutil`` in
  ``python-dateutil``) is "not checked" and said so, never reported;
- a project with no ``pyproject.toml`` and no requirements file at its root or in its
  dot-folders (``setup.py``'s ``install_requires`` is not read): nothing to compare with.

Security: requirement and README texts are untrusted; each is read line by line with
bounded regexes, at most ``_MAX_TEXT`` characters. Pure: the HEAD tree in, at most one
``DocProblem`` per sub-project out.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

from agentops.scout.analyses import pysource as ps
from agentops.scout.analyses import tomldoc
from agentops.scout.analyses.docs import DocProblem
from agentops.scout.itemize.common import plural
from agentops.scout.model import Inputs

TextOf = Callable[[str], str | None]  # a path's text at HEAD, None when not loaded
_MAX_TEXT = 200_000
MAX_SHOWN = 5  # packages written out in the line
_REQ_FILE = re.compile(r"(?:^|/)requirements[\w.-]*\.txt$")
_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]{1,60}")
_PIP = re.compile(r"\bpip3?\s+install\s+([^\n`|&;]*)")
# Options of ``pip install`` that take a value (the value is not a package).
_PIP_VALUED = frozenset({"-r", "--requirement", "-c", "--constraint", "-i", "--index-url",
                         "--extra-index-url", "-f", "--find-links", "-e", "--editable",
                         "-t", "--target", "--prefix", "--root", "--platform"})
# Import names whose distribution is named otherwise (well-known pairs only). ``triton``
# comes with torch's CUDA wheels (the nightly ones as ``pytorch-triton``).
_PROVIDERS: dict[str, tuple[str, ...]] = {
    "yaml": ("pyyaml",), "PIL": ("pillow",), "sklearn": ("scikit_learn",),
    "skimage": ("scikit_image",), "cv2": ("opencv_python", "opencv_python_headless",
                                          "opencv_contrib_python"),
    "bs4": ("beautifulsoup4",), "dateutil": ("python_dateutil",), "attr": ("attrs",),
    "google": ("protobuf", "google_cloud_storage", "googleapis_common_protos"),
    "jwt": ("pyjwt",), "dotenv": ("python_dotenv",), "git": ("gitpython",),
    "OpenSSL": ("pyopenssl",), "Crypto": ("pycryptodome",), "serial": ("pyserial",),
    "fitz": ("pymupdf",), "magic": ("python_magic",), "tomli_w": ("tomli_w",),
    "triton": ("triton", "pytorch_triton", "torch", "pytorch"), "torch": ("torch", "pytorch"),
    "pkg_resources": ("setuptools",), "_pytest": ("pytest",),
}


def is_requirements(path: str) -> bool:
    """A pip requirements file by its name (``requirements.txt``, ``requirements-dev.txt``)."""
    return _REQ_FILE.search(path) is not None


def normalise(name: str) -> str:
    """A distribution or import name compared by PEP 503's rule (case, ``-_.`` alike)."""
    return re.sub(r"[-_.]+", "_", name).lower()


@dataclass(frozen=True)
class Use:
    name: str  # the top-level import name
    file: str
    line: int


@dataclass(frozen=True)
class Undeclared:
    folder: str
    uses: tuple[Use, ...]  # one per package: its first module-level import
    files: dict[str, int]  # package -> how many files import it at module level
    own_requirements: tuple[str, ...]  # the folder's requirements files
    empty: tuple[str, ...]  # those listing no package
    declared_in: tuple[str, ...]  # the project-level lists read
    not_checked: tuple[tuple[str, str], ...]  # (import name, declared distribution)
    by_hand: tuple[str, ...] = ()  # of ``uses``, those the folder's docs pip-install


def requirement_names(text: str) -> set[str]:
    """The distributions a requirements file lists (options, paths and links skipped)."""
    out: set[str] = set()
    for raw in text[:_MAX_TEXT].splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith(("-", ".", "/")) or "://" in line.split(" ", 1)[0]:
            continue
        if m := _REQ_NAME.match(line):
            out.add(normalise(m.group(1)))
    return out


def _spec_name(spec: object) -> str | None:
    if isinstance(spec, str) and (m := _REQ_NAME.match(spec)):
        return normalise(m.group(1))
    return None


def pyproject_names(text: str) -> set[str] | None:
    """Every dependency ``pyproject.toml`` declares (None when it does not parse)."""
    doc = tomldoc.parse(text[:_MAX_TEXT])
    if doc is None:
        return None
    specs: list[object] = []
    project = doc.get("project") if isinstance(doc.get("project"), dict) else {}
    specs += project.get("dependencies") or []
    for group in (project.get("optional-dependencies") or {}).values():
        specs += group if isinstance(group, list) else []
    for group in (doc.get("dependency-groups") or {}).values():
        specs += group if isinstance(group, list) else []
    build = doc.get("build-system") if isinstance(doc.get("build-system"), dict) else {}
    specs += build.get("requires") or []
    out = {n for s in specs if (n := _spec_name(s))}
    poetry = ((doc.get("tool") or {}).get("poetry") or {})
    for key in ("dependencies", "dev-dependencies"):
        out |= {normalise(k) for k in (poetry.get(key) or {}) if isinstance(k, str)}
    return out


def pip_names(text: str) -> set[str]:
    """The packages a document's ``pip install`` lines name (not files, paths or urls)."""
    out: set[str] = set()
    for m in _PIP.finditer(text[:_MAX_TEXT]):
        skip = False
        for word in m.group(1).split():
            tok = word.strip("'\"")
            if skip:
                skip = False
                continue
            if tok in _PIP_VALUED:
                skip = True
                continue
            if tok.startswith(("-", ".", "/", "$", "<")) or "://" in tok or "/" in tok:
                continue
            if n := _spec_name(tok):
                out.add(n)
    return out


def install_words(text: str) -> set[str]:
    """Every word of a document's lines that speak of installing (``Please install
    PyTorch before proceeding``): what the project's own guide has a reader install."""
    out: set[str] = set()
    for line in text[:_MAX_TEXT].splitlines():
        if "install" in line.lower():
            out |= {normalise(w) for w in _WORD.findall(line)}
    return out


def _optional_handler(node: ast.Try) -> bool:
    """A ``try`` whose handlers catch an import failure: its body's imports are optional."""
    for h in node.handlers:
        names = [h.type] if not isinstance(h.type, ast.Tuple) else list(h.type.elts)
        if h.type is None or any(ps.name_chain(n)[-1:] in (["ImportError"],
                                                            ["ModuleNotFoundError"],
                                                            ["Exception"], ["BaseException"])
                                 for n in names if n is not None):
            return True
    return False


def _type_checking(test: ast.expr) -> bool:
    return ps.name_chain(test)[-1:] == ["TYPE_CHECKING"]


def module_level_imports(module: ast.Module) -> list[tuple[str, int]]:
    """(top-level name, line) of the absolute imports run when the module is imported."""
    out: list[tuple[str, int]] = []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                out.extend((a.name.split(".", 1)[0], node.lineno) for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if not node.level and node.module:
                    out.append((node.module.split(".", 1)[0], node.lineno))
            elif isinstance(node, ast.If):
                if not _type_checking(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                visit(node.body)
            elif isinstance(node, ast.Try):
                if not _optional_handler(node):
                    visit(node.body)
                visit(node.orelse)
                visit(node.finalbody)

    visit(module.body)
    return out


def _own_names(paths: frozenset[str], sub: str) -> set[str]:
    """The module and package names the repository defines where an import can reach
    them: at its root (``torchtitan``, ``scripts``) and anywhere below the sub-project's
    folder (a script's sibling, a helper folder a script puts on ``sys.path``). The
    folder's own name is not one: a package may share it (``torchcomms``)."""
    out: set[str] = set()
    for p in paths:
        if not p.endswith(".py"):
            continue
        parts = p.split("/")
        out.add(parts[0].removesuffix(".py"))
        if p.startswith(sub + "/"):
            below = parts[len(sub.split("/")):]
            out.add(below[-1].removesuffix(".py"))
            out.update(below[:-1])
    return out


def project_lists(paths: frozenset[str], text_of: TextOf) -> tuple[set[str], list[str], bool]:
    """(declared names, the lists read, whether any list is there) at project level."""
    names: set[str] = set()
    read: list[str] = []
    there = False
    for p in sorted(paths):
        top = "/" not in p
        ci = p.startswith(".") and _REQ_FILE.search(p) is not None
        if not (ci or (top and (_REQ_FILE.search(p) or p in ("pyproject.toml", "README.md")))):
            continue
        there = there or p != "README.md"
        text = text_of(p)
        if text is None:
            continue  # a link (the root requirements.txt often is) or not loaded
        if p == "pyproject.toml":
            found = pyproject_names(text)
            if found is None:
                continue
            names |= found
        elif p == "README.md":
            names |= pip_names(text) | install_words(text)
        else:
            names |= requirement_names(text)
        read.append(p)
    return names, read, there


def _provided(name: str, declared: set[str]) -> bool:
    """Whether a declared distribution provides the import name (same name, or a known
    pair)."""
    return normalise(name) in declared or any(d in declared for d in _PROVIDERS.get(name, ()))


def analyse_tree(sub: str, paths: frozenset[str], text_of: TextOf) -> Undeclared | None:
    sub = sub.rstrip("/")
    if not sub:
        return None
    declared, read, there = project_lists(paths, text_of)
    if not there:
        return None  # a project that declares nothing anywhere: nothing to compare with
    own_reqs = tuple(p for p in sorted(paths)
                     if posixpath.dirname(p) == sub and _REQ_FILE.search(p))
    nested: dict[str, set[str]] = {}  # folder below the sub-project -> what its file lists
    empty: list[str] = []
    for p in sorted(paths):
        if not (p.startswith(sub + "/") and _REQ_FILE.search(p)):
            continue
        text = text_of(p)
        if text is None:
            continue
        found = requirement_names(text)
        if p in own_reqs:
            declared |= found
            if not found and "-r" not in text:
                empty.append(p)
        else:
            nested.setdefault(posixpath.dirname(p), set()).update(found)
    by_hand: set[str] = set()
    for p in paths:
        if p.startswith(sub + "/") and p.endswith(".md") and (text := text_of(p)):
            by_hand |= pip_names(text)
    own = _own_names(paths, sub)
    first: dict[str, Use] = {}
    count: dict[str, int] = {}
    for p in sorted(paths):
        if not (p.startswith(sub + "/") and p.endswith(".py")):
            continue
        module = ps.parse(text_of(p))
        if module is None:
            continue
        local = set().union(*(names for folder, names in nested.items()
                              if p.startswith(folder + "/")))
        seen: set[str] = set()
        for name, line in module_level_imports(module):
            if name in ps.STDLIB_MODULES or name in own or name in seen or _provided(name, local):
                continue
            seen.add(name)
            first.setdefault(name, Use(name, p, line))
            count[name] = count.get(name, 0) + 1
    uses: list[Use] = []
    unsure: list[tuple[str, str]] = []
    for name, use in sorted(first.items()):
        key = normalise(name)
        if _provided(name, declared):
            continue
        near = sorted(d for d in declared if len(key) >= 3 and key in d)
        if near and name not in _PROVIDERS:
            unsure.append((name, near[0]))
            continue
        uses.append(use)
    if not uses:
        return None
    return Undeclared(sub, tuple(uses), {u.name: count[u.name] for u in uses}, own_reqs,
                      tuple(empty), tuple(read), tuple(unsure),
                      tuple(u.name for u in uses if _provided(u.name, by_hand)))


def _problem(u: Undeclared) -> DocProblem:
    shown = u.uses[:MAX_SHOWN]
    parts = []
    for use in shown:
        more = u.files[use.name] - 1
        parts.append(f"`{use.name}` ({use.file}:{use.line}"
                     + (f" and {plural(more, 'more file')})" if more else ")"))
    rest = len(u.uses) - len(shown)
    what = ", ".join(parts) + (f" and {rest} more" if rest else "")
    one = len(u.uses) == 1
    if u.own_requirements:
        own = " and ".join(posixpath.basename(p) for p in u.own_requirements)
        own_note = f"the folder's {own}" + (" lists no package at all" if u.empty else
                                            " leaves " + ("it" if one else "them") + " out")
        file, line = (u.empty or u.own_requirements)[0], 1
    else:
        own_note = "the folder has no requirements file"
        file, line = shown[0].file, shown[0].line
    # The lists named by their root files; those of dot-folders only counted (their
    # paths say nothing a reader needs, and the line stays short); the root guide's
    # install steps by what they are.
    top = [p for p in u.declared_in if "/" not in p and p != "README.md"]
    more = len(u.declared_in) - len(top) - ("README.md" in u.declared_in)
    lists = ", ".join(top) + (f" and {plural(more, 'requirements file')} beside them"
                              if more else "")
    lists = (lists + (", nor the root guide's install steps" if "README.md" in
                      u.declared_in else "")).removeprefix(", nor ") or "none readable"
    problem = (f"third-party {'package' if one else 'packages'} imported at module level "
               f"that no requirements list names: {what}; {own_note}, nor do the project's "
               f"({lists}), so an install by the documented steps has "
               f"{'it' if one else 'them'} only by chance (as another package's "
               f"dependency) or by hand")
    if u.by_hand:
        problem += "; the folder's docs pip-install " + ", ".join(
            f"`{n}`" for n in u.by_hand[:MAX_SHOWN]) + " by hand"
    if u.not_checked:
        problem += "; not checked (a declared distribution may provide it): " + ", ".join(
            f"`{n}` (~{d})" for n, d in u.not_checked[:MAX_SHOWN])
    return DocProblem(file, line, problem, "requirements")


def analyse(inp: Inputs) -> list[DocProblem]:
    found = analyse_tree(inp.target.subproject, inp.head.paths, inp.head.text)
    return [_problem(found)] if found else []
