"""#22 (S-5), census row "README claims not backed": a supported / tested list of the
folder's docs that names parallelisms, read as the settings that turn them on, against
the integration cases that run the folder. A claimed parallelism no live case turns on
is reported (with its commented-out case when there is one); so is one whose only case
combining it with another parallelism is commented out. Nothing when every claim has a
live case (or a TOML / test file of the folder sets it), for a negated item, for a list
under a non-claim heading, or when the folder's cases are not found. Made-up trees,
match and no-match."""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import doctested
from tests.scout import minirepo

README = """\
# Widget trainer

## Supported parallelisms
Checked by hand on two hosts:
- Tensor Parallel (TP)
- Pipeline Parallel
- Expert Parallel
- Async tensor parallel

## Throughput
| setup | tokens/s |
|---|---|
| TP + EP | 12 |
"""


def _case(flags: list[str], name: str, prefix: str = "") -> str:
    body = "".join(f'{prefix}            "{f}",\n' for f in flags)
    return (f"{prefix}    OverrideDefinitions(\n{prefix}        [\n{prefix}            [\n"
            f"{body.replace('            ', '                ')}{prefix}            ],\n"
            f"{prefix}        ],\n{prefix}        \"{name}\",\n{prefix}        \"{name}\",\n"
            f"{prefix}    ),\n")


def _runner(live: list[list[str]], off: list[list[str]]) -> str:
    cases = "".join(_case(f, f"c{i}") for i, f in enumerate(live))
    cases += "".join(_case(f, f"off{i}", prefix="#") for i, f in enumerate(off))
    return ("from harness import OverrideDefinitions\n\n\ndef cases():\n    return [\n"
            f"{cases}    ]\n")


TP = "--parallelism.tensor_parallel_degree 2"
PP = "--parallelism.pipeline_parallel_degree 2"
EP = "--parallelism.expert_parallel_degree 4"
ASYNC = "--parallelism.enable_async_tensor_parallel"
REPL = "--parallelism.data_parallel_replicate_degree=2"


def _check(tmp_path, runner: str, readme: str = README, extra: dict | None = None):
    inp = minirepo.build(tmp_path, head={
        "sub/__init__.py": "", "sub/README.md": readme, "sub/run_cases.py": runner,
        **(extra or {})}, target="docs: [sub/README.md]\n")
    return [(p.line, p.problem) for p in doctested.check(inp)]


def test_a_claimed_parallelism_no_live_case_turns_on(tmp_path) -> None:
    [(line, problem)] = _check(tmp_path, _runner([[TP], [PP]], [[TP, ASYNC]]))
    assert line == 7  # the first unbacked item: Expert Parallel
    assert "the Supported parallelisms section claims 4 parallelisms" in problem
    assert "no live test case turns on expert parallelism (`expert_parallel_degree`); " \
           "async TP (`enable_async_tensor_parallel`; its case at sub/run_cases.py:" in problem
    assert "is disabled" in problem


def test_a_combination_whose_only_case_is_commented_out(tmp_path) -> None:
    readme = "# W\n\n### Composability support\n| Feature | Support |\n|---|---|\n" \
             "| Tensor Parallelism | ✅ |\n| HSDP | ✅ |\n| Float8 | 🚧 |\n"
    [(line, problem)] = _check(tmp_path, _runner([[TP], [REPL]], [[REPL, TP]]),
                               readme=readme)
    assert line == 6
    assert "the only case combining tensor parallelism with " \
           "`data_parallel_replicate_degree` (sub/run_cases.py:" in problem
    # A live case setting both clears it.
    assert _check(tmp_path / "b", _runner([[TP], [REPL, TP]], [[REPL, TP]]),
                  readme=readme) == []


def test_claims_with_live_evidence_or_no_claim_are_not_reported(tmp_path) -> None:
    everything = _runner([[TP, PP], [EP], [TP, ASYNC]], [])
    assert _check(tmp_path / "a", everything) == []
    # A TOML of the folder that turns EP on backs that claim.
    assert _check(tmp_path / "b", _runner([[TP], [PP]], []),
                  extra={"sub/ep.toml": "[parallelism]\nexpert_parallel_degree = 2\n"}
                  ) == [(8, "the Supported parallelisms section claims 4 parallelisms as "
                            "supported or tested, but no live test case turns on async TP "
                            "(`enable_async_tensor_parallel`): state the gap beside the "
                            "claim, or enable a case for it")]
    # No case of the folder is found: nothing to judge the claims against.
    assert _check(tmp_path / "c", "def cases():\n    return []\n") == []


def test_what_counts_as_a_claim() -> None:
    names = [c.name for c in doctested._claims_of("Async TP and CP")]
    assert names == ["async TP", "context parallelism"]  # async TP's TP is not TP
    assert doctested._claims_of("EP: not supported yet") == []
    assert doctested._claims_of("Float8 | 🚧") == []
    sections = doctested._sections(README.splitlines())
    # The throughput table sits under its own heading: not a claim.
    assert list(sections) == ["## Supported parallelisms"]
    assert [n for n, _t in sections["## Supported parallelisms"]] == [5, 6, 7, 8]
    todo = "# W\n## Roadmap: not yet supported\n- TP\n- EP\n"
    assert doctested._sections(todo.splitlines()) == {}


def test_other_evidence_reads_flags_in_linear_time(tmp_path) -> None:
    # A flag starts where a word does not: from inside a long run of dashes (a made-up
    # hostile TOML) every character was a new start, quadratic (50,000: minutes).
    import time

    extra = {"sub/odd.toml": "-" * 50_000 + "\n", "sub/ep.toml":
             "cmd = 'x --parallelism.expert_parallel_degree 2 y--z.w 3'\n"}
    start = time.monotonic()
    problems = _check(tmp_path, _runner([[TP], [PP]], []), extra=extra)
    assert time.monotonic() - start < 5
    # The flag in the command backs EP; a flag glued to a word is no flag.
    assert [n for n, _p in problems] == [8]
    inp = minirepo.build(tmp_path / "b", head={"sub/a.toml": extra["sub/ep.toml"]},
                         target="docs: []\n")
    other = doctested._other_evidence(dataclasses.replace(
        inp, target=dataclasses.replace(inp.target, subproject="sub")))
    assert "expert_parallel_degree = 2" in other and "w = 3" not in other


def test_a_hostile_heading_is_rendered_inert(tmp_path) -> None:
    """Security (untrusted doc text): the finding quotes the section's heading, which
    may carry a mention, a link, HTML, a cross-reference and a backtick that opens a
    code span early; the report line shows them as inert text."""
    from agentops.scout import render
    from agentops.scout.analyses.docs import DocProblem
    from agentops.scout.itemize import docs as itemize_docs
    from tests.scout.test_scout_docfeatures import _strip_code_spans

    readme = ("# W\n\n## Supported ` @lead [x](https://evil.example) <b>b</b> #12\n"
              "- TP\n- Expert Parallel\n")
    inp = minirepo.build(tmp_path, head={
        "sub/__init__.py": "", "sub/README.md": readme,
        "sub/run_cases.py": _runner([[TP]], [])}, target="docs: [sub/README.md]\n")
    [p] = doctested.check(inp)
    [line] = [render._plain(it) for it in itemize_docs.items(inp, {"doc_inaccuracies": [
        DocProblem(p.file, p.line, p.problem, p.kind)]})]
    shown = _strip_code_spans(line)
    assert "expert parallelism" in shown
    for live in ("@lead", "[x](", "https://", "<b>", " #12"):
        assert live not in shown, live


def test_the_words_of_each_parallelism_and_a_tested_heading() -> None:
    def named(text: str) -> list[str]:
        return [c.name for c in doctested._claims_of(text)]

    assert named("PP and EP") == ["pipeline parallelism", "expert parallelism"]
    assert named("pipeline parallel, context-parallel") == [
        "pipeline parallelism", "context parallelism"]
    assert named("distributed data-parallel") == named("distributed data parallel") \
        == named("hybrid-sharded") == named("hybrid sharded") == ["HSDP/DDP"]
    head = "# W\n## Configurations we tested\n- TP\n- CP\n## Notes\n- PP\n"
    assert doctested._sections(head.splitlines()) == {
        "## Configurations we tested": [(3, "TP"), (4, "CP")]}


def test_the_first_item_under_a_heading_and_a_fenced_block(tmp_path) -> None:
    # An item on the line right after its heading is claimed; a fenced example is not.
    readme = ("# W\n## Supported\n- Expert Parallel\n- TP\n```\n- Context Parallel\n```\n"
              "- PP\n")
    [(line, problem)] = _check(tmp_path, _runner([[TP]], []), readme=readme)
    assert line == 3 and "3 parallelisms" in problem and "context" not in problem
    assert "pipeline" in problem  # the item after the fence is read


def test_evidence_in_a_test_file_or_a_configured_workflow(tmp_path) -> None:
    # Each turns EP on outside the cases and so backs its claim; async TP stays unbacked.
    ep = "--parallelism.expert_parallel_degree 2"
    for i, where in enumerate(("sub/tests/check_ep.py", "sub/test_ep.py",
                               ".github/workflows/ci.yaml")):
        [(line, _p)] = _check(tmp_path / str(i), _runner([[TP], [PP]], []),
                              extra={where: f"RUN = '{ep}'\n"})
        assert line == 8, where
    # A runner of the folder that is no test file, or a note in its test folder, is no
    # such evidence.
    for where in ("sub/launch.py", "sub/tests/notes.md"):
        [(line, _p)] = _check(tmp_path / where.replace("/", "-"), _runner([[TP], [PP]], []),
                              extra={where: f"RUN = '{ep}'\n"})
        assert line == 7, where


def test_at_most_four_gaps_are_named_and_the_heading_is_cut(tmp_path) -> None:
    head = "## Supported " + "x" * 70
    readme = f"# W\n{head}\n- TP\n- PP, CP, EP\n- HSDP\n- async TP\n"
    [(_line, problem)] = _check(tmp_path, _runner([[TP]], []), readme=readme)
    assert f"the Supported {'x' * 50} section claims 6" in problem
    assert "x" * 51 not in problem
    assert problem.count("_degree`") + problem.count("parallel`") == 4


def test_the_first_disabled_case_is_named_and_an_unrelated_one_is_no_combination(
        tmp_path) -> None:
    readme = "# W\n## Supported\n- TP\n- PP\n- EP\n"
    # Two disabled cases turn EP on: the first is named. A disabled case setting CP and
    # HSDP, neither of them TP nor PP, is no untested combination of TP or of PP.
    cp = "--parallelism.context_parallel_degree 2"
    runner = _runner([[TP], [PP]], [[EP], [EP], [REPL, cp]])
    [(line, problem)] = _check(tmp_path, runner, readme=readme)
    off = [n for n, text in enumerate(runner.splitlines(), 1)
           if text.startswith("#") and "OverrideDefinitions(" in text]
    assert line == 5 and "combining" not in problem
    assert f"its case at sub/run_cases.py:{off[0]} is disabled)" in problem


def test_a_section_without_live_evidence_does_not_end_the_doc(tmp_path) -> None:
    readme = ("# W\n## Features\n- Context Parallel\n- Expert Parallel\n"
              "## Supported\n- TP\n- Expert Parallel\n")
    [(line, problem)] = _check(tmp_path, _runner([[TP]], []), readme=readme)
    assert line == 7 and "the Supported section" in problem


def test_flag_spellings_a_disabled_live_case_and_combination_order(tmp_path) -> None:
    # A flag separated by a tab, or with a dashed group, backs its claim.
    for i, flag in enumerate(("--parallelism.expert_parallel_degree\t2",
                              "--my-group.expert_parallel_degree 2")):
        [(line, _p)] = _check(tmp_path / str(i), _runner([[TP], [PP]], []),
                              extra={"sub/ep.toml": f"cmd = 'x {flag}'\n"})
        assert line == 8, flag
    # A case marked disabled=True is no live case: its EP is untested, and named.
    runner = _runner([[TP], [PP], [EP]], []).replace(
        '"c2",\n    ),', '"c2",\n        disabled=True,\n    ),')
    assert "disabled=True" in runner
    [(line, problem)] = _check(tmp_path / "d", runner)
    assert line == 7 and "its case at sub/run_cases.py:" in problem
    # A disabled case already named for an untested claim is no combination as well;
    # an earlier disabled case of another parallelism does not end the combinations.
    readme = "# W\n### Composability support\n- TP\n- HSDP\n- EP\n"
    [(_l, problem)] = _check(tmp_path / "e", _runner([[TP], [REPL]], [[EP, TP]]),
                             readme=readme)
    assert "combining" not in problem
    [(_l, problem)] = _check(tmp_path / "f", _runner([[TP], [REPL], [EP]], [[PP], [REPL, TP]]),
                             readme=readme)
    assert "the only case combining tensor parallelism with" in problem


def test_a_switch_written_off_or_a_declared_degree_is_no_live_case() -> None:
    """Review rev43 (#22, S-5): a switch set to false in a config, or on a case's command
    line, does not turn the parallelism on, and a dataclass field declared ``name: int = 1``
    is no degree set; a switch named bare or set true, and a degree of 2, are."""
    off = next(c for c in doctested.CLAIMS if c.setting == "enable_async_tensor_parallel")
    tp = next(c for c in doctested.CLAIMS if c.setting == "tensor_parallel_degree")
    assert not doctested._sets({}, "enable_async_tensor_parallel = false\n", off)
    assert not doctested._sets({"enable_async_tensor_parallel": {"False"}}, "", off)
    assert doctested._sets({"enable_async_tensor_parallel": set()}, "", off)
    assert doctested._sets({}, "enable_async_tensor_parallel = true\n", off)
    assert not doctested._sets({}, "    tensor_parallel_degree: int = 1\n", tp)
    assert doctested._sets({}, "tensor_parallel_degree = 2\n", tp)
    assert doctested._sets({}, "    tensor_parallel_degree: int = 4\n", tp)
    assert not doctested.value_on("off", False) and doctested.value_on("on", False)
    assert not doctested.value_on("1", True) and doctested.value_on("8", True)


def test_a_declaration_without_a_value_or_a_none_degree_sets_nothing() -> None:
    """Review rev44a (#22, S-5): a field declared with its type and no value (``name:
    int``, ``name: Optional[int]``, ``name: bool  # note``) read its type as the value and
    turned the parallelism on; a degree of None chooses none. A value after the
    annotation, or a plain ``name: 2``, still does."""
    off = next(c for c in doctested.CLAIMS if c.setting == "enable_async_tensor_parallel")
    tp = next(c for c in doctested.CLAIMS if c.setting == "tensor_parallel_degree")
    for text in ("    tensor_parallel_degree: int\n", "tensor_parallel_degree: Optional[int]\n",
                 "tensor_parallel_degree: int | None = None\n",
                 "tensor_parallel_degree = None\n"):
        assert not doctested.text_on(text, tp.setting, tp.degree), text
    assert not doctested.text_on("enable_async_tensor_parallel: bool  # see below\n",
                                 off.setting, off.degree)
    for text in ("tensor_parallel_degree: Optional[int] = 4\n", "tensor_parallel_degree: 2\n",
                 "a: int\ntensor_parallel_degree: int\ntensor_parallel_degree = 2\n"):
        assert doctested.text_on(text, tp.setting, tp.degree), text
    assert doctested.text_on("enable_async_tensor_parallel: bool = True\n", off.setting,
                             off.degree)
    assert doctested.text_on("enable_async_tensor_parallel: yes\n", off.setting, off.degree)


def test_a_signature_default_of_one_and_a_literal_annotation_set_nothing() -> None:
    """Review rev44a (mutation): a degree of 1 as a parameter's default (``def f(name:
    int = 1)``, followed by a bracket or a comma) and a field annotated ``Literal[...]``
    with a value of 1 choose no degree; a default of 2 does."""
    tp = next(c for c in doctested.CLAIMS if c.setting == "tensor_parallel_degree")
    for text in ("def build(tensor_parallel_degree: int = 1):\n",
                 "def build(tensor_parallel_degree: int = 1, pp: int = 2):\n",
                 "    tensor_parallel_degree: Literal[1, 2] = 1\n",
                 "    tensor_parallel_degree: float = 1\n"):
        assert not doctested.text_on(text, tp.setting, tp.degree), text
    off = next(c for c in doctested.CLAIMS if c.setting == "enable_async_tensor_parallel")
    assert not doctested.text_on("enable_async_tensor_parallel: str = \"off\"\n", off.setting,
                                 off.degree)
    assert doctested.text_on("def build(tensor_parallel_degree: int = 2):\n", tp.setting,
                             tp.degree)
