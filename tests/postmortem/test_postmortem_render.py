"""P-4: the seed's worked example as the golden case (Markdown and ADF), the section
order and questions, and the ADF structural validator (each rule can fail)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentops.postmortem import datafiles, lint, render
from agentops.postmortem.model import SECTIONS, Facts, Span, merge
from scripts import postmortem as script

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "postmortem"
TADA = ROOT / "examples" / "postmortem" / "tada-hang.facts.yml"


def _facts(content: dict[str, Any]) -> Facts:
    return merge(content, None, facts_path="tada-hang.facts.yml", facts_sha256="0" * 64)


def _compare(path: Path, actual: bytes, update: bool) -> None:
    if update:
        path.write_bytes(actual)
    assert path.exists(), f"{path} missing: run pytest with --update-golden and review"
    assert actual == path.read_bytes(), (
        f"{path.name} differs from the renderer's output; if intended, rerun with "
        "--update-golden and review the diff")


@pytest.mark.parametrize(("fmt", "name"), [("md", "tada-hang.md"),
                                           ("adf", "tada-hang.adf.json")])
def test_golden(tmp_path: Path, capsys, update_golden: bool, fmt: str, name: str) -> None:
    out = tmp_path / name
    assert script.main(["draft", str(TADA), "--format", fmt, "--out", str(out)]) == 0
    _compare(GOLDEN / name, out.read_bytes(), update_golden)
    err = capsys.readouterr().err
    assert "management-talk" in err  # P-7: the offer, on stderr
    assert "question for" not in err  # the seed's example leaves nothing unanswered


def test_golden_md_sections_in_seed_order_and_lint_clean(rules) -> None:
    text = (GOLDEN / "tada-hang.md").read_text("utf-8")
    headings = [ln[4:] for ln in text.splitlines() if ln.startswith("### ")]
    assert headings == [title for _, title, _ in SECTIONS]
    facts = datafiles.load_facts(TADA).content
    assert lint.lint(text, rules, facts=facts) == []
    for ident in facts["root_cause"]["identifiers"]:
        assert f"`{ident}`" in text


def test_golden_adf_is_valid_and_keeps_marks() -> None:
    doc = json.loads((GOLDEN / "tada-hang.adf.json").read_text("utf-8"))
    assert render.validate_adf(doc) == []
    kinds = set()
    marks = set()

    def walk(node: dict[str, Any]) -> None:
        kinds.add(node["type"])
        marks.update(m["type"] for m in node.get("marks", []))
        for child in node.get("content", []):
            walk(child)
    walk(doc)
    assert {"heading", "paragraph", "bulletList", "listItem", "text"} <= kinds
    assert {"code", "link", "strong"} <= marks


def test_adf_and_markdown_carry_the_same_text(tada: dict[str, Any]) -> None:
    draft = render.build(_facts(tada), date="2026-03-30")
    doc = render.to_adf(draft)
    texts: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        if node["type"] == "text":
            texts.append(node["text"])
        for child in node.get("content", []):
            walk(child)
    walk(doc)
    flat = "".join(texts)
    for ident in tada["root_cause"]["identifiers"]:
        assert ident in flat


def test_code_block_from_gathered_issue_renders_in_both(tada: dict[str, Any]) -> None:
    from agentops.postmortem.model import Gathered

    del tada["symptoms"]
    g = Gathered(issue_ref="org/platform#5700", error_lines=("RuntimeError: hang in ring",),
                 code_blocks=("frame 0: tadaKernel_AllReduce_f32_RING\n```inner```",))
    draft = render.build(merge(tada, g), date="2026-03-30")
    md = render.to_markdown(draft)
    assert "````\nframe 0: tadaKernel_AllReduce_f32_RING\n```inner```\n````" in md
    assert "- `RuntimeError: hang in ring`" in md
    doc = render.to_adf(draft)
    assert render.validate_adf(doc) == []
    blocks = [n for n in doc["content"] if n["type"] == "codeBlock"]
    assert blocks and "marks" not in blocks[0]["content"][0]
    assert "symptoms: GitHub issue [org/platform#\u200b5700]" in md


@pytest.mark.parametrize("key", ["why_symptom", "how_found", "why_slipped", "action_items",
                                 "symptoms"])
def test_optional_section_without_facts_becomes_a_question(tada: dict[str, Any],
                                                           key: str) -> None:
    del tada[key]
    if key == "symptoms":
        del tada["repro"]  # the section also shows the repro steps
    draft = render.build(_facts(tada), date="2026-03-30")
    assert key not in [s.key for s in draft.sections]
    md = render.to_markdown(draft)
    assert "**Question for Alex (Tada team):**" in md
    assert f"({key}" in md


def test_required_section_gaps_are_questions_not_prose(tada: dict[str, Any]) -> None:
    del tada["summary"]
    del tada["not_retested"]
    del tada["root_cause"]["introduced_by"]
    draft = render.build(_facts(tada), date="2026-03-30")
    asked = [q.text for q in draft.questions()]
    assert any("summary.impact" in q for q in asked)
    assert any("not_retested" in q for q in asked)
    assert any("introduced_by" in q for q in asked)
    assert "Introduced by" not in render.to_markdown(draft)


def test_action_items_none_sentence(tada: dict[str, Any]) -> None:
    tada["action_items"] = "none"
    md = render.to_markdown(render.build(_facts(tada), date="2026-03-30"))
    assert ("### Action items\n\nNone — this fix is sufficient; no follow-up is needed for "
            "this class of bug.\n") in md


def test_destination_changes_only_the_wrapper(tada: dict[str, Any]) -> None:
    jira = render.to_markdown(render.build(_facts(tada), date="d", destination="jira"))
    docs = render.to_markdown(render.build(_facts(tada), date="d", destination="docs"))
    assert jira.startswith("## Post-mortem: ") and docs.startswith("# Post-mortem: ")
    assert jira.replace("### ", "## ").replace("## Post", "# Post", 1) == docs


def test_inline_spans() -> None:
    spans = render.inline("See org/x#12, commit 1a2b3c4d and `foo()` in a/b.py via "
                          "https://ci.example/run/1.", identifiers=["scratchBuf"])
    kinds = [(s.text, s.code, s.href) for s in spans if s.code or s.href]
    assert kinds == [("org/x#12", False, "https://github.com/org/x/issues/12"),
                     ("1a2b3c4d", True, None), ("foo()", True, None), ("a/b.py", True, None),
                     ("https://ci.example/run/1", False, "https://ci.example/run/1")]


def test_markdown_escapes_text_but_not_code() -> None:
    assert render.md_inline((Span("a *b* <i> _x_ snake_case"), Span("x*y", code=True))) == (
        "a \\*b\\* &lt;i&gt; \\_x\\_ snake_case`x*y`")


# --- ADF validator: each rule fires on a broken document ---------------------------

def _doc(*content: dict[str, Any]) -> dict[str, Any]:
    return {"type": "doc", "version": 1, "content": list(content)}


def _p(*texts: dict[str, Any]) -> dict[str, Any]:
    return {"type": "paragraph", "content": list(texts)}


@pytest.mark.parametrize(("doc", "problem"), [
    (_doc(_p({"type": "text", "text": "x", "marks": [
        {"type": "code"}, {"type": "link", "attrs": {"href": "https://a"}}]})),
     "code mark may not be combined"),
    (_doc({"type": "codeBlock", "content": [{"type": "text", "text": "x",
                                             "marks": [{"type": "strong"}]}]}),
     "no marks inside a codeBlock"),
    (_doc({"type": "table", "content": []}), "'table' may not appear inside doc"),
    (_doc(_p({"type": "text", "text": ""})), "non-empty text"),
    (_doc(_p({"type": "text", "text": "x", "marks": [{"type": "underline"}]})),
     "mark 'underline' is not allowed"),
    (_doc(_p({"type": "text", "text": "x", "marks": [{"type": "link", "attrs": {}}]})),
     "needs attrs.href"),
    (_doc({"type": "heading", "attrs": {"level": 9}, "content": [{"type": "text",
                                                                  "text": "x"}]}),
     "heading level"),
    (_doc({"type": "bulletList", "content": [{"type": "listItem", "content": [
        {"type": "codeBlock", "content": [{"type": "text", "text": "x"}]}]}]}),
     "starts with a paragraph"),
    ({"type": "doc", "version": 2, "content": []}, "(root)"),
])
def test_validate_adf_rejects(doc: dict[str, Any], problem: str) -> None:
    errors = render.validate_adf(doc)
    assert any(problem in e for e in errors), errors


def test_span_model_cannot_express_code_with_link() -> None:
    with pytest.raises(ValueError, match="code span"):
        Span("x", code=True, href="https://a")


# Installed (not committed) by .ci/npm-fixtures, which .ci/run calls.
FULL_JSON = ROOT / ".ci" / "npm" / "adf-schema" / "package" / "json-schema" / "v1" / "full.json"


def _atlaskit_errors(doc: dict[str, Any]) -> list[str]:
    import jsonschema

    schema = json.loads(FULL_JSON.read_text("utf-8"))
    validator = jsonschema.Draft4Validator(schema)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(doc)]


@pytest.mark.parametrize("destination", ["jira", "pr", "docs", "wiki"])
def test_rendered_adf_against_atlaskit_full_schema(tmp_path: Path, destination: str,
                                                   require_fixture) -> None:
    require_fixture(FULL_JSON, "Atlassian's ADF schema (@atlaskit/adf-schema)")
    out = tmp_path / "draft.adf.json"
    assert script.main(["draft", str(TADA), "--format", "adf", "--destination", destination,
                        "--out", str(out)]) == 0
    doc = json.loads(out.read_text("utf-8"))
    assert _atlaskit_errors(doc) == []
    # The schema check itself bites: a heading level ADF does not have is refused.
    bad = json.loads(json.dumps(doc))
    bad["content"].append({"type": "heading", "attrs": {"level": 9},
                           "content": [{"type": "text", "text": "x"}]})
    assert _atlaskit_errors(bad)


def test_pr_description_fills_a_missing_fix_description(tada: dict[str, Any]) -> None:
    from agentops.postmortem.model import Gathered

    del tada["fix"]["description"]
    g = Gathered(pr_ref="org/platform#5751", pr_merged=True,
                 pr_body="Removes the single-stream fast path.")
    md = render.to_markdown(render.build(merge(tada, g), date="d"))
    assert "### Fix\n\nRemoves the single-stream fast path.\n" in md
    assert "fix.description: GitHub PR [org/platform#\u200b5751]" in md
    # People's facts win: a given description is kept.
    tada["fix"]["description"] = "Deletes tadaLaunchFastPath."
    md = render.to_markdown(render.build(merge(tada, g), date="d"))
    assert "Removes the single-stream" not in md and "Deletes tadaLaunchFastPath." in md


def test_untrusted_github_text_renders_inert(tada: dict[str, Any]) -> None:
    from agentops.postmortem import gather
    from agentops.postmortem.model import Gathered

    title = "::error::pwned @org/team </details><img src=x> [x](javascript:alert(1))"
    fields = gather.parse_pr({"title": title, "merged": True, "merge_commit_sha": "c" * 40,
                              "head": {"sha": "d" * 40}, "body": "Fixes it. cc @org/team"},
                             [], [], {"check_runs": []}, ref="org/platform#5751")
    del tada["summary"]["fix"]
    md = render.to_markdown(render.build(merge(tada, Gathered(**fields)), date="d"))
    assert "@org/team" not in md and "@\u200borg/team" in md
    assert "</details>" not in md and "&lt;img src=x&gt;" in md
    assert "\\[x\\](javascript:" in md  # brackets escaped: no link is formed
    doc = render.to_adf(render.build(merge(tada, Gathered(**fields)), date="d"))
    assert render.validate_adf(doc) == []
    links = []

    def walk(node: dict[str, Any]) -> None:
        links.extend(m["attrs"]["href"] for m in node.get("marks", []) if m["type"] == "link")
        for child in node.get("content", []):
            walk(child)
    walk(doc)
    assert all(h.startswith("https://") for h in links), links


def test_build_alone_never_invents_a_required_section() -> None:
    draft = render.build(merge({"ticket": "JIRA-1", "owner": "Sam"}, None), date="d")
    assert [s.key for s in draft.sections] == ["summary", "root_cause", "fix", "verification"]
    md = render.to_markdown(draft)
    assert md.count("**Question for Sam:**") == len(draft.questions())
    assert "root_cause.mechanism" in md and "fix.description" in md and "fix.refs" in md
    assert "Fix: ." not in md
