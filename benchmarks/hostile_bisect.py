#!/usr/bin/env python3
"""The nightly-bisect attacks of issue #12 (items 4-7) at the audit's sizes, each run
through the public CLI (`scripts/nightly_bisect.py`) in a fresh process against a
loopback server, with the default settings: wall time, peak memory (max RSS of that
process), exit code, the length of its longest stderr line, whether a credential
leaked, and whether anything was left behind (the `--out` file, temporary files).
Target: each ends within 60 s and under 700 MB with a documented exit code (1 or 5).

  python benchmarks/hostile_bisect.py [--only SUBSTRING]

The bombs are made on the fly (about 15 s for the two 1 GiB ones); nothing is stored.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from tests.bisect import hostile  # noqa: E402
from tests.bisect.server import State, serve, wheel_name  # noqa: E402
from tests.standin.scripted import (  # noqa: E402
    Scripted,
    body,
    drip,
    endless,
    redirect,
    stream,
)

V = "2.10.0.dev20260601+cpu"
SECRET = "hunter2-s3cret"
JSON = "application/vnd.pypi.simple.v1+json"


@dataclass(frozen=True)
class Attack:
    item: str
    name: str
    server: Callable[[Path], Iterator[str]]  # yields the index URL
    verb: str = "resolve"


@contextmanager
def _wheel(make: Callable[[Path], Path], root: Path) -> Iterator[str]:
    d = root / "wheels"
    d.mkdir(exist_ok=True)
    state = State(root=d)
    state.add("torch", make(d))
    with serve(state) as url:
        yield url


@contextmanager
def _scripted(page: Callable | None = None, wheel: Callable | None = None) -> Iterator[str]:
    with Scripted() as srv:
        name = wheel_name(V).replace("+", "%2B")
        srv.route("/simple/torch/", page or body(
            f'<a href="/files/{name}">{wheel_name(V)}</a>'.encode(), content_type="text/html"))
        if wheel:
            srv.route_prefix("/files/", wheel)
        yield srv.url + "/simple"


@contextmanager
def _with_credentials(root: Path) -> Iterator[str]:
    with Scripted() as srv:
        srv.route("/simple/torch/", body(b"", 503))
        yield srv.url.replace("http://", f"http://alice:{SECRET}@") + "/simple"


def attacks() -> list[Attack]:
    gib = 1 << 30
    return [
        Attack("4", "deflate bomb, 1 GiB from 1 MB (honest sizes)", lambda r: _wheel(
            lambda d: hostile.bomb_wheel(d, V, method=hostile.DEFLATED, size=gib), r)),
        Attack("4", "deflate bomb, 1 GiB, directory says 300 bytes", lambda r: _wheel(
            lambda d: hostile.bomb_wheel(d, V, method=hostile.DEFLATED, size=gib, lie=True), r)),
        Attack("4", "bzip2 bomb, 1 GiB from 785 bytes (honest sizes)", lambda r: _wheel(
            lambda d: hostile.bomb_wheel(d, V, method=hostile.BZIP2, size=gib), r)),
        Attack("4", "bzip2 bomb, 1 GiB, directory says 300 bytes", lambda r: _wheel(
            lambda d: hostile.bomb_wheel(d, V, method=hostile.BZIP2, size=gib, lie=True), r)),
        Attack("4", "huge version.py (10 MB, not a bomb)", lambda r: _wheel(
            lambda d: hostile.huge_version_wheel(d, V, size=10 << 20), r)),
        Attack("5", "206 with an endless body", lambda r: _scripted(wheel=stream(
            endless, status=206, headers={"Content-Range": "bytes 0-16383/9999999999"}))),
        Attack("5", "one byte per second", lambda r: _scripted(wheel=drip(
            16384, every=1.0, headers={"Content-Range": "bytes 0-16383/9999999"}))),
        Attack("5", "200 to Range, 3 GiB body (Content-Length)", lambda r: _scripted(
            wheel=stream(endless, length=3 * gib))),
        Attack("5", "200 to Range, endless body without length", lambda r: _scripted(
            wheel=stream(endless))),
        Attack("6", "redirect loop", lambda r: _scripted(page=redirect("/simple/torch/")),
               verb="plan"),
        Attack("6", "redirect to file://", lambda r: _scripted(
            page=redirect("file:///etc/passwd")), verb="plan"),
        Attack("6", "200,000-deep JSON index", lambda r: _scripted(
            page=body(hostile.deep_json(200_000), content_type=JSON)), verb="plan"),
        Attack("6", '"hashes": "x"', lambda r: _scripted(
            page=body(hostile.ill_typed_json("hashes"), content_type=JSON)), verb="plan"),
        Attack("6", '"meta": [..]', lambda r: _scripted(
            page=body(hostile.ill_typed_json("meta"), content_type=JSON)), verb="plan"),
        Attack("6", "1,000,000-link index page (37 MB)", lambda r: _scripted(
            page=body(hostile.many_links_html(1_000_000), content_type="text/html")),
               verb="plan"),
        Attack("6", "1,000,000-link page without Content-Length", lambda r: _scripted(
            page=stream(lambda: _chunks(hostile.many_links_html(1_000_000)))), verb="plan"),
        Attack("6", "16 MiB of '<' as an HTML page", lambda r: _scripted(
            page=body(b"<" * ((16 << 20) - 1), content_type="text/html")), verb="plan"),
        Attack("6", "100,001-link index page (3.5 MB)", lambda r: _scripted(
            page=body(hostile.many_links_html(100_001), content_type="text/html")),
               verb="plan"),
        Attack("7", "credentials in --index-url, 503 on every try", _with_credentials,
               verb="versions"),
    ]


def _chunks(data: bytes, size: int = 1 << 16) -> Iterator[bytes]:
    return (data[i:i + size] for i in range(0, len(data), size))


def _argv(verb: str, url: str, out: Path) -> list[str]:
    script = str(ROOT / "scripts" / "nightly_bisect.py")
    if verb == "plan":
        return [sys.executable, script, "plan", "--index-url", url, "--python", "3.12",
                "--good", "dev20260601", "--bad", "dev20260609", "--out", str(out)]
    if verb == "versions":
        return [sys.executable, script, "versions", "--index-url", url, "--python", "3.12"]
    return [sys.executable, script, "resolve", "--index-url", url, "--python", "3.12",
            "--version", "dev20260601"]


# Linux counts the memory a child had before exec (a copy of its parent's) in its peak,
# so the CLI is started from a small launcher made before the attacks' pages and bombs
# fill this process: the peak reported is the CLI's own.
LAUNCHER = """
import json, os, subprocess, sys, threading, time
for line in sys.stdin:
    job = json.loads(line)
    with open(job["out"], "w") as fo, open(job["err"], "w") as fe:
        t0 = time.perf_counter()
        proc = subprocess.Popen(job["argv"], env=job["env"], stdout=fo, stderr=fe)
        killer = threading.Timer(300, proc.kill)
        killer.start()
        _pid, status, usage = os.wait4(proc.pid, 0)
        killer.cancel()
    print(json.dumps({"code": os.waitstatus_to_exitcode(status), "maxrss_kib": usage.ru_maxrss,
                      "secs": time.perf_counter() - t0}), flush=True)
"""


class Launcher:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", LAUNCHER], text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def run(self, argv: list[str], env: dict[str, str], root: Path) -> dict:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({"argv": argv, "env": env,
                                          "out": str(root / "stdout"),
                                          "err": str(root / "stderr")}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait()


def run(attack: Attack, launcher: Launcher) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="agentops-hostile-") as tmp:
        root = Path(tmp)
        (root / "tmp").mkdir()
        summary = root / "summary.md"
        summary.write_text("")
        out = root / "out" / "matrix.json"
        env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTOPS_")}
        env.update(TMPDIR=str(root / "tmp"), GITHUB_ACTIONS="true",
                   GITHUB_STEP_SUMMARY=str(summary), PYTHONPATH=str(ROOT / "src"))
        with attack.server(root) as url:
            got = launcher.run(_argv(attack.verb, url, out), env, root)
        stdout, stderr = (root / "stdout").read_text(), (root / "stderr").read_text()
        peak, secs, code = got["maxrss_kib"], got["secs"], got["code"]
        leftovers = [p.name for p in (root / "tmp").iterdir()] + (
            ["--out file"] if out.exists() else [])
        masked = [ln for ln in stderr.splitlines() if ln.startswith("::add-mask::")]
        shown = "\n".join(ln for ln in stderr.splitlines() if ln not in masked)
        leaked = SECRET in shown or SECRET in stdout or SECRET in summary.read_text()
        errors = [ln.split("::", 2)[-1].replace("%25", "%") for ln in stderr.splitlines()
                  if ln.startswith("::error")] or stderr.strip().splitlines()[-1:] or [""]
        return {"code": code, "secs": secs, "mb": peak / 1024,
                "longest": max((len(ln) for ln in stderr.splitlines()), default=0),
                "leaked": leaked, "left": leftovers, "error": errors[-1]}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default="", help="run the attacks whose name contains this")
    args = p.parse_args()
    launcher = Launcher()
    print(f"{'#12':<4} {'attack':<50} {'exit':>4} {'time':>7} {'peak':>8} {'line':>6}  "
          "leak  left  error")
    bad = 0
    for attack in attacks():
        if args.only and args.only not in attack.name:
            continue
        r = run(attack, launcher)
        ok = (r["code"] in (1, 5) and r["secs"] < 60 and r["mb"] < 700 and not r["leaked"]
              and not r["left"])
        bad += not ok
        print(f"{attack.item:<4} {attack.name:<50} {r['code']:>4} {r['secs']:>6.1f}s "
              f"{r['mb']:>6.0f}MB {r['longest']:>6}  {'YES' if r['leaked'] else 'no':<4}  "
              f"{','.join(r['left']) or '-':<4}  {str(r['error'])[:150]}"
              + ("" if ok else "   <-- over a bound"), flush=True)
    launcher.close()
    print(f"{bad} attack(s) outside the bounds (60 s, 700 MB, exit 1 or 5, no leak, "
          "nothing left)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
