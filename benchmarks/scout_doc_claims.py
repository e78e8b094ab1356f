#!/usr/bin/env python3
"""The scout's doc checks (S-5, issue #15) on real torchtitan sub-projects: run
``scout.py report --offline`` with each example target at two commits and print every
doc finding, then precision against our verdicts after reading the code
(``benchmarks/data/scout_doc_claims.yaml``) and recall over the wrong claims we found
by reading the docs' command and setting lines ourselves (listed there too).

  python benchmarks/scout_doc_claims.py /path/to/torchtitan.git
  python benchmarks/scout_doc_claims.py MIRROR --unjudged     # findings to judge, as YAML

Kinds: reference (paths, test ids, modules, config flags), setting (name=value),
command (environment variables, script options), anchor (section links), attribute,
count, table, undocumented.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from scout_subprojects import _checkout, report  # noqa: E402

from agentops import data  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "scout_doc_claims.yaml"
SCHEMA = {
    "type": "object", "additionalProperties": False,
    "required": ["targets", "commits", "judgements", "known"],
    "properties": {
        "targets": {"type": "array", "minItems": 1, "items": {"type": "string"}},
        "commits": {"type": "array", "minItems": 1, "items": {
            "type": "object", "additionalProperties": False, "required": ["head", "date"],
            "properties": {"head": {"type": "string", "pattern": "^[0-9a-f]{40}$"},
                           "date": {"type": "string", "format": "date"}}}},
        "judgements": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["id", "verdict", "finding", "note"],
            "properties": {"id": {"type": "string", "pattern": "^[0-9a-f]{12}$"},
                           "verdict": {"enum": ["valid", "noise"]},
                           "finding": {"type": "string"}, "note": {"type": "string"}}}},
        "known": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["file", "claim", "why", "match"],
            "properties": {"file": {"type": "string"}, "claim": {"type": "string"},
                           "why": {"type": "string"}, "match": {"type": "string"}}}},
    },
}


def finding_id(problem: dict[str, Any]) -> str:
    """Stable across commits: file, kind and the problem text (never the line)."""
    key = f"{problem['file']}|{problem['kind']}|{problem['problem']}"
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("mirror", help="a git clone or mirror of pytorch/torchtitan (read only)")
    p.add_argument("--unjudged", action="store_true",
                   help="print findings without a verdict, as YAML to paste")
    args = p.parse_args()
    mirror = Path(args.mirror)
    if not (mirror / "HEAD").exists() and not (mirror / ".git").exists():
        p.error(f"{mirror} is not a git repository")
    spec = data.load(DATA, SCHEMA, display="benchmarks/data/scout_doc_claims.yaml").content
    verdicts = {j["id"]: j["verdict"] for j in spec["judgements"]}
    found: dict[str, dict[str, Any]] = {}
    ok = True
    with tempfile.TemporaryDirectory(prefix="scout-doc-claims-") as tmp:
        for n, commit in enumerate(spec["commits"]):
            checkout = _checkout(mirror, commit["head"], Path(tmp) / f"c{n}.git")
            for target in spec["targets"]:
                code, doc, took, err = report(target, checkout, commit["date"], None,
                                              Path(tmp) / f"{n}-{target}.md")
                if code != 0 or doc is None:
                    ok = False
                    print(f"{target} {commit['head'][:9]}: exit {code}\n{err[-1500:]}")
                    continue
                problems = doc.get("doc_inaccuracies", [])
                print(f"{target:34} {commit['head'][:9]} {took:5.2f} s  "
                      f"{len(problems)} doc finding(s)")
                for prob in problems:
                    fid = finding_id(prob)
                    found.setdefault(fid, prob)
                    mark = {"valid": "+", "noise": "-"}.get(verdicts.get(fid, ""), "?")
                    print(f"    {mark} {fid} {prob['file']}:{prob['line']} [{prob['kind']}] "
                          f"{prob['problem'][:140]}")
    valid = sum(1 for f in found if verdicts.get(f) == "valid")
    noise = sum(1 for f in found if verdicts.get(f) == "noise")
    unjudged = [f for f in found if f not in verdicts]
    texts = {f: f"{v['file']} {v['problem']}" for f, v in found.items()}
    hits = [k for k in spec["known"]
            if any(k["file"] in t and k["match"] in t for t in texts.values())]
    print(f"\ndistinct findings: {len(found)}; precision {valid}/{valid + noise}"
          + (f" = {valid / (valid + noise):.0%}" if valid + noise else "")
          + f"; unjudged {len(unjudged)}")
    print(f"recall over wrong claims found by reading: {len(hits)}/{len(spec['known'])}")
    for k in spec["known"]:
        print(f"    {'found' if k in hits else 'MISSED'}: {k['file']}: {k['claim']}")
    if args.unjudged and unjudged:
        print("\n# paste under judgements: after reading the code")
        for f in unjudged:
            print(f"  - {{id: {f}, verdict: noise, finding: {json.dumps(texts[f][:160])}, "
                  f"note: \"\"}}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
