"""The only writer of the post-mortem skill (P-6): post an approved ADF artifact as a
JIRA comment, or write an approved Markdown artifact to ``docs/postmortems/``.

Writer side. Before the first write it checks the approval: the artifact's bytes hash
to the sha256 recorded at draft time *and* to the sha256 the approver named, and an
approver is named. What it posts is those bytes, unchanged (``{"body": <artifact>}``).
JIRA (API v3) goes through the one transport (``agentops.http``, the ``jira`` policy:
deadline, body cap, redirect rules, counted requests). It reads the issue's comments
first: a comment carrying this draft's id *written by the API user itself*
(``GET /rest/api/3/myself``) whose text is the approved artifact's (an earlier run, or a
re-run job) is the comment, and nothing is posted again. Anyone can paste the draft id
(it is in the job summary) into a comment: such look-alikes are ignored and counted.
It retries 429 and 5xx (``Retry-After`` or ``X-RateLimit-Reset`` when JIRA sends one,
else backoff), re-reading the comments after every answer that may have come after JIRA
stored the comment (5xx, reset, timeout), so one that landed is not posted twice; never
retries 413. Bad credentials (401) and a
missing permission (403) are configuration errors (exit 1): nothing is posted.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentops import files, ghactions
from agentops import http as transport_mod
from agentops.errors import AgentopsError, ApiError, ConfigError, InputError, RefusedError
from agentops.postmortem.render import validate_adf

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_KEY = re.compile(r"^[A-Z][A-Z0-9_]*-[0-9]+$")
_MARKER = re.compile(r"([A-Z][A-Z0-9_]*-[0-9]+ r[0-9]+ facts:[0-9a-f]{12}|"
                     r"[A-Z][A-Z0-9_]*-[0-9]+ r[0-9]+ facts:none)")
RETRY_STATUS = frozenset({500, 502, 503, 504})
# Sanity: JIRA's answers here are one comment or a page of 100; past this, not JIRA.
MAX_ANSWER_BYTES = 8 * 1024 * 1024
# Comments are read page by page (JIRA may answer fewer per page than asked); past
# this many pages publish refuses (exit 3) instead of risking a second post.
COMMENT_PAGE = 100
MAX_COMMENT_PAGES = 50


@dataclass(frozen=True)
class Artifact:
    """An approved draft: its bytes, and what the approval said."""

    path: str
    data: bytes
    sha256: str
    approved_by: str
    kind: str  # "adf" | "md"

    @property
    def marker(self) -> str | None:
        m = _MARKER.search(self.data.decode("utf-8", "replace"))
        return m.group(1) if m else None

    def check_ticket(self, key: str) -> None:
        """Sanity: ``key`` is a ticket key, and the post-mortem of one ticket is never
        posted on another."""
        if not _KEY.match(key):
            raise InputError("--ticket", f"not a ticket key: {key!r}", fix="e.g. JIRA-12345")
        ticket = (self.marker or "").split(" ")[0]
        if ticket != key:
            raise RefusedError(
                f"publish refused: {self.path} is the draft of {ticket or 'no ticket'} "
                f"(its Draft id), not of {key}; nothing was posted",
                fix="publish it on its own ticket, or draft the right facts file")


def sidecar(path: str | Path) -> Path:
    """Where ``draft --out FILE`` records the artifact's sha256 (``sha256sum`` format)."""
    return Path(f"{path}.sha256")


def record_hash(path: str | Path, data: bytes) -> str:
    """Write ``FILE.sha256`` next to an artifact; returns the hex digest."""
    digest = hashlib.sha256(data).hexdigest()
    files.write_atomic(sidecar(path), f"{digest}  {Path(path).name}\n", field="--out")
    return digest


def select_by_hash(folder: str | Path, approved_sha256: str | None) -> str:
    """The draft in ``folder`` whose recorded sha256 is the approved one."""
    approved = (approved_sha256 or "").strip().lower()
    found = []
    for record in sorted(Path(folder).glob("*.sha256")):
        parts = record.read_text(encoding="utf-8", errors="replace").split()
        if parts and parts[0] == approved:
            found.append(str(record.with_suffix("")))
    if len(found) != 1:
        raise RefusedError(f"publish refused: {len(found)} drafts in {folder} have the approved "
                           f"sha256 {approved or '(none given)'}; nothing was posted",
                           fix="approve the sha256 shown in the draft run's summary, and name "
                               "that run as draft-run")
    return found[0]


def load_approved(path: str, *, approved_sha256: str | None,
                  approved_by: str | None) -> Artifact:
    """The artifact, if and only if it is the approved one; RefusedError otherwise."""
    data = files.read_bytes(path, field="--draft", fix="pass the file that `draft --out` wrote")
    digest = hashlib.sha256(data).hexdigest()
    reasons = []
    try:
        recorded = sidecar(path).read_text(encoding="utf-8", errors="replace").split()[0]
    except (OSError, IndexError):
        recorded = None
    if not recorded:
        reasons.append(f"no recorded hash: {sidecar(path)} is missing (publish takes only "
                       "what `draft --out` wrote)")
    elif recorded != digest:
        reasons.append(f"the artifact changed after drafting: sha256 {digest} != recorded "
                       f"{recorded}")
    approved = (approved_sha256 or "").strip().lower()
    if not approved:
        reasons.append("no approval: --approved-sha256 (AGENTOPS_APPROVED_SHA256) is not set")
    elif not _SHA256.match(approved):
        reasons.append(f"--approved-sha256 is not a sha256: {approved_sha256!r}")
    elif approved != digest:
        reasons.append(f"the approved sha256 {approved} is not this artifact's {digest}")
    if not (approved_by or "").strip():
        reasons.append("no approver: --approved-by (AGENTOPS_APPROVED_BY) is not set")
    if reasons:
        raise RefusedError(f"publish refused: {path} is not an approved artifact; nothing "
                           "was posted", reasons,
                           fix="approve the draft (the Environment review, or dispatch with "
                               "approve: <sha256 shown in the draft job's summary>)")
    kind = "adf" if data.lstrip()[:1] == b"{" else "md"
    if kind == "adf":
        try:
            doc = json.loads(data)
        except ValueError as exc:
            raise InputError("--draft", f"{path} looks like JSON but does not parse: {exc}",
                             fix="draft it again with --format adf") from exc
        problems = validate_adf(doc)
        if problems:
            raise InputError("--draft", f"{path} is not valid ADF: {problems[0]}",
                             fix="draft it again with --format adf")
    return Artifact(path=path, data=data, sha256=digest, approved_by=str(approved_by).strip(),
                    kind=kind)


def write_docs(artifact: Artifact, *, ticket: str, root: str | Path = ".") -> tuple[Path, str]:
    """Write ``docs/postmortems/<ticket>.md`` (for a pull request); returns (path,
    created|updated|noop)."""
    if artifact.kind != "md":
        raise InputError("--draft", "the docs destination takes the Markdown artifact",
                         fix="draft with --format md --destination docs")
    artifact.check_ticket(ticket)
    target = Path(root) / "docs" / "postmortems" / f"{ticket}.md"
    old = target.read_bytes() if target.exists() else None
    if old == artifact.data:
        return target, "noop"
    files.write_atomic(target, artifact.data, field="--root")
    return target, "updated" if old is not None else "created"


class Jira:
    """JIRA Cloud REST v3, basic auth (email + API token). The keyword arguments
    override the ``jira`` policy (``docs/http.md``); ``calls`` counts requests."""

    def __init__(self, base_url: str, *, email: str, token: str, attempts: int | None = None,
                 base_delay: float | None = None, max_wait: float | None = None,
                 timeout: float | None = None, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time,
                 policy: transport_mod.Policy | None = None) -> None:
        parsed = urllib.parse.urlparse(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise InputError("--jira-url", "not an http(s) URL: "
                             f"{transport_mod.short(transport_mod.redact(base_url), 200)!r}",
                             fix="e.g. https://your-site.atlassian.net")
        if not email or not token:
            raise InputError("JIRA_EMAIL/JIRA_API_TOKEN", "not set",
                             fix="pass the JIRA account email and API token as environment "
                                 "secrets of the publish job")
        # Security: the token and the Basic header value derived from it are masked
        # and scrubbed from every output.
        ghactions.secret(token, user=email)
        transport_mod.mask_credentials(base_url)
        self.base = base_url.rstrip("/")
        policy = policy or transport_mod.Policy.from_env(service="jira")
        overrides = {"attempts": attempts, "base_delay": base_delay,
                     "max_rate_limit_wait": max_wait, "timeout": timeout}
        self.policy = policy.replace(**{k: v for k, v in overrides.items() if v is not None})
        self.http = transport_mod.Transport(self.policy, user_agent="agentops-postmortem",
                                            sleep=sleep, wall_clock=clock)
        self.session = self.http.session
        # Security: the credential goes per request, never into the session, so the
        # transport can keep it from a redirect to another host.
        basic = base64.b64encode(f"{email}:{token}".encode()).decode()
        self._headers = {"Authorization": f"Basic {basic}", "Accept": "application/json",
                         "Content-Type": "application/json"}
        self.attempts = self.policy.attempts
        self._sleep = sleep
        self._clock = clock
        self.reused = False  # post_comment found the comment an earlier run posted
        self.ignored: list[str] = []  # ids of look-alike comments (other author or text)
        self._account: str | None = None

    @property
    def calls(self) -> int:
        """Requests sent to JIRA so far (retries included)."""
        return self.http.counter.total

    def _send(self, method: str, url: str, *, data: bytes | None = None,
              params: str = "") -> tuple[transport_mod.Response, Any]:
        """One request; the answer's JSON (None if it has none). Raises TransportError
        when no answer came (or it broke off)."""
        route = urllib.parse.urlsplit(url).path
        resp = self.http.open(method, url + params, headers=self._headers, data=data,
                              what=f"{method} {route}", write=method != "GET",
                              follow_redirects=False)
        resp.read(MAX_ANSWER_BYTES)
        try:
            body = resp.json()
        except transport_mod.TransportError:
            body = None
        return resp, body

    def post_comment(self, key: str, artifact: Artifact) -> dict[str, Any]:
        """POST the artifact bytes as the comment body; returns JIRA's comment JSON. If
        the issue already has a comment carrying this draft's id (posted by an earlier
        run), that comment is returned and nothing is posted (``self.reused``)."""
        if artifact.kind != "adf":
            raise InputError("--draft", "JIRA takes the ADF artifact",
                             fix="draft with --format adf and approve that file's sha256")
        artifact.check_ticket(key)
        marker = str(artifact.marker)  # check_ticket: the draft id is there
        url = f"{self.base}/rest/api/3/issue/{key}/comment"
        # Sanity: wrap the approved bytes, never re-serialise them.
        payload = b'{"body": ' + artifact.data + b"}"
        # Sanity: a rerun (or a re-run job) converges instead of posting a second copy.
        existing = self.find_comment(key, artifact)
        if existing is not None:
            self.reused = True
            ghactions.notice(f"  {key} already has this draft's comment {existing.get('id')} "
                             f"({marker}); not posting it again")
            return existing
        route = f"POST /rest/api/3/issue/{key}/comment"

        def attempt(n: int) -> dict[str, Any]:
            try:
                resp, body = self._send("POST", url, data=payload)
            except transport_mod.TransportError as exc:
                # A refused connection never reached JIRA; a reset or a read timeout may
                # have come after JIRA stored the comment, so look before resending (and
                # before giving up).
                if not exc.refused:
                    landed = self._landed(key, artifact, exc.reason)
                    if landed is not None:
                        return landed
                raise self._unanswered(route, n, exc, suffix="; nothing was posted") from exc
            if resp.status in (200, 201) and isinstance(body, dict):
                return body
            if resp.status in (200, 201):
                raise ApiError(f"{route}: JIRA answered {resp.status} without the comment's "
                               "JSON; it may have landed", ambiguous=True,
                               fix="rerun: publish looks for this draft's comment (its draft "
                                   "id) before posting")
            if resp.status in RETRY_STATUS:
                landed = self._landed(key, artifact, f"HTTP {resp.status}")
                if landed is not None:
                    return landed
            raise self._failed(resp, self._error(resp, body, key, size=len(payload)))

        return self._retry(attempt, route)

    def _retry(self, attempt: Callable[[int], Any], route: str) -> Any:
        # The one retry loop (agentops.http.retry); a server wait past the policy's
        # limit ends it with the answer's own error.
        return transport_mod.retry(self.policy, attempt, what=route, counter=self.http.counter,
                                   sleep=self._sleep, too_long=lambda failure, _: failure.error)

    def _unanswered(self, route: str, n: int, exc: transport_mod.TransportError, *,
                    suffix: str = "") -> Exception:
        """No usable answer: the error to stop with, or to retry (a timeout, a reset)."""
        error = ApiError(f"{route} failed after {n} attempts: {exc.reason}{suffix}",
                         fix="check that --jira-url is reachable from the runner, then rerun")
        if not exc.retryable:
            return error
        return transport_mod.RetryLater(error, message=exc.reason)

    def _failed(self, resp: transport_mod.Response, error: AgentopsError) -> Exception:
        """An error answer: ``error`` itself, or to retry (5xx, 429) after the wait JIRA
        asked for (Retry-After; X-RateLimit-Reset, an ISO 8601 time, only on a 429) or
        the policy's backoff."""
        if resp.status not in RETRY_STATUS and resp.status != 429:
            return error  # 4xx, including 413: retrying cannot help
        headers = dict(resp.headers)
        if resp.status != 429:
            headers = {k: v for k, v in headers.items() if k.lower() != "x-ratelimit-reset"}
        wait = self.policy.server_wait(headers, self._clock())
        return transport_mod.RetryLater(error, wait=wait, message=f"JIRA answered {resp.status}")

    def _landed(self, key: str, artifact: Artifact, why: str) -> dict[str, Any] | None:
        """After an answer that may have come after JIRA stored the comment: the
        comment if it landed, ``None`` if it did not; if that cannot be told, stop
        rather than risk posting it twice (the rerun looks before posting)."""
        try:
            return self.find_comment(key, artifact)
        except AgentopsError as exc:
            raise ApiError(f"POST /rest/api/3/issue/{key}/comment: the answer was lost "
                           f"({why}) and re-reading the comments failed ({exc.message}); "
                           "the comment may have landed, so it was not posted again",
                           ambiguous=True,
                           fix="rerun: publish looks for this draft's comment (its draft "
                               "id) before posting") from exc

    def find_comment(self, key: str, artifact: Artifact) -> dict[str, Any] | None:
        """The comment an earlier run (or an attempt whose answer was lost) posted, if
        any: among all the issue's comments (paged, bounded), one that carries this
        draft's id, was written by the
        API user itself, and whose text is the artifact's. Look-alikes (another author,
        or other text under the same id) are ignored and counted in ``self.ignored``.
        Raises when the comments or the API user cannot be read (after retries): not
        knowing is never taken for "not there"."""
        marker = artifact.marker
        if not marker:
            return None
        candidates = [c for c in self._comments(key)
                      if marker in json.dumps(c.get("body"), ensure_ascii=False)]
        if not candidates:
            return None
        # Security: the draft id is public (job summary); only our own comment with the
        # approved text counts, and the account is asked only when something matches.
        me = self.account_id()
        want = adf_text_digest(json.loads(artifact.data))
        found: dict[str, Any] | None = None
        ignored = []
        for comment in candidates:
            author = comment.get("author")
            own = isinstance(author, dict) and author.get("accountId") == me
            if own and adf_text_digest(comment.get("body")) == want:
                found = found or dict(comment)  # newest first
            else:
                ignored.append(transport_mod.short(str(comment.get("id", "?")), 40))
        new = [i for i in ignored if i not in self.ignored]
        if new:
            self.ignored.extend(new)
            ghactions.warning(
                f"  {key}: {len(new)} comment(s) carrying this draft's id ({marker}) were not "
                "written by this JIRA account or do not hold the approved text; ignored: "
                + transport_mod.short(", ".join(new[:10]), 500))
        return found

    def account_id(self) -> str:
        """The API user's ``accountId`` (``GET /rest/api/3/myself``), asked once."""
        if self._account is None:
            body = self._get_json(f"{self.base}/rest/api/3/myself", "", key="",
                                  route="GET /rest/api/3/myself")
            account = body.get("accountId") if isinstance(body, dict) else None
            if not isinstance(account, str) or not account or len(account) > 128:
                raise ApiError("GET /rest/api/3/myself: the answer has no accountId, so the "
                               "account's own comments cannot be told from others'; nothing "
                               "was posted",
                               fix="check --jira-url: it must be the site's base URL, "
                                   "e.g. https://your-site.atlassian.net")
            self._account = account
        return self._account

    def _comments(self, key: str) -> list[dict[str, Any]]:
        """Every comment of the issue, newest first, page by page (each read retried
        like the POST). A flood of comments after an earlier post must not hide it, or
        a rerun would post twice; past ``MAX_COMMENT_PAGES`` pages nothing is posted
        (``RefusedError``, exit 3) rather than risk it."""
        url = f"{self.base}/rest/api/3/issue/{key}/comment"
        route = f"GET /rest/api/3/issue/{key}/comment"
        fix = "check --jira-url: it must be the site's base URL, e.g. https://your-site.atlassian.net"
        out: list[dict[str, Any]] = []
        seen: set[str] = set()
        start = 0
        for _page in range(MAX_COMMENT_PAGES):
            query = "?" + urllib.parse.urlencode({"orderBy": "-created", "startAt": start,
                                                  "maxResults": COMMENT_PAGE})
            body = self._get_json(url, query, key=key, route=route)
            comments = body.get("comments") if isinstance(body, dict) else None
            total = body.get("total") if isinstance(body, dict) else None
            if not isinstance(comments, list) or isinstance(total, bool) \
                    or not isinstance(total, int):
                raise ApiError(f"{route}: the answer is not JIRA's comment list", fix=fix)
            page = [c for c in comments if isinstance(c, dict)]
            ids = {str(c.get("id")) for c in page}
            if page and ids <= seen:
                # A server that ignores startAt would have us read page one forever and
                # call the rest "not there".
                raise ApiError(f"{route}: startAt={start} answered comments already read; "
                               "the comment list cannot be read to its end, so nothing was "
                               "posted", fix=fix)
            seen |= ids
            out += page
            start += len(comments)
            if not comments or start >= total:
                return out
        raise RefusedError(
            f"publish refused: {key} has more than {len(out)} comments "
            f"({MAX_COMMENT_PAGES} pages read); this draft's earlier comment could be among "
            "the rest, so nothing was posted (a second copy is worse than none)",
            fix="check the ticket by hand: if the post-mortem is not there, paste the approved "
                "artifact as a comment; the draft id in the job summary finds it")

    def _get_json(self, url: str, query: str, *, key: str, route: str) -> Any:
        """A GET's JSON answer (HTTP 200), retrying 429/5xx and broken connections."""
        def attempt(n: int) -> Any:
            try:
                resp, body = self._send("GET", url, params=query)
            except transport_mod.TransportError as exc:
                raise self._unanswered(route, n, exc) from exc
            if resp.status == 200:
                return body
            raise self._failed(resp, self._error(resp, body, key, route=route))

        return self._retry(attempt, route)

    def _error(self, resp: transport_mod.Response, body: Any, key: str, *, size: int = 0,
               route: str | None = None) -> AgentopsError:
        status = resp.status
        detail = _jira_message(body, resp)
        route = route or f"POST /rest/api/3/issue/{key}/comment"
        message = (f"{route} failed: HTTP {status}: comment too large ({size} bytes); not "
                   "retried" if status == 413 else f"{route} failed: HTTP {status} {detail}")
        # Every caller has made sure: a 5xx POST only fails here after a re-read.
        message = message.strip() + "; nothing was posted"
        if status == 401:
            return ConfigError(message, fix="JIRA rejected the credentials: JIRA_EMAIL must be "
                                            "the account's email and JIRA_API_TOKEN an API "
                                            "token of that account (not a password)")
        if status == 403:
            return ConfigError(message, fix="the JIRA account may not comment on this issue "
                                            "(Browse + Add Comments permissions)")
        fixes = {
            404: (f"no issue {key} visible to this account: check the key and --jira-url"
                  if key else "check --jira-url: it must be the site's base URL"),
            413: f"the comment is too large for JIRA ({size} bytes): shorten the longest "
                 "sections (log excerpts in Symptoms), draft again and re-approve",
            429: "JIRA kept rate-limiting; rerun later",
        }
        fix = fixes.get(status) or ("JIRA kept failing; rerun later (publish looks for the "
                                    "comment before posting, so a rerun never posts it twice)"
                                    if status in RETRY_STATUS else None)
        return ApiError(message, status_code=status,
                        fix=fix or (f"JIRA said: {detail}" if detail else None))


def _jira_message(body: Any, resp: transport_mod.Response) -> str:
    if isinstance(body, dict):
        parts = [str(m) for m in list(body.get("errorMessages") or [])[:5]] + [
            f"{k}: {v}" for k, v in list((body.get("errors") or {}).items())[:5]] \
            if isinstance(body.get("errors") or {}, dict) else []
        return transport_mod.short("; ".join(parts), 500)
    if body is None:
        return transport_mod.short(resp.text(), 200)
    return ""


# Bounds for reading a comment body JIRA sends back (it is anyone's comment).
_ADF_MAX_DEPTH = 64
_ADF_MAX_NODES = 200_000


def adf_text_digest(doc: Any) -> str | None:
    """sha256 of an ADF document's text, in document order: every ``text`` node's text,
    plus a separator per block, so JIRA's re-serialisation (key order, ``attrs`` it
    adds such as ``localId``) does not change it, but any change of wording does.
    ``None`` for what is not a bounded ADF tree."""
    parts: list[str] = []
    stack: list[tuple[Any, int]] = [(doc, 0)]
    seen = 0
    while stack:
        node, depth = stack.pop()
        seen += 1
        if not isinstance(node, dict) or depth > _ADF_MAX_DEPTH or seen > _ADF_MAX_NODES:
            return None
        kind = node.get("type")
        if kind == "text":
            text = node.get("text")
            if not isinstance(text, str):
                return None
            parts.append(text)
            continue
        parts.append(f"\x00{kind}\x00")
        content = node.get("content", [])
        if not isinstance(content, list):
            return None
        stack.extend((child, depth + 1) for child in reversed(content))
    return hashlib.sha256("".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
