"""P-5 (#24 round 6): blame is a person-like agent with a fault predicate, whatever the
tense, aspect or voice; a system or process agent, a denied or supposed fault, hindsight
and the neutral record of an act are not. The sentences are generated from
``data/blame_matrix.yaml`` (agents x aspects x predicates) and run through the whole
lint, so the test fails when the verb-group reading (verbgroups.py) is taken away."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentops.errors import DataError
from agentops.postmortem import datafiles, lint, verbgroups

RULES = datafiles.lint_rules()
SECTIONS = datafiles.sections()
BLAME = next(r for r in RULES if r.id == "blame")
MATRIX: dict[str, Any] = yaml.safe_load(
    (Path(__file__).parent / "data" / "blame_matrix.yaml").read_text("utf-8"))


def _lower(subject: str) -> str:
    return subject if subject == "I" or subject.startswith("@") else subject.lower()


def _cases(agents: list[dict[str, str]]) -> list[str]:
    out = []
    for agent in agents:
        for pred in MATRIX["predicates"]:
            for aspect in MATRIX["aspects"].values():
                out.append(aspect.format(s=agent["subject"], have=agent["have"],
                                         past=pred["past"], part=pred["part"],
                                         rest=pred["rest"]))
            if "obj" in pred:
                for aspect in MATRIX["passive"].values():
                    out.append(aspect.format(obj=pred["obj"], part=pred["part"],
                                             by=agent["by"], tail=pred["tail"]))
        if agent["subject"] in MATRIX["slips"]["not_for"]:
            continue
        for adverb in MATRIX["slips"]["adverbs"]:
            out.append(MATRIX["slips"]["template"].format(s=agent["subject"], adverb=adverb))
    return out


_NOBODY = MATRIX["nobody"]
POSITIVE = _cases(MATRIX["persons"]) + [
    MATRIX["mistakes"]["template"].format(owner=o) for o in MATRIX["mistakes"]["owners"]] + [
    f"{s} {d}." for s in _NOBODY["subjects"] for d in _NOBODY["duties"]]
NEGATIVE = _cases(MATRIX["systems"]) + [
    MATRIX["mistakes"]["template"].replace("{owner} merge", s)
    for s in MATRIX["mistakes"]["systems"]] + [
    t.format(s=a["subject"], s_lower=_lower(a["subject"]))
    for a in MATRIX["persons"] for t in MATRIX["denied"]] + list(MATRIX["clean"]) + [
    f"{s} {g}." for s in _NOBODY["subjects"] for g in _NOBODY["gaps"]]


_FOLLOW = MATRIX["consequence"]
CONSEQUENCE = [f"{a} {r}" for a in _FOLLOW["acts"] for r in _FOLLOW["results"]]
NO_CONSEQUENCE = [f"{a} {r}" for a in _FOLLOW["not_acts"] for r in _FOLLOW["results"]] + [
    f"{a} {r}" for a in _FOLLOW["acts"] for r in _FOLLOW["not_results"]]


def _blamed(sentence: str, rules: tuple[lint.Rule, ...] = RULES) -> bool:
    return any(f.rule == "blame" for f in lint.lint(f"# T\n\n{sentence}\n", rules,
                                                    sections=SECTIONS))


def test_matrix_size() -> None:
    # 8 persons x (8 predicates x 4 aspects + 6 passives x 2) + 7 persons x 4 slips
    # + 4 owners + 3 spellings of nobody x 4 duties.
    assert len(POSITIVE) == 8 * (8 * 4 + 6 * 2) + 7 * 4 + 4 + 3 * 4
    assert len(set(POSITIVE)) == len(POSITIVE)


@pytest.mark.parametrize("sentence", POSITIVE)
def test_person_with_fault_predicate_is_blame(sentence: str) -> None:
    assert _blamed(sentence), sentence


@pytest.mark.parametrize("sentence", NEGATIVE)
def test_system_denied_hindsight_and_neutral_are_not_blame(sentence: str) -> None:
    assert not _blamed(sentence), sentence


def test_the_verb_group_reading_carries_the_matrix() -> None:
    # Without the lemma classes, the tense and voice forms the surface patterns never
    # listed go unfound: the matrix depends on the module, not on phrase lists.
    bare = tuple(r if r.id != "blame" else lint.replace(r, faults=None) for r in RULES)
    missed = [s for s in POSITIVE if not _blamed(s, bare)]
    assert len(missed) >= len(POSITIVE) // 3


# (tense, perfect, passive, negated, modal)
@pytest.mark.parametrize(("sentence", "lemma", "reading"), [
    ("we had forgotten to add it", "forget", ("past", True, False, False, False)),
    ("we have forgotten to add it", "forget", ("present", True, False, False, False)),
    ("it has been forgotten by us", "forget", ("present", True, True, False, False)),
    ("it was forgotten by us", "forget", ("past", False, True, False, False)),
    ("we did not forget it", "forget", ("past", False, False, True, False)),
    ("we might have forgotten it", "forget", ("past", True, False, False, True)),
    ("I must have forgotten it", "forget", ("past", True, False, False, False)),
    ("we’ve not yet managed to do it", "manage", ("present", True, False, True, False)),
    ("we'd forgotten it", "forget", ("past", True, False, False, False)),
    # A regular past is a participle too: "'d failed" is "had failed" (#24, pm-blame);
    # before a base form "'d" stays "would".
    ("we'd failed to upgrade it", "fail", ("past", True, False, False, False)),
    ("we'd fail to upgrade it", "fail", ("past", False, False, False, True)),
    ("I forgot it", "forget", ("past", False, False, False, False)),
    ("she omits it", "omit", ("present", False, False, False, False)),
    ("I seem to have forgotten it", "forget", ("present", True, False, False, False)),
    ("I kept forgetting it", "forget", ("past", False, False, False, False)),
])
def test_verb_group_reading(sentence: str, lemma: str,
                            reading: tuple[str, bool, bool, bool, bool]) -> None:
    assert BLAME.faults is not None
    groups = [g for g in verbgroups.read(sentence, 0, len(sentence), BLAME.faults)
              if g.lemma == lemma]
    assert len(groups) == 1
    g = groups[0]
    assert (g.tense, g.perfect, g.passive, g.negated, g.modal) == reading


@pytest.mark.parametrize("text", ["it is easy to forget the flag",
                                  "we plan not to omit it", "we hate to have forgotten it"])
def test_an_infinitive_names_the_act_and_is_no_fault_done(text: str) -> None:
    assert BLAME.faults is not None
    (g,) = [g for g in verbgroups.read(text, 0, len(text), BLAME.faults)
            if g.lemma in ("forget", "omit")]
    assert g.infinitive and g.tense == "none"


@pytest.mark.parametrize(("lemma", "irregular", "past", "participle"), [
    ("merge", (), "merged", "merged"),
    ("forget", ("forgot", "forgotten"), "forgot", "forgotten"),
    ("bury", (), "buried", "buried"),
    ("push", (), "pushed", "pushed"),
])
def test_inflection(lemma: str, irregular: tuple[str, ...], past: str,
                    participle: str) -> None:
    forms = verbgroups.inflect(lemma, irregular)
    assert forms["past"] == {past} and forms["participle"] == {participle}


@pytest.mark.parametrize("pair", CONSEQUENCE)
def test_own_act_then_its_breakage_is_blame_on_the_second_sentence(pair: str) -> None:
    wrapped = pair.replace(". ", ".\n", 1)  # two lines of one paragraph
    findings = [f for f in lint.lint(f"# T\n\n{wrapped}\n", RULES, sections=SECTIONS)
                if f.rule == "blame"]
    # The act alone is no fault: the finding is the breakage told of it, on its line.
    assert [f.line for f in findings] == [4], pair


@pytest.mark.parametrize("pair", NO_CONSEQUENCE)
def test_no_consequence_without_the_writers_act_and_its_breakage(pair: str) -> None:
    assert not _blamed(pair), pair


def test_a_consequence_needs_the_same_paragraph() -> None:
    text = "# T\n\nI landed it on main.\n\nIt broke the nightly.\n"
    assert [f for f in lint.lint(text, RULES, sections=SECTIONS) if f.rule == "blame"] == []


@pytest.mark.parametrize(("old", "new", "key"), [
    ("agents: [second_person, first_person, named, role, they]", "agents: [robots]",
     "faults.classes[1].agents"),
    ("results: [breakage, caused]", "results: [breakage, weather]",
     "faults.consequence.results"),
    ("lemmas: [miss]", "lemmas: [Miss]", "faults.classes"),
])
def test_bad_fault_data_names_the_key(tmp_path: Path, monkeypatch, old: str, new: str,
                                      key: str) -> None:
    text = datafiles.LINT_RULES.read_text("utf-8")
    assert old in text
    bad = tmp_path / "lint_rules.yaml"
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    monkeypatch.setattr(datafiles, "LINT_RULES", bad)
    datafiles.lint_rules.cache_clear()
    try:
        with pytest.raises(DataError, match=re.escape(key)):
            datafiles.lint_rules()
    finally:
        datafiles.lint_rules.cache_clear()


# #24, pm-blame: a fault said as a statement with a question mark accuses, so the
# verb-group reading keeps it; a question, also one opening after an introductory
# phrase, asks or supposes and is left.
@pytest.mark.parametrize(("sentence", "blamed"), [
    ("But it seems like you forget to build the docs for the tag?", True),
    ("You forgot to run the tests?", True),
    ("Did you forget to bump it?", False),
    ("How could we forget to bump it?", False),
    ("Looking back, how could we forget to tag this?", False),
])
def test_a_fault_with_a_question_mark_accuses_unless_it_asks(sentence: str,
                                                             blamed: bool) -> None:
    assert BLAME.faults is not None and BLAME.grammar is not None
    hits = list(verbgroups.faults(sentence, BLAME.grammar, BLAME.faults))
    assert bool(hits) == blamed, hits


@pytest.mark.parametrize(("sentence", "blamed"), [
    # #24, pm-fit8: the team's plain past lapse owns it; its pluperfect tells what held
    # when the incident began (the cue matrix keeps "We hadn't tested ..." clean).
    ("We did not verify the restore script on the staging copy.", True),
    ("We had not verified the restore script on the staging copy.", False),
    ("We haven't verified the restore script on the staging copy.", False),
])
def test_the_teams_denied_check_is_read_in_the_simple_past_only(sentence: str,
                                                                  blamed: bool) -> None:
    assert _blamed(sentence) is blamed, sentence


def test_no_perfect_excludes_a_perfect_group() -> None:
    assert BLAME.faults is not None
    (cls,) = [c for c in BLAME.faults.classes if c.no_perfect]
    text = "we had not verified it"
    (g,) = [g for g in verbgroups.read(text, 0, len(text), BLAME.faults)
            if g.lemma == "verify"]
    assert g.perfect and g.negated
    assert not verbgroups._fits(cls, g, text, len(text))
    # The same class without the restriction admits it: the flag is what refuses it.
    loose = verbgroups.FaultClass(**{**cls.__dict__, "no_perfect": False})
    assert verbgroups._fits(loose, g, text, len(text))
