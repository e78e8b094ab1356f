"""The central-directory reader's pure parts: entry parsing and re-synchronisation,
and which unread stretches the tree-walk search may skip."""

from __future__ import annotations

import io
import zipfile

from agentops.bisect import central_directory as zcd


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
