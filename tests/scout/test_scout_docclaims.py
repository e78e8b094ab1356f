"""Docs checked against the code (issue #9, finding 6): ``Class.attr`` in backticks,
counted claims against the ``Literal``, a support table against the call sites that
leave a feature out, and passes, runners and models no doc mentions. Small fixture
repositories, match and no-match."""

from __future__ import annotations

from agentops.scout.analyses import docclaims, docs
from agentops.scout.analyses.duplicates import CallDrift, Divergence
from tests import watchdog
from tests.scout import minirepo

TARGET = """\
docs: [sub/README.md]
doc_config_roots: [{name: Root, file: sub/cfg.py}]
models_dir: core/models
coverage:
  config_registry_name: config_registry.py
  passes_file: sub/passes.py
"""
CFG = """\
    from dataclasses import dataclass, field
    from typing import Literal


    @dataclass
    class Compile:
        mode: Literal["jit", "aot", "fx"] = "aot"


    @dataclass
    class Checkpoint:
        mode: Literal["full", "none"] = "none"


    @dataclass
    class Root:
        compile: Compile = field(default_factory=Compile)
        checkpoint: Checkpoint = field(default_factory=Checkpoint)

        class Config:
            steps: int = 1

        def build(self):
            return 1
"""


def _claims(tmp_path, readme: str, extra: dict | None = None, **kw):
    files = {"sub/cfg.py": CFG, "sub/README.md": readme, **(extra or {})}
    inp = minirepo.build(tmp_path, head=files, target=TARGET)
    return [(c.line, c.kind, c.problem) for c in docclaims.check(
        inp, gaps=kw.get("gaps", {}), passes=kw.get("passes", []),
        runners=kw.get("runners", []))]


def test_counted_claim_against_the_literal(tmp_path) -> None:
    got = _claims(tmp_path, "Two compilation modes are supported.\n")
    assert got == [(1, "count", "says Two compilation modes, but `--compile.mode` accepts 3: "
                                "jit, aot, fx")]


def test_counted_claim_that_is_right_or_ambiguous_says_nothing(tmp_path) -> None:
    # Three compile modes is right; "two modes" matches two Literal fields (ambiguous).
    assert _claims(tmp_path, "Three compilation modes. Two modes, or 8 GPUs.\n") == []


def test_class_attributes_named_in_backticks(tmp_path) -> None:
    readme = "Set `Root.Config.steps`, call `Root.build()`; not `Root.Config.epochs`.\n"
    assert _claims(tmp_path, readme) == [
        (1, "attribute", "`Root.Config.epochs`: Root.Config has no attribute 'epochs'")]
    # A class outside the repository is left alone.
    assert _claims(tmp_path / "b", "See `torch.Tensor.size` and `Outside.thing`.\n") == []


def test_support_table_against_call_sites_that_leave_the_feature_out(tmp_path) -> None:
    table = ("| Feature | Support |\n| :--: | :--: |\n|Context Parallelism| ✅ |\n"
             "|Tensor Parallelism| ✅ |\n|Pipeline Parallelism| 🚧 |\n")
    gaps = docs.feature_gaps({
        "call_drift": [CallDrift("apply_tp", "sub/par.py:9", "core/par.py:8",
                                 ("enable_cp",))],
        "divergences": [Divergence("sub/par.py:5", "core/par.py:4", "parallelize",
                                   "parallelize", calls=("apply_cp_to_attention",))]})
    got = _claims(tmp_path, table, gaps=gaps)
    assert len(got) == 1 and got[0][:2] == (3, "table")
    assert "marks Context Parallelism ✅" in got[0][2] and "sub/par.py:9" in got[0][2]
    assert _claims(tmp_path / "b", table) == []  # no gap: the table stands


def test_registered_passes_runners_and_models_no_doc_mentions(tmp_path) -> None:
    passes = ("def a_pass(gm):\n    return gm\n\n\ndef b_pass(gm):\n    return gm\n\n\n"
              "REGISTRY = {'alpha': a_pass, 'beta': b_pass}\n")
    extra = {"sub/passes.py": passes, "sub/tests/test_x.py": "def test_x():\n    pass\n",
             "sub/llama/config_registry.py": "", "core/models/llama/model.py": "",
             "sub/tools/config_registry.py": ""}  # no upstream model: not a model folder
    readme = "Use `--compile.passes alpha`. Run `pytest sub/tests/test_x.py`.\n"
    got = _claims(tmp_path, readme, extra, passes=[("a_pass", "sub/passes.py", 1),
                                                   ("b_pass", "sub/passes.py", 5)],
                  runners=["sub/tests/run_all.py"])
    problems = [p for _l, kind, p in got if kind == "undocumented"]
    assert problems == ["1 registered graph pass(es) no doc mentions: b_pass (`beta`)",
                        "test runner(s) no doc mentions: `sub/tests/run_all.py`",
                        "model folder(s) no doc mentions: `llama`"]


def test_docs_that_document_neither_passes_nor_tests_are_not_asked_to(tmp_path) -> None:
    passes = "def a_pass(gm):\n    return gm\n\n\nREGISTRY = {'alpha': a_pass}\n"
    got = _claims(tmp_path, "# Sub\n\nA project about llama.\n", {"sub/passes.py": passes},
                  passes=[("a_pass", "sub/passes.py", 1)], runners=["sub/tests/run_all.py"])
    assert got == []


def test_a_doc_of_blank_lines_is_scanned_for_config_bindings_in_linear_time() -> None:
    # Security: the doc's own ``cfg = …`` is still found after 100,000 blank lines that
    # no line start rescans (a watchdog, not a speed target: minutes with ``^\s*``).
    text = "\n" * 100_000 + "x\ncfg = ParallelismConfig()\n"
    assert watchdog.within(watchdog.SECONDS, lambda: docs._bound_names(text)) == {"cfg"}


def test_a_doc_of_annotated_lines_without_a_value_is_scanned_in_linear_time() -> None:
    # ``config:`` lines (a YAML block) with no ``=`` after them bind nothing; each used
    # to be read on to the end of the doc. The annotated binding after them counts.
    text = "config:\n" * 100_000 + "x == 1\ncfg: JobConfig = JobConfig()\nconf == 2\n"
    assert watchdog.within(watchdog.SECONDS, lambda: docs._bound_names(text)) == {"cfg"}
