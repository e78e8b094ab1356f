"""agentops.github.provenance on its own (issue #21 item 5): the run lookups are cached
and bounded, unknown is never ours, the workflow is read from the forms GitHub writes,
and the key and the workflow setting are checked on load."""

from __future__ import annotations

import pytest

from agentops.errors import ApiError, InputError
from agentops.github import provenance
from agentops.github.identity import Identity

REPO = "acme/trainer"
WF = ".github/workflows/nightly-scout.yml"
BOT = Identity("github-actions[bot]", "GraphQL viewer")


class Runs:
    """A client whose only answer is GET …/actions/runs/{id}; counts the reads."""

    def __init__(self, runs: dict[int, dict] | None = None, fail: int = 0) -> None:
        self.runs, self.fail, self.reads = runs or {}, fail, []

    def read(self, path: str):  # type: ignore[no-untyped-def]
        self.reads.append(path)
        if self.fail:
            raise ApiError(f"GET {path} failed: HTTP {self.fail}", status_code=self.fail)
        rid = int(path.rsplit("/", 1)[-1])
        if rid not in self.runs:
            raise ApiError(f"GET {path} failed: HTTP 404", status_code=404)
        return self.runs[rid]


def run(rid: int, path: str = WF) -> dict:
    return {"id": rid, "path": path, "status": "completed",
            "created_at": "2026-07-09T06:00:00Z", "updated_at": "2026-07-09T06:30:00Z",
            "repository": {"full_name": REPO}}


def comment(rid: int, when: str = "2026-07-09T06:10:00Z") -> tuple[dict, dict]:
    return ({"user": {"login": BOT.login}, "body": "x", "updated_at": when},
            {"run": {"repository": REPO, "id": rid}})


def prov(client: Runs, **kw) -> provenance.Provenance:
    return provenance.Provenance(client, REPO, 1, BOT,  # type: ignore[arg-type]
                                 workflow=provenance.Workflow(REPO, WF), **kw)


def test_lookups_are_cached_and_bounded():
    client = Runs({n: run(n) for n in range(1, 6)})
    p = prov(client, max_lookups=3)
    for _ in range(2):
        assert p.judge(*comment(1)).ours
    assert len(client.reads) == 1  # cached
    verdicts = [p.judge(*comment(n)) for n in range(2, 6)]
    assert [v.ours for v in verdicts] == [True, True, False, False]
    assert verdicts[-1].warn and "more than 3 workflow runs" in verdicts[-1].why
    assert len(client.reads) == 3


@pytest.mark.parametrize(("client", "why", "warn"), [
    (Runs(fail=502), "provenance could not be established", True),
    (Runs(fail=403), "provenance could not be established", True),
    (Runs(), "does not exist", False),
    (Runs({1: run(1, ".github/workflows/echo.yml")}), "is a run of .github/workflows/echo.yml",
     False),
    (Runs({1: {**run(1), "repository": {"full_name": "mallory/fork"}}}),
     "is not a run of acme/trainer", False),
    (Runs({1: "not a run"}), "answered no run", True),  # type: ignore[dict-item]
])
def test_unknown_or_wrong_is_never_ours(client, why, warn):
    verdict = prov(client).judge(*comment(1))
    assert not verdict.ours and why in verdict.why and verdict.warn is warn


def test_the_comment_must_be_written_while_the_run_was_alive():
    client = Runs({1: run(1)})
    assert prov(client).judge(*comment(1, "2026-07-09T06:39:00Z")).ours  # within the slack
    late = prov(client).judge(*comment(1, "2026-07-09T08:00:00Z"))
    assert not late.ours and "outside run 1" in late.why
    early = prov(client).judge(*comment(1, "2026-07-08T23:00:00Z"))
    assert not early.ours


@pytest.mark.parametrize(("value", "path"), [
    (".github/workflows/ci.yml", ".github/workflows/ci.yml"),
    (".github/workflows/build.yml@main", ".github/workflows/build.yml"),
    ("octocat/octo-repo/.github/workflows/ci.yml@refs/heads/main", ".github/workflows/ci.yml"),
    ("dynamic/pages/pages-build-deployment", None),
    ("", None),
])
def test_workflow_path_reads_the_forms_github_writes(value, path):
    assert provenance.workflow_path(value) == path


def test_the_scout_workflow_comes_from_the_setting_or_the_running_workflow():
    env = {"GITHUB_REPOSITORY": REPO, "GITHUB_ACTIONS": "true",
           "GITHUB_WORKFLOW_REF": f"{REPO}/{WF}@refs/heads/main"}
    assert provenance.scout_workflow(env) == provenance.Workflow(REPO, WF)
    assert provenance.scout_workflow({**env, "GITHUB_ACTIONS": ""}) is None  # a shell
    given = {**env, "AGENTOPS_SCOUT_WORKFLOW": "other/repo/.github/workflows/s.yml"}
    assert provenance.scout_workflow(given) == provenance.Workflow(
        "other/repo", ".github/workflows/s.yml")
    with pytest.raises(InputError, match="AGENTOPS_SCOUT_WORKFLOW"):
        provenance.scout_workflow({"AGENTOPS_SCOUT_WORKFLOW": "nightly"})


def test_a_short_signing_key_is_refused_and_a_signature_binds_the_issue():
    with pytest.raises(InputError, match="AGENTOPS_SIGNING_KEY"):
        provenance.signing_key({"AGENTOPS_SIGNING_KEY": "short"})
    key = provenance.signing_key({"AGENTOPS_SIGNING_KEY": "k" * 20})
    assert key == b"k" * 20
    body = provenance.sign("# report\n", key=key, repo=REPO, issue=1)
    assert provenance.signature_ok(body, key=key, repo=REPO, issue=1)
    assert not provenance.signature_ok(body, key=key, repo="acme/other", issue=1)
    assert not provenance.signature_ok(body.replace("report", "rep0rt"), key=key, repo=REPO,
                                       issue=1)
    assert not provenance.signature_ok("# report\n", key=key, repo=REPO, issue=1)


def test_a_run_claim_of_a_repository_with_a_dashed_name_is_a_claim():
    assert provenance.run_claim({"run": {"repository": "my-org/my-repo", "id": 3}}) == \
        provenance.RunRef("my-org/my-repo", 3)


def test_a_malformed_run_claim_is_no_claim():
    for run_field in ({"repository": REPO, "id": True}, {"repository": REPO, "id": -1},
                      {"repository": "not a repo", "id": 1}, {"id": 1}, "x", None):
        assert provenance.run_claim({"run": run_field}) is None


@pytest.mark.parametrize(("when", "ours"), [
    ("2026-07-09T05:50:00Z", True), ("2026-07-09T05:49:59Z", False),  # before the start
    ("2026-07-09T06:40:00Z", True), ("2026-07-09T06:40:01Z", False),  # after the end
])
def test_the_clock_slack_is_ten_minutes_either_side_of_the_run(when, ours):
    assert prov(Runs({1: run(1)})).judge(*comment(1, when)).ours is ours


@pytest.mark.parametrize(("env", "ref"), [
    ({"GITHUB_REPOSITORY": "my-org/my.repo", "GITHUB_RUN_ID": "42"},
     provenance.RunRef("my-org/my.repo", 42)),
    ({"GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "1"}, provenance.RunRef("o/r", 1)),
    # A repository name may hold a dash as well as an owner (GitHub allows both).
    ({"GITHUB_REPOSITORY": "o/r-x", "GITHUB_RUN_ID": "7"}, provenance.RunRef("o/r-x", 7)),
    ({"GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "0"}, None),  # no run has id 0
    ({"GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "12a"}, None),
    ({"GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "-3"}, None),
    ({"GITHUB_REPOSITORY": "o r", "GITHUB_RUN_ID": "5"}, None),
    ({"GITHUB_RUN_ID": "5"}, None),
])
def test_the_current_run_comes_only_from_a_well_formed_environment(env, ref):
    assert provenance.current_run(env) == ref


def test_a_run_line_round_trips_for_owners_and_names_with_dashes_and_dots():
    body = provenance.with_run_line("report", {"repository": "my-org/my.repo-x", "id": 77})
    assert provenance.run_line_payload(body) == {
        "run": {"repository": "my-org/my.repo-x", "id": 77}}
    # Re-stamping replaces the line rather than adding a second one.
    again = provenance.with_run_line(body, {"repository": "my-org/my.repo-x", "id": 78})
    assert again.count("agentops:run") == 1


@pytest.mark.parametrize("repo", ["o/..", "o/.", "../x", "-o/r", "o_x/r", "o/r/x"])
def test_a_run_claim_or_environment_naming_no_github_repository_is_none(repo):
    """One OWNER/NAME rule (flag_values.is_repo) for flags, API paths and provenance: a
    name GitHub cannot have, e.g. a dot segment that would walk an API path, is no
    claim and no current run."""
    assert provenance.run_claim({"run": {"repository": repo, "id": 1}}) is None
    assert provenance.current_run({"GITHUB_REPOSITORY": repo, "GITHUB_RUN_ID": "1"}) is None
