"""Priority and silence (issue #9): every informational section drops an item unchanged
in the last three reports and says how many it dropped; carried items say what
changed; docs never read "current" while inaccuracies are only being held back; P0/P1
items point at the sub-project's code (file:line)."""

from __future__ import annotations

import json
import re

from agentops.scout import items
from agentops.scout.model import Item, PriorPayload
from scripts import scout as cli


def _prior(date: str, *its: Item) -> PriorPayload:
    return PriorPayload(date=date, items=tuple(i.to_json() for i in its))


def test_opportunity_unchanged_in_three_reports_is_dropped() -> None:
    opp = Item(id="o1", section="S-3", kind="opportunity", title="gap", facts=("a",))
    changed = Item(id="o1", section="S-3", kind="opportunity", title="gap", facts=("a", "b"))
    priors = (_prior("2026-03-01", opp), _prior("2026-03-02", opp), _prior("2026-03-03", opp))
    kept, _resolved, dropped = items.reconcile([opp], priors, "2026-03-04")
    assert kept == [] and dropped == [f"o1:{opp.fingerprint}"]
    # A change brings it back.
    kept, _resolved, dropped = items.reconcile([changed], priors, "2026-03-04")
    assert [k.id for k in kept] == ["o1"] and dropped == []
    # Two unchanged reports are not three.
    kept, _r, _d = items.reconcile([opp], priors[1:], "2026-03-04")
    assert [k.id for k in kept] == ["o1"]


def test_carried_item_says_what_changed() -> None:
    before = Item(id="a1", section="S-3", kind="action", title="3 classes",
                  facts=("TestA", "TestB", "TestC"), priority="P2")
    now = Item(id="a1", section="S-3", kind="action", title="2 classes",
               facts=("TestB", "TestC", "TestD"), priority="P2")
    [carried], _r, _d = items.reconcile([now], (_prior("2026-03-01", before),), "2026-03-02")
    assert carried.kind == "carried" and carried.first_reported == "2026-03-01"
    assert carried.status == ("still open, changed since 2026-03-01: now also TestD; "
                              "no longer TestA")


def _report(capsys, repo, commit: str, date: str, *extra: str) -> dict:
    code = cli.main(["--config", str(repo["target"]), "report", "--checkout",
                     str(repo[commit]), "--offline", "--torch", "none", "--date", date,
                     "--json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_four_nights_on_an_unchanged_tree(fixture_repo, capsys, tmp_path) -> None:
    priors: list[str] = []
    docs: list[dict] = []
    for n, date in enumerate(("2026-03-10", "2026-03-11", "2026-03-12", "2026-03-13")):
        doc = _report(capsys, fixture_repo, "c3", date, *[a for p in priors
                                                          for a in ("--prior", p)])
        path = tmp_path / f"n{n}.md"
        path.write_text(doc["markdown"], encoding="utf-8")
        priors.append(str(path))
        docs.append(doc)

    def info(doc: dict) -> int:
        return sum(1 for i in doc["items"] if i["kind"] in ("fyi", "opportunity"))

    assert info(docs[0]) >= 4
    assert info(docs[3]) * 4 <= info(docs[0])  # the 25 % target
    last = docs[3]["markdown"]
    assert re.search(r"\d+ FYI/opportunity item\(s\) unchanged in the last three reports",
                     last)
    docs_section = last.split("## Docs")[1].split("## All Clear")[0]
    assert "docs are current" not in docs_section  # held back is not current
    assert "known inaccuracies, unchanged in the last three reports" in docs_section
    # Action items are debt: carried every night, never dropped.
    assert {i["id"] for i in docs[0]["items"] if i["kind"] == "action"} <= {
        i["id"] for i in docs[3]["items"] if i["kind"] == "carried"}


def test_p0_p1_items_point_at_sub_project_code(fixture_repo, capsys) -> None:
    doc = _report(capsys, fixture_repo, "c3", "2026-03-10", "--since", "2026-03-02")
    urgent = [i for i in doc["items"] if i["kind"] == "action" and i["priority"] in
              ("P0", "P1")]
    assert urgent
    for i in urgent:
        assert re.search(r"(sub/|\.github/workflows/)\S+:\d+", i["where"]), i
        assert i["fix"], i  # and says what to change
