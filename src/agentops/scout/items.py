"""Turn analysis results into report items (S-7), then reconcile them with the prior
reports: new vs carried (exact, by stable id), resolved, and FYIs dropped after three
unchanged reports.

Pure: results and prior payloads in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout import itemize
from agentops.scout.livedata import BoardItem
from agentops.scout.model import FACT_CHARS, MAX_FACTS, Inputs, Item, PriorPayload

# Findings about a change between the baseline and HEAD: reported once, then tracked on
# the board. They are never "carried" or "resolved" just because the baseline moved on.
DELTA_SECTIONS = ("S-1",)
# Kinds that are dropped once unchanged in the three newest reports (S-7, the seed's
# noise rule applied to every informational section).
SILENCED_KINDS = ("fyi", "opportunity", "docs")


def build(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """Candidate items of this run (before reconciliation with the priors)."""
    return itemize.build(inp, res)


def reconcile(candidates: list[Item], priors: tuple[PriorPayload, ...], date: str
              ) -> tuple[list[Item], list[Item], list[str]]:
    """(items, resolved, suppressed): carried forward = an action item of a prior report
    found again, with what changed since; resolved = a prior action item (not a
    one-time delta) no longer found; an FYI or opportunity unchanged in the three newest
    prior reports (or already suppressed) is dropped.
    """
    first: dict[str, str] = {}
    last_fp: dict[str, tuple[str, str, tuple[str, ...]]] = {}
    for p in priors:  # oldest first
        for it in p.items:
            if it.get("kind") in ("action", "carried"):
                first.setdefault(it["id"], it.get("first_reported") or p.date)
                last_fp[it["id"]] = (it.get("fingerprint", ""), p.date,
                                     tuple(str(f) for f in it.get("facts") or ()))
    newest = priors[-1] if priors else None
    suppressed_before = set(newest.suppressed) if newest else set()
    last3 = priors[-3:] if len(priors) >= 3 else ()
    items: list[Item] = []
    suppressed: list[str] = []
    for cand in candidates:
        it = cand
        if it.kind == "action" and it.id in first:
            fp, when, facts = last_fp[it.id]
            status = (f"still open, unchanged since {when}" if fp == it.fingerprint
                      else f"still open, changed since {when}"
                      + _what_changed(facts, it.facts))
            # Posted unchanged in each of the three newest reports: not a fourth time
            # (one counted line says how many are held back; the board tracks them).
            muted = bool(last3) and all(_posted(p, it) for p in last3)
            items.append(Item(**{**it.__dict__, "kind": "carried",
                                 "first_reported": first[it.id], "status": status,
                                 "muted": muted}))
            continue
        if it.section == "S-6" and newest is not None and not any(
                p_it["id"] == it.id for p_it in newest.items):
            # S-6: highlight what changed since the previous report.
            it = Item(**{**it.__dict__, "status": f"new since {newest.date}"})
        if it.kind in SILENCED_KINDS:
            key = f"{it.id}:{it.fingerprint}"
            unchanged_3 = bool(last3) and all(
                any(p_it["id"] == it.id and p_it.get("fingerprint", "") == it.fingerprint
                    for p_it in p.items) for p in last3)
            if key in suppressed_before or unchanged_3:
                suppressed.append(key)
                continue
        items.append(Item(**{**it.__dict__, "first_reported": it.first_reported or date}))
    current = {i.id for i in items}
    resolved: list[Item] = []
    if newest is not None:
        for it in newest.items:
            if it.get("kind") in ("action", "carried") and it["id"] not in current \
                    and it.get("section") not in DELTA_SECTIONS:
                resolved.append(Item(
                    id=it["id"], section=it.get("section", ""), kind="all_clear",
                    title=f"Resolved since {newest.date}: {it.get('title', '')}",
                    files=tuple(it.get("files", ())),
                    first_reported=it.get("first_reported", "")))
    return items, resolved, sorted(suppressed)


def _posted(prior: PriorPayload, it: Item) -> bool:
    """Whether ``prior`` had action item ``it`` with the same fingerprint (posted or
    already held back as unchanged)."""
    return any(p_it["id"] == it.id and p_it.get("kind") in ("action", "carried")
               and p_it.get("fingerprint", "") == it.fingerprint for p_it in prior.items)


def _what_changed(before: tuple[str, ...], now: tuple[str, ...]) -> str:
    """": now also X; no longer Y" from the facts of the last report and of this one."""
    if not before:
        return ""
    # The prior's facts were bounded when stored: bound these the same way, or a long
    # list would read as changed every night.
    now = tuple(f[:FACT_CHARS] for f in now[:MAX_FACTS])
    added = [f for f in now if f not in before]
    gone = [f for f in before if f not in now]
    parts = ([f"now also {', '.join(added[:4])}"] if added else []) + (
        [f"no longer {', '.join(gone[:4])}"] if gone else [])
    return (": " + "; ".join(parts)) if parts else ""


def annotate_board(items: list[Item], board: tuple[BoardItem, ...]) -> list[Item]:
    """S-0b: say where an action item stands on the board (its item body carries the
    ``scout-item:<id>`` marker, or its title ends with the item's title)."""
    out = []
    for it in items:
        found = None
        if it.kind in ("action", "carried"):
            found = next((b for b in board if f"scout-item:{it.id}" in b.body
                          or (b.title.startswith("[NightlyScout]")
                              and it.title[:60] in b.title)), None)
        if found is not None:
            note = f"board: {found.status or 'no status'}"
            out.append(Item(**{**it.__dict__,
                               "status": f"{it.status}; {note}" if it.status else note}))
        else:
            out.append(it)
    return out
