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
