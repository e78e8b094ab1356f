"""agentops.files at its edges (#26 item 5): the read limit's boundary, devices refused
before any read, output folders that are missing (fine) or files (refused), and
``write_all`` writing nothing when any path is bad."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentops import files
from agentops.errors import InputError


@pytest.mark.parametrize(("size", "ok"), [(0, True), (7, True), (8, True), (9, False)])
def test_read_limit_is_inclusive(tmp_path: Path, size: int, ok: bool) -> None:
    path = tmp_path / "in.bin"
    path.write_bytes(b"x" * size)
    if ok:
        assert files.read_bytes(path, field="--in", limit=8) == b"x" * size
    else:
        with pytest.raises(InputError, match="is larger than 8 bytes"):
            files.read_bytes(path, field="--in", limit=8)
    assert files.read_bytes(path, field="--in") == b"x" * size  # no limit: all of it



def test_a_limited_read_takes_one_byte_past_the_limit_and_no_more(tmp_path: Path,
                                                                   monkeypatch) -> None:
    # A file far larger than the limit (one that grows while read, too) costs the limit
    # plus the one byte that tells it is too large, never its whole size.
    path = tmp_path / "big.bin"
    path.write_bytes(b"x" * 4096)
    asked: list[int] = []
    real_open = Path.open

    def counting_open(self, *args, **kwargs):
        fh = real_open(self, *args, **kwargs)
        real_read = fh.read
        fh.read = lambda n=-1: (asked.append(n), real_read(n))[1]  # type: ignore[method-assign]
        return fh

    monkeypatch.setattr(Path, "open", counting_open)
    with pytest.raises(InputError, match="is larger than 8 bytes"):
        files.read_bytes(path, field="--in", limit=8)
    assert asked == [9]


@pytest.mark.skipif(not Path("/dev/null").exists(), reason="no /dev/null on this system")
def test_a_device_is_refused_before_reading(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        files.read_bytes("/dev/null", field="--in", limit=8)
    assert err.value.message == "--in: /dev/null is not a regular file"
    assert err.value.fix == "give the path of a regular file"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")
def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    # Opening a named pipe for reading blocks until something writes to it: the read
    # must refuse it by its kind first, with the caller's fix, and return at once.
    import threading

    pipe = tmp_path / "draft.md"
    os.mkfifo(pipe)
    outcome: list[BaseException] = []

    def read() -> None:
        try:
            files.read_bytes(pipe, field="--draft", fix="pass the file that draft wrote")
        except BaseException as exc:  # handed to the test thread
            outcome.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=20)
    if reader.is_alive():  # blocked in open(): a writer lets it go, then fail
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=5)
        pytest.fail("read_bytes waited for a writer on a named pipe")
    [err] = outcome
    assert isinstance(err, InputError)
    assert err.message == f"--draft: {pipe} is not a regular file"
    assert err.fix == "pass the file that draft wrote"


@pytest.mark.skipif(not Path("/dev/null").exists(), reason="no /dev/null on this system")
def test_what_was_opened_is_checked_not_only_what_the_path_was(tmp_path: Path,
                                                              monkeypatch) -> None:
    # The path is a regular file when looked at and a device when opened (replaced in
    # between): the opened file's own kind decides, and the caller's fix is kept.
    regular = os.stat(tmp_path)  # a stand-in result, made a regular file below
    real_stat = os.stat

    def stat_says_regular(path, *args, **kwargs):
        if str(path) == "/dev/null":
            return os.stat_result((0o100644, *tuple(regular)[1:10]))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat_says_regular)
    with pytest.raises(InputError) as err:
        files.read_bytes("/dev/null", field="--in", fix="give the log file")
    assert err.value.message == "--in: /dev/null is not a regular file"
    assert err.value.fix == "give the log file"
    with pytest.raises(InputError) as err:
        files.read_bytes("/dev/null", field="--in")
    assert err.value.fix == "give the path of a regular file"


def test_check_folder(tmp_path: Path) -> None:
    missing = tmp_path / "new" / "deeper"
    assert files.check_folder(missing, field="--out-dir") == missing
    assert not missing.exists()  # checked, not created
    (tmp_path / "afile").write_text("")
    with pytest.raises(InputError, match="afile is a file; this writes into a folder"):
        files.check_folder(tmp_path / "afile", field="--out-dir")
    with pytest.raises(InputError, match="afile is a file, not a folder"):
        files.check_folder(tmp_path / "afile" / "sub", field="--out-dir")
    for empty in ("", "  "):
        with pytest.raises(InputError, match="empty path"):
            files.check_folder(empty, field="--out-dir")


def test_check_writable(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "out.md"
    assert files.check_writable(target, field="--out") == target
    with pytest.raises(InputError, match="is a folder; this writes a file"):
        files.check_writable(tmp_path, field="--out")
    with pytest.raises(InputError, match="empty path"):
        files.check_writable(" ", field="--out")


def test_a_folder_this_user_cannot_write_is_refused(tmp_path: Path, monkeypatch) -> None:
    # Root passes any permission bit, so the refusal is driven through os.access.
    asked = []

    def access(path, mode):
        asked.append((Path(path), mode))
        return False

    monkeypatch.setattr(os, "access", access)
    with pytest.raises(InputError, match="permission denied on"):
        files.check_writable(tmp_path / "new" / "out.md", field="--out")
    assert asked == [(tmp_path, os.W_OK | os.X_OK)]  # the nearest folder that exists


def test_write_all_writes_every_file_or_none(tmp_path: Path) -> None:
    a, b = tmp_path / "x" / "a.md", tmp_path / "x" / "a.md.sha256"
    files.write_all([(a, "body\n", "--out"), (b, b"hash\n", "--out")])
    assert a.read_text() == "body\n" and b.read_bytes() == b"hash\n"
    with pytest.raises(InputError, match="is a folder; this writes a file"):
        files.write_all([(tmp_path / "c.md", "c", "--out"), (tmp_path / "x", "d", "--out")])
    assert not (tmp_path / "c.md").exists()


def test_write_atomic_returns_the_path_and_replaces_whole(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("a much longer old content\n")
    assert files.write_atomic(target, "new\n", field="--out") == target
    assert target.read_bytes() == b"new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_an_interrupted_write_leaves_the_old_file_and_propagates(tmp_path: Path,
                                                                  monkeypatch) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old\n")

    def interrupted(src: str, dst: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        files.write_atomic(target, "new\n", field="--out")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]  # no temporary left


def test_read_errors_have_a_default_fix(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_text("123456789")
    with pytest.raises(InputError) as err:
        files.read_bytes(big, field="--in", limit=8)
    assert err.value.fix == "give a smaller file"
    with pytest.raises(InputError) as err:
        files.read_bytes(big, field="--in", limit=8, fix="use --max")
    assert err.value.fix == "use --max"


def test_an_unreadable_file_says_how_to_fix_it(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "secret.txt"
    path.write_text("x")

    def denied(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "open", denied)
    with pytest.raises(InputError) as err:
        files.read_bytes(path, field="--in")
    assert err.value.message == f"--in: {path}: permission denied"
    assert err.value.fix == "make the file readable by this user"


def test_any_other_read_error_is_an_input_error(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "flaky.txt"
    path.write_text("x")

    def broken(self, *args, **kwargs):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(Path, "open", broken)
    with pytest.raises(InputError) as err:
        files.read_bytes(path, field="--in", fix="copy it elsewhere")
    assert err.value.message == f"--in: cannot read {path}: input/output error"
    assert err.value.fix == "copy it elsewhere"


def test_an_existing_output_folder_is_accepted(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    assert files.check_folder(out, field="--out-dir") == out
    (out / "f").write_text("x")
    with pytest.raises(InputError, match="is a file; this writes into a folder"):
        files.check_folder(out / "f", field="--out-dir")
