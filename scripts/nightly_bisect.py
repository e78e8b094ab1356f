#!/usr/bin/env python3
"""Nightly regression range: list the nightlies on a simple index, read a wheel's
commit without downloading it, and bisect between a good and a bad nightly as a
GitHub Actions matrix (S-10).

verbs:
  versions  the nightlies on the index, one wheel per version (python tag, platform)
  resolve   one nightly: wheel URL and commit from torch/version.py (range requests)
  range     good/bad pair: the `Nightly | Status | PyTorch Commit` table + compare link
  plan      good/bad pair: a matrix of up to --width probe nightlies ({"include": [...]})
  probe     one matrix cell: install that nightly, run the repro command, write a result
  narrow    probe results: the narrowed pair and the next matrix, or the final range
  auto      the action's default command: probe if --version, narrow if --results,
            plan otherwise
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from agentops import cli
from agentops.cli import env_default
from agentops.flag_values import MINUTES, NIGHTLY, NIGHTLY_DATE, PYTHON, REPO, URL, WIDTH

EPILOG = """\
three ways to run:
  in a workflow:   uses: org/agentops/actions/nightly-bisect@v1   (inputs -> AGENTOPS_* env)
  from a shell:    python scripts/nightly_bisect.py range --good dev20260701 --bad dev20260709
                   (GITHUB_TOKEN only for --commit-source branch|both; optional there)
  offline:         bash examples/nightly-bisect/demo.sh   (a loopback index, generated wheels)

examples:
  python scripts/nightly_bisect.py versions --python 3.12 --since 20260701
  python scripts/nightly_bisect.py resolve --version dev20260709
  python scripts/nightly_bisect.py range --good dev20260701 --bad dev20260709 --json
  python scripts/nightly_bisect.py plan --good dev20260601 --bad dev20260709 --width 8
  python scripts/nightly_bisect.py probe --version dev20260705 --results results/ \\
      --repro-command 'python repro.py' --python 3.12 --interpreter "$(command -v python3.12)"
  python scripts/nightly_bisect.py narrow --good dev20260601 --bad dev20260709 \\
      --results results/

versions may be given in full (2.10.0.dev20260709+cpu), without the local part
(2.10.0.dev20260709) or as dates (dev20260709, 20260709, 2026-07-09). The index keeps
only about the newest 60 nightlies per package; older ones are gone (use
--commit-source branch for their commits).

environment:
  AGENTOPS_*              defaults for the flags, as the composite action sets them
  AGENTOPS_REPRO_COMMAND  the repro command for `probe` (in a workflow only ever
                          through env, never interpolated into YAML)
  AGENTOPS_HTTP_*         retries, timeouts, the per-request deadline and the full-download
                          limit of the index and wheel reads (the table: docs/http.md)
  GITHUB_TOKEN            for the nightly-branch lookup (contents: read); optional
  GITHUB_API_URL          API base (GitHub Enterprise Server, or a loopback server)"""


def _index_flags(p: cli.argparse.ArgumentParser) -> None:
    from agentops.bisect.session import DEFAULT_INDEX, DEFAULT_PLATFORM

    g = p.add_argument_group("index", "which wheels (example: --python 3.12 "
                                      "--platform manylinux_2_28_x86_64)")
    g.add_argument("--index-url", default=env_default("AGENTOPS_INDEX_URL", DEFAULT_INDEX),
                   type=URL,
                   help=f"PEP 503/691 simple index (env AGENTOPS_INDEX_URL; default "
                        f"{DEFAULT_INDEX})")
    g.add_argument("--package", default=env_default("AGENTOPS_PACKAGE", "torch"),
                   help="package name (env AGENTOPS_PACKAGE; default torch)")
    g.add_argument("--python", type=PYTHON, default=env_default(
        "AGENTOPS_PYTHON", f"{sys.version_info.major}.{sys.version_info.minor}"),
                   help="CPython version of the wheels, e.g. 3.12 (env AGENTOPS_PYTHON; "
                        "default: this interpreter's)")
    g.add_argument("--platform", default=env_default("AGENTOPS_PLATFORM", DEFAULT_PLATFORM),
                   help=f"wheel platform tag (env AGENTOPS_PLATFORM; default "
                        f"{DEFAULT_PLATFORM})")
    g.add_argument("--variant", default=env_default("AGENTOPS_VARIANT"),
                   help="build variant, the version's local part (cpu, cu126, rocm6.4); "
                        "needed when the index mixes variants (env AGENTOPS_VARIANT)")
    g.add_argument("--page-cache", default=env_default("AGENTOPS_PAGE_CACHE"),
                   help="a file keeping the project page between runs: revalidated with "
                        "ETag/Last-Modified, an unchanged page costs no body (env "
                        "AGENTOPS_PAGE_CACHE)")


def _commit_flags(p: cli.argparse.ArgumentParser) -> None:
    # Only on the verbs that read a commit (resolve, range, narrow, auto): a flag a
    # verb would ignore is not offered (issue #25).
    from agentops.bisect.session import DEFAULT_REPO

    c = p.add_argument_group("commits", "where a nightly's commit comes from "
                                        "(example: --commit-source both)")
    c.add_argument("--repo", default=env_default("AGENTOPS_REPO", DEFAULT_REPO), type=REPO,
                   help="upstream OWNER/NAME for commit and compare links and the nightly "
                        "branch (env AGENTOPS_REPO; default pytorch/pytorch)")
    c.add_argument("--commit-source", choices=("wheel", "branch", "both"),
                   default=env_default("AGENTOPS_COMMIT_SOURCE", "wheel"),
                   help="wheel: torch/version.py via range requests; branch: the nightly "
                        "branch's commit titles (one API call, ~50 days); both: read both "
                        "and cross-check (env AGENTOPS_COMMIT_SOURCE; default wheel)")


def _pair_flags(p: cli.argparse.ArgumentParser, *, width: bool) -> None:
    g = p.add_argument_group("range", "the last good and first bad nightly (example: "
                                      "--good dev20260701 --bad dev20260709 --width 8)")
    g.add_argument("--good", default=env_default("AGENTOPS_GOOD"), type=NIGHTLY,
                   help="last good nightly: version or date (env AGENTOPS_GOOD)")
    g.add_argument("--bad", default=env_default("AGENTOPS_BAD"), type=NIGHTLY,
                   help="first bad nightly: version or date (env AGENTOPS_BAD)")
    if width:
        # A string default goes through type=int, so a bad env value is a usage error.
        g.add_argument("--width", type=WIDTH, default=env_default("AGENTOPS_WIDTH", "8"),
                       help="probes per round, 1-256 (env AGENTOPS_WIDTH; default 8); "
                            "rounds needed: ceil(log_(width+1) steps)")


def _probe_flags(p: cli.argparse.ArgumentParser) -> None:
    g = p.add_argument_group("probe", "one matrix cell (example: --version dev20260705 "
                                      "--results results/)")
    g.add_argument("--repro-command", default=env_default("AGENTOPS_REPRO_COMMAND"),
                   metavar="COMMAND",
                   help="repro command run with bash; exit 0 = good (env "
                        "AGENTOPS_REPRO_COMMAND; in workflows only through env, never "
                        "interpolated into YAML)")
    cli.renamed(p, "--command", "--repro-command", "the command is the verb in every "
                                                   "script and action")
    g.add_argument("--interpreter", default=env_default("AGENTOPS_INTERPRETER"),
                   metavar="PATH",
                   help="the Python the probe's venv is made from; must be the CPython "
                        "--python names, checked before anything is installed (env "
                        "AGENTOPS_INTERPRETER; default: this interpreter)")
    g.add_argument("--extra-index-url", default=env_default("AGENTOPS_EXTRA_INDEX_URL"),
                   type=URL,
                   help="another index for the nightly's dependencies (env "
                        "AGENTOPS_EXTRA_INDEX_URL)")
    g.add_argument("--timeout", type=MINUTES,
                   default=env_default("AGENTOPS_TIMEOUT", "30"),
                   help="minutes the repro may run (env AGENTOPS_TIMEOUT; default 30)")
    g.add_argument("--venv", default=env_default("AGENTOPS_VENV"),
                   help="folder for the probe's venv (env AGENTOPS_VENV; default: a new temporary "
                        "folder)")


def _wheel_url_flag(p: cli.argparse.ArgumentParser) -> None:
    p.add_argument("--wheel-url", default=env_default("AGENTOPS_WHEEL_URL"), type=URL,
                   help="the wheel itself (a plan matrix cell's wheel_url): the project page "
                        "is not fetched; the index URL's credentials go to the same host "
                        "(env AGENTOPS_WHEEL_URL)")


def _verb(sub, name: str, help_: str, description: str, example: str):  # type: ignore[no-untyped-def]
    return sub.add_parser(name, help=help_, description=textwrap.fill(description, 88),
                          formatter_class=cli.HelpFormatter, epilog=f"example:\n  {example}")


def build() -> cli.argparse.ArgumentParser:
    p = cli.parser("nightly_bisect.py", __doc__ or "", EPILOG)
    sub = p.add_subparsers(dest="verb", required=True, metavar="VERB")

    v = _verb(sub, "versions", "list the nightlies on the index",
              "The nightly versions of --package on the index, sorted, one wheel per "
              "version for the CPython tag and platform.",
              "python scripts/nightly_bisect.py versions --python 3.12 --since 20260701")
    _index_flags(v)
    v.add_argument("--since", default=env_default("AGENTOPS_SINCE"), type=NIGHTLY_DATE,
                   help="YYYYMMDD, inclusive (env AGENTOPS_SINCE)")
    v.add_argument("--until", default=env_default("AGENTOPS_UNTIL"), type=NIGHTLY_DATE,
                   help="YYYYMMDD, inclusive (env AGENTOPS_UNTIL)")
    v.add_argument("--json", action="store_true", help="a JSON list instead of lines")

    r = _verb(sub, "resolve", "one nightly's wheel and commit (JSON)",
              "Reads torch/version.py from the wheel with HTTP range requests (a few hundred "
              "KiB whatever the wheel's size); a full download only if the server ignores "
              "Range, and then `full_download` is true and stderr says so.",
              "python scripts/nightly_bisect.py resolve --version dev20260709")
    _index_flags(r)
    _commit_flags(r)
    r.add_argument("--version", default=env_default("AGENTOPS_VERSION"), type=NIGHTLY,
                   help="version or date (env AGENTOPS_VERSION)")
    _wheel_url_flag(r)

    g = _verb(sub, "range", "the regression-range table and compare link",
              "Prints `Nightly | Status | PyTorch Commit` for the good and bad nightly and "
              "the compare link <good>...<bad> (S-3b).",
              "python scripts/nightly_bisect.py range --good dev20260701 --bad dev20260709")
    _index_flags(g)
    _commit_flags(g)
    _pair_flags(g, width=False)
    g.add_argument("--good-log", default=env_default("AGENTOPS_GOOD_LOG"),
                   help="a CI log of the passing run: the version comes from its "
                        "`Successfully installed … torch-V` line (env AGENTOPS_GOOD_LOG)")
    g.add_argument("--bad-log", default=env_default("AGENTOPS_BAD_LOG"),
                   help="a CI log of the failing run (as --good-log; env AGENTOPS_BAD_LOG)")
    g.add_argument("--json", action="store_true", help="one JSON object instead of Markdown")

    pl = _verb(sub, "plan", "the first matrix of probes",
               "Prints {\"include\": [{\"version\", \"wheel_url\", \"slug\", \"date\"}, …]} for "
               "fromJSON: up to --width nightlies splitting the range evenly.",
               "python scripts/nightly_bisect.py plan --good dev20260601 --bad dev20260709 "
               "--width 8")
    _index_flags(pl)
    _pair_flags(pl, width=True)
    pl.add_argument("--out", default=env_default("AGENTOPS_OUT"),
                    help="also write the matrix to this file (folders are created; env "
                         "AGENTOPS_OUT)")

    pr = _verb(sub, "probe", "install one nightly and run the repro",
               "Creates a fresh venv, installs the nightly's wheel (dependencies from the "
               "index), runs the repro command with that venv first on PATH, and writes "
               "RESULTS/<slug>.json: {version, status: pass|fail|skip, log_tail, git_version}. "
               "The interpreter must be the CPython of --python; a mismatch is refused "
               "before anything is installed.",
               "python scripts/nightly_bisect.py probe --version dev20260705 --results "
               "results/ --repro-command 'python repro.py'")
    _index_flags(pr)
    pr.add_argument("--version", default=env_default("AGENTOPS_VERSION"), type=NIGHTLY,
                    help="the nightly to test (env AGENTOPS_VERSION)")
    pr.add_argument("--results", default=env_default("AGENTOPS_RESULTS_DIR"),
                    help="folder for the result file, created when missing (env "
                         "AGENTOPS_RESULTS_DIR)")
    _wheel_url_flag(pr)
    _probe_flags(pr)

    n = _verb(sub, "narrow", "narrow the range from probe results",
              "Reads RESULTS/**/*.json, prints the narrowed good/bad pair and the next "
              "matrix while more than one step is left, else the final range. A pass after "
              "a fail is reported as a contradiction (narrowing keeps the first failure).",
              "python scripts/nightly_bisect.py narrow --good dev20260601 --bad dev20260709 "
              "--results results/")
    _index_flags(n)
    _commit_flags(n)
    _pair_flags(n, width=True)
    n.add_argument("--results", default=env_default("AGENTOPS_RESULTS_DIR"),
                   help="folder of result files (env AGENTOPS_RESULTS_DIR)")
    n.add_argument("--json", action="store_true", help="one JSON object instead of text")

    a = _verb(sub, "auto", "probe, narrow or plan, from the flags given",
              "probe when --version is set, narrow when --results is set, plan otherwise "
              "(the nightly-bisect action's default command).",
              "AGENTOPS_GOOD=dev20260601 AGENTOPS_BAD=dev20260709 python "
              "scripts/nightly_bisect.py auto")
    _index_flags(a)
    _commit_flags(a)
    _pair_flags(a, width=True)
    a.add_argument("--version", default=env_default("AGENTOPS_VERSION"), type=NIGHTLY,
                   help="probe this nightly (env AGENTOPS_VERSION)")
    a.add_argument("--results", default=env_default("AGENTOPS_RESULTS_DIR"),
                   help="results folder (env AGENTOPS_RESULTS_DIR)")
    _wheel_url_flag(a)
    a.add_argument("--out", default=None, help=cli.argparse.SUPPRESS)
    a.add_argument("--json", action="store_true", help="JSON output for narrow")
    _probe_flags(a)
    return p


def dispatch(args: cli.argparse.Namespace) -> int:
    # Each verb's code is agentops/bisect/verbs/<verb>.py.
    from agentops.bisect.verbs import auto, narrow, plan, probe, resolve, versions
    from agentops.bisect.verbs import range as range_

    return {
        "versions": versions.versions_command,
        "resolve": resolve.resolve_command,
        "range": range_.range_command,
        "plan": plan.plan_command,
        "probe": probe.probe_command,
        "narrow": narrow.narrow_command,
        "auto": auto.auto_command,
    }[args.verb](args)


def main(argv: Sequence[str] | None = None) -> int:
    return cli.run(build, dispatch, argv)


if __name__ == "__main__":
    raise SystemExit(main())
