"""The learned-scorer probe (issue #23, tr-probe17: benchmarks/triage_learned.py) on
made-up issues: the learner separates two modules by their words, is deterministic,
its thresholds come from TRAIN only, and its token caps hold."""

from __future__ import annotations

import math

import pytest

from agentops.triage.evaluate import Record
from agentops.triage.queue import load_queue
from benchmarks import triage_learned as tl

QUEUE = load_queue("distributed")
FSDP, C10D = "module: fsdp", "module: c10d"
# Made-up vocabularies: each module's issues use their own words, both share filler.
WORDS = {FSDP: ["shardwrap", "flatparam", "reshardy", "unitgroup"],
         C10D: ["storekey", "rendezvoo", "barriero", "pgwatch"]}
FILLER = ["please", "see", "below", "the", "run", "fails"]


def _rec(n: int, module: str | None, *, distributed: bool = True) -> Record:
    words = WORDS[module] if module else ["gradscale", "tensorcore", "kernelz", "fuserx"]
    pick = [words[(n + i) % len(words)] for i in range(3)]
    sub = None if module is None else ("parallelisms" if module == FSDP else "infra")
    return Record(number=n, title=f"{pick[0]} {pick[1]} problem",
                  text=" ".join([*FILLER, *pick, *FILLER[: n % 4]]), human_labels=(),
                  modules=frozenset([module]) if module and distributed else frozenset(),
                  suboncall=sub, is_distributed=distributed,
                  url=f"https://github.com/example/repo/issues/{n}")


def _train() -> list[Record]:
    return ([_rec(100 + i, FSDP) for i in range(12)] + [_rec(200 + i, C10D) for i in range(12)]
            + [_rec(300 + i, None, distributed=False) for i in range(12)])


def _model():
    recs = _train()
    docs = [tl.record_features(r, QUEUE) for r in recs]
    return tl.fit_learner(docs, recs, QUEUE), recs, docs


def test_learner_separates_two_made_up_modules_by_their_words() -> None:
    model, _, _ = _model()
    a = tl.score_doc(model, tl.features("shardwrap reshardy", "flatparam unitgroup"))
    b = tl.score_doc(model, tl.features("storekey pgwatch", "rendezvoo barriero"))
    assert a.modules[FSDP] > a.modules[C10D]
    assert b.modules[C10D] > b.modules[FSDP]
    assert a.sub_choice()[0] == "oncall: distributed parallelisms"
    assert b.sub_choice()[0] == "oncall: distributed infra"
    off = tl.score_doc(model, tl.features("gradscale kernelz", "tensorcore fuserx"))
    assert off.nd > a.nd and off.nd > b.nd


def test_learner_is_deterministic() -> None:
    m1, recs, docs = _model()
    m2, _, _ = _model()
    doc = tl.features("shardwrap storekey", "flatparam")
    assert tl.score_doc(m1, doc) == tl.score_doc(m2, doc)
    assert tl.out_of_fold(docs, recs, QUEUE) == tl.out_of_fold(docs, recs, QUEUE)


def test_thresholds_come_from_train_only() -> None:
    train = _train()
    check_a = [_rec(400 + i, C10D) for i in range(3)]
    check_b = [_rec(500 + i, FSDP) for i in range(5)] + [_rec(600, None, distributed=False)]
    out_a = tl.run({"train": train, "check": check_a}, QUEUE)
    out_b = tl.run({"train": train, "check": check_b}, QUEUE)
    assert out_a["learner_thresholds"] == out_b["learner_thresholds"]
    assert out_a["blend_thresholds"] == out_b["blend_thresholds"]
    assert out_a["groups"]["train"] == out_b["groups"]["train"]
    # The learner got the made-up check issues right from their words.
    learner = out_b["groups"]["check"]["learner"]
    assert learner["module"] == [5, 0, 0]
    assert learner["nd"][0] == 1


def test_token_caps_hold() -> None:
    title = " ".join(f"tw{i}" for i in range(500))
    body = " ".join(f"bw{i}" for i in range(20_000))
    feats = tl.features(title, body, ["oncall: pt2"])
    assert sum(w.startswith("t:") for w in feats) == tl.MAX_TITLE_TOKENS
    assert sum(w.startswith("bw") for w in feats) == tl.MAX_BODY_TOKENS
    assert "l:oncall: pt2" in feats
    assert len(feats) == 2 * tl.MAX_TITLE_TOKENS + tl.MAX_BODY_TOKENS + 1


def test_trigger_label_is_not_a_feature() -> None:
    rec = _rec(700, FSDP)
    assert not any(w.startswith("l:") for w in tl.record_features(rec, QUEUE))


def test_triaged_cut_needs_target_precision_on_enough_plans() -> None:
    class S:
        def __init__(self, right: int, total: int) -> None:
            self.triaged_right, self.triaged_total = right, total

    at = {1.0: S(9, 12), 2.0: S(10, 10), 3.0: S(4, 4)}
    assert tl._triaged_cut([1.0, 2.0, 3.0], lambda c: at[c]) == 2.0  # type: ignore[arg-type,return-value]
    at[2.0] = S(9, 9)  # too few judged plans
    assert tl._triaged_cut([1.0, 2.0, 3.0], lambda c: at[c]) == math.inf  # type: ignore[arg-type,return-value]


@pytest.mark.parametrize("k", [0.1, 1.0])
def test_naive_bayes_log_odds_follow_the_words(k: float) -> None:
    vocab = frozenset({"aa", "bb", "cc"})
    docs = [frozenset({"aa", "cc"})] * 3 + [frozenset({"bb", "cc"})] * 3
    nb = tl.fit_nb(docs, ["1"] * 3 + ["0"] * 3, vocab, k)
    assert tl.log_odds(nb, frozenset({"aa"})) > 0 > tl.log_odds(nb, frozenset({"bb"}))
    assert tl.log_odds(nb, frozenset({"cc"})) == pytest.approx(0.0)


def test_signal_features_only_in_their_modes() -> None:
    sigs = [("made_up_signal", "title")]
    words = tl.features("shardwrap", "flatparam", (), sigs, mode="words")
    sig = tl.features("shardwrap", "flatparam", (), sigs, mode="signals")
    both = tl.features("shardwrap", "flatparam", (), sigs, mode="both")
    assert "shardwrap" in words and not any(w.startswith("s:") for w in words)
    assert sig == {"s:made_up_signal", "s:made_up_signal@title"}
    assert both == words | sig


def _rule_plan(mods: list[str]) -> tl.Plan:
    return tl.Plan(repo="", issue=1, decision="classify",
                   add_labels=("oncall: distributed parallelisms", *mods,
                               QUEUE.marker_label, QUEUE.triaged_label), queue=QUEUE.name)


def test_blend_vetoes_a_module_the_learner_scores_very_low() -> None:
    s = tl.Scored(nd=-9.0, modules={FSDP: 5.0, C10D: -20.0},
                  subs={"oncall: distributed parallelisms": 3.0, "oncall: distributed infra": 0.0})
    lth = tl.Thresholds(nd=0.0, module=1.0, triaged=-math.inf)
    on = tl.BlendThresholds(-math.inf, -10.0, math.inf, math.inf, -math.inf)
    off = tl.BlendThresholds(-math.inf, -math.inf, math.inf, math.inf, -math.inf)
    rule = _rule_plan([FSDP, C10D])
    vetoed = tl.blend_plan(rule, {}, s, lth, on, queue=QUEUE)
    assert FSDP in vetoed.add_labels and C10D not in vetoed.add_labels
    assert QUEUE.triaged_label not in vetoed.add_labels  # a changed plan is not triaged
    kept = tl.blend_plan(rule, {}, s, lth, off, queue=QUEUE)
    assert set(kept.add_labels) == set(rule.add_labels)


def test_blend_adds_a_module_only_where_rules_and_learner_agree() -> None:
    s = tl.Scored(nd=-9.0, modules={FSDP: 5.0, C10D: 8.0}, subs={})
    lth = tl.Thresholds(nd=0.0, module=1.0, triaged=-math.inf)
    add = tl.BlendThresholds(-math.inf, -math.inf, 6.0, math.inf, -math.inf)
    rule = _rule_plan([FSDP])
    assert C10D in tl.blend_plan(rule, {C10D: 1.0}, s, lth, add, queue=QUEUE).add_labels
    assert C10D not in tl.blend_plan(rule, {}, s, lth, add, queue=QUEUE).add_labels
