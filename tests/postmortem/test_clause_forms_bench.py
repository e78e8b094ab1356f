"""benchmarks/postmortem_clause_forms.py: clause-form shares of advocacy spans and hedging
false flags per set, counts only (#24, P-5). Made-up sentences only."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import postmortem_clause_forms as forms


@pytest.mark.parametrize(("text", "form"), [
    ("Reply: +1, a merge freeze before each cut sounds good.", "verdict on a proposal"),
    ("We badly need canary builds.", "wish"),
    ("It would be wiser to freeze merges first.", "conditional norm"),
    ("Releases ought to be gated on the nightly.", "passive norm"),
    ("Maintainers should wait for a second review.", "modal norm"),
    ("Reviewer: Never merge on a Friday.", "bare imperative"),
    ("The current rollout scheme is fragile.", "evaluation"),
    ("A hotfix always gets a second pair of eyes here.", forms.OTHER),
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
    spans_of, missed, _ = forms.tally([_root(tmp_path)], "all")
    assert spans_of["passive norm"]["set9"] == 1
    assert missed["passive norm"]["set9"] == 0  # the lint reads the passive norm
    assert spans_of[forms.OTHER]["set9"] == 1
    assert missed[forms.OTHER]["set9"] == 1  # no norm word: a maxim the lint misses


def test_main_prints_counts_and_never_a_line_of_text(tmp_path: Path, capsys) -> None:
    assert forms.main([str(_root(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "advocacy spans by clause form" in out and "set9" in out
    assert "nightly" not in out and "hotfix" not in out
