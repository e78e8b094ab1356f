"""S-6 items: open PRs waiting for review, recent merges, stale issues (live data).

Pure: results in, ``Item`` records out.
"""

from __future__ import annotations

from typing import Any

from agentops.scout.model import Inputs, Item, stable_id


def items(_inp: Inputs, res: dict[str, Any]) -> list[Item]:
    ow = res["open_work"]
    out: list[Item] = []
    if ow is None:
        return out
    for pr in ow.waiting_prs:
        out.append(Item(
            id=stable_id("pr-waiting", pr.repo, str(pr.number)), section="S-6", kind="fyi",
            title=f"PR {pr.repo}#{pr.number} waiting for review: {pr.title}", where=pr.url,
            fingerprint=stable_id(pr.updated_at)))
    for pr in ow.merged_recently:
        out.append(Item(
            id=stable_id("pr-merged", pr.repo, str(pr.number)), section="S-6", kind="fyi",
            title=f"Merged {pr.repo}#{pr.number}: {pr.title} — follow-up docs/tests?",
            where=pr.url))
    for issue in ow.stale_issues:
        out.append(Item(
            id=stable_id("issue-stale", issue.repo, str(issue.number)), section="S-6",
            kind="fyi", title=f"Issue {issue.repo}#{issue.number} without activity since "
                              f"{issue.updated_at[:10]}: {issue.title}", where=issue.url,
            fingerprint=stable_id(issue.updated_at)))
    return out
