"""Property tests: whatever the text and the labels already on the issue, a plan meets
T-20 … T-25, is deterministic, and explains every label it adds."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentops.triage.constraints import violations
from agentops.triage.model import Comment
from agentops.triage.plan import plan_issue
from agentops.triage.queue import load_queue
from tests.triage.plankit import make_issue

QUEUE = load_queue("distributed")
# Words that fire signals of every kind, mixed with filler, fences and traces.
VOCAB = sorted({kw for s in QUEUE.rubric.signals for kw in s.keywords} | {
    "the", "model", "fails", "works", "```", "```python", "\n",
    "Traceback (most recent call last):",
    'File "/v/torch/distributed/fsdp/x.py", line 1, in f', 'File "/v/torch/distributed/'
    'distributed_c10d.py", line 2, in g', "RuntimeError: boom", "worked in 2.3", "segfault",
    "[RFC]", "Steps to reproduce:", "undefined symbol: ncclFoo", "torch.compile"})
LABELS = sorted(QUEUE.allowlist | {"high priority", "module: docs", "oncall: pt2"})

text = st.lists(st.sampled_from(VOCAB), max_size=40).map(" ".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(title=text, body=text, comment=text,
       labels=st.lists(st.sampled_from(LABELS), max_size=5, unique=True),
       bot=st.booleans())
def test_any_issue_gets_a_lawful_plan(title, body, comment, labels, bot):
    comments = (Comment(id=1, author="x[bot]" if bot else "someone", body=comment,
                        author_type="Bot" if bot else "User"),)
    snap = make_issue(title, body, labels=("oncall: distributed", *labels), comments=comments)
    plan = plan_issue(snap, QUEUE)
    assert violations(plan, snap.labels, QUEUE) == []
    assert plan == plan_issue(snap, QUEUE)
    assert {e.label for e in plan.evidence} == set(plan.add_labels)
    assert "high priority" not in plan.add_labels
