#!/usr/bin/env python3
"""Hostile inputs through the public CLIs (issue #12, "what I will check"): each attack
runs ``scripts/<skill>.py`` in its own process against files or a loopback server this
harness starts, with a deadline, and is measured: wall time, peak RSS (``wait4``'s
``ru_maxrss``), bytes written (``/proc/PID/io``, polled), exit code, and whether an
output was left half-written. An attack holds when the run ends within the deadline,
under the memory bound, with a documented exit code (never 70), nothing half-written,
and its own check passes (the expected exit code; credentials never printed; a 3 GiB
answer not written to disk; no error line past 10,000 characters; the scout report
naming the files it skipped and never asking about a TODO outside the checkout).

  python benchmarks/hostile_inputs.py                # every attack, the table
  python benchmarks/hostile_inputs.py --only scout   # attacks whose name contains it
  python benchmarks/hostile_inputs.py --json         # one JSON object per attack

Exits 0 when every attack selected holds, 1 otherwise. Needs no network: the index,
wheels and API it attacks with are served on 127.0.0.1. Files it builds (bombs up to
1 GiB uncompressed, 785 bytes to 1 MB on disk) live in a temporary directory. Each
child also runs under an address-space and file-size ceiling well above the bound, so
a runaway attack cannot take the machine down with it.
"""

from __future__ import annotations

import argparse
import bz2
import contextlib
import json
import multiprocessing
import os
import re
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

from agentops.errors import ExitStatus  # noqa: E402

DEADLINE = 60.0  # seconds per attack
RSS_BOUND_MB = 700
GUARD_ADDRESS_SPACE = 8 << 30  # the child's ceiling: far above the bound, below the box
GUARD_FILE_SIZE = 8 << 30
DOCUMENTED = {int(s) for s in ExitStatus if s not in (ExitStatus.BUG, ExitStatus.INTERRUPTED)}
GiB = 1 << 30

VERSION = "2.10.0.dev20260709+cpu"
WHEEL = f"torch-{VERSION}-cp312-cp312-manylinux_2_28_x86_64.whl"
GIT_SHA = "0123456789abcdef0123456789abcdef01234567"
SECRET = "s3cr3t-hostile-pw"
FAR_REF = "pytorch/pytorch#424242"  # a TODO outside the checkout cites it


# --- wheels ---------------------------------------------------------------------------------

def _version_py(pad_lines: int = 0) -> bytes:
    pad = "# padding\n" * pad_lines
    return (f"__version__ = '{VERSION}'\ndebug = False\ncuda = None\n{pad}"
            f"git_version = '{GIT_SHA}'\nhip = None\n").encode()


def _zip(members: list[tuple[str, int, bytes, int, int]]) -> bytes:
    """A zip from (name, method, raw bytes as stored, crc32, uncompressed size): the
    sizes are written as given, so a member may claim what its bytes inflate to."""
    out = bytearray()
    central = bytearray()
    for name, method, raw, crc, size in members:
        offset = len(out)
        fname = name.encode()
        out += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 46, 0, method, 0, 0x21, crc,
                           len(raw), size, len(fname), 0) + fname + raw
        central += struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 0x031E, 46, 0, method,
                               0, 0x21, crc, len(raw), size, len(fname), 0, 0, 0, 0,
                               0o100644 << 16, offset) + fname
    cd_offset = len(out)
    out += central
    out += struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(members), len(members),
                       len(central), cd_offset, 0)
    return bytes(out)


def _zeros_member(method: int, size: int) -> tuple[bytes, int]:
    """(compressed bytes, crc32) of ``size`` zero bytes, built a block at a time."""
    block = b"\0" * (1 << 24)
    comp: Any = (zlib.compressobj(9, zlib.DEFLATED, -15) if method == 8
                 else bz2.BZ2Compressor(9))
    parts, crc, left = [], 0, size
    while left:
        chunk = block[:min(left, len(block))]
        parts.append(comp.compress(chunk))
        crc = zlib.crc32(chunk, crc)
        left -= len(chunk)
    parts.append(comp.flush())
    return b"".join(parts), crc


def wheel(kind: str) -> bytes:
    init = b"from torch.version import __version__\n"
    base = [("torch/__init__.py", 0, init, zlib.crc32(init), len(init))]
    if kind == "plain":
        vp = _version_py()
        return _zip([*base, ("torch/version.py", 0, vp, zlib.crc32(vp), len(vp))])
    if kind in ("deflate", "bzip2"):
        method = 8 if kind == "deflate" else 12
        raw, crc = _zeros_member(method, GiB)
        return _zip([*base, ("torch/version.py", method, raw, crc, GiB)])
    if kind == "huge":  # a valid version.py, 64 MiB of comments, stored
        vp = _version_py(pad_lines=(64 << 20) // 10)
        return _zip([*base, ("torch/version.py", 0, vp, zlib.crc32(vp), len(vp))])
    raise ValueError(kind)


# --- the loopback server ---------------------------------------------------------------------

@dataclass
class Served:
    """What the server serves (built in the server's own process, see ``serving``)."""

    wheels: dict[str, bytes] = field(default_factory=dict)  # attack -> wheel bytes
    million_links: bytes = b""


def _json_page(files: Any, meta: Any = None) -> bytes:
    return json.dumps({"meta": {"api-version": "1.1"} if meta is None else meta,
                       "name": "torch", "files": files}).encode()


def _file_entry(attack: str, hashes: Any = None) -> dict[str, Any]:
    return {"filename": WHEEL, "url": f"/{attack}/wheels/{urllib.parse.quote(WHEEL)}",
            "hashes": {"sha256": "0" * 64} if hashes is None else hashes}


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.0"  # one request per connection; a body ends at close

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, ctype: str, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers.items():
            self.send_header(k.replace("_", "-"), v)
        self.end_headers()
        with contextlib.suppress(OSError):
            self.wfile.write(body)

    def _stream(self, status: int, total: int | None, **headers: str) -> None:
        """``total`` zero bytes (None: until the client hangs up)."""
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        if total is not None:
            self.send_header("Content-Length", str(total))
        for k, v in headers.items():
            self.send_header(k.replace("_", "-"), v)
        self.end_headers()
        block, sent = b"\0" * (1 << 20), 0
        with contextlib.suppress(OSError):
            while total is None or sent < total:
                n = len(block) if total is None else min(len(block), total - sent)
                self.wfile.write(block[:n])
                sent += n

    def do_POST(self) -> None:
        self.server.saw("POST " + self.path)
        # A 200 that is not GitHub's answer (issue #21 item 7): what a proxy or a load
        # balancer sends in GitHub's place, or JSON cut off mid-way.
        if self.path.startswith("/html-200/"):
            self._send(200, b"<!DOCTYPE html><html><body><h1>Unicorn!</h1></body></html>",
                       "text/html; charset=utf-8")
        elif self.path.startswith("/cut-json/"):
            self._send(200, b'{"data": {"triaged": {"issueCount": 3, "nodes": [{"number": 1',
                       "application/json; charset=utf-8")
        else:
            self._send(404, b'{"message": "Not Found"}', "application/json")

    def do_GET(self) -> None:
        st = self.server.served
        self.server.saw("GET " + self.path)
        parts = self.path.split("/")
        attack, rest = (parts[1], "/".join(parts[2:])) if len(parts) > 2 else ("", "")
        if attack == "api":
            self._send(404, b'{"message": "Not Found"}', "application/json")
            return
        if rest.startswith("wheels/"):
            self._wheel(attack)
            return
        if not rest.startswith("simple/torch"):
            self._send(404, b"not found", "text/plain")
            return
        json_type = "application/vnd.pypi.simple.v1+json"
        if attack == "redirect-loop":
            self.send_response(302)
            self.send_header("Location", self.path)
            self.end_headers()
        elif attack == "redirect-file":
            self.send_response(302)
            self.send_header("Location", "file:///etc/passwd")
            self.end_headers()
        elif attack == "deep-json":
            self._send(200, b"[" * 200_000 + b"]" * 200_000, json_type)
        elif attack == "hashes-str":
            self._send(200, _json_page([_file_entry(attack, hashes="x")]), json_type)
        elif attack == "meta-list":
            self._send(200, _json_page([_file_entry(attack)], meta=["api-version", "1.1"]),
                       json_type)
        elif attack == "million-links":
            self._send(200, st.million_links, "text/html")
        elif attack == "slow-body":
            body = _json_page([_file_entry(attack)])
            self.send_response(200)
            self.send_header("Content-Type", json_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(OSError):
                for i in range(len(body)):  # one byte a second: no read ever times out
                    self.wfile.write(body[i:i + 1])
                    self.wfile.flush()
                    time.sleep(1.0)
        elif attack == "credentials":
            self._send(503, b"Service Unavailable", "text/plain")
        else:
            self._send(200, _json_page([_file_entry(attack)]), json_type)

    def _wheel(self, attack: str) -> None:
        data = self.server.served.wheels.get(attack) or self.server.served.wheels["plain"]
        spec = self.headers.get("Range", "")
        if attack == "huge-200" and spec:
            self._stream(200, 3 * GiB)  # a whole "wheel" instead of the range asked for
            return
        m = re.fullmatch(r"bytes=(\d*)-(\d*)", spec)
        if not m:
            self._send(200, data, "application/octet-stream")
            return
        if m.group(1) == "":
            start = max(0, len(data) - int(m.group(2)))
            end = len(data) - 1
        else:
            start = int(m.group(1))
            end = min(len(data) - 1, int(m.group(2)) if m.group(2) else len(data) - 1)
        content_range = f"bytes {start}-{end}/{len(data)}"
        if attack == "endless-206":
            self._stream(206, None, Content_Range=content_range)  # never ends
            return
        self._send(206, data[start:end + 1], "application/octet-stream",
                   Content_Range=content_range)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, log: Path) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.served = Served()
        self.log = log
        self._lock = threading.Lock()

    def saw(self, line: str) -> None:
        with self._lock, self.log.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")


def _serve(server: _Server, routes: list[str], ready: Any) -> None:
    prepare(server.served, routes)
    ready.set()
    server.serve_forever(poll_interval=0.05)


@contextlib.contextmanager
def serving(log: Path, routes: list[str]) -> Iterator[str]:
    """The loopback server, in a process of its own: the bombs it serves (and builds)
    stay out of this process, whose memory every attack's process starts from (a forked
    child's peak RSS counts the pages it shared with its parent until ``exec``)."""
    server = _Server(log)
    ready = multiprocessing.get_context("fork").Event()
    proc = multiprocessing.get_context("fork").Process(target=_serve,
                                                        args=(server, routes, ready),
                                                        daemon=True)
    proc.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    server.socket.close()  # the server process holds its own copy
    try:
        if not ready.wait(timeout=600):
            raise RuntimeError("the loopback server did not start")
        yield url
    finally:
        proc.terminate()
        proc.join(timeout=10)


# --- files the attacks bring -----------------------------------------------------------------

def amplification_issue(path: Path) -> None:
    """Triage: an infra-routed, bot-marked issue with all nine infra module labels and 50
    long comments (the re-planning amplification of #12 item 8), planned offline."""
    # A second sub-oncall (a person's) makes every earlier state the planner re-plans to
    # check "is this my own route output?" come out different, so all of them are tried:
    # 4 x (C(9,1) + C(9,2) + C(9,3)) = 516 plans, each reading 50 comments of 16 KB.
    labels = ["oncall: distributed", "oncall: distributed infra", "bot-triaged",
              "oncall: distributed parallelisms",
              "module: c10d", "module: nccl", "module: DeviceMesh", "module: rpc",
              "module: elastic", "module: mpi", "module: threaded pg",
              "module: distributed_tool", "module: symm_mem"]
    text = ("NCCL all_reduce hangs in the process group; torchrun elastic restarts, "
            "TCPStore timeouts, c10d flight recorder shows DeviceMesh rpc stalls with FSDP "
            "and DTensor. ") * 100
    user = {"login": "reporter", "id": 1, "type": "User"}
    issue = {
        "url": "https://api.github.com/repos/o/r/issues/1",
        "repository_url": "https://api.github.com/repos/o/r",
        "html_url": "https://github.com/o/r/issues/1", "id": 1, "number": 1,
        "title": "NCCL watchdog timeout in all_reduce with torchrun", "user": user,
        "labels": [{"id": i, "name": n, "color": "ededed", "default": False,
                    "description": ""} for i, n in enumerate(labels, 1)],
        "state": "open", "locked": False, "author_association": "NONE",
        "created_at": "2026-07-01T00:00:00Z", "updated_at": "2026-07-02T00:00:00Z",
        "body": text,
        # The offline input carries the REST comment objects inline.
        "comments": [
            {"id": 100 + i, "user": {"login": f"dev{i}", "id": 100 + i, "type": "User"},
             "created_at": "2026-07-01T01:00:00Z", "updated_at": "2026-07-01T01:00:00Z",
             "author_association": "CONTRIBUTOR", "body": f"Comment {i}: " + text}
            for i in range(50)],
    }
    path.write_text(json.dumps(issue))


def facts_alias_bomb(path: Path) -> None:
    """Post-mortem: a facts file whose title is an alias bomb (about 6 KB)."""
    lines = ["ticket: JIRA-1", "owner: Alex", "kind: bug-fix", "date: '2026-03-30'",
             "anchors:", "  a0: &a0 [" + ", ".join(["'" + "x" * 40 + "'"] * 12) + "]"]
    for i in range(1, 9):
        lines.append(f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 12) + "]")
    lines.append("title: *a8")
    path.write_text("\n".join(lines) + "\n" + "# " + "-" * 4000 + "\n")


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "H", "GIT_AUTHOR_EMAIL": "h@example.com",
           "GIT_COMMITTER_NAME": "H", "GIT_COMMITTER_EMAIL": "h@example.com",
           "GIT_AUTHOR_DATE": "2026-03-05T12:00:00Z", "GIT_COMMITTER_DATE":
           "2026-03-05T12:00:00Z", "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-C", str(repo), *args], env=env, check=True,
                   capture_output=True)


def hostile_checkout(base: Path) -> tuple[Path, Path]:
    """The scout demo repository plus one commit of hostile files: a recursion-bomb
    Python file, the configured workflow as a YAML alias bomb, links to /dev/zero and
    to a TODO outside the checkout. Returns (checkout, target YAML)."""
    from examples.scout import make_repo

    repo = base / "scout-repo"
    if repo.exists():  # built by an earlier call
        return repo, base / "scout-repo-target.yaml"
    make_repo.build(repo)
    (base / "outside.py").write_text(f"# TODO: wait for {FAR_REF}\n")
    (repo / "sub" / "bomb.py").write_text("x = " + "-" * 200_000 + "1\n")
    laughs = ["x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    laughs += [f"x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    laughs.append("jobs: {test: {steps: [{run: pytest sub/tests, with: {x: *a8}}]}}")
    (repo / ".github" / "workflows" / "sub.yaml").write_text("\n".join(laughs) + "\n")
    os.symlink("/dev/zero", repo / "sub" / "zero.py")
    os.symlink("../../outside.py", repo / "sub" / "outside.py")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "hostile files")
    return repo, base / "scout-repo-target.yaml"


def deep_k_checkout(base: Path) -> tuple[Path, Path]:
    """The scout demo repository whose configured workflow selects tests with a
    5,000-word ``-k`` of ``not``s and a 5,000-deep parenthesised ``-m`` (issue #21 item
    7). Returns (checkout, target YAML)."""
    from examples.scout import make_repo

    repo = base / "scout-deep-k"
    if repo.exists():
        return repo, base / "scout-deep-k-target.yaml"
    make_repo.build(repo)
    deep_k = "not " * 5000 + "slow"
    deep_m = "(" * 5000 + "gpu" + ")" * 5000
    (repo / ".github" / "workflows" / "sub.yaml").write_text(
        "name: sub\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
        f"      - run: pytest sub/tests -k '{deep_k}'\n"
        f"      - run: pytest sub/tests -m '{deep_m}'\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "deep selection expressions")
    return repo, base / "scout-deep-k-target.yaml"


# --- checks ----------------------------------------------------------------------------------

def json_or_nothing(text: str) -> bool:
    if not text.strip():
        return True
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def report_complete(path: Path) -> bool:
    text = path.read_text(encoding="utf-8", errors="replace")
    return text.startswith("# Nightly Scout Report") and text.endswith("-->\n")


def draft_complete(path: Path) -> bool:
    import hashlib

    sha = path.with_name(path.name + ".sha256")
    return sha.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() in sha.read_text()


# --- running ---------------------------------------------------------------------------------

@dataclass
class Attack:
    name: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    # output file -> "is it complete?"; stdout is checked with ``stdout_ok``
    outputs: dict[Path, Callable[[Path], bool]] = field(default_factory=dict)
    stdout_ok: Callable[[str], bool] = json_or_nothing
    check: Callable[[Result], str] | None = None  # "" when fine, else why not
    max_written: int | None = None  # bytes the process may write (files and pipes)


@dataclass
class Result:
    attack: Attack
    seconds: float
    rss_mb: float
    written_mb: float  # bytes passed to write(2), from /proc/PID/io, polled
    code: int | None  # None: killed at the deadline (or by a signal)
    killed: str = ""
    stdout: str = ""
    stderr: str = ""
    summary: str = ""
    half_written: list[str] = field(default_factory=list)
    problem: str = ""

    @property
    def holds(self) -> bool:
        return not self.problem


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (GUARD_ADDRESS_SPACE, GUARD_ADDRESS_SPACE))
    resource.setrlimit(resource.RLIMIT_FSIZE, (GUARD_FILE_SIZE, GUARD_FILE_SIZE))


def _wchar(pid: int) -> int:
    try:
        text = Path(f"/proc/{pid}/io").read_text()
    except OSError:
        return 0
    m = re.search(r"^wchar: (\d+)", text, re.M)
    return int(m.group(1)) if m else 0


def run(attack: Attack, work: Path, deadline: float) -> Result:
    work.mkdir(parents=True, exist_ok=True)
    out_path, err_path, summary = work / "stdout", work / "stderr", work / "summary.md"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "AGENTOPS_"))}
    env.update({"GITHUB_STEP_SUMMARY": str(summary), "PYTHONDONTWRITEBYTECODE": "1",
                "AGENTOPS_HTTP_BACKOFF": "0.2", "AGENTOPS_RETRY_BASE_DELAY": "0.2",
                **attack.env})
    start = time.monotonic()
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen(attack.argv, stdout=out, stderr=err, env=env, cwd=work,
                                start_new_session=True, preexec_fn=_limits)  # noqa: PLW1509
        killed = ""
        written = 0
        while True:
            written = max(written, _wchar(proc.pid))
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > deadline:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                _, status, usage = os.wait4(proc.pid, 0)
                killed = f"killed at the {deadline:.0f} s deadline"
                break
            time.sleep(0.05)
    proc.returncode = 0  # reaped here, not by Popen
    seconds = time.monotonic() - start
    code: int | None = os.waitstatus_to_exitcode(status)
    if killed or code is None or code < 0:
        killed = killed or f"killed by signal {-code if code else '?'}"
        code = None
    res = Result(attack, seconds, usage.ru_maxrss / 1024, written / (1 << 20), code, killed,
                 out_path.read_text(errors="replace")[:200_000],
                 err_path.read_text(errors="replace")[-200_000:],
                 summary.read_text(errors="replace") if summary.exists() else "")
    for path, complete in attack.outputs.items():
        if path.exists() and not complete(path):
            res.half_written.append(path.name)
    if not attack.stdout_ok(res.stdout):
        res.half_written.append("stdout")
    problems = []
    if code is None:
        problems.append(killed)
    elif code not in DOCUMENTED:
        problems.append(f"exit {code} (not a documented code)")
    if res.rss_mb > RSS_BOUND_MB:
        problems.append(f"peak RSS {res.rss_mb:.0f} MB > {RSS_BOUND_MB} MB")
    if res.half_written:
        problems.append("half-written: " + ", ".join(res.half_written))
    if attack.max_written is not None and written > attack.max_written:
        problems.append(f"wrote {written / GiB:.1f} GiB")
    if attack.check is not None and code is not None:
        why = attack.check(res)
        if why:
            problems.append(why)
    res.problem = "; ".join(problems)
    return res


# --- the attacks -----------------------------------------------------------------------------

def _expect_code(*codes: int) -> Callable[[Result], str]:
    def check(res: Result) -> str:
        return "" if res.code in codes else f"exit {res.code}, expected {codes}"
    return check


def _redacted(res: Result) -> str:
    leaks = [ln for text in (res.stdout, res.stderr, res.summary) for ln in text.splitlines()
             if SECRET in ln and not ln.startswith("::add-mask::")]
    if leaks:
        return f"the password is printed ({len(leaks)} line(s), e.g. {leaks[0][:80]!r})"
    return "" if res.code == int(ExitStatus.API) else f"exit {res.code}, expected 5"


def _line_bound(res: Result) -> str:
    longest = max((len(ln) for ln in (res.stderr + res.summary).splitlines()), default=0)
    return "" if longest <= 10_000 else f"a {longest:,}-character error line"


def attacks(base: Path, url: str) -> list[Attack]:
    py = sys.executable
    bisect = [py, str(ROOT / "scripts" / "nightly_bisect.py"), "resolve", "--version",
              "dev20260709", "--python", "3.12", "--platform", "manylinux_2_28_x86_64"]

    def index(attack: str, *, auth: str = "") -> list[str]:
        return [*bisect, "--index-url", url.replace("//", f"//{auth}", 1) + f"/{attack}/simple"]

    out: list[Attack] = [
        Attack("bisect: deflate bomb in torch/version.py (1 GiB from 1 MB)",
               index("deflate"), check=_expect_code(1, 5)),
        Attack("bisect: bzip2 bomb in torch/version.py (1 GiB from 785 B)",
               index("bzip2"), check=_expect_code(1, 5)),
        Attack("bisect: endless 206 body", index("endless-206"), check=_expect_code(5)),
        Attack("bisect: index body at 1 byte per second", index("slow-body"),
               check=_expect_code(5)),
        Attack("bisect: 3 GiB 200 answer to a Range request", index("huge-200"),
               check=_expect_code(1, 5), max_written=2 * GiB),
        Attack("bisect: redirect loop", index("redirect-loop"), check=_expect_code(5)),
        Attack("bisect: redirect to file://", index("redirect-file"), check=_expect_code(5)),
        Attack("bisect: 200,000-deep JSON index", index("deep-json"), check=_expect_code(1)),
        Attack('bisect: "hashes": "x" in the JSON index', index("hashes-str"),
               check=_expect_code(1)),
        Attack('bisect: "meta": [..] in the JSON index', index("meta-list"),
               check=_expect_code(1)),
        Attack("bisect: 1,000,000-link index page", index("million-links"),
               check=lambda r: _expect_code(1, 5)(r) or _line_bound(r)),
        Attack("bisect: 64 MiB torch/version.py", index("huge-version"),
               check=_expect_code(1, 5)),
        Attack("bisect: credentials in --index-url are redacted",
               index("credentials", auth=f"agentops-user:{SECRET}@"),
               env={"GITHUB_ACTIONS": "true", "AGENTOPS_HTTP_ATTEMPTS": "2"},
               check=_redacted),
    ]
    issue = base / "amplification.json"
    amplification_issue(issue)
    out.append(Attack("triage: infra-routed issue, 9 module labels, 50 long comments",
                      [py, str(ROOT / "scripts" / "triage.py"), "plan", str(issue)],
                      check=_expect_code(0)))
    facts = base / "bomb.facts.yml"
    facts_alias_bomb(facts)
    draft = base / "draft.md"
    out.append(Attack("postmortem: facts-file YAML alias bomb",
                      [py, str(ROOT / "scripts" / "postmortem.py"), "draft", str(facts),
                       "--out", str(draft)],
                      outputs={draft: draft_complete}, stdout_ok=lambda s: True,
                      check=lambda r: _expect_code(1)(r) or _line_bound(r)))
    saved = base / "backtest.jsonl"
    for route, what in (("html-200", "an HTML page"), ("cut-json", "cut-off JSON")):
        out.append(Attack(f"triage: evaluate --repo, a 200 answer that is {what}",
                          [py, str(ROOT / "scripts" / "triage.py"), "evaluate", "--repo",
                           "acme/trainer", "--save", str(saved)],
                          env={"GITHUB_TOKEN": "hostile-harness",
                               "GITHUB_API_URL": f"{url}/{route}",
                               "AGENTOPS_RETRY_ATTEMPTS": "1"},
                          outputs={saved: lambda _p: False},  # must not exist at all
                          check=lambda r: _expect_code(5)(r) or (
                              "" if "not GitHub's answer" in r.stderr
                              else "the error does not say the answer is not GitHub's")))
    deep_repo, deep_target = deep_k_checkout(base)
    deep_report = base / "deep-k-report.md"

    def not_checked(res: Result) -> str:
        text = deep_report.read_text(encoding="utf-8") if deep_report.exists() else ""
        said = "not checked" in text and "512 words" in text
        return "" if res.code == 0 and said else (
            f"exit {res.code}; the report {'says' if said else 'does not say'} "
            "'not checked' with the reason")

    out.append(Attack("scout: 5,000-deep pytest -k / -m expressions in a workflow (offline)",
                      [py, str(ROOT / "scripts" / "scout.py"), "--config", str(deep_target),
                       "report", "--checkout", str(deep_repo), "--date", "2026-03-06",
                       "--torch", "none", "--offline", "--out", str(deep_report)],
                      outputs={deep_report: report_complete}, stdout_ok=lambda s: True,
                      check=not_checked))
    repo, target = hostile_checkout(base)
    report = base / "report.md"
    scout = [py, str(ROOT / "scripts" / "scout.py"), "--config", str(target), "report",
             "--checkout", str(repo), "--date", "2026-03-06", "--torch", "none"]

    def skipped_named(res: Result) -> str:
        text = report.read_text(encoding="utf-8") if report.exists() else ""
        named = all(p in text for p in ("sub/bomb.py", ".github/workflows/sub.yaml"))
        return "" if res.code == 0 and named else (
            f"exit {res.code}; the report {'names' if named else 'does not name'} the "
            "skipped files")

    out.append(Attack("scout: recursion-bomb .py and alias-bomb workflow (offline)",
                      [*scout, "--offline", "--out", str(report)],
                      outputs={report: report_complete}, stdout_ok=lambda s: True,
                      check=skipped_named))
    live_report = base / "live-report.md"

    def never_followed(res: Result) -> str:
        log = base / "server.log"
        asked = [ln for ln in (log.read_text().splitlines() if log.exists() else [])
                 if "/pulls/424242" in ln]
        if asked:
            return "followed a link out of the checkout (asked the API for its TODO's PR)"
        return "" if res.code == 0 else f"exit {res.code}, expected 0"

    out.append(Attack("scout: links to /dev/zero and out of the checkout (live)",
                      [*scout, "--out", str(live_report)],
                      env={"GITHUB_TOKEN": "hostile-harness", "GITHUB_API_URL": url + "/api",
                           "AGENTOPS_RETRY_ATTEMPTS": "1"},
                      outputs={live_report: report_complete}, stdout_ok=lambda s: True,
                      check=never_followed))
    return out


def prepare(served: Served, selected: list[str]) -> None:
    """Build only what the selected attacks serve (the bombs take seconds each)."""
    served.wheels["plain"] = wheel("plain")
    kinds = {"deflate": "deflate", "bzip2": "bzip2", "huge-version": "huge"}
    for attack, kind in kinds.items():
        if any(attack in name for name in selected):
            served.wheels[attack] = wheel(kind)
    if any("million-links" in name for name in selected):
        served.million_links = ("<!DOCTYPE html><html><body>\n" + "".join(
            f'<a href="/million-links/wheels/torch-0.0.{i}-py3-none-any.whl">'
            f"torch-0.0.{i}-py3-none-any.whl</a><br/>\n" for i in range(1_000_000))
            + "</body></html>\n").encode()


def _key(attack: Attack) -> str:
    # The server route each bisect attack uses, to match --only and to build wheels.
    m = re.search(r"/([\w-]+)/simple$", attack.argv[-1]) if attack.argv else None
    return m.group(1) if m else attack.name


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", action="append", default=[], metavar="TEXT",
                   help="run the attacks whose name (or server route) contains TEXT")
    p.add_argument("--deadline", type=float, default=DEADLINE)
    p.add_argument("--json", action="store_true", help="one JSON object per attack")
    p.add_argument("--keep", action="store_true", help="keep the work directory")
    args = p.parse_args()
    base = Path(tempfile.mkdtemp(prefix="agentops-hostile-"))
    results: list[Result] = []
    try:
        # The attack list needs the server's URL and the server needs the attack list
        # (to build only the bombs it will serve): the routes are fixed names, so list
        # them with a placeholder URL first.
        every = attacks(base, "http://127.0.0.1:0")
        chosen = [a.name for a in every if not args.only
                  or any(o in a.name or o in _key(a) for o in args.only)]
        routes = [_key(a) for a in every if a.name in chosen]
        with serving(base / "server.log", routes) as url:
            todo = [a for a in attacks(base, url) if a.name in chosen]
            for i, attack in enumerate(todo, 1):
                print(f"[{i}/{len(todo)}] {attack.name} …", file=sys.stderr, flush=True)
                res = run(attack, base / f"attack-{i:02}", args.deadline)
                results.append(res)
                if args.json:
                    print(json.dumps({"attack": attack.name, "holds": res.holds,
                                      "seconds": round(res.seconds, 2),
                                      "peak_rss_mb": round(res.rss_mb, 1),
                                      "written_mb": round(res.written_mb, 1), "exit": res.code,
                                      "half_written": res.half_written,
                                      "problem": res.problem}), flush=True)
    finally:
        if args.keep:
            print(f"work directory kept: {base}", file=sys.stderr)
        else:
            shutil.rmtree(base, ignore_errors=True)
    if not args.json:
        print(table(results, args.deadline))
    return 0 if all(r.holds for r in results) else 1


def table(results: list[Result], deadline: float) -> str:
    head = "| attack | exit | wall s | peak RSS MB | wrote MB | half-written | holds |"
    rows = [head, "|---|---|---|---|---|---|---|"]
    for r in results:
        code = str(r.code) if r.code is not None else "killed"
        rows.append(f"| {r.attack.name} | {code} | {r.seconds:.1f} | {r.rss_mb:.0f} | "
                    f"{r.written_mb:.0f} | "
                    f"{', '.join(r.half_written) or 'no'} | "
                    f"{'PASS' if r.holds else 'FAIL: ' + r.problem} |")
    held = sum(r.holds for r in results)
    rows.append("")
    rows.append(f"{held} of {len(results)} attacks hold (deadline {deadline:.0f} s, "
                f"peak RSS bound {RSS_BOUND_MB} MB, documented exit codes "
                f"{sorted(DOCUMENTED)}, nothing half-written)")
    return "\n".join(rows)


if __name__ == "__main__":
    raise SystemExit(main())
