"""#12 item 10: the facts file is untrusted input. Its read is bounded (size, regular
files only) and its YAML parse is bounded (alias expansion, depth) before validation,
so a hostile file ends with exit 1 naming the file and writes nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentops.postmortem import datafiles
from scripts import postmortem as script
from tests import watchdog


def _bomb(levels: int, fan: int) -> str:
    lines = ["ticket: JIRA-1", "owner: Alex", "kind: bug-fix", "date: '2026-03-30'",
             "anchors:", "  a0: &a0 [" + ", ".join(["'xxxxxxxx'"] * fan) + "]"]
    lines += [f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * fan) + "]"
              for i in range(1, levels)]
    lines.append(f"title: *a{levels - 1}")
    return "\n".join(lines) + "\n"


def _draft(tmp_path: Path, facts: Path, capsys) -> tuple[int, str]:
    out = tmp_path / "out" / "draft.md"
    rc = script.main(["draft", str(facts), "--out", str(out)])
    assert not out.exists() and not Path(str(out) + ".sha256").exists()
    return rc, capsys.readouterr().err


def test_alias_bomb_is_refused_naming_the_file(tmp_path: Path, capsys) -> None:
    facts = tmp_path / "bomb.facts.yml"
    facts.write_text(_bomb(9, 12), encoding="utf-8")  # 12**8 nodes if expanded
    rc, err = _draft(tmp_path, facts, capsys)
    assert rc == 1
    assert str(facts) in err and "alias" in err and "Traceback" not in err


def test_deep_nesting_is_refused(tmp_path: Path, capsys) -> None:
    facts = tmp_path / "deep.facts.yml"
    facts.write_text("title: " + "[" * 200 + "]" * 200 + "\n", encoding="utf-8")
    rc, err = _draft(tmp_path, facts, capsys)
    assert rc == 1 and "deeper than" in err and str(facts) in err


def test_oversized_file_is_refused_before_parsing(tmp_path: Path, capsys) -> None:
    facts = tmp_path / "big.facts.yml"
    facts.write_text("title: x\n" + "# pad\n" * (datafiles.MAX_FACTS_BYTES // 6 + 10))
    rc, err = _draft(tmp_path, facts, capsys)
    assert rc == 1 and "larger than" in err


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_is_not_read(tmp_path: Path, capsys) -> None:
    link = tmp_path / "zero.facts.yml"
    os.symlink("/dev/zero", link)
    rc, err = _draft(tmp_path, link, capsys)
    assert rc == 1 and "not a regular file" in err


def test_non_utf8_names_the_line(tmp_path: Path, capsys) -> None:
    facts = tmp_path / "latin1.facts.yml"
    facts.write_bytes(b"ticket: JIRA-1\nowner: Ren\xe9\n")
    rc, err = _draft(tmp_path, facts, capsys)
    assert rc == 1 and "line 2" in err and "UTF-8" in err


def test_a_few_ordinary_aliases_still_load(tmp_path: Path, tada: dict[str, Any]) -> None:
    """Anchors are legal YAML; only their expansion past the budget is refused."""
    tada["owner"] = "Alex"
    for item in tada["action_items"]:
        item["owner"] = "Alex"
    text = yaml.safe_dump(tada, sort_keys=False)
    text = text.replace("owner: Alex", "owner: &who Alex", 1).replace("owner: Alex",
                                                                      "owner: *who")
    assert "*who" in text
    facts = tmp_path / "facts.yml"
    facts.write_text(text, encoding="utf-8")
    loaded = datafiles.load_facts(facts)
    assert {i["owner"] for i in loaded.content["action_items"]} == {"Alex"}


def test_an_echoed_value_is_bounded(tmp_path: Path, tada: dict[str, Any], capsys) -> None:
    tada["ticket"] = "J" * 50_000
    facts = tmp_path / "facts.yml"
    facts.write_text(yaml.safe_dump(tada, sort_keys=False), encoding="utf-8")
    assert script.main(["check", str(facts)]) == 1
    err = capsys.readouterr().err
    assert "ticket" in err and len(err) < 2_000


def _prose_bytes(value: Any, key: str = "") -> int:
    """The UTF-8 size of the facts' prose, counted here by hand: every string except
    those under the identifier, reference and label keys (docs/postmortem.md)."""
    labels = {"ticket", "owner", "kind", "title", "date", "revision", "identifiers", "refs",
              "ref", "introduced_by", "tracking", "reliability", "category", "steps"}
    if key in labels:
        return 0
    if isinstance(value, str):
        return len(value.encode("utf-8"))
    if isinstance(value, dict):
        return sum(_prose_bytes(v, k) for k, v in value.items())
    if isinstance(value, list):
        return sum(_prose_bytes(v) for v in value)
    return 0


def test_hostile_facts_prose_is_refused_in_bounded_time(tmp_path: Path, tada: dict[str, Any],
                                                        capsys) -> None:
    """#24 security: check lints the facts' prose with the draft lint's clause readings
    (a few KB of hostile clause words a second). 200 KiB of them in one value, well under
    the 512 KiB file cap, took minutes; past MAX_FACTS_PROSE_BYTES it is exit 1 naming
    the key, the cap and the fix, before any gate or lint runs, and nothing is written."""
    from agentops.postmortem.commands import MAX_FACTS_PROSE_BYTES

    tada["why_symptom"] = "I think we didn't really test it, so it broke. " * 4_500
    facts = tmp_path / "hostile.facts.yml"
    facts.write_text(yaml.safe_dump(tada, sort_keys=False), encoding="utf-8")
    assert MAX_FACTS_PROSE_BYTES < facts.stat().st_size < datafiles.MAX_FACTS_BYTES
    saved = tmp_path / "out" / "gathered.json"
    rc = watchdog.within(watchdog.SECONDS, lambda: script.main(
        ["check", str(facts), "--gathered-out", str(saved)]))
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err
    assert f"{facts}: why_symptom: the facts' prose is" in err
    assert f"more than the {MAX_FACTS_PROSE_BYTES} bytes" in err and "shorten why_symptom" in err
    assert not saved.exists()
    # draft refuses exactly like check, writing neither the draft nor its hash.
    rc, err = watchdog.within(watchdog.SECONDS, lambda: _draft(tmp_path, facts, capsys))
    assert rc == 1 and "why_symptom" in err and str(MAX_FACTS_PROSE_BYTES) in err


def test_facts_prose_at_the_cap_is_linted_and_one_byte_more_is_refused(
        tmp_path: Path, tada: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
        capsys) -> None:
    from agentops.postmortem import commands

    tada["summary"]["impact"] += " We think the cache was stale."  # a hedge check finds
    facts = tmp_path / "facts.yml"
    facts.write_text(yaml.safe_dump(tada, sort_keys=False), encoding="utf-8")
    size = _prose_bytes(tada)
    monkeypatch.setattr(commands, "MAX_FACTS_PROSE_BYTES", size)
    assert script.main(["check", str(facts)]) == 6  # read and linted as usual
    assert "summary.impact" in capsys.readouterr().out
    monkeypatch.setattr(commands, "MAX_FACTS_PROSE_BYTES", size - 1)
    assert script.main(["check", str(facts)]) == 1
    err = capsys.readouterr().err
    assert f"the facts' prose is {size} bytes, more than the {size - 1} bytes" in err
    # Refused before GitHub is read: no token is asked for.
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    assert script.main(["check", str(facts), "--issue", "org/platform#5700"]) == 1
    err = capsys.readouterr().err
    assert "the facts' prose is" in err and "GITHUB_TOKEN" not in err


def test_the_prose_cap_is_the_one_the_docs_state() -> None:
    from agentops.postmortem.commands import MAX_FACTS_PROSE_BYTES

    stated = f"{MAX_FACTS_PROSE_BYTES // 1024} KiB"
    root = Path(__file__).resolve().parents[2]
    for doc in ("docs/postmortem.md", "docs/security.md", "scripts/postmortem.py"):
        assert f"{stated} of" in (root / doc).read_text(encoding="utf-8"), doc


def _line_by_loop(raw: list[str], text: str, phrase: str) -> int:
    """The placement rule, read line by line: the first line at or after the value's
    first line (the one holding its first 30 characters) with the phrase's first word."""
    head = text.strip().splitlines()[0][:30] if text.strip() else ""
    start = next((i for i, ln in enumerate(raw) if head and head in ln), 0)
    words = phrase.lower().split()
    return next((i + 1 for i in range(start, len(raw))
                 if words and words[0] in raw[i].lower()), start + 1)


@pytest.mark.parametrize(("raw", "text", "phrase"), [
    (["ticket: J-1", "impact: >-", "  All good.", "  We think it", "  broke."],
     "All good. We think it broke.", "We think"),
    (["a: x", "why: We think", "b: We think"], "We think", "we THINK"),       # first hit
    (["a: x", "b: y"], "absent value", "Apparently"),                         # fallback
    (["a: x", "b: Ünïcode İs here", "c: x"], "Ünïcode İs here", "i̇s here"),  # lowered
    ([], "", "We think"),
    (["a: one", "b: two"], "  ", ""),
])
def test_a_finding_is_placed_where_the_line_loop_places_it(raw: list[str], text: str,
                                                           phrase: str) -> None:
    from agentops.postmortem.commands import FactsLines

    lines = FactsLines(raw)
    assert lines.phrase_line(lines.value_start(text), phrase) == _line_by_loop(raw, text,
                                                                                phrase)


def test_placing_thousands_of_findings_in_a_long_facts_file_is_bounded() -> None:
    """Security: 20,000 lines (the node cap allows as many identifiers) and 8,000
    findings whose word sits at the end; read line by line per finding it took minutes."""
    from agentops.postmortem.commands import FactsLines

    raw = [f"  - ident{i}" for i in range(20_000)] + ["why: We think so"]
    lines = watchdog.within(watchdog.SECONDS, lambda: FactsLines(raw))
    start = lines.value_start("ident0")
    assert start == 0
    placed = watchdog.within(watchdog.SECONDS, lambda: {
        lines.phrase_line(start, f"we{'' if i % 2 else ' think'}") for i in range(8_000)})
    assert placed == {20_001}


def test_the_prose_cap_is_exactly_the_kib_the_docs_state() -> None:
    # The docs give the cap in whole KiB: a cap off by bytes would not be the one stated.
    from agentops.postmortem.commands import MAX_FACTS_PROSE_BYTES

    assert MAX_FACTS_PROSE_BYTES % 1024 == 0 and MAX_FACTS_PROSE_BYTES // 1024 == 64


_ALPHA = "abcdefghijklmnopqrstuvwxyz1234"  # 30 characters, the head a value is found by


@pytest.mark.parametrize(("raw", "text", "line"), [
    # An earlier value holds the phrase's first word: the finding is in the value's own.
    (["a: We think not", "why: We think so"], "We think so", 2),
    # An earlier line holds the head's first 29 characters only: 30 decide.
    ([f"a: {_ALPHA[:-1]} We", f"why: {_ALPHA} We"], f"{_ALPHA} We", 2),
    # The value wraps right after its 30th character: the wrapped line still holds it.
    (["a: We", "why: >-", f"  {_ALPHA}", "  We end"], f"{_ALPHA} We end", 4),
    # A value of several lines is found by its first line, not its last.
    (["why: |", "  We think first", "  then second"], "We think first\nthen second", 2),
])
def test_a_finding_is_placed_in_the_value_that_holds_it(raw: list[str], text: str,
                                                        line: int) -> None:
    from agentops.postmortem.commands import FactsLines

    lines = FactsLines(raw)
    assert lines.phrase_line(lines.value_start(text), "We think") == line
    assert _line_by_loop(raw, text, "We think") == line


def test_a_facts_file_of_the_wrong_shape_says_where_the_keys_are_described(
        tmp_path: Path, capsys) -> None:
    """A schema error names the file and key and, since a person writes this file,
    where its keys are listed and a complete example (style.md 12)."""
    facts = tmp_path / "wrong.facts.yml"
    facts.write_text("ticket: 5\n", encoding="utf-8")
    rc, err = _draft(tmp_path, facts, capsys)
    assert rc == 1
    assert f"{facts}: (root): missing required key: 'owner'" in err
    assert "ticket: expected string, got 5" in err
    assert f"Fix: {datafiles.FACTS_FORMAT}" in err
    for path in ("docs/postmortem.md", "examples/postmortem/tada-hang.facts.yml"):
        assert (Path(script.__file__).resolve().parents[1] / path).is_file()
        assert path in datafiles.FACTS_FORMAT
