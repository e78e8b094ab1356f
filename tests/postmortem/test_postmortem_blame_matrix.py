"""P-5 (#24 round 6): blame is a person-like agent with a fault predicate, whatever the
tense, aspect or voice; a system or process agent, a denied or supposed fault, hindsight
and the neutral record of an act are not. The sentences are generated from
``data/blame_matrix.yaml`` (agents x aspects x predicates) and run through the whole
lint, so the test fails when the verb-group reading (verbgroups.py) is taken away."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

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


POSITIVE = _cases(MATRIX["persons"]) + [
    MATRIX["mistakes"]["template"].format(owner=o) for o in MATRIX["mistakes"]["owners"]]
NEGATIVE = _cases(MATRIX["systems"]) + [
    MATRIX["mistakes"]["template"].replace("{owner} merge", s)
    for s in MATRIX["mistakes"]["systems"]] + [
    t.format(s=a["subject"], s_lower=_lower(a["subject"]))
    for a in MATRIX["persons"] for t in MATRIX["denied"]] + list(MATRIX["clean"])


def _blamed(sentence: str, rules: tuple[lint.Rule, ...] = RULES) -> bool:
    return any(f.rule == "blame" for f in lint.lint(f"# T\n\n{sentence}\n", rules,
                                                    sections=SECTIONS))


def test_matrix_size() -> None:
    # 8 persons x (8 predicates x 4 aspects + 6 passives x 2) + 7 persons x 4 slips
    # + 4 owners.
    assert len(POSITIVE) == 8 * (8 * 4 + 6 * 2) + 7 * 4 + 4
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


def test_an_infinitive_names_the_act_and_is_no_fault_done() -> None:
    assert BLAME.faults is not None
    text = "it is easy to forget the flag"
    (g,) = [g for g in verbgroups.read(text, 0, len(text), BLAME.faults)
            if g.lemma == "forget"]
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
