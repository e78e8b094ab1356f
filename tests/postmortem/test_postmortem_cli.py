"""The CLI contract: --help teaches, --out records the hash, P-7's offer on stderr,
P-8's third revision asks which section is wrong, and the writer boundary holds."""

from __future__ import annotations

import ast
import hashlib
import shutil
from pathlib import Path

import yaml

from scripts import postmortem as script

ROOT = Path(__file__).resolve().parents[2]
TADA = ROOT / "examples" / "postmortem" / "tada-hang.facts.yml"


def test_help_lists_verbs_and_exit_codes(capsys) -> None:
    assert script.main(["--help"]) == 0
    out = capsys.readouterr().out
    for verb in ("check", "draft", "lint", "publish"):
        assert verb in out
    assert "three ways to run" in out and "3    refused by a gate" in out


def test_draft_to_stdout_is_the_same_bytes_as_out(tmp_path: Path, capsysbinary) -> None:
    assert script.main(["draft", str(TADA)]) == 0
    stdout = capsysbinary.readouterr().out
    out = tmp_path / "d.md"
    assert script.main(["draft", str(TADA), "--out", str(out)]) == 0
    assert out.read_bytes() == stdout
    digest = hashlib.sha256(stdout).hexdigest()
    assert (tmp_path / "d.md.sha256").read_text() == f"{digest}  d.md\n"


def test_management_offer_is_on_stderr_only(capsys) -> None:
    assert script.main(["draft", str(TADA)]) == 0
    captured = capsys.readouterr()
    assert "management-talk" in captured.err and "management-talk" not in captured.out


def _edit(tmp_path: Path, n: int) -> str:
    facts = yaml.safe_load(TADA.read_text("utf-8"))
    facts["summary"]["fix"] += f" (edit {n})"
    path = tmp_path / "facts.yml"
    path.write_text(yaml.safe_dump(facts, sort_keys=False), encoding="utf-8")
    return str(path)


def test_third_revision_asks_which_section(tmp_path: Path, capsys) -> None:
    out = tmp_path / "draft.md"
    assert script.main(["draft", _edit(tmp_path, 1), "--out", str(out)]) == 0
    assert "Status:** draft (revision 1)" in out.read_text()
    # Re-rendering unchanged facts is not an edit round.
    assert script.main(["draft", _edit(tmp_path, 1), "--out", str(out)]) == 0
    assert "(revision 1)" in out.read_text()
    assert script.main(["draft", _edit(tmp_path, 2), "--out", str(out)]) == 0
    assert "(revision 2)" in out.read_text()
    before = out.read_bytes()
    capsys.readouterr()
    assert script.main(["draft", _edit(tmp_path, 3), "--out", str(out)]) == 3
    assert "revision 3 of the JIRA-12345 draft: which section is wrong?" in capsys.readouterr().err
    assert out.read_bytes() == before  # nothing re-drafted blindly
    assert script.main(["draft", _edit(tmp_path, 3), "--out", str(out),
                        "--wrong-section", "Root cause"]) == 0
    assert "(revision 3)" in out.read_text()
    assert script.main(["draft", _edit(tmp_path, 4), "--out", str(out),
                        "--wrong-section", "Nope"]) == 1


def test_date_defaults_to_the_facts_date_and_can_be_overridden(tmp_path: Path,
                                                               capsys) -> None:
    facts = tmp_path / "f.yml"
    shutil.copy(TADA, facts)
    assert script.main(["draft", str(facts), "--date", "2026-04-01"]) == 0
    assert "**Date:** 2026-04-01" in capsys.readouterr().out


def test_only_publish_writes_remote() -> None:
    """Style §12.1: no module but publish.py (and the GitHub client) sends a write."""
    pkg = ROOT / "src" / "agentops" / "postmortem"
    for path in pkg.glob("*.py"):
        tree = ast.parse(path.read_text("utf-8"))
        calls = {(n.func.attr, getattr(n.func.value, "id", None)) for n in ast.walk(tree)
                 if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
        # HTTP verbs on any session, and GitHubClient.write on a client.
        writes = {c for c in calls if c[0] in {"post", "put", "patch", "delete",
                                               "create_comment"} or c == ("write", "client")}
        if path.name != "publish.py":
            assert not writes, f"{path.name} calls {writes}"
