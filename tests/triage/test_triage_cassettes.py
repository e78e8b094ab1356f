"""collect + apply replayed from cassettes of the REST/GraphQL API (api.github.com
paths, methods, fields and status codes; no Authorization header recorded).
Regenerate with ``python -m tests.triage.cassette_gen``."""

from __future__ import annotations

import pytest

from agentops.errors import ApiError, ConfigError
from agentops.github.client import GitHubClient, RetryPolicy
from agentops.triage.apply import apply_plan
from agentops.triage.collect import collect_issue
from tests.triage import livekit
from tests.triage.livekit import PAR, TRIGGER

CASSETTE_SKILL = "triage"
REPO = "acme/trainer"


@pytest.fixture
def client() -> GitHubClient:
    return GitHubClient("test-token", policy=RetryPolicy(attempts=1))


@pytest.mark.vcr
def test_run_cold(client, all_played):
    queue = livekit.make_queue()
    snap = collect_issue(client, REPO, 4242)
    assert snap.labels == (TRIGGER,) and snap.author == "alice"
    assert [c.author for c in snap.comments] == ["bob", "dave"]
    assert snap.comments[1].is_maintainer and "fully_shard" in snap.body
    res = apply_plan(client, livekit.fake_plan(snap, queue), snap, queue)
    assert res.labels_added == (PAR, "module: fsdp", "needs reproduction", "bot-triaged")
    assert res.final_labels == (TRIGGER, *res.labels_added)
    assert res.comment == "needs_distributed_reproduction"
    assert res.comment_url.startswith("https://github.com/acme/trainer/issues/4242#issuecomment-")
    assert client.counter.line() == "API calls: 5 (reads 3, writes 2, retries 0)"


@pytest.mark.vcr
def test_run_repeat(client, all_played):
    queue = livekit.make_queue()
    snap = collect_issue(client, REPO, 4242)
    res = apply_plan(client, livekit.fake_plan(snap, queue), snap, queue)
    assert res.writes == 0 and not res.changed
    assert res.comment_skipped.startswith("marker of needs_distributed_reproduction v2")
    assert client.counter.line() == "API calls: 2 (reads 2, writes 0, retries 0)"


@pytest.mark.vcr
def test_missing_label(client, all_played):
    queue = livekit.make_queue()
    snap = collect_issue(client, REPO, 4243)
    with pytest.raises(ConfigError, match="'module: c10d' do not exist in the repository"):
        apply_plan(client, livekit.fake_plan(snap, queue), snap, queue)
    assert client.counter.writes == 0


@pytest.mark.vcr
def test_unknown_issue(client, all_played):
    with pytest.raises(ApiError) as err:
        collect_issue(client, REPO, 999999)
    assert err.value.status_code == 404
    assert err.value.message == "issue acme/trainer#999999 not found (HTTP 404)"
