"""#22 defect 7: a doc's TODO and feature lists against what the sub-project's code
now wires — an item marked not done that the code now does, a parallelism list that
leaves out one the code wires — each with the call as evidence (file:line), and
nothing without evidence or for an item that names more than the capability.
Fixture repositories, match and no-match."""

from __future__ import annotations

from agentops.scout.analyses import doclists
from tests.scout import minirepo

PARALLELIZE = """\
from core.dist import apply_cp, apply_tp, fully_shard


def parallelize(model, dims):
    apply_tp(model)
    if dims.cp_enabled:
        apply_cp(model)
    fully_shard(model)
"""
README = """\
# Sub

## Supported features

- FSDP and TP (tested at debug scale)

## Further work

- Add CP support
- PP support for MoE
- Add LoRA support

| Feature | Status |
|---|---|
| Tensor Parallelism | ✅ |
| Context Parallelism | 🚧 |
"""


def _check(tmp_path, readme=README, parallelize=PARALLELIZE):
    inp = minirepo.build(tmp_path, head={
        "core/__init__.py": "", "core/dist.py": "def apply_cp(m):\n    pass\n",
        "sub/parallelize.py": parallelize, "sub/README.md": readme,
        "sub/tests/test_p.py": "from core.dist import apply_lora\napply_lora(1)\n"},
        target="docs: [sub/README.md]\n")
    return [(p.line, p.problem) for p in doclists.check(inp)]


def test_items_the_code_now_wires_are_possibly_stale(tmp_path) -> None:
    assert _check(tmp_path) == [
        (9, "`Add CP support` is listed as not done, but the sub-project now wires context "
            "parallelism: `apply_cp(…)` at sub/parallelize.py:7; possibly stale: update the "
            "list if it is done"),
        (16, "`Context Parallelism | 🚧` is listed as not done, but the sub-project now "
             "wires context parallelism: `apply_cp(…)` at sub/parallelize.py:7; possibly "
             "stale: update the list if it is done"),
        (3, "the Supported features section names tensor parallelism, FSDP but not context "
            "parallelism, which the sub-project wires (`apply_cp(…)` at "
            "sub/parallelize.py:7); possibly stale: add it if it is supported")]


def test_no_finding_without_evidence_or_for_a_qualified_item(tmp_path) -> None:
    # CP not wired (only checked in a condition): no evidence, nothing stale. LoRA is
    # wired only in a test; "PP support for MoE" names more than the capability.
    no_cp = PARALLELIZE.replace("        apply_cp(model)\n", "        raise ValueError\n")
    assert _check(tmp_path, parallelize=no_cp) == []
    listed = README.replace("- FSDP and TP", "- FSDP, TP and CP")
    assert [p for p in _check(tmp_path / "b", readme=listed) if p[0] == 3] == []


def test_an_example_heading_naming_parallelisms_is_no_feature_list(tmp_path) -> None:
    """"Training with 2D parallelism (FSDP and TP)" shows a command; it does not claim
    the supported set. A features section whose only mentions are in prose or code
    is no list either."""
    readme = ("# Sub\n\n## Training with 2D parallelism (FSDP and TP)\n\n```bash\n"
              "./run.sh --tp 2\n```\n\n## Supported features\n\nFSDP and TP are "
              "tested.\n\n```bash\n# FSDP and TP\n```\n")
    assert _check(tmp_path, readme=readme) == []


def test_a_function_handed_over_to_be_called_wires_its_capability(tmp_path) -> None:
    # A model spec passes the pipelining function by reference (`pipelining_fn=…`): the
    # code wires pipeline parallelism though it never calls the function itself. Only
    # importing it is no evidence.
    spec = PARALLELIZE + ("\n\nfrom core.dist import pipeline_llm\n\n\n"
                          "def spec():\n    return dict(pipelining_fn=pipeline_llm)\n")
    problems = _check(tmp_path, parallelize=spec)
    assert (3, "the Supported features section names tensor parallelism, FSDP but not "
               "context parallelism, which the sub-project wires (`apply_cp(…)` at "
               "sub/parallelize.py:7); possibly stale: add it if it is supported") in problems
    assert any(line == 3 and "not pipeline parallelism" in text and
               "`pipeline_llm(…)` at sub/parallelize.py:15" in text
               for line, text in problems), problems
    imported_only = PARALLELIZE + "\n\nfrom core.dist import pipeline_llm  # noqa\n"
    assert not any("pipeline" in text for _l, text in
                   _check(tmp_path / "b", parallelize=imported_only))


def test_a_reason_clause_does_not_narrow_a_not_supported_item(tmp_path) -> None:
    # "CP is not supported currently because of …" says why CP is missing; the item
    # still names CP alone. A scope ("for MoE") before the reason still narrows it, and
    # a capability named only inside the reason is not the item's subject.
    readme = ("# Sub\n\n## To be added\n- Modeling\n    - CP is not supported currently "
              "because of RoPE embedding implementation details.\n"
              "    - CP for MoE is not supported, due to the router.\n"
              "    - Sequence packing is not supported because of CP.\n")
    assert _check(tmp_path, readme=readme) == [
        (5, "`CP is not supported currently because of RoPE embedding implementation "
            "details.` is listed as not done, but the sub-project now wires context "
            "parallelism: `apply_cp(…)` at sub/parallelize.py:7; possibly stale: update "
            "the list if it is done")]
    # Without the call that wires CP, nothing.
    no_cp = PARALLELIZE.replace("        apply_cp(model)\n", "        raise ValueError\n")
    assert _check(tmp_path / "b", readme=readme, parallelize=no_cp) == []


def test_wired_skips_a_file_that_does_not_parse_and_reads_the_rest(tmp_path) -> None:
    # A file mid-rewrite (a syntax error) must not stop the scan or the report.
    inp = minirepo.build(tmp_path, head={
        "sub/__init__.py": "", "sub/broken.py": "def f(:\n",
        "sub/moe.py": "from core.dist import apply_moe_ep\n\n\ndef p(m):\n"
                      "    apply_moe_ep(m)\n",
        "core/__init__.py": "", "core/dist.py": "def apply_moe_ep(m):\n    return m\n"},
        target="docs: []\n")
    assert doclists.wired(inp) == {"expert parallelism": ("sub/moe.py", 5, "apply_moe_ep")}


def test_each_name_of_the_expert_parallel_step_wires_expert_parallelism(tmp_path) -> None:
    # The combined EP+TP step alone wires it as surely as the EP-only steps.
    for k, callee in enumerate(("apply_moe_ep_tp", "apply_moe_ep", "apply_ep")):
        inp = minirepo.build(tmp_path / str(k), head={
            "sub/__init__.py": "",
            "sub/moe.py": f"from core.dist import {callee}\n\n\ndef p(m):\n    {callee}(m)\n",
            "core/__init__.py": "", "core/dist.py": f"def {callee}(m):\n    return m\n"},
            target="docs: []\n")
        assert doclists.wired(inp) == {"expert parallelism": ("sub/moe.py", 5, callee)}


def test_each_pending_mark_alone_makes_an_item_outside_a_todo_section_pending() -> None:
    # Under a plain heading only the item's own mark says it is still to do.
    marks = ["🚧", "❌", "[ ]", "TODO", "to be added", "not yet", "coming soon", "WIP",
             "planned"]
    lines = ["# Notes", *(f"- widget {m} here" for m in marks), "- widget done here"]
    got = list(doclists.pending_items(lines, doclists._sections(lines)))
    assert got == [(k + 2, f"widget {m} here") for k, m in enumerate(marks)]


def test_every_list_marker_and_a_table_row_are_items() -> None:
    lines = ["## TODO", "1. widget one", "2) widget two", "3: not an item", "* widget four",
             "+ widget five", "- widget six", "| widget seven | soon |"]
    got = list(doclists.pending_items(lines, doclists._sections(lines)))
    assert got == [(2, "widget one"), (3, "widget two"), (5, "widget four"),
                   (6, "widget five"), (7, "widget six"), (8, " widget seven | soon ")]


def test_each_done_mark_alone_takes_an_item_out_of_a_todo_section() -> None:
    done = ["- widget ✅", "- widget ✔", "- [x] widget", "- [X] widget", "| widget | yes |",
            "| widget | Done |"]
    lines = ["## TODO", *done, "- widget left"]
    got = list(doclists.pending_items(lines, doclists._sections(lines)))
    assert got == [(len(done) + 2, "widget left")]


def test_one_module_wires_a_capability_by_calling_or_handing_over_its_function() -> None:
    tp = next(c for c in doclists.CAPABILITIES if c.name == "tensor parallelism")
    assert doclists.wires("def f(m):\n    return apply_tp(m)\n", tp)
    assert doclists.wires("def f(m):\n    return dist.apply_tp(m)\n", tp)
    assert doclists.wires("def f(m):\n    return Spec(fn=apply_tp)\n", tp)
    assert doclists.wires("def f(m):\n    return run(apply_tp, m)\n", tp)
    # A mention (a degree it reads, a name in a string), a call of something else, a
    # module that does not parse: nothing wired.
    assert not doclists.wires("def f(cfg):\n    return log('apply_tp', cfg.tp_degree)\n", tp)
    assert doclists.wires("def f(m):\n    apply_tp(\n", tp) is False
