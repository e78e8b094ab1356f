"""A loopback HTTP server whose every path is a small script: send this status and
these headers, then this body (bytes, a generator that never ends, one byte at a
time), or redirect there. For the transport's tests and the hostile-input tests of
the nightly bisect: the attacks are generated here, never stored as files.

    with Scripted() as srv:
        srv.route("/slow", drip(b"x" * 100, every=0.5, status=206))
        srv.route("/loop", redirect("/loop"))
        ... srv.url + "/slow" ...
        srv.seen  # (method, path, headers) of every request
"""

from __future__ import annotations

import contextlib
import gzip
import http.server
import io
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

Script = Callable[["_Handler"], None]


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _dispatch(self) -> None:
        path = urllib.parse.urlsplit(self.path).path
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        with self.server.lock:
            self.server.seen.append(Seen(self.command, self.path, dict(self.headers)))
            script = self.server.routes.get(path) or self.server.prefix_route(path)
        if script is None:
            send(self, 404, b"no such path\n")
            return
        # A client that stopped reading is what a bounded reader does.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            script(self)

    do_GET = do_HEAD = do_POST = _dispatch


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    routes: dict[str, Script]
    prefixes: dict[str, Script]
    seen: list[Seen]
    lock: threading.Lock

    def prefix_route(self, path: str) -> Script | None:
        for prefix, script in self.prefixes.items():
            if path.startswith(prefix):
                return script
        return None

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


@dataclass
class Scripted:
    """The server; ``url`` is ``http://127.0.0.1:PORT`` once entered."""

    host: str = "127.0.0.1"
    routes: dict[str, Script] = field(default_factory=dict)
    prefixes: dict[str, Script] = field(default_factory=dict)
    url: str = ""
    _srv: _Server | None = None

    def route(self, path: str, script: Script) -> None:
        self.routes[path] = script
        if self._srv is not None:
            self._srv.routes[path] = script

    def route_prefix(self, prefix: str, script: Script) -> None:
        self.prefixes[prefix] = script

    @property
    def seen(self) -> list[Seen]:
        assert self._srv is not None
        return self._srv.seen

    def __enter__(self) -> Scripted:
        srv = _Server((self.host, 0), _Handler)
        srv.routes, srv.prefixes = self.routes, self.prefixes
        srv.seen, srv.lock = [], threading.Lock()
        self._srv = srv
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        self.url = f"http://{self.host}:{srv.server_port}"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._srv is not None
        self._srv.shutdown()
        self._srv.server_close()


# --- scripts ------------------------------------------------------------------------------

def send(h: _Handler, status: int, body: bytes, headers: dict[str, str] | None = None,
         *, content_type: str = "application/octet-stream") -> None:
    h.send_response(status)
    h.send_header("Content-Type", content_type)
    h.send_header("Content-Length", str(len(body)))
    for k, v in (headers or {}).items():
        h.send_header(k, v)
    h.end_headers()
    if h.command != "HEAD":
        h.wfile.write(body)


def body(data: bytes, status: int = 200, headers: dict[str, str] | None = None,
         content_type: str = "application/octet-stream") -> Script:
    return lambda h: send(h, status, data, headers, content_type=content_type)


def stream(chunks: Callable[[], Iterable[bytes]], *, status: int = 200,
           length: int | None = None, headers: dict[str, str] | None = None,
           every: float = 0.0) -> Script:
    """Send ``chunks()`` one by one (``every`` seconds apart); without ``length`` the
    body ends when the connection closes."""
    def script(h: _Handler) -> None:
        h.send_response(status)
        h.send_header("Content-Type", "application/octet-stream")
        if length is not None:
            h.send_header("Content-Length", str(length))
        else:
            h.send_header("Connection", "close")
            h.close_connection = True
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        for chunk in chunks():
            h.wfile.write(chunk)
            h.wfile.flush()
            if every:
                time.sleep(every)
    return script


def endless(block: bytes = b"\0" * 65536) -> Iterator[bytes]:
    while True:
        yield block


def drip(total: int, *, every: float, status: int = 206,
         headers: dict[str, str] | None = None) -> Script:
    """One byte every ``every`` seconds, announcing ``total`` bytes."""
    return stream(lambda: (b"x" for _ in range(total)), status=status, length=total,
                  headers=headers, every=every)


def stall(status: int = 200, *, seconds: float = 30.0) -> Script:
    """Headers, then nothing for ``seconds``."""
    def script(h: _Handler) -> None:
        h.send_response(status)
        h.send_header("Content-Length", "10")
        h.end_headers()
        h.wfile.flush()
        time.sleep(seconds)
    return script


def redirect(location: str, status: int = 302) -> Script:
    return lambda h: send(h, status, b"", {"Location": location})


def gzip_bomb(size: int) -> Script:
    """``size`` zero bytes, gzip-compressed (about a thousandth of it on the wire)."""
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb") as gz:
        block = b"\0" * (1 << 20)
        for _ in range(size >> 20):
            gz.write(block)
    data = buf.getvalue()
    return body(data, headers={"Content-Encoding": "gzip"})


def sequence(*scripts: Script) -> Script:
    """The n-th request gets the n-th script (the last one repeats)."""
    calls = [0]

    def script(h: _Handler) -> None:
        i = min(calls[0], len(scripts) - 1)
        calls[0] += 1
        scripts[i](h)
    return script


@contextlib.contextmanager
def two_hosts() -> Iterator[tuple[Scripted, Scripted]]:
    """Two servers under different host names (127.0.0.1 and localhost): a redirect
    from one to the other crosses hosts."""
    with Scripted("127.0.0.1") as a, Scripted("localhost") as b:
        b.url = b.url.replace("127.0.0.1", "localhost")
        yield a, b
