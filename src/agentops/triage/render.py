"""Plans and run outcomes as Markdown (job summary, T-31) and as log lines.

Pure: returns strings; never writes. Issue titles and error texts are untrusted and go
through ``ghactions.inert_markdown`` (``markdown_escape.text``), ``markdown_escape.code``
or ``console.inert_line`` before they reach a summary or log.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentops import markdown_escape as esc
from agentops.console import inert_line
from agentops.ghactions import inert_markdown
from agentops.triage.outcome import Outcome

MAX_WHY_ISSUES = 60
MAX_EVIDENCE = 8

_RESULT = {
    "applied": "applied",
    "no-op": "nothing to change",
    "dry-run": "dry run (nothing written)",
    "skipped": "skipped",
    "failed": "FAILED",
    "partial": "PARTLY APPLIED",
    "awaiting": "awaiting humans",
}


def _code_list(labels: Sequence[str]) -> str:
    # Label names come from the queue's allowlist, but still pass through the escaper:
    # a backtick or pipe in a name must not break the table.
    return ", ".join(esc.code(lb, cell=True, limit=80) for lb in labels) or "—"


def comment_cell(o: Outcome, *, dry_run: bool) -> str:
    """Posted / would post / skipped (and why) / none."""
    if o.comment:
        verb = "would post" if dry_run or o.status == "dry-run" else "posted"
        return f"{verb} `{o.comment}`"
    if o.comment_skipped:
        return f"skipped: {inert_markdown(o.comment_skipped, cell=True, limit=160)}"
    return "—"


def issue_cell(o: Outcome) -> str:
    """``[#N](url) title`` with the title made inert."""
    link = f"[#{o.number}]({o.url})" if o.url.startswith("https://") or o.url.startswith(
        "http://") else f"#{o.number}"
    title = inert_markdown(o.title, cell=True, limit=90)
    return f"{link} {title}".rstrip()


def summary(outcomes: Sequence[Outcome], *, heading: str, dry_run: bool, api_line: str,
            notes: Sequence[str] = ()) -> str:
    """The run's job summary: one table row per issue, then notes and the API call line."""
    rows = [o for o in outcomes if o.status != "awaiting"]
    waiting = [o for o in outcomes if o.status == "awaiting"]
    labels_head = "Labels to add" if dry_run else "Labels added"
    out = [f"### {inert_markdown(heading, limit=200)}", ""]
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
    out.append("Issues: " + (", ".join(f"{_RESULT[k]} {v}" for k, v in sorted(counts.items()))
                             or "none"))
    out.append("")
    if rows:
        out += [f"| Issue | Decision | {labels_head} | Comment | Confidence | Result |",
                "|---|---|---|---|---|---|"]
        for o in rows:
            result = _RESULT[o.status]
            if o.reason:
                result += f": {inert_markdown(o.reason, cell=True, limit=240)}"
            if o.adjustments:
                result += " (" + inert_markdown("; ".join(o.adjustments), cell=True,
                                                limit=240) + ")"
            out.append(f"| {issue_cell(o)} | {o.decision or '—'} | {_code_list(o.labels)} | "
                       f"{comment_cell(o, dry_run=dry_run)} | {o.confidence or '—'} | {result} |")
        out.append("")
    why = [o for o in rows if o.plan is not None and (o.plan.evidence or o.plan.reasoning)]
    if why:
        # Reviewers check the bot by its reasons; capped so a big sweep stays readable.
        out += ["<details><summary>Why (evidence per issue)</summary>", ""]
        for o in why[:MAX_WHY_ISSUES]:
            assert o.plan is not None
            out.append(f"- **#{o.number}** {inert_markdown(o.plan.reasoning, limit=300)}")
            for ev in o.plan.evidence[:MAX_EVIDENCE]:
                out.append(f"  - {esc.code(ev.label, cell=True, limit=80)} ← "
                           f"{inert_markdown(ev.signal, limit=80)} ({ev.where})")
        if len(why) > MAX_WHY_ISSUES:
            out.append(f"- … {len(why) - MAX_WHY_ISSUES} more in the plans file")
        out += ["", "</details>", ""]
    if waiting:
        out.append(f"**Awaiting humans** (high priority, labelled for review, unchanged since "
                   f"last planned, not re-planned): {len(waiting)}")
        out.append("")
        out += [f"- {issue_cell(o)}" for o in waiting]
        out.append("")
    out += [f"{n}" for n in notes]
    if notes:
        out.append("")
    out.append(api_line)
    return "\n".join(out) + "\n"


def progress_line(o: Outcome, *, index: int | None = None, total: int | None = None) -> str:
    """``[k/N] #num decision labels comment`` for the log (title made inert)."""
    head = f"[{index}/{total}] " if index is not None and total is not None else ""
    parts = [f"{head}#{o.number} {o.decision or o.status}"]
    if o.labels:
        parts.append(("+" if o.status != "dry-run" else "would add ") + ", ".join(o.labels))
    if o.comment:
        parts.append(f"comment {o.comment}" + (" (dry run)" if o.status == "dry-run" else ""))
    elif o.comment_skipped:
        parts.append(f"comment skipped: {o.comment_skipped}")
    if o.status in ("no-op", "skipped", "failed", "partial", "awaiting"):
        parts.append(_RESULT[o.status] + (f": {o.reason}" if o.reason else ""))
    return inert_line(" | ".join(parts), limit=1000)
