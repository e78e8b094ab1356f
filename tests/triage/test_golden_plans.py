"""Golden files: every bundled example issue -> its plan (style §7).

examples/triage/issues/<case>.json -> tests/golden/triage/<case>.plan.json, compared
as the plan JSON the CLI prints, without the data provenance (sha256 of the data files,
which changes with any data edit; a data edit that changes a plan still fails here).
Rewrite with ``pytest tests/triage --update-golden`` and review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentops.triage.constraints import violations
from agentops.triage.model import DECISIONS
from agentops.triage.offline import read_issue
from agentops.triage.plan import plan_issue

ROOT = Path(__file__).resolve().parents[2]
ISSUES = ROOT / "examples" / "triage" / "issues"
GOLDEN = ROOT / "tests" / "golden" / "triage"
CASES = sorted(p.stem for p in ISSUES.glob("*.json"))


def rendered(case: str, queue) -> dict:  # type: ignore[no-untyped-def]
    snap = read_issue(str(ISSUES / f"{case}.json"))
    plan = plan_issue(snap, queue)
    assert violations(plan, snap.labels, queue) == []
    out = plan.to_json()
    out.pop("data")
    return out


@pytest.mark.parametrize("case", CASES)
def test_golden_plan(case, queue, request):
    got = rendered(case, queue)
    path = GOLDEN / f"{case}.plan.json"
    text = json.dumps(got, indent=2, ensure_ascii=False) + "\n"
    if request.config.getoption("--update-golden"):
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden file for {case}: run pytest tests/triage --update-golden"
    assert text == path.read_text(encoding="utf-8")


def test_examples_cover_every_decision(queue):
    seen = {rendered(case, queue)["decision"] for case in CASES}
    assert seen == set(DECISIONS)


def test_no_stale_golden_files():
    assert sorted(p.name.removesuffix(".plan.json") for p in GOLDEN.glob("*.plan.json")) == CASES
