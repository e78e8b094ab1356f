#!/usr/bin/env python3
"""Post-mortem drafts for a landed bug fix: gate the facts (P-3), render the nine
sections as Markdown or JIRA ADF (P-4), lint them (P-5), and publish only the
approved artifact, byte for byte (P-6).

verbs:
  check      exit 0 when drafting may start, 3 listing what is missing (1: bad facts
             file, or more than 64 KiB of prose), 6 when the facts carry a hedge, blame
             or advocacy lint would flag
  draft      the document (refuses exactly like check); --out also records FILE.sha256
  lint       exit 0 clean, 6 with file:line: rule: message per finding (1: unreadable
             draft)
  publish    post the approved ADF to JIRA, or write docs/postmortems/<ticket>.md
  authorize  comment path: check `/postmortem approve KEY SHA256 RUN` and its author
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from agentops import cli
from agentops.cli import env_default
from agentops.flag_values import DATE, ISSUE, REPO, SHA256, TICKET, URL

EPILOG = """\
three ways to run:
  in a workflow:   uses: org/agentops/actions/postmortem@v1   (inputs -> AGENTOPS_* env)
  from a shell:    GITHUB_TOKEN=$(gh auth token) python scripts/postmortem.py draft \\
                       FACTS.yml --pr org/platform#5751 --out draft.md
  offline:         python scripts/postmortem.py draft examples/postmortem/tada-hang.facts.yml

examples:
  python scripts/postmortem.py check FACTS.yml --issue org/platform#5700 --pr org/platform#5751
  python scripts/postmortem.py draft FACTS.yml --format adf --out draft.adf.json
  python scripts/postmortem.py lint draft.md --facts FACTS.yml
  JIRA_EMAIL=me@example.com JIRA_API_TOKEN=... python scripts/postmortem.py publish \\
      --draft draft.adf.json --jira-url https://your-site.atlassian.net --ticket JIRA-12345 \\
      --approved-by alex --approved-sha256 "$(cut -d' ' -f1 draft.adf.json.sha256)"

environment:
  GITHUB_TOKEN       token for --issue/--pr (issues, pull-requests, checks: read)
  GITHUB_API_URL     API base (GitHub Enterprise Server, or a test server on loopback)
  JIRA_EMAIL, JIRA_API_TOKEN   publish to JIRA (basic auth; masked in logs)
  AGENTOPS_*         defaults for the flags, as the composite action sets them"""


def _facts_args(sp: cli.argparse.ArgumentParser) -> None:
    sp.add_argument("facts", metavar="FACTS.yml", nargs="?",
                    default=env_default("AGENTOPS_FACTS"),
                    help="the facts file (env AGENTOPS_FACTS)")
    g = sp.add_argument_group("GitHub facts (fill gaps; people's facts win)")
    g.add_argument("--issue", default=env_default("AGENTOPS_ISSUE"), type=ISSUE,
                   help="source GitHub issue OWNER/NAME#N, or N with --repo: error lines and "
                        "code blocks as symptoms (env AGENTOPS_ISSUE)")
    g.add_argument("--pr", default=env_default("AGENTOPS_PR"), type=ISSUE,
                   help="fix PR OWNER/NAME#N, or N with --repo: merge state, commits, files, "
                        "check runs (env AGENTOPS_PR)")
    g.add_argument("--repo", default=env_default("AGENTOPS_REPO"), type=REPO,
                   help="OWNER/NAME of a number given as --issue N or --pr N (default: "
                        "GITHUB_REPOSITORY; env AGENTOPS_REPO)")
    g.add_argument("--gathered", default=env_default("AGENTOPS_GATHERED"),
                   help="replay a saved --gathered-out file instead of reading GitHub (not "
                        "with --issue/--pr; env AGENTOPS_GATHERED)")
    g.add_argument("--gathered-out", default=env_default("AGENTOPS_GATHERED_OUT"),
                   help="save what was read from GitHub (JSON) for an offline rerun "
                        "(folders are created; env AGENTOPS_GATHERED_OUT)")
    sp.add_argument("--ticket", default=env_default("AGENTOPS_TICKET"), type=TICKET,
                    help="JIRA key (e.g. JIRA-12345); refuses a facts file of another ticket "
                         "(env AGENTOPS_TICKET)")


def build() -> cli.argparse.ArgumentParser:
    p = cli.parser("postmortem.py", __doc__ or "", EPILOG)
    sub = p.add_subparsers(dest="verb", required=True, metavar="VERB")

    cp = sub.add_parser("check", help="P-3 gate: may drafting start?",
                        formatter_class=cli.HelpFormatter,
                        description="Exit 0 when the four inputs hold (reliable reproduction, "
                                    "root cause, fix reference, verification) and the kind is a "
                                    "bug fix; exit 3 naming each missing input or the reason "
                                    "(outage, trivial fix); exit 6 printing file:line: rule: "
                                    "message for each hedge, blame or advocacy in the facts' "
                                    "prose (the lint's own rules, before drafting); exit 1 on "
                                    "a malformed facts file, or one whose prose is past "
                                    "64 KiB (the key to shorten is named).",
                        epilog="example:\n  python scripts/postmortem.py check "
                               "examples/postmortem/tada-hang.facts.yml")
    _facts_args(cp)

    dp = sub.add_parser("draft", help="render the post-mortem (Markdown or ADF)",
                        formatter_class=cli.HelpFormatter,
                        description="Refuses exactly like check. Otherwise prints the document: "
                                    "a metadata block, then the nine sections; a fact nobody "
                                    "gave becomes a question to the owner. With --out, also "
                                    "writes FILE.sha256 (what publish verifies).",
                        epilog="example:\n  python scripts/postmortem.py draft "
                               "examples/postmortem/tada-hang.facts.yml --format adf "
                               "--out /tmp/draft.adf.json")
    _facts_args(dp)
    o = dp.add_argument_group("output")
    o.add_argument("--format", choices=("md", "adf"),
                   default=env_default("AGENTOPS_FORMAT", "md"),
                   help="md (Markdown) or adf (JIRA comment body JSON) (env AGENTOPS_FORMAT)")
    o.add_argument("--destination", choices=("jira", "pr", "docs", "wiki"),
                   default=env_default("AGENTOPS_DESTINATION", "jira"),
                   help="the wrapper: jira/pr put the title at level 2, docs/wiki at level 1 "
                        "(env AGENTOPS_DESTINATION)")
    o.add_argument("--out", default=env_default("AGENTOPS_OUT"),
                   help="write here (and FILE.sha256) instead of stdout; folders are created "
                        "(env AGENTOPS_OUT)")
    o.add_argument("--date", default=env_default("AGENTOPS_DATE"), type=DATE,
                   help="document date YYYY-MM-DD (env AGENTOPS_DATE; default: facts' date, "
                        "else today, UTC)")
    o.add_argument("--wrong-section", default=env_default("AGENTOPS_WRONG_SECTION"),
                   help="P-8: the section a third revision fixes (e.g. 'Root cause'; env "
                        "AGENTOPS_WRONG_SECTION)")

    lp = sub.add_parser("lint", help="P-5: hedging, blame, advocacy, lost identifiers, ...",
                        formatter_class=cli.HelpFormatter,
                        description="Exit 0 when clean; exit 6 printing file:line: rule: message "
                                    "per finding (exit 1: a draft that cannot be read, e.g. "
                                    "not UTF-8). Decides per sentence: wrapped lines are "
                                    "joined; headings, code, quotes and links are not prose; "
                                    "sections are found by meaning (sections.yaml). With "
                                    "--facts, also checks that the facts' code identifiers and "
                                    "untested scope survived; without it, stderr says which "
                                    "checks were skipped.",
                        epilog="example:\n  python scripts/postmortem.py lint "
                               "examples/postmortem/hedged-draft.md")
    lp.add_argument("draft", metavar="DRAFT.md", nargs="?",
                    default=env_default("AGENTOPS_DRAFT", env_default("AGENTOPS_OUT")),
                    help="the Markdown draft (env AGENTOPS_DRAFT, else AGENTOPS_OUT)")
    lp.add_argument("--facts", default=env_default("AGENTOPS_FACTS"),
                    help="the facts file the draft came from (env AGENTOPS_FACTS)")

    pp = sub.add_parser("publish", help="post the approved artifact (JIRA or docs file)",
                        formatter_class=cli.HelpFormatter,
                        description="Refuses (exit 3, nothing posted) unless the artifact's "
                                    "sha256 equals both the hash recorded at draft time and "
                                    "--approved-sha256, and --approved-by names the approver. "
                                    "Posts {\"body\": <the artifact bytes>} to "
                                    "POST /rest/api/3/issue/KEY/comment.",
                        epilog="example:\n  python scripts/postmortem.py publish --draft "
                               "draft.adf.json --jira-url https://your-site.atlassian.net "
                               "--ticket JIRA-12345 --approved-by alex --approved-sha256 HEX")
    pp.add_argument("--draft", default=env_default("AGENTOPS_DRAFT", env_default("AGENTOPS_OUT")),
                    help="what draft --out wrote (ADF for jira, Markdown for docs) "
                         "(env AGENTOPS_DRAFT, else AGENTOPS_OUT)")
    pp.add_argument("--ticket", default=env_default("AGENTOPS_TICKET"), type=TICKET,
                    help="the JIRA key to comment on, e.g. JIRA-12345 (env AGENTOPS_TICKET)")
    cli.renamed(pp, "--issue", "--ticket", "--issue is a GitHub issue in every script; the "
                                           "JIRA key is --ticket")
    pp.add_argument("--jira-url", default=env_default("AGENTOPS_JIRA_URL"), type=URL,
                    help="JIRA base URL (env AGENTOPS_JIRA_URL)")
    pp.add_argument("--destination", choices=("jira", "docs"),
                    default=env_default("AGENTOPS_DESTINATION", "jira"),
                    help="jira: comment on the issue; docs: write docs/postmortems/<KEY>.md "
                         "for a pull request (env AGENTOPS_DESTINATION)")
    pp.add_argument("--root", default=env_default("AGENTOPS_ROOT", "."),
                    help="repository root for the docs destination (env AGENTOPS_ROOT; "
                         "default: the current folder)")
    a = pp.add_argument_group("approval (an approver and the approved sha256 are required)")
    a.add_argument("--approved-by", default=env_default("AGENTOPS_APPROVED_BY"),
                   help="login of the approver (env AGENTOPS_APPROVED_BY)")
    a.add_argument("--approved-by-environment",
                   default=env_default("AGENTOPS_APPROVED_BY_ENVIRONMENT"),
                   help="in a workflow: take the approver from this run's review of the "
                        "named Environment (REST: actions/runs/{id}/approvals; needs "
                        "actions: read); not with --approved-by (env "
                        "AGENTOPS_APPROVED_BY_ENVIRONMENT)")
    a.add_argument("--approved-sha256", default=env_default("AGENTOPS_APPROVED_SHA256"),
                   type=SHA256,
                   help="sha256 of the approved artifact (env AGENTOPS_APPROVED_SHA256)")

    zp = sub.add_parser("authorize", help="comment path: validate an approval comment",
                        formatter_class=cli.HelpFormatter,
                        description="Reads an issue_comment event. Exit 0 and sets the outputs "
                                    "ticket, approved-sha256, draft-run, approved-by when the "
                                    "first line is `/postmortem approve KEY SHA256 RUN_ID`, the "
                                    "commenter has write access (collaborator-permission API) "
                                    "and did not start that draft run; exit 3 otherwise.",
                        epilog="example:\n  GITHUB_TOKEN=... python scripts/postmortem.py "
                               "authorize --event \"$GITHUB_EVENT_PATH\"")
    zp.add_argument("--event", default=env_default("GITHUB_EVENT_PATH"),
                    help="the event JSON (default GITHUB_EVENT_PATH)")
    return p


def dispatch(args: cli.argparse.Namespace) -> int:
    from agentops.errors import InputError
    from agentops.postmortem import commands

    if args.verb in ("check", "draft") and not args.facts:
        raise InputError("FACTS.yml", "required", fix="pass the facts file (or AGENTOPS_FACTS)")
    if args.verb == "lint" and not args.draft:
        raise InputError("DRAFT.md", "required", fix="pass the Markdown draft to lint")
    return {"check": commands.check_command, "draft": commands.draft_command,
            "lint": commands.lint_command, "publish": commands.publish_command,
            "authorize": commands.authorize_command}[args.verb](args)


def main(argv: Sequence[str] | None = None) -> int:
    return cli.run(build, dispatch, argv)


if __name__ == "__main__":
    raise SystemExit(main())
