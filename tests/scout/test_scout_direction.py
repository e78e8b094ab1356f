"""#22 precision, defect (b): "copy drift" between the sub-project and code built ON it
(an experiment that imports the folder and keeps its own variant of one of its
functions) is no drift of the folder from its upstream. The direction comes from the
imports: such a configured "upstream" is not compared, and one FYI line says why.
Fixture repositories, match and no-match."""

from __future__ import annotations

from agentops.scout.analyses import direction, duplicates, run_all
from agentops.scout.items import build
from tests.scout import minirepo

PAIR = ("duplicate_logic:\n  - {ours: [sub/par.py], upstream: [exp/rl/infer/par.py], "
        "why: parallelism}\n")
# The experiment's variant passes a keyword ours does not: compared as our upstream,
# that would be "call drift" in the sub-project.
THEIRS = """\
    from core.tp import apply_tp


    def parallelize(model, mesh):
        apply_tp(model, mesh, use_local_output=False)
        return model
"""
OURS = """\
    from core.tp import apply_tp


    def parallelize(model, mesh):
        apply_tp(model, mesh)
        return model
"""
CORE = "def apply_tp(model, mesh, use_local_output=True):\n    return model\n"


def _inp(tmp_path, importer: str):
    files = {"core/tp.py": CORE, "sub/__init__.py": "", "sub/par.py": OURS,
             "exp/rl/infer/par.py": THEIRS, "exp/rl/models/utils.py": importer}
    return minirepo.build(tmp_path, head=files, target=PAIR)


def test_an_upstream_built_on_the_folder_is_not_compared_and_one_line_says_so(
        tmp_path) -> None:
    inp = _inp(tmp_path, "from sub.par import parallelize\n")
    assert duplicates.call_drift(inp) == []
    [rev] = direction.reversed_pairs(inp)
    assert (rev.upstream, rev.evidence) == ("exp/rl/infer/par.py", "exp/rl/models/utils.py:1")
    res = run_all(inp)
    assert not [i for i in build(inp, res) if i.kind == "action"]
    [line] = [i for i in build(inp, res) if "built on" in i.title]
    assert line.kind == "fyi" and "exp/rl/models/utils.py:1" in line.title
    assert "swap the entry's sides or drop it" in line.title


def test_the_same_pair_with_nothing_importing_the_folder_is_compared(tmp_path) -> None:
    inp = _inp(tmp_path, "from core.tp import apply_tp\n")
    assert direction.reversed_pairs(inp) == []
    [d] = duplicates.call_drift(inp)
    assert d.missing == ("use_local_output",)
    assert not [i for i in build(inp, run_all(inp)) if "built on" in i.title]


def test_a_category_folder_is_read_only_for_its_own_modules() -> None:
    """Another experiment importing the folder says nothing about this one: the first
    folder below the shared ancestor (``exp/``) is a category of unrelated projects."""
    files = {"exp/rl/infer/par.py": THEIRS, "exp/other/run.py": "import sub.par\n",
             "sub/par.py": OURS}
    assert direction.built_on(files, "exp/rl/infer/par.py", "sub") == ""
    files["exp/rl/run.py"] = "import sub.par\n"
    assert direction.built_on(files, "exp/rl/infer/par.py", "sub") == "exp/rl/run.py:1"
    # A module directly in the category folder is read (it is that folder's own code).
    files = {"exp/rl/infer/par.py": THEIRS, "exp/runner.py": "x = 1\nfrom sub import par\n"}
    assert direction.built_on(files, "exp/rl/infer/par.py", "sub") == "exp/runner.py:2"


def test_core_below_the_shared_folder_is_never_downstream_of_a_sibling() -> None:
    """A model folder beside the sub-project that does not import it stays a possible
    upstream, whatever the other model folders import."""
    files = {"pkg/models/a/m.py": OURS, "pkg/models/b/m.py": THEIRS,
             "pkg/models/c/m.py": "from pkg.models.a import m\n"}
    assert direction.built_on(files, "pkg/models/b/m.py", "pkg/models/a") == ""
    assert direction.built_on(files, "pkg/models/c/m.py", "pkg/models/a") == "pkg/models/c/m.py:1"
