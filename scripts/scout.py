#!/usr/bin/env python3
"""Nightly scout: find opportunities and risks nobody acted on yet in a sub-project
that tracks a fast-moving upstream (S-0..S-8). Deterministic analysis of a git
checkout plus GitHub API data; a Markdown report; board items for new action items.

verbs:
  report   analyse a checkout -> Markdown report (or --json); --offline needs no token
  init     draft a target for a folder by analysis of the checkout (commented YAML)
  publish  post the report on the tracking issue (comment), job summary
  handoff  one Backlog board item per new action item, then link them in the comment
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from agentops import cli
from agentops.cli import env_default, env_flag
from agentops.flag_values import DATE, ISSUE, NAME_DIR, REPO

EPILOG = """\
three ways to run:
  in a workflow:   uses: org/agentops/actions/scout@v1   (inputs -> AGENTOPS_* env)
  from a shell:    GITHUB_TOKEN=$(gh auth token) python scripts/scout.py report \\
                       --checkout ../torchtitan --out report.md
  offline:         python scripts/scout.py report --checkout ../torchtitan --offline

examples:
  python scripts/scout.py report --checkout ../torchtitan --offline
  python scripts/scout.py report --checkout ../torchtitan --offline --json \\
      --date 2026-08-21 --prior yesterday.md
  python scripts/scout.py publish --repo pytorch/torchtitan --issue 2856 \\
      --report report.md --dry-run
  python scripts/scout.py handoff --report report.md --dry-run

environment:
  GITHUB_TOKEN     token for live runs (issues: write and projects to publish/hand off)
  GITHUB_API_URL   API base (GitHub Enterprise Server, or a test server on loopback)
  AGENTOPS_SIGNING_KEY     optional secret: sign report comments, trust only signed ones
  AGENTOPS_SCOUT_WORKFLOW  OWNER/NAME/.github/workflows/FILE.yml whose runs write the
                   report comments (default in Actions: the running workflow); with a
                   workflow's token and neither set, no comment counts as the scout's
  AGENTOPS_*       defaults for the flags, as the composite action sets them"""


def _report_default() -> str | None:
    # The action names one file for all three verbs (input report-file).
    return env_default("AGENTOPS_REPORT_FILE", env_default("AGENTOPS_REPORT"))


def _tracking_flags(p: cli.argparse.ArgumentParser) -> None:
    p.add_argument("--repo", default=env_default("AGENTOPS_REPO"), type=REPO,
                   help="OWNER/NAME of the tracking issue, with --issue (default: "
                        "GITHUB_REPOSITORY; env AGENTOPS_REPO)")
    p.add_argument("--issue", type=ISSUE, default=env_default("AGENTOPS_ISSUE"),
                   help="GitHub tracking issue: a number (with --repo) or OWNER/NAME#N (env "
                        "AGENTOPS_ISSUE); without it, the target's tracking issue (--config), "
                        "which in a workflow must be in GITHUB_REPOSITORY")


def build() -> cli.argparse.ArgumentParser:
    from agentops.scout.config import DEFAULT_TARGET

    p = cli.parser("scout.py", __doc__ or "", EPILOG)
    p.add_argument("--config", default=env_default("AGENTOPS_CONFIG", DEFAULT_TARGET),
                   help="target, the same for every verb: a built-in name or a path to a "
                        f"target YAML file (env AGENTOPS_CONFIG; default {DEFAULT_TARGET})")
    sub = p.add_subparsers(dest="verb", required=True, metavar="VERB")

    rp = sub.add_parser(
        "report", help="analyse a checkout -> Markdown report",
        formatter_class=cli.HelpFormatter,
        description="Run the scout's analyses (upstream delta, TODOs, tests vs CI, coverage, "
                    "debt, docs) over a git checkout of the target repository and print the "
                    "S-7 report. With --prior, earlier reports decide new vs carried exactly "
                    "(their hidden block). Without --offline, live GitHub data (CI runs, PR "
                    "states, open work, prior report comments) is collected too.",
        epilog="examples:\n"
               "  python scripts/scout.py report --checkout ../torchtitan --offline\n"
               "  python scripts/scout.py report --checkout ../torchtitan --offline --json "
               "--prior 2026-08-20.md")
    src = rp.add_argument_group("what to analyse")
    src.add_argument("--checkout", required=env_default("AGENTOPS_CHECKOUT") is None,
                     default=env_default("AGENTOPS_CHECKOUT"),
                     help="path of a git checkout of the target repo (env AGENTOPS_CHECKOUT)")
    src.add_argument("--date", default=env_default("AGENTOPS_DATE"), type=DATE,
                     help="report date YYYY-MM-DD (env AGENTOPS_DATE; default: today, UTC)")
    src.add_argument("--since", default=env_default("AGENTOPS_SINCE"), type=DATE,
                     help="baseline date YYYY-MM-DD, before --date; default: the newest "
                          "prior report's date, else date - 1 day (first run; env AGENTOPS_SINCE)")
    src.add_argument("--prior", action="append", default=None, metavar="FILE",
                     help="an earlier report as posted (Markdown); repeat for several")
    src.add_argument("--prior-dir", default=env_default("AGENTOPS_PRIOR_DIR"), metavar="DIR",
                     help="a directory of earlier reports (*.md as posted), read as if each "
                          "were given with --prior (env AGENTOPS_PRIOR_DIR)")
    src.add_argument("--torch", default=env_default("AGENTOPS_TORCH", "auto"),
                     metavar="auto|none|DIR",
                     help="installed torch to look named APIs up in (S-2, S-4): found on the "
                          "path (auto), skipped (none), or a package directory (env "
                          "AGENTOPS_TORCH)")
    src.add_argument("--upstream", action="append", default=None, metavar="NAME=DIR",
                     type=NAME_DIR,
                     help="source directory of a configured upstream (target key "
                          "upstreams:), instead of its installed distribution; repeat")
    mode = rp.add_argument_group("mode and output")
    mode.add_argument("--offline", action="store_true", default=env_flag("AGENTOPS_OFFLINE"),
                      help="no network: API-backed sections say 'skipped — offline' (env "
                           "AGENTOPS_OFFLINE)")
    mode.add_argument("--json", action="store_true",
                      help="print one JSON object (markdown, items, every analysis)")
    mode.add_argument("--out", default=env_default("AGENTOPS_REPORT_FILE",
                                                   env_default("AGENTOPS_OUT")), metavar="FILE",
                      help="also write the Markdown report to FILE, for publish/handoff "
                           "(env AGENTOPS_REPORT_FILE); sets the report-path output")

    ip = sub.add_parser(
        "init", help="draft a target for a folder, by analysis of the checkout",
        formatter_class=cli.HelpFormatter,
        description="Write a draft target YAML for a sub-project folder from its code at "
                    "HEAD: upstream classes it subclasses and the methods it overrides, "
                    "upstream functions it calls or copies, private imports, monkey-patches, "
                    "the tests that import it and the workflows that run them, its docs; "
                    "each entry with a comment saying why. `report` runs on it unedited.",
        epilog="example:\n  python scripts/scout.py init --subproject "
               "torchtitan/experiments/rl --checkout ../torchtitan --out rl.yaml")
    ip.add_argument("--subproject", required=True, metavar="PATH",
                    help="the folder, relative to the repository root")
    ip.add_argument("--checkout", required=env_default("AGENTOPS_CHECKOUT") is None,
                    default=env_default("AGENTOPS_CHECKOUT"),
                    help="path of a git checkout (env AGENTOPS_CHECKOUT)")
    ip.add_argument("--repo", default=None, metavar="OWNER/NAME", type=REPO,
                    help="the repository (default: from the checkout's origin remote)")
    ip.add_argument("--out", default=None, metavar="FILE",
                    help="write the draft to FILE (default: print it)")

    pp = sub.add_parser(
        "publish", help="post the report as a tracking-issue comment",
        formatter_class=cli.HelpFormatter,
        description="Post (or update) the report comment on the tracking issue and write "
                    "the job summary.",
        epilog="example:\n  python scripts/scout.py publish --repo pytorch/torchtitan "
               "--issue 2856 --report report.md --dry-run")
    _tracking_flags(pp)
    pp.add_argument("--report", required=_report_default() is None,
                    default=_report_default(), metavar="FILE",
                    help="the Markdown report (from report --out; env AGENTOPS_REPORT_FILE)")
    pp.add_argument("--dry-run", action="store_true", default=env_flag("AGENTOPS_DRY_RUN"),
                    help="print what would be posted, write nothing (env AGENTOPS_DRY_RUN)")

    hp = sub.add_parser(
        "handoff", help="board items for new action items",
        formatter_class=cli.HelpFormatter,
        description="S-8: one Backlog draft item per new action item (deduplicated against "
                    "the board), then link each item from the report comment on the "
                    "tracking issue (the one publish posted).",
        epilog="example:\n  python scripts/scout.py handoff --report report.md --dry-run")
    _tracking_flags(hp)
    hp.add_argument("--report", required=_report_default() is None,
                    default=_report_default(), metavar="FILE",
                    help="the Markdown report (from report --out; env AGENTOPS_REPORT_FILE)")
    hp.add_argument("--dry-run", action="store_true", default=env_flag("AGENTOPS_DRY_RUN"),
                    help="print the planned items, write nothing (env AGENTOPS_DRY_RUN)")
    return p


def dispatch(args: cli.argparse.Namespace) -> int:
    if args.verb == "report":
        from agentops.scout.report import report_command

        return report_command(args)
    if args.verb == "init":
        from agentops.scout.initverb import init_command

        return init_command(args)
    import importlib

    try:  # the live verbs (their writer is scout.publish); by name so sys.modules decides
        commands = importlib.import_module("agentops.scout.commands")
    except ModuleNotFoundError as exc:
        if exc.name not in ("agentops.scout.commands", "agentops.scout.publish"):
            raise
        from agentops.errors import ConfigError

        raise ConfigError(f"the {args.verb} verb is not available in this installation "
                          f"({exc.name} is missing)",
                          fix="install the complete agentops package") from exc
    if args.verb == "publish":
        return commands.publish_command(args)
    return commands.handoff_command(args)


def main(argv: Sequence[str] | None = None) -> int:
    return cli.run(build, dispatch, argv)


if __name__ == "__main__":
    raise SystemExit(main())
