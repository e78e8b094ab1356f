"""Which commit since the baseline made a change (S-1): the newest commit at which some
state of a file (a field's type, a method's signature) differs from the version before
it, found walking back from HEAD so a long window parses only the versions it needs.

Pure: the loaded history in, a sha out.
"""

from __future__ import annotations

from collections.abc import Callable

from agentops.scout.analyses import pysource as ps
from agentops.scout.model import Inputs


def touching(inp: Inputs, path: str) -> str:
    """The newest commit of the window that touched ``path`` ("" if none)."""
    return next((c.sha for c in inp.commits if path in c.files), "")


def introduced(inp: Inputs, path: str, state: Callable[[str | None], object]) -> str:
    """The newest commit at which ``state`` of ``path`` changed (the commit that made
    the change, not merely the last one to touch the file); the newest commit touching
    the file when no history was loaded or nothing changed."""
    hist = inp.history.get(path)
    if not hist or inp.base is None:
        return touching(inp, path)
    versions = [("", inp.base.text(path)), *hist]  # oldest first, the baseline first
    later = state(versions[-1][1])
    for i in range(len(versions) - 2, -1, -1):
        cur = state(versions[i][1])
        if cur != later:
            return versions[i + 1][0]
        later = cur
    return touching(inp, path)


def signature_state(dotted: str) -> Callable[[str | None], object]:
    """The state ``introduced`` follows for a function's signature: the parameters of
    the function ``dotted`` names in a version's text (``None`` where it is no function
    or the text is gone)."""
    def state(text: str | None) -> object:
        node = ps.find(ps.parse(text), dotted) if text is not None else None
        return ps.signature(node) if isinstance(node, ps.FuncDef.__args__) else None
    return state
