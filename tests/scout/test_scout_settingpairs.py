"""#22 defect 10 (untested configuration), S-3: a path two settings select together —
a degree branch (``if dims.tp_enabled:``) and, inside it, a second setting (a config
field, another degree, or a flavor field bound to a local) — that each case of the
folder sets at most one of (``settingpairs``)."""

from __future__ import annotations

from agentops.scout.analyses import settingbranches as sb
from agentops.scout.analyses import settingpairs as sp
from agentops.scout.itemize import settings as setting_items
from tests.scout import minirepo
from tests.scout.test_scout_settingbranches import DIMS, TARGET, TRAINER, _case, _cases

PLAN = '''\
from core.dims import Dims


def plan(model, *, parallel_dims: Dims, parallelism: ParallelismConfig):
    shape = getattr(model.args, "shape", "round")
    if parallel_dims.tp_enabled:
        split = parallelism.split_rows
        model = (model, split)
    if parallel_dims.cp_enabled:
        model = (model, shape)
        if parallel_dims.tp_enabled:
            model = (model, 3)
    return model
'''

FLAVORS = '''\
table = {
    "tiny": Args(width=2),
    "tiny_square": Args(width=2, shape="square"),
}
'''

REGISTRY = '''\
def m_debug():
    return Trainer.Config(flavor="tiny")


def m_square():
    return Trainer.Config(flavor="tiny_square")
'''


def _inp(tmp_path, cases: str, base: str | None = None):
    head = {"core/dims.py": DIMS, "core/trainer.py": TRAINER, "sub/plan.py": PLAN,
            "sub/flavors.py": FLAVORS, "sub/config_registry.py": REGISTRY,
            "tests/integration_tests/models.py": cases}
    if base is not None:
        head["tests/integration_tests/base_config.toml"] = base
    return minirepo.build(tmp_path, head=head, target=TARGET)


def _found(inp) -> list[tuple[int, int, str, str]]:
    return [(p.line, p.inner_line, p.outer_settings, p.inner_settings)
            for p in sp.analyse(inp).pairs]


def test_each_setting_set_by_some_case_but_never_both_by_one_is_found(tmp_path) -> None:
    # TP is set by one case, the row split by another, CP and the square flavor each by
    # a third and a fourth; no case sets two of them.
    cases = _cases(
        _case("--module sub --config m_debug", "--parallelism.tensor_parallel_degree 2"),
        _case("--module sub --config m_debug", "--parallelism.no-split-rows"),
        _case("--module sub --config m_debug", "--parallelism.context_parallel_degree 2"),
        _case("--module sub --config m_square"))
    inp = _inp(tmp_path, cases)
    assert _found(inp) == [
        (6, 7, "tensor_parallel_degree", "split_rows"),
        (9, 10, "context_parallel_degree", "shape (flavors tiny_square)"),
        (9, 11, "context_parallel_degree", "tensor_parallel_degree")]
    [item] = setting_items.items(inp, {"setting_pairs": sp.analyse(inp)})
    assert item.kind == "opportunity" and item.section == "S-3"
    assert "`parallelism.split_rows` under `parallel_dims.tp_enabled` (plan.py:6, read at " \
           ":7; needs `tensor_parallel_degree` above 1 with `split_rows`)" in item.title
    assert "tiny_square" in item.title and "4 integration test cases" in item.why
    assert item.files == ("sub/plan.py",)


def test_a_case_that_sets_both_or_a_setting_no_case_sets_is_no_finding(tmp_path) -> None:
    # One case sets TP with the row split and CP with TP; the square flavor runs with CP
    # through the registry config the case loads. Nothing sets a setting alone.
    cases = _cases(
        _case("--module sub --config m_square", "--parallelism.tensor_parallel_degree=2",
              "--parallelism.split_rows false", "--parallelism.context_parallel_degree 2"),
        _case("--module sub --config m_debug"))
    assert _found(_inp(tmp_path, cases)) == []
    # CP set to 1 is off: the flavor and TP inside the CP branch are then never paired
    # with it, but CP is set by no case, which settingbranches reports, not this.
    off = _cases(_case("--module sub --config m_square", "--parallelism.context_parallel_degree 1"),
                 _case("--module sub", "--parallelism.tensor_parallel_degree 2"))
    assert [f[:2] for f in _found(_inp(tmp_path / "off", off))] == []


def test_cases_naming_no_model_run_the_base_configs_model(tmp_path) -> None:
    # The runner's base config names the folder: cases without a model flag run it, and
    # a case naming another model with the older ``--model.name`` flag does not.
    cases = _cases(_case("--parallelism.tensor_parallel_degree 2"),
                   _case("--parallelism.no-split-rows"),
                   _case("--model.name other", "--parallelism.tensor_parallel_degree 2",
                         "--parallelism.no-split-rows"))
    base = '[job]\nfolder = "out"\n\n[model]\nname = "sub"\nflavor = "tiny"\n'
    inp = _inp(tmp_path, cases, base)
    assert len(sb.runs(inp).per_case) == 2
    assert _found(inp) == [(6, 7, "tensor_parallel_degree", "split_rows")]
    other = _inp(tmp_path / "o", cases, base.replace('"sub"', '"other"'))
    assert sb.runs(other).per_case == () and _found(other) == []


# A plan reading its settings through one job config (``job.section.field``).
CHAINED = '''\
from core.dims import Dims


def plan(model, dims: Dims, job: JobConfig):
    if dims.tp_enabled:
        if job.parallelism.overlap_comms and not job.build.fuse:
            raise RuntimeError("overlap needs fuse")
        model = (model, job.parallelism.overlap_comms)
    return model
'''


def _commented(*flags: str) -> str:
    """A case written out, then commented out line by line (the way a flaky one is)."""
    lines = ["OverrideDefinitions(", "    [", "        ["]
    lines += [f"            {f!r}," for f in flags]
    lines += ["        ],", "    ],", "    'overlap',", "    'overlap',", "),"]
    return "\n".join("    # " + x for x in lines)


def _own_tests(live: list[tuple[str, ...]], off: list[tuple[str, ...]]) -> str:
    body = ",\n".join(_case(*c) for c in live)
    block = "\n".join(_commented(*c) for c in off)
    return ("from runner import OverrideDefinitions\n\n\ndef cases():\n    return [\n"
            f"{body},\n    # TODO: turn this back on once the hang is fixed\n{block}\n    ]\n")


def _own_inp(tmp_path, tests: str):
    head = {"core/dims.py": DIMS, "core/trainer.py": TRAINER, "sub/plan.py": CHAINED,
            "sub/config_registry.py": REGISTRY, "sub/tests/integration_tests.py": tests}
    return minirepo.build(tmp_path, head=head, target=TARGET)


def test_the_one_case_setting_both_commented_out_is_found_and_named(tmp_path) -> None:
    # The folder's own runner: TP is set by a live case, the overlap switch only by the
    # case that set it with TP, now commented out.
    tests = _own_tests([("--parallelism.tensor_parallel_degree 2",), ()],
                       [("--parallelism.tensor_parallel_degree 2",
                         "--parallelism.overlap_comms")])
    inp = _own_inp(tmp_path, tests)
    found = sp.analyse(inp).pairs
    assert [(p.line, p.inner_line, p.inner, p.inner_settings) for p in found] == [
        (5, 6, "job.parallelism.overlap_comms", "overlap_comms")]
    assert found[0].disabled == "sub/tests/integration_tests.py:9"
    [item] = setting_items.items(inp, {"setting_pairs": sp.analyse(inp)})
    assert "the one case setting both is commented out at " \
           "tests/integration_tests.py:9)" in item.title
    assert "commented out and no live case took its place" in item.why
    assert "each setting is set by some case" not in item.why


def test_a_commented_case_is_no_finding_when_a_live_one_sets_both(tmp_path) -> None:
    # A live case sets both; the commented-out copy changes nothing.
    both = ("--parallelism.tensor_parallel_degree 2", "--parallelism.overlap_comms")
    assert sp.analyse(_own_inp(tmp_path, _own_tests([both, ()], [both]))).pairs == ()
    # The commented-out case sets the switch without TP: nothing disabled pairs them.
    alone = _own_tests([("--parallelism.tensor_parallel_degree 2",), ()],
                       [("--parallelism.overlap_comms",)])
    assert sp.analyse(_own_inp(tmp_path / "alone", alone)).pairs == ()
    # Prose in a comment naming the runner's call is no case.
    prose = _own_tests([("--parallelism.tensor_parallel_degree 2",), ()], []).replace(
        "# TODO: turn this back on once the hang is fixed",
        "# OverrideDefinitions with --parallelism.overlap_comms hangs, see the tracker")
    assert sp.analyse(_own_inp(tmp_path / "prose", prose)).pairs == ()


def test_commented_cases_are_read_back_from_their_comment_lines() -> None:
    text = "x = 1\n" + _commented("--a.b 2", "--a.c") + "\n# OverrideDefinitions(\n#   [\n"
    [(where, call)] = sp._commented_cases("t.py", text)
    assert where == "t.py:2" and sp._flags(call) == {"b": {"2"}, "c": {""}}


def _block(n: int, width: int, tag: str) -> str:
    """A comment block naming the runner's call whose every line ends in ``)`` and
    which never parses: each try of it reads the whole run."""
    line = "#" + f"+({tag})" * (width // (len(tag) + 3))
    return "# OverrideDefinitions(\n" + "\n".join([line] * n) + "\n"


def test_hostile_comment_blocks_are_read_within_bounds() -> None:
    """Security (untrusted repository text, bounded parse): 50 blocks of 39 long comment
    lines that never parse were tried line by line, 250 s; now each block stops at
    ``_MAX_CASE_CHARS`` and the file at ``_MAX_PARSED_CHARS`` parsed characters."""
    from tests import watchdog

    wide = "".join(_block(39, 2_000, f"a{b}") for b in range(50))
    narrow = "".join(_block(39, 100, f"b{b}") for b in range(50))
    for text in (wide, narrow):
        read = watchdog.within(watchdog.SECONDS, lambda t=text: sp._commented_cases("t.py", t))
        assert read == []
    # A case past the character bound is not read; one within it is.
    case = _commented("--a.b 2")
    padded = case.replace("'overlap',", "'" + "o" * sp._MAX_CASE_CHARS + "',", 1)
    assert len(sp._commented_cases("t.py", case)) == 1
    assert sp._commented_cases("t.py", padded) == []
    # Once the file's budget is spent, a later case is not read.
    # (each block below costs about 78,000 parsed characters: two leave room, three not)
    assert sp._commented_cases("t.py", _block(39, 100, "c") * 3 + case) == []
    assert len(sp._commented_cases("t.py", _block(39, 100, "c") * 2 + case)) == 1


def test_the_case_line_and_count_bounds_are_exact() -> None:
    """A case of ``_MAX_CASE_LINES`` comment lines is read and one line more is not;
    the first ``_MAX_DISABLED`` cases of a file are read, no more."""
    def of(n: int) -> str:
        inner = ["    '--a.b 2',"] * (n - 2)
        return "\n".join("# " + x for x in ["OverrideDefinitions([", *inner, "])"]) + "\n"
    assert len(sp._commented_cases("t.py", of(sp._MAX_CASE_LINES))) == 1
    assert sp._commented_cases("t.py", of(sp._MAX_CASE_LINES + 1)) == []
    many = "# OverrideDefinitions(['--a.b 2'])\n" * (sp._MAX_DISABLED + 1)
    found = sp._commented_cases("t.py", many)
    assert len(found) == sp._MAX_DISABLED and found[-1][0] == f"t.py:{sp._MAX_DISABLED}"


def test_a_degree_a_loaded_config_sets_to_one_is_off(tmp_path) -> None:
    # The TOML a case loads sets the row split with TP at 1 (off); another case sets TP
    # alone. At 2 the first case sets both and nothing is found.
    cases = _cases(_case("--module sub --config m_debug", "--job.config_file sub/tp.toml"),
                   _case("--module sub", "--parallelism.tensor_parallel_degree 2"))
    for degree, found in (("1", [(6, 7, "tensor_parallel_degree", "split_rows")]), ("2", [])):
        inp = _inp(tmp_path / degree, cases)
        toml = f"[parallelism]\ntensor_parallel_degree = {degree}\nsplit_rows = false\n"
        inp.head.files["sub/tp.toml"] = toml
        assert [f for f in _found(inp) if f[0] == 6] == found, degree


def _plan_inp(tmp_path, plan: str, cases: str, **extra: str):
    head = {"core/dims.py": DIMS, "core/trainer.py": TRAINER, "sub/plan.py": plan,
            "sub/flavors.py": FLAVORS, "sub/config_registry.py": REGISTRY,
            "tests/integration_tests/models.py": cases, **extra}
    return minirepo.build(tmp_path, head=head, target=TARGET)


APART = _cases(
    _case("--module sub --config m_debug", "--parallelism.tensor_parallel_degree 2"),
    _case("--module sub --config m_debug", "--parallelism.no-split-rows"),
    _case("--module sub --config m_debug", "--parallelism.context_parallel_degree 2"),
    _case("--module sub --config m_square"))


def test_reads_around_the_pair_do_not_hide_or_make_one(tmp_path) -> None:
    # The flavor field bound from an attribute (``model.args.shape``) reads as the
    # getattr form; a local of a field no flavor sets, a read through a subscript and a
    # degree of a nested holder (``model.dims.tp_enabled``) are no setting; a copy of
    # the plan outside the folder is not the folder's.
    plan = PLAN.replace('getattr(model.args, "shape", "round")', "model.args.shape").replace(
        "        split = parallelism.split_rows\n",
        "        depth = model.args.depth\n        head = model.layers[0].norm\n"
        "        split = parallelism.split_rows\n        model = (model, depth, head)\n"
        "    if model.dims.tp_enabled:\n        model = (model, 1)\n")
    inp = _plan_inp(tmp_path, plan, APART, **{"other/plan.py": PLAN})
    assert [(p.file, p.outer_settings, p.inner_settings) for p in sp.analyse(inp).pairs] == [
        ("sub/plan.py", "tensor_parallel_degree", "split_rows"),
        ("sub/plan.py", "context_parallel_degree", "shape (flavors tiny_square)"),
        ("sub/plan.py", "context_parallel_degree", "tensor_parallel_degree")]


def test_a_flavor_no_case_runs_pairs_with_nothing(tmp_path) -> None:
    # CP and TP are set apart, the square flavor by no case: only settingbranches' row.
    cases = _cases(
        _case("--module sub --config m_debug", "--parallelism.tensor_parallel_degree 2"),
        _case("--module sub --config m_debug", "--parallelism.context_parallel_degree 2"))
    assert [f[3] for f in _found(_inp(tmp_path, cases))] == ["tensor_parallel_degree"]


def test_a_folder_with_nothing_to_pair_reads_no_case(tmp_path) -> None:
    inp = _plan_inp(tmp_path, "def plan(model):\n    return model\n", APART)
    assert sp.analyse(inp) == sp.Found((), 0)


def test_a_long_condition_is_shown_cut(tmp_path) -> None:
    holder = "d" * 90
    plan = PLAN.replace("parallel_dims", holder)
    [pair, *_] = sp.analyse(_plan_inp(tmp_path, plan, APART)).pairs
    assert pair.outer == f"{holder}.tp_enabled"[:sp._MAX_CONDITION]
    assert len(pair.outer) == sp._MAX_CONDITION


def test_flavor_fields_are_the_folders_constant_keywords() -> None:
    files = {"sub/flavors.py": 'T = {"a": Args(shape="s", width=W), "b": Args(**KW)}\n',
             "other/flavors.py": 'T = {"c": Args(shape="s")}\n',
             "sub/flavors.txt": '{"d": Args(shape="s")}\n',
             "sub/tests/flavors.py": 'T = {"e": Args(shape="s")}\n'}
    assert sp.flavor_fields("sub/", files) == {"shape": {"a"}}


def test_a_comment_block_is_one_run_of_comment_lines() -> None:
    # Code between the comment lines ends the block; a one-word note above the call is
    # not its start; the case read is the outermost call; live calls take no slot of
    # the per-file count.
    split = "# OverrideDefinitions([\nx = 1\n# '--a.b 2'])\n"
    assert sp._commented_cases("t.py", split) == []
    noted = "# flaky\n# OverrideDefinitions(\n#   ['--a.b 2'],\n# )\n"
    assert [w for w, _ in sp._commented_cases("t.py", noted)] == ["t.py:2"]
    nested = "# OverrideDefinitions(['--a.b 2'], later=OverrideDefinitions(['--a.c']))\n"
    [(_w, call)] = sp._commented_cases("t.py", nested)
    assert sp._flags(call) == {"b": {"2"}}
    live = "OverrideDefinitions(['--a.b 2'])\n" * sp._MAX_DISABLED
    assert len(sp._commented_cases("t.py", live + "# OverrideDefinitions(['--a.c'])\n")) == 1


def test_only_test_files_that_run_the_folder_lend_disabled_cases(tmp_path) -> None:
    both = ("--parallelism.tensor_parallel_degree 2", "--parallelism.overlap_comms")
    tests = _own_tests([("--parallelism.tensor_parallel_degree 2",), ()], [])
    # A helper call of the folder's own tests that carries flags is no case.
    helper = _own_tests([("--parallelism.tensor_parallel_degree 2",), ()], [both]).replace(
        "def cases():", "print(['--parallelism.overlap_comms'])\n\n\ndef cases():")
    found = sp.analyse(_own_inp(tmp_path / "helper", helper)).pairs
    assert [p.disabled for p in found] == ["sub/tests/integration_tests.py:12"]
    # The same commented case in a script beside the tests, in a shared file whose live
    # cases run another model, or naming another model in a shared file that runs this
    # one: no disabled case.
    shared_live = _cases(_case("--module sub", "--parallelism.tensor_parallel_degree 2"))
    other_live = _cases(_case("--module other", "--parallelism.tensor_parallel_degree 2"))

    def build(name: str, extra: dict[str, str]):
        head = {"core/dims.py": DIMS, "core/trainer.py": TRAINER, "sub/plan.py": CHAINED,
                "sub/config_registry.py": REGISTRY,
                "sub/tests/integration_tests.py": tests, **extra}
        return minirepo.build(tmp_path / name, head=head, target=TARGET)

    for name, extra in (
            ("sh", {"sub/tests/run.sh": _commented(*both) + "\n"}),
            ("away", {"tests/integration_tests/other.py":
                      other_live + _commented("--module sub", *both) + "\n"}),
            ("named", {"tests/integration_tests/models.py":
                       shared_live + _commented("--module other", *both) + "\n"})):
        assert sp.analyse(build(name, extra)).pairs == (), name
    # Named in a shared file that runs this folder: the disabled case counts.
    found = sp.analyse(build("shared", {"tests/integration_tests/models.py":
                                        shared_live + _commented("--module sub", *both)
                                        + "\n"})).pairs
    assert [p.disabled for p in found] == ["tests/integration_tests/models.py:6"]


def test_many_reads_and_cases_sharing_a_large_config_stay_fast(tmp_path) -> None:
    """Time (report bar 10 s): each read of an ``if`` body asked every case whether its
    configs set the setting, a field no config sets scanned it whole; 150 cases loading
    one 2,000-line config and two files of 40
    plans took 240 s. The answers are memoized per setting and per config text."""
    from tests import watchdog

    plan = "from core.dims import Dims\n" + "".join(
        f"\n\ndef plan{i}(model, *, parallel_dims: Dims, parallelism: ParallelismConfig):\n"
        "    if parallel_dims.tp_enabled:\n"
        + "".join(f"        x{j} = parallelism.g{j}\n" for j in range(40)) for i in range(40))
    config = "[parallelism]\n" + "".join(f"f{j} = true\n" for j in range(2_000))
    cases = _cases(*(_case("--module sub --config m_debug", "--job.config_file sub/big.toml",
                           f"--parallelism.tensor_parallel_degree {1 + c % 2}")
                     for c in range(150)))
    inp = _plan_inp(tmp_path, plan, cases, **{"sub/plan2.py": plan, "sub/big.toml": config})
    found = watchdog.within(watchdog.SECONDS, lambda: sp.analyse(inp))
    assert found.cases == 150 and found.pairs == ()


def test_a_config_typed_holder_is_no_degree_branch(tmp_path) -> None:
    """Review rev41b: a property read on a parameter typed ``*Config`` is a setting of
    that config, not a degree branch, even when the class has degree properties and is
    built from degrees: the same tree with the class named ``DimsConfig`` pairs nothing
    (named ``Dims``, the first test above finds three pairs)."""
    cases = _cases(
        _case("--module sub --config m_debug", "--parallelism.tensor_parallel_degree 2"),
        _case("--module sub --config m_debug", "--parallelism.no-split-rows"),
        _case("--module sub --config m_debug", "--parallelism.context_parallel_degree 2"),
        _case("--module sub --config m_square"))
    head = {"core/dims.py": DIMS.replace("class Dims", "class DimsConfig"),
            "core/trainer.py": TRAINER.replace("Dims", "DimsConfig"),
            "sub/plan.py": PLAN.replace("Dims", "DimsConfig"),
            "sub/flavors.py": FLAVORS, "sub/config_registry.py": REGISTRY,
            "tests/integration_tests/models.py": cases}
    assert "DimsConfig" in head["sub/plan.py"] and "DimsConfig" in head["core/trainer.py"]
    assert _found(minirepo.build(tmp_path, head=head, target=TARGET)) == []
