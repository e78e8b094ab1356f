"""What the verbs print and hand to the workflow: one line or JSON on stdout, and the
probe matrix (``{"include": [...]}``) with artifact-safe slugs (``plan``, ``narrow``,
``probe``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agentops import console
from agentops.bisect import index as idx
from agentops.http import redact


def emit(text: str) -> None:
    console.say(text[:-1] if text.endswith("\n") else text)


def json_text(obj: Any) -> str:
    return console.json_text(obj, indent=2, sort_keys=False)


def slug(version: str) -> str:
    """A version made safe for artifact and file names (``+`` and ``.`` kept out)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", version).strip("-")


def probe_matrix(ns: Sequence[idx.Nightly], positions: Sequence[int]) -> dict[str, Any]:
    # Security: the matrix is printed and stored; the probe re-adds the index URL's
    # credentials to a wheel URL on the same host.
    return {"include": [{"version": str(ns[i].version), "wheel_url": redact(ns[i].wheel.url),
                         "slug": slug(str(ns[i].version)),
                         "date": ns[i].date.isoformat() if ns[i].date else None}
                        for i in positions]}
