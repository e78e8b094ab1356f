"""#22 settings a copied function never reads (``copiedsettings``). Match: a function of
the folder named like a function of a module outside it that the same file imports from,
reading config settings of its own, that never reads settings the original reads (a job
config's ``section.field`` and a section parameter's ``field`` alike). No-match: a wrapper
calling the original, a setting the folder reads elsewhere, a section or whole config the
copy hands to a call the original does not, a section the original only hands on, a
function reading no setting, tests, a module the file does not import from. All trees are
made up."""

from __future__ import annotations

from agentops.scout.analyses import copiedsettings
from agentops.scout.itemize import debt
from tests.scout import minirepo

CORE = '''\
from core.config import JobConfig, TrainingConfig


def wrap(model, job_config: JobConfig):
    if job_config.parallelism.context_degree > 1 and model.uses_masks:
        raise ValueError("masks under context split")
    apply_tp(model, job_config.parallelism.tp_degree)
    shard(model, keep=job_config.parallelism.keep_after_forward,
          offload=job_config.training.offload)
    return model


def build(model, training: TrainingConfig):
    return make(model, training.steps, training.offload)


def apply_tp(model, degree):
    return model
'''

OURS = '''\
from core.config import JobConfig, TrainingConfig
from core.wrap import apply_tp


def wrap(model, job_config: JobConfig):
    apply_tp(model, job_config.parallelism.tp_degree)
    return my_shard(model)


def build(model, training: TrainingConfig | None = None):
    return make(model, training.steps)
'''


def _run(tmp_path, files: dict[str, str]):
    inp = minirepo.build(tmp_path, head={"core/wrap.py": CORE, **files})
    return inp, copiedsettings.analyse(inp)


def test_settings_the_original_reads_and_the_copy_never_does(tmp_path) -> None:
    inp, found = _run(tmp_path, {"sub/wrap.py": OURS})
    assert [(f.file, f.line, f.function, f.original, f.original_line, f.import_line,
             f.missing) for f in found] == [
        ("sub/wrap.py", 10, "build", "core/wrap.py", 13, 2, (("training.offload", 14),)),
        ("sub/wrap.py", 5, "wrap", "core/wrap.py", 4, 2,
         (("parallelism.context_degree", 5), ("parallelism.keep_after_forward", 8),
          ("training.offload", 9)))]
    items = debt._copied_settings(inp, {"copied_settings": found})
    assert [i.kind for i in items] == ["opportunity", "opportunity"]
    assert items[1].title == (
        "`wrap` (wrap.py:5) re-implements `wrap` of core/wrap.py:4 (imported from at :2) but "
        "never reads 3 settings the original acts on: `parallelism.context_degree` (:5), "
        "`parallelism.keep_after_forward` (:8), `training.offload` (:9)")
    assert items[1].files == ("sub/wrap.py", "core/wrap.py") and items[1].section == "S-4"
    assert items[1].facts == ("parallelism.context_degree", "parallelism.keep_after_forward",
                              "training.offload")


def test_wrappers_readers_handoffs_and_unrelated_functions_are_not(tmp_path) -> None:
    wrapper = '''\
from core.config import JobConfig
from core.wrap import wrap as core_wrap


def wrap(model, job_config: JobConfig):
    return core_wrap(model, degree=job_config.parallelism.tp_degree)
'''
    elsewhere = '''\
from core.config import JobConfig
from core.wrap import apply_tp


def wrap(model, job_config: JobConfig):
    apply_tp(model, job_config.parallelism.tp_degree)
    return model
'''
    honours = '''\
def finish(model, cfg):
    if cfg.parallelism.context_degree > 1:
        raise ValueError("no context split")
    return keep(model, cfg.keep_after_forward, cfg.training.offload)
'''
    handed = '''\
from core.config import JobConfig, TrainingConfig
from core.wrap import apply_tp


def wrap(model, job_config: JobConfig):
    apply_tp(model, job_config.parallelism.tp_degree)
    return my_wrap(model, job_config)


def build(model, training: TrainingConfig):
    return my_make(model, training.steps, training)
'''
    unrelated = '''\
from core.wrap import apply_tp


def wrap(model, degree):
    return apply_tp(model, degree)
'''
    no_import = '''\
from core.config import JobConfig


def wrap(model, job_config: JobConfig):
    return model.to(job_config.parallelism.tp_degree)
'''
    assert _run(tmp_path / "a", {"sub/wrap.py": wrapper})[1] == []
    assert _run(tmp_path / "b", {"sub/wrap.py": elsewhere, "sub/finish.py": honours})[1] == []
    assert _run(tmp_path / "c", {"sub/wrap.py": handed})[1] == []
    assert _run(tmp_path / "d", {"sub/wrap.py": unrelated, "sub/tests/test_wrap.py": OURS}
                )[1] == []
    assert _run(tmp_path / "e", {"sub/wrap.py": no_import})[1] == []
    reads_none = '''\
from core.config import JobConfig
from core.wrap import apply_tp


def wrap(model, job_config: JobConfig):
    return apply_tp(model, 2)
'''
    assert _run(tmp_path / "f", {"sub/wrap.py": reads_none})[1] == []


def test_sections_the_original_hands_on_are_no_settings(tmp_path) -> None:
    core = '''\
from core.config import JobConfig


def wrap(model, job_config: JobConfig):
    apply_tp(model, job_config.parallelism.tp_degree)
    attach(model, job_config.training)
    convert(model, job_config.quant.fp8)
    if job_config.quant.fp8.recipe == "rowwise":
        model.rowwise = True
    return model
'''
    ours = '''\
from core.config import JobConfig
from core.wrap import attach


def wrap(model, job_config: JobConfig):
    return model.to(job_config.parallelism.tp_degree)
'''
    inp = minirepo.build(tmp_path, head={"core/wrap.py": core, "sub/wrap.py": ours})
    [found] = copiedsettings.analyse(inp)
    # `job_config.training` is handed on whole and read no deeper, but the parameter is
    # read three names deep; `job_config.quant.fp8` is read further: both are sections.
    assert found.missing == (("fp8.recipe", 8),)
