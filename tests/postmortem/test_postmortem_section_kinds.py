"""#24 round 48: a section's kind (section_kinds.yaml) decides how a clause the clause
code leaves open reads. In a reflective part (lessons, takeaways) the writer urges a
practice on the reader; in the writers' action items the same words are their plan; in
the narrative they tell the incident. Made-up documents only."""

from __future__ import annotations

import functools

import pytest

from agentops.errors import DataError
from agentops.postmortem import datafiles, lint

RULES = [r for r in datafiles.lint_rules() if r.kind == "lexicon"]
SECTIONS = datafiles.sections()


def _advocacy_lines(text: str) -> list[int]:
    return [f.line for f in lint.lint(text, RULES, sections=SECTIONS) if f.rule == "advocacy"]


def _doc(heading: str, body: str) -> str:
    return f"# The kiln controller outage\n\n## {heading}\n\n{body}\n"


def test_every_section_key_has_one_kind() -> None:
    kinds = datafiles.section_kinds()
    assert set(kinds) == {s.key for s in SECTIONS}
    assert kinds["lessons"] == "reflective"
    assert kinds["action_items"] == "remedy" and kinds["timeline"] == "narrative"


def test_broken_kinds_file_names_the_file_and_key(broken_data) -> None:  # type: ignore[no-untyped-def]
    write = functools.partial(broken_data, "SECTION_KINDS", datafiles.section_kinds)
    keys = [s.key for s in SECTIONS]
    rest = ", ".join(k for k in keys if k != "lessons")
    write("version: 1\nkinds:\n  remedy: [lessons, kiln_log]\n"
          f"  reflective: []\n  narrative: [{rest}]\n")
    with pytest.raises(DataError, match=r"section_kinds\.yaml: kinds\.remedy\[1\]: "
                                        r"'kiln_log' is no section key"):
        datafiles.section_kinds()
    write("version: 1\nkinds:\n  remedy: [lessons]\n"
          f"  reflective: [lessons]\n  narrative: [{rest}]\n")
    with pytest.raises(DataError, match=r"kinds\.reflective\[0\]: 'lessons' is already "
                                        r"of kind 'remedy'"):
        datafiles.section_kinds()
    write("version: 1\nkinds:\n  remedy: []\n"
          f"  reflective: []\n  narrative: [{rest}]\n")
    with pytest.raises(DataError, match=r"section_kinds\.yaml: kinds: sections of no "
                                        r"kind: \['lessons'\]"):
        datafiles.section_kinds()
    write("version: 1\nkinds:\n  remedy: []\n  narrative: []\n")
    with pytest.raises(DataError, match=r"section_kinds\.yaml"):
        datafiles.section_kinds()


def test_a_deontic_norm_of_no_class_pushes_in_lessons_only() -> None:
    # The pre-round-48 lessons reading, now read by kind: it must survive the move.
    body = "The spare kiln sensor should hang on its own breaker."
    assert _advocacy_lines(_doc("Lessons learned", body)) == [5]
    assert _advocacy_lines(_doc("Timeline", body)) == []
    assert _advocacy_lines(_doc("Action items", body)) == []

