"""#22 defect 7: docs resolved against the code — imports in a doc's code blocks,
class names that were renamed, usage comments in scripts that name files that do not
exist — and "docs are current" only when every kind of claim was checked (a TODO list
or a feature list is named as not checked). Fixture repositories, match and no-match."""

from __future__ import annotations

import dataclasses

from agentops.scout import render
from agentops.scout.analyses import docnames
from agentops.scout.model import Baseline, Report
from tests.scout import minirepo

LIB = '''\
class GraphTrainerCompileConfig:
    pass


def build(model):
    return model
'''
README = '''\
# Sub

```python
from core.lib import build, bulid
from core.lib import GraphTrainerCompileConfig
import core.nope
from torch.distributed.fsdp import FSDPModule
```

Configure `GraphTrainerCompileConfg` (a typo of a renamed class), wrap with `FSDPModule`.
'''
SCRIPT = '''\
# Usage: python sub/run_gone.py --steps 2
# Example: python -m sub.runner
import sys
'''


def _inp(tmp_path, readme: str = README, extra: dict | None = None):
    return minirepo.build(tmp_path, head={
        "core/__init__.py": "", "core/lib.py": LIB, "sub/__init__.py": "",
        "sub/runner.py": SCRIPT, "sub/README.md": readme, **(extra or {})},
        target="docs: [sub/README.md]\n")


def test_imports_renamed_classes_and_usage_lines_are_checked(tmp_path) -> None:
    found = {(p.file, p.line, p.problem) for p in docnames.check(_inp(tmp_path))}
    assert ("sub/README.md", 4, "`from core.lib import bulid`: core.lib does not define "
                                "bulid; it defines `build`") in found
    assert ("sub/README.md", 6, "`import core.nope`: no such module") in found
    assert ("sub/README.md", 10, "`GraphTrainerCompileConfg` is defined nowhere in the "
                                 "repository; renamed to `GraphTrainerCompileConfig`?") in found
    assert ("sub/runner.py", 1, "usage names `sub/run_gone.py`, which does not exist") in found
    # No match: names that resolve, another package's class, a module that exists.
    text = " ".join(p for _f, _l, p in found)
    assert "import build" not in text and "FSDPModule" not in text
    assert "sub.runner" not in text and "GraphTrainerCompileConfig`:" not in text


def test_docs_are_current_only_when_every_kind_of_claim_was_checked(tmp_path) -> None:
    clean = "# Sub\n\nCall `build` from `core/lib.py`.\n"
    with_todo = clean + "\n## TODO\n\n- [ ] wire up the new backend\n"
    assert [p for p in docnames.check(_inp(tmp_path / "a", clean)) if p.file.endswith(".md")] \
        == []
    [todo] = [p for p in docnames.check(_inp(tmp_path / "b", with_todo))
              if p.kind == "unverified"]
    assert (todo.line, todo.problem) == (5, "todo list")

    def status(problems: list[dict]) -> str:
        rep = Report(date="2026-03-06", target="t", baseline=Baseline("x", "first run", None),
                     head="h", items=(), resolved=(), suppressed=(),
                     analyses={"doc_inaccuracies": problems, "docs_checked": True})
        return render._docs_status(rep)

    assert status([]) == "- docs are current"
    said = status([{"file": "sub/README.md", "line": 5, "problem": "todo list",
                    "kind": "unverified"}])
    assert "docs are current" not in said
    assert "not checked against the code: todo list (sub/README.md:5)" in said


def test_a_class_the_doc_defines_itself_is_the_readers(tmp_path) -> None:
    readme = ("# Sub\n\n```python\nclass GraphTrainerCompileConfg(GraphTrainerCompileConfig):"
              "\n    pass\n```\n")
    assert [p for p in docnames.check(_inp(tmp_path, readme)) if p.file.endswith(".md")] == []


TRAINERS = '''\
class Trainer:
    def step(self):
        pass
'''


def test_a_symbol_placed_in_the_wrong_file_names_the_right_one(tmp_path) -> None:
    readme = ("# Sub\n\nUse the `Trainer` class from [lib.py](../core/lib.py).\n"
              "Call `build()` in `core/trainers.py` first.\n"
              "The `Trainer` class from [core/lib.py](https://github.com/o/r/blob/main/"
              "core/lib.py#L1) and `Trainer` in [core/lib.py](https://example.org/x).\n")
    extra = {"core/trainers.py": TRAINERS}
    found = [(p.line, p.problem) for p in docnames.check(_inp(tmp_path, readme, extra))
             if p.file == "sub/README.md"]
    assert found == [
        (3, "`Trainer` is not defined in `../core/lib.py`; it is defined in "
            "core/trainers.py:1: point the sentence there"),
        (4, "`build` is not defined in `core/trainers.py`; it is defined in "
            "core/lib.py:5: point the sentence there"),
        (5, "`Trainer` is not defined in `core/lib.py`; it is defined in "
            "core/trainers.py:1: point the sentence there")]


def test_a_symbol_in_its_own_file_or_defined_nowhere_is_no_misplacement(tmp_path) -> None:
    readme = ("# Sub\n\nUse the `Trainer` class from [trainers.py](../core/trainers.py), "
              "`build()` in `core/lib.py`, `Missing` from `core/lib.py`, and `Trainer`, "
              "which `core/lib.py` imports.\n")
    extra = {"core/trainers.py": TRAINERS}
    assert [p.problem for p in docnames.check(_inp(tmp_path, readme, extra))
            if "not defined in" in p.problem] == []


def test_a_renamed_class_in_plain_prose_is_found(tmp_path) -> None:
    """#22: CamelCase words of plain prose are class names too, when the code does
    not even mention them; product names the code's comments mention are left alone."""
    readme = ("# Sub\n\nThe GraphTrainerCompileConfg holds the passes; PyTorch and "
              "GitHub run it, see [the notes](https://x.io/"
              "GraphTrainerCompileConfh).\n")
    extra = {"core/notes.py": "# Built on PyTorch, hosted on GitHub\n"}
    found = [(p.line, p.problem) for p in docnames.check(_inp(tmp_path, readme, extra))
             if p.file == "sub/README.md"]
    assert found == [(3, "`GraphTrainerCompileConfg` is defined nowhere in the repository; "
                         "renamed to `GraphTrainerCompileConfig`?")]


def test_prose_names_the_code_defines_or_mentions_are_no_finding(tmp_path) -> None:
    readme = ("# Sub\n\nThe GraphTrainerCompileConfig holds the passes; the old "
              "GraphTrainerCompileConfigs name lives on in a comment.\n")
    extra = {"core/notes.py": "# GraphTrainerCompileConfigs was the old name\n"}
    assert [p for p in docnames.check(_inp(tmp_path, readme, extra))
            if p.file == "sub/README.md"] == []


def test_a_file_that_only_imports_the_symbol_does_not_define_it(tmp_path) -> None:
    """#22 item 2: "the `Trainer` class from [core/train.py](/core/train.py)" where
    train.py only imports it (a root-relative link, as GitHub renders it): an import is
    not a definition; the file it is imported from is the one to point at, first."""
    entry = "from core.trainers import Trainer\n\n\ndef main():\n    Trainer().step()\n"
    other = "class Trainer:\n    pass\n"  # another Trainer, elsewhere: named second
    readme = ("# Sub\n\nA subset of the `Trainer` class from [core/train.py](/core/train.py).\n"
              "`Trainer` (defined in `core/train.py`) steps.\n")
    extra = {"core/trainers.py": TRAINERS, "core/train.py": entry, "aaa/t.py": other}
    found = [(p.line, p.problem) for p in docnames.check(_inp(tmp_path / "a", readme, extra))
             if p.file == "sub/README.md"]
    assert found == [
        (3, "`Trainer` is only imported in `/core/train.py`; it is defined in "
            "core/trainers.py:1, aaa/t.py:1: point the sentence there"),
        (4, "`Trainer` is only imported in `core/train.py`; it is defined in "
            "core/trainers.py:1, aaa/t.py:1: point the sentence there")]
    # No match: the file that defines it (root-relative link too), a package that
    # re-exports it, a module that publishes it in __all__.
    fine = ("# Sub\n\nThe `Trainer` class from [core/trainers.py](/core/trainers.py), "
            "`Trainer` from `core/__init__.py`, `Trainer` defined in `core/api.py`.\n")
    extra = {"core/trainers.py": TRAINERS, "core/__init__.py": entry,
             "core/api.py": entry + "\n__all__ = ['Trainer']\n"}
    assert [p.problem for p in docnames.check(_inp(tmp_path / "b", fine, extra))
            if p.file == "sub/README.md"] == []


def test_docs_of_the_sub_project_the_target_does_not_list_are_not_current(tmp_path) -> None:
    """#22 item 2: a README in the sub-project that `docs` leaves out was never read:
    the Docs status names it as not checked instead of "docs are current"."""
    inp = _inp(tmp_path / "a", "# Sub\n", {"sub/guide/USAGE.md": "# Old usage\n"})
    problems = [p for p in docnames.check(inp) if p.kind == "unverified"]
    assert [(p.file, p.problem) for p in problems] == [("sub/guide/USAGE.md",
                                                        docnames.UNLISTED)]
    rep = Report(date="2026-03-06", target="t", baseline=Baseline("x", "first run", None),
                 head="h", items=(), resolved=(), suppressed=(),
                 analyses={"doc_inaccuracies": [p.__dict__ for p in problems],
                           "docs_checked": True})
    said = render._docs_status(rep)
    assert "docs are current" not in said and "`sub/guide/USAGE.md`" in said
    # No match: every Markdown file of the sub-project is listed, or lives elsewhere.
    inp = _inp(tmp_path / "b", "# Sub\n", {"core/NOTES.md": "# Core\n"})
    assert [p for p in docnames.check(inp) if p.kind == "unverified"] == []


def test_a_sentence_limiting_support_is_a_claim_not_checked(tmp_path) -> None:
    """#22 defect 7: "we only support HF -> DCP" is a claim about the code the scout
    does not verify; the Docs status quotes it as not checked instead of "docs are
    current". The same words in a code block, or no such sentence, change nothing."""
    doc = ("# Sub\n\nConversion. Currently, we only support conversion from HF to DCP "
           "offline.\n\n```bash\npython convert.py --reshard  # resharding is not supported"
           "\n```\n")
    inp = _inp(tmp_path / "a", doc)
    problems = [p for p in docnames.check(inp) if p.kind == "unverified"]
    assert [(p.file, p.line) for p in problems] == [("sub/README.md", 3)]
    assert "we only support conversion from HF to DCP" in problems[0].problem
    rep = Report(date="2026-03-06", target="t", baseline=Baseline("x", "first run", None),
                 head="h", items=(), resolved=(), suppressed=(),
                 analyses={"doc_inaccuracies": [p.__dict__ for p in problems],
                           "docs_checked": True})
    said = render._docs_status(rep)
    assert "docs are current" not in said and "sub/README.md:3" in said
    plain = "# Sub\n\nConversion from HF to DCP and back.\n"
    assert [p for p in docnames.check(_inp(tmp_path / "b", plain))
            if p.kind == "unverified"] == []


def test_a_quoted_support_claim_is_shown_inert(tmp_path) -> None:
    """Security (untrusted doc text): the quoted sentence may carry a mention, a link or
    HTML; the Docs status shows it as inert text."""
    doc = ("# Sub\n\nAsk @maintainer first: we only support <b>HF</b> at "
           "https://evil.example/x for now.\n")
    problems = [p for p in docnames.check(_inp(tmp_path, doc)) if p.kind == "unverified"]
    rep = Report(date="2026-03-06", target="t", baseline=Baseline("x", "first run", None),
                 head="h", items=(), resolved=(), suppressed=(),
                 analyses={"doc_inaccuracies": [p.__dict__ for p in problems],
                           "docs_checked": True})
    said = render._docs_status(rep)
    assert "only support" in said
    assert "@maintainer" not in said and "https://evil" not in said and "<b>" not in said


def test_a_function_the_window_removed_is_named(tmp_path) -> None:
    """A code span naming a function the code defined at the baseline and names nowhere
    at HEAD is stale; one still defined, one still used elsewhere (a re-export kept), and
    one defined at neither commit (a field, a variable) are not."""
    core_base = LIB + "\n\ndef apply_moe_ep_tp(model):\n    return model\n\n\n" \
                      "def apply_kept(model):\n    return model\n"
    core_head = LIB + "\n\ndef apply_kept_v2(model):\n    return model\n"
    readme = ("# Sub\n\n- (MoE) call `apply_moe_ep_tp` for experts.\n"
              "- then `apply_kept(model)`, set `param_init`, and `build(model)`.\n")
    user = "from core.lib import build\n\nalias = 'apply_kept'\n"
    files = {"core/__init__.py": "", "sub/__init__.py": "", "sub/README.md": readme,
             "sub/user.py": user}
    inp = minirepo.build(tmp_path, base={**files, "core/lib.py": core_base},
                         head={"core/lib.py": core_head}, target="docs: [sub/README.md]\n")
    found = [(p.line, p.problem) for p in docnames.check(inp) if "no longer" in p.problem]
    assert [(line, "`apply_moe_ep_tp`" in problem) for line, problem in found] == [(3, True)]
    # No baseline commit: nothing to compare with, nothing said.
    inp = minirepo.build(tmp_path / "b", head={**files, "core/lib.py": core_head},
                         target="docs: [sub/README.md]\n")
    assert not [p for p in docnames.check(inp) if "no longer" in p.problem]


def test_a_feature_placed_in_a_file_that_never_mentions_it(tmp_path) -> None:
    """"CP is enabled via a context manager in `core/train.py`" while train.py never
    mentions CP: stale. No match: the file names it inside a longer name (apply_cp),
    a sentence with no abbreviation, a shouted word (NOTE), a file that does not exist
    (the path check's business)."""
    train = "def main():\n    run()\n"
    par = "def apply_cp_to_forward(model):\n    return model\n"
    readme = ("# Sub\n\n"
              "- NOTE: CP support is enabled via a context manager in `core/train.py`.\n"
              "- CP is wired per model in `core/par.py`.\n"
              "- Training starts in `core/train.py`.\n"
              "- NOTE: see the loop in `core/train.py`.\n"
              "- FSDP is applied in `core/gone.py`.\n")
    inp = _inp(tmp_path, readme, {"core/train.py": train, "core/par.py": par})
    found = [(p.line, p.problem) for p in docnames.check(inp) if "never mentions" in p.problem]
    assert found == [(3, "places CP in `core/train.py`, which never mentions CP: the claim "
                         "is stale or points at the wrong file")]


def test_a_feature_placed_in_a_file_that_no_longer_applies_it(tmp_path) -> None:
    """"TP is switched on by a hook in `core/engine.py`": the engine still mentions TP
    (a degree it reads) but calls nothing that applies it, while the folder's own code
    does (`apply_tp`): the work moved into the folder. No match: a file that applies it
    itself, a folder that applies nothing, a capability the folder does not wire."""
    engine = "def step(cfg):\n    return cfg.tp_degree\n"
    hooked = "def step(cfg, model):\n    return parallelize_module(model, cfg.tp_degree)\n"
    shard = "def shard(model):\n    return apply_tp(model)\n"
    readme = ("# Sub\n\n"
              "- TP is switched on by a hook in `core/engine.py`.\n"
              "- TP is switched on by a hook in `core/hooked.py`.\n"
              "- PP is switched on by a hook in `core/engine.py`, with pp_degree.\n")
    extra = {"core/engine.py": engine + "PP = 'pp_degree'\n", "core/hooked.py": hooked}
    inp = _inp(tmp_path / "a", readme, {**extra, "sub/shard.py": shard})
    found = [(p.line, p.problem) for p in docnames.check(inp) if "no call" in p.problem]
    assert found == [(3, "places TP in `core/engine.py`, which makes no call that applies "
                         "it, while the folder's own code does (`sub/shard.py:2` calls "
                         "`apply_tp`): the claim is stale, the folder does the work the "
                         "sentence puts elsewhere")]
    # The folder applies nothing itself: the sentence may well be right.
    inp = _inp(tmp_path / "b", readme, extra)
    assert not [p for p in docnames.check(inp) if "no call" in p.problem]


def test_names_the_code_renamed_by_one_word(tmp_path) -> None:
    """A doc line tells readers to write `fill_<model>_layout_plan` and to reuse
    `pack_layout_plan` and `row_plan`; nothing in the code spells them, the folder's code
    has `fill_sub_layout_rule`, `pack_layout_rule` and `row_rule`: one word changed for
    all. No match: a name the code spells, a lone two-word name (one word apart is weak
    evidence there), a size in a name (`cfg_8b` against `cfg_70b`)."""
    code = ("from core.lib import pack_layout_rule, row_rule\n\n\n"
            "def fill_sub_layout_rule(cfg):\n    cfg.row = row_rule()\n"
            "    return pack_layout_rule(cfg)\n\n\ncfg_70b = None\n")
    readme = ("# Sub\n\n"
              "- Define `fill_<model>_layout_plan(cfg, *, wide)`; reuse `pack_layout_plan`"
              " and `row_plan`.\n"
              "- Reuse `pack_layout_rule` as it is.\n"
              "- Set `row_plan` on each part.\n"
              "- Start from `cfg_8b`.\n")
    inp = _inp(tmp_path, readme, {"sub/layout.py": code})
    found = [(p.line, p.problem) for p in docnames.check(inp) if "one word" in p.problem]
    assert found == [(3, "names `fill_sub_layout_plan`, `pack_layout_plan`, `row_plan`, which "
                         "no code of the repository spells at HEAD, while the folder's own "
                         "code has `fill_sub_layout_rule`, `pack_layout_rule`, `row_rule` (one "
                         "word apart): the code renamed what the doc still tells readers to "
                         "use")]


def test_a_signature_the_folder_changed(tmp_path) -> None:
    """"Define `make_spec(kind)`" while the folder's `make_spec` takes `kind` and
    `width`: the doc's signature is out of date. No match: the same parameters, an
    elided list, an empty call, a dotted name, a `**kwargs` signature."""
    code = ("def make_spec(kind, width=2):\n    return kind, width\n\n\n"
            "def pack(a, b):\n    return a, b\n\n\n"
            "def loose(a, **rest):\n    return a\n")
    readme = ("# Sub\n\n"
              "- Define `make_spec(kind)` to return the spec.\n"
              "- Call `pack(a, b)`, `pack(a, ...)`, `pack()` or `obj.pack(a)`.\n"
              "- Call `loose(a)`.\n")
    inp = _inp(tmp_path, readme, {"sub/spec.py": code})
    found = [(p.line, p.problem) for p in docnames.check(inp) if "signature" in p.problem]
    assert found == [(3, "documents `make_spec(kind)`, but the folder's `make_spec` "
                         "(`sub/spec.py:1`) takes (kind, width): it also takes `width`; the "
                         "signature the doc shows is out of date")]


def test_a_rule_scoped_to_one_value_the_code_groups_with_another(tmp_path) -> None:
    """"Under `--run.mode fast`, order the axes" while the folder's code takes `lean`
    into the same branch (`cfg.mode in ("fast", "lean")`): the rule applies to both.
    No match: a line naming both values, a value the code tests alone, a flag given
    without a scoping word."""
    code = ("def setup(cfg):\n    if cfg.mode in (\"fast\", \"lean\"):\n"
            "        return 1\n    if cfg.kind == \"wide\":\n        return 2\n"
            "    return 0\n")
    readme = ("# Sub\n\n"
              "- Under `--run.mode fast`, order the axes outer to inner.\n"
              "- With `--run.mode fast` or `lean`, order the axes.\n"
              "- Under `--run.kind wide`, keep one axis.\n"
              "- Pass `--run.mode fast` to go faster.\n")
    inp = _inp(tmp_path, readme, {"sub/setup.py": code})
    found = [(p.line, p.problem) for p in docnames.check(inp) if "states a rule" in p.problem]
    assert found == [(3, "states a rule for `--run.mode fast` only, while the folder's code "
                         "treats `lean` the same (`sub/setup.py:2` tests `mode` in fast, "
                         "lean): the rule applies to those values too, or the doc says why "
                         "not")]


def test_a_scoped_rule_names_only_short_setting_values_and_at_most_eight(tmp_path) -> None:
    """Repository strings reach the item's title: a string that is no setting value (a
    sentence, an overlong word) is left out of the group, and a long group is cut."""
    long_word = "x" * 41
    many = ", ".join(f'"v{i}"' for i in range(12))
    code = (f"def setup(cfg):\n    if cfg.mode in (\"fast\", \"see the docs now\", "
            f"\"{long_word}\", \"lean\"):\n        return 1\n"
            f"    if cfg.kind in (\"wide\", {many}):\n        return 2\n    return 0\n")
    readme = ("# Sub\n\n- Under `--run.mode fast`, order the axes.\n"
              "- Under `--run.kind wide`, keep one axis.\n")
    found = {p.line: p.problem for p in docnames.check(_inp(tmp_path, readme,
                                                            {"sub/setup.py": code}))
             if "states a rule" in p.problem}
    assert "tests `mode` in fast, lean)" in found[3]
    assert "see the docs" not in found[3] and long_word not in found[3]
    assert "tests `kind` in wide, v0, v1, v2, v3, v4, v5, v6)" in found[4]


def test_a_limit_stated_as_temporary_is_a_claim_not_checked(tmp_path) -> None:
    """"(single-turn only for now)" limits what the code does, like "only supports":
    quoted as not checked. "only" in other phrasings ("only the trainer", "for now
    only the loop runs") is not such a sentence."""
    doc = ("# Sub\n\n1. **Loop** (`train.py`): GRPO training (single-turn only for now)\n"
           "2. Only the trainer logs metrics.\n3. For now only the loop runs on GPUs.\n")
    problems = [p for p in docnames.check(_inp(tmp_path, doc)) if p.kind == "unverified"]
    assert [(p.line, "single-turn only for now" in p.problem) for p in problems] == [(3, True)]


def test_renamed_names_in_a_middle_word_by_a_short_word_in_a_nested_folder(
        tmp_path) -> None:
    """The word changed is inside the name (`stack_wide_table` -> `stack_map_table`),
    the new word has three letters, the ``<model>`` placeholder is the last part of a
    nested folder's path. No match: a name the code spells, given with arguments."""
    code = ("def stack_map_table(cfg):\n    return cfg\n\n\n"
            "def fill_deep_map_table(cfg):\n    return cfg\n\n\ndef keep_rows(x):\n"
            "    return x\n")
    readme = ("# Deep\n\n- Define `fill_<model>_wide_table`; reuse `stack_wide_table`.\n"
              "- Call `keep_rows(x)`, and `keep_cols(x)` after it.\n")
    inp = minirepo.build(tmp_path, head={"pkg/__init__.py": "", "pkg/deep/__init__.py": "",
                                         "pkg/deep/tables.py": code,
                                         "pkg/deep/README.md": readme},
                         target="docs: [pkg/deep/README.md]\n")
    inp = dataclasses.replace(inp, target=dataclasses.replace(inp.target,
                                                              subproject="pkg/deep"))
    found = [(p.line, p.problem) for p in docnames.check(inp) if "one word" in p.problem]
    assert found == [(3, "names `fill_deep_wide_table`, `stack_wide_table`, which no code "
                         "of the repository spells at HEAD, while the folder's own code has "
                         "`fill_deep_map_table`, `stack_map_table` (one word apart): the "
                         "code renamed what the doc still tells readers to use")]


def test_no_signature_claim_on_varargs_and_no_scoped_rule_on_not_in(tmp_path) -> None:
    """`spread(a, b)` against ``def spread(a, *rest)`` is no changed signature; a value
    the code excludes (``not in``) is no group; set literals group values (in a file
    with no other group), and a flag the code groups twice is said once."""
    code = ("def spread(a, *rest):\n    return a\n\n\ndef setup(cfg):\n"
            "    if cfg.mode not in (\"fast\", \"lean\"):\n        return 0\n"
            "    if cfg.kind in (\"wide\", \"flat\"):\n        return 2\n    return 3\n")
    kinds = "def pick(cfg):\n    return cfg.kind in {\"wide\", \"tall\"}\n"
    readme = ("# Sub\n\n- Call `spread(a, b)`.\n- Under `--run.mode fast`, order the axes.\n"
              "- Under `--run.kind wide`, keep one axis.\n")
    inp = _inp(tmp_path, readme, {"sub/setup.py": code, "sub/kinds.py": kinds})
    found = [(p.line, p.problem) for p in docnames.check(inp)
             if "signature" in p.problem or "states a rule" in p.problem]
    assert found == [(5, "states a rule for `--run.kind wide` only, while the folder's code "
                         "treats `tall` the same (`sub/kinds.py:2` tests `kind` in wide, "
                         "tall): the rule applies to those values too, or the doc says why "
                         "not")]
