"""Hostile repository content against the analyses of stop 32 (#22; docs/security.md):
``settingbranches``, ``flavors`` and ``direction`` read files someone else wrote. Each
gets a file over the byte cap, a file that does not parse, an expression nested past
what the parser guard takes, text built to make a regex backtrack, and a name carrying
Markdown, a mention, HTML and a workflow command; the analysis must skip or bound it,
keep judging the rest, and its item must render inert.
"""

from __future__ import annotations

import re

from agentops.scout import gitrepo, render
from agentops.scout.analyses import direction, flavors, run_all
from agentops.scout.analyses import settingbranches as sb
from agentops.scout.itemize import settings as setting_items
from agentops.scout.items import build
from agentops.scout.livedata import LiveData
from agentops.scout.model import Baseline, Item, Report
from tests import watchdog
from tests.scout import minirepo
from tests.scout import test_scout_direction as dirfix
from tests.scout import test_scout_flavors as flavorfix
from tests.scout import test_scout_settingbranches as sbfix

# Past the parser guard's 150 levels and past where ``ast.unparse`` recurses too deep.
DEEP = 400
HOSTILE = "@octocat <img src=x onerror=alert(1)> [x](https://e.example) ::warning::x"


def _rendered(items: list[Item]) -> str:
    rep = Report(date="2026-03-06", target="mini", baseline=Baseline("x", "first run", None),
                 head="0" * 40, items=tuple(items), resolved=(), suppressed=(), analyses={})
    return render.markdown(rep, LiveData())


def _assert_inert(md: str) -> None:
    # Code spans show their content literally; everything else must be escaped text.
    outside = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", md)
    assert "<img" not in outside
    assert not re.search(r"@octocat", outside.replace("@\u200b", "@ "))
    assert "](" not in outside.replace("\\](", "")
    assert not re.search(r"^\s*::", md, re.M)


# --- settingbranches -----------------------------------------------------------------


def _sb_inp(tmp_path, **extra: str | None):
    cases = sbfix._cases(sbfix._case("--module sub --config m_debug"))
    head = {"core/dims.py": sbfix.DIMS, "core/trainer.py": sbfix.TRAINER,
            "core/serve.py": sbfix.SERVE, "sub/parallelize.py": sbfix.PARALLELIZE,
            "sub/config_registry.py": sbfix.REGISTRY,
            "tests/integration_tests/models.py": cases, **extra}
    return minirepo.build(tmp_path, head=head, target=sbfix.TARGET)


def _settings(inp) -> list[str]:
    return sorted({b.setting for b in sb.analyse(inp).branches})


ALL_SETTINGS = ["comm_backend", "context_parallel_degree or decode_cp_size", "layout",
                "tensor_parallel_degree or tp_size"]


def test_settingbranches_skips_an_unparseable_and_a_too_deep_file_and_judges_the_rest(
        tmp_path) -> None:
    broken = "def parallelize(parallelism: PConfig):\n    if parallelism.mode == 'x'\n"
    # Unparsed, ``ast.unparse`` of this condition raises RecursionError.
    deep = (f"def route(parallelism: PConfig):\n    if {'-' * DEEP}parallelism.mode:\n"
            "        return 1\n")
    inp = _sb_inp(tmp_path, **{"sub/broken.py": broken, "sub/deep.py": deep})
    assert _settings(inp) == ALL_SETTINGS
    assert {b.file for b in sb.analyse(inp).branches} == {"sub/parallelize.py"}


def test_settingbranches_never_reads_a_file_over_the_byte_cap(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(gitrepo, "MAX_BLOB_BYTES", 50_000)
    # Read, this file's case would set every setting the branches need.
    big = sbfix._cases(sbfix._case(
        "--module sub", "--parallelism.comm_backend fast", "--parallelism.layout blocked",
        "--parallelism.context_parallel_degree 2", "--parallelism.tensor_parallel_degree 2"))
    big += "#\n" * 30_000
    inp = _sb_inp(tmp_path, **{"tests/integration_tests/big.py": big})
    assert "tests/integration_tests/big.py" not in inp.head.files
    assert _settings(inp) == ALL_SETTINGS


def test_settingbranches_reads_a_launcher_of_blank_lines_in_linear_time(tmp_path) -> None:
    # The launcher's default module is still read, with 100,000 blank lines after it
    # that each line start must not rescan: a case naming no module runs ``sub`` and
    # sets CP, so that branch is no longer reported.
    launcher = 'MODULE=${MODULE:-"sub"}\n' + "\n" * 100_000 + "exec torchrun\n"
    cases = sbfix._cases(sbfix._case("--config m_debug",
                                     "--parallelism.context_parallel_degree 2"))
    inp = _sb_inp(tmp_path, **{"run_train.sh": launcher,
                                "tests/integration_tests/models.py": cases})
    found = watchdog.within(watchdog.SECONDS, lambda: _settings(inp))
    assert found == [s for s in ALL_SETTINGS if not s.startswith("context")]


def test_settingbranches_item_renders_values_from_the_repo_inert(tmp_path) -> None:
    hostile = sbfix.PARALLELIZE.replace('"blocked"', repr(HOSTILE))
    inp = _sb_inp(tmp_path, **{"sub/parallelize.py": hostile})
    res = {"setting_branches": sb.analyse(inp)}
    [item] = setting_items.items(inp, res)
    assert "@octocat" in item.title  # the value is named, so the check below has work
    _assert_inert(_rendered([item]))


# --- flavors ---------------------------------------------------------------------------


def _keys(inp) -> list[tuple[str, ...]]:
    return [f.keys for f in flavors.analyse(inp)]


def test_flavors_skips_unparseable_and_too_deep_callers_and_judges_the_rest(tmp_path) -> None:
    # Either file, read, would select "large"; the deep one's call is past where
    # ``ast.unparse`` of its callee recurses too deep.
    broken = "from sub import model_registry\nspec = model_registry('large'\n"
    deep = f"from sub import model_registry\nspec = {'a.' * DEEP}model_registry('large')\n"
    inp = flavorfix._inp(tmp_path, **{"tools/broken.py": broken, "tools/deep.py": deep})
    assert _keys(inp) == [("small_flex", "large")]


def test_flavors_never_reads_a_file_over_the_byte_cap(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(gitrepo, "MAX_BLOB_BYTES", 50_000)
    big = "CASES = [['--model.flavor small_flex']]\n" + "#\n" * 30_000
    inp = flavorfix._inp(tmp_path, **{"tests/integration/big.py": big})
    assert "tests/integration/big.py" not in inp.head.files
    assert _keys(inp) == [("small_flex", "large")]


def test_flavors_reads_a_test_of_long_blank_runs_in_linear_time(tmp_path) -> None:
    # Each run of blanks after the parameter's name is scanned once per key, not once
    # per split of it; the case after it still selects "large".
    case = "flavor" + " " * 200_000 + "\nCASES = [['--model.flavor large']]\n"
    inp = flavorfix._inp(tmp_path, **{"tests/integration/cases.py": case})
    assert watchdog.within(watchdog.SECONDS, lambda: _keys(inp)) == [("small_flex",)]


def test_flavors_item_renders_keys_from_the_repo_inert(tmp_path) -> None:
    # The key closes the code span the title puts it in, so its middle is plain text.
    key = f"x` {HOSTILE} `y"
    init = flavorfix.INIT.replace('"small_flex"', repr(key))
    inp = flavorfix._inp(tmp_path, **{"sub/__init__.py": init})
    [found] = flavors.analyse(inp)
    assert key in found.keys
    [item] = setting_items.flavor_items(inp, {"unreached_flavors": [found]})
    _assert_inert(_rendered([item]))


# --- direction -------------------------------------------------------------------------


def test_direction_never_reads_a_file_over_the_byte_cap(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(gitrepo, "MAX_BLOB_BYTES", 50_000)
    # Read, this import would make the configured upstream downstream of the folder.
    importer = "from sub import par\n" + "#\n" * 30_000
    inp = dirfix._inp(tmp_path, importer)
    assert "exp/rl/models/utils.py" not in inp.head.files
    assert direction.reversed_pairs(inp) == []


def test_direction_reads_unparseable_deep_and_long_lines_by_text(tmp_path) -> None:
    # Imports are matched as text, line by line: a file that does not parse, nested
    # past the parser guard, or with a 200,000-character import line is still read,
    # without a parse and in linear time.
    long_line = "from exp import " + "x, " * 70_000 + "y\n"
    importer = (long_line + f"z = {'-' * DEEP}1\n" + "def broken(:\n"
                + "from sub import par\n")
    inp = dirfix._inp(tmp_path, importer)
    [rev] = watchdog.within(watchdog.SECONDS, lambda: direction.reversed_pairs(inp))
    assert rev.evidence == "exp/rl/models/utils.py:4"


def test_direction_item_renders_a_hostile_path_inert(tmp_path) -> None:
    folder = "exp/" + HOSTILE.replace("/", "_")
    pair = (f"duplicate_logic:\n  - {{ours: [sub/par.py], upstream: ['{folder}/par.py'], "
            "why: parallelism}\n")
    files = {"core/tp.py": dirfix.CORE, "sub/__init__.py": "", "sub/par.py": dirfix.OURS,
             f"{folder}/par.py": dirfix.THEIRS, f"{folder}/use.py": "from sub import par\n"}
    inp = minirepo.build(tmp_path, head=files, target=pair)
    [rev] = direction.reversed_pairs(inp)
    assert rev.evidence == f"{folder}/use.py:1"
    lines = [i for i in build(inp, run_all(inp)) if "built on" in i.title]
    assert len(lines) == 1 and "@octocat" in lines[0].title
    _assert_inert(_rendered(lines))
