"""The torchtitan git mirror the scout benchmarks read: checked as an argument, and
checked out per commit as a throw-away bare clone sharing its objects (the mirror
itself is never written)."""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

# JSON-schema pieces every scout benchmark's data file uses: a commit of the mirror
# (full sha and the date its report is dated), and the 12-hex id of a report item.
SHA = {"type": "string", "pattern": "^[0-9a-f]{40}$"}
COMMIT_REF = {"type": "object", "additionalProperties": False, "required": ["head", "date"],
              "properties": {"head": SHA, "date": {"type": "string", "format": "date"}}}
ITEM_ID = {"type": "string", "pattern": "^[0-9a-f]{12}$"}


def git_repository(parser: argparse.ArgumentParser, value: str) -> Path:
    """``value`` as a path to a git repository (bare or not), else a usage error."""
    path = Path(value)
    if not (path / "HEAD").exists() and not (path / ".git").exists():
        parser.error(f"{path} is not a git repository")
    return path


def checkout(mirror: Path, sha: str, dest: Path) -> Path:
    """A bare clone sharing the mirror's objects, HEAD detached at ``sha``."""
    subprocess.run(["git", "clone", "-q", "--bare", "--shared", str(mirror), str(dest)],
                   check=True)
    subprocess.run(["git", "-C", str(dest), "update-ref", "--no-deref", "HEAD", sha],
                   check=True)
    return dest
