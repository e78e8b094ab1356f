"""The post-mortem verbs behind scripts/postmortem.py: check, draft, lint, publish.

Shell side: reads files and GitHub (through gather.py), prints, writes the draft
artifacts the user asked for, and calls publish.py, the only writer to JIRA/docs.
Decisions live in validate.py, render.py and lint.py.
"""

from __future__ import annotations

import argparse
import bisect
import datetime as dt
import json
import os
import re
from pathlib import Path
from typing import Any

from agentops import cli, console, files, flag_values, ghactions
from agentops.data import validate as validate_shape
from agentops.errors import DataError, ExitStatus, InputError, RefusedError, UsageError
from agentops.postmortem import datafiles, lint, publish, render, validate
from agentops.postmortem.model import GATHERED_SCHEMA, TITLES, Facts, Gathered, merge

MANAGEMENT_OFFER = ("Want a management-facing version? Hand this post-mortem to "
                    "management-talk (a separate skill; nothing was sent to it).")
_REVISION = re.compile(r"([A-Z][A-Z0-9_]*-[0-9]+) r([0-9]+) facts:([0-9a-f]{12}|none)")


def _facts(args: argparse.Namespace) -> tuple[Facts, Any, dict[str, Any]]:
    """The merged facts, the GitHub client (None offline) and the facts file's own
    content, read once: check lints exactly what it gated."""
    loaded = datafiles.load_facts(args.facts)
    bound_prose(args.facts, loaded.content)  # before any GitHub read or gate runs
    ticket = getattr(args, "ticket", None)
    if ticket and ticket != loaded.content["ticket"]:
        raise InputError("--ticket", f"{ticket} does not match the facts file's ticket "
                         f"{loaded.content['ticket']}", fix="dispatch with the facts file "
                         "of that ticket, or fix the ticket input")
    client = None
    gathered = None
    if getattr(args, "gathered_out", None):
        files.check_writable(args.gathered_out, field="--gathered-out")
    if getattr(args, "gathered", None):
        cli.refuse_flags(args, {"issue": "--issue", "pr": "--pr", "repo": "--repo"},
                         context="a --gathered replay (it holds what they would read)",
                         fix="drop them to replay, or drop --gathered to read GitHub again")
        fix = "pass a file written by --gathered-out"
        doc = files.read_json(args.gathered, field="--gathered", fix=fix)
        try:
            validate_shape(doc, GATHERED_SCHEMA, name=args.gathered)
        except DataError as exc:
            raise InputError("--gathered", exc.message, fix=fix) from None
        try:
            gathered = Gathered.from_json(doc)
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError("--gathered", f"{args.gathered}: {files.shape_reason(exc)}",
                             fix=fix) from exc
    elif args.issue or args.pr:
        from agentops.github.client import GitHubClient
        from agentops.postmortem import gather

        issue, pr = _ref(args, "issue"), _ref(args, "pr")  # the command line first
        client = GitHubClient.from_env()
        with ghactions.group("gather (GitHub reads)"):
            gathered = gather.gather(client, issue=issue, pr=pr)
    if getattr(args, "gathered_out", None):
        # Sanity: always write the snapshot (empty when no --issue/--pr), so a later
        # step replaying it never fails for a file that was not needed.
        gathered = gathered or Gathered()
        files.write_atomic(args.gathered_out,
                           json.dumps(gathered.to_json(), indent=2, ensure_ascii=False) + "\n",
                           field="--gathered-out")
    facts = merge(loaded.content, gathered, facts_path=Path(args.facts).name,
                  facts_sha256=loaded.sha256)
    return facts, client, loaded.content


def _ref(args: argparse.Namespace, dest: str) -> str | None:
    """``--issue``/``--pr`` as ``OWNER/NAME#N``: a number takes --repo (else
    GITHUB_REPOSITORY), as ``--issue`` does in every script (#25)."""
    value = getattr(args, dest, None)
    if not value:
        return None
    flag = f"--{dest}"
    refs = flag_values.issue_refs(value, getattr(args, "repo", None), field=flag,
                                  fallback_repo=os.environ.get("GITHUB_REPOSITORY"))
    if not refs.repo:
        raise UsageError(flag, f"{value} is a number and no repository is given",
                         fix=f"add --repo OWNER/NAME, or give {flag} OWNER/NAME#{value}")
    return refs.ref()


def first_hedge(text: str) -> str | None:
    """The first phrase lint's hedging rule flags in ``text`` (as root-cause prose)."""
    found = lint.lint_prose(text, [datafiles.hedge_rule()], section="root_cause")
    return found[0][1] if found else None


def _gate(facts: Facts) -> None:
    gate = validate.check(facts, hedge=first_hedge)
    if not gate.ok:
        raise RefusedError(f"drafting refused for {facts.ticket}: "
                           + "; ".join(gate.names()), gate.lines(),
                           fix="add the missing facts to the facts file (or fix the kind), "
                               "then run check again")


def _api_line(client: Any) -> None:
    if client is not None:
        line = client.counter.line()
        ghactions.notice(line)
        ghactions.append_summary(line)


# Facts keys that are identifiers, references or labels, never prose to lint.
_NOT_PROSE = frozenset({"ticket", "owner", "kind", "title", "date", "revision",
                        "identifiers", "refs", "ref", "introduced_by", "tracking",
                        "reliability", "category", "steps"})
# The draft section each top-level facts key becomes (so scopes apply as in lint).
_FACTS_SECTION = {"repro": "symptoms", "not_retested": "verification"}


def _facts_prose(value: Any, path: str) -> list[tuple[str, str]]:
    """(key path, text) of every prose string in the facts."""
    if isinstance(value, str):
        return [(path, value)]
    out: list[tuple[str, str]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in _NOT_PROSE:
                out += _facts_prose(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _facts_prose(item, f"{path}[{i}]")
    return out


# Security: the facts' prose goes through the gate's hedging reading and check's lint,
# whose clause readings are linear but not cheap (about 4 KB of hostile clause words a
# second, MAX_DRAFT_BYTES below); a 512 KiB facts file of them took about two minutes.
# The prose of a real facts file is a few KB, and the longest real write-up measured is
# about 16 KB, so four times that is read and more is refused before anything runs.
MAX_FACTS_PROSE_BYTES = 64 * 1024


def bound_prose(path: str, content: dict[str, Any]) -> None:
    """Refuse (exit 1, nothing read from GitHub, nothing written) facts whose prose, the
    strings check lints and draft renders, is past ``MAX_FACTS_PROSE_BYTES``; the error
    names the longest value, the one to shorten."""
    sizes = [(len(text.encode("utf-8")), key) for key, text in _facts_prose(content, "")]
    total = sum(size for size, _key in sizes)
    if total <= MAX_FACTS_PROSE_BYTES:
        return
    size, key = max(sizes)
    raise DataError(path, key, f"the facts' prose is {total} bytes, more than the "
                    f"{MAX_FACTS_PROSE_BYTES} bytes check and draft read ({key} alone is "
                    f"{size} bytes)", fix=f"shorten {key}: link a long log or paste only "
                    "its telling lines (a real facts file holds a few KB of prose)")


class FactsLines:
    """The facts file's lines, searched as one string to place each finding: one
    C-level ``find`` per value and per (value, first word). Security: the Python loop it
    replaces lowered and read every line from the value's start per finding, and a facts
    file may hold 20,000 lines (identifier lists) and thousands of findings (one per
    hedged sentence, most starting with the same few words)."""

    def __init__(self, raw: list[str]) -> None:
        self._text = "\n".join(raw)
        self._low = "\n".join(ln.lower() for ln in raw)
        self._starts = _line_starts(self._text)
        self._low_starts = _line_starts(self._low)
        self._placed: dict[tuple[int, str], int] = {}

    def value_start(self, text: str) -> int:
        """The index of the first line holding the start of the value ``text``
        (its first 30 characters), else 0."""
        head = text.strip().splitlines()[0][:30] if text.strip() else ""
        pos = self._text.find(head) if head else -1
        return bisect.bisect_right(self._starts, pos) - 1 if pos >= 0 else 0

    def phrase_line(self, start: int, phrase: str) -> int:
        """The line (from 1) at or after the line index ``start`` where the first word
        of ``phrase`` is written, else ``start + 1``."""
        words = phrase.lower().split()
        if not words or start >= len(self._low_starts):
            return start + 1
        key = (start, words[0])
        if key not in self._placed:
            pos = self._low.find(words[0], self._low_starts[start])
            self._placed[key] = bisect.bisect_right(self._low_starts, pos) if pos >= 0 \
                else start + 1
        return self._placed[key]


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in re.finditer("\n", text))]


def lint_facts(path: str, content: dict[str, Any]) -> list[lint.Finding]:
    """P-5 before drafting: the lint's own lexicon rules over the facts' prose, so a
    hedge (or blame, or advocacy outside the action items) is found in the facts file
    that would carry it into the draft."""
    raw = FactsLines(files.read_text(path, field="FACTS.yml",
                                     limit=datafiles.MAX_FACTS_BYTES).splitlines())
    rules = [r for r in datafiles.lint_rules() if r.kind == "lexicon"]
    out = []
    for key_path, text in _facts_prose(content, ""):
        top = re.split(r"[.\[]", key_path, maxsplit=1)[0]
        section = _FACTS_SECTION.get(top, top)
        start = raw.value_start(text)
        for rule, phrase in lint.lint_prose(text, rules, section=section):
            out.append(lint.Finding(path, raw.phrase_line(start, phrase), rule.id,
                                    f"{rule.message} ({phrase!r}, in {key_path})"))
    return sorted(out, key=lambda f: (f.line, f.rule))


def check_command(args: argparse.Namespace) -> int:
    """P-3: exit 0 when drafting may start, 3 (listing what is missing) when not, 6 when
    the facts carry what lint would flag in the draft (printed as findings); 1 for a
    facts file that cannot be read or whose prose is past ``MAX_FACTS_PROSE_BYTES``."""
    facts, client, content = _facts(args)
    try:
        _gate(facts)
    finally:
        _api_line(client)
    findings = lint_facts(args.facts, content)
    for f in findings:
        console.say(f)
    if findings:
        ghactions.append_summary(f"### post-mortem facts: {len(findings)} finding(s)\n\n"
                                 + "\n".join(f"- `{f}`" for f in findings))
        console.say(f"{args.facts}: fix these in the facts before drafting; the draft would "
              "carry them", err=True)
        return ExitStatus.FINDINGS
    console.say(f"ok: drafting may start for {facts.ticket} (reliable reproduction, root cause, "
          "fix reference and verification present)")
    return ExitStatus.OK


def _revision(facts: Facts, out: str | None, wrong_section: str | None) -> int:
    """P-8: count revisions per ticket in the draft's metadata; the third asks."""
    base = int(facts.get("revision", default=1))
    if not out or not Path(out).exists():
        return base
    m = _REVISION.search(Path(out).read_text("utf-8", errors="replace"))
    if not m or m.group(1) != facts.ticket:
        return base
    previous = int(m.group(2))
    if m.group(3) == (facts.facts_sha256[:12] or "none"):
        return max(base, previous)  # same facts: a re-render, not an edit round
    revision = max(base, previous + 1)
    if revision >= 3 and not wrong_section:
        raise RefusedError(
            f"revision {revision} of the {facts.ticket} draft: which section is wrong?",
            [f"sections: {', '.join(TITLES.values())}"],
            fix="rerun with --wrong-section 'Root cause' (the section you are fixing) "
                "instead of re-drafting blindly")
    return revision


def draft_command(args: argparse.Namespace) -> int:
    """P-4: the document, Markdown or ADF, to stdout or --out (+ FILE.sha256)."""
    if args.out:  # both files, before anything is read or written
        files.check_writable(args.out, field="--out")
        files.check_writable(publish.sidecar(args.out), field="--out")
    facts, client, _content = _facts(args)
    try:
        _gate(facts)
    finally:
        _api_line(client)
    if args.wrong_section and args.wrong_section not in TITLES.values():
        raise InputError("--wrong-section", f"not a section: {args.wrong_section!r}",
                         fix="one of: " + ", ".join(TITLES.values()))
    revision = _revision(facts, args.out, args.wrong_section)
    date = args.date or facts.get("date") or dt.datetime.now(dt.UTC).date().isoformat()
    draft = render.build(facts, date=str(date), destination=args.destination,
                         revision=revision,
                         server=os.environ.get("GITHUB_SERVER_URL") or "https://github.com")
    if args.format == "adf":
        doc = render.to_adf(draft)
        problems = render.validate_adf(doc)
        if problems:  # Sanity: the renderer's own output must be valid ADF
            raise AssertionError(f"renderer produced invalid ADF: {problems}")
        data = render.adf_bytes(doc)
    else:
        data = render.to_markdown(draft).encode("utf-8")
    if args.out:
        files.write_atomic(args.out, data, field="--out")
        digest = publish.record_hash(args.out, data)
        console.say(f"wrote {args.out} ({len(data)} bytes, sha256 {digest}; recorded in "
              f"{publish.sidecar(args.out)})", err=True)
        ghactions.set_output("path", args.out)
        ghactions.set_output("sha256", digest)
    else:
        text = data.decode("utf-8")
        console.say(console.inert_json(text) if args.format == "adf" else text, end="")
    ghactions.append_summary(_summary(draft.ticket, args.format, data, args.out))
    for q in draft.questions():
        console.say(f"question for {q.owner}: {q.text}", err=True)
    if args.wrong_section:
        console.say(f"revision {revision}: revised section {args.wrong_section}", err=True)
    console.say(MANAGEMENT_OFFER, err=True)  # P-7: offer, never do it
    return ExitStatus.OK


def _summary(ticket: str, fmt: str, data: bytes, out: str | None) -> str:
    """The draft for the approver, in the job summary: the exact bytes and their hash."""
    import hashlib

    text = data.decode("utf-8")
    digest = hashlib.sha256(data).hexdigest()
    kind = "ADF, the JIRA payload" if fmt == "adf" else "Markdown"
    head = (f"### Post-mortem draft {ticket} ({kind})"
            f"\n\n`{out or 'stdout'}` sha256 `{digest}` ({len(data)} bytes)\n")
    fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", text)), default=0))
    if fmt == "adf":
        return (f"{head}\n<details><summary>ADF payload (posted byte for byte)</summary>\n\n"
                f"{fence}json\n{text}{fence}\n\n</details>\n")
    return f"{head}\n{text}\n---\n"


# Security: the clause readings are linear but not cheap (about 4 KB of hostile clause
# words a second on a small runner), so a draft past 16x the longest real write-up
# measured (about 16 KB) is refused rather than read for minutes.
MAX_DRAFT_BYTES = 256 * 1024


def lint_command(args: argparse.Namespace) -> int:
    """P-5: exit 0 when clean, 6 with ``file:line: rule: message`` per finding (1 is
    only for input that could not be read, or a draft past ``MAX_DRAFT_BYTES``)."""
    text = files.read_text(args.draft, field="DRAFT.md", limit=MAX_DRAFT_BYTES,
                           fix="lint the Markdown draft `draft --out` wrote")
    facts = datafiles.load_facts(args.facts).content if args.facts else None
    rules = datafiles.lint_rules()
    findings = lint.lint(text, rules, facts=facts, file=args.draft,
                         sections=datafiles.sections())
    for f in findings:
        console.say(f)
    for line in lint.skipped(rules, facts=facts):
        console.say(f"skipped without --facts: {line}", err=True)
    if findings:
        ghactions.append_summary(f"### post-mortem lint: {len(findings)} finding(s)\n\n"
                                 + "\n".join(f"- `{f}`" for f in findings))
        return ExitStatus.FINDINGS
    console.say(f"{args.draft}: clean ({len(datafiles.lint_rules())} rules)", err=True)
    return ExitStatus.OK


def _environment_approver(environment: str) -> str:
    """The reviewer who approved this run's deployment to ``environment``; refuses when
    there is none, or when it is the person who started the run (self-review)."""
    from agentops.github.client import GitHubClient
    from agentops.postmortem import gather

    repo = os.environ.get("GITHUB_REPOSITORY", "")
    run_id = os.environ.get("GITHUB_RUN_ID", "")
    if not repo or not run_id:
        raise InputError("--approved-by-environment", "needs GITHUB_REPOSITORY and "
                         "GITHUB_RUN_ID (it reads the approval of the running workflow)",
                         fix="use --approved-by LOGIN outside a workflow run")
    client = GitHubClient.from_env()
    try:
        login = gather.environment_approver(client, repo=repo, run_id=run_id,
                                            environment=environment)
    finally:
        _api_line(client)
    starter = os.environ.get("GITHUB_TRIGGERING_ACTOR") or os.environ.get("GITHUB_ACTOR")
    if not login:
        raise RefusedError(f"publish refused: no approval of environment {environment!r} "
                           f"in run {run_id}; nothing was posted",
                           fix="configure required reviewers on the environment (see "
                               "docs/postmortem.md)")
    # Sanity: GitHub's "prevent self-review" enforces this; the writer checks it again.
    if starter and login == starter:
        raise RefusedError(f"publish refused: {login} approved their own run; nothing was "
                           "posted", fix="enable 'Prevent self-review' on the environment")
    return login


def publish_command(args: argparse.Namespace) -> int:
    """P-6: only the approved artifact, byte for byte; JIRA comment or docs file."""
    if not args.draft:
        raise InputError("--draft", "required", fix="pass the file `draft --out` wrote")
    if not args.ticket:
        raise InputError("--ticket", "required: the JIRA issue key",
                         fix="e.g. --ticket JIRA-12345 (env AGENTOPS_TICKET)")
    if args.approved_by_environment:
        cli.refuse_flags(args, {"approved_by": "--approved-by"},
                         context="--approved-by-environment (the Environment's reviewer is "
                                 "the approver)", fix="give one of the two")
    approved_by = args.approved_by
    if args.approved_by_environment:
        approved_by = _environment_approver(args.approved_by_environment)
    draft_path = args.draft
    if Path(draft_path).is_dir():
        # The dispatch fallback names a hash, not a file: take the artifact with it.
        draft_path = publish.select_by_hash(draft_path, args.approved_sha256)
    artifact = publish.load_approved(draft_path, approved_sha256=args.approved_sha256,
                                     approved_by=approved_by)
    if args.destination == "docs":
        path, operation = publish.write_docs(artifact, ticket=args.ticket, root=args.root)
        console.say(f"{operation}: {path} (sha256 {artifact.sha256}, approved by "
              f"{artifact.approved_by}); open a pull request with it")
        ghactions.set_output("operation", operation)
        ghactions.set_output("path", str(path))
        return ExitStatus.OK
    if not args.jira_url:
        raise InputError("--jira-url", "required for the jira destination",
                         fix="e.g. --jira-url https://your-site.atlassian.net")
    jira = publish.Jira(args.jira_url, email=os.environ.get("JIRA_EMAIL", ""),
                        token=os.environ.get("JIRA_API_TOKEN", ""),
                        base_delay=float(os.environ.get("AGENTOPS_RETRY_BASE_DELAY", "1")))
    with ghactions.group(f"publish to JIRA {args.ticket}"):
        comment = jira.post_comment(args.ticket, artifact)
    cid = str(comment.get("id", ""))
    url = f"{args.jira_url.rstrip('/')}/browse/{args.ticket}?focusedCommentId={cid}"
    # A rerun finds the comment an earlier run posted (same draft id) and posts nothing.
    operation = "noop" if jira.reused else "created"
    verb = "already published" if jira.reused else "published"
    console.say(f"{verb}: {url} (sha256 {artifact.sha256}, approved by {artifact.approved_by}; "
          f"JIRA calls: {jira.calls})")
    ghactions.set_output("operation", operation)
    ghactions.set_output("comment-url", url)
    ignored = (f"\n\n{len(jira.ignored)} comment(s) on {args.ticket} carried this draft's id "
               "but were not written by this JIRA account or did not hold the approved "
               "text; they were ignored (ids: "
               + ", ".join(ghactions.inert_markdown(i, limit=40) for i in jira.ignored[:10])
               + ")."
               if jira.ignored else "")
    ghactions.append_summary(f"{verb.capitalize()} the approved post-mortem ({artifact.sha256}) "
                             f"to {args.ticket}, approved by {artifact.approved_by}: {url}"
                             + ignored)
    return ExitStatus.OK


def authorize_command(args: argparse.Namespace) -> int:
    """P-6 comment path: turn `/postmortem approve KEY SHA256 RUN` into publish inputs,
    only for a commenter with write access who did not start the draft run."""
    from agentops.github.client import GitHubClient
    from agentops.postmortem import gather

    event_path = args.event or os.environ.get("GITHUB_EVENT_PATH")
    if not event_path:
        raise InputError("--event", "no event file", fix="run it on an issue_comment event")
    fix = "run it on an issue_comment event (the runner's GITHUB_EVENT_PATH)"
    event = files.read_json(event_path, field="--event", fix=fix, limit=25 * 2**20)
    try:
        body = str(event["comment"]["body"])
        login = str(event["comment"]["user"]["login"])
        repo = str(event["repository"]["full_name"])
    except (KeyError, TypeError) as exc:
        raise InputError("--event", f"{event_path} is not an issue_comment event: it has no "
                                    "comment.body, comment.user.login and "
                                    "repository.full_name", fix=fix) from exc
    approval = validate.parse_approval_comment(body)
    if approval is None:
        raise RefusedError("not an approval: the comment's first line must be exactly "
                           "`/postmortem approve <TICKET> <sha256> <draft run id>`",
                           fix="copy the command from the draft run's summary")
    client = GitHubClient.from_env()
    try:
        permission = gather.collaborator_permission(client, repo=repo, login=login)
        run = gather.workflow_run(client, repo=repo, run_id=approval.run_id)
    finally:
        _api_line(client)
    reasons = []
    if permission not in validate.WRITE_PERMISSIONS:
        reasons.append(f"{login} has {permission!r} permission on {repo}; approving needs "
                       "write, maintain or admin")
    if not run["path"].endswith("/postmortem.yml"):
        reasons.append(f"run {approval.run_id} is not a post-mortem draft run "
                       f"({run['path'] or 'unknown workflow'})")
    if run["triggering_actor"] == login:
        reasons.append(f"{login} started draft run {approval.run_id}: no self-approval")
    if reasons:
        raise RefusedError(f"approval by {login} refused; nothing will be published",
                           reasons)
    ghactions.set_output("ticket", approval.ticket)
    ghactions.set_output("approved-sha256", approval.sha256)
    ghactions.set_output("draft-run", approval.run_id)
    ghactions.set_output("approved-by", login)
    console.say(f"approved: {approval.ticket} sha256 {approval.sha256} from run {approval.run_id}, "
          f"by {login} ({permission})")
    return ExitStatus.OK
