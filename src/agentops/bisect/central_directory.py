"""One member of a zip archive read through its central directory (CD), from any
source of byte ranges: HTTP range requests on a remote wheel (``wheels``), or a local
file after a full download. Nothing here opens a socket or a file.

How one member is found without the whole CD (S-10b):
1. The tail (one read): the end-of-central-directory record (and the zip64 locator
   and record), plus the last part of the CD.
2. If the member is not there and the names seen so far are sorted (lexicographic,
   or the directory-walk order of setuptools' wheel writer: a directory's files before
   its subdirectories), a binary search over the CD with 8 KiB reads, each
   re-synchronised on entry boundaries.
3. Else, if they fit any tree-walk order (PyTorch's Linux wheels are re-zipped with
   `zip -r`: depth first, siblings in readdir order), a search that prunes: every
   subtree is one contiguous run, so a stretch between two entries of a directory that
   cannot hold the member is skipped unread; 1 KiB probes find the subtree boundaries.
4. Else (arbitrary order), the rest of the CD is read backwards in 512 KiB chunks:
   correct, but up to the whole CD (~2 MB for a CUDA wheel).
5. One read of the member's local header and data, inflated within a size cap
   (a deflate or bzip2 bomb stops at the cap), CRC checked.

Bounded for hostile archives: reads and bytes per member (``Budget``), the member's
compressed and uncompressed size, and re-synchronisation is linear in the chunk.
"""

from __future__ import annotations

import bz2
import itertools
import re
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from agentops.errors import DataError

TAIL_BYTES = 16 * 1024
EOCD_MAX_BYTES = 22 + 0xFFFF + 20 + 56  # record + longest comment + zip64 locator/record
PROBE_BYTES = 8 * 1024
SUBTREE_PROBE_BYTES = 1024
SCAN_BYTES = 512 * 1024
LOCAL_SLACK = 1024
# Sanity: a real CUDA wheel's CD is about 2 MB and the `zip -r` search needs ~140
# reads for 20k members; past these an archive is hostile or not a wheel.
MAX_READS = 1000
MAX_CD_BYTES = 16 * 1024 * 1024

STORED, DEFLATED, BZIP2 = 0, 8, 12

_EOCD = b"PK\x05\x06"
_EOCD64_LOC = b"PK\x06\x07"
_EOCD64 = b"PK\x06\x06"
_CDH = b"PK\x01\x02"
_LFH = b"PK\x03\x04"
_CDH_FMT = "<4sHHHHHHIIIHHHHHII"  # 46 bytes
_CDH_LEN = struct.calcsize(_CDH_FMT)


class Source(Protocol):
    """Byte ranges of one archive. ``size`` is known after the first read."""

    size: int | None

    def tail(self, n: int) -> tuple[int, bytes]:
        """The last ``n`` bytes (fewer if the archive is smaller) and where they start."""
        ...

    def read(self, start: int, length: int) -> bytes:
        """``length`` bytes from ``start`` (fewer only at the end of the archive)."""
        ...


@dataclass(frozen=True)
class Limits:
    """What one member read may cost and what the member may be."""

    max_size: int  # uncompressed bytes of the member
    max_compressed: int  # compressed bytes of the member
    max_reads: int = MAX_READS
    max_cd_bytes: int = MAX_CD_BYTES


@dataclass(frozen=True)
class Entry:
    """One central-directory entry (sizes and offset with zip64 applied)."""

    name: str
    method: int
    crc: int
    comp_size: int
    size: int
    local_offset: int
    flags: int
    xlen: int = 0  # extra-field and comment lengths: where the next entry starts
    clen: int = 0


@dataclass(frozen=True)
class Found:
    """One member's bytes and how it was found."""

    data: bytes
    entries: int  # members the end record declares
    strategy: str  # tail | search | subtrees | scan


class _Budgeted:
    """A source that counts reads and bytes against the limits (reads the tail
    already served cost nothing)."""

    def __init__(self, source: Source, limits: Limits, name: str) -> None:
        self.source, self.limits, self.name = source, limits, name
        self.reads = 0
        self.bytes = 0
        self.held: tuple[int, bytes] = (0, b"")

    @property
    def size(self) -> int | None:
        return self.source.size

    def tail(self, n: int) -> tuple[int, bytes]:
        self._spend(n)
        self.held = self.source.tail(n)
        return self.held

    def read(self, start: int, length: int) -> bytes:
        size = self.source.size
        if size is not None:
            length = min(length, size - start)
        if length <= 0:
            return b""
        h_start, h_body = self.held
        if h_start <= start and start + length <= h_start + len(h_body):
            return h_body[start - h_start:start + length - h_start]
        self._spend(length)
        return self.source.read(start, length)

    def _spend(self, n: int) -> None:
        self.reads += 1
        self.bytes += n
        if self.reads > self.limits.max_reads or self.bytes > self.limits.max_cd_bytes:
            raise DataError(self.name, "central directory",
                            f"finding one member needs more than {self.limits.max_reads} "
                            f"reads or {self.limits.max_cd_bytes >> 20} MiB: a hostile or "
                            "broken archive, not a wheel this reader accepts",
                            fix="check that the URL is a torch wheel")


def parse_eocd(tail: bytes, tail_start: int, name: str) -> tuple[int, int, int]:
    """(cd_offset, cd_size, entries) from the end records in ``tail``."""
    pos = tail.rfind(_EOCD)
    while pos >= 0:
        if pos + 22 <= len(tail):
            (_sig, _d, _cd_d, _n_d, n, cd_size, cd_off,
             clen) = struct.unpack("<4sHHHHIIH", tail[pos:pos + 22])
            if pos + 22 + clen == len(tail):
                break
        pos = tail.rfind(_EOCD, 0, pos)
    if pos < 0:
        raise DataError(name, "end of central directory",
                        "not a zip archive (no end-of-central-directory record in the "
                        f"last {len(tail)} bytes)", fix="check that the URL is a wheel")
    loc = pos - 20
    if loc >= 0 and tail[loc:loc + 4] == _EOCD64_LOC:
        (_s, _disk, rec_off, _t) = struct.unpack("<4sIQI", tail[loc:loc + 20])
        rel = rec_off - tail_start
        if rel < 0 or rel + 56 > len(tail) or tail[rel:rel + 4] != _EOCD64:
            raise DataError(name, "zip64 end record", "the zip64 locator points outside the "
                            "tail read, or at garbage")
        (_s, _sz, _vm, _vn, _d, _cdd, _nd, n, cd_size,
         cd_off) = struct.unpack("<4sQHHIIQQQQ", tail[rel:rel + 56])
    elif 0xFFFFFFFF in (cd_size, cd_off) or n == 0xFFFF:
        raise DataError(name, "zip64 end record", "the archive needs zip64 records but has none")
    return cd_off, cd_size, n


def parse_entry(buf: bytes, pos: int) -> tuple[Entry, int] | None:
    """The entry at ``pos`` and the position after it; None if ``buf`` ends first or
    the bytes there are not an entry."""
    if pos + _CDH_LEN > len(buf) or buf[pos:pos + 4] != _CDH:
        return None
    (_sig, _vm, _vn, flags, method, _t, _d, crc, csize, usize, nlen, xlen, clen, _disk,
     _ia, _ea, off) = struct.unpack(_CDH_FMT, buf[pos:pos + _CDH_LEN])
    end = pos + _CDH_LEN + nlen + xlen + clen
    if end > len(buf) or nlen == 0:
        return None
    raw = buf[pos + _CDH_LEN:pos + _CDH_LEN + nlen]
    name = raw.decode("utf-8" if flags & 0x800 else "cp437", errors="replace")
    extra = buf[pos + _CDH_LEN + nlen:pos + _CDH_LEN + nlen + xlen]
    if 0xFFFFFFFF in (csize, usize, off):
        sizes = _zip64_extra(extra, usize, csize, off)
        if sizes is None:
            return None
        usize, csize, off = sizes
    return Entry(name, method, crc, csize, usize, off, flags, xlen, clen), end


def _zip64_extra(extra: bytes, usize: int, csize: int,
                 off: int) -> tuple[int, int, int] | None:
    i = 0
    while i + 4 <= len(extra):
        hid, hlen = struct.unpack("<HH", extra[i:i + 4])
        if hid == 0x0001:
            data, j = extra[i + 4:i + 4 + hlen], 0
            vals = []
            for v in (usize, csize, off):
                if v == 0xFFFFFFFF:
                    if j + 8 > len(data):
                        return None  # Sanity: a truncated zip64 field is not an entry
                    vals.append(struct.unpack("<Q", data[j:j + 8])[0])
                    j += 8
                else:
                    vals.append(v)
            return vals[0], vals[1], vals[2]
        i += 4 + hlen
    return usize, csize, off


class Span(NamedTuple):
    """One parsed entry and where it sits in the file: [start, end)."""

    start: int
    end: int
    entry: Entry


def entries_in(buf: bytes, base: int, *, aligned: bool) -> list[Span]:
    """The whole entries in ``buf`` (which starts at file offset ``base``). An
    unaligned chunk is synchronised on the first signature from which entries chain up
    to the end of the buffer (leaving at most one partial entry): a stray
    ``PK\\1\\2`` inside a name or extra field does not chain."""
    if aligned:
        return _chain(buf, 0, base)
    # Where the chain from each position stops: a chain is fixed by its start, so each
    # position is parsed once however many signatures point into one chain (linear,
    # where trying every signature afresh is quadratic on a hostile chunk).
    stops: dict[int, int] = {}
    for m in re.finditer(re.escape(_CDH), buf):
        start = m.start()
        path, pos = [], start
        while pos not in stops:
            parsed = parse_entry(buf, pos)
            if parsed is None:
                stops[pos] = pos
                break
            path.append(pos)
            pos = parsed[1]
        stop = stops[pos]
        for p in path:
            stops[p] = stop
        rest = buf[stop:]
        partial = len(rest) < 4 or rest.startswith(_CDH) or _CDH.startswith(rest[:4])
        if stop != start and partial:
            return _chain(buf, start, base)
    return []


def _chain(buf: bytes, pos: int, base: int) -> list[Span]:
    out = []
    while (parsed := parse_entry(buf, pos)) is not None:
        out.append(Span(base + pos, base + parsed[1], parsed[0]))
        pos = parsed[1]
    return out


def _walk_key(name: str) -> tuple[tuple[int, str], ...]:
    # setuptools' wheel writer walks directories sorted, writing a directory's files
    # before descending into its subdirectories.
    parts = name.split("/")
    return (*((1, p) for p in parts[:-1]), (0, parts[-1]))


def _lex_key(name: str) -> str:
    return name


_ORDERS: tuple[Callable[[str], Any], ...] = (_walk_key, _lex_key)


def _searchable(name: str) -> bool:
    # dist-info files are written last whatever the order, and directory entries
    # ("a/b/") are optional; neither says anything about the order of the rest.
    top = name.split("/", 1)[0]
    return not top.endswith(".dist-info") and not name.endswith("/")


def _common_dir(a: str, b: str) -> str:
    """The deepest directory holding both paths ("" for the archive root)."""
    pa, pb = a.split("/")[:-1], b.split("/")[:-1]
    common = []
    for x, y in zip(pa, pb, strict=False):
        if x != y:
            break
        common.append(x)
    return "/".join(common)


class Finder:
    """Locates one entry in a remote CD with as few bytes as the order allows."""

    def __init__(self, ranges: Source, target: str, cd_start: int) -> None:
        self.ranges, self.target, self.cd_start = ranges, target, cd_start
        self.spans: dict[int, Span] = {}  # start -> every entry parsed so far
        self.strategy = "tail"

    def take(self, spans: list[Span]) -> Entry | None:
        hit = None
        for sp in spans:
            self.spans[sp.start] = sp
            if sp.entry.name == self.target:
                hit = sp.entry
        return hit

    def consistent(self, key: Callable[[str], Any]) -> bool:
        """True if every name seen so far is in archive order under ``key``."""
        keys = [key(sp.entry.name) for _, sp in sorted(self.spans.items())
                if _searchable(sp.entry.name)]
        return all(a <= b for a, b in itertools.pairwise(keys))

    def search(self, lo: int, hi: int) -> Entry | None:
        """Binary search in [lo, hi) (unread CD bytes, ``hi`` on an entry boundary)
        under each sort order that fits the names seen so far; None when none fits or
        every guess was wrong."""
        for key in _ORDERS:
            if self.consistent(key):
                hit = self._search(lo, hi, key)
                if hit is not None:
                    return hit
        return None

    def _search(self, lo: int, hi: int, key: Callable[[str], Any]) -> Entry | None:
        self.strategy = "search"
        aligned_lo = lo == self.cd_start
        while hi - lo > 2 * PROBE_BYTES:
            if not self.consistent(key):
                return None
            mid = lo + (hi - lo) // 2
            spans = entries_in(self.ranges.read(mid, PROBE_BYTES), mid, aligned=False)
            hit = self.take(spans)
            if hit is not None:
                return hit
            named = [sp for sp in spans if _searchable(sp.entry.name)]
            if not named:
                return None
            want = key(self.target)
            if want < key(named[0].entry.name):
                hi = spans[0].start
            elif want > key(named[-1].entry.name):
                lo, aligned_lo = spans[-1].end, True
            else:
                return None  # between two neighbours: absent, or the order guess is wrong
        if hi <= lo:
            return None
        return self.take(entries_in(self.ranges.read(lo, hi - lo), lo, aligned=aligned_lo))

    def gaps(self, hi: int) -> list[tuple[int, int, bool]]:
        """The unread stretches of [cd_start, hi) as (start, end, may_hold_target): a
        stretch between two entries of one subtree that cannot hold the target is
        ruled out, because every tree-walk order (sorted, os.walk, `zip -r` in readdir
        order) writes a subtree as one contiguous run."""
        target_dir = self.target.rsplit("/", 1)[0] if "/" in self.target else ""
        out, pos, prev = [], self.cd_start, None
        for start, sp in sorted(self.spans.items()):
            if start >= hi:
                break
            if start > pos:
                may = True
                if prev is not None:
                    d = _common_dir(prev.entry.name, sp.entry.name)
                    may = not d or target_dir == d or target_dir.startswith(d + "/")
                out.append((pos, start, may))
            pos, prev = max(pos, sp.end), sp
        if pos < hi:
            out.append((pos, hi, True))
        return out

    def tree_walk(self) -> bool:
        """True if the names seen so far fit a tree-walk order: once the walk has left
        a directory, nothing under it comes again."""
        closed: set[str] = set()
        prev: list[str] = []
        for _, sp in sorted(self.spans.items()):
            name = sp.entry.name
            if not _searchable(name):
                continue
            parts = name.split("/")[:-1]
            dirs = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
            if closed.intersection(dirs):
                return False
            closed.update(set(prev) - set(dirs))
            prev = dirs
        return True

    def subtrees(self, hi: int) -> Entry | None:
        """Probe the stretches that may hold the target, largest first, until it is
        found or every stretch is read or ruled out. Works for any tree-walk order,
        whatever the order of siblings inside a directory."""
        self.strategy = "subtrees"
        probes = 0
        while True:
            # Not a tree walk after all: the pruning would skip blindly, so the caller
            # scans. Checked every few probes only: a late discovery costs bytes, never
            # correctness (a failed search ends in the scan).
            if probes % 8 == 0 and not self.tree_walk():
                return None
            probes += 1
            open_gaps = [(e - s, s, e) for s, e, may in self.gaps(hi) if may]
            if not open_gaps:
                return None
            size, start, end = max(open_gaps)
            spans = []
            if size > 2 * SUBTREE_PROBE_BYTES:
                # A small read in the middle says which subtree is there.
                mid = start + size // 2
                spans = [sp for sp in entries_in(self.ranges.read(mid, SUBTREE_PROBE_BYTES),
                                                 mid, aligned=False)
                         if start <= sp.start < end]
            if not spans:  # small gap, or one entry larger than a probe: read it whole
                spans = entries_in(self.ranges.read(start, size), start, aligned=True)
                if not spans:
                    return None  # Sanity: a gap between boundaries parses, or we stop
            hit = self.take(spans)
            if hit is not None:
                return hit

    def scan(self, lo: int, hi: int) -> Entry | None:
        """Read [lo, hi) backwards in large chunks (any order); ``hi`` on a boundary.
        The entries are checked, not kept: the whole CD may pass through here."""
        self.strategy = "scan"
        end, carry = hi, b""
        while end > lo:
            start = max(lo, end - SCAN_BYTES)
            buf = self.ranges.read(start, end - start) + carry
            spans = entries_in(buf, start, aligned=start == self.cd_start)
            for sp in spans:
                if sp.entry.name == self.target:
                    return sp.entry
            first = spans[0].start - start if spans else len(buf)
            if first > SCAN_BYTES + LOCAL_SLACK + 0xFFFF * 3:
                return None  # Sanity: no entry boundary in a whole chunk: not a CD
            carry, end = buf[:first], start
        return None


def read_member(source: Source, member: str, *, name: str, limits: Limits) -> Found:
    """The bytes of ``member`` inside the archive behind ``source`` (module doc);
    ``name`` is how messages call the archive (a redacted URL)."""
    ranges = _Budgeted(source, limits, name)
    tail_start, tail = ranges.tail(TAIL_BYTES)
    try:
        cd_off, cd_size, n = parse_eocd(tail, tail_start, name)
    except DataError:
        if tail_start == 0:
            raise
        # An archive comment (up to 64 KiB) can push the end record out of the first
        # tail read: read the largest tail it can need, once.
        tail_start, tail = ranges.tail(EOCD_MAX_BYTES)
        cd_off, cd_size, n = parse_eocd(tail, tail_start, name)
    cd_end = cd_off + cd_size
    size = ranges.size
    if size is not None and cd_end > size:
        raise DataError(name, "end of central directory", f"the central directory "
                        f"({cd_off}+{cd_size}) ends past the archive ({size} bytes)",
                        fix="check that the URL is a wheel (a truncated download?)")
    finder = Finder(ranges, member, cd_off)
    # The part of the CD inside the tail we already hold.
    if tail_start <= cd_off:
        held = entries_in(tail[cd_off - tail_start:cd_end - tail_start], cd_off, aligned=True)
    else:
        held = entries_in(tail[:max(0, cd_end - tail_start)], tail_start, aligned=False)
    entry = finder.take(held)
    unread_hi = held[0].start if held else cd_end
    if entry is None and unread_hi > cd_off:
        entry = finder.search(cd_off, unread_hi)
        if entry is None:
            entry = finder.subtrees(unread_hi)
        if entry is None:  # not a tree-walk order after all: read it all
            entry = finder.scan(cd_off, unread_hi)
    if entry is None:
        raise DataError(name, member, f"not in the wheel ({n} members)",
                        fix=f"is this a torch wheel? (it must ship {member})")
    data = _read_local(ranges, entry, name, limits)
    return Found(data=data, entries=n, strategy=finder.strategy)


def _read_local(ranges: _Budgeted, e: Entry, name: str, limits: Limits) -> bytes:
    if e.size > limits.max_size:
        raise DataError(name, e.name, f"the member is {e.size} bytes, more than the "
                        f"{limits.max_size} bytes such a file can be: a hostile or broken "
                        "wheel", fix="check that the URL is a torch wheel")
    if e.comp_size > limits.max_compressed:
        raise DataError(name, e.name, f"the member takes {e.comp_size} compressed bytes, "
                        f"more than the {limits.max_compressed} such a file can take: a "
                        "hostile or broken wheel", fix="check that the URL is a torch wheel")
    want = 30 + len(e.name.encode()) + LOCAL_SLACK + e.comp_size
    buf = ranges.read(e.local_offset, want)
    if len(buf) < 30 or buf[:4] != _LFH:
        raise DataError(name, e.name, "the local header is not where the central directory "
                        "says (a corrupt or concatenated archive)")
    nlen, xlen = struct.unpack("<HH", buf[26:30])
    start = 30 + nlen + xlen
    if start + e.comp_size > len(buf):
        buf += ranges.read(e.local_offset + len(buf), start + e.comp_size - len(buf))
    if start + e.comp_size > len(buf):
        raise DataError(name, e.name, "the member's data ends past the archive")
    return inflate(buf[start:start + e.comp_size], e, name, max_size=limits.max_size)


def inflate(raw: bytes, e: Entry, name: str, *, max_size: int) -> bytes:
    """The member's bytes, never more than ``max_size`` of them decompressed (a bomb
    stops at the cap), CRC and size checked."""
    if e.flags & 0x1:
        raise DataError(name, e.name, "the member is encrypted")
    try:
        if e.method == STORED:
            data = raw[:max_size + 1]
        elif e.method == DEFLATED:
            data = zlib.decompressobj(-15).decompress(raw, max_size + 1)
        elif e.method == BZIP2:
            data = bz2.BZ2Decompressor().decompress(raw, max_length=max_size + 1)
        else:
            raise DataError(name, e.name, f"unsupported compression method {e.method}")
    except (zlib.error, OSError, EOFError) as exc:
        raise DataError(name, e.name, f"the compressed data is corrupt: {exc}") from exc
    if len(data) > max_size:
        raise DataError(name, e.name, f"decompresses to more than {max_size} bytes (a "
                        "compression bomb, or not the file it should be); stopped there",
                        fix="check that the URL is a torch wheel")
    if len(data) != e.size or zlib.crc32(data) != e.crc:
        raise DataError(name, e.name, "CRC mismatch: the bytes read are not the member",
                        fix="the wheel changed while being read, or the server served "
                            "wrong ranges; rerun")
    return data
