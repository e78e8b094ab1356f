"""#22 defect 7 (S-5), the claim side of a features list: an item of a supported-features
list that names a parallelism no code of the sub-project handles (a DDP claim after the
replicate path went) is possibly stale, with the doc's file:line. Nothing for a
parallelism a call or a setting read names (``apply_ddp``, ``context_parallel_degree``),
for a negated item, a to-do section, or a folder whose handling is not visible (fewer
than two of the named parallelisms found). ``Replicate()``, a tensor placement, is no DDP.
Fixture repositories, match and no-match."""

from __future__ import annotations

import re

from agentops.scout.analyses import docfeatures
from agentops.scout.analyses.docs import DocProblem
from tests.scout import minirepo

README = """\
# Sub

## Available features
- Dense model:
    - supports FSDP/HSDP, TP, CP, DDP.
- MoE model:
    - no PP support for the MoE model; DDP
"""
PARALLELIZE = """\
from core.dist import Replicate, apply_tp, fully_shard


def parallelize(model, parallelism):
    apply_tp(model, layout=Replicate())
    if parallelism.context_parallel_degree > 1:
        model.flag = True
    fully_shard(model)
"""


def _inp(tmp_path, readme=README, parallelize=PARALLELIZE):
    return minirepo.build(tmp_path, head={
        "core/__init__.py": "", "core/dist.py": "def apply_tp(m, layout=None):\n    return m\n",
        "sub/parallelize.py": parallelize, "sub/README.md": readme},
        target="docs: [sub/README.md]\n")


def _check(tmp_path, readme=README, parallelize=PARALLELIZE):
    return [(p.line, p.problem) for p in docfeatures.check(_inp(tmp_path, readme, parallelize))]


def _rendered(inp, problems) -> list[str]:
    """The report lines the findings become, as the job summary shows them."""
    from agentops.scout import render
    from agentops.scout.itemize import docs as itemize_docs

    return [render._plain(it) for it in itemize_docs.items(inp, {"doc_inaccuracies": [
        DocProblem(p.file, p.line, p.problem) for p in problems]})]


def test_a_claimed_parallelism_no_code_handles_is_possibly_stale(tmp_path) -> None:
    assert _check(tmp_path) == [(
        5, "the Available features section claims DDP (`supports FSDP/HSDP, TP, CP, DDP.`), "
           "but no code of the sub-project handles it (no call or setting naming "
           "ddp/replicate); possibly stale: drop it, or say where it is wired")]


def test_a_ddp_call_clears_the_claim(tmp_path) -> None:
    code = PARALLELIZE + "\n\ndef wrap(model):\n    return apply_ddp(model)\n"
    assert _check(tmp_path, parallelize=code) == []


def test_claims_without_visible_handling_or_in_a_todo_list_are_not_judged(tmp_path) -> None:
    # The folder hands its model to another module's plan: nothing here names TP or
    # FSDP, so a missing DDP call says nothing.
    assert _check(tmp_path, parallelize="def parallelize(model, plan):\n"
                                        "    return plan.run(model)\n") == []
    todo = "# Sub\n\n## Features to be added\n- FSDP, TP, DDP\n"
    assert _check(tmp_path / "t", readme=todo) == []
    negated = "# Sub\n\n## Supported features\n- FSDP, TP\n- not yet DDP\n"
    assert _check(tmp_path / "n", readme=negated) == []


def test_a_setting_read_counts_as_handling_context_parallelism(tmp_path) -> None:
    # CP is named in the list and handled only through the setting read: no CP finding.
    got = _check(tmp_path)
    assert not [text for _n, text in got if "context parallelism" in text]
    # Without that read, the CP claim is reported too.
    bare = PARALLELIZE.replace("parallelism.context_parallel_degree > 1", "model.ready")
    got = _check(tmp_path / "b", parallelize=bare)
    assert [n for n, text in got if "claims context parallelism" in text] == [5]


def test_a_doc_of_many_feature_sections_is_read_in_linear_time(tmp_path) -> None:
    """A README someone else wrote: tens of thousands of feature headings with their
    lists, and one item of a very long line. Each section's end was found over a copy of
    the later headings, quadratic (``test_scout_doctodotests`` times that scan alone);
    every claim is still found, and a long item's line costs no more than its length."""
    from tests import watchdog

    many = "## Features\n- FSDP, TP, DDP\n" * 20_000
    got = watchdog.within(watchdog.SECONDS, lambda: _check(tmp_path / "m", readme=many))
    assert [line for line, _p in got][:2] == [2, 4] and len(got) == 20_000
    long_item = "## Features\n- FSDP, TP, DDP " + "(`<" * 400_000 + "\n"
    got = watchdog.within(watchdog.SECONDS, lambda: _check(tmp_path / "l", readme=long_item))
    assert [line for line, _p in got] == [2]


def _strip_code_spans(markdown: str) -> str:
    """What GitHub renders as text: the line without its backtick code spans."""
    return re.sub(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", "", markdown)


def test_a_hostile_heading_and_item_are_rendered_inert(tmp_path) -> None:
    """Security (untrusted doc text): the finding quotes the section's heading and the
    item, which may carry a mention, a link, an image or HTML, and a backtick that
    closes the item's code span early; the report line shows them as inert text."""
    readme = ("# Sub\n\n## Features @maintainer <img src=x>\n- FSDP, TP\n"
              "- DDP ` @evil [x](https://evil.example) <b>bold</b> #12\n")
    inp = _inp(tmp_path, readme)
    problems = docfeatures.check(inp)
    assert [p.line for p in problems] == [5]
    lines = _rendered(inp, problems)
    shown = _strip_code_spans(lines[0])
    assert "DDP" in lines[0] and "evil" in shown
    for live in ("@evil", "@maintainer", "[x](", "https://", "<b>", "<img", " #12"):
        assert live not in shown, live


def test_an_empty_list_item_is_no_crash(tmp_path) -> None:
    """Malformed input (#22, no traceback): an empty item ("- ") matched the list form
    with nothing after the marker and left None for its text, which stopped the doc
    scans with a TypeError. Every list scan reads it as an empty item."""
    from agentops.scout.analyses import doclists, doctodotests

    readme = "# Sub\n\n## TODO\n- \n-\t\n\n## Features\n- \n- FSDP, TP, DDP\n|  |\n"
    inp = _inp(tmp_path, readme)
    assert [p.line for p in docfeatures.check(inp)] == [9]
    assert doclists.check(inp) == [] and doctodotests.check(inp) == []


def test_a_function_handed_over_by_name_counts_as_handling(tmp_path) -> None:
    # The folder registers another module's staging function in its spec and never calls
    # it: the pipeline claim is wired, no finding. Without that hand-over it is reported.
    readme = "# Sub\n\n## Supported features\n- FSDP, TP, PP\n"
    spec = PARALLELIZE + (
        "\n\nfrom core.stages import pipeline_stages\n\n"
        "SPEC = dict(build=parallelize, stager=pipeline_stages)\n")
    assert _check(tmp_path, readme=readme, parallelize=spec) == []
    kw = PARALLELIZE + "\n\nSPEC = dict(build=parallelize, pipelining_fn=None)\n"
    assert _check(tmp_path / "k", readme=readme, parallelize=kw) == []
    bare = PARALLELIZE + "\n\nSPEC = dict(build=parallelize)\n"
    got = _check(tmp_path / "b", readme=readme, parallelize=bare)
    assert [n for n, text in got if "claims pipeline parallelism" in text] == [4]


def test_a_backtick_in_the_heading_does_not_hide_the_claim(tmp_path) -> None:
    """Security and readability (untrusted doc text, review rev43): a lone backtick in the
    section's heading would pair with the item's code span and swallow the claim into a
    code span; the heading is quoted without it, so the claim stays readable text."""
    readme = "# Sub\n\n## Features ` @lead\n- FSDP, TP\n- DDP\n"
    inp = _inp(tmp_path, readme)
    problems = docfeatures.check(inp)
    assert [p.line for p in problems] == [5]
    [line] = _rendered(inp, problems)
    shown = _strip_code_spans(line)
    assert "section claims" in shown and "no code of the sub-project handles it" in shown
    assert "@lead" not in shown
