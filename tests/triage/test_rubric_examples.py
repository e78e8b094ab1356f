"""Every rubric signal carries match / no_match examples, and they hold (style §6)."""

from __future__ import annotations

from functools import cache

import pytest

from agentops.data import load
from agentops.triage.queue import QUEUES_DIR, load_queue

QUEUES = sorted(p.name for p in QUEUES_DIR.iterdir() if p.is_dir())
queue_of = cache(load_queue)


def _cases() -> list[tuple[str, str, str, str]]:
    out = []
    for name in QUEUES:
        raw = load(QUEUES_DIR / name / "rubric.yml").content
        for sig in raw["signals"]:
            ex = sig.get("examples") or {}
            for kind in ("match", "no_match"):
                for text in ex.get(kind) or ():
                    out.append((name, sig["id"], kind, text))
    return out


@pytest.mark.parametrize("queue_name", QUEUES)
def test_every_signal_has_both_kinds_of_example(queue_name):
    raw = load(QUEUES_DIR / queue_name / "rubric.yml").content
    lacking = [s["id"] for s in raw["signals"]
               if not (s.get("examples") or {}).get("match")
               or not (s.get("examples") or {}).get("no_match")]
    assert lacking == []


@pytest.mark.parametrize(("queue_name", "signal", "kind", "text"), _cases(),
                         ids=lambda v: str(v)[:40])
def test_signal_example(queue_name, signal, kind, text):
    sig = queue_of(queue_name).rubric.signal(signal)
    fired = sig.matches(text)
    if kind == "match":
        assert fired is not None, f"{signal} should fire on {text!r}"
    else:
        assert fired is None, f"{signal} fired on {text!r} (matched {fired!r})"


def test_needles_never_change_what_a_pattern_matches():
    """The literal prefilter is an optimisation: on every example text, a pattern with
    needles fires exactly when its plain regex does."""
    rubric = queue_of("distributed").rubric
    texts = [t for _, _, _, t in _cases()]
    checked = 0
    for sig in rubric.signals:
        for needles, regex in sig.patterns:
            if needles is None:
                continue
            for text in texts:
                low = text.lower()
                assert (regex.search(text) is not None) <= any(n in low for n in needles), (
                    sig.id, regex.pattern, text)
                checked += 1
    assert checked > 100
