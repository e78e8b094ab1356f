"""TOML files of the checkout (configs, ``pyproject.toml``), read as untrusted text.

``tomllib`` raises ``RecursionError`` on deeply nested arrays or inline tables (a 100 KB
file of ``[`` is enough), besides its decode errors; one analysis reading a hostile file
must not end the whole report with a traceback. Every analysis that reads TOML goes
through ``parse``.
"""

from __future__ import annotations

import tomllib
from typing import Any


def parse(text: str) -> dict[str, Any] | None:
    """The document, or None when the text is not TOML or nests past the parser's
    recursion limit."""
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        return None
