"""HTTP access to a simple index and to remote wheels: list a project page (content
negotiation), and read one member of a wheel through range requests on the zip's
central directory (S-10b), so a multi-GB CUDA wheel costs a few hundred KiB.

Adapter side of the I/O line: it only reads (GET/HEAD), retries 5xx, timeouts and
resets with backoff, and counts the body bytes it received. What the bytes mean is
decided by ``index`` (pages) and by the caller (versions).

How one member is found without the whole central directory (CD):
1. One suffix range request (16 KiB) for the tail: end-of-central-directory record
   (and the zip64 locator/record), plus the last part of the CD.
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
5. One range read of the member's local header and data (CRC checked).
A server that answers 200 to a ranged request gets the full download instead; the
result says so (``full_download``) and a warning goes to stderr.
"""

from __future__ import annotations

import ast
import bz2
import dataclasses
import itertools
import os
import random
import re
import struct
import tempfile
import time
import zipfile
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import requests
from packaging.utils import canonicalize_name

from agentops import ghactions
from agentops.bisect import index as idx
from agentops.errors import ApiError, DataError, InputError

TAIL_BYTES = 16 * 1024
EOCD_MAX_BYTES = 22 + 0xFFFF + 20 + 56  # record + longest comment + zip64 locator/record
PROBE_BYTES = 8 * 1024
SUBTREE_PROBE_BYTES = 1024
SCAN_BYTES = 512 * 1024
LOCAL_SLACK = 1024
RETRYABLE = frozenset({500, 502, 503, 504})
USER_AGENT = "agentops-nightly-bisect"

_EOCD = b"PK\x05\x06"
_EOCD64_LOC = b"PK\x06\x07"
_EOCD64 = b"PK\x06\x06"
_CDH = b"PK\x01\x02"
_LFH = b"PK\x03\x04"
_CDH_FMT = "<4sHHHHHHIIIHHHHHII"  # 46 bytes
_CDH_LEN = struct.calcsize(_CDH_FMT)


@dataclass(frozen=True)
class HttpPolicy:
    """Retries and timeouts of the index/wheel reads (env ``AGENTOPS_HTTP_*``)."""

    attempts: int = 4
    base_delay: float = 1.0
    timeout: float = 30.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> HttpPolicy:
        env = os.environ if env is None else env
        try:
            return cls(attempts=max(1, int(env.get("AGENTOPS_HTTP_ATTEMPTS", cls.attempts))),
                       base_delay=float(env.get("AGENTOPS_HTTP_BACKOFF", cls.base_delay)),
                       timeout=float(env.get("AGENTOPS_HTTP_TIMEOUT", cls.timeout)))
        except ValueError as exc:
            raise InputError("AGENTOPS_HTTP_*", f"not a number: {exc}",
                             fix="unset it, or give seconds/attempts as numbers") from exc


class Http:
    """GETs with retry and a byte counter (body bytes, as received on the wire)."""

    def __init__(self, policy: HttpPolicy | None = None, *,
                 session: requests.Session | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.policy = policy or HttpPolicy.from_env()
        self.session = session or requests.Session()
        self.session.headers["User-Agent"] = USER_AGENT
        self.bytes = 0
        self.requests = 0
        self._sleep = sleep

    def get(self, url: str, *, headers: Mapping[str, str] | None = None,
            what: str = "GET", ranged: bool = False) -> tuple[requests.Response, bytes | None]:
        """GET ``url`` and read its body; 5xx, timeouts and resets (also mid-body) are
        retried with backoff, other errors raise ApiError naming the URL. With
        ``ranged``, a 200 (the server ignored ``Range``) comes back unread (body None)
        so the caller can stream it to disk."""
        last = ""
        for attempt in range(1, self.policy.attempts + 1):
            self.requests += 1
            try:
                resp = self.session.get(url, headers=dict(headers or {}), stream=True,
                                        timeout=self.policy.timeout, allow_redirects=True)
                if resp.status_code in RETRYABLE:
                    last = f"HTTP {resp.status_code}"
                    resp.close()
                elif resp.status_code >= 400:
                    status = resp.status_code
                    resp.close()
                    raise _http_error(what, url, status)
                elif ranged and resp.status_code == 200:
                    return resp, None
                else:
                    return resp, self.read_body(resp)
            except requests.exceptions.Timeout:
                last = f"timed out after {self.policy.timeout:g} s"
            except requests.exceptions.ChunkedEncodingError:
                last = "the connection broke mid-body"
            except requests.exceptions.ConnectionError as exc:
                last = ("timed out" if "timed out" in str(exc).lower()
                        else f"connection error: {exc.__class__.__name__}")
            if attempt < self.policy.attempts:
                delay = self.policy.base_delay * 2 ** (attempt - 1)
                delay *= 0.75 + random.random() / 2  # noqa: S311 - jitter, not crypto
                ghactions.notice(f"  retry {attempt}/{self.policy.attempts - 1} of {what} "
                                 f"{url} in {delay:.1f} s: {last}")
                self._sleep(delay)
        raise ApiError(f"{what} {url} failed after {self.policy.attempts} attempt(s): {last}",
                       fix="the server is down or slow; rerun later, or raise "
                           "AGENTOPS_HTTP_ATTEMPTS / AGENTOPS_HTTP_TIMEOUT")

    def read_body(self, resp: requests.Response, sink: Any = None) -> bytes:
        """Read (and count) a response body; into ``sink`` if given (returns b"")."""
        chunks: list[bytes] = []
        for chunk in resp.iter_content(chunk_size=1 << 16):
            self.bytes += len(chunk)
            if sink is not None:
                sink.write(chunk)
            else:
                chunks.append(chunk)
        return b"".join(chunks)


def _http_error(what: str, url: str, status: int) -> ApiError:
    fix = {404: "check the index URL, package and version (run `versions`)",
           403: "the server refused: the URL may need credentials or be private",
           416: "the server rejected the byte range; report it with the URL"}.get(status)
    return ApiError(f"{what} {url}: HTTP {status}", status_code=status, fix=fix)


# --- the index ------------------------------------------------------------------------

@dataclass(frozen=True)
class Page:
    """A fetched project page and what it listed."""

    url: str
    content_type: str
    links: tuple[idx.FileLink, ...]
    bytes: int


def fetch_page(http: Http, index_url: str, package: str) -> Page:
    """GET ``<index>/<package>/`` asking for JSON (PEP 691) first, HTML otherwise."""
    url = index_url.rstrip("/") + "/" + canonicalize_name(package) + "/"
    if not re.match(r"^https?://", url):
        raise InputError("--index-url", f"not an http(s) URL: {index_url!r}",
                         fix="give e.g. https://download.pytorch.org/whl/nightly/cpu")
    before = http.bytes
    resp, body = http.get(url, headers={"Accept": idx.ACCEPT}, what="index page")
    ctype = resp.headers.get("Content-Type", "text/html")
    text = (body or b"").decode("utf-8", errors="replace")
    links = idx.parse_page(text, ctype, resp.url or url)
    return Page(url=url, content_type=ctype.split(";")[0], links=tuple(links),
                bytes=http.bytes - before)


# --- the zip ------------------------------------------------------------------------

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
class MemberRead:
    """One member's bytes and what it cost to get them."""

    data: bytes
    bytes_fetched: int
    requests: int
    full_download: bool
    archive_size: int | None
    cd_entries: int | None
    strategy: str  # tail | search | scan | full


class _Ignored(Exception):
    """The server answered a ranged request with the whole file (200)."""

    def __init__(self, resp: requests.Response) -> None:
        super().__init__("range ignored")
        self.resp = resp


class _Ranges:
    """Range reads of one URL; remembers the size from ``Content-Range``."""

    def __init__(self, http: Http, url: str) -> None:
        self.http, self.url = http, url
        self.size: int | None = None
        self.held: tuple[int, bytes] = (0, b"")  # the tail, to serve reads inside it

    def _get(self, spec: str) -> tuple[int, bytes]:
        resp, body = self.http.get(self.url, headers={"Range": f"bytes={spec}",
                                                      "Accept-Encoding": "identity"},
                                   what="wheel range", ranged=True)
        if body is None:
            raise _Ignored(resp)
        if resp.status_code != 206:
            raise ApiError(f"wheel range {self.url}: unexpected HTTP {resp.status_code}",
                           status_code=resp.status_code)
        m = re.match(r"bytes (\d+)-(\d+)/(\d+|\*)", resp.headers.get("Content-Range", ""))
        if not m:
            raise ApiError(f"wheel range {self.url}: 206 without a usable Content-Range",
                           fix="the server's range support is broken; report it")
        start, end = int(m.group(1)), int(m.group(2))
        if m.group(3) != "*":
            self.size = int(m.group(3))
        if len(body) != end - start + 1:
            raise ApiError(f"wheel range {self.url}: got {len(body)} bytes for "
                           f"{start}-{end}", fix="the connection was cut; rerun")
        return start, body

    def tail(self, n: int) -> tuple[int, bytes]:
        self.held = self._get(f"-{n}")
        return self.held

    def read(self, start: int, length: int) -> bytes:
        if self.size is not None:
            length = min(length, self.size - start)
        if length <= 0:
            return b""
        h_start, h_body = self.held
        if h_start <= start and start + length <= h_start + len(h_body):
            return h_body[start - h_start:start + length - h_start]
        got_start, body = self._get(f"{start}-{start + length - 1}")
        if got_start != start:
            raise ApiError(f"wheel range {self.url}: asked for offset {start}, got {got_start}")
        return body


def _parse_eocd(tail: bytes, tail_start: int, url: str) -> tuple[int, int, int]:
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
        raise DataError(url, "end of central directory",
                        "not a zip archive (no end-of-central-directory record in the "
                        f"last {len(tail)} bytes)", fix="check that the URL is a wheel")
    loc = pos - 20
    if loc >= 0 and tail[loc:loc + 4] == _EOCD64_LOC:
        (_s, _disk, rec_off, _t) = struct.unpack("<4sIQI", tail[loc:loc + 20])
        rel = rec_off - tail_start
        if rel < 0 or tail[rel:rel + 4] != _EOCD64:
            raise DataError(url, "zip64 end record", "the zip64 locator points outside the "
                            "tail read, or at garbage")
        (_s, _sz, _vm, _vn, _d, _cdd, _nd, n, cd_size,
         cd_off) = struct.unpack("<4sQHHIIQQQQ", tail[rel:rel + 56])
    elif 0xFFFFFFFF in (cd_size, cd_off) or n == 0xFFFF:
        raise DataError(url, "zip64 end record", "the archive needs zip64 records but has none")
    return cd_off, cd_size, n


def _parse_entry(buf: bytes, pos: int) -> tuple[Entry, int] | None:
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
        usize, csize, off = _zip64_extra(extra, usize, csize, off)
    return Entry(name, method, crc, csize, usize, off, flags, xlen, clen), end


def _zip64_extra(extra: bytes, usize: int, csize: int, off: int) -> tuple[int, int, int]:
    i = 0
    while i + 4 <= len(extra):
        hid, hlen = struct.unpack("<HH", extra[i:i + 4])
        if hid == 0x0001:
            data, j = extra[i + 4:i + 4 + hlen], 0
            vals = []
            for v in (usize, csize, off):
                if v == 0xFFFFFFFF:
                    vals.append(struct.unpack("<Q", data[j:j + 8])[0])
                    j += 8
                else:
                    vals.append(v)
            return vals[0], vals[1], vals[2]
        i += 4 + hlen
    return usize, csize, off


class _Span(NamedTuple):
    """One parsed entry and where it sits in the file: [start, end)."""

    start: int
    end: int
    entry: Entry


def _entries_in(buf: bytes, base: int, *, aligned: bool) -> list[_Span]:
    """The whole entries in ``buf`` (which starts at file offset ``base``). An
    unaligned chunk is synchronised on the first signature from which entries chain up
    to the end of the buffer (leaving at most one partial entry): a stray
    ``PK\\1\\2`` inside a name or extra field does not chain."""
    starts = [0] if aligned else [m.start() for m in re.finditer(re.escape(_CDH), buf)]
    for start in starts:
        out, pos = [], start
        while (parsed := _parse_entry(buf, pos)) is not None:
            out.append(_Span(base + pos, base + parsed[1], parsed[0]))
            pos = parsed[1]
        rest = buf[pos:]
        partial = len(rest) < 4 or rest.startswith(_CDH) or _CDH.startswith(rest[:4])
        if out and (aligned or partial):
            return out
    return []


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


class _Finder:
    """Locates one entry in a remote CD with as few bytes as the order allows."""

    def __init__(self, ranges: _Ranges, target: str, cd_start: int) -> None:
        self.ranges, self.target, self.cd_start = ranges, target, cd_start
        self.spans: dict[int, _Span] = {}  # start -> every entry parsed so far
        self.strategy = "tail"

    def take(self, spans: list[_Span]) -> Entry | None:
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
            spans = _entries_in(self.ranges.read(mid, PROBE_BYTES), mid, aligned=False)
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
        return self.take(_entries_in(self.ranges.read(lo, hi - lo), lo, aligned=aligned_lo))

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
                spans = [sp for sp in _entries_in(self.ranges.read(mid, SUBTREE_PROBE_BYTES),
                                                  mid, aligned=False)
                         if start <= sp.start < end]
            if not spans:  # small gap, or one entry larger than a probe: read it whole
                spans = _entries_in(self.ranges.read(start, size), start, aligned=True)
                if not spans:
                    return None  # Sanity: a gap between boundaries parses, or we stop
            hit = self.take(spans)
            if hit is not None:
                return hit

    def scan(self, lo: int, hi: int) -> Entry | None:
        """Read [lo, hi) backwards in large chunks (any order); ``hi`` on a boundary."""
        self.strategy = "scan"
        end, carry = hi, b""
        while end > lo:
            start = max(lo, end - SCAN_BYTES)
            buf = self.ranges.read(start, end - start) + carry
            spans = _entries_in(buf, start, aligned=start == self.cd_start)
            hit = self.take(spans)
            if hit is not None:
                return hit
            first = spans[0].start - start if spans else len(buf)
            carry, end = buf[:first], start
        return None


def read_member(http: Http, url: str, member: str) -> MemberRead:
    """The bytes of ``member`` inside the remote zip at ``url`` (see module doc)."""
    before_bytes, before_reqs = http.bytes, http.requests
    ranges = _Ranges(http, url)
    try:
        tail_start, tail = ranges.tail(TAIL_BYTES)
        try:
            cd_off, cd_size, n = _parse_eocd(tail, tail_start, url)
        except DataError:
            if tail_start == 0:
                raise
            # An archive comment (up to 64 KiB) can push the end record out of the
            # first tail read: read the largest tail it can need, once.
            tail_start, tail = ranges.tail(EOCD_MAX_BYTES)
            cd_off, cd_size, n = _parse_eocd(tail, tail_start, url)
        cd_end = cd_off + cd_size
        finder = _Finder(ranges, member, cd_off)
        # The part of the CD inside the tail we already hold.
        if tail_start <= cd_off:
            held = _entries_in(tail[cd_off - tail_start:cd_end - tail_start], cd_off,
                               aligned=True)
        else:
            held = _entries_in(tail[:max(0, cd_end - tail_start)], tail_start, aligned=False)
        entry = finder.take(held)
        unread_hi = held[0].start if held else cd_end
        if entry is None and unread_hi > cd_off:
            entry = finder.search(cd_off, unread_hi)
            if entry is None:
                entry = finder.subtrees(unread_hi)
            if entry is None:  # not a tree-walk order after all: read it all
                entry = finder.scan(cd_off, unread_hi)
        if entry is None:
            raise DataError(url, member, f"not in the wheel ({n} members)",
                            fix=f"is this a torch wheel? (it must ship {member})")
        data = _read_local(ranges, entry, url)
        return MemberRead(data=data, bytes_fetched=http.bytes - before_bytes,
                          requests=http.requests - before_reqs, full_download=False,
                          archive_size=ranges.size, cd_entries=n, strategy=finder.strategy)
    except _Ignored as ignored:
        return _full_download(http, ignored.resp, url, member, before_bytes=before_bytes,
                              before_reqs=before_reqs)


def _read_local(ranges: _Ranges, e: Entry, url: str) -> bytes:
    want = 30 + len(e.name.encode()) + LOCAL_SLACK + e.comp_size
    buf = ranges.read(e.local_offset, want)
    if buf[:4] != _LFH:
        raise DataError(url, e.name, "the local header is not where the central directory "
                        "says (a corrupt or concatenated archive)")
    nlen, xlen = struct.unpack("<HH", buf[26:30])
    start = 30 + nlen + xlen
    if start + e.comp_size > len(buf):
        buf += ranges.read(e.local_offset + len(buf), start + e.comp_size - len(buf))
    return _inflate(buf[start:start + e.comp_size], e, url)


def _inflate(raw: bytes, e: Entry, url: str) -> bytes:
    if e.flags & 0x1:
        raise DataError(url, e.name, "the member is encrypted")
    if e.method == zipfile.ZIP_STORED:
        data = raw
    elif e.method == zipfile.ZIP_DEFLATED:
        data = zlib.decompressobj(-15).decompress(raw)
    elif e.method == zipfile.ZIP_BZIP2:
        data = bz2.decompress(raw)
    else:
        raise DataError(url, e.name, f"unsupported compression method {e.method}")
    if zlib.crc32(data) != e.crc:
        raise DataError(url, e.name, "CRC mismatch: the bytes read are not the member",
                        fix="the wheel changed while being read, or the server served "
                            "wrong ranges; rerun")
    return data


def _full_download(http: Http, resp: requests.Response, url: str, member: str, *,
                   before_bytes: int, before_reqs: int) -> MemberRead:
    ghactions.warning(f"{url}: the server ignored the Range header (HTTP 200); "
                      "downloading the whole wheel to read one file", title="full download")
    with tempfile.TemporaryFile(prefix="agentops-wheel-") as fh:
        try:
            http.read_body(resp, sink=fh)
        except (requests.exceptions.RequestException, OSError) as exc:
            raise ApiError(f"downloading {url} failed: {exc}",
                           fix="rerun; the server broke the download") from exc
        fh.seek(0)
        try:
            with zipfile.ZipFile(fh) as zf:
                try:
                    data = zf.read(member)
                except KeyError:
                    raise DataError(url, member, f"not in the wheel ({len(zf.infolist())} "
                                    "members)", fix="is this a torch wheel?") from None
                entries = len(zf.infolist())
        except zipfile.BadZipFile as exc:
            raise DataError(url, "", f"not a zip archive: {exc}") from exc
        size = fh.seek(0, os.SEEK_END)
    return MemberRead(data=data, bytes_fetched=http.bytes - before_bytes,
                      requests=http.requests - before_reqs, full_download=True,
                      archive_size=size, cd_entries=entries, strategy="full")


# --- torch/version.py ------------------------------------------------------------------

VERSION_MEMBER = "torch/version.py"


def parse_version_py(text: str, *, source: str) -> dict[str, Any]:
    """The top-level constants of ``torch/version.py`` (``__version__``,
    ``git_version``, ``cuda``, ``hip``, …), read with ``ast`` (never executed)."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise DataError(source, VERSION_MEMBER, f"not valid Python: {exc}") from exc
    out: dict[str, Any] = {}
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        try:
            const = ast.literal_eval(value)
        except ValueError:
            continue
        for t in targets:
            if isinstance(t, ast.Name):
                out[t.id] = const
    sha = out.get("git_version")
    if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{7,40}", sha):
        raise DataError(source, f"{VERSION_MEMBER}: git_version",
                        f"missing or not a commit sha: {sha!r}")
    return out


@dataclass(frozen=True)
class Resolved:
    """A nightly's wheel and the commit it was built from."""

    version: str
    wheel_url: str
    git_version: str
    cuda: str | None
    bytes_fetched: int
    full_download: bool
    requests: int
    strategy: str
    archive_size: int | None
    torch_version: str | None

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        if self.cuda is None:
            del out["cuda"]
        return out


def resolve(http: Http, nightly: idx.Nightly) -> Resolved:
    """Read ``torch/version.py`` from the nightly's wheel (range reads)."""
    got = read_member(http, nightly.wheel.url, VERSION_MEMBER)
    info = parse_version_py(got.data.decode("utf-8", errors="replace"), source=nightly.wheel.url)
    cuda = info.get("cuda")
    return Resolved(version=str(nightly.version), wheel_url=nightly.wheel.url,
                    git_version=info["git_version"],
                    cuda=str(cuda) if cuda else None, bytes_fetched=got.bytes_fetched,
                    full_download=got.full_download, requests=got.requests,
                    strategy=got.strategy, archive_size=got.archive_size,
                    torch_version=str(info.get("__version__") or "") or None)
