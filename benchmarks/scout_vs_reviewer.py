#!/usr/bin/env python3
"""The scout against a reviewer (issue #9): run ``scout.py report --offline`` at the
torchtitan commits the real nightly reports were written on, each with the previous
run as ``--prior``, and score it against those reports' offline-checkable findings
(benchmarks/data/scout_reviewer.yaml, our paraphrase and evidence) and the hand-marked
valid/noise list of our own items.

Prints per report: recall, precision, bullets, time; the rules (no P0/P1 without
sub-project ``file:line``, no stale-patch claim for a forwarding wrapper, no false
all-clear, today's checks kept); and the silence figure: four nightly reports on an
unchanged tree, the fourth's FYI/Opportunity items as a share of the first's.

  python benchmarks/scout_vs_reviewer.py /path/to/torchtitan.git      # a clone or mirror
  python benchmarks/scout_vs_reviewer.py MIRROR --unjudged             # list unmarked items

The mirror is only read: each commit gets a throw-away bare clone sharing its objects.
Targets: recall >= 70 %, precision >= 90 %, <= 10 s per report, 4th/1st <= 25 %.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from mirror import ITEM_ID, SHA, git_repository  # noqa: E402
from mirror import checkout as _checkout  # noqa: E402
from scout_subprojects import report as subprojects_report  # noqa: E402

from agentops import data  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "scout_reviewer.yaml"
_FINDING = {
    "type": "object", "additionalProperties": False,
    "required": ["id", "claim", "evidence", "offline"],
    "properties": {
        "id": {"type": "string", "pattern": r"^[a-z0-9-]+$"},
        "claim": {"type": "string", "minLength": 10},
        "evidence": {"type": "array", "minItems": 1, "items": {"type": "string"}},
        "offline": {"type": "boolean"},
        "why_not": {"type": "string"},
        "match": {"type": "array", "minItems": 1, "items": {"type": "string"}},
        "kinds": {"type": "array", "items": {"enum": [
            "action", "carried", "opportunity", "fyi", "docs"]}},
    },
    "if": {"properties": {"offline": {"const": True}}},
    "then": {"required": ["match"]},
    "else": {"required": ["why_not"]},
}
SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["runs", "judgements"],
    "properties": {
        "runs": {"type": "array", "minItems": 1, "items": {
            "type": "object", "additionalProperties": False,
            "required": ["name", "date", "head", "report", "findings"],
            "properties": {
                "name": {"type": "string"}, "date": {"type": "string", "format": "date"},
                "head": SHA,
                "report": {"type": "string"},
                "findings": {"type": "array", "items": _FINDING}}}},
        "judgements": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["id", "verdict", "title"],
            "properties": {"id": ITEM_ID,
                           "verdict": {"enum": ["valid", "noise"]},
                           "title": {"type": "string"}, "note": {"type": "string"}}}},
    },
}
COUNTED = ("action", "carried", "opportunity", "fyi", "docs")


def load() -> dict[str, Any]:
    return data.load(DATA, SCHEMA, display="benchmarks/data/scout_reviewer.yaml").content


def report(checkout: Path, date: str, priors: list[Path], out: Path) -> tuple[dict, float]:
    code, doc, took, err = subprojects_report(None, checkout, date, priors, out)
    if doc is None:
        raise SystemExit(f"report failed at {checkout} ({date}), exit {code}:\n{err}")
    return doc, took


def _text(item: dict[str, Any]) -> str:
    return " ".join(str(item.get(k, "")) for k in ("title", "why", "where", "fix")).lower()


def matched(finding: dict[str, Any], items: list[dict[str, Any]]) -> list[str]:
    kinds = finding.get("kinds") or COUNTED
    want = [m.lower() for m in finding["match"]]
    return [i["id"] for i in items if i["kind"] in kinds
            and all(w in _text(i) for w in want)]


def rules(doc: dict[str, Any], subproject: str) -> list[str]:
    """Broken rules of issue #9 in one report."""
    broken = []
    items = doc["items"]
    line_ref = re.compile(rf"{re.escape(subproject)}/\S+:\d+|\.github/workflows/\S+:\d+")
    for i in items:
        if i["kind"] in ("action", "carried") and i["priority"] in ("P0", "P1") \
                and not line_ref.search(i.get("where", "")) \
                and not line_ref.search(i.get("why", "")):
            broken.append(f"P0/P1 without sub-project file:line: {i['title'][:90]}")
    wrappers = {c["site"]["target"] for c in doc.get("stale_patches", [])
                if c["site"]["how"] in ("wrapper", "forwarder")}
    for i in items:
        if i["kind"] in ("action", "carried") and "monkey-patch of" in i["title"].lower() \
                and any(t in i["title"] for t in wrappers):
            broken.append(f"stale-patch claim for a forwarding wrapper: {i['title'][:90]}")
    md = doc["markdown"]
    ci_gaps = any(i["section"] == "S-3" and i["kind"] in ("action", "carried")
                  and ("no CI" in i["title"] or "selected by no CI" in i["title"]
                       or "called by no CI" in i["title"]) for i in items)
    if ci_gaps and "Tests in CI: every" in md:
        broken.append("false all-clear: tests in CI")
    doc_items = [i for i in items if i["kind"] == "docs"]
    absent = any(p.get("kind") == "absent" for p in doc.get("doc_inaccuracies", []))
    if "docs are current" in md and (doc_items or absent):
        broken.append("false all-clear: docs are current")
    if doc.get("stale_patches") and "signatures unchanged" in md:
        broken.append("false all-clear: monkey-patches")
    return broken


def silence(checkout: Path, date: str, work: Path) -> tuple[int, int, list[int]]:
    """FYI/Opportunity items of four nightly reports on the same tree."""
    counts = []
    priors: list[Path] = []
    day = dt.date.fromisoformat(date)
    for n in range(4):
        out = work / f"night{n}.md"
        doc, _took = report(checkout, (day + dt.timedelta(days=n)).isoformat(), priors, out)
        counts.append(sum(1 for i in doc["items"] if i["kind"] in ("fyi", "opportunity")))
        priors.append(out)
    return counts[0], counts[3], counts


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("mirror", help="a git clone or mirror of pytorch/torchtitan (read only)")
    p.add_argument("--unjudged", action="store_true",
                   help="print every item not in the judgement list, as YAML to paste")
    p.add_argument("--no-silence", action="store_true", help="skip the 4-night runs")
    args = p.parse_args()
    mirror = git_repository(p, args.mirror)
    spec = load()
    verdicts = {j["id"]: j["verdict"] for j in spec["judgements"]}
    subproject = "torchtitan/experiments/graph_trainer"
    priors: list[Path] = []
    unjudged: dict[str, str] = {}
    totals = {"found": 0, "offline": 0, "valid": 0, "noise": 0}
    times: list[float] = []
    ok = True
    with tempfile.TemporaryDirectory(prefix="scout-vs-reviewer-") as tmp:
        work = Path(tmp)
        last_checkout = None
        for n, run in enumerate(spec["runs"]):
            checkout = _checkout(mirror, run["head"], work / f"c{n}.git")
            last_checkout = checkout
            out = work / f"{run['name']}.md"
            doc, took = report(checkout, run["date"], priors, out)
            priors.append(out)
            times.append(took)
            items = [i for i in doc["items"] if i["kind"] in COUNTED]
            offline = [f for f in run["findings"] if f["offline"]]
            hits = {f["id"]: matched(f, items) for f in offline}
            found = sum(1 for v in hits.values() if v)
            valid = sum(1 for i in items if verdicts.get(i["id"]) == "valid")
            noise = sum(1 for i in items if verdicts.get(i["id"]) == "noise")
            for i in items:
                if i["id"] not in verdicts:
                    unjudged[i["id"]] = i["title"]
            totals["found"] += found
            totals["offline"] += len(offline)
            totals["valid"] += valid
            totals["noise"] += noise
            judged = valid + noise
            recall = found / len(offline) if offline else 1.0
            precision = valid / judged if judged else 0.0
            by_kind = {k: sum(1 for i in items if i["kind"] == k) for k in COUNTED}
            print(f"report {run['name']} at {run['head'][:9]}: recall {found}/{len(offline)} "
                  f"= {recall:.0%}, precision {valid}/{judged} = {precision:.0%}, "
                  f"bullets {len(items)} ({', '.join(f'{k} {v}' for k, v in by_kind.items())})"
                  f", unjudged {len(items) - judged}, {took:.2f} s")
            for fid, ids in hits.items():
                print(f"  {'+' if ids else '-'} {fid}" + (f" ({', '.join(ids)})" if ids else
                                                          ""))
            for problem in rules(doc, subproject):
                ok = False
                print(f"  RULE BROKEN: {problem}")
            statuses = {t["status"] for t in doc["todos"]}
            print(f"  today's checks: TODOs {len(doc['todos'])} ({', '.join(sorted(statuses))}"
                  f"), resolved {len(doc['todos_resolved'])}, tests missing from CI "
                  f"{len(doc['tests_missing_from_ci'])}, doc inaccuracies "
                  f"{sum(1 for i in doc['doc_inaccuracies'] if i['kind'] != 'absent')}")
        judged = totals["valid"] + totals["noise"]
        print(f"overall: recall {totals['found']}/{totals['offline']} = "
              f"{totals['found'] / totals['offline']:.0%}, precision {totals['valid']}/"
              f"{judged} = {totals['valid'] / judged if judged else 0:.0%}, median report "
              f"time {statistics.median(times):.2f} s (max {max(times):.2f})")
        if not args.no_silence and last_checkout is not None:
            first, fourth, counts = silence(last_checkout, spec["runs"][-1]["date"],
                                            work / "nights")
            print(f"silence on an unchanged tree ({spec['runs'][-1]['head'][:9]}): FYI/"
                  f"Opportunity items per night {counts}; 4th/1st = "
                  f"{fourth}/{first} = {fourth / first if first else 0:.0%}")
    if unjudged:
        print(f"{len(unjudged)} item(s) not judged yet" + (":" if args.unjudged else
                                                           " (--unjudged lists them)"))
        if args.unjudged:
            for iid, title in unjudged.items():
                print(f"  - {{id: {iid}, verdict: ?, title: {json.dumps(title[:90])}}}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
