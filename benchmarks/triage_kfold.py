#!/usr/bin/env python3
"""How the triage planner holds up on issues it has not seen (issues #10, #23): a
held-out split first, then k-fold by issue on the fit part, the calibration table and
the coverage/precision curve on the held-out part.

The split was decided before any rule was written (issue #23): the fit part is the dev
sets' issues whose sha256("triage-holdout:<number>") is not 0 mod 4; the held-out part is
the rest of the dev sets plus every issue of benchmarks/data/triage_extra.yaml (numbers
and labels in the repository, texts in a local cache: ~/.cache/agentops/triage/
extra-texts.jsonl or $AGENTOPS_TRIAGE_CACHE; without it that set is skipped, and the
benchmark says so). Thresholds are fitted on the fit part only; the held-out part is
planned with them and never fitted on.

A second blind set, benchmarks/data/triage_blind2.yaml (texts in ~/.cache/agentops/triage/
extra2-texts.jsonl or $AGENTOPS_TRIAGE_BLIND2_CACHE), is reported as its own column
("blind2") and kept out of "held-all", the calibration table and the curve: it was
gathered after the rules of issue #23 were written, to check them on issues nobody fitted
or looked at while writing rules. It was measured blind once; since then it is fit
material (issue #23, round 2: its issues were read and its errors turned into general
rules). ``--fit-blind2`` says so: it adds blind2 to the fit part (threshold fitting,
k-fold, --write) and drops its blind column; without the flag the column stays, marked
as no longer blind.

A third blind set, benchmarks/data/triage_blind3.yaml (texts in ~/.cache/agentops/triage/
extra3-texts.jsonl or $AGENTOPS_TRIAGE_BLIND3_CACHE), gathered once blind2 had become fit
material, is reported the same way as its own column ("blind3"): same thresholds, never
fitted on, never merged into "held-all"; ``--no-blind3`` leaves it out, and without its
cache it is skipped with a message. It was measured blind twice and then released as fit
material (issue #23, round 4: its per-issue errors are read to write general rules).
``--fit-blind3`` says so: it adds blind3 to the fit part (threshold fitting, k-fold,
--write) and still prints its block, marked as fit material; without the flag the block
stays separate, marked the same way.

A fourth blind set, benchmarks/data/triage_blind4.yaml (texts in
~/.cache/agentops/triage/extra4-texts.jsonl or $AGENTOPS_TRIAGE_BLIND4_CACHE), gathered
after blind3, is its own column ("blind4") on the same terms; ``--no-blind4`` leaves it out.
It was measured blind three times (aggregates only) and then released as fit material
(issue #23, round 6); ``--fit-blind4`` adds it to the fit part as ``--fit-blind3`` does.
A fifth,
benchmarks/data/triage_blind5.yaml (texts in ~/.cache/agentops/triage/extra5-texts.jsonl
or $AGENTOPS_TRIAGE_BLIND5_CACHE), gathered after blind4, is its own column ("blind5") on
the same terms; ``--no-blind5`` leaves it out. It was measured blind twice and then
released as fit material (issue #23, round 5); ``--fit-blind5`` adds it to the fit part
as ``--fit-blind3`` does for blind3, and its block is still printed.

A sixth blind set, benchmarks/data/triage_blind6.yaml (texts in
~/.cache/agentops/triage/extra6-texts.jsonl or $AGENTOPS_TRIAGE_BLIND6_CACHE), gathered
after blind5, is its own column ("blind6") on the same terms; ``--no-blind6`` leaves it
out. It was measured blind twice and then released as fit material (issue #23, stop 32);
``--fit-blind6`` adds it to the fit part, and its block is still printed.

A seventh blind set, benchmarks/data/triage_blind7.yaml (texts in
~/.cache/agentops/triage/extra7-texts.jsonl or $AGENTOPS_TRIAGE_BLIND7_CACHE), gathered
after blind6, is its own column ("blind7") on the same terms; ``--no-blind7`` leaves it
out. It was measured blind three times and then released as fit material (issue #23, stop
33); ``--fit-blind7`` adds it to the fit part, and its block is still printed.

An eighth blind set, benchmarks/data/triage_blind8.yaml (texts in
~/.cache/agentops/triage/extra8-texts.jsonl or $AGENTOPS_TRIAGE_BLIND8_CACHE), gathered
after blind7, is its own column ("blind8") on the same terms; ``--no-blind8`` leaves it
out. It was measured blind three times and then released as fit material (issue #23, stop
34); ``--fit-blind8`` adds it to the fit part, and its block is still printed.

A ninth blind set, benchmarks/data/triage_blind9.yaml (texts in
~/.cache/agentops/triage/extra9-texts.jsonl or $AGENTOPS_TRIAGE_BLIND9_CACHE), gathered
after blind7's release to join blind8, is its own column ("blind9") on the same terms;
``--no-blind9`` leaves it out. It was measured blind three times and then released as fit
material (issue #23, stop 35); ``--fit-blind9`` adds it to the fit part, and its block is
still printed.

A tenth blind set, benchmarks/data/triage_blind10.yaml (texts in
~/.cache/agentops/triage/extra10-texts.jsonl or $AGENTOPS_TRIAGE_BLIND10_CACHE), gathered
while blind9 is still blind, is its own column ("blind10") on the same terms;
``--no-blind10`` leaves it out. It was measured blind three times and then released as
fit material (issue #23, stop 36); ``--fit-blind10`` adds it to the fit part, and its
block is still printed.

An eleventh blind set, benchmarks/data/triage_blind11.yaml (texts in
~/.cache/agentops/triage/extra11-texts.jsonl or $AGENTOPS_TRIAGE_BLIND11_CACHE), gathered
after blind9's release to join blind10, is its own column ("blind11") on the same terms;
``--no-blind11`` leaves it out. It was measured blind three times and then released as
fit material (issue #23, stop 37); ``--fit-blind11`` adds it to the fit part, and its
block is still printed.

A twelfth blind set, benchmarks/data/triage_blind12.yaml (texts in
~/.cache/agentops/triage/extra12-texts.jsonl or $AGENTOPS_TRIAGE_BLIND12_CACHE), gathered
after blind10's release to join blind11, is its own column ("blind12") on the same terms;
``--no-blind12`` leaves it out. It was measured blind three times and then released as
fit material (issue #23, stop 38); ``--fit-blind12`` adds it to the fit part, and its
block is still printed.

A thirteenth blind set, benchmarks/data/triage_blind13.yaml (texts in
~/.cache/agentops/triage/extra13-texts.jsonl or $AGENTOPS_TRIAGE_BLIND13_CACHE), gathered
after blind11's release to join blind12, is its own column ("blind13") on the same terms;
``--no-blind13`` leaves it out. It was measured blind three times and then released as
fit material (issue #23, stop 39); ``--fit-blind13`` adds it to the fit part, and its
block is still printed.

A fourteenth blind set, benchmarks/data/triage_blind14.yaml (texts in
~/.cache/agentops/triage/extra14-texts.jsonl or $AGENTOPS_TRIAGE_BLIND14_CACHE), gathered
after blind12's release to join blind13, is its own column ("blind14") on the same terms;
``--no-blind14`` leaves it out. It was measured blind three times and then released as
fit material (issue #23, stop 41); ``--fit-blind14`` adds it to the fit part, and its
block is still printed.

A fifteenth blind set, benchmarks/data/triage_blind15.yaml (texts in
~/.cache/agentops/triage/extra15-texts.jsonl or $AGENTOPS_TRIAGE_BLIND15_CACHE), gathered
after blind13's release to join blind14, is its own column ("blind15") on the same terms;
``--no-blind15`` leaves it out. It was measured blind three times and then released as
fit material (issue #23, stop 42); ``--fit-blind15`` adds it to the fit part, and its
block is still printed.

A sixteenth blind set, benchmarks/data/triage_blind16.yaml (texts in
~/.cache/agentops/triage/extra16-texts.jsonl or $AGENTOPS_TRIAGE_BLIND16_CACHE), gathered
at stop 40 while blind14 and blind15 are blind, to join them, is its own column
("blind16") on the same terms; ``--no-blind16`` leaves it out. It was measured blind three
times and then released as fit material (issue #23, stop 43); ``--fit-blind16`` adds it to
the fit part, and its block is still printed.

A seventeenth blind set, benchmarks/data/triage_blind17.yaml (texts in
~/.cache/agentops/triage/extra17-texts.jsonl or $AGENTOPS_TRIAGE_BLIND17_CACHE), gathered
at stop 41 while blind15 and blind16 are blind, to join them, is its own column
("blind17") on the same terms; ``--no-blind17`` leaves it out. It is blind: never fitted
on, never merged into held-all, no ``--fit-blind17``.

When more than one set is still blind, their union is printed as
one more block, "blind-all": each set is small and holds few issues of any one module, so
the bars are read on the union as well as on each set.

`triaged` precision judges every plan marked `triaged` that the labels can judge: on a
distributed issue against the humans' modules and sub-oncall, and on an issue the humans
routed away from the queue as wrong (no human would look at it again); the count of the
latter is its own row, ``triaged_off_queue``, and a column of every curve. Coverage stays
the triaged share of the distributed issues.

Beside it, every block prints the same pair counted on judgeable issues only (issue #23,
stop 39): queue issues a human labelled with a module or a sub-oncall, and issues routed
away (no queue label, and the `triaged` label or another team's oncall or module label);
a queue issue with neither label and a negative carrying a queue label without the
trigger cannot be judged. The line gives its counts ("precision x/y on judgeable issues,
coverage c of n"); JSON: ``held_out.<block>.judgeable_triaged`` and ``kfold_judgeable``.

``--errors`` prints the fit part's per-issue errors (the material rules are written
from); held-out issues' results are never listed.

  python benchmarks/triage_kfold.py                      # dev sets next to the repo
  python benchmarks/triage_kfold.py A.jsonl B.jsonl      # other labelled sets
  python benchmarks/triage_kfold.py --write              # store the fit part's thresholds
  python benchmarks/triage_kfold.py --shipped            # held-out and blind at labels.json's
  python benchmarks/triage_kfold.py --fit-blind2         # blind2 joins the fit part
  python benchmarks/triage_kfold.py --no-blind3          # leave the third blind set out
  python benchmarks/triage_kfold.py --no-blind4          # leave the fourth blind set out
  python benchmarks/triage_kfold.py --no-blind5          # leave the fifth blind set out
  python benchmarks/triage_kfold.py --no-blind6          # leave the sixth blind set out
  python benchmarks/triage_kfold.py --no-blind7          # leave the seventh blind set out
  python benchmarks/triage_kfold.py --no-blind8          # leave the eighth blind set out
  python benchmarks/triage_kfold.py --no-blind9          # leave the ninth blind set out
  python benchmarks/triage_kfold.py --no-blind10         # leave the tenth blind set out
  python benchmarks/triage_kfold.py --no-blind11         # leave the eleventh blind set out
  python benchmarks/triage_kfold.py --no-blind12         # leave the twelfth blind set out
  python benchmarks/triage_kfold.py --no-blind13         # leave the thirteenth blind set out
  python benchmarks/triage_kfold.py --no-blind14         # leave the fourteenth blind set out
  python benchmarks/triage_kfold.py --no-blind15         # leave the fifteenth blind set out
  python benchmarks/triage_kfold.py --no-blind16         # leave the sixteenth blind set out
  python benchmarks/triage_kfold.py --no-blind17         # leave the seventeenth blind set out
  python benchmarks/triage_kfold.py --fit-blind2 --fit-blind3 --fit-blind4 --fit-blind5 \
      --errors                                           # fit on the released sets,
                                                         # list the fit part's errors

Pure CPU: no network, no token; writes only with --write.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from agentops.data import load as load_data  # noqa: E402
from agentops.errors import DataError  # noqa: E402
from agentops.triage.calibrate import (  # noqa: E402
    ablation,
    calibration,
    fit_thresholds,
    kfold,
    thresholds_json,
)
from agentops.triage.evaluate import FIGURES, Evaluation, Record, evaluate  # noqa: E402
from agentops.triage.model import Queue, Selective  # noqa: E402
from agentops.triage.offline import read_records  # noqa: E402
from agentops.triage.queue import load_queue, queue_dir  # noqa: E402

# The labelled sets live next to the repository (main checkout or a worktree below it).
DEFAULT_SETS = [base / "shared" / "eval" / f"triage-dev{s}.jsonl"
                for base in (ROOT.parent, ROOT.parent.parent) for s in ("", "2")]
EXTRA = ROOT / "benchmarks" / "data" / "triage_extra.yaml"
CACHE = Path(os.environ.get("AGENTOPS_TRIAGE_CACHE")
             or Path.home() / ".cache" / "agentops" / "triage" / "extra-texts.jsonl")


def _cache(n: int) -> Path:
    """The local text cache of blind set ``n``: $AGENTOPS_TRIAGE_BLIND<n>_CACHE, or
    ~/.cache/agentops/triage/extra<n>-texts.jsonl."""
    return Path(os.environ.get(f"AGENTOPS_TRIAGE_BLIND{n}_CACHE")
                or Path.home() / ".cache" / "agentops" / "triage" / f"extra{n}-texts.jsonl")


# Module-level names, one pair per set, so a test can point a set at its own files.
BLIND2, BLIND2_CACHE = ROOT / "benchmarks" / "data" / "triage_blind2.yaml", _cache(2)
BLIND3, BLIND3_CACHE = ROOT / "benchmarks" / "data" / "triage_blind3.yaml", _cache(3)
BLIND4, BLIND4_CACHE = ROOT / "benchmarks" / "data" / "triage_blind4.yaml", _cache(4)
BLIND5, BLIND5_CACHE = ROOT / "benchmarks" / "data" / "triage_blind5.yaml", _cache(5)
BLIND6, BLIND6_CACHE = ROOT / "benchmarks" / "data" / "triage_blind6.yaml", _cache(6)
BLIND7, BLIND7_CACHE = ROOT / "benchmarks" / "data" / "triage_blind7.yaml", _cache(7)
BLIND8, BLIND8_CACHE = ROOT / "benchmarks" / "data" / "triage_blind8.yaml", _cache(8)
BLIND9, BLIND9_CACHE = ROOT / "benchmarks" / "data" / "triage_blind9.yaml", _cache(9)
BLIND10, BLIND10_CACHE = ROOT / "benchmarks" / "data" / "triage_blind10.yaml", _cache(10)
BLIND11, BLIND11_CACHE = ROOT / "benchmarks" / "data" / "triage_blind11.yaml", _cache(11)
BLIND12, BLIND12_CACHE = ROOT / "benchmarks" / "data" / "triage_blind12.yaml", _cache(12)
BLIND13, BLIND13_CACHE = ROOT / "benchmarks" / "data" / "triage_blind13.yaml", _cache(13)
BLIND14, BLIND14_CACHE = ROOT / "benchmarks" / "data" / "triage_blind14.yaml", _cache(14)
BLIND15, BLIND15_CACHE = ROOT / "benchmarks" / "data" / "triage_blind15.yaml", _cache(15)
BLIND16, BLIND16_CACHE = ROOT / "benchmarks" / "data" / "triage_blind16.yaml", _cache(16)
BLIND17, BLIND17_CACHE = ROOT / "benchmarks" / "data" / "triage_blind17.yaml", _cache(17)
# The labelled-set files: numbers, the labels humans set, our own note; nothing else.
LABELLED_SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["issues"],
    "properties": {"issues": {"type": "array", "items": {
        "type": "object", "additionalProperties": False,
        "required": ["number", "labels", "note"],
        "properties": {
            "number": {"type": "integer", "minimum": 1},
            "labels": {"type": "array", "items": {"type": "string", "minLength": 1}},
            "note": {"type": "string", "minLength": 1}}}}}}
# A cached text longer than this is a mistake (the cache holds thread excerpts).
MAX_CACHED_TEXT = 200_000
# Threshold scales of the coverage/precision curve (1: as fitted), and the ones the
# operating point is chosen among (0 would switch selective triage off).
CURVE = (0.0, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0)
OPERATING = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)


def operating_scale(precision_at: Callable[[float], float | None], target: float) -> float:
    """The operating point: the lowest scale in OPERATING whose out-of-fold `triaged`
    precision (``precision_at(scale)``) reaches ``target``, 1.0 when none does. Scales are
    tried from the lowest, so a caller that computes precision on demand stops early."""
    for scale in sorted(OPERATING):
        precision = precision_at(scale)
        if precision is not None and precision >= target:
            return scale
    return 1.0


def held_out(number: int) -> bool:
    """The split (decided before fitting): a stable quarter of the dev sets."""
    return int(hashlib.sha256(f"triage-holdout:{number}".encode()).hexdigest(), 16) % 4 == 0


def expected_of(labels: list[str], queue: Queue) -> dict[str, object]:
    """The dev sets' rule: distributed = the trigger label; modules = the queue's module
    labels; sub-oncall = its sub-oncall label, else the owner of its first module."""
    modules = sorted(m for m in labels if m in queue.modules)
    subs = [s for s in queue.suboncalls if s in labels]
    sub = subs[0] if subs else (queue.module_suboncall.get(modules[0]) if modules else None)
    return {"is_distributed": queue.trigger_label in labels, "modules": modules,
            "suboncall": sub.rsplit(" ", 1)[-1] if sub else None, "type": None}


def load_labelled(path: Path) -> list[dict[str, object]]:
    """A labelled-set YAML file, validated: every error names the file and the key
    (``issues[3].labels``), a number listed twice names its second place."""
    items = load_data(path, LABELLED_SCHEMA, display=_shown(path)).content["issues"]
    seen: dict[int, int] = {}
    for i, item in enumerate(items):
        if item["number"] in seen:
            raise DataError(_shown(path), f"issues[{i}].number",
                            f"issue {item['number']} is listed twice (also issues"
                            f"[{seen[item['number']]}])", fix="keep one entry")
        seen[item["number"]] = i
    return items


def load_texts(cache: Path) -> dict[int, dict[str, object]]:
    """The local text cache: ``{number, title, text}`` JSON lines; a bad line is an
    error naming the file and the line."""
    texts: dict[int, dict[str, object]] = {}
    for n, line in enumerate(cache.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(str(cache), f"line {n}", f"not valid JSON: {exc.msg}",
                            fix="rebuild the cache line") from exc
        if not isinstance(obj, dict) or not isinstance(obj.get("number"), int) or not all(
                isinstance(obj.get(k, ""), str) for k in ("title", "text")):
            raise DataError(str(cache), f"line {n}",
                            "expected an object with an integer number and string "
                            "title and text", fix="rebuild the cache line")
        if len(obj.get("text") or "") > MAX_CACHED_TEXT:
            raise DataError(str(cache), f"line {n}.text",
                            f"longer than {MAX_CACHED_TEXT} characters")
        texts[obj["number"]] = obj
    return texts


def labelled_records(path: Path, cache: Path, queue: Queue, *, name: str,
                     env: str) -> tuple[list[Record], str]:
    """A labelled set joined with its text cache, or ([], why it is skipped)."""
    items = load_labelled(path)
    if not cache.is_file():
        return [], (f"{name} set skipped: no text cache at {cache} (set ${env}; issue "
                    "texts are kept out of the repository)")
    texts = load_texts(cache)
    out = []
    for item in items:
        got = texts.get(int(item["number"]))
        if got is None:
            continue
        out.append(Record.from_json({
            "number": item["number"], "title": got.get("title") or "",
            "text": got.get("text") or "", "labels": item["labels"],
            "url": f"https://github.com/pytorch/pytorch/issues/{item['number']}",
            "expected": expected_of(list(item["labels"]), queue)}))
    missing = len(items) - len(out)
    note = f"{name} set: {len(out)} issues from {cache}" + (
        f" ({missing} without cached text, skipped)" if missing else "")
    return out, note


def extra_records(queue: Queue) -> tuple[list[Record], str]:
    """The extra set joined with its text cache, or ([], why it is skipped)."""
    return labelled_records(EXTRA, CACHE, queue, name="extra", env="AGENTOPS_TRIAGE_CACHE")


def blind_records(name: str, queue: Queue) -> tuple[list[Record], str]:
    """Blind set ``name`` ("blind2" ... "blind17") joined with its text cache, or ([], why
    it is skipped). The files are read from the module's names when called."""
    upper = name.upper()
    return labelled_records(globals()[upper], globals()[f"{upper}_CACHE"], queue, name=name,
                            env=f"AGENTOPS_TRIAGE_{upper}_CACHE")


# Blind sets reported as their own blocks after blind2, in order, each with the number of
# blind runs after which it was released as fit material (then `--fit-NAME` adds it to the
# fit part), or None while it is still blind.
SEPARATE_SETS: dict[str, int | None] = {
    "blind3": 2,
    "blind4": 3,
    "blind5": 2,
    "blind6": 2,
    "blind7": 3,
    "blind8": 3,
    "blind9": 3,
    "blind10": 3,
    "blind11": 3,
    "blind12": 3,
    "blind13": 3,
    "blind14": 3,
    "blind15": 3,
    "blind16": 3,
    "blind17": None,
}
_ORDINAL = {3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth",
            9: "ninth", 10: "tenth", 11: "eleventh", 12: "twelfth",
            13: "thirteenth", 14: "fourteenth", 15: "fifteenth",
            16: "sixteenth", 17: "seventeenth"}
_COUNT = {1: "one", 2: "two", 3: "three", 4: "four"}


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def dev_paths(given: list[Path]) -> list[Path] | None:
    """The labelled dev sets named on the command line, else those found next to the
    repository; None (after saying so on stderr) when there are none."""
    paths = given or [p for p in DEFAULT_SETS if p.is_file()]
    if not paths:
        print("no labelled sets given or found next to the repository", file=sys.stderr)
        return None
    return paths


def add_dev_arguments(ap: argparse.ArgumentParser) -> None:
    """The options every triage benchmark reads its labelled sets with (DevSets)."""
    ap.add_argument("datasets", nargs="*", type=Path)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--queue", default="distributed")
    ap.add_argument("--no-extra", action="store_true", help="leave the extra set out")


@dataclass(frozen=True)
class DevSets:
    """What the triage benchmarks read first: the dev sets split by ``held_out`` (the
    split decided before fitting) and the extra set, with the line saying how it was
    read (each benchmark prints it where its report has it)."""

    paths: list[Path]
    queue: Queue
    fit: list[Record]
    held: list[Record]
    extra: list[Record]
    extra_note: str


def read_dev_sets(args: argparse.Namespace) -> DevSets | None:
    """The sets named by ``add_dev_arguments``' options; None when there are none
    (dev_paths has said so on stderr: exit 2)."""
    paths = dev_paths(args.datasets)
    if paths is None:
        return None
    queue = load_queue(args.queue)
    dev = [r for p in paths for r in read_records(str(p))]
    extra, note = ([], "extra set left out (--no-extra)") if args.no_extra \
        else extra_records(queue)
    return DevSets(paths=paths, queue=queue,
                   fit=[r for r in dev if not held_out(r.number)],
                   held=[r for r in dev if held_out(r.number)], extra=extra, extra_note=note)


def scaled_selective(sel: Selective, scale: float) -> Selective:
    """Every threshold (and the default) of ``sel`` times ``scale``."""
    return replace(sel, default=round(sel.default * scale, 3),
                   thresholds={k: round(v * scale, 3) for k, v in sel.thresholds.items()})


def _fmt(v: object) -> str:
    if v is None:
        return "n/a"
    return str(v) if isinstance(v, int) else f"{v:.3f}"


def _table(rows: dict[str, dict[str, object]]) -> list[str]:
    names = list(rows)
    out = [f"{'figure':<28}" + "".join(f"{n:>11}" for n in names)]
    for key in FIGURES:
        out.append(f"{key:<28}" + "".join(f"{_fmt(rows[n].get(key)):>11}" for n in names))
    return out


def judgeable_line(name: str, j: dict[str, float | int | None]) -> str:
    """The `triaged` pair counted on judgeable issues only (Scores.judgeable), with its
    denominators: "precision x/y on judgeable issues, coverage c of n"."""
    return (f"{'judgeable triaged (' + name + ')':<28} precision {_fmt(j['precision'])} "
            f"({j['right']}/{j['judged']} on judgeable issues, {j['off_queue']} routed away), "
            f"coverage {_fmt(j['coverage'])} ({j['triaged']} of {j['distributed']} queue "
            "issues with a module or sub-oncall label)")


def _report_separate(name: str, recs: list[Record], fitted: Queue,
                     status: str, *, in_fit: bool = False) -> Evaluation:
    """A set reported as its own part: never merged into held-all, so the first blind
    set's figures stay comparable across runs and this one answers "does it hold on new
    issues". Prints its table, F1 ratio and curve; returns its evaluation."""
    ev = evaluate(recs, fitted, scales=CURVE)
    n_dist = sum(r.is_distributed for r in recs)
    print(f"\n== {name}: {len(recs)} issues ({n_dist} distributed, "
          f"{len(recs) - n_dist} not), same thresholds, "
          f"{'in' if in_fit else 'not in'} the fit part; {status} ==")
    print("\n".join(_table({f"{name}({len(recs)})": ev.planner.figures(),
                            "baseline": ev.baseline.figures()})))
    p, b = ev.planner.figures(), ev.baseline.figures()
    if p["module_f1"] and b["module_f1"]:
        print(f"{'module F1 / baseline':<28}{p['module_f1'] / b['module_f1']:>11.2f}x")
    print(judgeable_line(name, ev.planner.judgeable()))
    print(f"coverage/precision curve ({name}; the shipped thresholds scaled):")
    print(f"  {'scale':>6}{'coverage':>10}{'precision':>11}{'triaged':>9}{'off-queue':>11}")
    for op in ev.points:
        print(f"  x{op.scale:<5g}{_fmt(op.coverage):>10}{_fmt(op.precision):>11}"
              f"{op.triaged:>9}{op.off_queue:>11}")
    return ev


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_dev_arguments(ap)
    ap.add_argument("--target", type=float, default=None,
                    help="precision each label's threshold aims at (default: the queue's)")
    ap.add_argument("--no-blind2", action="store_true",
                    help="leave the second blind set (triage_blind2.yaml) out")
    ap.add_argument("--fit-blind2", action="store_true",
                    help="add the second blind set to the fit part (threshold fitting, k-fold, "
                         "--write): it was read to write rules, so it is no longer blind")
    for name in SEPARATE_SETS:
        nth = _ORDINAL[int(name.removeprefix("blind"))]
        ap.add_argument(f"--no-{name}", action="store_true",
                        help=f"leave the {nth} blind set (triage_{name}.yaml) out")
    for name, runs in SEPARATE_SETS.items():
        if runs is not None:
            nth = _ORDINAL[int(name.removeprefix("blind"))]
            ap.add_argument(f"--fit-{name}", action="store_true",
                            help=f"add the {nth} blind set to the fit part (threshold fitting, "
                                 "k-fold, --write) and still print its block: it was released "
                                 f"as fit material after {_COUNT[runs]} blind runs")
    ap.add_argument("--errors", action="store_true",
                    help="list the fit part's per-issue errors (never a held-out issue's)")
    ap.add_argument("--write", action="store_true",
                    help="store the thresholds fitted on the fit part, at the chosen operating "
                         "scale, in the queue's labels.json")
    ap.add_argument("--shipped", action="store_true",
                    help="judge the held-out part and the separate sets with the thresholds the "
                         "queue's labels.json ships, not the ones fitted on the fit part now: "
                         "what the action does today (the k-fold still refits per fold)")
    ap.add_argument("--ablate", action="store_true",
                    help="also remove each rubric signal in turn (fit part only) and list the "
                         "issues it fixes and breaks, and in how many folds it fixes any")
    ap.add_argument("--json", action="store_true", help="end with one JSON line")
    args = ap.parse_args(argv)
    # Refused before any set is read or any fold is fitted (minutes on the real sets).
    if args.write and args.shipped:
        print("--write stores fitted thresholds; --shipped judges with the stored ones: "
              "give one of them", file=sys.stderr)
        return 2
    sets = read_dev_sets(args)
    if sets is None:
        return 2
    paths, queue, hold, extra = sets.paths, sets.queue, sets.held, sets.extra
    fit = list(sets.fit)
    print(sets.extra_note)
    blind2, note2 = ([], "blind2 set left out (--no-blind2)") if args.no_blind2 \
        else blind_records("blind2", queue)
    print(note2)
    if args.fit_blind2 and blind2:
        fit += blind2
        print(f"blind2 set: {len(blind2)} issues added to the fit part (--fit-blind2): "
              "thresholds and k-fold include them; no blind2 column")
        blind2 = []
    separate: dict[str, list[Record]] = {}
    for name in SEPARATE_SETS:
        recs, note_s = ([], f"{name} set left out (--no-{name})") \
            if getattr(args, f"no_{name}") else blind_records(name, queue)
        print(note_s)
        separate[name] = recs
    # Sets released as fit material join the fit part on request and keep their block.
    in_fit: dict[str, int] = {}
    for name, runs in SEPARATE_SETS.items():
        recs = separate[name]
        if runs is not None and getattr(args, f"fit_{name}") and recs:
            fit += recs
            in_fit[name] = len(recs)
            print(f"{name} set: {len(recs)} issues added to the fit part (--fit-{name}): "
                  "thresholds and k-fold include them; its block is still printed")
    target = queue.confidence.target_precision if args.target is None else args.target
    raw = fit_thresholds(fit, queue, target=args.target)
    out: dict[str, object] = {}

    # The operating point, chosen on the fit part only: out of fold, every fitted
    # threshold scaled, the lowest scale in OPERATING whose triaged precision still
    # reaches the target (the most coverage at that precision); x0 (selective triage
    # off) is never a candidate.
    curve = []
    for scale in CURVE:
        kf_scores = kfold(fit, queue, k=args.k, target=args.target, scale=scale).scores
        fig = kf_scores.figures()
        curve.append({"scale": scale, "coverage": fig["triaged_coverage"],
                      "precision": fig["triaged_precision"],
                      "off_queue": fig["triaged_off_queue"], "figures": fig,
                      "judgeable": kf_scores.judgeable()})
    chosen = operating_scale({c["scale"]: c["precision"] for c in curve}.get, target)
    sel = scaled_selective(raw, chosen)
    fitted = queue if args.shipped else replace(queue, confidence=sel)

    if args.shipped:
        print("\n== held out (the thresholds labels.json ships, "
              f"fitted on {queue.confidence.fitted_on.split(',')[0] or 'an unrecorded set'}; "
              "never on these) ==")
    else:
        print(f"\n== held out (thresholds fitted on the {len(fit)} fit issues at x{chosen:g}, "
              "never on these) ==")
    groups = {"dev-held": hold, "extra": extra, "held-all": hold + extra}
    groups = {k: v for k, v in groups.items() if v}
    evals = {name: evaluate(recs, fitted, scales=CURVE) for name, recs in groups.items()}
    rows = {f"{n}({len(groups[n])})": e.planner.figures() for n, e in evals.items()}
    rows["baseline"] = evals["held-all" if "held-all" in evals else "dev-held"].baseline.figures()
    print("\n".join(_table(rows)))
    main_eval = evals.get("held-all") or evals["dev-held"]
    p, b = main_eval.planner.figures(), main_eval.baseline.figures()
    if p["module_f1"] and b["module_f1"]:
        print(f"{'module F1 / baseline':<28}{p['module_f1'] / b['module_f1']:>11.2f}x")
    for n, e in evals.items():
        print(judgeable_line(n, e.planner.judgeable()))
    print("\ncoverage/precision curve (held out; the shipped thresholds scaled):")
    print(f"  {'scale':>6}{'coverage':>10}{'precision':>11}{'triaged':>9}{'off-queue':>11}")
    for op in main_eval.points:
        print(f"  x{op.scale:<5g}{_fmt(op.coverage):>10}{_fmt(op.precision):>11}{op.triaged:>9}"
              f"{op.off_queue:>11}")
    held_recs = groups.get("held-all") or hold
    print("\ncalibration (held out, selective triage off): precision per confidence band "
          "(confidence = the weakest confidence score among the labels a plan decides)")
    bands = calibration(held_recs, fitted)
    for band in bands:
        hi = f"{band.high:g}" if band.high is not None else "+"
        print(f"  [{band.low:g}, {hi}){'':<4}judged {band.judged:>3}  right {band.right:>3}  "
              f"precision {_fmt(band.precision)}")
    if blind2:
        evals["blind2"] = _report_separate(
            "blind2", blind2, fitted,
            "read to write rules since its one blind run (--fit-blind2 to fit on it)")
    for name, runs in SEPARATE_SETS.items():
        if not separate[name]:
            continue
        status = ("fit material since its blind runs ended"
                  + ("" if name in in_fit else f" (--fit-{name} to fit on it)")) \
            if runs is not None else "blind: never read to write rules"
        evals[name] = _report_separate(name, separate[name], fitted, status,
                                       in_fit=name in in_fit)
    # Small blind sets each hold few issues of a module; their union is the larger sample
    # the bars are read on (each set was gathered apart, none was read to write rules).
    still_blind = [n for n, runs in SEPARATE_SETS.items() if runs is None and separate[n]]
    if len(still_blind) > 1:
        evals["blind-all"] = _report_separate(
            "blind-all", [r for n in still_blind for r in separate[n]], fitted,
            f"the blind sets {' + '.join(still_blind)} together")
    out["held_out"] = {n: {**e.to_json(), "judgeable_triaged": e.planner.judgeable()}
                       for n, e in evals.items()}
    out["calibration"] = [{"low": x.low, "high": x.high, "judged": x.judged,
                           "right": x.right} for x in bands]

    kfig = next(c["figures"] for c in curve if c["scale"] == chosen)
    full = evaluate(fit, fitted).planner.figures()
    b2_fit = len(fit) - len(sets.fit) - sum(in_fit.values())
    parts = ([f"{b2_fit} of them blind2, --fit-blind2"] if b2_fit else []) + [
        f"{n} of them {name}, --fit-{name}" for name, n in in_fit.items()]
    print(f"\n== fit part: {len(fit)} issues"
          + (f" ({'; '.join(parts)})" if parts else "")
          + f", k={args.k} folds by issue (x{chosen:g}) ==")
    out["fit_blind2"] = b2_fit
    for name, runs in SEPARATE_SETS.items():
        if runs is not None:
            out[f"fit_{name}"] = in_fit.get(name, 0)
    print("\n".join(_table({"k-fold": kfig, "full-fit": full,
                            "shipped": evaluate(fit, queue).planner.figures()})))
    out["kfold"] = kfig
    kjudge = next(c["judgeable"] for c in curve if c["scale"] == chosen)
    print(judgeable_line("k-fold", kjudge))
    out["kfold_judgeable"] = kjudge
    print("\nout-of-fold coverage/precision curve (fit part; every fitted threshold scaled; "
          f"operating point: the lowest of {list(OPERATING)} at precision >= {target:g}):")
    print(f"  {'scale':>6}{'coverage':>10}{'precision':>11}{'off-queue':>11}")
    for c in curve:
        mark = "  <- chosen" if c["scale"] == chosen else ""
        print(f"  x{c['scale']:<5g}{_fmt(c['coverage']):>10}{_fmt(c['precision']):>11}"
              f"{c['off_queue']:>11}{mark}")
    out["kfold_curve"] = [{k: v for k, v in c.items() if k not in ("figures", "judgeable")}
                          for c in curve]
    out["operating_scale"] = chosen
    out["thresholds"] = "shipped" if args.shipped else "fitted"

    if args.errors:
        fit_scores = evaluate(fit, fitted, scales=()).planner
        print(f"\n== fit part's errors ({len(fit_scores.errors)} of {len(fit)} issues; "
              f"thresholds as fitted, x{chosen:g}) ==")
        for line in fit_scores.errors:
            print(f"  {line}")
    if args.ablate:
        print(f"\n== ablation on the fit part ({len(fit)} issues, thresholds off) ==")
        for eff in sorted(ablation(fit, queue, k=args.k),
                          key=lambda e: (e.folds, len(e.fixes) - len(e.breaks))):
            flag = "  <- one fold only" if eff.folds == 1 else (
                "  <- breaks more than it fixes" if len(eff.breaks) > len(eff.fixes) else "")
            print(f"  {eff.signal:<30} folds {eff.folds}  fixes {len(eff.fixes):>2} "
                  f"{list(eff.fixes)[:6]}  breaks {len(eff.breaks):>2} "
                  f"{list(eff.breaks)[:6]}{flag}")
    if args.write:
        folder, _ = queue_dir(args.queue)
        path = folder / "labels.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        conf = thresholds_json(sel)
        conf["fitted_on"] = (f"{len(fit)} labelled issues, the fit part of "
                             + ", ".join(p.name for p in paths)
                             + (f" plus {BLIND2.name} (--fit-blind2)" if b2_fit else "")
                             + "".join(f" plus triage_{name}.yaml (--fit-{name})"
                                       for name in in_fit)
                             + f" (benchmarks/triage_kfold.py split), scaled x{chosen:g}: the "
                             "lowest scale whose out-of-fold precision reaches the target")
        doc["config"]["confidence"] = conf
        path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"\nwrote config.confidence to {path}")
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
