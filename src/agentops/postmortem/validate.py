"""The P-3 gate: may drafting start? Four inputs must hold (a reliable repro, a known
root cause, an identified fix, a verified fix), and the kind must be a bug fix.

Pure: facts in, a ``Gate`` out. It never drafts, and it never softens a refusal into a
draft with gaps: a post-mortem of a hypothesis misleads (seed, "not applicable").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from agentops.postmortem.model import Facts, gathered_verification

# The names below are a contract (issue #5): scripts and workflows grep for them.
REPRO = "reliable reproduction"
ROOT_CAUSE = "root cause"
FIX_REF = "fix reference"
VERIFICATION = "verification"
OUTAGE = "outage: needs an incident report"
TRIVIAL = "trivial fix: the PR description is the record"


@dataclass(frozen=True)
class Gate:
    missing: tuple[str, ...]  # the four inputs, by contract name, each with its detail
    reasons: tuple[str, ...]  # a kind this skill does not apply to

    @property
    def ok(self) -> bool:
        return not self.missing and not self.reasons

    def names(self) -> list[str]:
        """Short form: the reasons and the contract names of the missing inputs."""
        return [r.split(" (")[0] for r in self.reasons] + [f"missing: {m.split(' (')[0]}"
                                                          for m in self.missing]

    def lines(self) -> list[str]:
        """What to print: reasons first (they make the inputs moot), then missing inputs."""
        return [*self.reasons, *(f"missing: {m}" for m in self.missing)]


def check(facts: Facts, *, hedge: Callable[[str], str | None] | None = None) -> Gate:
    """Apply the gate; ``hedge`` returns the lint's first hedge in a text (the same rule
    lint applies), so a root cause stated as a guess ("probably a race") counts as no
    root cause."""
    reasons: list[str] = []
    kind = facts.get("kind", default="bug-fix")
    if kind == "outage":
        reasons.append(f"{OUTAGE} (timeline, blast radius, comms); confirm with the owner "
                       "that this is a bug fix, then set kind: bug-fix")
    elif kind == "trivial":
        reasons.append(TRIVIAL)

    missing: list[str] = []
    steps = facts.get("repro", "steps") or []
    reliability = facts.get("repro", "reliability")
    if not steps:
        missing.append(f"{REPRO} (repro.steps is empty)")
    elif reliability not in ("deterministic", "high-rate-flaky"):
        got = reliability or "not stated"
        missing.append(f"{REPRO} (repro.reliability is {got}; need deterministic or "
                       "high-rate-flaky: a repro someone else can run)")

    mechanism = facts.get("root_cause", "mechanism")
    if not mechanism:
        missing.append(f"{ROOT_CAUSE} (root_cause.mechanism is empty)")
    else:
        guess = hedge(mechanism) if hedge else None
        if guess:
            missing.append(f"{ROOT_CAUSE} (root_cause.mechanism is a hypothesis: "
                           f"{guess!r}; state the mechanism once it is confirmed)")

    refs = facts.get("fix", "refs") or []
    g = facts.gathered
    if not refs:
        missing.append(f"{FIX_REF} (fix.refs is empty: give the PR, commit or branch)")
    elif g.pr_ref and g.pr_merged is False and refs == [g.pr_ref]:
        missing.append(f"{FIX_REF} ({g.pr_ref} is not merged: the fix has not landed)")

    if not facts.get("verification"):
        passed, why = gathered_verification(g)
        if not g.pr_ref:
            missing.append(f"{VERIFICATION} (verification is empty: list each check and "
                           "what it covered)")
        elif not passed:
            missing.append(f"{VERIFICATION} (verification is empty and {why})")
    return Gate(missing=tuple(missing), reasons=tuple(reasons))


# `/postmortem approve JIRA-12345 <sha256> <draft run id>`, alone on the first line.
_APPROVE = re.compile(r"^/postmortem approve ([A-Z][A-Z0-9_]*-[0-9]+) ([0-9a-f]{64}) "
                      r"([0-9]{1,20})\s*$")


@dataclass(frozen=True)
class CommentApproval:
    ticket: str
    sha256: str
    run_id: str


def parse_approval_comment(body: str) -> CommentApproval | None:
    """The approval a comment states, or None when it is not exactly the command."""
    first = (body or "").replace("\r\n", "\n").split("\n", 1)[0].strip()
    m = _APPROVE.match(first)
    return CommentApproval(m.group(1), m.group(2), m.group(3)) if m else None


WRITE_PERMISSIONS = ("admin", "maintain", "write")
