"""Small helpers the item builders share: short shas, code spans, name lists, the file
and line of a ``file:line`` place."""

from __future__ import annotations

from collections.abc import Iterable


def short(sha: str) -> str:
    return sha[:9]


def made_by(sha: str, file: str = "", watched: Iterable[str] = ()) -> str:
    """Who made a change found between the baseline and HEAD: the window's commit when
    the log of the watched paths names it. Both trees were compared, so a change with no
    commit to name was still made in the window (never "before the baseline window"):
    say why no commit is named -- its file is outside `watched_paths`, or no commit of
    their log touches it (a file moved or renamed there)."""
    if sha:
        return short(sha)
    if file and watched and not file.startswith(tuple(watched)):
        return "in the window; its file is outside `watched_paths`"
    return "in the window; no commit of `watched_paths` names its file"


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
