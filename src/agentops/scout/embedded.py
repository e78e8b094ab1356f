"""The machine-readable block a posted scout report carries, so the next run (and
``handoff``) can tell new from carried items exactly, from the comment alone.

Pure. The block is an HTML comment (invisible when GitHub renders the Markdown):

    <!-- agentops:scout-report v1
    {"date": "2026-12-02", "target": "...", "items": [...], "todos": [...]}
    -->

``--`` cannot appear inside an HTML comment, so the JSON is stored with ``-`` escaped
as ``\\u002d`` (still valid JSON; ``json.loads`` restores it).
"""

from __future__ import annotations

import json
import re
from typing import Any

OPEN = "<!-- agentops:scout-report v1"
_BLOCK_RE = re.compile(r"<!-- agentops:scout-report v1\n(?P<json>.*?)\n-->", re.S)


def embed(markdown: str, payload: dict[str, Any]) -> str:
    """The report with the block appended (replacing an existing one)."""
    text = json.dumps(payload, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    text = text.replace("-", "\\u002d")
    body = _BLOCK_RE.sub("", markdown).rstrip("\n")
    return f"{body}\n\n{OPEN}\n{text}\n-->\n"


def extract(markdown: str) -> dict[str, Any] | None:
    """The payload of the last block in ``markdown``, or ``None`` if it has none or the
    block is not valid JSON (a hand-edited comment)."""
    matches = list(_BLOCK_RE.finditer(markdown))
    if not matches:
        return None
    try:
        payload = json.loads(matches[-1].group("json"))
    except (ValueError, RecursionError):
        # Not JSON (a hand-edited comment), or nested past the parser's recursion limit
        # (a comment body is up to 65,536 characters of someone else's text).
        return None
    return payload if isinstance(payload, dict) else None
