"""S-7 / #22: a prior action item is "Resolved since …" only when the analysis could
look at its site again and the finding is gone. When the comparison could not be made
at HEAD (an upstream definition it names renamed or wrapped, an upstream file moved,
a sub-project file moved), its basis changed: it is neither resolved nor re-posted
unchanged, but dropped in one FYI line saying why. Fixture repositories, match and
no-match."""

from __future__ import annotations

from agentops.scout import items
from agentops.scout.model import PriorPayload
from tests.scout import minirepo

DIMS = """\
class ParallelDims:
    @classmethod
    def from_config(cls, cfg):
        return cls()
"""
WRAPPER = "from core.dims import ParallelDims\n\ndef build(cfg):\n    return ParallelDims()\n"
PRIOR_ITEM = {
    "id": "91d91231fe98", "section": "S-4", "kind": "action", "priority": "P2",
    "severity": "nice-to-have", "fingerprint": "099dec7a895e", "first_reported": "2026-03-01",
    "title": "`wrapper.py` builds `ParallelDims` field by field; upstream has "
             "`ParallelDims.from_config()`",
    "where": "sub/wrapper.py:4", "fix": "use `ParallelDims.from_config(...)`",
    "files": ["sub/wrapper.py", "core/dims.py"], "facts": ["ParallelDims", "from_config"]}


def _reconcile(tmp_path, head):
    inp = minirepo.build(tmp_path, base={"core/dims.py": DIMS, "sub/wrapper.py": WRAPPER},
                         head=head)
    prior = PriorPayload(date="2026-03-02", head="x", items=(PRIOR_ITEM,))
    return items.reconcile([], (prior,), "2026-03-06", inp)


def _dropped_line(kept) -> str:
    """The one FYI line a prior action item whose basis changed becomes: never an
    action or carried item again."""
    assert not [i for i in kept if i.kind in ("action", "carried")]
    [it] = kept
    assert it.kind == "fyi" and it.facts == (PRIOR_ITEM["id"],)
    return f"{it.title} — {it.why}"


def test_upstream_definition_renamed_is_dropped_in_one_line_never_resolved(tmp_path) -> None:
    renamed = DIMS.replace("from_config", "from_parallelism_config")
    kept, resolved, _ = _reconcile(tmp_path, {"core/dims.py": renamed})
    assert resolved == []
    title = _dropped_line(kept)
    assert title.startswith("1 prior action item(s) dropped: what they compared changed "
                            "since 2026-03-02")
    assert PRIOR_ITEM["title"][:40] in title and "(first reported 2026-03-01)" in title
    assert "`from_config` (core/dims.py) no longer defined there" in title


def test_upstream_function_wrapped_is_dropped(tmp_path) -> None:
    wrapped = ("def _from_config(cls, cfg):\n    return cls()\n\n\nclass ParallelDims:\n"
               "    from_config = classmethod(_from_config)\n")
    kept, resolved, _ = _reconcile(tmp_path, {"core/dims.py": wrapped})
    assert resolved == [] and "`from_config` (core/dims.py)" in _dropped_line(kept)


def test_upstream_file_moved_is_dropped(tmp_path) -> None:
    kept, resolved, _ = _reconcile(tmp_path, {"core/dims.py": None,
                                              "core/parallel/dims.py": DIMS})
    assert resolved == []
    assert "core/dims.py not at HEAD (moved or removed upstream?)" in _dropped_line(kept)


def test_a_dropped_item_is_said_once_not_on_the_next_night(tmp_path) -> None:
    """#22: the night after, the prior holds only the FYI line: nothing re-raises the
    item (no fourth listing of an action nothing re-checked)."""
    inp = minirepo.build(tmp_path, base={"core/dims.py": DIMS, "sub/wrapper.py": WRAPPER},
                         head={"core/dims.py": None, "core/parallel/dims.py": DIMS})
    night1 = PriorPayload(date="2026-03-02", head="x", items=(PRIOR_ITEM,))
    kept, _, _ = items.reconcile([], (night1,), "2026-03-06", inp)
    night2 = PriorPayload(date="2026-03-06", head="y",
                          items=tuple(i.to_json() for i in kept))
    kept2, resolved2, _ = items.reconcile([], (night1, night2), "2026-03-07", inp)
    assert kept2 == [] and resolved2 == []


def test_sub_project_file_moved_is_dropped_removed_is_resolved(tmp_path) -> None:
    kept, resolved, _ = _reconcile(tmp_path / "moved", {"sub/wrapper.py": None,
                                                        "sub/models/wrapper.py": WRAPPER})
    assert resolved == [] and "sub/models/wrapper.py" in _dropped_line(kept)
    kept, resolved, _ = _reconcile(tmp_path / "removed", {"sub/wrapper.py": None})
    assert kept == [] and [r.title for r in resolved] == [
        f"Resolved since 2026-03-02: {PRIOR_ITEM['title']}"]


def test_finding_gone_where_it_was_looked_for_is_resolved(tmp_path) -> None:
    """The sub-project now calls from_config: the site was re-examined, nothing found."""
    fixed = WRAPPER.replace("ParallelDims()", "ParallelDims.from_config(cfg)")
    kept, resolved, _ = _reconcile(tmp_path, {"sub/wrapper.py": fixed})
    assert kept == [] and len(resolved) == 1 and resolved[0].kind == "all_clear"


COPY = """\
def build_dims(cfg):
    dims = {}
    dims["tp"] = cfg.tp
    dims["cp"] = cfg.cp
    dims["pp"] = cfg.pp
    return dims
"""
COPY_ITEM = {**PRIOR_ITEM, "id": "0123456789ab", "title": "`build_dims` (`copy.py`) copies "
             "upstream's `ParallelDims`", "files": ["sub/copy.py"], "facts": ["build_dims"]}


def _reconcile_copy(tmp_path, head):
    inp = minirepo.build(tmp_path, base={"sub/copy.py": COPY, "core/dims.py": DIMS}, head=head)
    prior = PriorPayload(date="2026-03-02", head="x", items=(COPY_ITEM,))
    return items.reconcile([], (prior,), "2026-03-06", inp)


def test_sub_project_function_renamed_is_dropped(tmp_path) -> None:
    renamed = COPY.replace("def build_dims", "def make_parallel_dims")
    kept, resolved, _ = _reconcile_copy(tmp_path, {"sub/copy.py": renamed})
    assert resolved == [] and [i.kind for i in kept] == ["fyi"]
    assert "`build_dims` (sub/copy.py) looks renamed to `make_parallel_dims`" in kept[0].why


def test_sub_project_function_removed_or_rewritten_is_resolved(tmp_path) -> None:
    other = "from core.dims import ParallelDims\n\n\ndef make_dims(cfg):\n" \
            "    return ParallelDims.from_config(cfg)\n"
    kept, resolved, _ = _reconcile_copy(tmp_path, {"sub/copy.py": other})
    assert kept == [] and len(resolved) == 1


def test_items_of_one_vanished_file_share_one_reason_in_the_line(tmp_path) -> None:
    """#22: the three items a vanished upstream file took with it are one reason and
    three titles, short enough that the rendered line shows each of them."""
    inp = minirepo.build(tmp_path, base={"core/dims.py": DIMS, "sub/wrapper.py": WRAPPER},
                         head={"core/dims.py": None})
    prior_items = tuple({**PRIOR_ITEM, "id": f"{n:012x}", "title": f"finding number {n}"}
                        for n in range(3))
    kept, resolved, _ = items.reconcile(
        [], (PriorPayload(date="2026-03-02", head="x", items=prior_items),), "2026-03-06", inp)
    [it] = kept
    assert resolved == [] and it.title.startswith("3 prior action item(s) dropped")
    assert it.why.count("core/dims.py not at HEAD") == 1
    assert all(f"finding number {n} (first reported 2026-03-01)" in it.why for n in range(3))
    assert it.facts == tuple(p["id"] for p in prior_items)


def test_a_long_title_is_cut_outside_its_code_spans() -> None:
    title = "`SequenceParallel` call omits `use_local_output`, which upstream passes"
    cut = items._short(title, 40)
    assert cut == "`SequenceParallel` call omits…" and cut.count("`") % 2 == 0
    assert items._short("short", 40) == "short"
