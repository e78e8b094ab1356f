"""``nightly_bisect.py auto``: the nightly-bisect action's default command; probe
when a version is given, narrow when a results folder is, plan otherwise."""

from __future__ import annotations

import argparse

from agentops import cli
from agentops.bisect.verbs.narrow import narrow_command
from agentops.bisect.verbs.plan import plan_command
from agentops.bisect.verbs.probe import probe_command


def auto_command(args: argparse.Namespace) -> int:
    """Probe when a version is given, narrow when a results folder is, plan otherwise
    (the nightly-bisect action's default command)."""
    if args.version or args.results:
        cli.refuse_flags(args, {"out": "--out"}, context="auto's probe and narrow",
                         fix="use --out with plan (no --version, no --results)")
    if args.version:
        return probe_command(args)
    return narrow_command(args) if args.results else plan_command(args)
