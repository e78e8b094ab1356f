"""benchmarks/postmortem_clause_forms.py: clause-form shares of advocacy spans and hedging
false flags per set, counts only (#24, P-5). Made-up sentences only."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import postmortem_clause_forms as forms
from tests import watchdog


@pytest.mark.parametrize(("text", "form"), [
    ("Reply: +1, a merge freeze before each cut sounds good.", "verdict on a proposal"),
    ("We badly need canary builds.", "wish"),
    ("It would be wiser to freeze merges first.", "conditional norm"),
    ("Releases ought to be gated on the nightly.", "passive norm"),
    ("Maintainers should wait for a second review.", "modal norm, people subject"),
    ("The rollout script must refuse an unsigned tag.", "modal norm, process/design subject"),
    ("Reviewer: Never merge on a Friday.", "bare imperative"),
    ("A hotfix always gets a second pair of eyes here.", "maxim or generic present"),
    ("The current rollout scheme is fragile.", "evaluation"),
    ("- A staging mirror for the wheel index", "proposal list item"),
    ("Why don't we run the soak test on tags too?", "rhetorical question"),
    ("Thanks for the quick turnaround on this one.", forms.OTHER),
])
def test_each_advocacy_form_is_read_from_its_clause(text: str, form: str) -> None:
    assert forms.advocacy_form(text) == form


@pytest.mark.parametrize(("sentence", "section", "opinion", "form"), [
    ("Could the stale cache perhaps be the cause?", "root_cause", False, "question"),
    ("I think the release process is fragile.", "root_cause", True,
     "hedge inside an opinion or norm"),
    ("I bet a freeze is the better choice.", None, False, "hedge inside an opinion or norm"),
    ("The node seemed frozen for an hour.", "root_cause", False, "symptom as it looked"),
    ("At 10:02 the on-call engineer suspected the proxy, perhaps wrongly.", "timeline", False,
     "belief at the time (timeline)"),
    ("If you run the old wheel you might see the same crash.", "summary", False,
     "reader guidance"),
    ("I'm not sure yet whether we tag a point release.", None, False, "own next step"),
    ("The fix should hopefully work for everyone now.", "fix", False, "expected effect"),
    ("Probably stale, sorry for the noise :)", None, False, "conversation"),
    ("The cache was possibly stale.", "root_cause", False, forms.HEDGE_OTHER),
])
def test_each_hedging_false_flag_form(sentence: str, section: str | None, opinion: bool,
                                      form: str) -> None:
    assert forms.hedge_form(sentence, section, opinion) == form


def _root(tmp_path: Path) -> Path:
    set_dir = tmp_path / "root" / "set9"
    (set_dir / "texts").mkdir(parents=True)
    text = ("# A made-up outage\n\n## Root cause\n\n"
            "Could the cache have been stale?\n\n"
            "## Lessons learned\n\n"
            "Releases ought to be gated on the nightly.\n\n"
            "A hotfix always gets a second pair of eyes here.\n")
    (set_dir / "texts" / "d.md").write_text(text, encoding="utf-8")
    (set_dir / "judged.tsv").write_text(
        "doc\tstart\tend\tcat\tstrength\nd\t9\t9\tA\t-\nd\t11\t11\tA\t-\n", encoding="utf-8")
    return tmp_path / "root"


def test_tally_counts_spans_misses_per_form_and_set(tmp_path: Path) -> None:
    t = forms.tally([_root(tmp_path)], "all")
    assert t.spans["passive norm"]["set9"] == 1
    assert t.missed["passive norm"]["set9"] == 0  # the lint reads the passive norm
    assert t.spans["maxim or generic present"]["set9"] == 1
    assert t.missed["maxim or generic present"]["set9"] == 1  # no norm word: missed
    assert t.where["body"]["set9"] == 2 and t.where_missed["body"]["set9"] == 1
    # Neither span makes a request or an agreement; both sit outside a thread.
    assert t.acts["no act cue, elsewhere"]["set9"] == 2
    assert t.acts_missed["no act cue, elsewhere"]["set9"] == 1


@pytest.mark.parametrize(("text", "act"), [
    ("Reviewer: please make sure each tag passes the smoke job before you publish it.",
     "request"),
    ("Reply: +1, a frozen branch would have saved us here.", "agreement"),
    ("The loader failed on the nightly wheels.", forms.NO_ACT),
])
def test_speech_act_cue_of_a_span(text: str, act: str) -> None:
    advocacy = next(r for r in forms.datafiles.lint_rules() if r.id == "advocacy")
    assert forms.speech_act(text, advocacy.speech_acts) == act


@pytest.mark.parametrize(("sentence", "form"), [
    ("We will add a canary stage next week.", "own commitment"),
    ("- [ ] gate tags on the nightly", "TODO"),
    ("If you pinned 2.1 you should upgrade to 2.2.", "reader guidance"),
    ("We should see the flag set once we bisect it.", "debugging step"),
    ("This PR should get a changelog entry.", "the fix's own to-do"),
    ("Should the canary run on every tag?", "question"),
    ("Releases ought to be gated on the nightly.", "form: passive norm"),
])
def test_each_advocacy_false_flag_class(sentence: str, form: str) -> None:
    assert forms.false_form(sentence) == form


def test_where_a_line_sits(tmp_path: Path) -> None:
    from agentops.postmortem import datafiles
    from agentops.postmortem import lint as lint_mod
    text = ("# A made-up outage\n\nThe tag went out early.\n\n## Action items\n\n"
            "- Gate tags on the nightly.\n\n## Notes\n\nReply: > quoted push\n\n"
            "Reply: a later push\n")
    doc = lint_mod.parse(text, datafiles.sections())
    assert forms.where_of(doc, 3) == "body"
    assert forms.where_of(doc, 7) == "action items"
    assert forms.where_of(doc, 11) == "quoted"
    assert forms.where_of(doc, 13) == "reply"


def test_false_flags_are_counted_by_class_and_place(tmp_path: Path) -> None:
    root = _root(tmp_path)
    d = root / "set9" / "texts" / "d.md"
    d.write_text(d.read_text(encoding="utf-8") + "\nReply: Maintainers should wait for a "
                 "second review on every release.\n", encoding="utf-8")
    t = forms.tally([root], "all")
    assert sum(c["set9"] for c in t.false_a.values()) == 1
    assert t.false_where["reply"]["set9"] == 1


def test_main_prints_counts_and_never_a_line_of_text(tmp_path: Path, capsys) -> None:
    assert forms.main([str(_root(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "advocacy spans by clause form" in out and "set9" in out
    assert "advocacy spans by place" in out and "advocacy false flags by class" in out
    assert "advocacy spans by speech act cue and place" in out and "request, reply" in out
    assert "nightly" not in out and "hotfix" not in out


# Security (#24, rev34 review): a judged span's text comes from a write-up anyone can
# write. The question form rescanned to the end from every opening, and the imperative
# read one blank run three ways; each run below stalled the old pattern (500 blanks after
# a full stop: 40 s), and each still finds its form once the run ends as the form does.
HOSTILE_SPANS = {
    "openings with no question mark": ("why not " * 40_000, forms.OTHER),
    "openings ending in a question": ("why not " * 40_000 + "?", "rhetorical question"),
    "blanks after a full stop": ("Done." + " " * 20_000 + "x", forms.OTHER),
    "blanks then an imperative": ("Done." + " " * 20_000 + "- never merge.",
                                  "bare imperative"),
    "numbered blanks": ("Done.\t" + "1. " * 20_000 + "x", forms.OTHER),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_SPANS))
def test_a_hostile_span_is_read_in_linear_time(case: str) -> None:
    text, form = HOSTILE_SPANS[case]
    assert watchdog.within(watchdog.SECONDS, lambda: forms.advocacy_form(text)) == form
