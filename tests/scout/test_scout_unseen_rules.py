"""benchmarks/scout_unseen.py's false all-clear rule (#22 item 7): an absence claim of
a kind the truth holds, whatever its wording, unless the line says what it did not
check (no torchtitan checkout needed)."""

from __future__ import annotations


def test_unseen_false_all_clear_is_an_absence_claim_that_hides_its_limit() -> None:
    """#22 item 7: a line saying the upstream delta or the docs hold nothing is a false
    all-clear while the truth holds an entry of that kind, whatever its wording, unless
    the line says what it did not check."""
    from benchmarks import scout_unseen as unseen

    run = {"truth": [{"id": "a", "kind": "action"}, {"id": "d", "kind": "docs"}]}
    md = ("## All Clear\n- Upstream delta: 4 commit(s) on watched paths since 2026-01-01, "
          "no action found\n## Docs\n- docs are current\n"
          "<!-- agentops:scout-report\n- Upstream delta: 1 commit(s), nothing actionable\n")
    assert unseen.false_clears(run, md) == ["upstream delta: no action", "docs are current"]
    # No match: each line says what it did not check; an FYI "no action" line is no
    # claim about the delta; a kind the truth does not hold is no false all-clear.
    md = ("- Upstream delta: 4 commit(s), no action in what was compared (2 bodies); not "
          "checked: changes of behaviour with no signature change\n"
          "- no inaccuracy in what was checked; not checked against the code: a TODO list\n"
          "- Patch still valid, no action needed\n")
    assert unseen.false_clears(run, md) == []
    assert unseen.false_clears({"truth": [{"id": "o", "kind": "opportunity"}]},
                               "- Upstream delta: 3 commit(s), nothing actionable\n"
                               "- docs are current\n") == []
