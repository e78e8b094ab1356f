"""Small helpers the item builders share: short shas, code spans, name lists."""

from __future__ import annotations

from collections.abc import Iterable


def short(sha: str) -> str:
    return sha[:9] if sha else "before the baseline window"


def code(name: str) -> str:
    return f"`{name}`"


def names(values: Iterable[str], limit: int = 6) -> str:
    """```a`, `b`, `c` …`` (at most ``limit``, then how many more)."""
    vals = list(values)
    shown = ", ".join(code(v) for v in vals[:limit])
    return shown + (f" and {len(vals) - limit} more" if len(vals) > limit else "")


def plural(n: int, word: str) -> str:
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}" + ("es" if word.endswith(("s", "sh", "ch", "x")) else "s")


def rel(path: str, subproject: str) -> str:
    """A sub-project file as the sub-project's maintainers name it (``llama3/x.py``)."""
    return path.removeprefix(subproject.rstrip("/") + "/")


def base(path: str) -> str:
    return path.rsplit("/", 1)[-1]
