"""Adapter: what the installed torch defines (S-2 "a named API → look it up in the
installed torch"; S-4 "does a public alternative exist now"). Finds the package without
importing it (importing torch is slow and may need a GPU), and indexes ``def``/``class``
names by module from its source files.

Reads installed files only; never imports or executes them.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
from dataclasses import dataclass, field
from pathlib import Path

_DEF_RE = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.M)
_VERSION_RE = re.compile(r"""^__version__\s*=\s*['"]([^'"]+)['"]""", re.M)


@dataclass(frozen=True)
class PackageIndex:
    """Names defined in an installed package: name → modules defining it."""

    name: str
    version: str
    root: str
    defs: dict[str, tuple[str, ...]] = field(default_factory=dict, hash=False, compare=False)

    def public_modules(self, name: str) -> tuple[str, ...]:
        """Modules defining ``name`` whose path has no ``_``-prefixed part."""
        return tuple(m for m in self.defs.get(name, ())
                     if not any(p.startswith("_") for p in m.split(".")))


def locate(package: str = "torch") -> Path | None:
    """The installed package's directory, found without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def index(root: Path, package: str = "torch", names: set[str] | None = None) -> PackageIndex:
    """Index every ``*.py`` under ``root`` (the package directory); with ``names``, only
    those names (a substring test skips most files, which keeps a full torch fast)."""
    defs: dict[str, list[str]] = {}
    if names is not None and not names:
        names = {"\0"}  # nothing wanted: index nothing, but still read the version
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).with_suffix("")
        parts = [package, *rel.parts]
        if parts[-1] == "__init__":
            parts.pop()
        module = ".".join(parts)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if names is not None and not any(n in text for n in names):
            continue
        for name in set(_DEF_RE.findall(text)):
            if names is None or name in names:
                defs.setdefault(name, []).append(module)
    version = ""
    vfile = root / "version.py"
    if vfile.exists():
        m = _VERSION_RE.search(vfile.read_text(encoding="utf-8", errors="replace"))
        version = m.group(1) if m else ""
    return PackageIndex(package, version, str(root), {k: tuple(v) for k, v in defs.items()})


@dataclass(frozen=True)
class UpstreamSource:
    """The source of one configured upstream outside the repository (``upstreams:``):
    the files of the modules the sub-project imports from it, keyed like repository
    paths (``transformers/modeling_utils.py``), or why it could not be read."""

    name: str
    version: str = ""
    root: str = ""
    files: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    missing: str = ""  # why the source is not there ("" when it is)

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}".strip()


def _dist_version(dist_name: str) -> str:
    try:
        return importlib.metadata.version(dist_name)
    except importlib.metadata.PackageNotFoundError:
        return ""


def upstream_root(spec: dict[str, str], *, base: Path | None = None) -> tuple[Path | None, str]:
    """(the directory holding the package ``name/``, why not found). ``path`` is
    either that directory or the package directory itself; without it the installed
    distribution is used."""
    name = spec["name"]
    if spec.get("path"):
        path = Path(spec["path"])
        if not path.is_absolute() and base is not None:
            path = base / path
        if (path / name).is_dir():
            return path, ""
        if path.is_dir() and path.name == name:
            return path.parent, ""
        return None, f"{spec['path']} holds no {name}/ package"
    pkg = locate(name)
    if pkg is None:
        return None, f"{spec.get('distribution', name)} is not installed"
    return pkg.parent, ""


def load_upstream(spec: dict[str, str], modules: set[str], *, base: Path | None = None,
                  hops: int = 3) -> UpstreamSource:
    """Read the files of ``modules`` (dotted, under the upstream's name) and of the
    modules they re-export from (``from .x import Y`` in a package ``__init__``), a few
    hops deep. Reads files only; never imports them."""
    name = spec["name"]
    root, why = upstream_root(spec, base=base)
    if root is None:
        return UpstreamSource(name, missing=why)
    version = _dist_version(spec.get("distribution", name))
    if not version:
        vfile = root / name / "version.py"
        if vfile.is_file():
            m = _VERSION_RE.search(vfile.read_text(encoding="utf-8", errors="replace"))
            version = m.group(1) if m else ""
    files: dict[str, str] = {}
    todo = {m for m in modules if m == name or m.startswith(name + ".")}
    for _ in range(hops + 1):
        nxt: set[str] = set()
        for module in sorted(todo):
            rel = _module_file(root, module)
            if rel is None or rel in files:
                continue
            try:
                text = (root / rel).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            files[rel] = text
            if rel.endswith("__init__.py"):  # a package re-exports; a module defines
                nxt |= _reexported_from(text, module, True, name)
        todo = nxt
    return UpstreamSource(name, version, str(root), files)


def _module_file(root: Path, module: str) -> str | None:
    base = module.replace(".", "/")
    for cand in (f"{base}.py", f"{base}/__init__.py"):
        if (root / cand).is_file():
            return cand
    return None


_FROM_RE = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import", re.M)


def _reexported_from(text: str, module: str, is_package: bool, root_name: str) -> set[str]:
    """Modules a file imports from, absolute, within the same upstream."""
    out = set()
    package = module if is_package else module.rpartition(".")[0]
    for rel in _FROM_RE.findall(text):
        dots = len(rel) - len(rel.lstrip("."))
        if dots:
            parts = package.split(".")
            parts = parts[:len(parts) - (dots - 1)] if dots > 1 else parts
            absolute = ".".join(p for p in (*parts, rel.lstrip(".")) if p)
        else:
            absolute = rel
        if absolute == root_name or absolute.startswith(root_name + "."):
            out.add(absolute)
    return out
