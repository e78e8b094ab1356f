"""The shared readers and parsers for input someone else chose (issue #12 item 3):
files (regular only, links never followed, bounded), YAML (alias expansion and depth
bounded), Python source (parser exhaustion and depth bounded), and the scout's hidden
report block (JSON nested past the parser's limit)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from agentops import untrusted_files, untrusted_yaml
from agentops.scout import embedded
from agentops.scout.analyses import pysource

# --- files ----------------------------------------------------------------------------------


def test_reads_a_regular_file_within_the_cap(tmp_path: Path) -> None:
    f = tmp_path / "a.py"
    f.write_bytes(b"x = 1\n\xff")
    assert untrusted_files.read_text(f) == "x = 1\n\ufffd"
    with pytest.raises(untrusted_files.RefusedFile, match="not UTF-8 text"):
        untrusted_files.read_text(f, strict=True)
    with pytest.raises(untrusted_files.RefusedFile, match="7 bytes, over the 6-byte cap"):
        untrusted_files.read_bytes(f, max_bytes=6)


@pytest.mark.parametrize("target", ["/dev/zero", "outside"])
def test_a_link_is_never_followed(tmp_path: Path, target: str) -> None:
    root = tmp_path / "checkout"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.write_text("# TODO: outside\n")
    link = root / "x.py"
    os.symlink(target if target.startswith("/") else outside, link)
    with pytest.raises(untrusted_files.RefusedFile, match="symbolic link"):
        untrusted_files.read_bytes(link)
    walk = untrusted_files.walk(root, suffix=".py")
    assert walk.files == () and [r.reason for r in walk.refused] == [
        "a symbolic link (never followed)"]


def test_a_linked_directory_is_not_entered_or_read_through(tmp_path: Path) -> None:
    root, elsewhere = tmp_path / "checkout", tmp_path / "elsewhere"
    (root / "pkg").mkdir(parents=True)
    elsewhere.mkdir()
    (elsewhere / "secret.py").write_text("# TODO\n")
    (root / "pkg" / "ok.py").write_text("x = 1\n")
    os.symlink(elsewhere, root / "pkg" / "linked")
    assert untrusted_files.walk(root, suffix=".py").files == (root / "pkg" / "ok.py",)
    with pytest.raises(untrusted_files.RefusedFile, match="symbolic link"):
        untrusted_files.read_bytes(root / "pkg" / "linked" / "secret.py", root=root)
    with pytest.raises(untrusted_files.RefusedFile, match="outside the directory"):
        untrusted_files.read_bytes(elsewhere / "secret.py", root=root)


def test_devices_and_fifos_are_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer forever
    for path in (fifo, Path("/dev/zero")):
        with pytest.raises(untrusted_files.RefusedFile, match="not a regular file"):
            untrusted_files.read_bytes(path)
    assert [r.reason for r in untrusted_files.walk(tmp_path, suffix=".py").refused] == [
        "not a regular file"]


def test_a_walk_stops_at_its_entry_budget(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"f{i:02}.py").write_text("")
    walk = untrusted_files.walk(tmp_path, suffix=".py", max_entries=10)
    assert walk.truncated and len(walk.files) == 10
    flat = untrusted_files.walk(tmp_path, suffix=".py", recursive=False)
    assert not flat.truncated and len(flat.files) == 30


# --- YAML -----------------------------------------------------------------------------------

def _laughs(levels: int, width: int = 9) -> str:
    lines = [f"a0: &a0 [{', '.join(['lol'] * width)}]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_before_anything_walks_it() -> None:
    bomb = _laughs(9)
    assert len(bomb) < 700
    with pytest.raises(untrusted_yaml.UnsafeYAML, match="past 100,000 nodes"):
        untrusted_yaml.load(bomb)
    # A few aliases, as real workflows use them, are fine.
    assert untrusted_yaml.load(_laughs(3)) == yaml.safe_load(_laughs(3))


@pytest.mark.parametrize(("text", "message"), [
    ("a: &x [1, *x]", "refers to a node that contains it"),
    ("a: " + "[" * 100 + "]" * 100, "nested deeper than 64 levels"),
    ("a: " + "{b: " * 5000 + "1" + "}" * 5000, "nested deeper than 64 levels"),
])
def test_recursive_and_deep_documents_are_refused(text: str, message: str) -> None:
    with pytest.raises(untrusted_yaml.UnsafeYAML, match=message):
        untrusted_yaml.load(text)


def test_ordinary_yaml_loads_like_safe_load() -> None:
    text = ("on: {push: {branches: [main]}}\ndefaults: &d {shell: bash}\n"
            "jobs:\n  t:\n    <<: *d\n    steps:\n      - run: pytest -k 'a and b'\n"
            "      - {run: '2026-01-01', with: {x: 1.5, y: null}}\n")
    assert untrusted_yaml.load(text) == yaml.safe_load(text)
    assert untrusted_yaml.load("") is None
    with pytest.raises(yaml.YAMLError):
        untrusted_yaml.load("a: [")
    with pytest.raises(untrusted_yaml.UnsafeYAML, match="characters, over"):
        untrusted_yaml.load("a: 1\n" * 10, max_chars=20)


# --- Python source --------------------------------------------------------------------------

@pytest.mark.parametrize(("source", "why"), [
    ("x = " + "-" * 200_000 + "1\n", "nested too deeply for the Python parser"),
    ("x = " + "a." * 100_000 + "b\n", "nested too deeply for the Python parser"),
    ("x = " + " + ".join(["a"] * 400) + "\n", "nested deeper than 150 levels"),
    ("def f(:\n", "syntax error at line 1"),
    ("x = 1\0\n", "syntax error (source code string cannot contain null bytes)"),
])
def test_unparseable_source_is_skipped_with_the_reason(source: str, why: str) -> None:
    assert pysource.parse(source) is None
    assert pysource.unparsed(source) == why


def test_real_nesting_parses() -> None:
    source = "x = " + " + ".join(["a"] * 120) + "\nif a:\n    pass\n" + "elif b:\n    pass\n" * 60
    assert pysource.parse(source) is not None and pysource.unparsed(source) is None


def test_a_deeply_nested_hidden_block_is_not_a_crash() -> None:
    body = "# Nightly Scout Report\n<!-- agentops:scout-report v1\n" + "[" * 40_000 + \
        "]" * 40_000 + "\n-->\n"
    assert embedded.extract(body) is None
