"""Validation of the scout's shipped data (targets), for scripts/validate_data.py.

Reads the shipped target files only.
"""

from __future__ import annotations

from agentops.scout.config import TARGETS_DIR, builtin_names, load_target


def validate_all() -> list[str]:
    """Load every built-in target (raises ``DataError`` naming file and key)."""
    checked = []
    for name in builtin_names():
        load_target(name)
        checked.append(str(TARGETS_DIR.relative_to(TARGETS_DIR.parents[2]) / f"{name}.yaml"))
    return checked
