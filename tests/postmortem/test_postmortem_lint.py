"""P-5: every lint rule runs its own match/no_match examples from lint_rules.yaml; the
lint decides per sentence (wrapped lines joined, every hit reported at the line where
its phrase starts), never reads headings, code or quotes as prose; the CLI prints
file:line: rule: message and exits 6 on findings, 1 only on unreadable input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentops.errors import DataError, ExitStatus
from agentops.postmortem import datafiles, lint
from scripts import postmortem as script

ROOT = Path(__file__).resolve().parents[2]
RULES = datafiles.lint_rules()
SECTIONS = datafiles.sections()
LEXICAL = [r for r in RULES if r.kind == "lexicon"]
TADA = ROOT / "examples" / "postmortem" / "tada-hang.facts.yml"


def _examples(kind: str) -> list[Any]:
    out = []
    for rule in RULES:
        for i, example in enumerate(getattr(rule, kind)):
            out.append(pytest.param(rule, example, id=f"{rule.id}-{kind}-{i}"))
    return out


def _lint(text: str, rules=LEXICAL, **kw) -> list[tuple[int, str]]:  # type: ignore[no-untyped-def]
    return [(f.line, f.rule) for f in lint.lint(text, rules, sections=SECTIONS, **kw)]


def test_every_rule_has_examples_both_ways() -> None:
    assert {r.id for r in RULES} >= {"hedging", "blame", "advocacy", "missing-section",
                                     "lost-identifier", "verification-overclaim"}
    for rule in RULES:
        assert rule.match and rule.no_match, rule.id


@pytest.mark.parametrize(("rule", "example"), _examples("match"))
def test_rule_fires_on_match_examples(rule: lint.Rule, example: dict[str, Any]) -> None:
    findings = lint.example_findings(rule, example, sections=SECTIONS, others=RULES)
    assert findings and all(f.rule == rule.id for f in findings), example
    if "count" in example:
        assert len(findings) == example["count"], findings
    if "line" in example:
        assert findings[0].line == example["line"], findings


@pytest.mark.parametrize(("rule", "example"), _examples("no_match"))
def test_rule_silent_on_no_match_examples(rule: lint.Rule, example: dict[str, Any]) -> None:
    assert lint.example_findings(rule, example, sections=SECTIONS, others=RULES) == [], \
        example


def test_hedged_draft_fails_at_the_right_lines() -> None:
    path = ROOT / "examples" / "postmortem" / "hedged-draft.md"
    findings = lint.lint(path.read_text("utf-8"), RULES, file="hedged-draft.md",
                         sections=SECTIONS)
    got = [(f.line, f.rule) for f in findings]
    assert got == [(8, "hedging"), (12, "hedging"), (16, "advocacy"), (20, "blame"),
                   (24, "verification-overclaim")], got


def test_a_phrase_wrapped_across_lines_is_found_where_it_starts() -> None:
    text = ("### Root cause\n\nThe launcher merges the evaluation steps, and as far as\n"
            "we know nothing else\ntakes the single-stream path. The second\n"
            "launch probably\nraces with the publish.\n")
    assert _lint(text) == [(3, "hedging"), (6, "hedging")]


def test_every_hit_of_every_rule_is_reported() -> None:
    text = ("### Fix\n\nWe think it is probably the flag, and Bob should have caught it; "
            "we should rewrite the launcher. Maybe also the scheduler.\n")
    got = _lint(text)
    assert got.count((3, "hedging")) == 3 and (3, "blame") in got \
        and (3, "advocacy") in got, got


def test_headings_code_quotes_and_links_are_not_prose() -> None:
    text = ("---\ntitle: We think it might be the driver\n---\n"
            "# We think it might be the driver\n\n"
            "Probably a race\n===============\n\n"
            "### Why our reviewers didn't catch it (maybe)\n\n"
            "**Possibly related: Bob should have caught it**\n\n"
            "**We think:** the launcher is fixed.\n\n"
            "```\nRuntimeError: might be a race\n```\n\n"
            "    we think this is indented code\n\n"
            "> We think it is the driver, said the first report.\n\n"
            "`maybe_launch()` runs; see [the log](https://example.com/probably-maybe).\n\n"
            "<!-- we think -->\n")
    assert _lint(text, LEXICAL) == []
    # Sanity: the same words as prose are flagged (the test can fail).
    assert _lint("### Root cause\n\nWe think it might be the driver.\n") == [
        (3, "hedging"), (3, "hedging")]


def test_list_items_are_separate_sentences_and_their_continuations_join() -> None:
    text = ("### Root cause\n\n- The fast path skips the event, and\n"
            "  probably the fence too.\n- Alice\n  broke the launcher.\n")
    assert _lint(text) == [(4, "hedging"), (5, "blame")]


def test_advocacy_is_allowed_only_under_the_action_items_meaning() -> None:
    base = "- We should add a single-stream nightly entry (Owner: Alex).\n"
    for heading in ("Action items", "Follow-ups", "Next steps", "6. Action Items:"):
        assert _lint(f"## {heading}\n\n{base}") == [], heading
    # A sub-heading inside the action items stays in them, even one that names another
    # section elsewhere ("Detection"); an unknown heading at the same level ends them.
    text = (f"## Action items\n\n{base}\n### Owner notes\n\n{base}\n### Detection\n\n{base}"
            f"\n## Appendix\n\n{base}")
    assert _lint(text) == [(15, "advocacy")]


def test_a_label_opening_a_list_block_is_that_section_for_the_block() -> None:
    """#24: formal reports introduce their action list with a numbered item, a bold
    label or a plain line ending in ":" instead of a heading; the items under such a
    label are action items, and the block ends at the label's next sibling."""
    norm = "Staging environments should be created for the gateway."
    numbered = (f"# Report\n\n1. Root Cause\n   - The gateway dropped the token.\n"
                f"2. Preventative Measures\n   - {norm}\n   - A canary should be used.\n"
                f"3. Additional Issues Found\n   - {norm}\n")
    assert _lint(numbered) == [(9, "advocacy")]
    colon = f"# Report\n\nFollow-up work:\n\n- {norm}\n\n{norm}\n"
    assert _lint(colon) == [(7, "advocacy")]
    bulleted = f"# Report\n\n- Next steps:\n  - {norm}\n- {norm}\n"
    assert _lint(bulleted) == [(5, "advocacy")]
    # A label that names no action list, and a label item with nothing nested under it,
    # leave the list's norms in scope; the label itself is never prose.
    assert _lint(f"# Report\n\n- Open questions:\n  - {norm}\n") == [(4, "advocacy")]
    assert _lint(f"# Report\n\n- Follow-ups\n- {norm}\n") == [(4, "advocacy")]
    doc = lint.parse(numbered, SECTIONS)
    labels = [(h.line, h.keys[:1]) for h in doc.headings if h.level == 7]
    assert labels == [(3, ("root_cause",)), (5, ("action_items",))]


def test_a_trailing_label_and_a_task_list_set_the_section_of_their_list() -> None:
    """#24: "... Proposal:" or "... Next steps:" closing a line of prose opens the list
    under it (the line itself stays prose); a checkbox item is a to-do, not a push."""
    norm = "Staging environments should be created for the gateway."
    text = (f"# Thread\n\nReporter: Releases keep breaking. Next steps:\n\n- {norm}\n\n"
            f"Reply: {norm}\n")
    assert _lint(text) == [(7, "advocacy")]
    doc = lint.parse(text, SECTIONS)
    assert [doc.lines[n - 1].section for n in (3, 5, 7)] == [None, "action_items", None]
    proposal = ("Reporter: Releases keep breaking. Proposal:\n- Strict release cutoff on "
                "Tuesdays.\n- Swap the ring buffer.\n\nReply: the ring buffer is fine.\n")
    assert _lint(proposal) == [(2, "advocacy")]
    assert [ln.section for ln in lint.parse(proposal, SECTIONS).lines[:5]] == [
        None, "proposal", "proposal", "proposal", None]
    assert _lint(f"# Bug\n\n- [ ] {norm}\n- [x] {norm}\n- {norm}\n") == [(5, "advocacy")]


def test_a_conceded_doubt_before_an_opinion_is_the_opinions() -> None:
    """#24: "not certain what the rule is here, but I would suggest ..." is advocacy with a
    concession, not a hedge; a doubt about a fact before the same "but" still hedges,
    and so does the concession when no opinion follows it."""
    opinion = "I'm not certain what the rule is here, but I would suggest keeping it locked."
    assert _lint(f"### Fix\n\n{opinion}\n") == [(3, "advocacy")]
    fact = "The guard probably never ran, but we should protect the branch."
    assert _lint(f"### Fix\n\n{fact}\n") == [(3, "advocacy"), (3, "hedging")]
    plain = "I'm not sure what the policy is, but the issue was closed."
    assert _lint(f"### Fix\n\n{plain}\n") == [(3, "hedging")]
    hedging = next(r for r in LEXICAL if r.id == "hedging")
    assert hedging.concede, "the hedging rule names its concession patterns"


def test_timeline_records_past_beliefs() -> None:
    text = ("## Timeline\n\n- 10:40 We think the OEM driver is at fault.\n\n"
            "## Root cause\n\nWe think the OEM driver is at fault.\n")
    assert _lint(text) == [(7, "hedging")]


def test_missing_section_only_when_no_heading_of_that_meaning() -> None:
    rule = [r for r in RULES if r.id == "missing-section"]
    text = ("# Incident 42\n\n## Impact\n\nA.\n\n## RCA\n\nB.\n\n## Resolution\n\nC.\n\n"
            "## Testing\n\nD.\n")
    assert _lint(text, rule) == []
    run_in = ("**Summary.** A.\n\n**Root cause and fix.** B.\n\n**Validation:** C.\n")
    assert _lint(run_in, rule) == []
    missing = text.replace("## Testing", "## Notes")
    assert [(f.line, f.message) for f in lint.lint(missing, rule, sections=SECTIONS)] == [
        (17, "missing required section: Verification (no heading of that meaning)")]


def test_blaming_draft(tmp_path: Path, capsys) -> None:
    text = ("### Summary\n\nA hang.\n\n### Root cause\n\n`f` skips the event.\n\n### Fix\n\n"
            "Removed.\n\n### Why it slipped\n\nCI did not cover it.\n"
            "@jdoe forgot to add the test.\n\n### Verification\n\n- Repro passes.\n")
    path = tmp_path / "blame.md"
    path.write_text(text, encoding="utf-8")
    assert script.main(["lint", str(path)]) == ExitStatus.FINDINGS == 6
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        f"{path}:16: blame: describe the bug and the process gap, not a person "
        "('@jdoe forgot')"]  # overlapping matches of one rule are one finding
    # Without --facts, lint says which checks it could not run, on stderr.
    assert "skipped without --facts: lost-identifier" in captured.err
    assert "skipped without --facts: verification-overclaim" in captured.err


def test_unreadable_draft_is_exit_1_naming_the_file(tmp_path: Path, capsys) -> None:
    path = tmp_path / "latin1.md"
    path.write_bytes("### Summary\n\nCaf\xe9 hang.\n".encode("latin-1"))
    assert script.main(["lint", str(path)]) == ExitStatus.INPUT == 1
    err = capsys.readouterr().err
    assert f"{path} is not UTF-8 text" in err and "line 3" in err
    assert "Traceback" not in err


def test_a_draft_past_the_size_cap_is_exit_1_naming_the_file_and_the_cap(
        tmp_path: Path, capsys) -> None:
    from agentops.postmortem.commands import MAX_DRAFT_BYTES
    path = tmp_path / "huge.md"
    path.write_text("### Summary\n\n" + "We think it broke. " * (MAX_DRAFT_BYTES // 18))
    assert path.stat().st_size > MAX_DRAFT_BYTES
    assert script.main(["lint", str(path)]) == ExitStatus.INPUT == 1
    err = capsys.readouterr().err
    assert f"{path} is larger than {MAX_DRAFT_BYTES} bytes" in err and "DRAFT.md" in err
    assert "Traceback" not in err
    # At the cap it is read and linted as usual.
    path.write_text("### Summary\n\nWe think it broke.\n".ljust(MAX_DRAFT_BYTES - 1) + "\n")
    assert script.main(["lint", str(path)]) == ExitStatus.FINDINGS


@pytest.mark.parametrize(("heading", "line"), [
    ("### Why it slipped", "We think the reviewers glossed over the May launcher change."),
    # #24: first-person fault tied to the breakage, hedged, in the root cause.
    ("### Root cause", "Apparently my refactor of the launcher broke the single-stream path."),
    # #24: a handle's change with fault language, hedged, in the fix.
    ("### Fix", "It looks as if @dev-x merged the guard without the soak run."),
])
def test_tada_example_drafts_and_lints_clean_and_an_inserted_line_is_flagged(
        tmp_path: Path, capsys, heading: str, line: str) -> None:
    out = tmp_path / "tada.md"
    assert script.main(["draft", str(TADA), "--out", str(out)]) == 0
    assert script.main(["lint", str(out), "--facts", str(TADA)]) == 0
    lines = out.read_text("utf-8").splitlines()
    at = next(i for i, ln in enumerate(lines) if ln == heading) + 2
    lines.insert(at, line)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert script.main(["lint", str(out), "--facts", str(TADA)]) == 6
    found = [ln.split(": ")[0:2] for ln in capsys.readouterr().out.splitlines()]
    assert found == [[f"{out}:{at + 1}", "blame"], [f"{out}:{at + 1}", "hedging"]], found


def test_lost_identifier_and_untested_scope_with_facts(tmp_path: Path, capsys) -> None:
    golden = (ROOT / "tests" / "golden" / "postmortem" / "tada-hang.md").read_text("utf-8")
    broken = golden.replace("`scratchBuf`", "the buffer").replace("Not re-tested:", "Also:")
    path = tmp_path / "d.md"
    path.write_text(broken, encoding="utf-8")
    assert script.main(["lint", str(path), "--facts", str(TADA)]) == 6
    out = capsys.readouterr().out
    assert "lost-identifier: a code identifier from the facts is missing from the draft: " \
           "scratchBuf" in out
    assert "verification-overclaim: verification claims more than the facts list: the " \
           "draft drops what was NOT re-tested" in out
    path.write_text(golden, encoding="utf-8")
    assert script.main(["lint", str(path), "--facts", str(TADA)]) == 0
    assert "skipped without --facts" not in capsys.readouterr().err


def test_check_flags_hedges_in_the_facts_before_drafting(tmp_path: Path, capsys) -> None:
    text = TADA.read_text("utf-8")
    assert script.main(["check", str(TADA)]) == 0
    hedged = text.replace("why_symptom: >-\n", "why_symptom: >-\n  It seems that\n", 1)
    assert hedged != text, "the Tada facts changed shape: update this test"
    path = tmp_path / "hedged.facts.yml"
    path.write_text(hedged, encoding="utf-8")
    capsys.readouterr()
    assert script.main(["check", str(path)]) == ExitStatus.FINDINGS
    out = capsys.readouterr().out.splitlines()
    line = hedged.splitlines().index("  It seems that") + 1
    assert out == [f"{path}:{line}: hedging: state the fact or leave it out ('seems', in "
                   "why_symptom)"], out


def test_broken_rules_file_names_the_key(tmp_path: Path, monkeypatch) -> None:
    bad = tmp_path / "lint_rules.yaml"
    bad.write_text("version: 1\nrules:\n  - id: hedging\n    kind: lexicon\n    message: m\n"
                   "    patterns: ['(']\n    match: [{text: a}]\n    no_match: [{text: b}]\n",
                   encoding="utf-8")
    monkeypatch.setattr(datafiles, "LINT_RULES", bad)
    datafiles.lint_rules.cache_clear()
    try:
        with pytest.raises(DataError, match=r"rules\[0\]\.patterns\[0\]: not a valid regex"):
            datafiles.lint_rules()
        bad.write_text("version: 1\nrules:\n  - id: hedging\n    kind: lexicon\n    message: m\n"
                       "    match: [{text: a}]\n", encoding="utf-8")
        datafiles.lint_rules.cache_clear()
        with pytest.raises(DataError, match=r"rules\[0\]: missing required key: 'no_match'"):
            datafiles.lint_rules()
        bad.write_text("version: 1\ngrammar: {boundaries: [';'], agents: {we: 'we'}, "
                       "filler: 'x', stop: 'y', coordinators: 'and', relative: 'which'}\n"
                       "rules:\n  - id: advocacy\n    kind: lexicon\n    message: m\n"
                       "    cooccur_in: {proposal: [[process_noun]]}\n"
                       "    concede: ['(']\n"
                       "    match: [{text: a}]\n    no_match: [{text: b}]\n", encoding="utf-8")
        datafiles.lint_rules.cache_clear()
        with pytest.raises(DataError, match=r"rules\[0\]\.(cooccur_in\.proposal\[0\]|concede)"):
            datafiles.lint_rules()
    finally:
        datafiles.lint_rules.cache_clear()


def test_validate_all_lists_shipped_files() -> None:
    assert datafiles.validate_all()[:4] == ["postmortem/schema.yaml",
                                            "postmortem/lint_rules.yaml",
                                            "postmortem/sections.yaml",
                                            "postmortem/moods.yaml"]


def test_an_always_pattern_is_never_exempted_by_unless(tmp_path: Path, monkeypatch) -> None:
    """#24, P-5: the incident's effect as a possibility reads word for word like
    hindsight ("could have picked up" / "could have caught"); the rule's ``always``
    patterns keep it, whatever ``unless`` says, and a bad one names its key."""
    import re

    rule = lint.Rule(id="r", kind="lexicon", message="m",
                     patterns=(re.compile(r"\bcould have \w+"),),
                     unless=(re.compile(r"\bcould have \w+"),),
                     always=(re.compile(r"\bsome builds could have \w+ \w+", re.I),))
    doc = lint.parse("Some builds could have picked up the image. A test could have caught it.\n")
    assert [(f.line, f.message) for f in lint.apply_rule(rule, doc, facts=None, file="f")] \
        == [(1, "m ('Some builds could have picked up')")]
    hedging = next(r for r in LEXICAL if r.id == "hedging")
    found = [f.message for f in lint.apply_rule(
        hedging, lint.parse("### Impact\n\nA few hundred builds could have picked up the bad "
                            "image, but a soak run could have caught it.\n", SECTIONS),
        facts=None, file="f", others=LEXICAL)]
    assert len(found) == 1 and "builds could have picked up" in found[0], found

    bad = tmp_path / "lint_rules.yaml"
    bad.write_text("version: 1\nrules:\n  - id: hedging\n    kind: lexicon\n    message: m\n"
                   "    always: ['(']\n    match: [{text: a}]\n    no_match: [{text: b}]\n",
                   encoding="utf-8")
    monkeypatch.setattr(datafiles, "LINT_RULES", bad)
    datafiles.lint_rules.cache_clear()
    try:
        with pytest.raises(DataError, match=r"rules\[0\]\.always\[0\]: not a valid regex"):
            datafiles.lint_rules()
    finally:
        datafiles.lint_rules.cache_clear()


def test_a_hedge_yields_to_a_clause_that_evaluates_an_action(tmp_path: Path,
                                                             monkeypatch) -> None:
    """#24, P-5: "maybe it makes sense to split the job" is an opinion on what to do; the
    hedge word softens it. The yield (``yield_within``) is per clause: a hedged fact in
    the next clause is still flagged, and a bad pattern names its key."""
    hedging = next(r for r in LEXICAL if r.id == "hedging")
    assert hedging.yield_within
    text = "Maybe it makes sense to split the job, but the cache was probably stale.\n"
    found = [f.message for f in lint.apply_rule(hedging, lint.parse(text, SECTIONS),
                                                facts=None, file="f", others=LEXICAL)]
    assert len(found) == 1 and "'probably'" in found[0], found

    bad = tmp_path / "lint_rules.yaml"
    bad.write_text("version: 1\nrules:\n  - id: hedging\n    kind: lexicon\n    message: m\n"
                   "    yield_within: ['(']\n    match: [{text: a}]\n"
                   "    no_match: [{text: b}]\n", encoding="utf-8")
    monkeypatch.setattr(datafiles, "LINT_RULES", bad)
    datafiles.lint_rules.cache_clear()
    try:
        with pytest.raises(DataError, match=r"rules\[0\]\.yield_within\[0\]: not a valid regex"):
            datafiles.lint_rules()
    finally:
        datafiles.lint_rules.cache_clear()


def test_a_judgement_behind_a_belief_word_is_not_a_hedge_but_doubt_still_is() -> None:
    """#24 (set18 forms): a belief word carrying an opinion, a reassurance or a reply to
    a report doubts no fact; the same words about the cause, or an unknown scope, do."""
    def hedges(text: str) -> list[int]:
        return [n for n, rule in _lint(f"### Root cause\n\n{text}\n") if rule == "hedging"]

    assert hedges("I don't think this is your fault, the fork was simply stale.") == []
    assert hedges("I think it's my fault, the branch was just old.") == [3]
    assert hedges("I don't think it's too much to ask for a dry run.") == []
    assert hedges("I don't think the cache was stale.") == [3]
    assert hedges("I'm not entirely sure, I'll dig into the scheduler.") == []
    assert hedges("I'm not quite sure why the loader stalls.") == [3]
    assert hedges("It was hard to work out what was happening.") == []
    assert hedges("It is hard to say exactly when the index went stale.") == [3]
    assert hedges("Doing that is likely to break downstream installers.") == []
    assert hedges("The stale lock is likely to break the next run.") == [3]


def test_plans_procedures_and_requests_are_not_advocacy_but_norms_still_are() -> None:
    """#24 (set18 forms): a plan on a named version, a request on the change at hand, a
    requirement described with its purpose and a finding in a timeline push for nothing;
    the same words as a standing rule do, and so does a verdict on a proposed measure."""
    def pushes(text: str, heading: str = "Fix") -> list[int]:
        return [n for n, rule in _lint(f"### {heading}\n\n{text}\n") if rule == "advocacy"]

    assert pushes("We must release 3.0.1 with the fixes.") == []
    assert pushes("We must release more often.") == [3]
    assert pushes("Reviewer: Don't merge yet, I am checking the wheel list.") == []
    assert pushes("Reviewer: Don't merge on a red nightly.") == [3]
    assert pushes("The shards that must finish for a run to land blocked the scheduler.") == []
    assert pushes("Every job must complete a soak before it merges.") == [3]
    assert pushes("Adding one more test isn't going to make much difference.") == [3]
    assert pushes("Adding one more test made the difference.") == []
    label = "- **Actions following review**:\n  - We should break this monorepo apart.\n"
    assert pushes(label) == []
    assert pushes("- **Context**:\n  - We should break this monorepo apart.\n") == [4]


def test_a_present_verdict_of_inadequacy_on_a_design_or_process_is_advocacy() -> None:
    """#24 (recurrence over sets 20-23): a design or process denied its adequacy in the
    present, a worsening way of working, "leaves a lot to be desired" and the writer's
    problems with a workflow judge how the work is done; a component's own property, a
    past verdict on the fix, the disk filling up and an action item do not push."""
    def pushes(text: str, heading: str = "Root cause") -> list[int]:
        return [n for n, rule in _lint(f"### {heading}\n\n{text}\n") if rule == "advocacy"]

    assert pushes("We host in three zones, but the serving infrastructure is not resilient to a "
                  "lost zone for longer than an hour.") == [3]
    assert pushes("The upgrade notes are not helpful and the docs are not helpful either.") \
        == [3]
    assert pushes("Each release week is getting more painful for the maintainers.") == [3]
    assert pushes("- there\u2019s much to be desired in how the wheels are signed") == [3]
    assert pushes("Reporter: we have serious problems with the merge workflow in this repo.") \
        == [3]
    assert pushes("The loader is not robust to a missing key, so it crashed.") == []
    assert pushes("The first fix was not sufficient, so we shipped a second one.") == []
    assert pushes("The disk is getting full again after the restart.") == []
    assert pushes("We ordered spare parts for the routers that are not redundant.") == []
    assert pushes("I have several problems with installing the wheel on Windows.") == []
    assert pushes("The cluster infrastructure is not resilient to a lost zone.",
                  heading="Action items") == []
    assert _lint("# Incident\n\n## The backup infrastructure is not robust\n\nThe disk "
                 "filled up.\n") == []


def test_a_prevention_label_opens_the_list_of_what_will_be_done() -> None:
    """#24: "To prevent a repeat:" closing a line opens a plan; its items may argue
    for a change like action items may. The same norm under "What went poorly" pushes."""
    norm = "We should gate every release on the soak run."
    plan = f"# Thread\n\nMaintainer: The build broke. To prevent a repeat:\n\n- {norm}\n"
    assert [r for _, r in _lint(plan)] == []
    assert [ln.section for ln in lint.parse(plan, SECTIONS).lines][4] == "action_items"
    poorly = f"# Thread\n\nMaintainer: The build broke. What went poorly:\n\n- {norm}\n"
    assert _lint(poorly) == [(5, "advocacy")]


# Doubt x what it is about (#24, P-5): doubt whose object is the writer's own next step
# weighs a decision; the same doubt about a fact of the incident is a hedge.
_DOUBTS = ["I'm not sure", "We are not sure", "I don't know"]
_DECISIONS = ["whether we can reuse the version number", "whether to move the old tags",
              "if I should publish the wheel again", "what we should tell the mirrors"]
_FACTS = ["whether the tag was moved after the rebase", "if the upload had finished",
          "what the mirror served at noon"]
_PLANS = ["Maybe I'll cut a new release tomorrow.", "We'll probably move the tag today.",
          "Perhaps we can yank 2.1.0 tonight.", "I will probably rebuild the wheels."]
_GUESSES = ["Maybe the mirror served the old wheel.", "The tag probably moved twice.",
            "Perhaps the upload was cut short."]


@pytest.mark.parametrize("doubt", _DOUBTS)
@pytest.mark.parametrize(("what", "hedge"), [(d, False) for d in _DECISIONS]
                         + [(f, True) for f in _FACTS])
def test_doubt_about_a_decision_is_no_hedge(doubt: str, what: str, hedge: bool) -> None:
    text = f"### Root cause\n\nMaintainer: {doubt} {what}.\n"
    assert ((3, "hedging") in _lint(text)) == hedge, text


@pytest.mark.parametrize(("sentence", "hedge"), [(p, False) for p in _PLANS]
                         + [(g, True) for g in _GUESSES])
def test_a_hedged_plan_of_the_writer_is_no_hedge(sentence: str, hedge: bool) -> None:
    text = f"### Root cause\n\nMaintainer: {sentence}\n"
    assert ((3, "hedging") in _lint(text)) == hedge, text
