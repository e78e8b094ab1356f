"""The workflow-command escaping agentops owns (issue #25 item 10): GitHub documents
that a command's value escapes ``%`` as ``%25``, CR as ``%0D`` and LF as ``%0A``, and a
property value also ``:`` as ``%3A`` and ``,`` as ``%2C``. The expectations are written
out by hand from that rule; and no module imports a dependency's private module."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from agentops import ghactions

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(("raw", "data", "prop"), [
    ("plain text", "plain text", "plain text"),
    ("100%", "100%25", "100%25"),
    ("%0A stays text", "%250A stays text", "%250A stays text"),
    ("one\ntwo", "one%0Atwo", "one%0Atwo"),
    ("one\r\ntwo\r", "one%0D%0Atwo%0D", "one%0D%0Atwo%0D"),
    ("a:b,c", "a:b,c", "a%3Ab%2Cc"),
    ("t: 50%, done\n", "t: 50%25, done%0A", "t%3A 50%25%2C done%0A"),
    ("::add-mask::x", "::add-mask::x", "%3A%3Aadd-mask%3A%3Ax"),
])
def test_escaping_by_hand(raw: str, data: str, prop: str) -> None:
    assert ghactions.escape_data(raw) == data
    assert ghactions.escape_property(raw) == prop


def test_an_annotation_is_one_line_with_its_title_kept_whole(monkeypatch, capsys) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    ghactions.error("50% failed\nsee: a, b", title="step: x, y")
    assert capsys.readouterr().err == "::error title=step%3A x%2C y::50%25 failed%0Asee: a, b\n"


def test_no_private_module_of_a_dependency_is_imported() -> None:
    # Dependencies: what is neither agentops nor the standard library.
    own = {"agentops", "__future__", *sys.stdlib_module_names}
    private = []
    for path in sorted((ROOT / "src" / "agentops").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                parts = name.split(".")
                if parts[0] not in own and any(
                        p.startswith("_") and not p.startswith("__") for p in parts):
                    private.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    assert private == []
