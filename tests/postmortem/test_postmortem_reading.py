"""#24, P-5: how the lint reads Markdown text before any rule sees it. Emphasis markers
("_I think_", "__must__", "*should*") are taken off so an emphasised word reads as the
word, at its own line; code spans stay code; an identifier's underscores are not
emphasis; no heading is flagged; hostile markup never crashes. A quote behind a thread's
role label or a speaker's attribution ("Reply: > ...", "**bob** wrote: > ...") is somebody
else's words and is read as a block quote is: not as the replier's prose."""

from __future__ import annotations

import pytest

from agentops.postmortem import datafiles, lint

RULES = datafiles.lint_rules()
SECTIONS = datafiles.sections()
LEXICAL = [r for r in RULES if r.kind == "lexicon"]


def _lint(text: str) -> list[tuple[int, str]]:
    return [(f.line, f.rule) for f in lint.lint(text, LEXICAL, sections=SECTIONS)]


def _doc(line: str) -> str:
    # The tested line is line 5, after a title and a wrapped first sentence.
    return f"# Cache outage\n\nThe nightly job\nstopped at 02:10.\n{line}\n"


@pytest.mark.parametrize(("line", "rule"), [
    ("_I think_ the cache was stale.", "hedging"),
    ("__I think__ the cache was stale.", "hedging"),
    ("_Alice_ broke the launcher.", "blame"),
    ("We __must__ rewrite the launcher.", "advocacy"),
    ("We _should_ rewrite the launcher.", "advocacy"),
    ("We *should* rewrite the launcher.", "advocacy"),
    ("We **_should_** rewrite the launcher.", "advocacy"),
])
def test_an_emphasised_word_is_read_as_the_word_at_its_line(line: str, rule: str) -> None:
    assert (5, rule) in _lint(_doc(line)), line
    # The same line without markup gives the same finding (the markup changes nothing).
    plain = line.replace("*", "").replace("_", "")
    assert (5, rule) in _lint(_doc(plain)), plain


def test_emphasis_inside_a_wrapped_sentence_keeps_the_original_line() -> None:
    text = ("# Cache outage\n\n## Root cause\n\nThe job stopped at 02:10 and\n"
            "_I think_ the cache\nwas stale.\n")
    assert _lint(text) == [(6, "hedging")]


def test_finding_prints_file_line_rule_message() -> None:
    findings = lint.lint(_doc("_I think_ the cache was stale."), LEXICAL, file="pm.md",
                         sections=SECTIONS)
    assert [str(f).split(": ")[:2] for f in findings] == [["pm.md:5", "hedging"]]


@pytest.mark.parametrize("line", [
    "`I think` the cache was stale.",          # a code span stays code
    "The `_I think_` flag was stale.",         # emphasis inside code stays code
    "The `should_retry` flag was off.",
])
def test_code_spans_stay_code(line: str) -> None:
    assert _lint(_doc(line)) == []


@pytest.mark.parametrize(("body", "read"), [
    ("_I think_ it broke", "I think it broke"),
    ("was __must__ done", "was must done"),
    ("a *b* and ***c***", "a b and c"),
    ("done.**We** left", "done. We left"),
    ("(_see_ above)", "(see above)"),
    # identifiers: inner and edge underscores touching a word are not emphasis
    ("snake_case and my_var_name", "snake_case and my_var_name"),
    ("_private_var stays", "_private_var stays"),
    ("x _y_z_ w", "x y_z w"),
    # unbalanced or lone markers are left as they are
    ("_unbalanced here", "_unbalanced here"),
    ("foo_ bar _baz", "foo_ bar _baz"),
    ("2 * 3 * 4", "2 * 3 * 4"),
    (r"\_not emphasis\_", r"\_not emphasis\_"),
])
def test_words_takes_off_emphasis_markers_only(body: str, read: str) -> None:
    assert lint.words(body) == read


def test_no_flag_on_an_emphasised_heading() -> None:
    text = ("# _I think_ the cache was stale\n\n## We __must__ rewrite it\n\n"
            "**_Alice_ broke the launcher**\n\nThe job stopped at 02:10.\n")
    assert _lint(text) == []
    parsed = lint.parse(text, SECTIONS)
    assert [h.line for h in parsed.headings] == [1, 3, 5]


@pytest.mark.parametrize("line", [
    "_a " * 4000,                                # thousands of openers, none closed
    "_" * 20000,
    "*" * 20000 + " I think " + "_" * 20000,
    "__**_" * 3000 + "probably" + "_**__" * 3000,
    "x_" * 10000,
])
def test_hostile_emphasis_never_crashes(line: str) -> None:
    found = _lint(_doc(line))
    assert all(n == 5 for n, _ in found), found


@pytest.mark.parametrize("prefix", [
    "> ",                                   # a plain block quote, for reference
    "Reply: > ",
    "Maintainer: >",
    "**Author:** > ",
    "**bob** wrote: > ",
    "@bob commented: > ",
    "Reply: @bob wrote: > ",
    "Reviewer: On 3 May 2021, at 10:22, Bob Jones wrote: > ",
])
@pytest.mark.parametrize("quoted", [
    "I think the cache was stale.",
    "We should rewrite the launcher.",
    "Alice broke the launcher.",
])
def test_a_quote_behind_a_label_or_speaker_is_not_the_replier_s_prose(
        prefix: str, quoted: str) -> None:
    own = _lint(_doc(f"Reply: {quoted}"))
    assert own and all(n == 5 for n, _ in own), own  # the replier's own words are read
    assert _lint(_doc(prefix + quoted)) == [], prefix


def test_the_replier_s_own_words_after_a_prefixed_quote_are_read_at_their_line() -> None:
    text = ("# Cache outage\n\nThe nightly job stopped.\n\n"
            "Reply: > We should rewrite the launcher.\n\n"
            "I think the cache was stale.\n")
    assert _lint(text) == [(7, "hedging")]


@pytest.mark.parametrize("line", [
    "Result: > 100 jobs failed, probably because of the cache.",   # a comparison
    "Latency went from 3 s > 9 s, probably because of the cache.",
    "Reply: the p99 was > 9 s, probably because of the cache.",
])
def test_a_greater_than_sign_in_prose_is_not_a_quote(line: str) -> None:
    assert (5, "hedging") in _lint(_doc(line)), line


def test_hostile_prefixed_quotes_never_crash() -> None:
    lines = ["Reply: " + "x" * 50000 + " wrote: > I think so.",
             "Reply: " * 5000 + "> I think so.",
             "wrote: " * 5000 + ">",
             "Reply: > " + "_a " * 3000]
    for line in lines:
        found = _lint(_doc(line))
        assert all(n == 5 for n, _ in found), found
