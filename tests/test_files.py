"""agentops.files: the one reader and atomic writer of files named on a command line
(issue #13 item 2)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from agentops import files
from agentops.errors import InputError


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.json"
    target.write_text("old\n")
    target.chmod(0o640)

    def full_disk(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(InputError) as err:
        files.write_atomic(target, "new\n", field="--out")
    assert err.value.message == (f"--out: cannot write {target}: no space left on device; "
                                 "nothing was written")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    monkeypatch.undo()
    files.write_atomic(target, "new\n", field="--out")
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the file's mode is kept


def test_a_new_file_gets_the_usual_mode_not_mkstemps_0600(tmp_path: Path) -> None:
    mask = os.umask(0o022)
    try:
        path = files.write_atomic(tmp_path / "a" / "b.md", b"x", field="--out")
    finally:
        os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_all_paths_are_checked_before_the_first_write(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("")
    with pytest.raises(InputError, match="blocker is a file, not a folder"):
        files.write_all([(tmp_path / "first.md", "a", "--out"),
                         (tmp_path / "blocker" / "second.md", "b", "--out")])
    assert not (tmp_path / "first.md").exists()


@pytest.mark.parametrize(("setup", "says"), [
    ("missing", "no such file"),
    ("folder", "is a folder, not a file"),
    ("latin1", "is not UTF-8 text (line 2, column 4 is 0xe9)"),
    ("big", "is larger than 8 bytes, the most this reads"),
])
def test_reads_name_the_flag_the_file_and_the_problem(tmp_path: Path, setup: str,
                                                      says: str) -> None:
    path = tmp_path / "in.txt"
    if setup == "folder":
        path.mkdir()
    elif setup == "latin1":
        path.write_bytes(b"ok\ncaf\xe9\n")
    elif setup == "big":
        path.write_text("123456789")
    with pytest.raises(InputError) as err:
        files.read_text(path, field="--in", limit=8 if setup == "big" else None)
    assert err.value.message.startswith(f"--in: {path}")
    assert says in err.value.message and "[Errno" not in err.value.message
    assert err.value.fix


def test_json_documents_of_the_wrong_kind_say_what_they_hold(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text("[1, 2]")
    with pytest.raises(InputError, match=r"holds a JSON list, not a JSON object"):
        files.read_json(path, field="--x")
    path.write_text('{"a": ')
    with pytest.raises(InputError, match=r"not valid JSON \(line 1, column 7"):
        files.read_json(path, field="--x")


def test_shape_reasons_are_words() -> None:
    assert files.shape_reason(KeyError("decision")) == "missing key 'decision'"
    value: Any = 1
    with pytest.raises(TypeError) as err:
        value["x"]
    assert "subscriptable" in str(err.value)
    assert "subscriptable" not in files.shape_reason(err.value)

    def record(*, a: int) -> None: ...

    with pytest.raises(TypeError) as err:
        record(a=1, colour="red")  # type: ignore[call-arg]
    assert files.shape_reason(err.value) == "unknown key 'colour'"


def writes_outside_files(src: Path) -> list[str]:
    """``module:line: call`` for each file write under ``src`` outside files.py."""
    import ast

    out = []
    for path in sorted(src.rglob("*.py")):
        if path.name == "files.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            modes = [a.value for a in [*node.args[1:2],
                                       *(k.value for k in node.keywords if k.arg == "mode")]
                     if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if name in ("write_text", "write_bytes", "mkdir", "mkstemp") \
                    or (name == "replace" and isinstance(func, ast.Attribute)
                        and getattr(func.value, "id", "") == "os") \
                    or (name in ("open", "fdopen") and any(set(m) & set("wax") for m in modes)):
                out.append(f"{path.relative_to(src)}:{node.lineno}: {name}")
    return out


def test_files_is_the_only_module_that_writes_files(tmp_path: Path) -> None:
    # One atomic writer: a module that wrote with write_text/open("w") could leave a
    # half-written file behind.
    src = Path(__file__).resolve().parent.parent / "src" / "agentops"
    assert writes_outside_files(src) == []
    (tmp_path / "bad.py").write_text("from pathlib import Path\nPath('x').write_text('y')\n"
                                     "open('z', 'w')\nopen('r')\n")
    assert writes_outside_files(tmp_path) == ["bad.py:2: write_text", "bad.py:3: open"]


# --- outputs never replace what is not a regular file (issue #21 item 3) -------------------

def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def _device(tmp_path: Path) -> Path:
    # A device node of the test's own (as root) rather than the system's /dev/null,
    # so a writer that replaced it would not damage the machine.
    if os.geteuid() == 0:
        path = tmp_path / "null"
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        return path
    return Path("/dev/null")


def _link(tmp_path: Path, to: str) -> Path:
    path = tmp_path / "out.md"
    path.symlink_to(tmp_path / to)
    return path


KINDS = {
    "symlink to a file": (lambda t: ((t / "real.md").write_text("theirs\n"),
                                     _link(t, "real.md"))[1], "a symbolic link"),
    "dangling symlink": (lambda t: _link(t, "nowhere.md"), "a symbolic link"),
    "symlink to /dev/stdout's target": (lambda t: (t / "out.md").symlink_to("/proc/self/fd/1")
                                        or t / "out.md", "a symbolic link"),
    "FIFO": (_fifo, "a named pipe (FIFO)"),
    "character device": (_device, "a character device"),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_an_output_that_is_not_a_regular_file_is_refused_and_kept(tmp_path: Path,
                                                                   kind: str) -> None:
    make, says = KINDS[kind]
    path = make(tmp_path)
    before = os.lstat(path)
    reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK) if kind == "FIFO" else None
    try:
        for write in (lambda: files.write_atomic(path, "ours\n", field="--out"),
                      lambda: files.write_all([(path, "ours\n", "--out")])):
            with pytest.raises(InputError) as err:
                write()
            assert err.value.message == (
                f"--out: {path} is {says}, not a regular file; agentops writes a new file "
                "or replaces a regular one, never anything else")
            assert err.value.status == 1
        if reader is not None:  # nothing was written through the pipe either
            assert os.read(reader, 10) == b""
    finally:
        if reader is not None:
            os.close(reader)
    after = os.lstat(path)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    if kind == "symlink to a file":
        assert (tmp_path / "real.md").read_text() == "theirs\n"
    leftovers = {p.name for p in tmp_path.iterdir()} - {"out.md", "real.md", "pipe", "null"}
    assert leftovers == set()


def test_an_output_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    with pytest.raises(InputError, match=r"dir is a folder; this writes a file"):
        files.write_atomic(tmp_path / "dir", "x", field="--out")
    assert list((tmp_path / "dir").iterdir()) == []


def test_a_link_placed_after_the_check_is_not_replaced(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.md"
    (tmp_path / "theirs").write_text("theirs\n")
    real_mkstemp = files.tempfile.mkstemp

    def race(*args: Any, **kwargs: Any) -> Any:
        target.symlink_to(tmp_path / "theirs")  # someone swaps a link in meanwhile
        return real_mkstemp(*args, **kwargs)

    monkeypatch.setattr(files.tempfile, "mkstemp", race)
    with pytest.raises(InputError, match="is a symbolic link"):
        files.write_atomic(target, "ours\n", field="--out")
    assert target.is_symlink() and (tmp_path / "theirs").read_text() == "theirs\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.md", "theirs"]


def test_a_regular_file_is_still_replaced(tmp_path: Path) -> None:
    target = tmp_path / "out.md"
    target.write_text("old\n")
    files.write_atomic(target, "new\n", field="--out")
    assert target.read_text() == "new\n" and not target.is_symlink()
