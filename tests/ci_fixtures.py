"""Fixtures CI installs but a developer may not have (the pinned npm packages of
``bash .ci/npm-fixtures``): a test that needs one skips on a developer's machine with
the command that installs it, and FAILS under CI (``CI=true``), where a skip would hide
a check (#26 item 4). The project's own modules are never skipped: they are imported.
The ``require_fixture`` fixture in tests/conftest.py hands out ``require``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

NPM_FIXTURES = "bash .ci/npm-fixtures"


def in_ci() -> bool:
    """True in CI (GitHub Actions and most CI services set ``CI=true``)."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def require(present: bool | Path, what: str, *, install: str = NPM_FIXTURES) -> None:
    """Go on when ``present`` (a flag, or a path that must exist); otherwise fail under CI
    and skip elsewhere, both naming ``what`` and the ``install`` command."""
    ok = present.exists() if isinstance(present, Path) else bool(present)
    if ok:
        return
    where = f" ({present})" if isinstance(present, Path) else ""
    message = f"{what} is not installed{where}: run `{install}`"
    if in_ci():
        pytest.fail(f"{message}; CI installs it, so a missing copy is a broken CI step, "
                    "not a reason to skip", pytrace=False)
    pytest.skip(message)
