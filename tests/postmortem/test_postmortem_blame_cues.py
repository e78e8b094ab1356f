"""P-5 (#24): blame is a person-like agent tied to a fault cue (blamecues.py): the act
done without a safeguard or before something finished, a wrong or broken object of an
act that puts something out, causing it or letting it happen, not being ready, an
apology for causing it, a botched act, a failing owned in one's conduct. A system or
process agent, a plan, a question, hindsight, a reproduction, a response, a denial and
the honest "we missed it" line are not. The sentences are generated from
``data/blame_cues_matrix.yaml`` and run through the whole lint, so the test fails when
the cue reading is taken away."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentops.errors import DataError
from agentops.postmortem import blamecues, datafiles, lint

RULES = datafiles.lint_rules()
SECTIONS = datafiles.sections()
BLAME = next(r for r in RULES if r.id == "blame")
MATRIX: dict[str, Any] = yaml.safe_load(
    (Path(__file__).parent / "data" / "blame_cues_matrix.yaml").read_text("utf-8"))


def _fill(shape: str, agent: dict[str, str], act: str) -> str:
    s = agent["s"]
    inner = s if s == "I" or s.startswith("@") or s in ("Robin", "Dependabot") \
        else s[0].lower() + s[1:]
    return shape.format(s=s, s_in=inner, be=agent["be"], act=act)


def _cases(agents: list[dict[str, str]]) -> list[tuple[str, str]]:
    out = []
    for cls, shapes in MATRIX["shapes"].items():
        for agent in agents:
            for shape in shapes:
                acts = MATRIX["acts"] if "{act}" in shape else [""]
                out += [(cls, _fill(shape, agent, act)) for act in acts]
    return out


def _narrowed(agents: list[dict[str, str]]) -> list[tuple[str, str]]:
    return [(cls, _fill(shape, agent, "")) for cls, shapes in MATRIX["narrowed"].items()
            for agent in agents for shape in shapes]


def _narrowed_to(agents: list[dict[str, str]] | None) -> list[tuple[str, str]]:
    """The classes that name their persons; ``None`` takes each class's own."""
    return [(cls, _fill(shape, agent, ""))
            for cls, spec in MATRIX["narrowed_to"].items()
            for agent in (agents if agents is not None else [
                p for p in MATRIX["persons"] if p["s"] in spec["persons"]])
            for shape in spec["shapes"]]


_TEAM = [p for p in MATRIX["persons"] if p["s"] == "We"]
POSITIVE = _cases(MATRIX["persons"]) + _narrowed(
    [p for p in MATRIX["persons"] if p not in _TEAM]) + _narrowed_to(None) + [
    (cls, s) for cls, shapes in MATRIX["self"].items() for s in shapes]
NEGATIVE = [s for _, s in _cases(MATRIX["systems"]) + _narrowed(MATRIX["systems"])
            + _narrowed_to(MATRIX["systems"])] + [
    s for _, s in _narrowed(_TEAM)] + list(MATRIX["clean"])


def _blamed(sentence: str, rules: tuple[lint.Rule, ...] = RULES) -> bool:
    return any(f.rule == "blame" for f in lint.lint(f"# T\n\n{sentence}\n", rules,
                                                    sections=SECTIONS))


def test_matrix_covers_every_cue_class() -> None:
    assert BLAME.cues is not None
    assert {c.name for c in BLAME.cues.classes} == {cls for cls, _ in POSITIVE}
    # 7 persons x (6 safeguard x 5 acts + 3 wrong x 5 acts + 2 causation + 3 unready
    # + 1 do-better) + 6 persons (all but "We") x 6 unawareness shapes + 6 persons x 4
    # destroyed-data shapes + 2 persons x 2 regretted-act shapes + 14 self shapes.
    assert len(POSITIVE) == 7 * (6 * 5 + 3 * 5 + 2 + 3 + 1) + 6 * 6 + 6 * 4 + 2 * 2 + 14
    assert len(set(POSITIVE)) == len(POSITIVE)


@pytest.mark.parametrize(("cls", "sentence"), POSITIVE)
def test_person_tied_to_a_fault_cue_is_blame(cls: str, sentence: str) -> None:
    assert _blamed(sentence), (cls, sentence)
    assert BLAME.cues is not None and BLAME.grammar is not None
    found = {c for _, _, c, _ in blamecues.spans(sentence, BLAME.grammar, BLAME.cues)}
    assert cls in found, (cls, sentence, found)


@pytest.mark.parametrize("sentence", NEGATIVE)
def test_system_agents_plans_questions_and_responses_are_not_blame(sentence: str) -> None:
    assert not _blamed(sentence), sentence


def test_the_cue_reading_carries_the_matrix() -> None:
    # Without the cue reading many of these go unfound, in every cue class: they hold no
    # fault verb, so the matrix depends on the tie of cue and agent, not on the older
    # phrase lists.
    bare = tuple(r if r.id != "blame" else lint.replace(r, cues=None) for r in RULES)
    missed = [(c, s) for c, s in POSITIVE if not _blamed(s, bare)]
    assert len(missed) >= len(POSITIVE) // 3
    assert {c for c, _ in missed} == {c for c, _ in POSITIVE}


def test_a_class_narrows_the_agents_it_blames() -> None:
    # The same unawareness shape: the writer's is a fault, the team's a belief of the
    # time; without the class's own agents the team's would be blamed too.
    assert BLAME.cues is not None and BLAME.grammar is not None
    cls = next(c for c in BLAME.cues.classes if c.name == "owned_unawareness")
    assert "we" in BLAME.cues.agents and "we" not in cls.agents
    assert _blamed("I did not expect a second tag on the branch.")
    assert not _blamed("We did not expect a second tag on the branch.")
    wide = lint.replace(BLAME, cues=lint.replace(BLAME.cues, classes=tuple(
        lint.replace(c, agents=frozenset()) if c.name == cls.name else c
        for c in BLAME.cues.classes)))
    rules = tuple(wide if r.id == "blame" else r for r in RULES)
    assert _blamed("We did not expect a second tag on the branch.", rules)


def test_a_class_may_not_widen_the_agents(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    content = yaml.safe_load(datafiles.LINT_RULES.read_text("utf-8"))
    rule = next(r for r in content["rules"] if r["id"] == "blame")
    rule["cues"]["classes"][0]["agents"] = ["system"]
    bad = tmp_path / "lint_rules.yaml"
    bad.write_text(yaml.safe_dump(content), "utf-8")
    monkeypatch.setattr(datafiles, "LINT_RULES", bad)
    datafiles.lint_rules.cache_clear()
    try:
        with pytest.raises(DataError, match=re.escape("cues.classes[0].agents")):
            datafiles.lint_rules()
    finally:
        monkeypatch.undo()
        datafiles.lint_rules.cache_clear()


@pytest.mark.parametrize(("sentence", "agent"), [
    ("Robin pushed the wrong tag.", "name"),
    ("The release team merged it without a review.", "role"),
    ("Sorry, pushed the wrong tag.", "unstated"),
    ("we were not ready", "we"),
])
def test_the_tie_reads_the_agent(sentence: str, agent: str) -> None:
    assert BLAME.cues is not None and BLAME.grammar is not None
    agents = {a for _, _, _, a in blamecues.spans(sentence, BLAME.grammar, BLAME.cues)}
    assert agents == {agent}


def test_hostile_run_of_cues_stays_bounded() -> None:
    # Thousands of cue words with acts between them: each cue looks back one clause.
    text = "we pushed the wrong tag without a review, " * 2000
    assert BLAME.cues is not None and BLAME.grammar is not None
    assert sum(1 for _ in blamecues.spans(text, BLAME.grammar, BLAME.cues)) >= 2000


def test_a_cue_class_proves_its_pattern_on_load(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    content = yaml.safe_load(datafiles.LINT_RULES.read_text("utf-8"))
    rule = next(r for r in content["rules"] if r["id"] == "blame")
    rule["cues"]["classes"][0]["no_match"].append("merged it without a review")
    bad = tmp_path / "lint_rules.yaml"
    bad.write_text(yaml.safe_dump(content), "utf-8")
    monkeypatch.setattr(datafiles, "LINT_RULES", bad)
    datafiles.lint_rules.cache_clear()
    try:
        with pytest.raises(DataError, match=re.escape("cues.classes[0].no_match")):
            datafiles.lint_rules()
    finally:
        monkeypatch.undo()
        datafiles.lint_rules.cache_clear()
