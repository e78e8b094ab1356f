"""Issue #23: one reader places a hit in the title.

A keyword hit holds its normalised words ("torch compile" for "torch.compile") and a
pattern hit the raw text it matched; a raw search of the lowercased title misses the
first, so a rule comparing two places in the title read a compiler named by its dotted
name as absent. And a hit keeps the first of its signal's keywords that matched, not
the earliest: "torch.compile: ... recompiles" kept "recompiles". The matcher records
where the title first names each hit's signal (``Signal.first_at``, ``Hit.title_at``),
every rule reads it through ``_title_pos``, and a title's tag is read by its words.

Every issue below is made up for this file."""

from __future__ import annotations

import re

from agentops.triage.plan import _owner_tag, _title_pos, read
from agentops.triage.signals import Hit, Place, Signal
from tests.triage.plankit import fence, make_issue, plan_ok

INFRA = "oncall: distributed infra"
DDP = "module: ddp"
REVIEW = "triage review"


def _hit(found: str, places: frozenset[str]) -> Hit:
    return Hit.made(signal="made_up", label=None, role="not_distributed", where="title",
                    weight=1.0, score=1.0, places=places, evidence=True, subject=True,
                    source="", found=found, source_lower=None)


def test_a_keyword_and_a_pattern_match_are_placed_alike():
    title = "Torch.Compile of a net breaks the sharded step".lower()
    assert _title_pos(title, _hit("torch compile", frozenset({"title"}))) == 0
    assert _title_pos(title, _hit("torch.compile", frozenset({"title"}))) == 0
    # Whole words first: "dist" is the word, not the start of "distributed".
    title = "Distributed sampler and dist barrier disagree".lower()
    assert _title_pos(title, _hit("dist", frozenset({"title"}))) == title.find(" dist ") + 1


def test_a_hit_that_did_not_fire_in_the_title_has_no_place_there():
    title = "Torch.Compile of a net breaks the sharded step".lower()
    assert _title_pos(title, _hit("torch compile", frozenset({"body"}))) is None
    assert _title_pos(title, _hit("pipeline stage", frozenset({"title"}))) is None
    assert _title_pos(title, _hit("", frozenset({"title"}))) is None


def _signal(**kw) -> Signal:
    base = dict(id="made_up", label=None, role="not_distributed", where=("title",),
                weight=1.0, single=frozenset(), multi=(), patterns=())
    return Signal(**{**base, **kw})


def test_a_signal_is_placed_at_its_earliest_match_not_its_first_keyword():
    # fire() answers with the first keyword that matches ("alpha"); the title names the
    # signal first by its other keyword, its multi-word one, or its pattern.
    place = Place.of("Omega gamma delta run and then alpha")
    assert _signal(single=frozenset({"alpha", "omega"})).first_at(place) == 0
    sig = _signal(single=frozenset({"alpha"}), multi=(("gamma", " gamma delta "),))
    assert sig.first_at(place) == place.lower.find("gamma")
    sig = _signal(single=frozenset({"alpha"}),
                  patterns=((None, re.compile(r"\bdelta run\b", re.I)),))
    assert sig.first_at(place) == place.lower.find("delta")
    # A signal of patterns alone is placed by them.
    sig = _signal(patterns=((None, re.compile(r"\bdelta run\b", re.I)),))
    assert sig.first_at(place) == place.lower.find("delta")
    # A later multi-word keyword or pattern does not move the place back.
    sig = _signal(single=frozenset({"omega"}), multi=(("delta", " delta run "),
                                                      ("gamma", " gamma delta ")),
                  patterns=((None, re.compile(r"\balpha\b", re.I)),))
    assert sig.first_at(place) == 0
    sig = _signal(multi=(("delta", " delta run "), ("gamma", " gamma delta ")))
    assert sig.first_at(place) == place.lower.find("gamma")
    # Whole words first: a keyword is not placed inside a longer word before it.
    place = Place.of("Alphabet drift then alpha")
    assert _signal(single=frozenset({"alpha"})).first_at(place) == place.lower.find(" alpha") + 1
    # The earliest of many keywords, whatever order the set gives them in.
    for title in ("k1 then k2 k3 k4", "k2 then k1 k3 k4", "k3 then k4 k2 k1",
                  "k4 then k3 k1 k2", "k1 k4 then k2 k3"):
        sig = _signal(single=frozenset({"k1", "k2", "k3", "k4"}))
        assert sig.first_at(Place.of(title)) == 0, title
    # A keyword inside a CamelCase identifier is placed where the identifier holds it.
    place = Place.of("The BetaGammaWrapper breaks")
    assert _signal(single=frozenset({"gamma"})).first_at(place) == place.lower.find("gamma")
    assert _signal(single=frozenset({"zeta"})).first_at(place) is None


def test_a_pattern_and_a_keyword_are_compared_in_one_coordinate_system():
    # "İ" lowercases to two characters, so every position after it in ``lower`` is one
    # more than in the text. The pattern "delta" stands after the keyword "gamma" in the
    # title; compared in the text's positions it would seem to come first.
    place = Place.of("İİİ gamma delta")
    assert len(place.lower) == len(place.text) + 3
    sig = _signal(single=frozenset({"gamma"}),
                  patterns=((None, re.compile(r"\bdelta\b", re.I)),))
    assert sig.first_at(place) == place.lower.find("gamma")
    # No match: the pattern comes first, and is placed where ``lower`` holds it.
    place = Place.of("İİİ delta gamma")
    assert sig.first_at(place) == place.lower.find("delta")
    # A pattern that does not match is passed over, not the end of the search: the next
    # one still places the signal (with the shift, and without it).
    sig = _signal(patterns=((None, re.compile(r"\bomega\b", re.I)),
                            (None, re.compile(r"\bdelta\b", re.I))))
    assert sig.first_at(place) == place.lower.find("delta")
    assert sig.first_at(Place.of("gamma delta")) == 6


def test_hits_record_where_the_title_first_names_them(queue):
    title = "Recompiles every step: torch.compile under torchrun"
    reading = read(make_issue(title), queue)
    compiler = next(h for h in reading.hits if h.signal == "compiler_title")
    assert compiler.title_at == 0, compiler.found
    assert all(h.title_at is None for h in reading.hits if "title" not in h.places)


def test_a_compiler_named_first_by_another_word_still_leads(queue):
    # The compiler signal keeps a later keyword as its match ("recompiles"); the
    # title names the compiler first, before the launcher.
    plan = plan_ok(make_issue("torch.compile: the model launched by torchrun recompiles "
                              "every step", "Recompiles every step."), queue)
    assert plan.decision == "not_distributed", plan.reasoning


def test_the_launcher_before_a_compiler_word_stays_distributed(queue):
    plan = plan_ok(make_issue("torchrun: the compiled model recompiles every step under "
                              "torch.compile", "Recompiles every step."), queue)
    assert plan.decision != "not_distributed", plan.reasoning


def test_the_dotted_compiler_before_a_launcher_word_is_read_as_first(queue):
    # The compiler leads the title and the launcher is where it was run: a weak word
    # after another owner in the title is context (step 1), so not a distributed route.
    plan = plan_ok(make_issue("torch.compile of a model run with torchrun uses too much "
                              "memory", "Peak memory doubles once compiled."), queue)
    assert plan.decision == "not_distributed", plan.reasoning
    reading = read(make_issue("torch.compile of a model run with torchrun uses too much "
                              "memory"), queue)
    compiler = [h for h in reading.hits if h.role == "not_distributed"
                and _title_pos(reading.text.places["title"].lower(), h) == 0]
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


def test_a_dotted_tag_opening_the_title_is_read_by_its_words(queue):
    # "[torch.compile] …" and "torch.compile: …" are the compiler's tag as
    # "[Inductor] …" is, for a keyword hit that keeps "torch compile" too.
    hit = _hit("torch compile", frozenset({"title"}))
    for title in ("[torch.compile] graphs recompile on every step",
                  "torch.compile: graphs recompile on every step",
                  "[ Torch.Compile ]: graphs recompile on every step"):
        assert _owner_tag(read(make_issue(title), queue).text, [hit]) is hit, title


def test_an_owner_named_later_or_inside_a_longer_tag_is_no_tag(queue):
    hit = _hit("torch compile", frozenset({"title"}))
    for title in ("graphs recompile on every step under torch.compile",
                  # No bracket, no colon: no tag, whatever the title's words are.
                  "torch.compile?",
                  "[torch.compile cache] graphs recompile on every step",
                  "[FSDP] graphs recompile under torch.compile"):
        assert _owner_tag(read(make_issue(title), queue).text, [hit]) is None, title
    # A tag with no words ("[]", "-:") names no owner, not even a hit with no match.
    for title in ("[] graphs recompile", "-: graphs recompile"):
        text = read(make_issue(title), queue).text
        assert _owner_tag(text, [_hit("", frozenset({"title"}))]) is None, title
    # A hit that did not fire in the title is no tag either.
    body_hit = _hit("torch compile", frozenset({"body"}))
    text = read(make_issue("[torch.compile] graphs recompile"), queue).text
    assert _owner_tag(text, [body_hit]) is None


def test_a_launcher_word_after_an_owner_counts_when_a_trace_names_it_too(queue):
    # "under torchrun" after torch.load in the title is where it ran (context); the same
    # word in a traceback's frame is distributed code that failed, and stays evidence.
    title = "torch.load fails under torchrun"
    trace = fence("Traceback (most recent call last):\n"
                  '  File "/opt/env/lib/torch/distributed/run.py", line 12, in main\n'
                  "    launch_agent(cfg)\n"
                  "RuntimeError: the worker group stopped", lang="")
    plan = plan_ok(make_issue(title, "Loading the file raises."), queue)
    assert plan.decision == "not_distributed", plan.reasoning
    plan = plan_ok(make_issue(title, "Loading the file raises.\n\n" + trace), queue)
    assert plan.decision != "not_distributed", plan.reasoning
