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


def test_a_parent_step_under_the_root_is_refused(tmp_path: Path) -> None:
    """docs/security.md: nothing outside the tree is read; a `..` component is refused
    even when every directory on the way is real (Path does not fold it)."""
    root = tmp_path / "tree"
    (root / "pkg").mkdir(parents=True)
    (tmp_path / "outside.txt").write_text("secret", encoding="utf-8")
    for path in (root / ".." / "outside.txt", root / "pkg" / ".." / ".." / "outside.txt"):
        with pytest.raises(untrusted_files.RefusedFile, match="not a plain relative path"):
            untrusted_files.read_bytes(path, root=root)


def test_the_cap_is_four_mebibytes_by_default(tmp_path: Path) -> None:
    """docs/security.md's table: 4 MiB per file in the work tree; one byte more is refused,
    not truncated."""
    f = tmp_path / "big.py"
    f.write_bytes(b"#" * (4 * 1024 * 1024))
    assert len(untrusted_files.read_bytes(f)) == 4 * 1024 * 1024
    with f.open("ab") as out:
        out.write(b"#")
    with pytest.raises(untrusted_files.RefusedFile, match="over the 4,194,304-byte cap"):
        untrusted_files.read_bytes(f)


def test_a_file_that_grows_while_read_is_refused(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The size checked before reading is not trusted: a file that is larger when read
    than when measured (it grew in between) is refused, not truncated to the cap."""
    import os as real_os
    f = tmp_path / "growing.py"
    f.write_bytes(b"x" * 64)
    real_fstat = real_os.fstat

    def measured_small(fd: int) -> real_os.stat_result:
        st = real_fstat(fd)
        return real_os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid,
                                    st.st_gid, 8, st.st_atime, st.st_mtime, st.st_ctime))

    monkeypatch.setattr(untrusted_files.os, "fstat", measured_small)
    with pytest.raises(untrusted_files.RefusedFile, match="over the 16-byte cap"):
        untrusted_files.read_bytes(f, max_bytes=16)
    assert untrusted_files.read_bytes(f, max_bytes=64) == b"x" * 64


def test_a_walk_goes_on_past_a_link_and_an_unreadable_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A link or a folder that cannot be listed is passed over; the files after it, in
    the same folder and in the next, are still found."""
    root = tmp_path / "tree"
    (root / "y_locked").mkdir(parents=True)
    (root / "b_open").mkdir()
    (root / "b_open" / "kept.py").write_text("x = 1\n", encoding="utf-8")
    (root / "a_link.py").symlink_to(root / "b_open" / "kept.py")
    (root / "z_last.py").write_text("y = 2\n", encoding="utf-8")
    real_scandir = untrusted_files.os.scandir

    def locked(path: object) -> object:
        if str(path).endswith("y_locked"):
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(untrusted_files.os, "scandir", locked)
    walk = untrusted_files.walk(root, suffix=".py")
    assert walk.files == (root / "b_open" / "kept.py", root / "z_last.py")
    assert [r.reason for r in walk.refused] == ["a symbolic link (never followed)"]
