"""``nightly_bisect.py narrow``: read the probe results, narrow the range, and print
the next matrix or, when one step is left, the final range (S-10d)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agentops import console, files, ghactions
from agentops.bisect import index as idx
from agentops.bisect import ranges as rg
from agentops.bisect.session import Session
from agentops.bisect.verbs.args import pair, require_pair
from agentops.bisect.verbs.output import emit, json_text, probe_matrix
from agentops.bisect.verbs.range import build_range
from agentops.errors import ExitStatus, InputError


def load_results(directory: Path) -> list[rg.ProbeResult]:
    """Every ``*.json`` under ``directory`` (artifacts may be nested one per folder)."""
    if not directory.is_dir():
        raise InputError("--results", f"{directory} is not a directory: no probe wrote "
                         "a result", fix="check the probe jobs (each uploads one result "
                         "file) and download their artifacts into this folder")
    out = []
    for path in sorted(directory.rglob("*.json")):
        obj = files.read_json(path, field="--results", limit=2**20,
                              fix="remove it, or rerun the probe that wrote it")
        out.append(rg.ProbeResult.from_json(obj, source=str(path)))
    if not out:
        # Sanity: narrowing without results would hand back the same matrix forever.
        raise InputError("--results", f"no *.json result files under {directory}",
                         fix="check the probe jobs (each uploads one result file)")
    return out


def narrow_command(args: argparse.Namespace) -> int:
    """Narrow the range with the probe results; print the next matrix or the range."""
    session = Session(args)
    rg.check_width(args.width)
    # Local files before the index: a wrong --results costs no request and no retry wait.
    require_pair(args.good, args.bad)
    if not args.results:
        raise InputError("--results", "narrow needs the folder of probe result files",
                         fix="pass --results DIR (env AGENTOPS_RESULTS_DIR; the action's "
                             "results-dir) holding the probe jobs' downloaded artifacts")
    probe_results = load_results(Path(args.results))
    ns, g, b = pair(session)
    labels = [str(n.version) for n in ns]
    results: dict[int, rg.ProbeResult] = {}
    problems: list[str] = []
    unknown: list[str] = []
    for res in probe_results:
        try:
            pos = idx.find(ns, res.version, field_name=res.source)
        except InputError as exc:
            unknown.append(exc.message)
            continue
        if pos in results and results[pos].status != res.status:
            problems.append(f"{labels[pos]}: results disagree ({results[pos].status} in "
                            f"{results[pos].source}, {res.status} in {res.source})")
            # Sanity: a disagreeing duplicate is a contradiction; a fail is kept, since
            # narrowing to a failure never hides the regression.
            if res.status != "fail":
                continue
        results[pos] = res
    nar = rg.narrow(g, b, results, width=args.width, labels=labels)
    contradictions = [*nar.contradictions, *problems]
    for c in contradictions:
        ghactions.warning(c, title="contradictory probe results")
    ignored = [*nar.ignored, *unknown]
    for msg in ignored:
        ghactions.notice(f"  ignored: {msg}")
    good, bad = labels[nar.good], labels[nar.bad]
    payload: dict[str, Any] = {
        "good": good, "bad": bad, "steps": nar.steps, "done": nar.done,
        "rounds_left": 0 if nar.done else rg.rounds_needed(nar.steps, args.width),
        "contradictions": contradictions,
        "skipped": [labels[i] for i in nar.skipped],
        "ignored": ignored,
        "results": {labels[p]: r.status for p, r in sorted(results.items())},
    }
    matrix = probe_matrix(ns, nar.next_probes)
    md = ""
    if nar.done:
        known = {labels[p]: r.git_version for p, r in results.items() if r.git_version}
        rng = build_range(session, good, bad, known=known,
                          skipped=[labels[i] for i in nar.skipped])
        md = rg.render_markdown(rng)
        first_bad = results.get(nar.bad)
        if first_bad is not None and first_bad.log_tail.strip():
            md += "\n" + rg.render_log_tail(bad, first_bad.log_tail)
        if contradictions:
            md += "\n**Contradictory results:**\n" + "".join(
                f"- {ghactions.inert_markdown(c, limit=500)}\n" for c in contradictions)
        payload["range"] = rng.to_json()
        payload["range_markdown"] = md
    else:
        payload["matrix"] = matrix
    if args.json:
        emit(json_text(payload))
    else:
        lines = [f"good: {good}", f"bad:  {bad}", f"steps left: {nar.steps}"]
        lines += [f"contradiction: {c}" for c in contradictions]
        if nar.skipped:
            lines.append("untested: " + ", ".join(payload["skipped"]))
        if nar.done:
            lines += ["", md]
        else:
            lines += [f"rounds left: {payload['rounds_left']} at width {args.width}",
                      "next matrix: " + console.json_text(matrix, separators=(",", ":"))]
        emit("\n".join(lines))
    ghactions.set_output("good", good)
    ghactions.set_output("bad", bad)
    ghactions.set_output("done", "true" if nar.done else "false")
    ghactions.set_output("matrix", json.dumps(matrix, separators=(",", ":")))
    ghactions.set_output("contradictions", str(len(contradictions)))
    if nar.done:
        ghactions.set_output("range-markdown", md)
        ghactions.append_summary("### Nightly regression range\n\n" + md)
    else:
        ghactions.append_summary(f"Narrowed to `{good}` … `{bad}` ({nar.steps} steps); "
                                 f"{len(nar.next_probes)} probe(s) next.")
    session.finish()
    return ExitStatus.OK
