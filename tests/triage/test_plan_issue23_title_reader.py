"""Issue #23: one reader places a hit in the title, on the title's normalised words.

A keyword hit holds its normalised words ("torch compile" for "torch.compile") and a
pattern hit the raw text it matched; a raw search of the lowercased title misses the
first, so a rule comparing two places in the title read a compiler named by its dotted
name as absent. Every such rule now reads ``_title_pos`` on ``_title_words``.

Every issue below is made up for this file."""

from __future__ import annotations

from agentops.triage.plan import _title_pos, _title_words, read
from agentops.triage.signals import Hit
from tests.triage.plankit import make_issue, plan_ok

INFRA = "oncall: distributed infra"
DDP = "module: ddp"
REVIEW = "triage review"


def _hit(found: str, places: frozenset[str]) -> Hit:
    return Hit.made(signal="made_up", label=None, role="not_distributed", where="title",
                    weight=1.0, score=1.0, places=places, evidence=True, subject=True,
                    source="", found=found, source_lower=None)


def test_a_keyword_and_a_pattern_match_are_placed_alike():
    words = _title_words("Torch.Compile of a net breaks the sharded step")
    assert _title_pos(words, _hit("torch compile", frozenset({"title"}))) == 1
    assert _title_pos(words, _hit("torch.compile", frozenset({"title"}))) == 1
    # Whole words first: "dist" is the word, not the start of "distributed".
    words = _title_words("Distributed sampler and dist barrier disagree")
    assert _title_pos(words, _hit("dist", frozenset({"title"}))) == words.find(" dist ") + 1


def test_a_hit_that_did_not_fire_in_the_title_has_no_place_there():
    words = _title_words("Torch.Compile of a net breaks the sharded step")
    assert _title_pos(words, _hit("torch compile", frozenset({"body"}))) is None
    assert _title_pos(words, _hit("pipeline stage", frozenset({"title"}))) is None
    assert _title_pos(words, _hit("", frozenset({"title"}))) is None


def test_the_dotted_compiler_before_a_launcher_word_is_read_as_first(queue):
    # The compiler leads the title and the launcher is where it was run: a weak word
    # after another owner in the title is context (step 1), so not a distributed route.
    plan = plan_ok(make_issue("torch.compile of a model run with torchrun uses too much "
                              "memory", "Peak memory doubles once compiled."), queue)
    assert plan.decision == "not_distributed", plan.reasoning
    reading = read(make_issue("torch.compile of a model run with torchrun uses too much "
                              "memory"), queue)
    compiler = [h for h in reading.hits if h.role == "not_distributed"
                and _title_pos(_title_words(reading.text.places["title"]), h) == 1]
    assert compiler, [(h.signal, h.found) for h in reading.hits]


def test_the_launcher_before_the_dotted_compiler_stays_distributed(queue):
    plan = plan_ok(make_issue("Model run with torchrun uses too much memory under "
                              "torch.compile", "Peak memory doubles once compiled."), queue)
    assert plan.decision != "not_distributed" and INFRA in plan.add_labels, plan.reasoning


def test_a_dotted_core_subsystem_leading_the_title_asks_review(queue):
    # "torch.load" read as the title's lead: another subsystem's evidence beside a
    # component named once, so the plan asks review instead of triaged.
    plan = plan_ok(make_issue("torch.load of a DDP checkpoint fails with a key error",
                              "The keys have a module prefix."), queue)
    assert DDP in plan.add_labels and REVIEW in plan.add_labels, plan.reasoning


def test_the_component_leading_before_the_subsystem_keeps_no_review(queue):
    plan = plan_ok(make_issue("DDP checkpoint fails with a key error in torch.load",
                              "The keys have a module prefix."), queue)
    assert DDP in plan.add_labels and REVIEW not in plan.add_labels, plan.reasoning

