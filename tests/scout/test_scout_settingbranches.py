"""#22 defect 10 (untested configuration), S-3: branches of a model folder selected by a
setting that no test running the folder sets — read through typed parameters
(``parallelism: ParallelismConfig``), a local bound from one, or a degree property
(``parallel_dims.cp_enabled``) of a class the repository builds from a setting; the
folder's integration cases are told apart from other models' cases in the same file.
"""

from __future__ import annotations

import dataclasses

from agentops.scout.analyses import settingbranches as sb
from agentops.scout.itemize import settings as setting_items
from tests.scout import minirepo

TARGET = "coverage: {config_registry_name: config_registry.py}\n"

DIMS = '''\
from dataclasses import dataclass


@dataclass
class Dims:
    cp: int
    tp: int

    @classmethod
    def from_config(cls, parallelism):
        return cls(cp=parallelism.context_parallel_degree, tp=parallelism.tensor_parallel_degree)

    @property
    def cp_enabled(self):
        return self.cp > 1

    @property
    def tp_enabled(self):
        return self.tp > 1
'''

TRAINER = '''\
from core.dims import Dims


def build(parallelism_config):
    return Dims.from_config(parallelism_config)
'''

# A second place builds the class from other settings (a serving path).
SERVE = '''\
from core.dims import Dims


def serve_dims(serve_config):
    return Dims(cp=serve_config.decode_cp_size, tp=serve_config.tp_size)
'''

PARALLELIZE = '''\
from core.dims import Dims


def parallelize(model, *, parallel_dims: Dims, parallelism: ParallelismConfig):
    backend = parallelism.comm_backend
    if backend in ("fast", "faster"):
        model = 1
    if parallelism.layout == "blocked":
        model = 2
    if parallel_dims.cp_enabled:
        model = 3
    if parallel_dims.tp_enabled:
        model = 4
    if model.kind == "other":
        model = 5
    return model
'''

REGISTRY = '''\
def m_debug():
    return Trainer.Config(flavor="debug")


def m_fast():
    return Trainer.Config(comm_backend="fast")
'''


def _cases(*cases: str) -> str:
    body = ",\n".join(cases)
    return f"from runner import OverrideDefinitions\n\ntests = [\n{body}\n]\n"


def _case(*flags: str, disabled: bool = False) -> str:
    quoted = ", ".join(repr(f) for f in flags)
    extra = ", disabled=True" if disabled else ""
    return f"    OverrideDefinitions([[{quoted}]], 'd', 'n'{extra})"


def _inp(tmp_path, cases: str, launcher: str | None = None):
    head = {"core/dims.py": DIMS, "core/trainer.py": TRAINER, "core/serve.py": SERVE,
            "sub/parallelize.py": PARALLELIZE, "sub/config_registry.py": REGISTRY,
            "tests/integration_tests/models.py": cases}
    if launcher is not None:
        head["run_train.sh"] = launcher
    return minirepo.build(tmp_path, head=head, target=TARGET)


def _found(inp) -> list[tuple[int, str, str]]:
    return [(b.line, b.setting, b.wanted) for b in sb.analyse(inp).branches]


def test_branches_no_case_of_the_folder_selects_are_found(tmp_path) -> None:
    # The folder's only case sets TP; another model's case in the same file sets CP and
    # the "faster" backend, which says nothing about this folder.
    cases = _cases(_case("--module sub --config m_debug", "--parallelism.tensor_parallel_degree 2"),
                   _case("--module other --config o_debug",
                         "--parallelism.context_parallel_degree 2",
                         "--parallelism.comm_backend faster", "--parallelism.layout blocked"))
    inp = _inp(tmp_path, cases)
    assert _found(inp) == [(6, "comm_backend", "'fast', 'faster'"),
                           (8, "layout", "'blocked'"),
                           (10, "context_parallel_degree or decode_cp_size", "above 1")]
    result = sb.analyse(inp)
    assert result.cases == ("tests/integration_tests/models.py",)
    [item] = setting_items.items(inp, {"setting_branches": result})
    assert item.kind == "opportunity"
    assert "`parallel_dims.cp_enabled` (parallelize.py:10; needs `context_parallel_degree or " \
           "decode_cp_size` set above 1)" in item.title
    assert "`backend in ('fast', 'faster')` (parallelize.py:6" in item.title
    assert item.files == ("sub/parallelize.py",)


def test_a_setting_the_folders_cases_or_their_configs_select_is_no_finding(tmp_path) -> None:
    # CP set to 2 by the folder's case; "fast" set by a registry config a case runs;
    # "blocked" by a flag of a case that loads the folder's registry config by name.
    cases = _cases(_case("--module sub --config m_fast", "--parallelism.context_parallel_degree=2",
                         "--parallelism.tensor_parallel_degree 2"),
                   _case("--config m_debug", "--parallelism.layout 'blocked'"))
    assert _found(_inp(tmp_path, cases)) == []


def test_a_degree_set_to_one_or_a_disabled_case_or_an_unrun_config_runs_nothing(
        tmp_path) -> None:
    # m_fast names "fast" but no case runs it; the CP case is disabled; CP=1 is off.
    cases = _cases(_case("--module sub --config m_debug", "--parallelism.context_parallel_degree 1",
                         "--parallelism.layout blocked", "--parallelism.tensor_parallel_degree 2"),
                   _case("--module sub", "--parallelism.context_parallel_degree 4",
                         disabled=True))
    assert _found(_inp(tmp_path, cases)) == [
        (6, "comm_backend", "'fast', 'faster'"),
        (10, "context_parallel_degree or decode_cp_size", "above 1")]


def test_cases_without_a_module_run_the_launchers_default(tmp_path) -> None:
    # The folder is the launcher's default module: a case naming no module runs it, so
    # its CP/TP/backend flags count and only the layout stays unselected.
    cases = _cases(_case("--parallelism.context_parallel_degree 2",
                         "--parallelism.comm_backend faster",
                         "--parallelism.tensor_parallel_degree 2"))
    launcher = 'MODULE=${MODULE:-"sub"}\nCONFIG=${CONFIG:-"m_debug"}\n'
    assert _found(_inp(tmp_path, cases, launcher)) == [(8, "layout", "'blocked'")]
    # Another default: that case runs another module and nothing runs this folder, which
    # the no-tests item reports once; no branch list.
    other = _inp(tmp_path / "o", cases, 'MODULE=${MODULE:-"other"}\n')
    assert sb.analyse(other).cases == ()
    assert _found(other) == []


def test_cases_naming_no_model_run_the_runners_base_config_model(tmp_path) -> None:
    # The runner's base config names the folder in its [model] table: a case naming no
    # model runs it (its CP flag counts); a case naming another one with the older
    # ``--model.name`` flag does not (its layout flag says nothing about this folder).
    cases = _cases(_case("--parallelism.context_parallel_degree 2",
                         "--parallelism.comm_backend faster",
                         "--parallelism.tensor_parallel_degree 2"),
                   _case("--model.name other", "--parallelism.layout blocked"))
    base = '[job]\nfolder = "out"\n\n[model]\nname = "sub"\nflavor = "debug"\n'
    head = {"core/dims.py": DIMS, "core/trainer.py": TRAINER, "core/serve.py": SERVE,
            "sub/parallelize.py": PARALLELIZE, "sub/config_registry.py": REGISTRY,
            "tests/integration_tests/models.py": cases,
            "tests/integration_tests/base_config.toml": base}
    inp = minirepo.build(tmp_path, head=head, target=TARGET)
    assert _found(inp) == [(8, "layout", "'blocked'")]
    assert len(sb.runs(inp).per_case) == 1
    head["tests/integration_tests/base_config.toml"] = base.replace('"sub"', '"other"')
    other = minirepo.build(tmp_path / "o", head=head, target=TARGET)
    assert sb.analyse(other).cases == () and _found(other) == []


class _Files:
    def __init__(self, files: dict[str, str]) -> None:
        self.head = type("Head", (), {"files": files})()


def test_the_base_config_is_a_toml_of_a_shared_test_tree_at_most_two_folders_deep() -> None:
    # Spaces or tabs around "=", either quote, dots and dashes in the name; a name that
    # matches another folder, a file that is no .toml, one outside a test folder or three
    # folders deep names nothing.
    spaced = '[run]\nsteps = 3\n[model]\nname = "sub"\n'
    tabbed = "[model]\nname\t=\t'toy.v2-mini'\n"
    assert sb._base_config_names(_Files({"tests/base.toml": spaced}), "sub") is True
    assert sb._base_config_names(_Files({"tests/base.toml": tabbed}), "toy.v2-mini") is True
    assert sb._base_config_names(_Files({"tests/int/base.toml": tabbed}), "toy.v2-mini")
    assert sb._base_config_names(_Files({"tests/base.toml": tabbed}), "toy") is False
    assert sb._base_config_names(_Files({"tests/base.txt": spaced}), "sub") is False
    assert sb._base_config_names(_Files({"conf/base.toml": spaced}), "sub") is False
    assert sb._base_config_names(_Files({"tests/a/b/base.toml": spaced}), "sub") is False
    assert sb._base_config_names(_Files({"tests/base.toml": "[model]\n"}), "sub") is False


def test_runs_of_a_nested_folder_keep_each_cases_flags_and_config_texts(tmp_path) -> None:
    # The folder is the last part of a nested sub-project path; each case keeps its own
    # flags (by their last dotted part) and the text of the config file and registry
    # config it loads, one per line. A registry name given to another flag loads nothing,
    # nor does a config the registry lacks; a workflow naming a registry config runs it.
    toml = "[training]\nsteps = 7\n"
    cases = _cases(_case("--module sub --config m_fast", "--job.config_file ./tests/c.toml",
                         "--parallelism.context_parallel_degree 2", "--job.note m_debug"),
                   _case("--module sub --config m_gone"),
                   _case("--module other --config o_debug"))
    head = {"core/dims.py": DIMS, "models/sub/parallelize.py": PARALLELIZE,
            "models/sub/config_registry.py": REGISTRY, "tests/c.toml": toml,
            "tests/integration_tests/models.py": cases}

    def nested(root, files):
        inp = minirepo.build(root, head=files, target=TARGET)
        return dataclasses.replace(inp, target=dataclasses.replace(inp.target,
                                                                   subproject="models/sub"))

    inp = nested(tmp_path, head)
    run = sb.runs(inp)
    assert run.cases == ("tests/integration_tests/models.py",)
    fast = sb._registry_functions(inp, "models/sub/config_registry.py")["m_fast"]
    assert sorted(run.per_case, key=lambda c: sorted(c[0]["config"])) == [
        ({"module": {"sub"}, "config": {"m_fast"}, "config_file": {"./tests/c.toml"},
          "note": {"m_debug"}, "context_parallel_degree": {"2"}}, toml + "\n" + fast),
        ({"module": {"sub"}, "config": {"m_gone"}}, "")]
    assert fast in run.text and "flavor=" not in run.text
    ci = {".github/workflows/ci.yaml": "steps:\n  - run: train m_debug\n"}
    assert "flavor=" in sb.runs(nested(tmp_path / "w", {**head, **ci})).text
