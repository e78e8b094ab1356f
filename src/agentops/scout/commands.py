"""The scout's live verbs, ``publish`` and ``handoff``: read, plan (pure, in
``publish``), and either print the plan (``--dry-run``) or hand it to the writers in
``publish``. The dry-run branch lives here and only here (style practice 4): the writers
never learn whether they are in a dry run, so a dry run cannot write by accident.
"""

from __future__ import annotations

import argparse
import os

from agentops import console, flag_values, ghactions
from agentops import markdown_escape as esc
from agentops.errors import ConfigError, InputError, UsageError
from agentops.github.client import GitHubClient
from agentops.github.identity import Identity, token_identity
from agentops.github.provenance import Provenance
from agentops.scout import projects
from agentops.scout.collect import LiveTargets
from agentops.scout.publish import (
    INITIAL_STATUS,
    SCOPE_FIX,
    ReportComment,
    ReportComments,
    _scoped,
    apply_handoff,
    apply_publish,
    find_report_comment,
    handoff_items,
    keep_board_links,
    load_report,
    plan_handoff,
    plan_publish,
    stamp,
)


def publish_command(args: argparse.Namespace) -> int:
    """``scout.py publish``: post (or edit in place) the report comment."""
    repo, issue = _publish_target(args)
    report = load_report(args.report)
    client = GitHubClient.from_env()
    with ghactions.group("publish: read the tracking issue"):
        me = token_identity(client)
        prov = Provenance.from_env(client, repo, issue, me)
        console.say(f"provenance: {prov.describe()}", err=True)
        found = find_report_comment(client, repo, issue, report, prov)
    ignored = _ignored(found, me)
    body = prov.seal(keep_board_links(report, found.own), stamp)
    plan = plan_publish(found.own, body)
    if args.dry_run:
        where = plan.url or f"{repo}#{issue}"
        console.say(f"dry run: would {_verb(plan.operation)} the {report.date} report on {where} "
              f"as {me.login}")
        console.say(client.counter.line())
        return 0
    with ghactions.group("publish: write the comment"):
        comment = apply_publish(client, repo, issue, report, plan, prov=prov, body=body)
    url = str(comment.get("html_url", "")) if comment else plan.url
    console.say(f"{plan.operation}: {url}")
    ghactions.set_output("comment-url", url)
    ghactions.set_output("operation", plan.operation)
    _finish(client, f"Scout report {plan.operation}: {esc.link(url, url)}", notes=ignored)
    return 0


def handoff_command(args: argparse.Namespace) -> int:
    """``scout.py handoff``: one Backlog draft per action item, then link them in the
    report comment."""
    report = load_report(args.report)
    tracking = _tracking(args)  # before any token is used: a refusal costs no request
    board = _board(args)
    items = handoff_items(report.payload)
    project_client = _project_client()
    issues_client = GitHubClient.from_env() if os.environ.get("GITHUB_TOKEN") else project_client
    link_from: ReportComment | None = None
    ignored: list[str] = []
    if tracking:
        with ghactions.group("handoff: find the report comment"):
            me = token_identity(issues_client)
            prov = Provenance.from_env(issues_client, tracking[0], tracking[1], me)
            console.say(f"provenance: {prov.describe()}", err=True)
            found = find_report_comment(issues_client, tracking[0], tracking[1], report, prov)
        ignored = _ignored(found, me)
        if found.own is None:
            raise ConfigError(f"handoff: no {report.date} report comment by {me.login} on "
                              f"{tracking[0]}#{tracking[1]}",
                              fix="run `scout.py publish` first with the same token; the "
                                  "board items link to the comment it posted")
        link_from = ReportComment(tracking[0], tracking[1], found.own, prov)
    comment_url = str(link_from.comment.get("html_url", "")) if link_from else ""
    with ghactions.group("handoff: read the board (all items)"):
        snap = _scoped(lambda: projects.read_board(project_client, board), board)
    plan = plan_handoff(items, snap.items, date=report.date, comment_url=comment_url)
    if (plan.create or plan.set_backlog) and INITIAL_STATUS not in snap.status_options:
        raise ConfigError(
            f"board {board.owner}#{board.number}: no Status option {INITIAL_STATUS!r} "
            f"(options: {', '.join(snap.status_options) or 'no Status field'})",
            fix="add a Backlog option to the board's Status field; new scout items never "
                "start in Ready")
    console.say(f"handoff: {len(items)} action item(s); {len(plan.existing)} already on the board; "
          f"{len(plan.create)} to create; {len(plan.updates)} changed")
    if args.dry_run:
        for draft in plan.create:
            console.say(f"dry run: would create {draft.title!r} on {board.owner}#{board.number} "
                  f"and set Status to {INITIAL_STATUS}")
        for b in plan.set_backlog:
            console.say(f"dry run: would set Status of {b.title!r} to {INITIAL_STATUS}")
        for b, _ in plan.updates:
            console.say(f"dry run: would add a dated update to {b.title!r} (the finding changed)")
        console.say(_calls(project_client, issues_client))
        return 0
    created, operation = apply_handoff(project_client, issues_client, snap, board, plan,
                                       report=report, items=items, link_from=link_from)
    ghactions.set_output("items-created", str(created))
    ghactions.set_output("comment-url", comment_url)
    ghactions.set_output("operation", operation)
    console.say(f"handoff: created {created} board item(s) in {INITIAL_STATUS}; report comment "
          f"{operation}")
    _finish(project_client, f"Scout hand-off: {created} board item(s) created in "
                            f"{INITIAL_STATUS}, report comment {operation}",
            other=issues_client, notes=ignored)
    return 0


def _project_client() -> GitHubClient:
    env = dict(os.environ)
    token = (os.environ.get("AGENTOPS_PROJECT_TOKEN") or "").strip()
    if token:
        env["GITHUB_TOKEN"] = token
    elif not (env.get("GITHUB_TOKEN") or "").strip():
        raise InputError("AGENTOPS_PROJECT_TOKEN", "not set (nor GITHUB_TOKEN)", fix=SCOPE_FIX)
    else:
        # The fallback works for a PAT or an App token passed as github-token; the
        # workflow's own GITHUB_TOKEN is refused by the board, which _scoped explains.
        ghactions.notice("handoff: no AGENTOPS_PROJECT_TOKEN; using GITHUB_TOKEN for the board")
    return GitHubClient.from_env(env)


def _repo_issue(args: argparse.Namespace) -> tuple[str, int]:
    # --issue is a number with --repo, or OWNER/NAME#N (#25: as in every script).
    refs = flag_values.issue_refs(str(getattr(args, "issue", "") or ""),
                                  getattr(args, "repo", None),
                                  fallback_repo=os.environ.get("GITHUB_REPOSITORY"))
    if len(refs.numbers) != 1:
        raise UsageError("--issue", f"expected one tracking issue, got {args.issue!r}",
                         fix="e.g. --issue 2856 (env AGENTOPS_ISSUE)")
    if not refs.repo:
        raise InputError("--repo", f"no repository for tracking issue #{refs.numbers[0]}",
                         fix="pass --repo OWNER/NAME or --issue OWNER/NAME#N (in a workflow "
                             "the repository defaults to GITHUB_REPOSITORY)")
    try:
        flag_values.check_repo(refs.repo)
    except argparse.ArgumentTypeError as exc:
        raise InputError("GITHUB_REPOSITORY", str(exc), fix="pass --repo OWNER/NAME") from exc
    return refs.repo, refs.numbers[0]


def _publish_target(args: argparse.Namespace) -> tuple[str, int]:
    """``--repo``/``--issue`` when an issue is given, else the config's tracking issue."""
    found = _tracking(args)
    if found is None:
        raise InputError("--issue", f"target {getattr(args, 'config', None)!r} names no "
                                    "tracking issue to post on",
                         fix="pass --issue N (and --repo OWNER/NAME), or add "
                             "`tracking_issue: {repo: OWNER/NAME, number: N}` to the target")
    return found


def _tracking(args: argparse.Namespace) -> tuple[str, int] | None:
    """The tracking issue publish posts on and handoff edits: ``--issue`` (with
    ``--repo``), else the target's; None when neither names one."""
    if getattr(args, "issue", None):
        return _repo_issue(args)
    if getattr(args, "repo", None):
        raise UsageError("--repo", "names the tracking issue's repository and needs --issue "
                                   "(its number)",
                         fix="add --issue N, or drop --repo to use the target's tracking "
                             "issue")
    targets = _targets(args)
    if targets and targets.tracking_repo and targets.tracking_number:
        return _own_repository(targets.tracking_repo, targets.tracking_number,
                               getattr(args, "config", None))
    return None


def _own_repository(repo: str, number: int, config: object) -> tuple[str, int]:
    """Security (issue #21): in a workflow, the target's tracking issue is a default only
    when it is in the workflow's own repository. A copied workflow would otherwise post
    on someone else's issue (or fail with 403); another repository is written to only
    when ``--issue``/``--repo`` (the ``issue``/``repo`` inputs) name it."""
    if os.environ.get("GITHUB_ACTIONS") != "true":
        return repo, number  # a person at a shell chose the target and the token
    own = (os.environ.get("GITHUB_REPOSITORY") or "").strip()
    if own.lower() != repo.lower():
        raise UsageError("--issue", f"the tracking issue of target {config!r} is {repo}#{number}"
                                  f", outside this workflow's repository "
                                  f"{own or '(GITHUB_REPOSITORY is not set)'}; a workflow "
                                  "writes elsewhere only when told to",
                         fix="set the action's `issue` input (--issue, env AGENTOPS_ISSUE) to "
                             "a tracking issue of this repository, or name the other one "
                             f"explicitly (issue: {repo}#{number}, or repo: {repo} with "
                             f"issue: {number}; with a token that may write there)")
    return repo, number


def _board(args: argparse.Namespace) -> projects.Board:
    board = getattr(args, "board", None)
    if isinstance(board, projects.Board):
        return board
    targets = _targets(args)
    if targets is None or targets.board is None:
        raise ConfigError("handoff: the target config has no `board`",
                          fix="add `board: {owner: ORG, number: N, project_id: PVT_…}` to the "
                              "target YAML (--config)")
    return _own_board(targets.board, getattr(args, "config", None),
                      getattr(args, "repo", None))


def _own_board(board: projects.Board, config: object, repo: object) -> projects.Board:
    """Security (issue #21): like the tracking issue, a built-in target's board is a
    default only for a workflow of the board owner's repositories, or one that names a
    repository of that owner explicitly (`repo` input, as this repository's own
    workflow does). A copied workflow would otherwise add items to someone else's board
    whenever its project token can; a target file of the user's own (a path) names its
    board explicitly."""
    if os.environ.get("GITHUB_ACTIONS") != "true":
        return board
    from agentops.scout import config as scout_config

    if not isinstance(config, str) or config not in scout_config.builtin_names():
        return board
    own = (os.environ.get("GITHUB_REPOSITORY") or "").strip()
    named = repo.strip() if isinstance(repo, str) else ""
    owners = {r.split("/", 1)[0].lower() for r in (own, named) if r}
    if board.owner.lower() not in owners:
        where = own or "(GITHUB_REPOSITORY is not set)"
        raise UsageError("--config", f"the board of built-in target {config!r} is "
                                     f"{board.owner}#{board.number}, outside the owner of this "
                                     f"workflow's repository {where}; a workflow writes "
                                     "elsewhere only when told to",
                         fix="give handoff a target file of your own (the `config` input, "
                             "--config PATH) whose `board:` names your board, or name a "
                             f"repository of {board.owner} explicitly (the `repo` input)")
    return board


def _targets(args: argparse.Namespace) -> LiveTargets | None:
    targets = getattr(args, "targets", None)
    if isinstance(targets, LiveTargets):
        return targets
    name = getattr(args, "config", None)
    if not name:
        return None
    from agentops.scout import config as scout_config  # the report half's loader

    return LiveTargets.from_config(scout_config.load_target(name))


def _verb(operation: str) -> str:
    return {"created": "post", "updated": "edit", "noop": "leave unchanged"}[operation]


def _calls(client: GitHubClient, other: GitHubClient | None = None) -> str:
    if other is None or other is client:
        return client.counter.line()
    return (f"API calls: {client.counter.total + other.counter.total} "
            f"(board {client.counter.line().removeprefix('API calls: ')}; "
            f"issues {other.counter.line().removeprefix('API calls: ')})")


def _ignored(found: ReportComments, me: Identity) -> list[str]:
    """Security: look-alike report comments by other authors are never edited or read;
    each run says how many there were (log warning and job summary)."""
    for why in found.warnings:
        # Unknown is never ours; say so, so a failing lookup is not mistaken for a forgery.
        ghactions.warning(f"report comment treated as not ours: {why}")
    note = found.ignored_note(me)
    if not note:
        return []
    lines = note.split("\n")
    for line in lines:
        ghactions.warning(line)
    return lines


def _finish(client: GitHubClient, headline: str, *, other: GitHubClient | None = None,
            notes: list[str] | None = None) -> None:
    """The API call line on stdout; ``headline`` (Markdown this module built, untrusted
    parts already escaped), ``notes`` (plain text, escaped here) and the call line in
    the job summary."""
    line = _calls(client, other)
    console.say(line)
    extra = "".join(f"- {ghactions.inert_markdown(n, limit=1000)}\n" for n in notes or [])
    ghactions.append_summary(f"{headline}\n\n"
                             + (f"{extra}\n" if extra else "") + f"{line}\n")
