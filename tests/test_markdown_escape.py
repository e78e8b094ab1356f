"""Untrusted text rendered inert, checked the way a reader sees it: the Markdown is
parsed with a CommonMark parser (markdown-it-py, plus GFM tables and strikethrough) and
the checks read its tokens, not the source (issue #12 item 12, issue #13 item 3).

Inert: no link, image, HTML, emphasis or block structure comes from untrusted text,
and none of GitHub's own linkers (bare URLs, ``www.``, ``@mentions`` and e-mail
addresses, ``#123`` references) finds anything in its visible text. Shown as written:
the visible text equals the input (``->`` shows as ``->``, inside code spans too).
Covers the helper itself, every golden report, a hostile scout report, the triage
summary, the scout publish summary and the error summary every script writes.
"""

from __future__ import annotations

import json
import re
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from agentops import cli, markdown_escape
from agentops.errors import InputError
from agentops.scout import embedded, render
from agentops.scout.livedata import FailedTest, LiveData, WorkflowHealth
from agentops.scout.model import Baseline, Item, Report
from agentops.triage import render as triage_render
from agentops.triage.outcome import Outcome

ROOT = Path(__file__).resolve().parent
ZW = markdown_escape.ZWSP
_MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
# What GitHub turns into a link or a notification in plain text (not in code spans).
_GITHUB_LIVE = re.compile(r"(?i)\b(?:https?|ftp)://|(?<![\w.])www\.|@[A-Za-z0-9]|#\d|gh-\d")
_STRUCTURE = {"link_open", "image", "html_inline", "html_block", "em_open", "strong_open",
              "s_open", "heading_open", "blockquote_open", "fence", "code_block", "hr",
              "ordered_list_open", "bullet_list_open", "table_open"}
HOSTILE = [
    "[login to fix](https://evil.example) ![t](https://evil.example/t.png)",
    "<img src=x onerror=alert(1)></details><script>x</script>",
    "cc @pytorch/titan-oncall and mail me at a@b.example; fixes #123 and o/r#4",
    "closes GH-123, gh-7 and Gh-42 (but not GH-x)",
    "see www.evil.example or <https://evil.example> or https://evil.example/x",
    "*bold* _it_ ~~gone~~ `code` \\` \\[ &lt; &#8238; &amp;",
    "# heading", "> quote", "- item", "1. item", "===", "| a | b |",
    "::set-output name=x::y", "int -> int | None", "snake_case_name",
    "line one\nline two\r\n# not a heading", "x\u202eevil\u2066 \x00\x1b[31m",
]


def tokens(md: str) -> list[Any]:
    out: list[Any] = []

    def walk(ts: list[Any]) -> None:
        for t in ts:
            out.append(t)
            walk(t.children or [])

    walk(_MD.parse(md))
    return out


def visible(md: str) -> str:
    """What a reader sees: text, code and line breaks, zero-width spaces removed."""
    parts = []
    for t in tokens(md):
        if t.type in ("text", "code_inline"):
            parts.append(t.content)
        elif t.type in ("softbreak", "hardbreak"):
            parts.append("\n")
    return "".join(parts).replace(ZW, "")


def live_in_text(md: str) -> list[str]:
    """GitHub linker matches in the plain text a reader sees, outside code spans and
    outside the links the renderer made (GitHub links nothing inside those)."""
    found: list[str] = []
    in_link = 0
    for t in tokens(md):
        in_link += {"link_open": 1, "link_close": -1}.get(t.type, 0)
        if t.type == "text" and not in_link:
            found += [m.group(0) for m in _GITHUB_LIVE.finditer(t.content)]
    return found


# What the helper drops, written out by hand from the rule in docs/security.md (C0
# controls but tab and the newlines, DEL, and Unicode's bidi controls and marks), never
# from the module's own CONTROL_RE: a range dropped there must fail here.
DROPPED = frozenset([*(chr(c) for c in range(0x00, 0x09)), "\x0b", "\x0c",
                     *(chr(c) for c in range(0x0e, 0x20)), "\x7f",
                     "\u061c",  # ARABIC LETTER MARK
                     "\u200e", "\u200f",  # LRM, RLM
                     "\u202a", "\u202b", "\u202c", "\u202d", "\u202e",  # LRE RLE PDF LRO RLO
                     "\u2066", "\u2067", "\u2068", "\u2069"])  # LRI RLI FSI PDI


def as_written(raw: str) -> str:
    """The input as a reader must see it: dropped characters gone, each line break
    (CRLF, CR or LF) one space."""
    kept = "".join(ch for ch in raw if ch not in DROPPED)
    return kept.replace("\r\n", " ").replace("\r", " ").replace("\n", " ")


def test_the_expected_form_is_built_by_hand() -> None:
    # Every bidi control, and the C0 edges, disappear; tab and text stay.
    raw = ("a\u202ab\u202bc\u202cd\u202de\u202ef\u2066g\u2067h\u2068i\u2069j\u200ek\u200f"
           "l\u061cm\x00n\x08o\x0bp\x1fq\x7fr\ts\r\nt")
    assert as_written(raw) == "abcdefghijklmnopqr\ts t"
    md = markdown_escape.text(raw)
    assert visible(md) == "abcdefghijklmnopqr\ts t"
    assert markdown_escape.code(raw) == "`abcdefghijklmnopqr\ts t`"


# --- the helper ---------------------------------------------------------------------------

@pytest.mark.parametrize("raw", HOSTILE)
def test_text_is_inert_and_shows_as_written(raw: str) -> None:
    md = markdown_escape.text(raw, limit=10_000)
    assert {t.type for t in tokens(md)} & _STRUCTURE == set(), md
    assert live_in_text(md) == [], md
    assert visible(md) == as_written(raw)
    assert "\n" not in md and not re.match(r"\s*::", md)


@pytest.mark.parametrize("raw", HOSTILE)
def test_text_in_a_table_cell_stays_in_its_cell(raw: str) -> None:
    md = f"| a | b |\n|---|---|\n| {markdown_escape.text(raw, cell=True, limit=10_000)} | z |\n"
    cells = [t for t in tokens(md) if t.type == "inline"]
    assert [c.content for c in cells][:2] == ["a", "b"] and len(cells) == 4
    assert cells[3].content == "z"
    assert visible(cells[2].content.replace("\\|", "|")) == as_written(raw).strip()


@pytest.mark.parametrize("raw", ["int -> int | None", "a`b", "``x``", "`lead", "trail`",
                                 " padded ", "<b>&amp;</b> @org #1 https://x.example",
                                 "pytest a.py::T -k 'x and not y'"])
def test_code_span_shows_exactly(raw: str) -> None:
    md = markdown_escape.code(raw)
    [code] = [t for t in tokens(md) if t.type != "paragraph_open"
              and t.type not in ("paragraph_close", "inline")]
    assert code.type == "code_inline" and code.content == raw
    cell = f"| h |\n|---|\n| {markdown_escape.code(raw + ' | x', cell=True)} |\n"
    assert [t.content for t in tokens(cell) if t.type == "code_inline"] == [raw + " | x"]


@pytest.mark.parametrize(("raw", "inert"), [
    # Written out by hand (Z = U+200B): GitHub links GH-123 in any case, like #123.
    ("fixes GH-123", "fixes GH-\u200b123"),
    ("gh-7 and Gh-42", "gh-\u200b7 and Gh-\u200b42"),
    ("GH-x stays", "GH-x stays"),
    ("see #5", "see #\u200b5"),
    # A URI scheme may hold letters, digits, "+", "-" and "." (RFC 3986), its last
    # character too: each is cut from its "://"; a bare "://" has no scheme to cut.
    ("a+b://x a-b://x x.://y v2://z", "a+b\u200b://x a-b\u200b://x x.\u200b://y v2\u200b://z"),
    ("see :// alone", "see :// alone"),
    # An underscore stays bare only between two letters or digits: one beside another
    # underscore is escaped, in a word too (a double underscore is no word character).
    ("a__b and __init__ and snake_case", "a\\_\\_b and \\_\\_init\\_\\_ and snake_case"),
    # An underscore after a space or a sign opens emphasis whatever follows it, so it is
    # escaped on its own: the text stays inert beside whatever the program writes next.
    ("x _y and (_z) and -_w", "x \\_y and (\\_z) and -\\_w"),
    # Outside a table cell a pipe is plain text and stays as written (cell=True escapes it).
    ("int | None", "int | None"),
    # A workflow command after leading white space, and a legacy one.
    ("  ::add-mask::x", "  :\u200b:add-mask::x"),
    ("\t::error::x", " :\u200b:error::x"),
    ("##[add-mask]x", "##\\[add-mask\\]x"),
    ("a\u202eb\u2067c\x00d\u061ce", "abcde"),
])
def test_text_by_hand(raw: str, inert: str) -> None:
    assert markdown_escape.text(raw) == inert


def test_marked_makes_spans_code_and_the_rest_text() -> None:
    md = markdown_escape.marked("`Trainer.step` retyped: int -> int | None; `a``b` and a lone ` "
                                "[x](https://e.example) @team")
    assert [t.content for t in tokens(md) if t.type == "code_inline"] == ["Trainer.step",
                                                                          "a``b"]
    assert visible(md) == ("Trainer.step retyped: int -> int | None; a``b and a lone ` "
                           "[x](https://e.example) @team")
    assert live_in_text(md) == [] and "link_open" not in {t.type for t in tokens(md)}


def test_link_only_for_http_urls_the_program_chose() -> None:
    assert markdown_escape.link("run", "https://github.com/o/r/actions/runs/1") == (
        "[run](<https://github.com/o/r/actions/runs/1>)")
    assert markdown_escape.link("run [x]", "javascript:alert(1)") == "run \\[x\\]"
    assert markdown_escape.link("x", "https://a.example/<b>") == "x"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(string.printable + "\u200b\u202e\u00e9\u4e2d"
                                        + "`*_[]()<>!#@&|~-=+:/\\.w" * 4), max_size=80))
def test_any_text_is_inert_and_shows_as_written(raw: str) -> None:
    md = markdown_escape.text(raw, limit=10_000)
    assert {t.type for t in tokens(md)} & _STRUCTURE == set(), md
    assert live_in_text(md) == [], md
    # markdown-it collapses nothing inside a paragraph except the edges of the line
    assert visible(md).strip(" \t") == as_written(raw).replace(ZW, "").strip(" \t")
    code = markdown_escape.code(raw, limit=10_000)
    if as_written(raw).strip():
        assert [t.content for t in tokens(code) if t.type == "code_inline"] == [as_written(raw)]


# --- the golden reports -------------------------------------------------------------------

GOLDEN = sorted((ROOT / "golden").glob("*/**/*.md"))
_OWN_HTML = re.compile(r"<!-- (?:scout-item:[0-9a-f]+|agentops:[\w-]+)")


def _strip_spans(title: str) -> str:
    # The payload keeps a title's first 100-200 characters, which may end inside a code
    # span: its opening backticks are then the only ones left after the closed spans go.
    return re.sub(r"`+(?=[^`]*$)", "", re.sub(r"(`+)(.+?)\1", r"\2", title))


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.relative_to(ROOT / "golden").as_posix())
def test_golden_reports_parse_to_what_was_meant(path: Path) -> None:
    md = path.read_text(encoding="utf-8")
    toks = tokens(md)
    assert "image" not in {t.type for t in toks}
    for t in toks:
        if t.type == "link_open":  # only links the renderer made, to GitHub
            assert t.attrs["href"].startswith("https://github.com/"), t.attrs
        if t.type in ("html_inline", "html_block"):
            assert _OWN_HTML.match(t.content), t.content
        if t.type == "code_inline":
            assert not re.search(r"&(?:lt|gt|amp|quot);", t.content), t.content
        if t.type == "text":
            assert not re.search(r"&(?:lt|gt|amp);", t.content), t.content
    assert live_in_text(md) == []
    payload = embedded.extract(md)
    if payload is None:
        return
    shown = visible(md)
    muted = [i for i in payload["items"] if i.get("muted")]
    for item in payload["items"]:
        if item["kind"] != "all_clear" and not item.get("muted"):
            assert _strip_spans(item["title"]).replace(ZW, "") in shown, item["title"]
    if muted:  # carried unchanged three times: counted in one line, not repeated (#22)
        assert f"{len(muted)} action item(s) unchanged in the last three reports" in shown


def test_golden_scout_report_shows_arrows_as_arrows() -> None:
    md = (ROOT / "golden" / "scout" / "fixture-sequence" / "R2.md").read_text("utf-8")
    shown = visible(md)
    assert "Trainer.Config.steps (field retyped: int -> int | None)" in shown


# --- renders of hostile text -------------------------------------------------------------

EVIL = "[login to fix](https://evil.example) ![t](https://evil.example/t.png) @org/team #1"


def _report(*items: Item) -> Report:
    return Report(date="2026-07-09", target="demo", baseline=Baseline("2026-07-08", "first run",
                  None), head="a" * 40, items=items, resolved=(), suppressed=(), analyses={
                      "files_skipped": {"sub/`x`[y](https://e.example).py": "<b>big</b>"}})


def test_scout_report_renders_hostile_repository_text_inert() -> None:
    items = (Item(id="0123456789ab", section="S-2", kind="action", priority="P1",
                  title=f"TODO in `sub/{EVIL}.py`: {EVIL}", why=EVIL, where="sub/a.py:1"),
             Item(id="0123456789ac", section="S-4", kind="fyi", title=f"<details>{EVIL}"))
    live = LiveData(ci=(WorkflowHealth(
        "ci.yaml", "failure", latest_url="https://github.com/o/r/actions/runs/2",
        last_success_url="javascript:alert(1)", failing_torch="2.9`x",
        failed_tests=(FailedTest("test_a[x](https://e.example)",
                                 "RuntimeError: `x` -> <b>y</b> @org",
                                 ("sub/a.py:3 in f -> g",), "NGPU=2 ./run.sh `rm -rf`"),),
        recent_runs=1),))
    md = render.render(_report(*items), live)
    toks = tokens(md)
    links = [t.attrs["href"] for t in toks if t.type == "link_open"]
    assert links == ["https://github.com/o/r/actions/runs/2"]  # ours; the javascript: one not
    assert "image" not in {t.type for t in toks}
    assert all(_OWN_HTML.match(t.content) for t in toks
               if t.type in ("html_inline", "html_block"))
    assert live_in_text(md) == []
    codes = [t.content for t in toks if t.type == "code_inline"]
    # Log text in code spans, exactly: the arrow, the backticks, the HTML as characters.
    assert "RuntimeError: `x` -> <b>y</b> @org" in codes
    assert "NGPU=2 ./run.sh `rm -rf`" in codes and "sub/a.py:3 in f -> g" in codes
    assert f"sub/{EVIL}.py" in codes  # the file name in the title's code span
    shown = visible(md)
    assert f"TODO in sub/{EVIL}.py: {EVIL}" in shown
    assert f"<details>{EVIL}" in shown
    assert "sub/`x`[y](https://e.example).py (<b>big</b>)" in shown


def test_triage_summary_renders_a_hostile_title_inert() -> None:
    title = "[x](https://e.example) ![t](https://e.example/t.png) </td> | @org #1"
    outcome = Outcome(repo="o/r", number=7, status="dry-run", title=title,
                      url="https://github.com/o/r/issues/7", decision="classify",
                      labels=("module: fsdp",), reason="")
    md = triage_render.summary([outcome], heading="Triage — o/r", dry_run=True,
                               api_line="API calls: 1")
    toks = tokens(md)
    assert [t.attrs["href"] for t in toks if t.type == "link_open"] == [
        "https://github.com/o/r/issues/7"]
    assert "image" not in {t.type for t in toks} and live_in_text(md) == []
    start = [t.type for t in toks].index("table_open")
    end = [t.type for t in toks].index("table_close")
    cells = [t.content for t in toks[start:end] if t.type == "inline"]
    assert len(cells) == 6 + 6  # the header row and one row: the title kept its cell
    assert visible(cells[6].replace("\\|", "|")) == "#7 " + title


def test_error_summary_keeps_our_code_spans_and_defuses_the_rest(tmp_path, monkeypatch) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    cli.report_error(InputError("--report", f"cannot read {EVIL}.md: not UTF-8",
                                fix="give the file `scout.py report --out FILE` wrote"),
                     prog="scout.py")
    md = summary.read_text()
    assert [t.content for t in tokens(md) if t.type == "code_inline"] == [
        "scout.py report --out FILE"]
    assert "link_open" not in {t.type for t in tokens(md)} and live_in_text(md) == []
    assert f"--report: cannot read {EVIL}.md: not UTF-8" in visible(md)


def test_embedded_block_survives_hostile_titles() -> None:
    items = (Item(id="0123456789ab", section="S-2", kind="action",
                  title="--> <script>x</script> `a` -- -->"),)
    md = render.render(_report(*items), LiveData())
    assert json.loads(json.dumps(embedded.extract(md)))["items"][0]["title"].startswith("-->")
    assert [t.type for t in tokens(md) if t.type == "html_block"] == ["html_block"]
