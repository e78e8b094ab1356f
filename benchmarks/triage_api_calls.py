#!/usr/bin/env python3
"""API calls made by live triage, measured against the GitHub stand-in on loopback.

Targets (T-28 and the sweep's read budget):
  run, cold:    <= 4 reads + <= 2 writes per issue
  run, repeat:  0 writes (T-27)
  sweep:        <= 1 read per 20 issues, plus extra comment pages and the label check
  evaluate --repo (backtest, #10): <= 1 search call per 50 issues read, plus comment
                pages for long threads; 0 writes

Usage: python benchmarks/triage_api_calls.py [--issues 100] [--repeat 5]
Uses the real planner when agentops.triage.plan exists, else the tests' rule planner
(the call counts depend on what gets applied, not on how it was decided).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from agentops.triage import live  # noqa: E402
from scripts import triage as cli  # noqa: E402
from tests.standin.github import GitHubStandIn  # noqa: E402
from tests.triage import livekit  # noqa: E402

KINDS = ["[infra]", "[ckpt]", "", "[repro]", "[low]", "[hp]", "[notdist]"]


def planner_name() -> str:
    try:
        import agentops.triage.plan
        import agentops.triage.queue  # noqa: F401
    except ImportError:
        live.load_queue = lambda name: livekit.make_queue()  # type: ignore[assignment]
        live.plan_issue = livekit.fake_plan  # type: ignore[assignment]
        return "tests' rule planner (agentops.triage.plan not present)"
    return "agentops.triage.plan"


def seed(gh: GitHubStandIn, n: int, *, first: int = 1) -> None:
    for i in range(first, first + n):
        comments = [{"body": f"comment {k}"} for k in range(150 if i % 25 == 0 else i % 4)]
        gh.add_issue("o/r", i, title=f"{KINDS[i % len(KINDS)]} FSDP all_gather hang {i}",
                     body="```python\nfully_shard(model)\n```\nhangs on 2 nodes",
                     labels=[livekit.TRIGGER], age_days=(n - i) / 10 + 1, comments=comments)


def quiet(fn, *args):  # type: ignore[no-untyped-def]
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        return fn(*args)


def bench_run(repeat: int) -> None:
    cold_r, cold_w, rep_r, rep_w, secs = [], [], [], [], []
    with GitHubStandIn() as gh:
        gh.add_repo("o/r", labels=livekit.REPO_LABELS)
        seed(gh, repeat * len(KINDS))
        os.environ.update(GITHUB_TOKEN=gh.token, GITHUB_API_URL=gh.url)
        for number in range(1, repeat * len(KINDS) + 1):
            gh.reset_log()
            t0 = time.perf_counter()
            rc = quiet(cli.main, ["run", "--repo", "o/r", "--issue", str(number)])
            secs.append(time.perf_counter() - t0)
            cold_r.append(len(gh.reads()))
            cold_w.append(len(gh.writes()))
            gh.reset_log()
            rc2 = quiet(cli.main, ["run", "--repo", "o/r", "--issue", str(number)])
            rep_r.append(len(gh.reads()))
            rep_w.append(len(gh.writes()))
            if rc or rc2:
                print(f"  #{number}: exit {rc}/{rc2}")
    print(f"run, cold   ({len(cold_r)} issues): reads median {statistics.median(cold_r)} "
          f"max {max(cold_r)}; writes median {statistics.median(cold_w)} max {max(cold_w)}"
          f"   (target <= 4 + <= 2)")
    print(f"run, repeat ({len(rep_r)} issues): reads median {statistics.median(rep_r)} "
          f"max {max(rep_r)}; writes max {max(rep_w)}   (target 0 writes)")
    print(f"run, cold wall time per issue: median {statistics.median(secs) * 1000:.0f} ms")


def bench_sweep(n: int) -> None:
    with GitHubStandIn() as gh, tempfile.TemporaryDirectory() as tmp:
        gh.add_repo("o/r", labels=livekit.REPO_LABELS)
        seed(gh, n)
        os.environ.update(GITHUB_TOKEN=gh.token, GITHUB_API_URL=gh.url)
        state = str(Path(tmp) / "state.json")
        for label, extra in (("dry run", ["--dry-run"]), ("live", [])):
            gh.reset_log()
            t0 = time.perf_counter()
            args = cli.build().parse_args(["sweep", "--repo", "o/r", "--max-issues", str(n),
                                           "--state-file", state, *extra])
            rc = quiet(live.sweep_command, args)
            dt = time.perf_counter() - t0
            reads = gh.reads()
            batch = sum(r.graphql == "AgentopsTriageQueue" for r in reads)
            labels = sum(r.graphql == "AgentopsLabelsExist" for r in reads)
            pages = len(reads) - batch - labels
            long_threads = sum(1 for i in range(1, n + 1) if i % 25 == 0)
            print(f"sweep {label:7} ({n} issues, exit {rc}): reads {len(reads)} = {batch} batch "
                  f"+ {labels} label check + {pages} comment pages ({long_threads} threads > 100 "
                  f"comments); {len(reads) / n * 20:.2f} reads per 20 issues "
                  f"({batch / n * 20:.2f} without comment pages); writes {len(gh.writes())}; "
                  f"{dt:.2f} s")
        gh.reset_log()
        args = cli.build().parse_args(["sweep", "--repo", "o/r", "--max-issues", str(n),
                                       "--state-file", state])
        rc = quiet(live.sweep_command, args)
        print(f"sweep again (exit {rc}): reads {len(gh.reads())}, writes {len(gh.writes())} "
              "(only the high-priority issues remain, unchanged: listed, not re-planned)")


def bench_paced_sweep(n: int, scale: float) -> None:
    """The live sweep with writes paced as in production (1 s) and the re-read window
    (60 s), both scaled down by ``scale`` so the ratio (and the read count) is the same."""
    with GitHubStandIn() as gh:
        gh.add_repo("o/r", labels=livekit.REPO_LABELS)
        seed(gh, n)
        os.environ.update(GITHUB_TOKEN=gh.token, GITHUB_API_URL=gh.url,
                          AGENTOPS_SECONDS_BETWEEN_WRITES=str(1.0 * scale),
                          AGENTOPS_SWEEP_FRESH_SECONDS=str(live.FRESH_SECONDS * scale))
        t0 = time.perf_counter()
        args = cli.build().parse_args(["sweep", "--repo", "o/r", "--max-issues", str(n)])
        rc = quiet(live.sweep_command, args)
        dt = time.perf_counter() - t0
        reads = gh.reads()
        refresh = sum(r.graphql == "AgentopsTriageIssues" for r in reads)
        pages = sum(not r.graphql for r in reads)
        print(f"sweep live, paced ({n} issues, exit {rc}, time scaled x{scale}: {dt:.1f} s "
              f"= {dt / scale:.0f} s in production): reads {len(reads)} incl. {refresh} "
              f"freshness re-reads and {pages} comment pages; "
              f"{(len(reads) - pages) / n * 20:.2f} reads per 20 issues without comment pages; "
              f"writes {len(gh.writes())}")
        for name in ("AGENTOPS_SECONDS_BETWEEN_WRITES", "AGENTOPS_SWEEP_FRESH_SECONDS"):
            os.environ.pop(name)


def bench_backtest(n: int) -> None:
    """`evaluate --repo` over a queue history of ``n`` issues (60 % human-triaged, one
    long thread per 100), with the shipped queue and planner."""
    from agentops.triage import backtest
    from agentops.triage.queue import load_queue

    queue = load_queue("distributed")
    with GitHubStandIn() as gh:
        gh.add_repo("o/r")
        for i in range(n):
            labels = [queue.trigger_label]
            if i % 5 < 3:
                labels += ["oncall: distributed parallelisms", "module: fsdp", "triaged"]
            comments = ([{"body": f"me too {k}", "login": f"u{k}"} for k in range(120)]
                        if i % 100 == 0 else [])
            gh.add_issue("o/r", 1 + i, title=f"fully_shard fails ({i})",
                         body="from torch.distributed.fsdp import fully_shard",
                         labels=labels, age_days=1000 - i, comments=comments)
        client = live.GitHubClient(gh.token, api_url=gh.url)
        t = time.perf_counter()
        bt = backtest.collect_triaged(client, "o/r", queue, since=None, max_issues=n)
        secs = time.perf_counter() - t
        print(f"evaluate --repo ({bt.scanned} issues read, {len(bt.records)} human-triaged): "
              f"{bt.search_calls} search calls + {bt.comment_pages} comment pages = "
              f"{client.counter.reads} reads ({bt.search_calls / max(1, bt.scanned) * 50:.2f} "
              f"search calls per 50 issues); writes {client.counter.writes}; {secs:.2f} s")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--issues", type=int, default=100, help="issues in the sweep backlog")
    p.add_argument("--repeat", type=int, default=3, help="run: issues per decision kind")
    p.add_argument("--paced-scale", type=float, default=0.1,
                   help="time scale of the paced sweep (0 skips it)")
    a = p.parse_args()
    os.environ.setdefault("AGENTOPS_RETRY_BASE_DELAY", "0.01")
    # The stand-in has no secondary limits; pacing would only measure sleep (the paced
    # sweep below restores it, scaled).
    os.environ["AGENTOPS_SECONDS_BETWEEN_WRITES"] = "0"
    print(f"planner: {planner_name()}")
    bench_run(a.repeat)
    bench_sweep(a.issues)
    bench_backtest(max(a.issues, 250))
    if a.paced_scale > 0:
        bench_paced_sweep(a.issues, a.paced_scale)


if __name__ == "__main__":
    main()
