"""Validate the triage skill's shipped data (every queue folder under ``queues/``):
the hook ``scripts/validate_data.py`` discovers.

Reads files only; never writes.
"""

from __future__ import annotations

from pathlib import Path

from agentops.errors import DataError, InputError
from agentops.triage.evaluate import suboncall_label
from agentops.triage.model import Queue
from agentops.triage.queue import FILES, LABELLED_SET, QUEUES_DIR, load_queue


def validate_all() -> list[str]:
    """Load every built-in queue (schemas and cross-checks) and its labelled set; the
    files checked.

    Raises ``DataError`` naming file and key on the first problem."""
    checked: list[str] = []
    for folder in sorted(p for p in QUEUES_DIR.iterdir() if p.is_dir()):
        queue = load_queue(folder.name)
        checked += [f"triage/queues/{folder.name}/{name}" for name in FILES]
        if (folder / LABELLED_SET).is_file():
            validate_labelled(folder / LABELLED_SET, queue)
            checked.append(f"triage/queues/{folder.name}/{LABELLED_SET}")
    return checked


def validate_labelled(path: Path, queue: Queue) -> None:
    """A queue's labelled set: readable records whose expected labels are the queue's."""
    from agentops.triage.offline import read_records

    display = f"triage/queues/{path.parent.name}/{path.name}"
    try:
        records = read_records(str(path))
    except InputError as exc:
        raise DataError(display, "", exc.message) from exc
    seen: set[int] = set()
    for i, rec in enumerate(records, start=1):
        key = f"line {i}"
        if rec.number in seen:
            raise DataError(display, key, f"issue {rec.number} appears twice")
        seen.add(rec.number)
        outside = sorted(rec.modules - set(queue.modules))
        if outside:
            raise DataError(display, f"{key}.expected.modules",
                            f"{outside} are not modules of queue {queue.name!r}")
        if rec.suboncall and suboncall_label(rec.suboncall, queue) is None:
            raise DataError(display, f"{key}.expected.suboncall",
                            f"{rec.suboncall!r} names no sub-oncall of queue {queue.name!r}")
