#!/usr/bin/env python3
"""Would a learned scorer transfer better than the hand rules? (issue #23, probe tr-probe17)

Every hand rule written from the fit sets has so far moved only the sets it was written
from. This probe estimates a small scorer from all TRAIN issues at once and compares it,
and a blend of it with the rules, with the shipped planner on sets nobody wrote from.

Split (fixed before any run, as round tr-fit17): TRAIN = dev fit part + blind2..blind13;
CHECK = blind14 + blind15 (aggregates only); held-out 64 = dev-held + extra (aggregates
only). Still-blind sets are never loaded (triage_setsplit refuses them by name).

The learner sees only what the planner sees (T-32): the title and the body, plus the keep
labels the first-level bot would have set other than the trigger (the trigger label is
set exactly on queue issues, so it would give decision (i) away; it is left out).
Features: the planner's own word tokeniser (signals.word_tokens) over the lowercased
title (first MAX_TITLE_TOKENS words, also as ``t:word``) and body (first
MAX_BODY_TOKENS words), each word once; words seen in fewer than MIN_DF TRAIN issues are
dropped. Model: naive Bayes over word presence with add-k smoothing (deterministic, no
iteration), per decision: (i) distributed vs routed away, (ii) one-vs-rest per module
label of the queue (on queue issues with a human module), (iii) the sub-oncall
(multiclass, on queue issues with a known sub-oncall).

Thresholds come from TRAIN only: every TRAIN issue is scored out of fold (K_INNER folds
by a stable hash of its number) and each threshold is the one that does best on those
out-of-fold scores; CHECK and held-out are scored by the model fitted on all of TRAIN
with those thresholds. Figures per group: module F1 (tp/fp/fn), sub-oncall accuracy,
not-distributed P/R, and `triaged` precision/coverage (evaluate.score's definitions), for
(a) the rules (the shipped planner; in-sample on TRAIN, which they were written from),
(b) the learner alone (TRAIN figures out of fold), (c) a blend: the rules' plan, with the
learner as a veto (drop a module, or a not-distributed call, the learner scores very
low), an addition only where both agree (a module the rules hold evidence for and the
learner scores high), a sub-oncall override only at a large learner margin, and
`triaged` kept only on plans the blend left unchanged whose learner confidence is high.

``--features signals`` gives the learner the rules' own signals instead of the words
(``s:signal`` and ``s:signal@place`` for each hit of the planner's reading): weights
for the hand signals estimated from TRAIN; ``both`` gives it both. A blend threshold
stays off (the rules' plan as it is) unless its TRAIN figure rises; for `triaged`, off
when no cut reaches the target on TRAIN.

  python benchmarks/triage_learned.py --no-blind16 --no-blind17 [--features signals] [--json]

Pure CPU: no network, no token, no writes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import triage_kfold as tk
import triage_setsplit as ts

from agentops.triage.evaluate import (
    Record,
    Scores,
    first_level_labels,
    score,
    snapshot_of,
    suboncall_label,
)
from agentops.triage.model import Plan, Queue
from agentops.triage.plan import plan_issue, read
from agentops.triage.signals import Hit, word_tokens

TRAIN = ("dev-fit", *(f"blind{i}" for i in range(2, 14)))
CHECK = ("blind14", "blind15")
HELD = ("dev-held", "extra")
GROUPS = {"train": TRAIN, "check": CHECK, "held64": HELD}
MAX_TITLE_TOKENS = 40
MAX_BODY_TOKENS = 1500
MIN_DF = 2
SMOOTH_K = 0.3  # chosen on TRAIN out of fold among 1, 0.3, 0.1 (tr-probe17)
K_INNER = 5
TRIAGED_TARGET = 0.95
MIN_TRIAGED = 10  # a `triaged` cut judged on fewer TRAIN plans is not chosen
MAX_MODULES = 3  # a plan holds at most the learner's three best modules
INF = math.inf


# ------------------------------------------------------------------ features

FEATURES = ("words", "signals", "both")
FEATURE_MODE = "words"


def features(title: str, body: str, labels: Iterable[str] = (),
             signals: Iterable[tuple[str, str]] = (), mode: str | None = None
             ) -> frozenset[str]:
    """The issue's features, each once: ``l:label`` for each label given; with words
    (mode "words" or "both"), title words (capped, also as ``t:word``) and body words
    (capped); with signals ("signals" or "both"), ``s:signal`` and ``s:signal@place``
    for each (signal, place) of the rules' hits."""
    mode = FEATURE_MODE if mode is None else mode
    out = [f"l:{lb.casefold()}" for lb in labels]
    if mode in {"words", "both"}:
        title_w = word_tokens(title.lower())[:MAX_TITLE_TOKENS]
        out += [*title_w, *(f"t:{w}" for w in title_w),
                *word_tokens(body.lower())[:MAX_BODY_TOKENS]]
    if mode in {"signals", "both"}:
        for sig, where in signals:
            out += [f"s:{sig}", f"s:{sig}@{where}"]
    return frozenset(out)


def record_features(rec: Record, queue: Queue, hits: Iterable[Hit] = ()) -> frozenset[str]:
    """What the planner sees of a record, without the trigger label; ``hits``: the
    rules' reading of it (used in the "signals" and "both" modes)."""
    keep = [lb for lb in first_level_labels(rec, queue) if lb != queue.trigger_label]
    return features(rec.title, rec.text, keep, [(h.signal, h.where) for h in hits])


def vocabulary(docs: Sequence[frozenset[str]], min_df: int = MIN_DF) -> frozenset[str]:
    df: dict[str, int] = {}
    for d in docs:
        for w in d:
            df[w] = df.get(w, 0) + 1
    return frozenset(w for w, n in df.items() if n >= min_df)


# ------------------------------------------------------------------ naive Bayes

@dataclass(frozen=True)
class NB:
    """Naive Bayes over word presence: per class a prior and per word a log weight."""

    classes: tuple[str, ...]
    prior: Mapping[str, float]
    logp: Mapping[str, Mapping[str, float]]  # class -> word -> log P(word | class)
    unseen: Mapping[str, float]  # class -> log P(word | class) for a word it never saw

    def scores(self, doc: frozenset[str]) -> dict[str, float]:
        vocab = self.logp[self.classes[0]].keys()
        # Sorted: a set's order follows the per-process string hash, and a float sum's
        # last digits follow its order (the same run must give the same thresholds).
        words = sorted(w for w in doc if w in vocab)
        return {c: self.prior[c] + sum(self.logp[c].get(w, self.unseen[c]) for w in words)
                for c in self.classes}


def fit_nb(docs: Sequence[frozenset[str]], ys: Sequence[str], vocab: frozenset[str],
           k: float | None = None) -> NB:
    """Multinomial naive Bayes with add-k smoothing on word presence counts; classes in
    sorted order, a class with no example gets the smallest prior the data allows."""
    k = SMOOTH_K if k is None else k
    classes = tuple(sorted(set(ys)))
    n = len(ys)
    counts: dict[str, dict[str, int]] = {c: {} for c in classes}
    totals = dict.fromkeys(classes, 0)
    for d, y in zip(docs, ys, strict=True):
        cnt = counts[y]
        for w in d:
            if w in vocab:
                cnt[w] = cnt.get(w, 0) + 1
                totals[y] += 1
    v = max(len(vocab), 1)
    logp = {c: {w: math.log((counts[c].get(w, 0) + k) / (totals[c] + k * v)) for w in vocab}
            for c in classes}
    unseen = {c: math.log(k / (totals[c] + k * v)) for c in classes}
    prior = {c: math.log((sum(y == c for y in ys) + 1) / (n + len(classes))) for c in classes}
    return NB(classes, prior, logp, unseen)


def log_odds(nb: NB, doc: frozenset[str], pos: str = "1") -> float:
    """A binary model's score: log P(pos | doc) - log P(other | doc)."""
    s = nb.scores(doc)
    if pos not in s:
        return -INF
    others = [v for c, v in s.items() if c != pos]
    return s[pos] - max(others) if others else INF


# ------------------------------------------------------------------ the learner

@dataclass(frozen=True)
class Learner:
    vocab: frozenset[str]
    nd: NB | None
    modules: Mapping[str, NB]
    sub: NB | None


@dataclass(frozen=True)
class Scored:
    """One issue's learner scores: not-distributed log odds, per-module log odds, and
    per-sub-oncall log scores."""

    nd: float
    modules: Mapping[str, float]
    subs: Mapping[str, float]

    def sub_choice(self) -> tuple[str | None, float]:
        """The top sub-oncall and its margin over the second."""
        if not self.subs:
            return None, 0.0
        ranked = sorted(self.subs.items(), key=lambda kv: (-kv[1], kv[0]))
        margin = ranked[0][1] - ranked[1][1] if len(ranked) > 1 else INF
        return ranked[0][0], margin


def fit_learner(docs: Sequence[frozenset[str]], recs: Sequence[Record], queue: Queue
                ) -> Learner:
    vocab = vocabulary(docs)
    nd = fit_nb(docs, ["0" if r.is_distributed else "1" for r in recs], vocab) \
        if len({r.is_distributed for r in recs}) > 1 else None
    mod_idx = [i for i, r in enumerate(recs) if r.is_distributed and r.modules]
    mdocs = [docs[i] for i in mod_idx]
    modules = {}
    for m in queue.modules:
        ys = ["1" if m in recs[i].modules else "0" for i in mod_idx]
        if "1" in ys and "0" in ys:
            modules[m] = fit_nb(mdocs, ys, vocab)
    sub_idx = [(i, suboncall_label(r.suboncall, queue)) for i, r in enumerate(recs)
               if r.is_distributed]
    sub_idx = [(i, s) for i, s in sub_idx if s is not None]
    sub = fit_nb([docs[i] for i, _ in sub_idx], [s for _, s in sub_idx], vocab) \
        if len({s for _, s in sub_idx}) > 1 else None
    return Learner(vocab, nd, modules, sub)


def score_doc(model: Learner, doc: frozenset[str]) -> Scored:
    return Scored(nd=log_odds(model.nd, doc) if model.nd else -INF,
                  modules={m: log_odds(nb, doc) for m, nb in model.modules.items()},
                  subs=model.sub.scores(doc) if model.sub else {})


def fold_of(number: int, k: int = K_INNER) -> int:
    return int(hashlib.sha256(f"tr-probe17:{number}".encode()).hexdigest(), 16) % k


def out_of_fold(docs: Sequence[frozenset[str]], recs: Sequence[Record], queue: Queue,
                k: int = K_INNER) -> list[Scored]:
    """Every TRAIN issue scored by a model fitted on the other folds."""
    folds = [fold_of(r.number, k) for r in recs]
    out: list[Scored | None] = [None] * len(recs)
    for f in range(k):
        idx = [i for i in range(len(recs)) if folds[i] != f]
        model = fit_learner([docs[i] for i in idx], [recs[i] for i in idx], queue)
        for i in range(len(recs)):
            if folds[i] == f:
                out[i] = score_doc(model, docs[i])
    return [s for s in out if s is not None]


# ------------------------------------------------------------------ plans

@dataclass(frozen=True)
class Thresholds:
    nd: float  # learner says not distributed at log odds >= nd
    module: float  # a module at log odds >= module
    triaged: float  # `triaged` at confidence >= triaged


def confidence(s: Scored, th: Thresholds) -> float:
    """How far the learner's plan stands from its nearest doubt (log-odds units): the
    not-distributed call from its threshold, the best module over the second, the
    sub-oncall over the second."""
    _, margin = s.sub_choice()
    top = sorted(s.modules.values(), reverse=True)
    gap = top[0] - top[1] if len(top) > 1 else 0.0
    return min(th.nd - s.nd, margin, gap)


def module_choice(s: Scored, cut: float, queue: Queue) -> list[str]:
    """The learner's modules: its best one (every judged queue issue has one), and any
    other at log odds >= ``cut``; at most MAX_MODULES, in the queue's order."""
    ranked = sorted(s.modules, key=lambda m: (-s.modules[m], queue.modules.index(m)))
    top = ranked[:1] + [m for m in ranked[1:] if s.modules[m] >= cut]
    return [m for m in queue.modules if m in top[:MAX_MODULES]]


def learner_plan(s: Scored, th: Thresholds, queue: Queue, number: int = 0) -> Plan:
    if s.nd >= th.nd:
        return Plan(repo="", issue=number, decision="not_distributed",
                    add_labels=(queue.marker_label,), queue=queue.name)
    mods = module_choice(s, th.module, queue)
    sub, _ = s.sub_choice()
    labels = [*([sub] if sub else []), *mods, queue.marker_label]
    if confidence(s, th) >= th.triaged:
        labels.append(queue.triaged_label)
    return Plan(repo="", issue=number, decision="classify", add_labels=tuple(labels),
                queue=queue.name)


def _candidates(values: Iterable[float], n: int = 40) -> list[float]:
    """Up to ``n`` cut points spread over the sorted finite values, plus +-inf."""
    vs = sorted({v for v in values if math.isfinite(v)})
    if len(vs) > n:
        vs = [vs[round(i * (len(vs) - 1) / (n - 1))] for i in range(n)]
    return [-INF, *vs, INF]


def _f1(tp: int, fp: int, fn: int) -> float:
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def _best(cands: Sequence[float], objective: Callable[[float], float]) -> float:
    """The candidate with the highest objective; ties go to the first (lowest)."""
    best, best_v = cands[0], -INF
    for c in cands:
        v = objective(c)
        if v > best_v + 1e-12:
            best, best_v = c, v
    return best


def _triaged_cut(cands: Sequence[float], plans_at: Callable[[float], Scores]) -> float:
    """The lowest cut whose TRAIN `triaged` precision reaches the target on at least
    MIN_TRIAGED judged plans (the most coverage at that precision); INF when none."""
    for c in cands:
        s = plans_at(c)
        if s.triaged_total >= MIN_TRIAGED and s.triaged_right >= TRIAGED_TARGET * s.triaged_total:
            return c
    return INF


def choose_thresholds(recs: Sequence[Record], oof: Sequence[Scored], queue: Queue
                      ) -> Thresholds:
    """The learner's thresholds, from TRAIN's out-of-fold scores only."""
    def nd_f1(t: float) -> float:
        tp = sum(s.nd >= t and not r.is_distributed for r, s in zip(recs, oof, strict=True))
        fp = sum(s.nd >= t and r.is_distributed for r, s in zip(recs, oof, strict=True))
        fn = sum(s.nd < t and not r.is_distributed for r, s in zip(recs, oof, strict=True))
        return _f1(tp, fp, fn)

    t_nd = _best(_candidates(s.nd for s in oof), nd_f1)
    judged = [(r, s) for r, s in zip(recs, oof, strict=True) if r.is_distributed and r.modules]

    def mod_f1(t: float) -> float:
        tp = fp = fn = 0
        for r, s in judged:
            got = set(module_choice(s, t, queue))
            tp, fp, fn = tp + len(got & r.modules), fp + len(got - r.modules), \
                fn + len(r.modules - got)
        return _f1(tp, fp, fn)

    t_mod = _best(_candidates(v for _, s in judged for v in s.modules.values()), mod_f1)
    base = Thresholds(t_nd, t_mod, INF)
    confs = [confidence(s, base) for s in oof]

    def plans_at(c: float) -> Scores:
        th = Thresholds(t_nd, t_mod, c)
        return score(recs, [learner_plan(s, th, queue) for s in oof], queue)

    return Thresholds(t_nd, t_mod, _triaged_cut(_candidates(confs), plans_at))


# ------------------------------------------------------------------ the blend

@dataclass(frozen=True)
class BlendThresholds:
    nd_veto: float  # a rules' not-distributed call is dropped below this learner score
    module_veto: float  # a rules' module is dropped below this learner score
    module_add: float  # a module with rule evidence is added at or above this score
    sub_override: float  # the learner's sub-oncall replaces the rules' at this margin
    triaged: float  # `triaged` kept at learner confidence >= this (unchanged plans only)


def blend_plan(rule: Plan, evidence: Mapping[str, float], s: Scored, lth: Thresholds,
               bth: BlendThresholds, *, queue: Queue) -> Plan:
    """The rules' plan, with the learner as a veto, an agreeing addition or a tie-break.
    ``evidence``: the rules' per-module evidence score (Reading.label_score)."""
    mods_all, subs_all = set(queue.modules), set(queue.suboncalls)
    if rule.decision == "not_distributed":
        if s.nd >= bth.nd_veto:
            return rule
        # Vetoed: plan it as the learner would, never `triaged`.
        lp = learner_plan(s, Thresholds(INF, lth.module, INF), queue, rule.issue)
        return Plan(repo=rule.repo, issue=rule.issue, decision="classify",
                    add_labels=lp.add_labels, queue=queue.name)
    added = list(rule.add_labels)
    mods = [lb for lb in added if lb in mods_all]
    kept = [m for m in mods if s.modules.get(m, INF) >= bth.module_veto]
    new = [m for m in queue.modules if m not in mods and evidence.get(m, 0.0) > 0
           and s.modules.get(m, -INF) >= bth.module_add]
    sub = next((lb for lb in added if lb in subs_all), None)
    lsub, margin = s.sub_choice()
    new_sub = lsub if lsub and lsub != sub and margin >= bth.sub_override else sub
    changed = kept != mods or bool(new) or new_sub != sub
    labels = [lb for lb in added if lb not in mods_all and lb not in subs_all]
    keep_triaged = queue.triaged_label in labels and not changed \
        and confidence(s, lth) >= bth.triaged
    labels = [lb for lb in labels if lb != queue.triaged_label]
    out = [*([new_sub] if new_sub else []), *kept, *new, *labels,
           *([queue.triaged_label] if keep_triaged else [])]
    return Plan(repo=rule.repo, issue=rule.issue, decision=rule.decision,
                add_labels=tuple(dict.fromkeys(out)), queue=queue.name)


def choose_blend(recs: Sequence[Record], rules: Sequence[Plan],
                 evidence: Sequence[Mapping[str, float]], oof: Sequence[Scored],
                 lth: Thresholds, *, queue: Queue) -> BlendThresholds:
    """The blend's thresholds, one at a time, on TRAIN only (rules' plans as they are,
    learner scores out of fold); each starts off (no change to the rules' plan) and
    moves only where its own TRAIN figure rises."""
    def scores_at(bth: BlendThresholds) -> Scores:
        plans = [blend_plan(p, e, s, lth, bth, queue=queue)
                 for p, e, s in zip(rules, evidence, oof, strict=True)]
        return score(recs, plans, queue)

    def nd_f1(t: float) -> float:
        s = scores_at(BlendThresholds(t, -INF, INF, INF, -INF))
        return _f1(s.nd_tp, s.nd_fp, s.nd_fn)

    def mod_f1(bth: BlendThresholds) -> float:
        s = scores_at(bth)
        return _f1(s.tp, s.fp, s.fn)

    def sub_acc(t: float) -> float:
        s = scores_at(BlendThresholds(-INF, -INF, INF, t, -INF))
        return s.sub_right / s.sub_total if s.sub_total else 0.0

    nd_c = _candidates((s.nd for s in oof), 20)
    mod_c = _candidates((v for s in oof for v in s.modules.values()), 20)
    sub_c = _candidates((s.sub_choice()[1] for s in oof), 20)
    nd_veto = _best(nd_c, nd_f1)
    veto = _best(mod_c, lambda t: mod_f1(BlendThresholds(-INF, t, INF, INF, -INF)))
    add = _best(list(reversed(mod_c)),
                lambda t: mod_f1(BlendThresholds(-INF, veto, t, INF, -INF)))
    override = _best(list(reversed(sub_c)), sub_acc)
    confs = _candidates((confidence(s, lth) for s in oof), 20)
    cut = _triaged_cut(confs, lambda c: scores_at(BlendThresholds(
        nd_veto, veto, add, override, c)))
    # Off (the rules' `triaged` as they are) when no cut reaches the target on TRAIN.
    return BlendThresholds(nd_veto, veto, add, override, -INF if cut == INF else cut)


# ------------------------------------------------------------------ figures

def figures(s: Scores) -> dict[str, object]:
    f = s.figures()
    return {"module_f1": f["module_f1"], "module": [s.tp, s.fp, s.fn],
            "suboncall_accuracy": f["suboncall_accuracy"], "suboncall": [s.sub_right,
                                                                          s.sub_total],
            "nd_precision": f["not_distributed_precision"],
            "nd_recall": f["not_distributed_recall"], "nd": [s.nd_tp, s.nd_fp, s.nd_fn],
            "triaged_precision": f["triaged_precision"],
            "triaged": [s.triaged_right, s.triaged_total, s.triaged_any, s.distributed],
            "triaged_off_queue": s.triaged_off_queue}


def _fmt(v: object) -> str:
    return "n/a" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def render_row(name: str, group: str, n: int, f: Mapping[str, object]) -> str:
    tp, fp, fn = f["module"]  # type: ignore[misc]
    sr, st = f["suboncall"]  # type: ignore[misc]
    a, b, c = f["nd"]  # type: ignore[misc]
    tr, tt, ta, td = f["triaged"]  # type: ignore[misc]
    return (f"  {name:<8}{group:<8}{n:>4}  F1 {_fmt(f['module_f1']):>5} ({tp}/{fp}/{fn})"
            f"  sub {_fmt(f['suboncall_accuracy']):>5} ({sr}/{st})"
            f"  nd P {_fmt(f['nd_precision']):>5} R {_fmt(f['nd_recall']):>5} ({a}/{b}/{c})"
            f"  triaged {_fmt(f['triaged_precision']):>5} ({tr}/{tt}, {ta} of {td},"
            f" {f['triaged_off_queue']} off)")


def run(recs: Mapping[str, list[Record]], queue: Queue) -> dict[str, object]:
    """Fit on TRAIN, pick thresholds on TRAIN out of fold, measure every group."""
    train = recs["train"]
    snaps = {g: [snapshot_of(r, queue) for r in rs] for g, rs in recs.items()}
    rules = {g: [plan_issue(s, queue) for s in ss] for g, ss in snaps.items()}
    readings = {g: [read(s, queue) for s in ss] for g, ss in snaps.items()}
    evid = {g: [{m: rd.label_score(m) for m in queue.modules} for rd in rds]
            for g, rds in readings.items()}
    docs = {g: [record_features(r, queue, rd.hits) for r, rd in zip(rs, readings[g],
                                                                     strict=True)]
            for g, rs in recs.items()}
    oof = out_of_fold(docs["train"], train, queue)
    lth = choose_thresholds(train, oof, queue)
    model = fit_learner(docs["train"], train, queue)
    scored = {"train": oof, **{g: [score_doc(model, d) for d in ds]
                               for g, ds in docs.items() if g != "train"}}
    bth = choose_blend(train, rules["train"], evid["train"], oof, lth, queue=queue)
    out: dict[str, object] = {"learner_thresholds": vars(lth), "blend_thresholds": vars(bth),
                              "vocabulary": len(model.vocab), "groups": {}}
    for g, rs in recs.items():
        lplans = [learner_plan(s, lth, queue, r.number) for s, r in zip(scored[g], rs,
                                                                          strict=True)]
        bplans = [blend_plan(p, e, s, lth, bth, queue=queue)
                  for p, e, s in zip(rules[g], evid[g], scored[g], strict=True)]
        out["groups"][g] = {"n": len(rs),  # type: ignore[index]
                            "rules": figures(score(rs, rules[g], queue)),
                            "learner": figures(score(rs, lplans, queue)),
                            "blend": figures(score(rs, bplans, queue))}
    return out


def _finite(x: object) -> object:
    """JSON has no infinity: an off threshold (+-inf) is written as its sign, "+inf"."""
    if isinstance(x, float) and not math.isfinite(x):
        return "+inf" if x > 0 else "-inf"
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    return x


def main(argv: list[str] | None = None) -> int:
    global SMOOTH_K, MAX_BODY_TOKENS, FEATURE_MODE
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    tk.add_dev_arguments(ap)
    for name in ts.STILL_BLIND:
        ap.add_argument(f"--no-{name}", action="store_true",
                        help=f"accepted for symmetry: {name} is never loaded here")
    ap.add_argument("--max-issues", type=int, default=2000,
                    help="refuse to run on more issues than this (bound on runtime)")
    ap.add_argument("--smooth", type=float, default=SMOOTH_K, help="add-k smoothing")
    ap.add_argument("--body-tokens", type=int, default=MAX_BODY_TOKENS,
                    help="words of the body read per issue")
    ap.add_argument("--features", choices=FEATURES, default=FEATURE_MODE,
                    help="what the learner reads: the words, the rules' signals, or both")
    ap.add_argument("--train-only", action="store_true",
                    help="print TRAIN rows only (to choose settings without CHECK/held-out)")
    ap.add_argument("--json", action="store_true", help="end with one JSON line")
    args = ap.parse_args(argv)
    SMOOTH_K, MAX_BODY_TOKENS, FEATURE_MODE = args.smooth, args.body_tokens, args.features
    start = time.monotonic()
    got = ts.load_sets(args, {s for sets in GROUPS.values() for s in sets})
    if got is None:
        return 2
    queue, sets = got
    recs = {g: [r for s in names for r in sets[s]] for g, names in GROUPS.items()}
    total = sum(len(v) for v in recs.values())
    if total > args.max_issues:
        print(f"{total} issues > --max-issues {args.max_issues}", file=sys.stderr)
        return 2
    out = run(recs, queue)
    out["seconds"] = round(time.monotonic() - start, 1)
    print(f"\nlearner thresholds (TRAIN out of fold, k={K_INNER}): {out['learner_thresholds']}")
    print(f"blend thresholds (TRAIN): {out['blend_thresholds']}")
    print(f"vocabulary {out['vocabulary']} words (df >= {MIN_DF}); caps: title "
          f"{MAX_TITLE_TOKENS}, body {MAX_BODY_TOKENS} words per issue")
    print("  (rules on train: in-sample, written from it; learner on train: out of fold)")
    for who in ("rules", "learner", "blend"):
        for g, v in out["groups"].items():  # type: ignore[attr-defined]
            if args.train_only and g != "train":
                continue
            print(render_row(who, g, v["n"], v[who]))
    print(f"runtime {out['seconds']} s")
    if args.json:
        if args.train_only:
            out["groups"] = {"train": out["groups"]["train"]}  # type: ignore[index]
        print(json.dumps(_finite(out)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
