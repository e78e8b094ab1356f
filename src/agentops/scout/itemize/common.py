"""Small helpers the item builders share: short shas, code spans, name lists, the file
and line of a ``file:line`` place."""

from __future__ import annotations

from collections.abc import Iterable


def short(sha: str) -> str:
    return sha[:9] if sha else "before the baseline window"


def code(name: str) -> str:
    return f"`{name}`"


def listed(values: Iterable[str], limit: int) -> str:
    """``a, b, c`` (at most ``limit``, then how many more): every capped list of a
    title says the rest in the same words."""
    vals = list(values)
    shown = ", ".join(vals[:limit])
    return shown + (f" and {len(vals) - limit} more" if len(vals) > limit else "")


def names(values: Iterable[str], limit: int = 6) -> str:
    """```a`, `b`, `c` …`` (at most ``limit``, then how many more)."""
    return listed((code(v) for v in values), limit)


def plural(n: int, word: str) -> str:
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}" + ("es" if word.endswith(("s", "sh", "ch", "x")) else "s")


def rel(path: str, subproject: str) -> str:
    """A sub-project file as the sub-project's maintainers name it (``llama3/x.py``)."""
    return path.removeprefix(subproject.rstrip("/") + "/")


def place_file(place: str) -> str:
    """The file of a ``file:line`` place (``a/b.py:12`` -> ``a/b.py``); a path that
    holds a colon of its own keeps it, only the last one starts the line."""
    return place.rsplit(":", 1)[0]


def place_line(place: str) -> str:
    """The line of a ``file:line`` place (``a/b.py:12`` -> ``12``)."""
    return place.rsplit(":", 1)[-1]


def base(path: str) -> str:
    return path.rsplit("/", 1)[-1]
