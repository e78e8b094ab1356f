"""Turn analysis results into report items (S-7), then reconcile them with the prior
reports: new vs carried (exact, by stable id), resolved, and FYIs dropped after three
unchanged reports.

Pure: results and prior payloads in, ``Item`` records out.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from agentops.scout import itemize
from agentops.scout.analyses import bodydrift
from agentops.scout.analyses import pysource as ps
from agentops.scout.livedata import BoardItem
from agentops.scout.model import (
    FACT_CHARS,
    MAX_FACTS,
    Inputs,
    Item,
    PriorPayload,
    stable_id,
)

# Findings about a change between the baseline and HEAD: reported once, then tracked on
# the board. They are never "carried" or "resolved" just because the baseline moved on.
DELTA_SECTIONS = ("S-1",)
# Kinds that are dropped once unchanged in the three newest reports (S-7, the seed's
# noise rule applied to every informational section).
SILENCED_KINDS = ("fyi", "opportunity", "docs")


def build(inp: Inputs, res: dict[str, Any]) -> list[Item]:
    """Candidate items of this run (before reconciliation with the priors)."""
    return itemize.build(inp, res)


def reconcile(candidates: list[Item], priors: tuple[PriorPayload, ...], date: str,
              inp: Inputs | None = None) -> tuple[list[Item], list[Item], list[str]]:
    """(items, resolved, suppressed): carried forward = an action item of a prior report
    found again, with what changed since; resolved = a prior action item (not a
    one-time delta) no longer found where the analysis could look again; one it could
    not re-examine at HEAD (``inp`` shows a file of it gone, or an upstream definition
    it was about renamed, moved or wrapped) is never resolved and never re-posted
    unchanged: its basis changed, so it is dropped in one FYI line saying why (#22);
    an FYI or opportunity unchanged in the three newest prior reports (or already
    suppressed) is dropped.
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
    dropped: list[tuple[dict[str, Any], str]] = []
    if newest is not None:
        for it in newest.items:
            if it.get("kind") in ("action", "carried") and it["id"] not in current \
                    and it.get("section") not in DELTA_SECTIONS:
                why_not = unexamined(it, inp) if inp is not None else ""
                if why_not:
                    # Its basis changed and this run did not re-derive it: re-posting
                    # the old text would assert what nothing checked (#22).
                    dropped.append((it, why_not))
                    continue
                resolved.append(Item(
                    id=it["id"], section=it.get("section", ""), kind="all_clear",
                    title=f"Resolved since {newest.date}: {it.get('title', '')}",
                    files=tuple(it.get("files", ())),
                    first_reported=it.get("first_reported", "")))
    if dropped and newest is not None:
        items.append(_dropped(dropped, first, newest.date, date))
    return items, resolved, sorted(suppressed)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def unexamined(prior_item: dict[str, Any], inp: Inputs) -> str:
    """Why a prior action item that is no longer found could not be re-examined at
    HEAD ("" when it could): one of its files is not at HEAD (moved or removed), or a
    function or class it names was defined in one of its upstream files (outside the
    sub-project) at the baseline and is defined there no more (renamed, moved, or
    wrapped): the pairing or comparison that found it was not made, so its absence
    says nothing."""
    files = [str(f) for f in prior_item.get("files") or () if isinstance(f, str)]
    sub = inp.target.subproject.rstrip("/") + "/"
    gone = [f for f in files if f not in inp.head.paths]
    upstream_gone = [f for f in gone if not f.startswith(sub)]
    if upstream_gone:
        return f"{', '.join(upstream_gone[:3])} not at HEAD (moved or removed upstream?)"
    if gone:
        # A sub-project file removed outright took the finding with it; a file of the
        # same name elsewhere may be the same file moved, which this run analysed
        # under another identity.
        moved = [f"{f} (a `{f.rsplit('/', 1)[-1]}` is now at "
                 f"{', '.join(sorted(others)[:2])})" for f in gone
                 if (others := [q for q in inp.head.paths
                                if q.rsplit("/", 1)[-1] == f.rsplit("/", 1)[-1]])]
        return f"{'; '.join(moved[:3])}: not at HEAD, moved?" if moved else ""
    if inp.base is None:
        return ""
    words = " ".join([*(str(f) for f in prior_item.get("facts") or ()),
                      *re.findall(r"`([^`]+)`", str(prior_item.get("title", "")))])
    named = set(_NAME.findall(words))
    lost: list[str] = []
    renamed: list[str] = []
    for f in files:
        if not f.endswith(".py"):
            continue
        before = _defined(inp.base.text(f)) & named
        gone = sorted(before - _defined(inp.head.text(f)))
        if not f.startswith(sub):
            lost += [f"`{n}` ({f})" for n in gone]
            continue
        # The sub-project's own function gone: removed (the finding went with it) or
        # renamed, which the analysis then paired under another name, if at all.
        renamed += [f"`{n}` ({f}) looks renamed to `{new}`"
                    for n in gone if (new := _renamed_to(inp, f, n))]
    if lost:
        return (f"{', '.join(lost[:3])} no longer defined there (renamed, moved or "
                "wrapped upstream?); the comparison was not made")
    if renamed:
        return "; ".join(renamed[:3]) + "; the comparison was not made under the new name"
    return ""


RENAMED_SIMILAR = 0.8  # share of the old body's statements a renamed function repeats


def _renamed_to(inp: Inputs, path: str, name: str) -> str:
    """The function of ``path`` at HEAD, new since the baseline, whose body repeats
    most of what ``name``'s did ("" when none does)."""
    old = _find_def(ps.parse(inp.base.text(path) or "") if inp.base else None, name)
    mod = ps.parse(inp.head.text(path) or "")
    if old is None or mod is None:
        return ""
    before = _defined(inp.base.text(path) if inp.base else None)
    for node in ps.walk(mod):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and \
                node.name not in before and bodydrift.similarity(old, node) >= RENAMED_SIMILAR:
            return node.name
    return ""


def _find_def(mod: ast.Module | None, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    for node in ps.walk(mod) if mod is not None else ():
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return node
    return None


def _defined(text: str | None) -> set[str]:
    """Names of the functions and classes a module defines (any depth)."""
    mod = ps.parse(text) if text else None
    if mod is None:
        return set()
    return {n.name for n in ps.walk(mod)
            if isinstance(n, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)}


def _dropped(gone: list[tuple[dict[str, Any], str]], first: dict[str, str], since: str,
             date: str) -> Item:
    """One FYI line for the prior action items whose basis (a file or definition they
    compared) changed or vanished and that this run did not re-derive: said once, with
    why, never re-posted as an action; the board item, if any, is the maintainer's to
    close or re-point (#22: no stale action item carried on)."""
    # Grouped by why: the items of one vanished file share it, and the line stays short
    # enough to show every title.
    by_why: dict[str, list[str]] = {}
    for it, why in gone:
        by_why.setdefault(why, []).append(
            f"{_short(str(it.get('title') or it['id']), 60)} (first reported "
            f"{first.get(it['id'], since)})")
    shown = "; ".join(f"{why}: {', '.join(ts[:3])}" + (f" and {len(ts) - 3} more"
                                                       if len(ts) > 3 else "")
                      for why, ts in list(by_why.items())[:3])
    more = f"; and {len(by_why) - 3} more reason(s)" if len(by_why) > 3 else ""
    return Item(
        id=stable_id("dropped-basis", *sorted(str(it["id"]) for it, _ in gone)),
        section="S-0", kind="fyi",
        title=f"{len(gone)} prior action item(s) dropped: what they compared changed "
              f"since {since} and this run did not find them again (re-point the target "
              "if a finding still holds, else close its board item)",
        why=f"{shown}{more}",
        files=tuple(dict.fromkeys(str(f) for it, _ in gone for f in it.get("files") or ()
                                  if isinstance(f, str))),
        first_reported=date,
        facts=tuple(sorted(str(it["id"]) for it, _ in gone)))


def _short(title: str, limit: int) -> str:
    """``title`` cut to ``limit`` characters, never inside a backtick span (an open
    one would turn the rest of the line into code)."""
    if len(title) <= limit:
        return title
    cut = title[:limit]
    if cut.count("`") % 2:
        cut = cut[:cut.rindex("`")]
    return cut.rstrip() + "…"


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
