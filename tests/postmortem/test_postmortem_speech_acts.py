"""P-5 (#24): a sentence of a thread is advocacy by what it does (speechacts.py): a
request for a change of practice, or an agreement with a push made earlier in the
thread. Every act proves itself on its own made-up examples from
``lint_rules.yaml``; the thread's context decides whether a stance is a push."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from agentops.errors import DataError
from agentops.postmortem import datafiles, lint, speechacts

RULES = datafiles.lint_rules()
SECTIONS = datafiles.sections()
ADVOCACY = next(r for r in RULES if r.id == "advocacy")
RAW = next(r for r in yaml.safe_load(datafiles.LINT_RULES.read_text(encoding="utf-8"))["rules"]
           if r["id"] == "advocacy")


def _cases(kind: str) -> list[Any]:
    out = []
    for spec, act in zip(RAW.get("speech_acts", []), ADVOCACY.speech_acts, strict=True):
        for i, text in enumerate(spec[kind]):
            out.append(pytest.param(act, text, id=f"{act.name}-{kind}-{i}"))
    return out


def _acts(text: str, *, in_thread: bool = True, pushed: bool = True) -> list[str]:
    return [name for _, _, name in speechacts.spans(text, ADVOCACY.speech_acts,
                                                    in_thread=in_thread, pushed=pushed)]


def _advocacy_lines(text: str) -> list[int]:
    return [f.line for f in lint.lint(text, RULES, sections=SECTIONS) if f.rule == "advocacy"]


def test_the_advocacy_rule_reads_requests_and_agreements() -> None:
    assert {a.name for a in ADVOCACY.speech_acts} == {"request", "agreement"}


@pytest.mark.parametrize(("act", "text"), _cases("match"))
def test_act_reads_its_match_examples(act: speechacts.Act, text: str) -> None:
    assert list(speechacts.spans(text, [act], in_thread=True, pushed=True)), text


@pytest.mark.parametrize(("act", "text"), _cases("no_match"))
def test_act_ignores_its_no_match_examples(act: speechacts.Act, text: str) -> None:
    assert not list(speechacts.spans(text, [act], in_thread=True, pushed=True)), text


def test_an_agreement_is_a_push_only_after_a_push_in_a_thread() -> None:
    reply = "Reviewer: +1, a frozen branch would have saved us here."
    assert _acts(reply) == ["agreement"]
    assert _acts(reply, pushed=False) == []
    assert _acts(reply, in_thread=False) == []
    # A concession opening a complaint endorses nothing.
    assert _acts("Reviewer: I agree, but the branch has no reviewer anyway.") == []


def test_a_request_about_practice_needs_no_thread_but_a_debugging_step_is_no_push() -> None:
    assert _acts("Please make sure every tag passes the smoke job before you publish it.",
                 in_thread=False, pushed=False) == ["request"]
    # The same form about this bug's next step, or reader guidance.
    assert _acts("Please try the nightly before you file a new report.",
                 in_thread=False, pushed=False) == []
    assert _acts("Please make sure the fix lands today.", in_thread=False, pushed=False) == []


def test_a_closing_please_takes_the_words_before_it_as_its_object() -> None:
    # The request's object comes first when "please" closes the sentence.
    assert _acts("Tag every release from the pipeline, please.", in_thread=False,
                 pushed=False) == ["request"]
    assert _acts("Stick to semantic versioning pls", in_thread=False,
                 pushed=False) == ["request"]
    # ... and stays this bug's step when that is what it names.
    assert _acts("Send the crash log, please.", in_thread=False, pushed=False) == []
    # A cue inside the sentence reads only what follows it.
    assert _acts("Every release is tagged by hand; please send the crash log.",
                 in_thread=False, pushed=False) == []


THREAD = """# Nightly wheels broke the plugin loader

The plugin loader failed to import on the nightly wheels for two days.

Reply: The release process should require a smoke job on every tag.

Reviewer: +1, that would have caught it.

Maintainer: Thanks, the new build works here.
"""


def test_lint_flags_an_agreement_with_a_push_at_its_line_and_nothing_else() -> None:
    assert _advocacy_lines(THREAD) == [5, 7]
    # Without the push before it the agreement takes sides on nothing.
    plain = THREAD.replace("The release process should require a smoke job on every tag.",
                           "I can reproduce it on the nightly wheels.")
    assert _advocacy_lines(plain) == []


def test_a_quoted_or_action_item_request_is_not_flagged() -> None:
    quoted = ('# Loader outage\n\nReply: The old note said "please stop tagging releases '
              'on Fridays" and nobody read it.\n')
    assert _advocacy_lines(quoted) == []
    items = ("# Loader outage\n\n## Action items\n\n- Please make sure every tag passes "
             "the smoke job before you publish it.\n")
    assert _advocacy_lines(items) == []
    body = ("# Loader outage\n\n## Lessons\n\nPlease make sure every tag passes the smoke "
            "job before you publish it.\n")
    assert _advocacy_lines(body) == [5]


def test_a_broken_act_names_its_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "lint_rules.yaml"
    bad.write_text("version: 1\nrules:\n  - id: advocacy\n    kind: lexicon\n    message: m\n"
                   "    speech_acts: [{act: request, cue: '(', match: [a], no_match: [b]}]\n"
                   "    match: [{text: a}]\n    no_match: [{text: b}]\n", encoding="utf-8")
    monkeypatch.setattr(datafiles, "LINT_RULES", bad)
    datafiles.lint_rules.cache_clear()
    try:
        with pytest.raises(DataError, match=r"rules\[0\]\.speech_acts\[0\]\.cue: not a valid"):
            datafiles.lint_rules()
        bad.write_text("version: 1\nrules:\n  - id: advocacy\n    kind: lexicon\n"
                       "    message: m\n    speech_acts: [{act: wish, cue: 'x', match: [a], "
                       "no_match: [b]}]\n    match: [{text: a}]\n    no_match: [{text: b}]\n",
                       encoding="utf-8")
        datafiles.lint_rules.cache_clear()
        with pytest.raises(DataError, match=r"speech_acts"):
            datafiles.lint_rules()
    finally:
        datafiles.lint_rules.cache_clear()
