"""P-5 (#24): advocacy and hedging read as clause moods (mood.py, moods.yaml), not as
phrases. The matrices are generated from the data's ``matrix`` block: every mood marker
with every subject noun class in every section (advocacy), every epistemic marker in
every clause type (hedging). A cell's expectation follows from the grammar alone: a norm
or a judgement about a process, design, policy or the organisation of the work, outside
the action items and reader guidance, is advocacy; about the incident's own objects it
is not; a hedge stands in a statement of fact, not in a question or inside a norm."""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from agentops.errors import DataError
from agentops.postmortem import datafiles, lint, mood

RULES = datafiles.lint_rules()
SECTIONS = datafiles.sections()
BY_ID = {r.id: r for r in RULES}
GRAMMAR = RULES[0].grammar
MOODS = datafiles.moods()
MATRIX = yaml.safe_load(datafiles.MOODS.read_text(encoding="utf-8"))["matrix"]
ADV = MATRIX["advocacy"]
HEDGE = MATRIX["hedging"]

ADV_CELLS = [(m, phrase, cls, subject, section)
             for m, phrases in ADV["moods"].items() for phrase in phrases
             for cls, subjects in ADV["subjects"].items() for subject in subjects
             for section in ADV["sections"]]
LIST = MATRIX["list_items"]
LIST_CELLS = [(m, head, cls, noun, section)
              for m, heads in LIST["heads"].items() for head in heads
              for cls, nouns in LIST["nouns"].items() for noun in nouns
              for section in ADV["sections"]]
HEDGE_CELLS = [(kind, spec["frame"], spec["hedge"], marker, subject)
               for kind, spec in HEDGE["clauses"].items() for marker in HEDGE["markers"]
               for subject in HEDGE["subjects"]]
# The clause mood alone, before the lint's scope rules (``span``, default ``hedge``).
SPAN_CELLS = [(kind, spec["frame"], spec.get("span", spec["hedge"]), marker, subject)
              for kind, spec in HEDGE["clauses"].items() for marker in HEDGE["markers"]
              for subject in HEDGE["subjects"]]


def _advocacy_expected(m: str, cls: str, section: str, phrase: str = "") -> bool:
    # A judgement of a thing of no class, in the past tense, tells how it was.
    if cls in ADV["past_is_narrative"] and phrase.startswith(("was ", "were ")):
        return False
    # A necessity predicate ("is essential ...") prescribes a thing of no class too.
    if cls == "unclassed" and phrase in ADV.get("necessity_unclassed", ()):
        return section not in ADV["free_sections"]
    # In a lessons section a deontic norm pushes whatever it is about.
    if m == "normative" and phrase in ADV.get("any_topic_in", {}).get(section, ()):
        return True
    return m != "none" and cls in ADV["topical"][m] and section not in ADV["free_sections"]


def _flags(rule: lint.Rule, text: str, section: str) -> list[lint.Finding]:
    example = {"text": text, "section": section}
    if section in ADV.get("headings", {}):
        example["heading"] = ADV["headings"][section]
    return lint.example_findings(rule, example, sections=SECTIONS, others=RULES)


def test_matrix_sizes() -> None:
    """The matrices cover every combination the data lists (and are not trivial)."""
    assert len(ADV_CELLS) == (sum(map(len, ADV["moods"].values()))
                              * sum(map(len, ADV["subjects"].values()))
                              * len(ADV["sections"]))
    assert len(ADV_CELLS) >= 500
    assert {c[0] for c in ADV_CELLS} == {"normative", "evaluative", "none"}
    assert len(HEDGE_CELLS) == len(HEDGE["clauses"]) * len(HEDGE["markers"]) * len(
        HEDGE["subjects"])


@pytest.mark.parametrize(("m", "phrase", "cls", "subject"), sorted({
    c[:4] for c in ADV_CELLS}))
def test_mood_reading_matrix(m: str, phrase: str, cls: str, subject: str) -> None:
    """Each clause reads as its marker's mood, about its subject's noun class."""
    assert GRAMMAR is not None
    text = f"{subject} {phrase}."
    found = {(r.mood, r.topic) for r in mood.readings(text, GRAMMAR, MOODS)
             if r.mood != mood.EPISTEMIC}
    if m == "none":
        assert found == set(), text
    elif cls == mood.UNCLASSED:
        # A subject of no class leaves the topic to the predicate's own nouns ("a single
        # point of failure" is design), else to the tense; never to a concrete object.
        assert len(found) == 1 and next(iter(found))[0] == m, text
        got = next(iter(found))[1]
        assert got != "concrete", text
        if got in (mood.UNCLASSED, mood.PAST_STATE):
            past = m == mood.EVALUATIVE and phrase.startswith(("was ", "were "))
            assert got == (mood.PAST_STATE if past else mood.UNCLASSED), text
    else:
        assert found == {(m, cls)}, text


@pytest.mark.parametrize(("m", "phrase", "cls", "subject", "section"), ADV_CELLS)
def test_advocacy_matrix(m: str, phrase: str, cls: str, subject: str, section: str) -> None:
    text = f"{subject} {phrase}."
    got = bool(_flags(BY_ID["advocacy"], text, section))
    assert got == _advocacy_expected(m, cls, section, phrase), (text, section)


def test_the_mood_reading_carries_the_matrix() -> None:
    """Without its clause moods the advocacy rule loses most of the matrix's findings:
    the phrases the old co-occurrence lists happened to know are the minority."""
    rule = BY_ID["advocacy"]
    bare = replace(rule, moods=())
    positives = [(f"{c[3]} {c[1]}.", c[4]) for c in ADV_CELLS
                 if _advocacy_expected(c[0], c[2], c[4], c[1])]
    kept = sum(bool(_flags(bare, text, section)) for text, section in positives[::7])
    assert kept < len(positives[::7]) / 2


@pytest.mark.parametrize(("m", "head", "cls", "noun", "section"), LIST_CELLS)
def test_list_item_matrix(m: str, head: str, cls: str, noun: str, section: str) -> None:
    """P-5 (#24): a lessons or problem list item with no subject, a bare imperative of a
    practice ("Reduce external dependencies") or a deficiency noun phrase ("Lack of
    release testing"), is advocacy about its noun's class outside the action items."""
    text = LIST["frame"].format(head=head, noun=noun)
    got = bool(_flags(BY_ID["advocacy"], text, section))
    assert got == _advocacy_expected(m, cls, section), (text, section)


def test_the_list_item_matrix_needs_the_clause_opening_moods() -> None:
    """Without the clause-opening imperative and deficiency heads of ``moods.yaml`` the
    list items are missed: no other rule of advocacy reads them."""
    rule = BY_ID["advocacy"]
    assert rule.mood_grammar is not None
    content = yaml.safe_load(datafiles.MOODS.read_text(encoding="utf-8"))
    for m in ("normative", "evaluative"):
        pattern = content["markers"][m]["pattern"]
        stripped_pattern = _without_openers(pattern)
        assert stripped_pattern != pattern
        content["markers"][m]["pattern"] = stripped_pattern
    stripped = replace(rule, mood_grammar=mood.compile_moods(content))
    positives = [(LIST["frame"].format(head=c[1], noun=c[3]), c[4]) for c in LIST_CELLS
                 if _advocacy_expected(c[0], c[2], c[4])]
    assert positives
    kept = sum(bool(_flags(stripped, text, section)) for text, section in positives[::5])
    assert kept < len(positives[::5]) / 4


def _without_openers(pattern: str) -> str:
    """``pattern`` without its clause-opening alternatives (``|(?-i:^\\s*...)``)."""
    opener = "|(?-i:^\\s*"
    while (at := pattern.find(opener)) >= 0:
        depth, i = 0, at + 1
        while True:
            if pattern[i] == "\\":
                i += 2
                continue
            depth += {"(": 1, ")": -1}.get(pattern[i], 0)
            i += 1
            if depth == 0:
                break
        pattern = pattern[:at] + pattern[i:]
    return pattern


def _hedge_text(frame: str, subject: str, marker: str) -> str:
    if not frame.startswith("{subject}"):
        subject = subject[0].lower() + subject[1:]
    return frame.format(subject=subject, marker=marker)


@pytest.mark.parametrize(("kind", "frame", "hedge", "marker", "subject"), HEDGE_CELLS)
def test_hedging_matrix(kind: str, frame: str, hedge: bool, marker: str,
                        subject: str) -> None:
    """An epistemic marker hedges a statement of fact; asked, or inside a norm's clause,
    it doubts nothing (the norm is advocacy's finding)."""
    text = _hedge_text(frame, subject, marker)
    got = bool(_flags(BY_ID["hedging"], text, HEDGE["section"]))
    assert got == hedge, (kind, text)


@pytest.mark.parametrize(("kind", "frame", "hedge", "marker", "subject"), SPAN_CELLS)
def test_epistemic_spans_matrix(kind: str, frame: str, hedge: bool, marker: str,
                                subject: str) -> None:
    """The mood reading alone: an epistemic span exactly where the hedge stands."""
    assert GRAMMAR is not None
    text = _hedge_text(frame, subject, marker)
    got = list(mood.spans(text, GRAMMAR, MOODS, {"epistemic": ["any"]}))
    assert bool(got) == hedge, (kind, text)


@pytest.mark.parametrize(("text", "readings"), [
    # Hindsight, an expected outcome, the fix's own to-do, the writer's own obligation,
    # a plan's necessity and a described rule are no norms.
    ("CI should have caught the regression.", set()),
    ("The release process should fix this now.", set()),
    ("We still need to fix the underlying problem.", set()),
    ("I must self-merge the release branch today.", set()),
    ("The cleanup of the release would need to wait.", set()),
    ("We have a policy stating two people will have to review.", set()),
    # A judgement inside a causal adjunct names a cause.
    ("It flaked due to insufficient waiting for deployments.", set()),
    # Norms and judgements about how the work is done.
    ("These two groups need to have a closer relationship.",
     {("normative", "organisation")}),
    ("I really suggest that you ship releases on the announced dates.",
     {("normative", "process")}),
    ("Our release tooling is clearly lacking in tests.", {("evaluative", "process")}),
    ("Our last test is clearly lacking in asserts.", {("evaluative", "concrete")}),
    ("This should be standard for every project.", {("normative", "policy")}),
    # A norm that the incident must not recur is about the work (P-5, #24); bound to a
    # fix ("so this should not happen again") it is the fix's expected outcome.
    ("This must never happen again.", {("normative", "policy")}),
    ("This should not happen, as it misleads every packager.", {("normative", "policy")}),
    ("I fixed the CI, so this should not happen again.", set()),
    # A problem-list item and a lessons imperative with no subject.
    ("Lack of log retention for crashed pods.", {("evaluative", "design")}),
    ("Reduce external dependencies to a bare minimum.", {("normative", "design")}),
    ("We reduce the batch size to a bare minimum.", set()),
    # A prevention purpose before an imperative is a practice to adopt; a present
    # verdict of harm judges what it names, a past state of a thing does not.
    ("To prevent this in future, use the merge queue.", {("normative", "process")}),
    ("To prevent this in future, we added a check.", set()),
    ("Self-merging is bad for three reasons.", {("evaluative", "process")}),
    ("The disk on the builder was bad.", set()),
    # A stressed modal is still a modal.
    ("Some mirrors _should not_ be trusted by the release process.",
     {("normative", "process")}),
    ("The caching scheme is _fragile_.", {("evaluative", "design")}),
    # The object's nearest classed noun decides: the adjective's own noun, not a
    # concrete noun later in the clause.
    ("No time was left because this poor governance ate the latest changes.",
     {("evaluative", "policy")}),
    ("No time was left because the latest changes ate this poor governance.",
     {("evaluative", "policy")}),
])
def test_mood_readings(text: str, readings: set[tuple[str, str]]) -> None:
    assert GRAMMAR is not None
    got = {(r.mood, r.topic) for r in mood.readings(text, GRAMMAR, MOODS)
           if r.mood != mood.EPISTEMIC}
    assert got == readings


def test_a_question_has_no_mood() -> None:
    assert GRAMMAR is not None
    assert list(mood.readings("Should the release process be gated?", GRAMMAR, MOODS)) == []


def _write_moods(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit) -> None:
    content = yaml.safe_load(datafiles.MOODS.read_text(encoding="utf-8"))
    edit(content)
    path = tmp_path / "moods.yaml"
    path.write_text(yaml.safe_dump(content), encoding="utf-8")
    monkeypatch.setattr(datafiles, "MOODS", path)
    datafiles.moods.cache_clear()


@pytest.mark.parametrize(("edit", "key"), [
    (lambda c: c["markers"]["normative"].update(pattern="(unclosed"),
     "markers.normative.pattern"),
    (lambda c: c["markers"]["evaluative"]["match"].append("the loader crashed"),
     "markers.evaluative.match"),
    (lambda c: c["nouns"]["process"]["no_match"].append("the release process"),
     "nouns.process.no_match"),
    (lambda c: c["cancels"]["normative"][0]["match"].append("releases must be gated"),
     "cancels.normative[0].match"),
])
def test_bad_moods_data_names_file_and_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           edit, key: str) -> None:
    _write_moods(tmp_path, monkeypatch, edit)
    try:
        with pytest.raises(DataError) as err:
            datafiles.moods()
        assert "moods.yaml" in str(err.value) and key in str(err.value)
    finally:
        datafiles.moods.cache_clear()


def test_every_matrix_subject_class_is_a_noun_class() -> None:
    classes = set(MOODS.nouns) | {mood.UNCLASSED}
    assert set(ADV["subjects"]) <= classes and set(LIST["nouns"]) <= classes
    assert all(set(t) <= classes for t in ADV["topical"].values())
    assert dict(BY_ID["advocacy"].moods) == {m: tuple(t) for m, t in ADV["topical"].items()}
    # A judgement reaches further than a norm: both matrices hold cells that differ.
    assert set(ADV["topical"]["evaluative"]) - set(ADV["topical"]["normative"]) \
        & set(ADV["subjects"])
    assert list(itertools.chain(*ADV["moods"].values()))


def test_clause_opening_heads_never_flag_a_heading() -> None:
    """A heading that opens with an imperative or a deficiency head names a section; the
    list item under it with the same words is the finding (P-5, #24)."""
    lines = ["# Lack of release testing", "", "## Missing monitoring", "",
             "The loader crashed.", "", "## Lessons learned", "",
             "### Reduce external dependencies", "", "- Keep the release process small.",
             "", "## Action items", "", "- Reduce external dependencies.",
             "- Lack of release testing: add a soak job.", ""]
    found = [f for f in lint.lint("\n".join(lines), RULES, sections=SECTIONS)
             if f.rule == "advocacy"]
    assert [f.line for f in found] == [lines.index("- Keep the release process small.") + 1]


def test_emphasis_is_blanked_but_identifiers_stay() -> None:
    text = "it _should not_ be **always** set in my_flag or `a_b`"
    out = mood.unemphasised(text)
    assert len(out) == len(text)
    assert "should not" in out and " always " in out
    assert "_" not in out.replace("my_flag", "").replace("a_b", "")
    assert "my_flag" in out and "a_b" in out
