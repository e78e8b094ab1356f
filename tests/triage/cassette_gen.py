"""Regenerate cassettes/triage/*.yaml (run by hand: ``python -m tests.triage.cassette_gen``).

The interactions are recorded from the GitHub stand-in (tests/standin/github.py, which
serves the real REST/GraphQL shapes), then rewritten to api.github.com with GitHub's
response headers. No token is recorded (the Authorization header is filtered).
Review the diff of cassettes/triage/ after regenerating.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import vcr
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from agentops.errors import AgentopsError  # noqa: E402
from agentops.github.client import GitHubClient, RetryPolicy  # noqa: E402
from agentops.triage.apply import apply_plan  # noqa: E402
from agentops.triage.backtest import collect_triaged  # noqa: E402
from agentops.triage.collect import collect_issue  # noqa: E402
from agentops.triage.queue import load_queue  # noqa: E402
from tests.standin.github import GitHubStandIn  # noqa: E402
from tests.triage import livekit  # noqa: E402

OUT = ROOT / "cassettes" / "triage"
REPO = "acme/trainer"
API = "https://api.github.com"

BODY = """### 🐛 Describe the bug

With FSDP2 `fully_shard` on 2 nodes x 8 GPUs the first forward hangs in all-gather.

```python
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard
dist.init_process_group("nccl")
model = fully_shard(build_model())
loss = model(batch).sum()  # never returns on rank 3
```

### Versions
torch 2.9.0+cu128
"""


def scenario(gh: GitHubStandIn, name: str) -> None:
    client = GitHubClient(gh.token, api_url=gh.url, policy=RetryPolicy(base_delay=0.01))
    queue = livekit.make_queue()
    if name in ("run_cold", "run_repeat"):
        snap = collect_issue(client, REPO, 4242)
        apply_plan(client, livekit.fake_plan(snap, queue), snap, queue)
    elif name == "missing_label":
        snap = collect_issue(client, REPO, 4243)
        with contextlib.suppress(AgentopsError):
            apply_plan(client, livekit.fake_plan(snap, queue), snap, queue)
    elif name == "unknown_issue":
        with contextlib.suppress(AgentopsError):
            collect_issue(client, REPO, 999999)
    elif name == "backtest_from_recorded_api":
        collect_triaged(client, REPO, load_queue("distributed"), since="2025-01-01",
                        max_issues=55)


def history(gh: GitHubStandIn) -> None:
    """The backtest's history: newest first, a long triaged thread, ten issues nobody
    triaged, then fifty that humans routed and labelled."""
    trigger = livekit.TRIGGER
    gh.add_issue(REPO, 7001, title="DDP hangs after resuming", body="DistributedDataParallel "
                 "hangs after a resume.", labels=[trigger, livekit.PAR, "module: ddp"],
                 login="frank", age_days=5,
                 comments=[{"body": f"Same on node {i}.", "login": f"user{i}"} for i in range(103)])
    for i in range(10):
        gh.add_issue(REPO, 6900 + i, title=f"training is stuck ({i})", body="It is stuck.",
                     labels=[trigger], login="gina", age_days=10 + i)
    for i in range(50):
        if i % 2:
            gh.add_issue(REPO, 6000 + i, title=f"fully_shard fails on tied weights ({i})",
                         body="from torch.distributed.fsdp import fully_shard",
                         labels=[trigger, livekit.PAR, "module: fsdp", "triaged"],
                         login="hana", age_days=30 + i)
        else:
            gh.add_issue(REPO, 6000 + i, title=f"ProcessGroupNCCL watchdog fires ({i})",
                         body="NCCL watchdog timeout after 600000 ms",
                         labels=[trigger, livekit.INFRA, "module: nccl"],
                         login="ivan", age_days=30 + i)

def rewrite(path: Path, base: str) -> None:
    doc = yaml.safe_load(path.read_text())
    for i, inter in enumerate(doc["interactions"]):
        req, resp = inter["request"], inter["response"]
        req["uri"] = req["uri"].replace(base, API)
        req["headers"] = {k: v for k, v in req["headers"].items()
                          if k.lower() in ("accept", "content-type", "user-agent")}
        old = {k.lower(): v for k, v in resp["headers"].items()}
        headers = {
            "Content-Type": ["application/json; charset=utf-8"],
            "Date": [f"Mon, 01 Jun 2026 12:00:{i % 60:02d} GMT"],
            "Server": ["github.com"],
            "X-GitHub-Media-Type": ["github.v3; format=json"],
            "X-GitHub-Api-Version-Selected": ["2022-11-28"],
            "X-RateLimit-Limit": ["5000"],
            "X-RateLimit-Remaining": [str(4990 - i)],
            "X-RateLimit-Reset": ["1780318800"],
            "X-RateLimit-Used": [str(10 + i)],
            "X-RateLimit-Resource": ["graphql" if req["uri"].endswith("/graphql") else "core"],
        }
        if "link" in old:
            headers["Link"] = [v.replace(base, API) for v in old["link"]]
        resp["headers"] = headers
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with GitHubStandIn() as gh:
        gh.add_repo(REPO, labels=[lb for lb in livekit.REPO_LABELS if lb != "module: c10d"])
        gh.add_issue(REPO, 4242, title="FSDP2 fully_shard [repro] hangs at first all-gather",
                     body=BODY, labels=[livekit.TRIGGER], login="alice",
                     comments=[{"body": "Same on 2.8.0.", "login": "bob"},
                               {"body": "cc @carol", "login": "dave", "association": "MEMBER"}])
        gh.add_issue(REPO, 4243, title="allreduce returns wrong sums on 4 ranks [hp]",
                     body="dist.all_reduce(t) gives 6 instead of 10 with NCCL.",
                     labels=[livekit.TRIGGER], login="erin")
        history(gh)
        for name in ("run_cold", "run_repeat", "missing_label", "unknown_issue",
                     "backtest_from_recorded_api"):
            path = OUT / f"test_{name}.yaml"
            path.unlink(missing_ok=True)
            rec = vcr.VCR(record_mode="all", filter_headers=["authorization"],
                          decode_compressed_response=True)
            with rec.use_cassette(str(path)):
                scenario(gh, name)
            rewrite(path, gh.url)
            print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
