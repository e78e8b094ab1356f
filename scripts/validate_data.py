#!/usr/bin/env python3
"""Validate every data file agentops ships (rubrics, templates, scout targets, lint
lexicons): the CI gate, like pre-commit's validate-config.

Each skill package that ships data has a ``datafiles`` module with
``validate_all() -> list[str]`` (the files it checked); errors name file and key.

  python scripts/validate_data.py          # exit 0 when all valid, 1 otherwise
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import agentops
from agentops import cli
from agentops.errors import ExitStatus


def _build():  # type: ignore[no-untyped-def]
    return cli.parser("validate_data.py", __doc__.split("\n\n")[0], "example:\n  "
                      "python scripts/validate_data.py")


def _dispatch(_args) -> int:  # type: ignore[no-untyped-def]
    checked: list[str] = []
    for mod in pkgutil.iter_modules(agentops.__path__):
        if not mod.ispkg:
            continue
        try:
            datafiles = importlib.import_module(f"agentops.{mod.name}.datafiles")
        except ModuleNotFoundError as exc:
            if exc.name == f"agentops.{mod.name}.datafiles":
                continue
            raise
        checked += datafiles.validate_all()
    for name in checked:
        print(f"ok  {name}")
    print(f"{len(checked)} data file(s) valid")
    return ExitStatus.OK


def main(argv: Sequence[str] | None = None) -> int:
    return cli.run(_build, _dispatch, argv)


if __name__ == "__main__":
    raise SystemExit(main())
