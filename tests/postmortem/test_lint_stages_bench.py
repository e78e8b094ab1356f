"""benchmarks/postmortem_lint_stages.py: a missed span is put at the stage that lost it
(#24, P-5); made-up texts only."""

from __future__ import annotations

import json
from pathlib import Path

from agentops.postmortem import lint as lint_mod
from benchmarks import postmortem_lint_stages as bench

_TEXT = """# A made-up outage

## Summary

The cron job broke the nightly build.
I was at my desk when the nightly went red.
The loader should be faster.
I forgot to bump the version.
We are still debating whether we should gate releases on the soak.

## Action items

- The release process must have a second reviewer.
"""
# doc, start, end, category: line 3 is a heading, 8 is found, the rest are missed.
_JUDGED = [(3, "B"), (5, "B"), (6, "B"), (7, "A"), (8, "B"), (9, "A"), (13, "A")]


def _root(tmp_path: Path) -> Path:
    set_dir = tmp_path / "root" / "set1"
    (set_dir / "texts").mkdir(parents=True)
    (set_dir / "texts" / "d.md").write_text(_TEXT, encoding="utf-8")
    rows = ["doc\tstart\tend\tcat\tstrength"] + [f"d\t{n}\t{n}\t{c}\t-" for n, c in _JUDGED]
    (set_dir / "judged.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return tmp_path / "root"


def test_each_missed_span_is_put_at_its_stage(tmp_path: Path, capsys) -> None:
    assert bench.main([str(_root(tmp_path)), "--split", "all", "--json", "--verbose"]) == 0
    result = json.loads(capsys.readouterr().out)
    blame, advocacy = result["categories"]["blame"], result["categories"]["advocacy"]
    assert (blame["spans"], blame["missed"]) == (4, 3)
    # A heading is no prose; a fault verb with a tool as subject loses at the agent; a
    # person as subject with no fault loses at the predicate.
    assert blame["stages"] == {"not-prose": 1, "agent": 1, "predicate": 1}
    # A norm about the incident's own object loses at its topic (the agent stage), an
    # indirect question at the suppressions, a norm in the action items at the section.
    assert advocacy["stages"] == {"agent": 1, "suppression": 1, "section": 1}
    missed = result["missed"]
    assert "blame not-prose set1/d:3-3" in missed
    assert "advocacy section set1/d:13-13 [action_items]" in missed
    assert "advocacy suppression set1/d:9-9 [unless]" in missed
    assert not any(":8-8" in line for line in missed)  # found: not staged
    # Losses by reading, as counts: the tool's "broke" and the writer with no fault.
    assert "blame agent set1/d:5-5 [breakage:system]" in missed
    assert "blame predicate set1/d:6-6 [first_person]" in missed
    assert result["blame_agent_readings"] == {"agent breakage:system": 1,
                                              "predicate first_person": 1}


def test_a_duty_only_nobody_owes_is_no_agent_loss() -> None:
    rules = bench._rules()
    # "Reviewed" with no subject is no fault of anyone's; read with any agent, the class
    # of "nobody reviewed it" would stage it at the agent.
    line = [lint_mod.Sentence("Reviewed the logs twice and found nothing odd.", "summary",
                              (0,), (5,))]
    assert bench.stage("blame", line, {5}, rules)[0] == "agent+predicate"
    # The fault class a person is left out of still stages at the agent.
    tool = [lint_mod.Sentence("The cron job broke the nightly build.", "summary", (0,),
                              (5,))]
    assert bench.stage("blame", tool, {5}, rules) == ("agent", "breakage:system")


def test_counts_only_without_verbose_and_none_on_heldout(tmp_path: Path, capsys) -> None:
    root = _root(tmp_path)
    assert bench.main([str(root), "--split", "all", "--json"]) == 0
    assert "missed" not in json.loads(capsys.readouterr().out)
    assert bench.main([str(root), "--split", "heldout", "--verbose"]) == 2
    assert "refused" in capsys.readouterr().err


def test_a_hit_on_the_joined_sentences_is_a_split_loss() -> None:
    rules = bench._rules()
    # The fault verb and its subject land in two sentences only when cut apart.
    parts = [lint_mod.Sentence("I", "summary", (0,), (5,)),
             lint_mod.Sentence("forgot to bump the version.", "summary", (0,), (6,))]
    assert bench.stage("blame", parts, {5, 6}, rules)[0] == "split"
    assert bench.stage("blame", parts[1:], {6}, rules)[0] != "split"


def test_the_corpus_is_judged_and_found_per_sentence(tmp_path: Path, capsys) -> None:
    # Two judged sentences on one line: the flag on the first does not find the second.
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "d.md").write_text("# T\n\nI forgot to bump the version. The team was on "
                                 "holiday that week.\n", encoding="utf-8")
    judged = [bench.key("I forgot to bump the version."),
              bench.key("The team was on holiday that week.")]
    data = tmp_path / "judged.yaml"
    data.write_text("version: 1\ndocuments:\n  d: {repo: x/y, commit: abc, path: d.md, "
                    "split: fit}\njudgements:\n" + "".join(
                        f"  {k}: {{doc: d, labels: [blame]}}\n" for k in judged),
                    encoding="utf-8")
    assert bench.main(["--corpus", str(corpus), "--data", str(data), "--split", "fit",
                       "--json", "--verbose"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["categories"]["blame"]["spans"],
            result["categories"]["blame"]["missed"]) == (2, 1)
    # A role as subject with no fault read: the predicate stage.
    assert result["missed"] == ["blame predicate d:3 [role]"]
