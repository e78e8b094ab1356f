"""Untrusted text made inert, pinned with hand-written expectations (#26 items 2-3):
a workflow command after leading whitespace stays dead in both helpers
(``agentops.markdown_escape.text`` for summaries and comments, ``agentops.console
.inert_line`` for every printed line), and text longer than its limit is cut to exactly the limit
(every other test passes a limit it never reaches).

The command oracle is the runner's own rule, written here independently of the
helpers: a log line is a workflow command when, after its leading whitespace (.NET's
``Char.IsWhiteSpace``) is trimmed, it starts with ``::``.
"""

from __future__ import annotations

import pytest

from agentops import console, ghactions, markdown_escape
from agentops.triage import render as triage_render
from agentops.triage.outcome import Outcome

ZWSP = "\u200b"
# .NET Char.IsWhiteSpace: the runner's TrimStart() removes these before it looks for "::".
NET_WHITESPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                  "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def starts_a_command(line: str) -> bool:
    return line.lstrip(NET_WHITESPACE).startswith("::")


COMMANDS = ["  ::add-mask::x", "\t::add-mask::x", "    ::set-output name=a::b",
            " \t ::error::boom", "\xa0::add-mask::x", "\u3000::stop-commands::t",
            "\x0b::add-mask::x", "\u202e::add-mask::x", "\u2028::add-mask::x"]


@pytest.mark.parametrize("raw", COMMANDS)
def test_a_command_after_leading_whitespace_stays_dead_in_markdown(raw: str) -> None:
    md = markdown_escape.text(raw)
    assert not any(starts_a_command(line) for line in md.split("\n")), repr(md)
    assert "add-mask" in md or "set-output" in md or "error" in md or "stop-commands" in md


@pytest.mark.parametrize("raw", COMMANDS)
def test_a_command_after_leading_whitespace_stays_dead_in_a_log_line(raw: str) -> None:
    out = console.inert_line(raw)
    assert not any(starts_a_command(line) for line in out.splitlines()), repr(out)
    assert out.replace(ZWSP, "").lstrip(NET_WHITESPACE).startswith("::")  # shown, not run


@pytest.mark.parametrize("raw", ["ok\n  ::add-mask::x", "ok\r\n\t::warning::w",
                                 "a::b\n::c::d"])
def test_no_line_of_a_multiline_log_text_starts_a_command(raw: str) -> None:
    out = console.inert_line(raw)
    assert [starts_a_command(line) for line in out.splitlines()] == [False] * len(
        out.splitlines())


def test_text_that_only_mentions_colons_is_left_alone() -> None:
    # pytest ids and C++ names mid-line are not commands: shown exactly, no ZWSP (and
    # an underscore between letters is no emphasis, so it stays unescaped).
    assert markdown_escape.text("see a.py::test_x and c10d::ProcessGroup") == (
        "see a.py::test_x and c10d::ProcessGroup")


# --- length limits: inputs that exceed them ---------------------------------------------------

@pytest.mark.parametrize(("raw", "limit", "expected"), [
    ("abcdef", 3, "abc…"),
    ("abcdef", 5, "abcde…"),
    ("abcdef", 6, "abcdef"),  # exactly the limit: not cut
    ("abcdef", 7, "abcdef"),
    ("a\u202eb\u2066cdef", 3, "abc…"),  # dropped characters do not count
    ("ab\ncd", 4, "ab c…"),  # a folded newline counts as the space it becomes
])
def test_markdown_text_is_cut_to_its_limit(raw: str, limit: int, expected: str) -> None:
    assert markdown_escape.text(raw, limit=limit) == expected


def test_markdown_text_default_limit_is_300() -> None:
    assert markdown_escape.text("a" * 301) == "a" * 300 + "…"
    assert markdown_escape.text("a" * 300) == "a" * 300


def test_code_span_is_cut_to_its_limit() -> None:
    assert markdown_escape.code("abcdef", limit=3) == "`abc…`"
    assert markdown_escape.code("abcdef", limit=6) == "`abcdef`"
    assert markdown_escape.code("b" * 301) == "`" + "b" * 300 + "…`"


def test_marked_text_is_cut_to_its_limit() -> None:
    # The limit counts the raw text, backticks included.
    assert markdown_escape.marked("`ab` cdef", limit=6) == "`ab` c…"
    assert markdown_escape.marked("c" * 401) == "c" * 400 + "…"
    assert markdown_escape.marked("c" * 400) == "c" * 400


@pytest.mark.parametrize(("raw", "limit", "expected"), [
    ("abcdef", 3, "abc…"), ("abcdef", 6, "abcdef"), ("a\x00b\u202ecdef", 2, "ab…")])
def test_log_text_is_cut_to_its_limit(raw: str, limit: int, expected: str) -> None:
    assert console.inert_line(raw, limit=limit) == expected


def test_log_text_is_not_cut_without_a_limit() -> None:
    assert console.inert_line("x" * 5000) == "x" * 5000
    assert console.inert_line("x" * 2001, limit=2000) == "x" * 2000 + "…"


def test_inert_markdown_is_the_text_helper_with_its_limit() -> None:
    assert ghactions.inert_markdown("[a](b) @c", limit=4) == "\\[a\\](…"
    assert ghactions.inert_markdown("x|y", cell=True) == "x\\|y"


def test_a_long_issue_title_is_cut_in_the_triage_summary() -> None:
    outcome = Outcome(repo="o/r", number=7, status="dry-run", title="t" * 200,
                      url="https://github.com/o/r/issues/7", decision="classify",
                      labels=("module: fsdp",), reason="")
    md = triage_render.summary([outcome], heading="Triage", dry_run=True, api_line="")
    assert "t" * 90 + "…" in md and "t" * 91 not in md


def test_inert_markdown_default_limit_is_300() -> None:
    assert ghactions.inert_markdown("a" * 301) == "a" * 300 + "…"
    assert ghactions.inert_markdown("a" * 300) == "a" * 300


# --- more hand-written forms ----------------------------------------------------------------

@pytest.mark.parametrize(("raw", "expected"), [
    ("1) item", "1\\) item"),  # an ordered list item with ')' as well as '.'
    ("12) x", "12\\) x"),
    ("1. item", "1\\. item"),
    ("Awww.x 9www.y www.z", "Awww.x 9www.y www" + ZWSP + ".z"),  # only a www. that starts a word
])
def test_text_hand_written_forms(raw: str, expected: str) -> None:
    assert markdown_escape.text(raw) == expected


@pytest.mark.parametrize(("raw", "expected"), [
    ("run ` ls -l ` now", "run `ls -l` now"),  # the author's padding goes, as in CommonMark
    ("x ` ` y", "x ` ` y"),  # a span of one space keeps it
    ("x `  ` y", "x `  ` y"),  # only spaces: nothing stripped
    ("x ` a` y", "x ` a` y"),  # a space on one side only stays
    ("x `a ` y", "x `a ` y"),
])
def test_marked_code_span_padding(raw: str, expected: str) -> None:
    assert markdown_escape.marked(raw) == expected


def test_link_without_a_url_is_the_label_alone() -> None:
    assert markdown_escape.link("run [1]", None) == "run \\[1\\]"  # type: ignore[arg-type]
    assert markdown_escape.link("run", "") == "run"


def test_annotations_in_a_runner(monkeypatch, capsys) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    ghactions.error("boom")
    ghactions.warning("careful", title=None)
    ghactions.error("a\nb 100%", title="x,y: z")
    assert capsys.readouterr().err == ("::error::boom\n::warning::careful\n"
                                       "::error title=x%2Cy%3A z::a%0Ab 100%25\n")
    monkeypatch.delenv("GITHUB_ACTIONS")
    ghactions.error("boom", title="t")
    assert capsys.readouterr().err == "error: boom\n"


@pytest.mark.parametrize(("raw", "expected"), [
    ("---", "\\---"),  # a thematic break
    ("=--", "\\=--"),
    ("===", "\\==="),  # a setext underline
    ("== ", "\\== "),  # trailing spaces do not stop one
    ("-- ", "\\-- "),
    ("    code", " code"),  # four spaces would open an indented code block
    ("\tcode", " code"),
    ("     x", " x"),
    ("   x", "   x"),  # three do not
    ("  # h", "  \\# h"),
    ("    # h", " \\# h"),
    ("\t- x", " \\- x"),
    ("   1. x", "   1\\. x"),
])
def test_line_start_constructs_by_hand(raw: str, expected: str) -> None:
    assert markdown_escape.text(raw) == expected


def test_link_label_is_cut_to_its_limit() -> None:
    url = "https://github.com/o/r/issues/1"
    assert markdown_escape.link("a" * 301, url) == f"[{'a' * 300}…](<{url}>)"
    assert markdown_escape.link("a" * 300, url) == f"[{'a' * 300}](<{url}>)"


@pytest.mark.parametrize("url", ["https://a.example/<x", "https://a.example/x>",
                                 "https://a.example/a\\b", "https://a.example/`x",
                                 "https://a.example/a b", "javascript:alert(1)",
                                 "ftp://a.example/x", "//a.example/x"])
def test_link_drops_a_url_that_could_leave_its_brackets(url: str) -> None:
    assert markdown_escape.link("run", url) == "run"
