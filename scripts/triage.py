#!/usr/bin/env python3
"""Second-level triage of an `oncall: distributed` queue: route to one sub-oncall,
classify modules, add type labels, flag high priority for humans, ask for a
reproduction — add-only, allowlisted, never a duplicate comment.

verbs:
  plan      offline: one GitHub REST issue JSON (comments inline) -> plan JSON
  run       live: plan and apply one (or more) issues over the REST API
  sweep     live: the scheduled backlog sweep over the queue
  evaluate  measure the planner on labelled issues (JSONL, or --repo: live backtest)
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from agentops import cli
from agentops.cli import env_default, env_flag
from agentops.flag_values import COUNT, DATE, ISSUES, LOGINS, REPO

EPILOG = """\
three ways to run:
  in a workflow:   uses: org/agentops/actions/triage@v1   (inputs -> AGENTOPS_* env)
  from a shell:    GITHUB_TOKEN=$(gh auth token) python scripts/triage.py run \\
                       --repo pytorch/pytorch --issue 123456 --dry-run
  offline:         python scripts/triage.py plan examples/triage/issues/route-infra.json

examples:
  python scripts/triage.py plan ISSUE.json                 # plan JSON on stdout
  python scripts/triage.py plan ISSUE.json --queue path/to/queue-folder
  python scripts/triage.py plan ISSUE.json --repo OWNER/NAME --plan-out p.json  # offline
  python scripts/triage.py plan --repo OWNER/NAME --issue 42 --plan-out p.json  # live, no writes
  python scripts/triage.py run --repo OWNER/NAME --issue 42 --dry-run
  python scripts/triage.py run --repo OWNER/NAME --plan-in p.json     # apply those plans
  python scripts/triage.py sweep --repo OWNER/NAME --max-issues 50
  python scripts/triage.py evaluate src/agentops/triage/queues/distributed/labelled.jsonl --json
  python scripts/triage.py evaluate --repo OWNER/NAME --since 2025-01-01 --save h.jsonl

environment:
  GITHUB_TOKEN     token for run/sweep (issues: write to apply; read is enough with --dry-run)
  GITHUB_API_URL   API base (GitHub Enterprise Server, or a test server on loopback)
  AGENTOPS_SIGNING_KEY      optional secret: sign the bot's comments; a github-actions[bot]
                   comment is then the bot's only when signed
  AGENTOPS_TRIAGE_WORKFLOW  OWNER/NAME/.github/workflows/FILE.yml whose runs write the
                   bot's comments (default in Actions: the running workflow); otherwise a
                   github-actions[bot] comment is read as an ordinary person's
  AGENTOPS_*       defaults for the flags, as the composite action sets them"""


def _live_issue_options(p: cli.argparse.ArgumentParser) -> None:
    """The options `plan` (live) and `run` share: which issues, and what to keep."""
    p.add_argument("--issue", action="append", default=None, type=ISSUES,
                   help="live: GitHub issue number (with --repo) or OWNER/NAME#N; repeat, or "
                        "give a comma/space separated list (env AGENTOPS_ISSUE); in a workflow "
                        "without it, the event names the issue. Not with ISSUE.json")
    p.add_argument("--trusted-bots", default=env_default("AGENTOPS_TRUSTED_BOTS"), type=LOGINS,
                   metavar="LOGINS",
                   help="live, without --issue or --plan-in, in a workflow: a trigger label "
                        "added by a bot starts nothing unless the bot is listed here (JSON "
                        "list or comma separated, e.g. the first-level triage bot; env "
                        "AGENTOPS_TRUSTED_BOTS)")
    p.add_argument("--plan-out", default=env_default("AGENTOPS_PLAN_OUT"),
                   help="also write the plans as JSON to this file (folders are created), "
                        "the one `run --plan-in` applies (env AGENTOPS_PLAN_OUT)")
    p.add_argument("--snapshot-out", default=env_default("AGENTOPS_SNAPSHOT_OUT"),
                   metavar="FOLDER",
                   help="live: save each issue as read (REST JSON, comments inline) to "
                        "FOLDER/issue-N.json, replayable offline with `plan` (env "
                        "AGENTOPS_SNAPSHOT_OUT). Not with ISSUE.json")


def build() -> cli.argparse.ArgumentParser:
    p = cli.parser("triage.py", __doc__ or "", EPILOG)
    p.add_argument("--queue", default=env_default("AGENTOPS_QUEUE", "distributed"),
                   help="queue name (built in: distributed) or a folder holding labels.json, "
                        "rubric.yml, templates.json (env AGENTOPS_QUEUE)")
    sub = p.add_subparsers(dest="verb", required=True, metavar="VERB")

    sp = sub.add_parser("plan", help="offline: issue JSON -> plan JSON",
                        formatter_class=cli.HelpFormatter,
                        description="Plan one issue offline. ISSUE.json is a GitHub REST issue "
                                    "object with its REST comment objects inline under "
                                    "\"comments\". Prints the plan (T-30) on stdout; --plan-out "
                                    "also writes the plans file `run --plan-in` applies. "
                                    "Without ISSUE.json, reads --issue live and writes nothing "
                                    "on GitHub (the read-only job of a split plan/apply "
                                    "workflow). Options go before or after the verb.",
                        epilog="examples:\n  python scripts/triage.py plan "
                               "examples/triage/issues/route-infra.json\n"
                               "  python scripts/triage.py plan --repo OWNER/NAME --issue 42 "
                               "--plan-out plans.json")
    sp.add_argument("issue_file", metavar="ISSUE.json", nargs="?",
                    default=env_default("AGENTOPS_ISSUE_FILE"),
                    help="offline input (env AGENTOPS_ISSUE_FILE, the action's issue-file); "
                         "without it, --issue is read live (needs a token, writes nothing)")
    sp.add_argument("--repo", default=env_default("AGENTOPS_REPO"), type=REPO,
                    help="OWNER/NAME, when the issue JSON has no repository_url (env "
                         "AGENTOPS_REPO; live: defaults to GITHUB_REPOSITORY)")
    _live_issue_options(sp)

    rp = sub.add_parser("run", help="live: plan and apply issues",
                        formatter_class=cli.HelpFormatter,
                        description="Read each issue fresh from the API (never trusting the "
                                    "event payload), plan it, and apply the plan: one call adds "
                                    "all labels, at most one comment, nothing removed.",
                        epilog="example:\n  python scripts/triage.py run --repo OWNER/NAME "
                               "--issue 42 --dry-run")
    # GITHUB_REPOSITORY is only the fallback (live._repo_arg): an --issue OWNER/NAME#N
    # conflicts with a --repo someone gave, never with the workflow's own repository.
    rp.add_argument("--repo", default=env_default("AGENTOPS_REPO"), type=REPO,
                    help="OWNER/NAME (env AGENTOPS_REPO, else GITHUB_REPOSITORY)")
    rp.add_argument("--dry-run", action="store_true", default=env_flag("AGENTOPS_DRY_RUN"),
                    help="plan and report, write nothing (env AGENTOPS_DRY_RUN)")
    _live_issue_options(rp)
    rp.add_argument("--plan-in", default=env_default("AGENTOPS_PLAN_IN"),
                    help="apply the plans of this file (from `plan --plan-out`) instead of "
                         "planning; each issue is re-read and the plan checked against it "
                         "(env AGENTOPS_PLAN_IN)")

    wp = sub.add_parser("sweep", help="live: backlog sweep of the queue",
                        formatter_class=cli.HelpFormatter,
                        description="Triage open queue issues that lack a sub-oncall or the "
                                    "marker label, oldest-untouched first, within a budget. "
                                    "An error on one issue does not stop the others.",
                        epilog="example:\n  python scripts/triage.py sweep --repo OWNER/NAME "
                               "--max-issues 50 --dry-run")
    wp.add_argument("--repo", type=REPO,
                    default=env_default("AGENTOPS_REPO", env_default("GITHUB_REPOSITORY")),
                    help="OWNER/NAME (env AGENTOPS_REPO, else GITHUB_REPOSITORY)")
    wp.add_argument("--max-issues", type=COUNT,
                    default=env_default("AGENTOPS_MAX_ISSUES", "50"),
                    help="per-run budget of issues to plan (env AGENTOPS_MAX_ISSUES)")
    wp.add_argument("--dry-run", action="store_true", default=env_flag("AGENTOPS_DRY_RUN"),
                    help="plan and report, write nothing (env AGENTOPS_DRY_RUN)")
    wp.add_argument("--state-file", default=env_default("AGENTOPS_STATE_FILE"),
                    help="resume file (JSON): issues done in earlier runs and the plan "
                         "fingerprints of those awaiting humans (env AGENTOPS_STATE_FILE)")
    wp.add_argument("--plan-out", default=env_default("AGENTOPS_PLAN_OUT"),
                    help="also write the plans as JSON to this file (folders are created; "
                         "env AGENTOPS_PLAN_OUT)")

    ep = sub.add_parser("evaluate", help="measure the planner on labelled issues (a file, "
                                         "or a repository's own history)",
                        formatter_class=cli.HelpFormatter,
                        description="T-32: plan each labelled issue with only the labels the "
                                    "first-level bot would have set, and compare with the "
                                    "human labels; a keyword baseline side by side, and "
                                    "selective triage's precision at coverage (a `triaged` plan "
                                    "on an issue the humans routed away from the queue counts "
                                    "as wrong, and is counted apart). With --repo, "
                                    "the labelled issues are the queue's issues that humans "
                                    "already triaged in that repository (read live, in "
                                    "batches; needs a token that can read issues).",
                        epilog="examples:\n  python scripts/triage.py evaluate   "
                               "# the queue's own labelled set\n"
                               "  python scripts/triage.py evaluate "
                               "history.jsonl --json   # a set --save wrote\n"
                               "  python scripts/triage.py evaluate --repo OWNER/NAME "
                               "--since 2025-01-01 --max-issues 200 --save history.jsonl")
    ep.add_argument("dataset", metavar="FILE.jsonl", nargs="?", default=None,
                    help="a labelled set, one issue per line; without it (and without "
                         "--repo), the small set the queue ships (labelled.jsonl in its "
                         "folder)")
    ep.add_argument("--repo", default=None, metavar="OWNER/NAME", type=REPO,
                    help="backtest on this repository: its queue issues that humans already "
                         "triaged (GITHUB_TOKEN; GITHUB_API_URL for another server)")
    ep.add_argument("--since", default=None, metavar="DATE", type=DATE,
                    help="with --repo: only issues created on or after DATE (YYYY-MM-DD)")
    ep.add_argument("--max-issues", type=COUNT, default=None, metavar="N",
                    help="with --repo: score at most N human-triaged issues (default 500)")
    ep.add_argument("--save", default=None, metavar="FILE.jsonl",
                    help="with --repo: also write the issues read as a labelled set, for "
                         "offline reruns (`evaluate FILE.jsonl` gives the same figures)")
    ep.add_argument("--json", action="store_true",
                    help="end with one machine-readable JSON line")
    ep.add_argument("--errors", action="store_true",
                    help="list each issue whose plan differs from the human labels")
    return p


def dispatch(args: cli.argparse.Namespace) -> int:
    if args.verb == "plan" and args.issue_file is None:
        from agentops.triage import live

        return live.plan_command(args)
    if args.verb in ("plan", "evaluate"):
        from agentops.triage import offline

        return offline.plan_command(args) if args.verb == "plan" else offline.evaluate_command(args)
    from agentops.triage import live

    return live.run_command(args) if args.verb == "run" else live.sweep_command(args)


def main(argv: Sequence[str] | None = None) -> int:
    return cli.run(build, dispatch, argv)


if __name__ == "__main__":
    raise SystemExit(main())
