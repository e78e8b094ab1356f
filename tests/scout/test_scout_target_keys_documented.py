"""(#15) A maintainer of another sub-project writes a target from docs/scout.md alone:
every key the target schema accepts is named there, in its "Targets as data" section."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentops.scout import config

DOC = Path(__file__).resolve().parents[2] / "docs" / "scout.md"


def _keys(schema: dict[str, Any]) -> Iterator[str]:
    for key, sub in (schema.get("properties") or {}).items():
        yield key
        yield from _keys(sub)
        if isinstance(sub.get("items"), dict):
            yield from _keys(sub["items"])
        if isinstance(sub.get("additionalProperties"), dict):
            yield from _keys(sub["additionalProperties"])


def test_every_target_key_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("### Targets as data"):text.index("## Running it elsewhere")]
    keys = set(_keys(config.SCHEMA)) - {"$schema"}
    assert len(keys) > 40  # the walk reached the nested sections
    # Named in code style: `key`, `section.key`, `{key, other}` or `key: value`.
    spans = re.findall(r"`([^`]+)`", section)
    missing = sorted(k for k in keys
                     if not any(re.search(rf"(?<![\w-]){re.escape(k)}(?![\w-])", span)
                                for span in spans))
    assert missing == [], f"target keys not described in docs/scout.md: {missing}"
