"""``nightly_bisect.py plan``: the first matrix of probes for a good/bad pair (S-10d)."""

from __future__ import annotations

import argparse

from agentops import console, files, ghactions
from agentops.bisect import ranges as rg
from agentops.bisect.session import Session
from agentops.bisect.verbs.args import pair
from agentops.bisect.verbs.output import emit, probe_matrix
from agentops.errors import ExitStatus


def plan_command(args: argparse.Namespace) -> int:
    """The first matrix of probes for a good/bad pair (S-10d)."""
    session = Session(args)
    rg.check_width(args.width)
    if args.out:  # before the index is read: a bad path should not cost the requests
        files.check_writable(args.out, field="--out")
    ns, g, b = pair(session)
    probes = rg.split(g, b, args.width)
    matrix = probe_matrix(ns, probes)
    rounds = rg.rounds_needed(b - g, args.width)
    ghactions.notice(f"{b - g} step(s) from {ns[g].version} to {ns[b].version}; "
                     f"{len(probes)} probe(s) this round; {rounds} round(s) at width "
                     f"{args.width}")
    text = console.json_text(matrix, separators=(",", ":"))
    if args.out:
        files.write_atomic(args.out, text + "\n", field="--out")
    emit(text)
    ghactions.set_output("matrix", text)
    ghactions.set_output("good", str(ns[g].version))
    ghactions.set_output("bad", str(ns[b].version))
    ghactions.set_output("done", "true" if not probes else "false")
    ghactions.set_output("rounds", str(rounds))
    ghactions.append_summary(f"Nightly bisection: `{ns[g].version}` … `{ns[b].version}`, "
                             f"{b - g} step(s); {len(probes)} probe(s) this round, {rounds} "
                             f"round(s) at width {args.width}.")
    session.finish()
    return ExitStatus.OK
