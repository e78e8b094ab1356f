"""P-5 (#24, pm-fit22c): a possibility modal that proposes or permits is no hedge; one
that weakens the writer's belief in a cause, a state or an event of the incident is. The
deontic reading is computed from the modal's clause (mood.proposal_spans, moods.yaml
``proposals``): the complement of "be", the verb's class, the passive, the perfect.
Every sentence here is made up.

Each reading is tested both ways: its sentences are flagged by the hedging rule without
the reading and not with it, and a real hedge under each modal the reading touches
stays flagged with every reading on."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agentops.postmortem import datafiles, lint, mood

RULES = datafiles.lint_rules()
SECTIONS = datafiles.sections()
HEDGING = next(r for r in RULES if r.id == "hedging")
MOODS = datafiles.moods()


def _hedged(sentence: str, rules: tuple[lint.Rule, ...] = RULES) -> bool:
    doc = f"# Outage\n\n## Root cause\n\n{sentence}\n"
    return any(f.rule == "hedging" for f in lint.lint(doc, rules, file="d.md",
                                                      sections=SECTIONS))


def _without(reading: str) -> tuple[lint.Rule, ...]:
    """The rules with one reading of ``proposals`` taken out of the hedging rule's moods."""
    assert MOODS.proposals is not None
    readings = {k: v for k, v in MOODS.proposals.readings.items() if k != reading}
    grammar = replace(MOODS, proposals=replace(MOODS.proposals, readings=readings))
    return tuple(replace(r, mood_grammar=grammar) if r.id == "hedging" else r
                 for r in RULES)


# reading -> sentences it takes out of the hedges (each one flagged without it).
PROPOSALS = {
    mood.PASSIVE_ACT: [
        "The deprecated loader flag could be removed in the next minor.",
        "The stale mirror entry might be deleted once the sync settles.",
        "Our rollout notes may be clarified for the wider audience.",
    ],
    mood.VERDICT: [
        "One remedy could be to gate the cut on the soak run.",
        "A fresh minor might be a cleaner option than a retag.",
        "A weekly cut could be much simpler for everyone.",
    ],
}

# Real hedges under each modal the readings touch: a cause, a state, an event.
HEDGES = [
    "The runner image could be stale.",
    "The retry loop might be to blame.",
    "We may have pinned the wrong image during the rollback.",
    "The cleanup script may have deleted the tag.",
    "This could explain the spike in latency.",
    "The soak host might have exhausted its disk.",
    # passive_act: a state participle, a necessity, a mechanism's agent, a time adverb.
    "The old wheel may be cached on a few runners.",
    "A restart of the proxy might be required after the upgrade.",
    "The loader flag could be dropped by the sync job under load.",
    "The patch may be deployed already on the canary hosts.",
    # verdict: a cause as the complement of "be".
    "The retry loop could be to blame for the gap.",
    "A torn write could be the culprit here.",
]


@pytest.mark.parametrize(("reading", "sentence"),
                         [(r, s) for r, ss in PROPOSALS.items() for s in ss])
def test_a_modal_that_proposes_is_no_hedge(reading: str, sentence: str) -> None:
    assert not _hedged(sentence), sentence
    assert _hedged(sentence, _without(reading)), f"not a case of {reading}: {sentence}"


@pytest.mark.parametrize("sentence", HEDGES)
def test_a_modal_that_doubts_a_fact_stays_a_hedge(sentence: str) -> None:
    assert _hedged(sentence), sentence


def test_spans_cover_the_modal_and_its_verb() -> None:
    grammar = HEDGING.grammar
    assert grammar is not None
    text = "The flag could be dropped, but the disk might be full."
    spans = mood.proposal_spans(text, grammar, MOODS)
    assert [text[s:e] for s, e in spans] == ["could be dropped"]


def test_the_perfect_and_a_time_adverb_read_no_proposal() -> None:
    grammar = HEDGING.grammar
    assert grammar is not None
    for text in ("The flag could have been dropped.", "The flag could still be dropped.",
                 "A retag might have been better."):
        assert mood.proposal_spans(text, grammar, MOODS) == [], text


def test_no_proposals_section_reads_nothing() -> None:
    grammar = HEDGING.grammar
    assert grammar is not None
    bare = replace(MOODS, proposals=None)
    assert mood.proposal_spans("The flag could be dropped.", grammar, bare) == []
