"""The constraints every triage plan must meet (T-15, T-20 … T-28), as a pure check.

Pure: a plan, the issue's current labels and the queue in, a list of violations out,
each starting with the rule it breaks. The evaluation counts them (they must be 0);
tests run them on every planned case, and tests/triage/test_constraints.py breaks each
rule alone. It reads only ``add_labels``, ``comments`` and ``decision`` (and any
non-add request a plan-like object carries), so it judges a plan however it was made.
"""

from __future__ import annotations

from collections.abc import Iterable

from agentops.triage.model import MAX_COMMENTS_PER_PLAN, Plan, Queue

# T-20: what a plan must never ask for. ``Plan`` has no such field (add-only by
# construction); a plan-like object from elsewhere that carries one is a violation,
# not a request to drop silently.
NON_ADD_REQUESTS = ("remove_labels", "close", "lock", "assignees", "state")


def violations(plan: Plan, existing: Iterable[str], queue: Queue) -> list[str]:
    """Every way ``plan`` breaks T-15, T-20 … T-28 given the labels already on the issue."""
    have = {lb.casefold() for lb in existing}
    add = list(plan.add_labels)
    final = have | {lb.casefold() for lb in add}
    out: list[str] = []
    for request in NON_ADD_REQUESTS:
        if getattr(plan, request, None):
            out.append(f"T-20: the plan asks for {request!r}; triage only adds labels and "
                       "comments")
    for lb in add:
        if lb.casefold() in have:
            # A label sent again is a write on every later run too.
            out.append(f"T-27: adds {lb!r}, already on the issue")
        if lb not in queue.allowlist:
            out.append(f"T-21: {lb!r} is not in the queue's labels.json")
    subs = [s for s in queue.suboncalls if s.casefold() in final]
    if len(subs) > 1 and any(s in add for s in subs):
        out.append(f"T-22: more than one sub-oncall after the run: {subs}")
    if queue.triaged_label in add:
        blockers = [x for x in (queue.review_label, queue.needs_repro_label)
                    if x.casefold() in final]
        if blockers or plan.decision == "high_priority":
            out.append(f"T-23: {queue.triaged_label!r} with {blockers or 'high priority'}")
    if plan.decision == "high_priority":
        if queue.marker_label in add:
            out.append(f"T-24: {queue.marker_label!r} on the high-priority path")
        if queue.review_label.casefold() not in final:
            out.append(f"T-15: high priority without {queue.review_label!r}")
    elif queue.marker_label.casefold() not in final:
        out.append(f"T-24: handled issue without {queue.marker_label!r}")
    sub_at = [i for i, lb in enumerate(add) if lb in queue.suboncalls]
    mod_at = [i for i, lb in enumerate(add) if lb in queue.modules]
    if sub_at and mod_at and min(mod_at) < max(sub_at):
        out.append("T-25: a module label comes before the sub-oncall")
    if len(plan.comments) > MAX_COMMENTS_PER_PLAN:
        out.append("T-28: more than one comment")
    for name in plan.comments:
        if name not in queue.templates:
            out.append(f"T-26: comment {name!r} is not a template of the queue")
    return out
