"""Whose comment is it: the provenance of a comment the token's account wrote.

With a workflow's ``GITHUB_TOKEN`` the bot is ``github-actions[bot]``, and so is every
other workflow of the repository: a workflow that posts user text can post a comment
with the scout's heading and hidden block, and the author check alone
(``identity.Identity.wrote``) cannot tell it from the scout's. So a comment counts as
ours only when its provenance checks out (docs/security.md, "Comments the bot acts on"):

- **signature** — when a signing key is configured (a repository secret, the action's
  ``signing-key`` input, env ``AGENTOPS_SIGNING_KEY``), the comment must end with an
  HMAC-SHA256 of its body, keyed by it and bound to the repository and issue. Nothing
  else counts then.
- **run** — otherwise, when the scout's workflow is known (env
  ``AGENTOPS_SCOUT_WORKFLOW``, or in Actions the running workflow, ``GITHUB_WORKFLOW_REF``),
  the hidden block must name the workflow run that wrote it, and the Actions API
  (``GET /repos/{owner}/{repo}/actions/runs/{run_id}``) must show a run of that
  workflow file in that repository, alive when the comment was last written. Two
  comments naming the same run: neither counts.
- **author** — outside both (a shell, no key) a personal account's comments count by
  author, as only that person's tokens write as them; an App bot's (``…[bot]``) never do,
  since its account is shared by every workflow of the installation.

Unknown is never ours: a lookup that fails, or past ``MAX_RUN_LOOKUPS`` per run, makes
the comment not ours with a warning. Adapter side: reads only (one GET per run, cached).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentops import ghactions
from agentops.errors import ApiError, InputError
from agentops.flag_values import is_repo
from agentops.github.client import GitHubClient
from agentops.github.identity import Identity

MAX_RUN_LOOKUPS = 20  # Sanity: a tracking issue holds a week of reports, not hundreds
# A run's clock and a comment's clock are GitHub's; the slack covers a job that posts
# right as the run is marked completed.
CLOCK_SLACK = dt.timedelta(minutes=10)
SIG_LINE = "<!-- agentops:sig v1 hmac-sha256={mac} -->"
_SIG_RE = re.compile(r"\n*<!-- agentops:sig v1 hmac-sha256=(?P<mac>[0-9a-f]{64}) -->\n*\Z")
_PATH_RE = re.compile(r"(?:^|/)(\.github/workflows/[^@\s]+?)(?:@.*)?$")
MIN_KEY_BYTES = 16


@dataclass(frozen=True)
class RunRef:
    """A workflow run: the repository it ran in and its id."""

    repository: str
    run_id: int

    def to_json(self) -> dict[str, Any]:
        return {"repository": self.repository, "id": self.run_id}


@dataclass(frozen=True)
class Workflow:
    """The scout's workflow: its repository and file (``.github/workflows/x.yml``)."""

    repository: str
    path: str


@dataclass(frozen=True)
class Verdict:
    """Whether a comment is ours, and why (or why not)."""

    ours: bool
    why: str
    warn: bool = False  # provenance could not be established (an API error, a bound)


def run_claim(payload: Mapping[str, Any] | None) -> RunRef | None:
    """The run a hidden block names (``"run": {"repository": "o/r", "id": N}``), if
    well formed."""
    run = payload.get("run") if isinstance(payload, Mapping) else None
    if not isinstance(run, Mapping):
        return None
    repo, rid = run.get("repository"), run.get("id")
    if not isinstance(repo, str) or not is_repo(repo):
        return None
    if isinstance(rid, bool) or not isinstance(rid, int) or rid < 1:
        return None
    return RunRef(repo, rid)


def current_run(env: Mapping[str, str] | None = None) -> RunRef | None:
    """The run this process is a step of (``GITHUB_REPOSITORY``, ``GITHUB_RUN_ID``)."""
    env = os.environ if env is None else env
    repo = (env.get("GITHUB_REPOSITORY") or "").strip()
    rid = (env.get("GITHUB_RUN_ID") or "").strip()
    if is_repo(repo) and rid.isdigit() and int(rid) > 0:
        return RunRef(repo, int(rid))
    return None


def workflow_path(value: str) -> str | None:
    """``.github/workflows/x.yml`` from a run's ``path`` or a workflow ref (with or
    without ``owner/repo/`` in front and ``@ref`` behind), else None."""
    match = _PATH_RE.search(value.strip())
    return match.group(1) if match else None


def scout_workflow(env: Mapping[str, str] | None = None,
                   var: str = "AGENTOPS_SCOUT_WORKFLOW") -> Workflow | None:
    """The skill's workflow: ``var`` (``owner/repo/.github/workflows/x.yml``, or a path
    in ``GITHUB_REPOSITORY``), else in Actions the running workflow
    (``GITHUB_WORKFLOW_REF``); None outside both."""
    env = os.environ if env is None else env
    ref = (env.get(var) or "").strip()
    if not ref and env.get("GITHUB_ACTIONS") == "true":
        ref = (env.get("GITHUB_WORKFLOW_REF") or "").strip()
    if not ref:
        return None
    path = workflow_path(ref)
    head = ref.split("/.github/", 1)[0] if "/.github/" in ref else ""
    repo = head if is_repo(head) else (env.get("GITHUB_REPOSITORY") or "").strip()
    if path is None or not is_repo(repo):
        raise InputError(var, f"{ref[:120]!r} names no workflow file of a repository",
                         fix="give OWNER/NAME/.github/workflows/FILE.yml (the skill's own "
                             "workflow), or .github/workflows/FILE.yml with GITHUB_REPOSITORY "
                             "set")
    return Workflow(repo, path)


def signing_key(env: Mapping[str, str] | None = None) -> bytes | None:
    """``AGENTOPS_SIGNING_KEY`` (the action's ``signing-key`` input), or None."""
    env = os.environ if env is None else env
    raw = env.get("AGENTOPS_SIGNING_KEY") or ""
    if not raw.strip():
        return None
    ghactions.mask(raw.strip())
    key = raw.strip().encode()
    if len(key) < MIN_KEY_BYTES:
        raise InputError("AGENTOPS_SIGNING_KEY", f"shorter than {MIN_KEY_BYTES} bytes",
                         fix="store a long random secret (e.g. `openssl rand -hex 32`) as a "
                             "repository secret and pass it as the action's signing-key")
    return key


def _mac(key: bytes, repo: str, issue: int, body: str) -> str:
    # Bound to where the comment lives: a signed report copied to another issue or
    # repository does not count there.
    text = f"agentops comment v1\n{repo.casefold()}#{int(issue)}\n{body.rstrip()}"
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def unsigned(body: str) -> str:
    """``body`` without its signature line."""
    return _SIG_RE.sub("", body).rstrip() + "\n"


def sign(body: str, *, key: bytes | None, repo: str, issue: int) -> str:
    """``body`` with a fresh signature line (any old one removed); without a key,
    just without the old line."""
    plain = unsigned(body)
    if key is None:
        return plain
    return f"{plain}{SIG_LINE.format(mac=_mac(key, repo, issue, plain))}\n"


def signature_ok(body: str, *, key: bytes, repo: str, issue: int) -> bool:
    match = _SIG_RE.search(body)
    if match is None:
        return False
    return hmac.compare_digest(match.group("mac"), _mac(key, repo, issue, unsigned(body)))


# A hidden line for comments without a JSON block (triage's template comments).
RUN_LINE = "<!-- agentops:run {repository} {id} -->"
_RUN_LINE_RE = re.compile(r"<!-- agentops:run ([\w.-]+/[\w.-]+) ([0-9]{1,20}) -->")


def with_run_line(body: str, run: Mapping[str, Any]) -> str:
    """``body`` with its run line set to ``run`` (a ``stamp`` for ``Provenance.seal``)."""
    plain = _RUN_LINE_RE.sub("", body).rstrip()
    return f"{plain}\n{RUN_LINE.format(repository=run['repository'], id=int(run['id']))}\n"


def run_line_payload(body: str) -> dict[str, Any] | None:
    """``{"run": {...}}`` from the last run line of ``body``, for ``judge``."""
    found = _RUN_LINE_RE.findall(body)
    if not found:
        return None
    repo, rid = found[-1]
    return {"run": {"repository": repo, "id": int(rid)}}


def _time(value: object) -> dt.datetime | None:
    try:
        out = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return out if out.tzinfo else out.replace(tzinfo=dt.UTC)


@dataclass
class Provenance:
    """Judges the provenance of comments on one issue (``repo#issue``) for ``me``."""

    client: GitHubClient
    repo: str
    issue: int
    me: Identity
    key: bytes | None = None
    workflow: Workflow | None = None
    run: RunRef | None = None  # the run this process is a step of (stamped on writes)
    max_lookups: int = MAX_RUN_LOOKUPS
    now: dt.datetime | None = None
    _runs: dict[RunRef, Any] = field(default_factory=dict)
    lookups: int = 0

    @classmethod
    def from_env(cls, client: GitHubClient, repo: str, issue: int, me: Identity,
                 env: Mapping[str, str] | None = None, *,
                 workflow_var: str = "AGENTOPS_SCOUT_WORKFLOW",
                 max_lookups: int = MAX_RUN_LOOKUPS) -> Provenance:
        return cls(client, repo, issue, me, key=signing_key(env),
                   workflow=scout_workflow(env, workflow_var), run=current_run(env),
                   max_lookups=max_lookups)

    @property
    def mode(self) -> str:
        """``signature`` | ``run`` | ``author`` | ``none`` (nothing can be ours)."""
        if self.key is not None:
            return "signature"
        if self.workflow is not None:
            return "run"
        return "none" if self.me.login.endswith("[bot]") else "author"

    def describe(self) -> str:
        """One line for the log: how a comment is told to be ours."""
        return {
            "signature": "a comment is ours only with a valid signature (signing key set)",
            "run": (f"a comment is ours only when it names a run of {self.workflow.path} in "
                    f"{self.workflow.repository}" if self.workflow else ""),
            "author": f"a comment is ours when {self.me.login} wrote it (a personal account)",
            "none": (f"no comment of {self.me.login} can be told ours: it is an App's account "
                     "shared by every workflow, and neither a signing key "
                     "(AGENTOPS_SIGNING_KEY) nor the scout's workflow "
                     "(AGENTOPS_SCOUT_WORKFLOW) is known"),
        }[self.mode]

    # --- writing -------------------------------------------------------------------------

    def seal(self, body: str, stamp: Any, *, issue: int | None = None) -> str:
        """What to write: ``stamp(body, run)`` records this run in the hidden block (when
        this is a workflow run), then the signature when a key is set."""
        if self.run is not None:
            body = stamp(unsigned(body), self.run.to_json())
        return sign(body, key=self.key, repo=self.repo,
                    issue=self.issue if issue is None else issue)

    # --- reading -------------------------------------------------------------------------

    def judge_all(self, comments: Sequence[Mapping[str, Any]],
                  payloads: Sequence[Mapping[str, Any] | None], *,
                  issue: int | None = None) -> list[Verdict]:
        """A verdict per comment (same order). In ``run`` mode a run named by two
        comments makes neither ours: a copy of a real run's id is a look-alike."""
        verdicts = [self.judge(c, p, issue=issue)
                    for c, p in zip(comments, payloads, strict=True)]
        if self.mode != "run":
            return verdicts
        claims: dict[RunRef, list[int]] = {}
        for i, (verdict, payload) in enumerate(zip(verdicts, payloads, strict=True)):
            claim = run_claim(payload)
            if verdict.ours and claim is not None:
                claims.setdefault(claim, []).append(i)
        for claim, where in claims.items():
            if len(where) > 1:
                for i in where:
                    verdicts[i] = Verdict(False, f"run {claim.run_id} is named by "
                                                 f"{len(where)} comments; none counts")
        return verdicts

    def judge(self, comment: Mapping[str, Any], payload: Mapping[str, Any] | None, *,
              issue: int | None = None) -> Verdict:
        """Whether ``comment`` (with its parsed hidden block) on ``issue`` (default: the
        one this was made for) is ours."""
        if not self.me.wrote(comment):
            return Verdict(False, f"not written by {self.me.login} (the token's account)")
        mode = self.mode
        if mode == "author":
            return Verdict(True, f"written by {self.me.login}")
        if mode == "none":
            return Verdict(False, "provenance cannot be established (no signing key, no "
                                  "scout workflow)", warn=True)
        if mode == "signature":
            assert self.key is not None
            ok = signature_ok(str(comment.get("body") or ""), key=self.key, repo=self.repo,
                              issue=self.issue if issue is None else issue)
            return Verdict(ok, "signed with the signing key" if ok
                           else "no valid signature of the signing key")
        return self._judge_run(comment, payload)

    def _judge_run(self, comment: Mapping[str, Any], payload: Mapping[str, Any] | None
                   ) -> Verdict:
        wf = self.workflow
        assert wf is not None
        claim = run_claim(payload)
        if claim is None:
            return Verdict(False, "its hidden block names no workflow run")
        if claim.repository.casefold() != wf.repository.casefold():
            return Verdict(False, f"names a run of {claim.repository}, not of "
                                  f"{wf.repository}")
        run = self._lookup(claim)
        if isinstance(run, Verdict):
            return run
        repo = (run.get("repository") or {}).get("full_name") \
            if isinstance(run.get("repository"), Mapping) else None
        if int(run.get("id") or 0) != claim.run_id or not isinstance(repo, str) \
                or repo.casefold() != wf.repository.casefold():
            return Verdict(False, f"run {claim.run_id} is not a run of {wf.repository}")
        path = workflow_path(str(run.get("path") or ""))
        if path != wf.path:
            return Verdict(False, f"run {claim.run_id} is a run of {path or 'another workflow'}"
                                  f", not of {wf.path}")
        written = _time(comment.get("updated_at") or comment.get("created_at"))
        start = _time(run.get("created_at"))
        end = (_time(run.get("updated_at")) if run.get("status") == "completed"
               else self.now or dt.datetime.now(dt.UTC))
        if written is None or start is None or end is None \
                or not start - CLOCK_SLACK <= written <= end + CLOCK_SLACK:
            return Verdict(False, f"last written at {comment.get('updated_at')}, outside run "
                                  f"{claim.run_id} ({run.get('created_at')} to "
                                  f"{run.get('updated_at')})")
        return Verdict(True, f"written by run {claim.run_id} of {wf.path}")

    def _lookup(self, claim: RunRef) -> Mapping[str, Any] | Verdict:
        if claim in self._runs:
            return self._runs[claim]  # type: ignore[no-any-return]
        if self.lookups >= self.max_lookups:
            return Verdict(False, f"provenance not checked: more than {self.max_lookups} "
                                  "workflow runs to look up in one run", warn=True)
        self.lookups += 1
        path = f"/repos/{claim.repository}/actions/runs/{claim.run_id}"
        result: Mapping[str, Any] | Verdict
        try:
            run = self.client.read(path)
        except ApiError as exc:
            if exc.status_code == 404:
                result = Verdict(False, f"run {claim.run_id} does not exist in "
                                        f"{claim.repository}")
            else:
                result = Verdict(False, f"provenance could not be established: GET {path} "
                                        f"failed ({exc.message})", warn=True)
        else:
            result = run if isinstance(run, Mapping) else Verdict(
                False, f"provenance could not be established: GET {path} answered no run",
                warn=True)
        self._runs[claim] = result
        return result
