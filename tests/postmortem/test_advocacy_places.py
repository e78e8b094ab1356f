"""benchmarks/postmortem_advocacy_places.py: where a judged advocacy line sits (#24, P-5).

Made-up texts only."""

from __future__ import annotations

from pathlib import Path

from benchmarks import postmortem_advocacy_places as places_mod

WRITE_UP = """# The queue stalled on Tuesday

## Root cause

The worker pool ran out of slots because a retry loop never backed off.

## Follow-ups

- Add a backoff ceiling to the retry loop
- Alert when the pool is full for five minutes

Plain paragraph under the list. It has two sentences.

## Timeline

The pager went off at noon and we should really rethink paging.
"""

THREAD = """# Worker pool full after upgrade

The upgrade filled the pool.

Next steps:

- bump the pool size
- document the retry limit

The maintainers should cut a major release for a change like this one, in my view.

Reply: Agreed, and we should add a soak run before every tag.
"""

NO_MARKERS = """# Lost a disk

## What I learned

Label every disk

Keep two copies of the keys

## Appendix

Keep the appendix short
"""


def test_items_under_a_follow_up_heading_are_in_list() -> None:
    got = places_mod.places(WRITE_UP)
    assert got[7] == places_mod.HEAD
    assert got[9] == got[10] == places_mod.ITEM
    # A two-sentence paragraph in the section is section prose, not an item.
    assert got[12] == places_mod.SECTION_PROSE
    # A heading of another kind ends the follow-up section.
    assert got[14] == places_mod.PROSE and got[16] == places_mod.PROSE
    assert got[5] == places_mod.PROSE


def test_a_lead_in_opens_a_list_that_prose_ends_and_a_reply_is_a_reply() -> None:
    got = places_mod.places(THREAD)
    assert got[5] == places_mod.HEAD
    assert got[7] == got[8] == places_mod.ITEM
    assert got[10] == places_mod.PROSE
    assert got[12] == places_mod.REPLY


def test_items_without_markers_count_when_short_and_one_sentence() -> None:
    got = places_mod.places(NO_MARKERS)
    assert got[3] == places_mod.HEAD
    assert got[5] == got[7] == places_mod.ITEM
    assert got[11] == places_mod.PROSE


def test_section_words_meet_their_examples() -> None:
    for label in places_mod.FOLLOWUP_EXAMPLES:
        assert places_mod.opens_followup(label), label
    for label in places_mod.FOLLOWUP_NOT_EXAMPLES:
        assert not places_mod.opens_followup(label), label


def test_forms() -> None:
    assert places_mod.form_of("- Add a backoff ceiling") == "bare-imperative"
    assert places_mod.form_of("We will add a soak run before tagging.") == "we-will/should"
    assert places_mod.form_of("You should pin the version.") == "reader-advice"
    assert places_mod.form_of("You should pin the version.", thread=True) == "request"
    assert places_mod.form_of("Could you cut a new major release?") == "request"
    assert places_mod.form_of("The paging setup is a mess and has been for years.") \
        == "opinion/verdict"


def test_figures_drop_in_list_spans_and_flags(tmp_path: Path) -> None:
    path = tmp_path / "d.md"
    path.write_text(WRITE_UP, encoding="utf-8")
    reading = places_mod.Reading({"d": places_mod.places(WRITE_UP)},
                                 {"d": WRITE_UP.splitlines()}, {"d": {9, 16}}, {"d": {}})
    spans = (("d", 9, 9), ("d", 10, 10), ("d", 16, 16))
    assert places_mod.score(reading, spans) == (2, 0, 2, 3)
    assert places_mod.score(reading, spans, places_mod.IN_LIST) == (1, 0, 1, 1)
    # A flag on the section's paragraph is a false flag as judged, out of the count when
    # the whole follow-up part is left out.
    reading.flags["d"].add(12)
    assert places_mod.score(reading, spans) == (2, 1, 2, 3)
    assert places_mod.score(reading, spans, places_mod.IN_SECTION) == (1, 0, 1, 1)


def test_part_kinds_tell_lessons_from_actions() -> None:
    kinds = places_mod.part_kinds(WRITE_UP)
    assert kinds[7] == kinds[9] == kinds[12] == "actions" and 5 not in kinds
    kinds = places_mod.part_kinds(NO_MARKERS)
    assert kinds[3] == kinds[5] == kinds[7] == "lessons" and 11 not in kinds
