"""#22 item 7 (S-5): a doc's one-direction limit ("only conversion from HF to DCP")
against the sub-project's code: contradicted when the sub-project implements the other
direction (a ``to_hf`` method), and then no longer listed as an unverified support
claim. Nothing when the other direction is a stub that refuses, lives only in tests, is
absent, or the sentence sets no limit. Fixture repositories, match and no-match."""

from __future__ import annotations

from agentops.scout.analyses import docdirection, run_all
from agentops.scout.analyses.docs import DocProblem
from tests import watchdog
from tests.scout import minirepo

README = """\
# Sub

## Conversion

Currently, we only support conversion from HF checkpoints to DCP checkpoints offline.

```bash
python scripts/convert_from_hf.py in out
```
"""
ADAPTER = """\
class Adapter:
    def to_hf(self, sd):
        return {k.replace("a", "b"): v for k, v in sd.items()}

    def from_hf(self, sd):
        return dict(sd)
"""


def _inp(tmp_path, readme=README, adapter=ADAPTER, extra=None):
    head = {"sub/__init__.py": "", "sub/README.md": readme, "sub/adapter.py": adapter,
            "scripts/convert_to_hf.py": "print(1)\n",
            "scripts/convert_from_hf.py": "print(2)\n", **(extra or {})}
    return minirepo.build(tmp_path, head=head, target="docs: [sub/README.md]\n")


def test_a_one_direction_limit_is_stale_when_the_folder_converts_back(tmp_path) -> None:
    got = docdirection.analyse(_inp(tmp_path))
    assert [(p.file, p.line) for p in got] == [("sub/README.md", 5)]
    text = got[0].problem
    assert text.startswith("says only conversion from HF to DCP is supported")
    assert "also converts DCP to HF: `to_hf` (sub/adapter.py:2)" in text
    assert "`scripts/convert_to_hf.py` runs it" in text
    assert "convert_from_hf" not in text  # the documented direction is no evidence


def test_camel_case_words_go_by_their_capitals(tmp_path) -> None:
    readme = "Only HuggingFace -> DCP conversion is supported.\n"
    got = docdirection.analyse(_inp(tmp_path, readme=readme))
    assert [(p.line, "`to_hf`" in p.problem) for p in got] == [(1, True)]


def test_a_refusing_stub_a_test_helper_or_no_reverse_says_nothing(tmp_path) -> None:
    stub = ("class Adapter:\n    def to_hf(self, sd):\n        \"\"\"Not yet.\"\"\"\n"
            "        raise NotImplementedError\n\n    def from_hf(self, sd):\n"
            "        return dict(sd)\n")
    assert docdirection.analyse(_inp(tmp_path / "a", adapter=stub)) == []
    only_from = "class Adapter:\n    def from_hf(self, sd):\n        return dict(sd)\n"
    assert docdirection.analyse(_inp(tmp_path / "b", adapter=only_from)) == []
    key_helper = only_from + "\n    def _map_to_hf_key(self, k):\n        return k\n"
    assert docdirection.analyse(_inp(tmp_path / "d", adapter=key_helper)) == []
    in_tests = {"sub/tests/test_back.py": "def to_hf(sd):\n    return sd\n"}
    assert docdirection.analyse(_inp(tmp_path / "c", adapter=only_from,
                                     extra=in_tests)) == []


def test_no_limit_or_a_code_block_is_no_claim(tmp_path) -> None:
    assert docdirection.analyse(_inp(tmp_path / "a", readme=(
        "We support conversion from HF checkpoints to DCP checkpoints.\n"))) == []
    assert docdirection.analyse(_inp(tmp_path / "b", readme=(
        "```\n# only from HF to DCP\n```\n"))) == []


def test_a_settled_claim_leaves_the_unverified_list_and_the_report_states_it(
        tmp_path) -> None:
    done = run_all(_inp(tmp_path))
    probs = [p for p in done["doc_inaccuracies"] if p.file == "sub/README.md"
             and p.line == 5]
    assert [p.kind for p in probs] == ["reference"]
    assert "also converts DCP to HF" in probs[0].problem
    # Without the reverse direction the claim stays listed as unverified.
    only_from = "class Adapter:\n    def from_hf(self, sd):\n        return dict(sd)\n"
    done = run_all(_inp(tmp_path / "b", adapter=only_from))
    assert [p.kind for p in done["doc_inaccuracies"] if p.file == "sub/README.md"
            and p.line == 5] == ["unverified"]


def test_settled_drops_only_support_claims_at_a_judged_line() -> None:
    found = [DocProblem("d.md", 3, "says only …")]
    kept = [DocProblem("d.md", 3, 'support claim "x"', "unverified"),
            DocProblem("d.md", 3, "features list", "unverified"),
            DocProblem("d.md", 4, 'support claim "y"', "unverified")]
    assert docdirection.settled(kept, found) == kept[1:]


def test_hostile_lines_are_read_in_bounded_time(tmp_path) -> None:
    # Untrusted doc text: long lines of near-claims ("only from a to" repeated, arrows
    # without words) are cut and scanned in bounded time; no claim comes of them.
    lines = ["only from " * 5000, "a -> " * 20_000, "only " + "x" * 100_000,
             "-" * 200_000]
    assert watchdog.within(watchdog.SECONDS, lambda: docdirection.claims(
        "\n".join(lines))) == []
    # The limit itself, past the line cut, is not read.
    assert docdirection.claims("x" * 3000 + " only from HF to DCP") == []
