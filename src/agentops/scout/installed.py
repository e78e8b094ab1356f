"""Adapter: what the installed torch defines (S-2 "a named API → look it up in the
installed torch"; S-4 "does a public alternative exist now"). Finds the package without
importing it (importing torch is slow and may need a GPU), and indexes ``def``/``class``
names by module from its source files.

Reads installed files only; never imports or executes them.
"""

from __future__ import annotations

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
