"""Test support for the live half of triage: a queue built directly (no data files),
a small rule-based stand-in planner, and a recording fake client.

The stand-in planner is NOT the product's planner (that is ``agentops.triage.plan``); it
maps markers in the title to decisions so the live tests can drive every path of the
applier without depending on the rubric.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agentops.errors import ApiError
from agentops.github.client import CallCounter
from agentops.triage.model import Evidence, IssueSnapshot, Plan, Queue, Template

TRIGGER = "oncall: distributed"
PAR = "oncall: distributed parallelisms"
INFRA = "oncall: distributed infra"
CKPT = "oncall: distributed checkpointing"
MODULES = ("module: fsdp", "module: ddp", "module: dtensor", "module: c10d",
           "module: distributed_checkpoint", "module: performance")
OTHER = ("bot-triaged", "triaged", "triage review", "needs reproduction", "feature",
         "enhancement")
ALLOW = frozenset((PAR, INFRA, CKPT, *MODULES, *OTHER))
REPO_LABELS = (TRIGGER, *ALLOW, "oncall: pt2", "high priority", "bug")

REPRO_V1 = ("Thanks for the report! Could you share a minimal script that reproduces this, "
            "with the launch command and the number of nodes and GPUs per node?")
REPRO_V2 = ("Thanks for reporting this. To help the distributed team investigate, please "
            "share a minimal, self-contained reproduction script, the exact launch command "
            "(torchrun arguments), and the number of nodes and GPUs per node.")
NOT_DIST = ("This issue does not look distributed-specific to us, so it has been flagged "
            "for the oncall to re-route. If it only happens with multiple processes, please "
            "tell us how you launch them.")


def make_queue(*, marker: str = "bot-triaged") -> Queue:
    """The distributed queue, built in code for tests."""
    allow = frozenset((ALLOW - {"bot-triaged"}) | {marker})
    return Queue(
        name="distributed", trigger_label=TRIGGER, allowlist=allow,
        suboncalls=(PAR, INFRA, CKPT), modules=MODULES, marker_label=marker,
        triaged_label="triaged", review_label="triage review",
        needs_repro_label="needs reproduction", type_labels=("feature", "enhancement"),
        keep_labels=("oncall: pt2",),
        templates={
            "needs_distributed_reproduction": Template(
                "needs_distributed_reproduction", 2, REPRO_V2, earlier=((1, REPRO_V1),),
                intent_patterns=(r"minimal (?:repro|reproduction|script)",)),
            "not_distributed": Template("not_distributed", 1, NOT_DIST),
        },
        provenance=({"path": "tests/livekit", "sha256": "0" * 64},),
    )


def fake_plan(snapshot: IssueSnapshot, queue: Queue) -> Plan:
    """Decisions from title markers: [infra] [ckpt] [hp] [repro] [notdist] [low]
    (otherwise: parallelisms + module: fsdp, high confidence)."""
    t = snapshot.title.lower()
    have_sub = [s for s in queue.suboncalls if s in snapshot.labels]
    ev = (Evidence("x", "test-marker", "title"),)
    base = {"repo": snapshot.repo, "issue": snapshot.number, "queue": queue.name,
            "evidence": ev}
    if "[notdist]" in t:
        return Plan(decision="not_distributed", add_labels=("triage review", "bot-triaged"),
                    comments=("not_distributed",), confidence="high", **base)
    if "[hp]" in t:
        return Plan(decision="high_priority",
                    add_labels=(*([] if have_sub else [INFRA]), "module: c10d", "triage review"),
                    confidence="high", awaiting_humans=True, **base)
    if "[infra]" in t:
        return Plan(decision="route", add_labels=(INFRA, "bot-triaged", "triaged"),
                    confidence="high", **base)
    if "[ckpt]" in t:
        return Plan(decision="route", add_labels=(CKPT, "bot-triaged", "triaged"),
                    confidence="high", **base)
    if "[low]" in t:
        return Plan(decision="low_confidence", add_labels=(PAR, "triage review", "bot-triaged"),
                    confidence="low", **base)
    if "[repro]" in t:
        return Plan(decision="needs_reproduction",
                    add_labels=(*([] if have_sub else [PAR]), "module: fsdp",
                                "needs reproduction", "bot-triaged"),
                    comments=("needs_distributed_reproduction",), confidence="medium", **base)
    return Plan(decision="classify",
                add_labels=("module: fsdp", *([] if have_sub else [PAR]), "bot-triaged",
                            "triaged"),
                confidence="high", **base)


def issue(number: int = 7, *, repo: str = "o/r", title: str = "FSDP hangs",
          labels: Sequence[str] = (TRIGGER,), comments: Sequence[Any] = ()) -> IssueSnapshot:
    return IssueSnapshot(repo=repo, number=number, title=title, body="body",
                         labels=tuple(labels), comments=tuple(comments),
                         url=f"https://github.com/{repo}/issues/{number}")


class RecordingClient:
    """A fake GitHubClient: serves reads from state and records every call. Mutations
    land in ``mutations`` (method, path, body); labels added update the issue."""

    def __init__(self, *, repo_labels: Sequence[str] = REPO_LABELS,
                 comments: Sequence[Mapping[str, Any]] = (),
                 fail_write: Callable[[str, str], Exception | None] | None = None) -> None:
        self.repo_labels = {lb.casefold() for lb in repo_labels}
        self.comments = [dict(c) for c in comments]
        self.labels: list[str] = []
        self.mutations: list[tuple[str, str, Any]] = []
        self.calls: list[tuple[str, str]] = []
        self.counter = CallCounter()
        self.fail_write = fail_write

    def read(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        self.calls.append(("GET", path))
        raise ApiError(f"GET {path}: not served by the fake", status_code=404)

    def paginate(self, path: str, params: Mapping[str, Any] | None = None, **_: Any):
        self.calls.append(("GET", path))
        yield from self.comments

    def graphql(self, query: str, variables: Mapping[str, Any] | None = None, *,
                write: bool = False, verify: Any = None) -> dict[str, Any]:
        self.calls.append(("POST", "/graphql"))
        if write or query.lstrip().startswith("mutation"):
            self.mutations.append(("POST", "/graphql", query))
        import re

        out = {}
        for alias, var in re.findall(r"(\w+): label\(name: \$(\w+)\)", query):
            name = str((variables or {})[var])
            out[alias] = {"name": name} if name.casefold() in self.repo_labels else None
        return {"repository": out}

    def write(self, method: str, path: str, body: Any = None, *, idempotent: bool,
              verify: Any = None) -> Any:
        self.calls.append((method, path))
        self.mutations.append((method, path, body))
        if self.fail_write:
            exc = self.fail_write(method, path)
            if exc:
                raise exc
        if path.endswith("/labels"):
            for lb in body["labels"]:
                if lb not in self.labels:
                    self.labels.append(lb)
            return [{"name": lb} for lb in self.labels]
        if path.endswith("/comments"):
            c = {"id": 900 + len(self.comments), "body": body["body"],
                 "user": {"login": "github-actions[bot]", "type": "Bot"},
                 "html_url": "https://github.com/o/r/issues/7#issuecomment-1"}
            self.comments.append(c)
            return c
        raise AssertionError(f"unexpected write {method} {path}")
