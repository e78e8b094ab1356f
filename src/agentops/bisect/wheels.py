"""A nightly's commit from its wheel: ``torch/version.py`` read through HTTP range
requests on the zip's central directory (S-10b), so a multi-GB CUDA wheel costs a few
hundred KiB (how: ``central_directory``).

Adapter side of the I/O line: it only reads (GET), through the one transport
(``agentops.http``: retries, deadline, size caps, redirects, redaction), and counts
the body bytes it received. Every read is bounded by the size asked for. A server that
answers 200 to a ranged request gets a full download instead, within the documented
full-download limit (``AGENTOPS_HTTP_MAX_DOWNLOAD_MB``), streamed to a temporary file
that is always removed; the result says so (``full_download``) and a warning goes to
stderr.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any

from agentops import ghactions
from agentops import http as transport_mod
from agentops.bisect import central_directory as cd
from agentops.bisect import index as idx
from agentops.errors import DataError, InputError
from agentops.http import Response, Transport, TransportError, redact, short

USER_AGENT = "agentops-nightly-bisect"
TAIL_BYTES = cd.TAIL_BYTES
EOCD_MAX_BYTES = cd.EOCD_MAX_BYTES
VERSION_MEMBER = "torch/version.py"
# Sanity: a torch/version.py is a few hundred bytes; anything near these is not one.
VERSION_PY_LIMITS = cd.Limits(max_size=64 * 1024, max_compressed=64 * 1024)
DEFAULT_MAX_DOWNLOAD_MB = 1024


def transport(counter: transport_mod.CallCounter | None = None) -> Transport:
    """The transport for the package index and its wheels (the ``files`` policy)."""
    return Transport(service="files", user_agent=USER_AGENT, counter=counter)


def max_download(env: Mapping[str, str] | None = None) -> int:
    """Bytes a full download may take when a server ignores ``Range``."""
    env = os.environ if env is None else env
    raw = (env.get("AGENTOPS_HTTP_MAX_DOWNLOAD_MB") or "").strip()
    if not raw:
        return DEFAULT_MAX_DOWNLOAD_MB << 20
    if not raw.isdigit() or int(raw) < 1:
        raise InputError("AGENTOPS_HTTP_MAX_DOWNLOAD_MB", f"expected a whole number of MiB "
                         f">= 1, got {short(raw, 40)!r}",
                         fix=f"unset it (default {DEFAULT_MAX_DOWNLOAD_MB}) or give e.g. 4096")
    return int(raw) << 20


@dataclass(frozen=True)
class MemberRead:
    """One member's bytes and what it cost to get them."""

    data: bytes
    bytes_fetched: int
    requests: int
    full_download: bool
    archive_size: int | None
    cd_entries: int | None
    strategy: str  # tail | search | subtrees | scan | full


class _Ignored(Exception):
    """The server answered a ranged request with the whole file (200)."""

    def __init__(self, resp: Response) -> None:
        super().__init__("range ignored")
        self.resp = resp


class _HttpRanges:
    """Range reads of one URL; learns the size from ``Content-Range``."""

    def __init__(self, http: Transport, url: str) -> None:
        self.http, self.url = http, url
        self.size: int | None = None

    def _get(self, spec: str, length: int) -> tuple[int, bytes]:
        resp = self.http.request("GET", self.url, max_bytes=length, what="wheel range",
                                 headers={"Range": f"bytes={spec}",
                                          "Accept-Encoding": "identity"},
                                 unread={200})
        if resp.status == 200:
            raise _Ignored(resp)
        where = f"wheel range {redact(self.url)}"
        if resp.status != 206:
            raise TransportError(f"{where}: unexpected HTTP {resp.status}", kind="status",
                                 status_code=resp.status)
        m = re.fullmatch(r"bytes (\d+)-(\d+)/(\d+|\*)",
                         resp.headers.get("Content-Range", "").strip())
        if not m:
            raise TransportError(f"{where}: 206 without a usable Content-Range",
                                 kind="status", status_code=206,
                                 fix="the server's range support is broken; report it")
        start, end = int(m.group(1)), int(m.group(2))
        if m.group(3) != "*":
            self.size = int(m.group(3))
        body = resp.body or b""
        if end < start or len(body) != end - start + 1:
            raise TransportError(f"{where}: got {len(body)} bytes for {start}-{end}",
                                 kind="reset", fix="the connection was cut; rerun")
        return start, body

    def tail(self, n: int) -> tuple[int, bytes]:
        return self._get(f"-{n}", n)

    def read(self, start: int, length: int) -> bytes:
        got_start, body = self._get(f"{start}-{start + length - 1}", length)
        if got_start != start:
            raise TransportError(f"wheel range {redact(self.url)}: asked for offset {start}, "
                                 f"got {got_start}", kind="status", status_code=206)
        return body


class FileRanges:
    """Range reads of a local file (the full download)."""

    def __init__(self, fh: IO[bytes]) -> None:
        self.fh = fh
        self.size: int | None = fh.seek(0, os.SEEK_END)

    def tail(self, n: int) -> tuple[int, bytes]:
        assert self.size is not None  # Sanity: known from the seek above
        start = max(0, self.size - n)
        return start, self.read(start, self.size - start)

    def read(self, start: int, length: int) -> bytes:
        self.fh.seek(start)
        return self.fh.read(length)


def read_member(http: Transport, url: str, member: str, *,
                limits: cd.Limits = VERSION_PY_LIMITS) -> MemberRead:
    """The bytes of ``member`` inside the remote zip at ``url``, by range requests."""
    before_bytes, before_reqs = http.counter.body_bytes, http.counter.total
    ranges = _HttpRanges(http, url)
    try:
        found = cd.read_member(ranges, member, name=redact(url), limits=limits)
    except _Ignored as ignored:
        return _full_download(http, ignored.resp, url, member, limits=limits,
                              before_bytes=before_bytes, before_reqs=before_reqs)
    return MemberRead(data=found.data, bytes_fetched=http.counter.body_bytes - before_bytes,
                      requests=http.counter.total - before_reqs, full_download=False,
                      archive_size=ranges.size, cd_entries=found.entries,
                      strategy=found.strategy)


def _full_download(http: Transport, resp: Response, url: str, member: str, *,
                   limits: cd.Limits, before_bytes: int, before_reqs: int) -> MemberRead:
    cap = max_download()
    size = resp.content_length
    shown = redact(url)
    if size is not None and size > cap:
        resp.close()
        raise TransportError(
            f"wheel {shown}: the server ignored the Range header (HTTP 200) and the wheel "
            f"is {transport_mod.size_text(size)}, more than the "
            f"{transport_mod.size_text(cap)} a full download may take; nothing was "
            "downloaded", kind="too-large", status_code=200,
            fix="use an index that serves byte ranges, or raise "
                "AGENTOPS_HTTP_MAX_DOWNLOAD_MB")
    ghactions.warning(f"{shown}: the server ignored the Range header (HTTP 200); "
                      "downloading the whole wheel to read one file", title="full download")
    # Security: the temporary file goes away with the block, whatever happens.
    with tempfile.TemporaryFile(prefix="agentops-wheel-") as fh:
        try:
            total = resp.read_into(fh, cap)
        except TransportError as exc:
            raise TransportError(f"downloading {shown} failed: {exc.reason}; nothing was kept",
                                 kind=exc.kind, status_code=200,
                                 fix=exc.fix or "rerun; the server broke the download") from exc
        found = cd.read_member(FileRanges(fh), member, name=shown, limits=limits)
    return MemberRead(data=found.data, bytes_fetched=http.counter.body_bytes - before_bytes,
                      requests=http.counter.total - before_reqs, full_download=True,
                      archive_size=total, cd_entries=found.entries, strategy="full")


# --- torch/version.py ------------------------------------------------------------------

def parse_version_py(text: str, *, source: str) -> dict[str, Any]:
    """The top-level constants of ``torch/version.py`` (``__version__``,
    ``git_version``, ``cuda``, ``hip``, …), read with ``ast`` (never executed). A
    file the parser cannot take (too deep, too big, not Python) is a DataError."""
    where = redact(source)
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise DataError(where, VERSION_MEMBER, f"not valid Python: {short(str(exc), 200)}") \
            from exc
    except (RecursionError, MemoryError, ValueError) as exc:
        raise DataError(where, VERSION_MEMBER, "not a version file: the parser gave up "
                        f"({type(exc).__name__})") from exc
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
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            continue
        for t in targets:
            if isinstance(t, ast.Name):
                out[t.id] = const
    sha = out.get("git_version")
    if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{7,40}", sha):
        raise DataError(where, f"{VERSION_MEMBER}: git_version",
                        f"missing or not a commit sha: {short(repr(sha), 80)}")
    return out


@dataclass(frozen=True)
class Resolved:
    """A nightly's wheel and the commit it was built from."""

    version: str
    wheel_url: str  # redacted: it is printed
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


def resolve(http: Transport, nightly: idx.Nightly) -> Resolved:
    """Read ``torch/version.py`` from the nightly's wheel (range reads)."""
    got = read_member(http, nightly.wheel.url, VERSION_MEMBER)
    info = parse_version_py(got.data.decode("utf-8", errors="replace"), source=nightly.wheel.url)
    cuda = info.get("cuda")
    torch_version = info.get("__version__")
    return Resolved(version=str(nightly.version), wheel_url=redact(nightly.wheel.url),
                    git_version=info["git_version"],
                    cuda=short(str(cuda), 40) if cuda else None,
                    bytes_fetched=got.bytes_fetched, full_download=got.full_download,
                    requests=got.requests, strategy=got.strategy,
                    archive_size=got.archive_size,
                    torch_version=short(str(torch_version), 80) if torch_version else None)
