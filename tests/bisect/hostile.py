"""Hostile wheels and index pages for the nightly bisect (issue #12 items 4-7), made on
the fly (never stored): compression bombs in torch/version.py, central directories
that lie about sizes, a huge version.py, and index pages that are too deep, ill-typed
or too large. Used by the tests (small sizes) and by benchmarks/hostile_bisect.py
(the sizes of the audit)."""

from __future__ import annotations

import bz2
import functools
import json
import struct
import zlib
from pathlib import Path

from tests.bisect.server import VERSION_PY, fake_sha, wheel_name

STORED, DEFLATED, BZIP2 = 0, 8, 12


@functools.lru_cache(maxsize=8)
def compressed_zeros(size: int, method: int) -> tuple[bytes, int]:
    """``size`` zero bytes compressed with ``method``, and their CRC-32."""
    block = b"\0" * (1 << 20)
    crc, left, out = 0, size, []
    comp = bz2.BZ2Compressor(9) if method == BZIP2 else zlib.compressobj(9, zlib.DEFLATED, -15)
    while left > 0:
        chunk = block[:min(left, len(block))]
        crc = zlib.crc32(chunk, crc)
        out.append(comp.compress(chunk))
        left -= len(chunk)
    out.append(comp.flush())
    return b"".join(out), crc


def write_zip(path: Path, members: list[tuple[str, int, bytes, int, int]]) -> Path:
    """A zip of ``(name, method, raw, crc, declared_size)`` members, written as given:
    the sizes the directory declares need not be true."""
    local, central = bytearray(), bytearray()
    for name, method, raw, crc, size in members:
        offset = len(local)
        fname = name.encode()
        local += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, method, 0, 0x21,
                             crc, len(raw), size, len(fname), 0) + fname + raw
        central += struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, method, 0,
                               0x21, crc, len(raw), size, len(fname), 0, 0, 0, 0, 0,
                               offset) + fname
    eocd = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(members), len(members),
                       len(central), len(local), 0)
    path.write_bytes(bytes(local + central + eocd))
    return path


def _filler(version: str) -> list[tuple[str, int, bytes, int, int]]:
    text = b"from torch.version import __version__\n"
    dist = f"torch-{version.split('+', 1)[0]}.dist-info"
    return [("torch/__init__.py", STORED, text, zlib.crc32(text), len(text)),
            (f"{dist}/METADATA", STORED, b"Name: torch\n", zlib.crc32(b"Name: torch\n"), 12)]


def bomb_wheel(directory: Path, version: str, *, method: int = DEFLATED,
               size: int = 1 << 30, lie: bool = False) -> Path:
    """torch/version.py as ``size`` zero bytes compressed with ``method``; with
    ``lie`` the directory declares 300 bytes, so only the inflate cap can stop it."""
    raw, crc = compressed_zeros(size, method)
    members = [("torch/version.py", method, raw, crc, 300 if lie else size),
               *_filler(version)]
    return write_zip(directory / wheel_name(version), members)


def huge_version_wheel(directory: Path, version: str, *, size: int = 10 << 20) -> Path:
    """A real (not a bomb) version.py of ``size`` bytes: the constants, then padding."""
    text = VERSION_PY.format(version=version, cuda=None, git_version=fake_sha(version))
    data = (text + "#" * (size - len(text))).encode()
    raw = zlib.compressobj(9, zlib.DEFLATED, -15)
    comp = raw.compress(data) + raw.flush()
    return write_zip(directory / wheel_name(version),
                     [("torch/version.py", DEFLATED, comp, zlib.crc32(data), len(data)),
                      *_filler(version)])


def deep_json(depth: int = 200_000) -> bytes:
    return b"[" * depth + b"]" * depth


def ill_typed_json(kind: str, filename: str = "x.whl") -> bytes:
    """A PEP 691 page with one field of the wrong type: ``hashes`` or ``meta``."""
    doc: dict = {"meta": {"api-version": "1.1"}, "name": "torch",
                 "files": [{"filename": filename, "url": "/files/" + filename,
                            "hashes": {"sha256": "00"}}]}
    if kind == "hashes":
        doc["files"][0]["hashes"] = "x"
    elif kind == "meta":
        doc["meta"] = ["api-version", "1.1"]
    else:
        raise ValueError(kind)
    return json.dumps(doc).encode()


def many_links_html(count: int) -> bytes:
    rows = "".join(f'<a href="/f/t-{i}.whl">t-{i}.whl</a>\n' for i in range(count))
    return f"<html><body>\n{rows}</body></html>\n".encode()
