"""The central-directory reader (bisect/central_directory.py) on its own, over local
sources: entry parsing and re-synchronisation, which unread stretches the tree-walk
search may skip, and the bounds for hostile archives (#12 item 4): compression bombs,
sizes a directory lies about, a budget of reads, truncated records."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest

from agentops.bisect import central_directory as zcd
from agentops.bisect.wheels import VERSION_PY_LIMITS, FileRanges
from agentops.errors import DataError, ExitStatus
from tests.bisect import hostile
from tests.bisect.server import build_wheel, fake_sha


def _cd_bytes(names: list[str]) -> tuple[bytes, int]:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n in names:
            zf.writestr(n, b"x")
    data = buf.getvalue()
    eocd = data.rfind(b"PK\x05\x06")
    cd_off = int.from_bytes(data[eocd + 16:eocd + 20], "little")
    return data[cd_off:eocd], cd_off


def test_entries_resynchronise_inside_a_chunk_despite_a_stray_signature() -> None:
    names = [f"torch/include/op_{i}.h" for i in range(30)]
    names[5] = "torch/include/PK\x01\x02trap.h"  # a signature inside a name
    cd, base = _cd_bytes(names)
    aligned = zcd.entries_in(cd, base, aligned=True)
    assert [sp.entry.name for sp in aligned] == names
    # start the chunk inside entry 5's header: the first signature in it is the trap
    cut = aligned[5].start - base + 10
    chunk = cd[cut:]
    assert chunk.find(b"PK\x01\x02") < aligned[6].start - base - cut
    spans = zcd.entries_in(chunk, base + cut, aligned=False)
    assert [sp.entry.name for sp in spans] == names[6:]
    assert [sp.start for sp in spans] == [sp.start for sp in aligned[6:]]


class _NoReads:
    def read(self, start: int, length: int) -> bytes:
        raise AssertionError("gaps() must not read")


def _finder(placed: list[tuple[int, int, str]]) -> zcd.Finder:
    f = zcd.Finder(_NoReads(), "torch/version.py", 0)  # type: ignore[arg-type]
    f.take([zcd.Span(s, e, zcd.Entry(n, 0, 0, 0, 0, 0, 0)) for s, e, n in placed])
    return f


def test_gaps_inside_a_foreign_subtree_are_ruled_out() -> None:
    f = _finder([(100, 150, "torch/include/ATen/a.h"), (400, 450, "torch/include/c10/b.h"),
                 (900, 950, "torch/lib/libc10.so"), (1200, 1250, "torchgen/x.py")])
    assert f.gaps(1500) == [
        (0, 100, True),        # before anything known
        (150, 400, False),     # both sides under torch/include: version.py cannot be there
        (450, 900, True),      # torch/include … torch/lib: a torch/ child may sit between
        (950, 1200, True),     # torch/ … torchgen/: common root
        (1250, 1500, True),
    ]


def test_tree_walk_detects_a_directory_seen_twice() -> None:
    ok = _finder([(0, 10, "a/x"), (10, 20, "a/b/y"), (20, 30, "c/z")])
    assert ok.tree_walk()
    bad = _finder([(0, 10, "a/x"), (10, 20, "c/z"), (20, 30, "a/y")])
    assert not bad.tree_walk()
    # dist-info files come last whatever the order, and do not count
    tail = _finder([(0, 10, "t/x"), (10, 20, "t-1.dist-info/RECORD"), (20, 30, "u/y")])
    assert tail.tree_walk()


# --- whole reads over a local file ---------------------------------------------------------

V = "2.10.0.dev20260601+cpu"


def _read(path: Path, limits: zcd.Limits = VERSION_PY_LIMITS) -> zcd.Found:
    with path.open("rb") as fh:
        return zcd.read_member(FileRanges(fh), "torch/version.py", name=path.name,
                               limits=limits)


def _refused(path: Path, limits: zcd.Limits = VERSION_PY_LIMITS) -> str:
    with pytest.raises(DataError) as info:
        _read(path, limits)
    assert info.value.status == ExitStatus.INPUT
    return info.value.message


@pytest.mark.parametrize("order", ["walk", "lex", "zip", "random"])
def test_reads_the_member_in_every_order(tmp_path: Path, order: str) -> None:
    wheel = build_wheel(tmp_path, V, members=3000, order=order, seed=3)
    found = _read(wheel)
    assert f"git_version = '{fake_sha(V)}'" in found.data.decode()
    with zipfile.ZipFile(wheel) as zf:
        assert found.entries == len(zf.infolist())
        assert found.data == zf.read("torch/version.py")


@pytest.mark.parametrize("method", [hostile.DEFLATED, hostile.BZIP2])
def test_a_bomb_declared_honestly_is_refused_before_it_is_read(tmp_path: Path,
                                                                method: int) -> None:
    wheel = hostile.bomb_wheel(tmp_path, V, method=method, size=64 << 20)
    assert "the member is 67108864 bytes" in _refused(wheel)


@pytest.mark.parametrize("method", [hostile.DEFLATED, hostile.BZIP2])
def test_a_bomb_behind_a_lying_directory_stops_at_the_cap(tmp_path: Path,
                                                          method: int) -> None:
    wheel = hostile.bomb_wheel(tmp_path, V, method=method, size=64 << 20, lie=True)
    assert "decompresses to more than 65536 bytes" in _refused(wheel)


def test_a_huge_version_py_is_refused(tmp_path: Path) -> None:
    wheel = hostile.huge_version_wheel(tmp_path, V, size=1 << 20)
    assert "more than the 65536 bytes such a file can be" in _refused(wheel)
    # the same file within a larger cap is read (the cap is what refuses it)
    big = zcd.Limits(max_size=2 << 20, max_compressed=2 << 20)
    assert len(_read(wheel, big).data) == 1 << 20


def test_a_size_mismatch_is_a_crc_error(tmp_path: Path) -> None:
    text = b"git_version = 'abc1234'\n"
    wheel = hostile.write_zip(tmp_path / "w.whl", [
        ("torch/version.py", hostile.STORED, text, 0xDEADBEEF, len(text))])
    assert "CRC mismatch" in _refused(wheel)


def test_an_unsupported_method_is_refused(tmp_path: Path) -> None:
    wheel = hostile.write_zip(tmp_path / "w.whl", [("torch/version.py", 14, b"x", 0, 1)])
    assert "unsupported compression method 14" in _refused(wheel)


def test_a_truncated_zip64_field_is_not_an_entry() -> None:
    name = b"torch/version.py"
    extra = struct.pack("<HH", 1, 4) + b"\0" * 4  # announces 8-byte sizes, holds 4
    entry = struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 45, 45, 0, 0, 0, 0, 0,
                        0xFFFFFFFF, 0xFFFFFFFF, len(name), len(extra), 0, 0, 0, 0, 0)
    assert zcd.parse_entry(entry + name + extra, 0) is None


def test_the_read_budget_stops_a_search_that_would_not_end(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path, V, members=6000, order="lex")
    assert "needs more than 3 reads" in _refused(
        wheel, zcd.Limits(max_size=1 << 16, max_compressed=1 << 16, max_reads=3))


def test_end_record_pointing_past_the_archive(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path, V, members=10)
    data = bytearray(wheel.read_bytes())
    eocd = data.rfind(b"PK\x05\x06")
    data[eocd + 12:eocd + 16] = struct.pack("<I", 1 << 30)  # cd_size
    wheel.write_bytes(bytes(data))
    assert "ends past the archive" in _refused(wheel)


def test_resynchronisation_is_linear_on_a_hostile_chunk(monkeypatch) -> None:
    """Entries that chain to garbage: every signature is a start, and each position is
    parsed once (re-trying each start afresh would be quadratic)."""
    names = [f"torch/x/{i:05d}.h" for i in range(2000)]
    cd, base = _cd_bytes(names)
    chunk = cd + b"garbage, not a partial entry" * 3
    calls = [0]
    real = zcd.parse_entry

    def counted(buf: bytes, pos: int):  # type: ignore[no-untyped-def]
        calls[0] += 1
        return real(buf, pos)

    monkeypatch.setattr(zcd, "parse_entry", counted)
    assert zcd.entries_in(chunk, base, aligned=False) == []
    assert calls[0] <= 2 * len(names) + 2
