#!/usr/bin/env python3
"""The scout's doc checks (S-5, issue #15) on real torchtitan sub-projects: for each
commit listed in ``benchmarks/data/scout_doc_claims_judged.yaml``, check the commit out
of the mirror (``git worktree add --detach --no-checkout``: the scout reads blobs, so
large files the snapshot lacks are never needed), run ``scout.py report --offline``
with each example target, print every doc finding and every setting it could not
check, then precision (findings judged right after reading the code / all judged
findings) and recall (the wrong claims found by reading the docs ourselves, listed in
the same file, that some finding names).

  python benchmarks/scout_doc_claims.py /work/.mirror/pytorch+torchtitan/repo
  python benchmarks/scout_doc_claims.py MIRROR --json        # one JSON object
  python benchmarks/scout_doc_claims.py MIRROR --unjudged    # findings to judge, as YAML

Finding kinds: reference (paths, test ids, modules, config flags), setting
(name=value), command (environment variables, script options), anchor (section
links), attribute (Class.field), count, table, undocumented. Exit 0 when every run
finished (exit 0, ≤ 10 s), 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from mirror import COMMIT_REF, ITEM_ID, git_repository  # noqa: E402
from scout_subprojects import report  # noqa: E402

from agentops import data  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "scout_doc_claims_judged.yaml"
MAX_SECONDS = 10.0
# Said as "not checked", never judged: a doc or setting absent, a TODO or feature list the
# scout does not verify (#22: why "docs are current" is not said).
NOT_FINDINGS = ("absent", "unchecked", "unverified")
SCHEMA = {
    "type": "object", "additionalProperties": False,
    "required": ["targets", "commits", "judgements", "known"],
    "properties": {
        "targets": {"type": "array", "minItems": 1, "items": {"type": "string"}},
        "commits": {"type": "array", "minItems": 1, "items": COMMIT_REF},
        "judgements": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["id", "verdict", "finding", "reason"],
            "properties": {"id": ITEM_ID,
                           "verdict": {"enum": ["right", "wrong"]},
                           "finding": {"type": "string", "minLength": 1},
                           "reason": {"type": "string", "minLength": 1}}}},
        "known": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["file", "claim", "why", "match"],
            "properties": {"file": {"type": "string", "minLength": 1},
                           "claim": {"type": "string", "minLength": 1},
                           "why": {"type": "string", "minLength": 1},
                           "match": {"type": "array", "minItems": 1,
                                     "items": {"type": "string", "minLength": 1}}}}},
    },
}


def load(path: Path = DATA) -> dict[str, Any]:
    spec = data.load(path, SCHEMA, display=f"benchmarks/data/{path.name}").content
    ids = [j["id"] for j in spec["judgements"]]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise SystemExit(f"benchmarks/data/{path.name}: judgements: ids {dup} repeated; "
                         "keep one verdict per finding")
    return spec


def finding_id(problem: dict[str, Any]) -> str:
    """Stable across commits: file, kind and the problem text (never the line)."""
    key = f"{problem['file']}|{problem['kind']}|{problem['problem']}"
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def found_by(known: dict[str, Any], findings: dict[str, dict[str, Any]]) -> list[str]:
    """Ids of the findings that name a known wrong claim: in its file, with every
    ``match`` word in the problem."""
    return [fid for fid, f in findings.items() if f["file"] == known["file"]
            and all(w in f["problem"] for w in known["match"])]


def precision(findings: dict[str, Any], verdicts: dict[str, str]) -> dict[str, Any]:
    right = sorted(f for f in findings if verdicts.get(f) == "right")
    wrong = sorted(f for f in findings if verdicts.get(f) == "wrong")
    judged = len(right) + len(wrong)
    return {"right": len(right), "wrong": len(wrong), "wrong_ids": wrong,
            "unjudged": sorted(f for f in findings if f not in verdicts),
            "precision": round(len(right) / judged, 3) if judged else None}


def _subproject(target: str) -> str:
    """The ``subproject:`` of a built-in example target."""
    text = (ROOT / "src" / "agentops" / "scout" / "targets" / f"{target}.yaml").read_text()
    m = re.search(r"^subproject:\s*(\S+)", text, re.M)
    if m is None:
        raise SystemExit(f"target {target}: no subproject: key")
    return m.group(1)


def _has(worktree: Path, path: str) -> bool:
    out = subprocess.run(["git", "-C", str(worktree), "ls-tree", "HEAD", path],
                         capture_output=True, text=True, check=False)
    return bool(out.stdout.strip())


def _worktree(mirror: Path, sha: str, dest: Path) -> Path:
    subprocess.run(["git", "-C", str(mirror), "worktree", "add", "-q", "--detach",
                    "--no-checkout", str(dest), sha], check=True, capture_output=True)
    return dest


def _drop_worktree(mirror: Path, dest: Path, had_worktrees: bool) -> None:
    subprocess.run(["git", "-C", str(mirror), "worktree", "remove", "--force", str(dest)],
                   check=False, capture_output=True)
    subprocess.run(["git", "-C", str(mirror), "worktree", "prune"], check=False,
                   capture_output=True)
    admin = mirror / "worktrees"
    if not had_worktrees and admin.is_dir() and not any(admin.iterdir()):
        admin.rmdir()  # leave the mirror as it was


def run(mirror: Path, spec: dict[str, Any], say: Any) -> tuple[bool, list[dict[str, Any]]]:
    ok = True
    runs: list[dict[str, Any]] = []
    had_worktrees = (mirror / "worktrees").is_dir()
    with tempfile.TemporaryDirectory(prefix="scout-doc-claims-") as tmp:
        for n, commit in enumerate(spec["commits"]):
            wt = _worktree(mirror, commit["head"], Path(tmp) / f"wt{n}")
            try:
                for target in spec["targets"]:
                    sub = _subproject(target)
                    if not _has(wt, sub):
                        # Not there yet at this commit: nothing to check, not a failure.
                        runs.append({"target": target, "commit": commit["head"],
                                     "date": commit["date"], "exit": None, "seconds": 0.0,
                                     "findings": [], "not_checked": [
                                         {"file": sub, "line": 0, "kind": "absent",
                                          "problem": "sub-project not at this commit"}]})
                        continue
                    code, doc, took, err = report(target, wt, commit["date"], (),
                                                  Path(tmp) / f"{n}-{target}.md")
                    entry: dict[str, Any] = {"target": target, "commit": commit["head"],
                                             "date": commit["date"], "exit": code,
                                             "seconds": round(took, 2)}
                    runs.append(entry)
                    if code != 0 or doc is None or took > MAX_SECONDS:
                        ok = False
                        say(f"{target} {commit['head'][:9]}: exit {code}, {took:.1f} s\n"
                            f"{err[-1500:]}")
                        continue
                    probs = doc.get("doc_inaccuracies", [])
                    entry["findings"] = [dict(p, id=finding_id(p)) for p in probs
                                         if p["kind"] not in NOT_FINDINGS]
                    entry["not_checked"] = [p for p in probs if p["kind"] in NOT_FINDINGS]
            finally:
                _drop_worktree(mirror, wt, had_worktrees)
    return ok, runs


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("mirror", help="a bare git mirror (or clone) of pytorch/torchtitan; "
                                  "only a temporary worktree is added and removed")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--unjudged", action="store_true",
                   help="also print findings without a verdict, as YAML to paste")
    args = p.parse_args()
    mirror = git_repository(p, args.mirror)
    spec = load()
    verdicts = {j["id"]: j["verdict"] for j in spec["judgements"]}
    reasons = {j["id"]: j["reason"] for j in spec["judgements"]}
    lines: list[str] = []
    ok, runs = run(mirror, spec, lines.append)
    found: dict[str, dict[str, Any]] = {}
    for r in runs:
        for f in r.get("findings", []):
            found.setdefault(f["id"], f)
    prec = precision(found, verdicts)
    hits = {k["claim"]: found_by(k, found) for k in spec["known"]}
    recall = {"found": sum(1 for v in hits.values() if v), "total": len(spec["known"]),
              "missed": [k["file"] + ": " + k["claim"] for k in spec["known"]
                         if not hits[k["claim"]]]}
    seconds = [r["seconds"] for r in runs if r["exit"] is not None] or [0.0]
    if args.json:
        print(json.dumps({"runs": runs, "distinct_findings": len(found), **prec,
                          "recall": recall, "median_seconds": statistics.median(seconds),
                          "max_seconds": max(seconds)}, indent=1))
        return 0 if ok else 1
    for r in runs:
        print(f"{r['target']:34} {r['commit'][:9]} {r['date']} {r['seconds']:5.2f} s  "
              f"{len(r.get('findings', []))} finding(s)")
        for f in r.get("findings", []):
            mark = {"right": "+", "wrong": "-"}.get(verdicts.get(f["id"], ""), "?")
            print(f"    {mark} {f['id']} {f['file']}:{f['line']} [{f['kind']}] "
                  f"{f['problem'][:160]}")
        for u in r.get("not_checked", []):
            print(f"    not checked: {u['file']}:{u['line']} {u['problem'][:140]}")
    print("\n".join(lines))
    print(f"\nruns: {len(runs)}; median {statistics.median(seconds):.2f} s, max "
          f"{max(seconds):.2f} s")
    shown = f" = {prec['precision']:.0%}" if prec["precision"] is not None else ""
    print(f"distinct findings: {len(found)}; precision P = {prec['right']}/"
          f"{prec['right'] + prec['wrong']}{shown}; unjudged {len(prec['unjudged'])}")
    for fid in prec["wrong_ids"]:
        print(f"    wrong: {fid} ({reasons[fid]})")
    print(f"recall over wrong claims found by reading the docs: {recall['found']}/"
          f"{recall['total']}")
    for k in spec["known"]:
        print(f"    {'found' if hits[k['claim']] else 'MISSED'}: {k['file']}: {k['claim']}")
    if args.unjudged and prec["unjudged"]:
        print("\n# paste under judgements: after reading the code")
        for fid in prec["unjudged"]:
            f = found[fid]
            text = json.dumps(f"{f['file'].rsplit('/', 1)[-1]}: {f['problem']}"[:160])
            print(f"  - {{id: {fid}, verdict: wrong, finding: {text}, reason: \"\"}}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
