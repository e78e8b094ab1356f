"""Validate the triage skill's shipped data (every queue folder under ``queues/``):
the hook ``scripts/validate_data.py`` discovers.

Reads files only; never writes.
"""

from __future__ import annotations

from agentops.triage.queue import FILES, QUEUES_DIR, load_queue


def validate_all() -> list[str]:
    """Load every built-in queue (schemas and cross-checks); the files checked.

    Raises ``DataError`` naming file and key on the first problem."""
    checked: list[str] = []
    for folder in sorted(p for p in QUEUES_DIR.iterdir() if p.is_dir()):
        load_queue(folder.name)
        checked += [f"triage/queues/{folder.name}/{name}" for name in FILES]
    return checked
