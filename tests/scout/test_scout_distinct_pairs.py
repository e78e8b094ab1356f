"""#22: ``bodydrift.distinct_pairs``, the one reading of "each (copy or override,
upstream function) pair once" that body drift's lags, new-copy keywords, stale copies
and the all-clear's pair count share. Made-up pairs, repeat and no repeat."""

from __future__ import annotations

import ast

from agentops.scout.analyses import bodydrift


def _fn(src: str) -> ast.FunctionDef:
    node = ast.parse(src).body[0]
    assert isinstance(node, ast.FunctionDef)
    return node


def _with_pairs(monkeypatch, pairs) -> object:
    monkeypatch.setattr(bodydrift, "_pairs", lambda _inp: list(pairs))
    return object()


def test_a_pair_listed_twice_is_kept_once_in_first_order(monkeypatch) -> None:
    spin = _fn("def spin(x):\n    return x\n")
    twirl = _fn("\n\ndef twirl(y):\n    return y\n")
    first = (spin, "pkg/wheel.py", "core/wheel.py", "Wheel.spin")
    second = (twirl, "pkg/wheel.py", "core/wheel.py", "Wheel.twirl")
    again = (_fn("def spin(z):\n    pass\n"), "pkg/wheel.py", "core/wheel.py", "Wheel.spin")
    inp = _with_pairs(monkeypatch, [first, second, again])
    assert bodydrift.distinct_pairs(inp) == [first, second]
    assert bodydrift.pair_count(inp) == 2


def test_pairs_differing_in_any_part_of_the_key_are_all_kept(monkeypatch) -> None:
    spin = _fn("def spin(x):\n    return x\n")
    pairs = [(spin, "pkg/wheel.py", "core/wheel.py", "Wheel.spin"),
             (spin, "pkg/wheel.py", "core/wheel.py", "Gear.spin"),  # other upstream name
             (spin, "pkg/wheel.py", "core/gear.py", "Wheel.spin"),  # other upstream file
             (spin, "pkg/axle.py", "core/wheel.py", "Wheel.spin")]  # other file of ours
    inp = _with_pairs(monkeypatch, pairs)
    assert bodydrift.distinct_pairs(inp) == pairs
    assert bodydrift.pair_count(inp) == 4
