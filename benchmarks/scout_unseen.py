#!/usr/bin/env python3
"""The scout on sub-projects it was never tuned for (issue #22), scored against truth
lists written by reading the code before the scout ran on them
(``benchmarks/data/scout_unseen.yaml``).

For each target: night 0 at the earlier commit (no prior), then nights 1-4 at the later
commit, each with every earlier report as ``--prior`` (the way the tracking issue feeds
them). Prints per target and in total:

- recall: truth entries (action / opportunity / docs) that some item or report line of
  night 1 names (one of the entry's files and one of its identifiers); entries marked
  ``late: true`` (a finding the reviewer missed, added after reading the scout's output)
  are shown apart and never counted in it;
- action-item precision on night 1: an action item matching a truth entry is valid, one
  matching only a negative is noise, the rest need a verdict in ``judgements``
  (``--unjudged`` prints them as YAML to paste after reading the code);
- first-night action count (night 1), false all-clears (a line saying docs or the
  upstream delta hold nothing, "docs are current" / "nothing actionable" / "no action",
  while the truth holds an entry of that kind, unless the line says what it did not
  check), the delta of an unchanged tree (night 2 must have an empty upstream delta);
- nights 1-4: FYI/Opportunity items listed on night 4 against night 1, and how many
  nights (0-4) each unchanged action item is written out in full (never a fourth time);
- report time, median and max.

  python benchmarks/scout_unseen.py /path/to/torchtitan.git
  python benchmarks/scout_unseen.py MIRROR --target forge --unjudged
  python benchmarks/scout_unseen.py MIRROR --config-from-init   # draft targets with init
  python benchmarks/scout_unseen.py MIRROR --truth benchmarks/data/scout_unseen2.yaml

Targets (issue #22): recall >= 60 %, action precision >= 80 %, <= 15 action items on
night one, no false all-clear, empty delta on an unchanged tree, night-4 FYI/Opportunity
<= 25 % of night one, no unchanged action item listed a fourth time, <= 10 s a run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from mirror import COMMIT_REF, git_repository  # noqa: E402
from mirror import checkout as mirror_checkout  # noqa: E402
from scout_subprojects import report as subprojects_report  # noqa: E402

from agentops import data  # noqa: E402
from agentops.errors import DataError  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "scout_unseen.yaml"
_MATCH = {"type": "object", "additionalProperties": False, "required": ["files", "any"],
          "properties": {"files": {"type": "array", "minItems": 1,
                                   "items": {"type": "string"}},
                         "any": {"type": "array", "minItems": 1,
                                 "items": {"type": "string"}}}}
_ENTRY = {"type": "object", "additionalProperties": False,
          "required": ["id", "where", "what", "match"],
          "properties": {"id": {"type": "string"},
                         "kind": {"enum": ["action", "opportunity", "docs"]},
                         "late": {"type": "boolean"},
                         "where": {"type": "string"}, "what": {"type": "string"},
                         "match": _MATCH}}
SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["runs", "judgements"],
    "properties": {
        "runs": {"type": "array", "minItems": 1, "items": {
            "type": "object", "additionalProperties": False,
            "required": ["target", "prior", "head", "truth", "negatives"],
            "properties": {"target": {"type": "string"}, "prior": COMMIT_REF, "head": COMMIT_REF,
                           "truth": {"type": "array", "items": _ENTRY},
                           "negatives": {"type": "array", "items": _ENTRY}}}},
        "judgements": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["id", "verdict", "note"],
            "properties": {"id": {"type": "string"},
                           "verdict": {"enum": ["valid", "noise"]},
                           "title": {"type": "string"}, "note": {"type": "string"}}}},
    },
}
ACTION = ("action", "carried")
LISTED = ("fyi", "opportunity")
NIGHTS = 4


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def load(path: Path | str | None = None) -> dict[str, Any]:
    """The truth file (default ``benchmarks/data/scout_unseen.yaml``), validated: the
    schema, then ids unique across runs and judgements, and every run's target file
    present. Errors name the file and the key (``DataError``)."""
    p = Path(path) if path is not None else DATA
    name = _display(p)
    spec = data.load(p, SCHEMA, display=name).content
    seen: dict[str, str] = {}
    for n, run in enumerate(spec["runs"]):
        target = ROOT / run["target"]
        if not target.is_file():
            raise DataError(name, f"runs[{n}].target", f"no such file {run['target']}",
                            fix="a path relative to the repository root")
        for part in ("truth", "negatives"):
            for k, entry in enumerate(run[part]):
                key = f"runs[{n}].{part}[{k}].id"
                if entry["id"] in seen:
                    raise DataError(name, key, f"duplicate id {entry['id']!r} "
                                    f"(first at {seen[entry['id']]})", fix="ids are unique")
                seen[entry["id"]] = key
                if part == "truth" and "kind" not in entry:
                    raise DataError(name, f"runs[{n}].truth[{k}]", "missing kind",
                                    fix="one of action, opportunity, docs")
    verdicts: dict[str, str] = {}
    for k, j in enumerate(spec["judgements"]):
        key = f"judgements[{k}].id"
        if j["id"] in verdicts:
            raise DataError(name, key, f"duplicate id {j['id']!r} (first at {verdicts[j['id']]})",
                            fix="one verdict per item")
        if not j["note"].strip():
            raise DataError(name, f"judgements[{k}].note", "empty note",
                            fix="say why the item is valid or noise")
        verdicts[j["id"]] = key
    return spec


def item_text(item: dict[str, Any]) -> str:
    parts = [str(item.get(k, "")) for k in ("title", "why", "where", "fix")]
    parts += [str(f) for f in item.get("files", ())] + [str(f) for f in item.get("facts", ())]
    return " ".join(parts).lower()


def names(entry: dict[str, Any], text: str) -> bool:
    """Whether ``text`` names one of the entry's files and one of its identifiers."""
    m = entry["match"]
    return any(f.lower() in text for f in m["files"]) and \
        any(a.lower() in text for a in m["any"])


def report(target: Path, checkout: Path, date: str, priors: list[Path],
           out: Path) -> tuple[dict[str, Any] | None, float, str]:
    code, doc, took, err = subprojects_report(target, checkout, date, priors, out)
    return doc, took, "" if doc is not None else f"exit {code}: {err[-1500:]}"


def draft_target(subproject: str, repo: str, checkout: Path, out: Path) -> Path | None:
    """``scout.py init``'s draft for the folder, or None when init is not there or fails."""
    cmd = [sys.executable, str(ROOT / "scripts" / "scout.py"), "init",
           "--subproject", subproject, "--checkout", str(checkout), "--repo", repo,
           "--out", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=ROOT)
    if proc.returncode != 0:
        print(f"  init failed for {subproject} (exit {proc.returncode}): "
              f"{proc.stderr.strip()[-300:]}")
        return None
    return out


@dataclass
class Score:
    found: int = 0
    truth: int = 0
    late: int = 0
    late_found: int = 0
    valid: int = 0
    noise: int = 0
    unjudged: int = 0
    first_night_actions: int = 0
    false_clears: list[str] = field(default_factory=list)
    delta_unchanged: int = 0
    listed_night1: int = 0
    listed_night4: int = 0
    max_action_listings: int = 0
    times: list[float] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def listed_in(doc: dict[str, Any], item: dict[str, Any]) -> bool:
    """Whether the item is written out in the report body (not only counted in a line;
    the embedded JSON block, which carries every item, does not count)."""
    title = item.get("title", "")[:60]
    body = doc["markdown"].split("<!-- agentops:scout-report", 1)[0]
    return bool(title) and title in body


# An all-clear: a report line saying a kind of finding is absent. It is false when the
# truth holds an entry of that kind and the line does not say what it did not check
# (#22 item 7: "nothing found" only for what was checked, and say what was not).
CLAIMS = {"action": ("upstream delta", ("nothing actionable", "no action")),
          "docs": ("docs", ("docs are current", "no inaccuracy"))}
SCOPED = ("not checked", "not compared", "not settled")


def false_clears(run: dict[str, Any], markdown: str) -> list[str]:
    """The night's all-clear lines that claim more than the checks had: an absence
    claim of a kind the truth holds an entry of, with no word of what was not checked.
    A line that states its limit is no all-clear; the benchmark cannot tell whether the
    missed entry lies inside that limit (the header notes say so where it matters)."""
    kinds = {e.get("kind") for e in run["truth"]}
    body = markdown.split("<!-- agentops:scout-report", 1)[0]
    out: list[str] = []
    for line in body.lower().splitlines():
        for kind, (label, phrases) in CLAIMS.items():
            said = next((ph for ph in phrases if ph in line), "")
            if kind in kinds and said and not any(w in line for w in SCOPED) \
                    and (kind == "docs" or label in line):
                out.append(said if said.startswith(label) else f"{label}: {said}")
    return list(dict.fromkeys(out))


def score_run(run: dict[str, Any], nights: list[dict[str, Any]], verdicts: dict[str, str],
              unjudged: dict[str, str], show: bool) -> Score:
    s = Score()
    n1 = nights[1]
    items = n1["items"]
    # Report lines count too (doc findings, counted lines), but not the embedded JSON
    # block nor a "Resolved since" line, which says the opposite of finding it.
    body = n1["markdown"].split("<!-- agentops:scout-report", 1)[0]
    lines = [ln.lower() for ln in body.splitlines()
             if "resolved since" not in ln.lower()]
    texts = [item_text(i) for i in items] + lines
    print(f"\n== {Path(run['target']).stem}  (truth {len(run['truth'])}, "
          f"negatives {len(run['negatives'])})")
    for entry in run["truth"]:
        hit = any(names(entry, t) for t in texts)
        # A late entry was added after reading the scout's output: it never counts
        # towards the blind recall, only in its own column.
        if entry.get("late"):
            s.late += 1
            s.late_found += hit
        else:
            s.truth += 1
            s.found += hit
        if show:
            late = " (late)" if entry.get("late") else ""
            print(f"   {'found' if hit else 'MISSED':6} {entry['kind']:11} {entry['id']}{late}: "
                  f"{entry['where']}")
    actions = [i for i in items if i["kind"] in ACTION]
    s.first_night_actions = len(actions)
    for i in actions:
        text = item_text(i)
        pos = [e["id"] for e in run["truth"] if names(e, text)]
        neg = [e["id"] for e in run["negatives"] if names(e, text)]
        verdict = verdicts.get(i["id"]) or ("valid" if pos else "noise" if neg else "")
        if verdict == "valid":
            s.valid += 1
        elif verdict == "noise":
            s.noise += 1
        else:
            s.unjudged += 1
            unjudged[i["id"]] = f"{Path(run['target']).stem}: {i.get('priority', '')} " \
                                f"{i['title']}"
        if show:
            mark = {"valid": "+", "noise": "-"}.get(verdict, "?")
            why = ",".join(pos or neg) or "judged" if verdict else "unjudged"
            print(f"   {mark} {i['id']} {i.get('priority', ''):2} {i['title'][:100]}  [{why}]")
    s.false_clears = false_clears(run, n1["markdown"])
    s.delta_unchanged = len(nights[2].get("upstream_commits") or [])
    s.listed_night1 = sum(1 for i in n1["items"] if i["kind"] in LISTED and listed_in(n1, i))
    last = nights[NIGHTS]
    s.listed_night4 = sum(1 for i in last["items"] if i["kind"] in LISTED
                          and listed_in(last, i))
    # An unchanged action item (same id, same fingerprint) may be written out at most
    # three times, night 0 included; a changed one starts counting again.
    counts: dict[tuple[str, str], int] = {}
    for doc in nights:
        for i in doc["items"]:
            if i["kind"] in ACTION and listed_in(doc, i):
                key = (i["id"], i.get("fingerprint", ""))
                counts[key] = counts.get(key, 0) + 1
    s.max_action_listings = max(counts.values(), default=0)
    return s


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("mirror", help="a git clone or mirror of pytorch/torchtitan (read only)")
    p.add_argument("--target", action="append", default=None,
                   help="only this target (file stem, e.g. forge); repeatable")
    p.add_argument("--unjudged", action="store_true",
                   help="print every action item without a verdict, as YAML to paste")
    p.add_argument("--quiet", action="store_true", help="totals only")
    p.add_argument("--keep", metavar="DIR", default=None,
                   help="copy every night's Markdown report into DIR (for reading)")
    p.add_argument("--truth", metavar="FILE", type=Path, default=DATA,
                   help="the truth file (default benchmarks/data/scout_unseen.yaml; "
                        "benchmarks/data/scout_unseen2.yaml is the second blind set)")
    p.add_argument("--config-from-init", action="store_true",
                   help="draft each target with `scout.py init` (at the commit --init-at "
                        "names) instead of the hand-written file")
    p.add_argument("--init-at", choices=("head", "prior"), default="head",
                   help="with --config-from-init: draft at the later commit (head, the "
                        "default) or at the earlier one (prior), the way the sets' stored "
                        "*-init-* drafts were written")
    args = p.parse_args()
    mirror = git_repository(p, args.mirror)
    try:
        spec = load(args.truth)
    except DataError as exc:
        p.error(str(exc))
    verdicts = {j["id"]: j["verdict"] for j in spec["judgements"]}
    unjudged: dict[str, str] = {}
    scores: list[Score] = []
    rows: list[str] = []
    with tempfile.TemporaryDirectory(prefix="scout-unseen-") as tmp:
        work = Path(tmp)
        for n, run in enumerate(spec["runs"]):
            stem = Path(run["target"]).stem
            if args.target and stem not in args.target:
                continue
            early = mirror_checkout(mirror, run["prior"]["head"], work / f"{n}-early.git")
            late = mirror_checkout(mirror, run["head"]["head"], work / f"{n}-late.git")
            target = ROOT / run["target"]
            if args.config_from_init:
                import yaml  # only for reading the subproject key

                hand = yaml.safe_load(target.read_text())
                at = early if args.init_at == "prior" else late
                drafted = draft_target(hand["subproject"], hand["repo"], at,
                                       work / f"{n}-init.yaml")
                if drafted is None:
                    rows.append(f"{stem:14} init draft failed")
                    continue
                target = drafted
            docs: list[dict[str, Any]] = []
            priors: list[Path] = []
            day = dt.date.fromisoformat(run["head"]["date"])
            times: list[float] = []
            err = ""
            for night in range(NIGHTS + 1):
                out = work / f"{n}-night{night}.md"
                if night == 0:
                    doc, took, err = report(target, early, run["prior"]["date"], [], out)
                else:
                    date = (day + dt.timedelta(days=night - 1)).isoformat()
                    doc, took, err = report(target, late, date, priors, out)
                times.append(took)
                if doc is None:
                    break
                docs.append(doc)
                priors.append(out)
                if args.keep:
                    keep = Path(args.keep)
                    keep.mkdir(parents=True, exist_ok=True)
                    (keep / f"{stem}-night{night}.md").write_text(doc["markdown"])
            if len(docs) != NIGHTS + 1:
                rows.append(f"{stem:14} FAILED at night {len(docs)}: {err}")
                scores.append(Score(failed=[err], times=times))
                continue
            s = score_run(run, docs, verdicts, unjudged, show=not args.quiet)
            s.times = times
            scores.append(s)
            judged = s.valid + s.noise
            prec = f"{s.valid}/{judged}" if judged else "n/a"
            rows.append(
                f"{stem:14} recall {s.found:2}/{s.truth:<2}"
                + (f" (+late {s.late_found}/{s.late})" if s.late else "")
                + f"  action precision {prec:7} "
                f"(unjudged {s.unjudged})  night-1 actions {s.first_night_actions:3}  "
                f"FYI/Opp n1->n4 {s.listed_night1}->{s.listed_night4}  "
                f"max listings of an action {s.max_action_listings}  "
                f"unchanged-tree delta {s.delta_unchanged}  "
                f"false all-clear {', '.join(s.false_clears) or 'none'}  "
                f"median {statistics.median(times):.2f} s, max {max(times):.2f} s")
    print("\n" + "\n".join(rows))
    ok_runs = [s for s in scores if not s.failed]
    if ok_runs:
        found = sum(s.found for s in ok_runs)
        truth = sum(s.truth for s in ok_runs)
        valid = sum(s.valid for s in ok_runs)
        judged = valid + sum(s.noise for s in ok_runs)
        n1 = sum(s.listed_night1 for s in ok_runs)
        n4 = sum(s.listed_night4 for s in ok_runs)
        times = [t for s in scores for t in s.times]
        late = sum(s.late for s in ok_runs)
        late_note = (f" (late additions, not in recall: "
                     f"{sum(s.late_found for s in ok_runs)}/{late} named)" if late else "")
        print(f"\nTOTAL recall {found}/{truth} = {found / truth:.0%}{late_note}; "
              f"action precision {valid}/{judged}"
              + (f" = {valid / judged:.0%}" if judged else "")
              + f" (+{sum(s.unjudged for s in ok_runs)} unjudged); "
              f"max night-1 actions {max(s.first_night_actions for s in ok_runs)}; "
              f"false all-clears {sum(len(s.false_clears) for s in ok_runs)}; "
              f"unchanged-tree delta max {max(s.delta_unchanged for s in ok_runs)}; "
              f"FYI/Opportunity n1 {n1} -> n4 {n4}"
              + (f" ({n4 / n1:.0%})" if n1 else "")
              + f"; an action listed a 4th time: "
              f"{sum(1 for s in ok_runs if s.max_action_listings >= 4)} target(s); "
              f"report time median {statistics.median(times):.2f} s, max {max(times):.2f} s")
    if args.unjudged and unjudged:
        print("\n# paste under judgements: and set verdict/note after reading the code")
        for k, title in sorted(unjudged.items()):
            print(f"  - {{id: {k}, verdict: noise, title: {json.dumps(title[:150])}, "
                  f"note: \"\"}}")
    return 0 if len(ok_runs) == len(scores) else 1


if __name__ == "__main__":
    raise SystemExit(main())
