"""A real HTTP server on loopback for the nightly-bisect tests, demo and benchmark:
a PEP 503/691 simple index (HTML or JSON by ``Accept``) and wheel files, with
``Range`` support that can be switched off, injected faults (404, 503, timeout) and
a count of body bytes served per path.

Also builds torch-like wheels with ``zipfile``: ``torch/version.py`` plus as many
filler members as asked, in the order setuptools' wheel writer uses (a directory's
files before its subdirectories), plain lexicographic, or shuffled.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import json
import os
import random
import re
import threading
import time
import urllib.parse
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

# --- wheels ---------------------------------------------------------------------------

VERSION_PY = """\
from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']
__version__ = '{version}'
debug = False
cuda: Optional[str] = {cuda}
git_version = '{git_version}'
hip: Optional[str] = None
xpu: Optional[str] = None
"""


def fake_sha(seed: str) -> str:
    """A stable 40-hex commit id for a fixture (not a real commit)."""
    return hashlib.sha1(seed.encode()).hexdigest()


def wheel_name(version: str, python: str = "cp312",
               platform: str = "manylinux_2_28_x86_64") -> str:
    return f"torch-{version}-{python}-{python}-{platform}.whl"


def _walk_order(names: list[str]) -> list[str]:
    # Independent of the code under test: sort by path components, files (0) before
    # directories (1) at each level, which is what os.walk + sorted() produce.
    def key(n: str) -> list[tuple[int, str]]:
        parts = n.split("/")
        return [(1, p) for p in parts[:-1]] + [(0, parts[-1])]
    return sorted(names, key=key)


@contextlib.contextmanager
def _forced_zip64() -> Iterator[None]:
    saved = zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT
    zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = 1 << 10, 8
    try:
        yield
    finally:
        zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = saved


# Subdirectories of torch/ and their share of the filler members: about the shape of a
# real wheel, where torch/include dominates and ~100 entries sit directly in torch/.
_TORCH_DIRS = [("include/ATen/ops", 40), ("include/c10/util", 8), ("testing/_internal", 6),
               ("_inductor/codegen", 6), ("distributed/fsdp", 6), ("_dynamo/variables", 3),
               ("nn/modules", 3), ("utils/data", 3), ("onnx/_internal", 2), ("fx/passes", 2),
               ("ao/quantization", 2), ("lib", 1), ("cuda", 1), ("optim", 1), ("_refs", 1),
               ("export", 1), ("sparse", 1), ("jit", 1), ("profiler", 1), ("_functorch", 1),
               ("_subclasses", 1), ("_prims", 1), ("autograd", 1), ("backends/cuda", 1),
               ("compiler", 1), ("mps", 1), ("special", 1), ("share/cmake", 1)]


def _filler_names(members: int) -> list[str]:
    names = []
    top = max(1, members // 100)  # files directly in torch/
    names += [f"torch/_module_{i:04d}.py" for i in range(top)]
    names += [f"functorch/dim/module_{i:04d}.py" for i in range(members // 50)]
    names += [f"torchgen/packaged/ATen/templates/template_{i:05d}.h"
              for i in range(members // 20)]
    rest = members - len(names)
    weights = sum(w for _, w in _TORCH_DIRS)
    for d, w in _TORCH_DIRS:
        for i in range(max(1, rest * w // weights)):
            names.append(f"torch/{d}/{d.rsplit('/', 1)[-1]}_{i:05d}_implementation.h")
    names += [f"torch/include/ATen/ops/extra_{i:05d}.h" for i in range(members - len(names))]
    return names[:members]


def _zip_order(names: list[str], rng: random.Random) -> list[str]:
    # `zip -r` over an unpacked wheel: depth first, siblings in readdir order (on ext4,
    # hash order), files and directories interleaved.
    tree: dict = {}
    for n in names:
        node = tree
        *dirs, leaf = n.split("/")
        for d in dirs:
            node = node.setdefault(d + "/", {})
        node[leaf] = None
    out: list[str] = []

    def visit(node: dict, prefix: str) -> None:
        keys = list(node)
        rng.shuffle(keys)
        for k in keys:
            if node[k] is None:
                out.append(prefix + k)
            else:
                visit(node[k], prefix + k)
    visit(tree, "")
    return out


def build_wheel(directory: Path, version: str, *, git_version: str | None = None,
                cuda: str | None = None, python: str = "cp312",
                platform: str = "manylinux_2_28_x86_64", members: int = 20,
                big_member_bytes: int = 0, big_member_random: bool = True,
                order: str = "walk", with_version_py: bool = True, zip64: bool = False,
                seed: int = 0) -> Path:
    """Write a torch-like wheel and return its path. ``order``: walk (setuptools'
    writer), lex, zip (`zip -r` in readdir order, as PyTorch's repacked Linux wheels),
    random."""
    rng = random.Random(seed)
    git_version = git_version or fake_sha(version)
    files: dict[str, bytes] = {n: b"// generated\n" for n in _filler_names(members)}
    files["torch/__init__.py"] = b"from torch.version import __version__\n"
    if with_version_py:
        files["torch/version.py"] = VERSION_PY.format(
            version=version, cuda=repr(cuda), git_version=git_version).encode()
    names = list(files)
    if big_member_bytes:
        names.append("torch/lib/libtorch_cpu.so")
    if order == "walk":
        names = _walk_order(names)
    elif order == "lex":
        names = sorted(names)
    elif order == "zip":
        names = _zip_order(names, rng)
    elif order == "random":
        rng.shuffle(names)
    else:
        raise ValueError(order)
    dist = f"torch-{version.split('+', maxsplit=1)[0]}.dist-info"
    tail = {f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n",
            f"{dist}/WHEEL": f"Wheel-Version: 1.0\nRoot-Is-Purelib: false\n"
                             f"Tag: {python}-{python}-{platform}\n",
            f"{dist}/top_level.txt": "functorch\ntorch\ntorchgen\n"}
    path = directory / wheel_name(version, python, platform)
    ctx = _forced_zip64() if zip64 else contextlib.nullcontext()
    with ctx, zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in names:
            if name == "torch/lib/libtorch_cpu.so":
                info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_STORED
                with zf.open(info, "w", force_zip64=True) as out:
                    left = big_member_bytes
                    block = os.urandom(1 << 20) if big_member_random else bytes(1 << 20)
                    while left > 0:
                        out.write(block[:min(left, len(block))])
                        left -= len(block)
            else:
                zf.writestr(name, files[name])
        for name, text in tail.items():
            zf.writestr(name, text)
        zf.writestr(f"{dist}/RECORD", "".join(f"{n},,\n" for n in [*names, *tail]))
    return path


# --- the server -----------------------------------------------------------------------

@dataclass
class Fault:
    """What to do to the next matching request: ``status`` (e.g. 404, 503) or
    ``delay`` seconds before answering (a timeout for a short client timeout)."""

    status: int | None = None
    delay: float = 0.0


@dataclass
class State:
    """What the server serves and what it saw."""

    root: Path
    packages: dict[str, list[str]] = field(default_factory=dict)  # package -> filenames
    range_enabled: bool = True
    formats: tuple[str, ...] = ("json", "html")  # what the index can answer with
    href_style: str = "absolute"  # absolute (/files/x) | full (http://…) | relative
    validators: bool = True  # ETag/Last-Modified on project pages, 304 when unchanged
    # Files listed on the page but not served: makes a page as large as a real one.
    listed_only: dict[str, list[str]] = field(default_factory=dict)
    faults: dict[str, list[Fault]] = field(default_factory=dict)  # path regex -> queue
    served: dict[str, int] = field(default_factory=dict)  # path -> body bytes
    log: list[tuple[str, str, str, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, package: str, path: Path) -> None:
        self.packages.setdefault(package, []).append(path.name)

    def inject(self, pattern: str, *faults: Fault) -> None:
        self.faults.setdefault(pattern, []).extend(faults)

    def bytes_for(self, filename: str) -> int:
        return sum(v for k, v in self.served.items() if k.endswith("/" + filename))


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: the tests read state.log

    def _fault(self, path: str) -> Fault | None:
        st = self.server.state
        with st.lock:
            for pattern, queue in st.faults.items():
                if queue and re.search(pattern, path):
                    return queue.pop(0)
        return None

    def _send(self, status: int, body: bytes, ctype: str, extra: dict[str, str] | None = None,
              path: str = "") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self._count(path, len(body))
            self.wfile.write(body)

    def _count(self, path: str, n: int) -> None:
        st = self.server.state
        with st.lock:
            st.served[path] = st.served.get(path, 0) + n

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        st = self.server.state
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        rng = self.headers.get("Range", "")
        fault = self._fault(path)
        if fault and fault.delay:
            time.sleep(fault.delay)
        status = fault.status if fault and fault.status else None
        with st.lock:
            st.log.append((self.command, path, rng, status or 0))
        if status:
            self._send(status, f"injected {status}\n".encode(), "text/plain", path=path)
            return
        m = re.fullmatch(r"/simple/([^/]+)/?", path)
        if m:
            self._index(m.group(1), path)
        elif path.startswith("/files/"):
            self._file(path, rng)
        else:
            self._send(404, b"not found\n", "text/plain", path=path)

    def _href(self, name: str) -> str:
        st = self.server.state
        quoted = urllib.parse.quote(name)  # '+' -> %2B, as the real index does
        if st.href_style == "full":
            return f"http://127.0.0.1:{self.server.server_port}/files/{quoted}"
        if st.href_style == "relative":
            return f"../../files/{quoted}"
        return f"/files/{quoted}"

    def _index(self, package: str, path: str) -> None:
        st = self.server.state
        names = st.packages.get(package)
        if names is None:
            self._send(404, b"no such project\n", "text/plain", path=path)
            return
        names = [*st.listed_only.get(package, []), *names]
        accept = self.headers.get("Accept", "")
        if "json" in st.formats and "application/vnd.pypi.simple.v1+json" in accept:
            doc = {"meta": {"api-version": "1.1"}, "name": package,
                   "files": [{"filename": n, "url": self._href(n),
                              "hashes": {"sha256": fake_sha(n)[:64]}} for n in names],
                   "versions": []}
            body, ctype = json.dumps(doc).encode(), "application/vnd.pypi.simple.v1+json"
        else:
            rows = "".join(f'    <a href="{self._href(n)}#sha256={fake_sha(n)}">{n}</a><br/>\n'
                           for n in names)
            body = (f"<!DOCTYPE html>\n<html>\n  <body>\n    <h1>Links for {package}</h1>\n"
                    f"{rows}  </body>\n</html>\n").encode()
            ctype = "text/html"
        extra = {}
        if st.validators:
            etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
            extra = {"ETag": etag, "Last-Modified": "Thu, 01 Jan 2026 00:00:00 GMT",
                     "Vary": "Accept"}
            if self.headers.get("If-None-Match") == etag:
                self._send(304, b"", ctype, extra, path=path)
                return
        self._send(200, body, ctype, extra, path=path)

    def _file(self, path: str, rng: str) -> None:
        st = self.server.state
        file = st.root / path.removeprefix("/files/")
        if not file.is_file():
            self._send(404, b"no such file\n", "text/plain", path=path)
            return
        size = file.stat().st_size
        start, end, status = 0, size - 1, 200
        m = re.fullmatch(r"bytes=(\d*)-(\d*)", rng.strip())
        if st.range_enabled and m and (m.group(1) or m.group(2)):
            if m.group(1):
                start = int(m.group(1))
                end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
            else:
                start = max(0, size - int(m.group(2)))
            if start > end:
                self._send(416, b"", "text/plain", {"Content-Range": f"bytes */{size}"},
                           path=path)
                return
            status = 206
        length = end - start + 1
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(length))
        self.send_header("Accept-Ranges", "bytes" if st.range_enabled else "none")
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.end_headers()
        if self.command == "HEAD":
            return
        with file.open("rb") as fh:
            fh.seek(start)
            left = length
            try:
                while left > 0:
                    chunk = fh.read(min(left, 1 << 20))
                    # Counted before sending, so the count is final when the client
                    # has the bytes.
                    self._count(path, len(chunk))
                    self.wfile.write(chunk)
                    left -= len(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    state: State

    def handle_error(self, request, client_address) -> None:  # type: ignore[no-untyped-def]
        import sys
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # a client that timed out and hung up: expected in the fault tests
        super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(state: State) -> Iterator[str]:
    """Run the server on 127.0.0.1 (a free port); yields the index URL."""
    srv = _Server(("127.0.0.1", 0), _Handler)
    srv.state = state
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}/simple"
    finally:
        srv.shutdown()
        srv.server_close()


def nightly_versions(count: int, *, start: str = "2026-05-01", variant: str = "cpu",
                     base: str = "2.10.0", skip: frozenset[int] = frozenset()) -> list[str]:
    """``count`` consecutive nightly versions (days in ``skip`` are missing)."""
    import datetime as dt
    day = dt.date.fromisoformat(start)
    out = []
    for i in range(count):
        if i not in skip:
            d = day + dt.timedelta(days=i)
            out.append(f"{base}.dev{d:%Y%m%d}+{variant}")
    return out


def main() -> None:
    """``python tests/bisect/server.py DIR [COUNT]``: build COUNT small nightlies into DIR
    and serve them until killed; prints the index URL on stdout (for the demo)."""
    import sys
    directory = Path(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    directory.mkdir(parents=True, exist_ok=True)
    state = State(root=directory)
    for i, version in enumerate(nightly_versions(count)):
        for py in ("cp311", "cp312"):
            state.add("torch", build_wheel(directory, version, python=py, members=200,
                                           seed=i))
    with serve(state) as url:
        print(url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()


__all__ = ["Fault", "State", "build_wheel", "fake_sha", "nightly_versions", "serve", "wheel_name"]
