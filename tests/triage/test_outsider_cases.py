"""Outsider hand cases (issue #23): tests/triage/data/outsider_cases.yaml.

The cases were written from the spec and the seed alone, before the planner was run on
them (see the file's header); this test plans each with the shipped queue and checks the
parts of the plan its ``expect`` states. A case marked ``xfail: <reason>`` is a known
failure whose fix would lower the benchmark; the xfail is strict, so it fails once the
planner starts passing it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from agentops.triage.constraints import violations
from agentops.triage.model import Comment, IssueSnapshot, Plan, Queue
from agentops.triage.plan import plan_issue

DATA = Path(__file__).parent / "data" / "outsider_cases.yaml"
CASES: list[dict[str, Any]] = yaml.safe_load(DATA.read_text(encoding="utf-8"))["cases"]
SUBONCALLS = ("oncall: distributed parallelisms", "oncall: distributed infra",
              "oncall: distributed checkpointing")


def snapshot(case: dict[str, Any], number: int) -> IssueSnapshot:
    comments = tuple(
        Comment(id=i + 1, author=c["author"], body=c["body"],
                author_type="Bot" if c.get("bot") else "User")
        for i, c in enumerate(case.get("comments") or ()))
    return IssueSnapshot(repo="example-org/example-ml", number=number, title=case["title"],
                         body=case["body"], labels=tuple(case["labels"]), comments=comments)


def _flag(expect: dict[str, Any], key: str, label: str, added: set[str]) -> list[str]:
    if key not in expect or expect[key] is None:
        return []
    return [f"{key}: expected {expect[key]}"] if (label in added) != expect[key] else []


def check(case: dict[str, Any], plan: Plan, queue: Queue) -> dict[str, str]:
    """The failed parts of ``plan`` against ``case['expect']``: part name -> why."""
    exp = case["expect"]
    added = set(plan.add_labels)
    role = {lab: "module" for lab in queue.modules if lab != queue.performance_label}
    role.update({queue.feature_label: "feature", queue.enhancement_label: "enhancement",
                 queue.performance_label: "performance"})
    fails: dict[str, str] = {}
    if "distributed" in exp and (plan.decision == "not_distributed") == exp["distributed"]:
        fails["step1"] = f"decision {plan.decision}"
    if "decision" in exp and plan.decision != exp["decision"]:
        fails["decision"] = f"{plan.decision} != {exp['decision']}"
    if "suboncall" in exp:
        now = {s for s in SUBONCALLS if s in added or s in case["labels"]}
        want = {exp["suboncall"]} if exp["suboncall"] else set()
        if now != want or len(added & set(SUBONCALLS)) > 1:
            fails["suboncall"] = f"{sorted(now)} != {sorted(want)}"
    if "modules" in exp or "modules_ok" in exp:
        must = set(exp.get("modules") or ())
        may = must | set(exp.get("modules_ok") or ())
        got = {lab for lab in added if role.get(lab) == "module"}
        if not must <= got or not got <= may:
            fails["modules"] = f"{sorted(got)} (need {sorted(must)}, may {sorted(may)})"
    if "type" in exp:
        got_type = {lab for lab in added if role.get(lab) in ("feature", "enhancement")}
        if got_type != ({exp["type"]} if exp["type"] else set()):
            fails["type"] = f"{sorted(got_type)} != {exp['type']}"
    if "performance" in exp:
        perf = any(role.get(lab) == "performance" for lab in added)
        if perf != exp["performance"]:
            fails["performance"] = f"performance {perf}"
    hp = "triage review" in added and not (added & {"bot-triaged", "ptd-bot-triaged"})
    if "high_priority" in exp and hp != exp["high_priority"]:
        fails["high_priority"] = f"high-priority path {hp}"
    for key, label in (("triaged", "triaged"), ("review", "triage review"),
                       ("needs_repro", "needs reproduction")):
        for why in _flag(exp, key, label, added):
            fails[key] = why
    if "comment" in exp:
        want_c = (exp["comment"],) if exp["comment"] else ()
        if tuple(plan.comments) != want_c:
            fails["comment"] = f"{plan.comments} != {want_c}"
    return fails


def _params() -> list[Any]:
    out = []
    for case in CASES:
        marks = [pytest.mark.xfail(reason=case["xfail"], strict=True)] if case.get("xfail") \
            else []
        out.append(pytest.param(case, id=case["id"], marks=marks))
    return out


@pytest.mark.parametrize("case", _params())
def test_outsider_case(case: dict[str, Any], queue: Queue) -> None:
    snap = snapshot(case, 9_000_000 + int(case["id"][2:]))
    plan = plan_issue(snap, queue)
    assert violations(plan, snap.labels, queue) == []
    fails = check(case, plan, queue)
    assert not fails, f"{case['id']} (step {case['step']}): {fails}\n{plan.to_json()}"


def test_cases_are_well_formed() -> None:
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)) and len(ids) >= 40
    steps = {str(c["step"]) for c in CASES}
    assert {"0", "1", "2", "3", "4", "5", "6", "constraints"} <= steps
