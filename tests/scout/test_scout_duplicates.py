"""Duplicated logic compared call by call and name by name (issue #9, findings 2 and
5), lossy config copies (3) and hand-rolled construction where upstream has a factory
(4). Each on a small fixture repository, with match and no-match cases."""

from __future__ import annotations

from agentops.scout.analyses import configcopy, duplicates, factories
from tests.scout import minirepo

PAIR = "duplicate_logic:\n  - {ours: [sub/par.py], upstream: [core/par.py], why: parallelism}\n"

CORE_PAR = """\
    from core.cp import apply_cp


    def apply_tp(model, mesh, *, enable_cp=False, enable_sp=True, float8=False):
        return model


    def parallelize(model, dims, par):
        apply_tp(model, dims.mesh, enable_cp=dims.cp_enabled, enable_sp=par.sp,
                 float8=False)
        if dims.cp_enabled:
            apply_cp(model)
        return model
"""


def _call_drift(tmp_path, ours: str, core: str = CORE_PAR, base: dict | None = None):
    files = {"core/par.py": core, "core/cp.py": "def apply_cp(model):\n    return model\n",
             "sub/par.py": ours}
    return duplicates.call_drift(minirepo.build(tmp_path, head=files, base=base,
                                                target=PAIR))


def test_keyword_upstream_passes_and_ours_omits(tmp_path) -> None:
    ours = """\
        from core.par import apply_tp


        def parallelize(model, dims, par):
            apply_tp(model, dims.mesh)
            return model
    """
    [d] = _call_drift(tmp_path, ours)
    assert (d.callee, d.ours, d.upstream) == ("apply_tp", "sub/par.py:5", "core/par.py:9")
    # float8=False equals the default: passing it changes nothing, so it is not drift.
    assert d.missing == ("enable_cp", "enable_sp")
    assert d.values == ("enable_cp=dims.cp_enabled", "enable_sp=par.sp")


def test_no_drift_when_ours_passes_them_or_positionally(tmp_path) -> None:
    ours = """\
        from core.par import apply_tp


        def parallelize(model, dims, par):
            apply_tp(model, dims.mesh, enable_cp=dims.cp_enabled, enable_sp=par.sp)
            return model
    """
    assert _call_drift(tmp_path, ours) == []


def test_same_name_from_another_module_is_not_the_same_callee(tmp_path) -> None:
    ours = """\
        from sub.tp import apply_tp


        def parallelize(model, dims, par):
            apply_tp(model, dims.mesh)
            return model
    """
    assert _call_drift(tmp_path, ours) == []


def test_keyword_the_callee_no_longer_accepts(tmp_path) -> None:
    ours = """\
        from core.par import apply_tp


        def parallelize(model, dims, par):
            apply_tp(model, dims.mesh, enable_cp=dims.cp_enabled, enable_sp=par.sp,
                     async_tp=True)
            return model
    """
    [d] = _call_drift(tmp_path, ours)
    assert d.extra == ("async_tp",) and d.missing == ()


def test_gated_call_ours_never_makes(tmp_path) -> None:
    ours = """\
        from core.par import apply_tp


        def data_parallel(model, mode):
            return model


        def parallelize(model, dims, par):
            apply_tp(model, dims.mesh, enable_cp=dims.cp_enabled, enable_sp=par.sp)
            if dims.dp_enabled or dims.cp_enabled:
                model = data_parallel(model, "fully_shard")
            return model
    """
    inp = minirepo.build(tmp_path, head={
        "core/par.py": CORE_PAR, "core/cp.py": "def apply_cp(model):\n    return model\n",
        "sub/par.py": ours}, target=PAIR)
    [d] = duplicates.divergences(inp, duplicates.call_drift(inp))
    assert (d.ours_function, d.upstream_function, d.calls) == (
        "parallelize", "parallelize", ("apply_cp",))
    assert d.ours == "sub/par.py:8"


def test_gated_call_with_a_counterpart_of_its_own_is_a_design_choice(tmp_path) -> None:
    ours = """\
        from core.par import apply_tp


        def apply_graph_cp(model):
            return model


        def parallelize(model, dims, par):
            apply_tp(model, dims.mesh, enable_cp=dims.cp_enabled, enable_sp=par.sp)
            if dims.cp_enabled:
                model = apply_graph_cp(model)
            return model
    """
    inp = minirepo.build(tmp_path, head={
        "core/par.py": CORE_PAR, "core/cp.py": "def apply_cp(model):\n    return model\n",
        "sub/par.py": ours}, target=PAIR)
    assert duplicates.divergences(inp, []) == []


MESH_CORE = """\
    from core.fsdp import resolve_mesh


    def parallelize(model, dims, par):
        if par.backend in ("typed", "full"):
            mesh = resolve_mesh(dims)
        else:
            mesh = dims.mesh
        return model, mesh
"""


def _backend_divergences(tmp_path, guard: str):
    ours = f"""\
        def parallelize(model, dims, par):
            if {guard}:
                raise NotImplementedError("only the plain backend is supported")
            mesh = dims.mesh
            return model, mesh
    """
    inp = minirepo.build(tmp_path, head={
        "core/par.py": MESH_CORE, "core/fsdp.py": "def resolve_mesh(d):\n    return d\n",
        "sub/par.py": ours}, target=PAIR)
    return duplicates.divergences(inp, [])


def test_gated_call_in_a_mode_ours_refuses_is_not_missing(tmp_path) -> None:
    # (#15) Upstream resolves the mesh only for the typed/full backends; ours raises for
    # any backend but "plain" before it could need that call.
    assert _backend_divergences(tmp_path, 'par.backend != "plain"') == []
    assert _backend_divergences(tmp_path / "b", 'par.backend not in ("plain",)') == []


def test_gated_call_in_a_mode_ours_accepts_is_still_missing(tmp_path) -> None:
    # Ours refuses only "full": under "typed" it would need the call upstream makes.
    [d] = _backend_divergences(tmp_path, 'par.backend == "full"')
    assert d.calls == ("resolve_mesh",)
    [d] = _backend_divergences(tmp_path / "b", 'par.backend not in ("plain", "typed")')
    assert d.calls == ("resolve_mesh",)


SAC_CORE = """\
    import torch


    def _apply_op_sac(module, ac_config: ACConfig, *, base_fqn=None):
        fqns = ac_config.force_recompute_fqns
        if fqns:
            for name in fqns:
                print(name)
        mm_ops = (torch.ops.aten.mm.default, torch.ops.aten.linear.default)
        def policy(func, *args):
            if func == torch.ops.aten._to_copy.default:
                return "save"
            if func in mm_ops:
                return "recompute"
            return "save"
        if ac_config.debug:
            log("debug")  # logging only: not a behaviour the copy lacks
        return wrap(module, policy, preserve_rng_state=ac_config.preserve_rng_state)
"""
SAC_OURS = """\
    import torch


    def apply_sac_pass(gm, ops=None):
        mm_count = 0
        for node in gm.graph.nodes:
            if node.target is torch.ops.aten.mm.default:
                mm_count += 1
                policy = "recompute" if mm_count % 2 == 0 else "save"
            elif node.target in ops:
                policy = "save"
            else:
                policy = "recompute"
            node.meta["recompute"] = policy
        return gm
"""


def test_ops_and_config_fields_upstream_copy_has(tmp_path) -> None:
    target = "duplicate_logic:\n  - {ours: [sub/passes.py], upstream: [core/ac.py]}\n"
    inp = minirepo.build(tmp_path, head={"core/ac.py": SAC_CORE, "sub/passes.py": SAC_OURS},
                         target=target)
    [d] = duplicates.divergences(inp, [])
    assert (d.ours_function, d.upstream_function) == ("apply_sac_pass", "_apply_op_sac")
    assert d.ops == ("aten._to_copy.default", "aten.linear.default")
    # force_recompute_fqns decides something; preserve_rng_state is only passed on, and
    # debug only gates a log line.
    assert d.config_fields == ("force_recompute_fqns",)


def test_no_divergence_when_ours_has_them(tmp_path) -> None:
    ours = SAC_OURS.replace("torch.ops.aten.mm.default:", "(torch.ops.aten.mm.default, "
                            "torch.ops.aten.linear.default, torch.ops.aten._to_copy.default):")
    ours += "    def fqns(cfg):\n        return cfg.force_recompute_fqns\n"
    target = "duplicate_logic:\n  - {ours: [sub/passes.py], upstream: [core/ac.py]}\n"
    inp = minirepo.build(tmp_path, head={"core/ac.py": SAC_CORE, "sub/passes.py": ours},
                         target=target)
    assert duplicates.divergences(inp, []) == []


# --- lossy config copies --------------------------------------------------------------------

COPY_TARGET = """\
config_drift:
  copies:
    - source: {name: Trainer.Config, file: core/trainer.py}
      copy_function: {name: convert, file: sub/conv.py}
"""
CORE_TRAINER = """\
    from dataclasses import dataclass, field


    @dataclass
    class ACConfig:
        mode: str = "none"
        preserve_rng_state: bool = False
        budget: float = 1.0
        _owner: str = ""


    class Trainer:
        @dataclass
        class Config:
            ac: ACConfig = field(default_factory=ACConfig)
            profiler: object = None
"""


def _lossy(tmp_path, body: str) -> list[configcopy.LossyCopy]:
    conv = ("from dataclasses import fields, replace\nfrom core.trainer import ACConfig\n\n\n"
            "def convert(base):\n    d = {f.name: getattr(base, f.name) for f in "
            "fields(base)}\n" + body + "    return d\n")
    inp = minirepo.build(tmp_path, head={"core/trainer.py": CORE_TRAINER, "sub/conv.py": conv},
                         target=COPY_TARGET)
    return configcopy.lossy_copies(inp)


def test_fresh_default_drops_the_users_sub_fields(tmp_path) -> None:
    [c] = _lossy(tmp_path, "    ac = d.get('ac')\n    if ac is not None:\n"
                           "        d['ac'] = ACConfig(mode='selective')\n")
    assert (c.kind, c.field, c.line) == ("fresh default", "ac", 9)
    assert c.lost == ("preserve_rng_state", "budget")  # private _owner is not the user's
    assert c.replacement == "dataclasses.replace(ac, mode='selective')"


def test_replace_or_spread_keeps_them(tmp_path) -> None:
    assert _lossy(tmp_path, "    d['ac'] = replace(d['ac'], mode='selective')\n") == []
    assert _lossy(tmp_path / "b", "    ac = d.get('ac')\n    d['ac'] = ACConfig(**{f.name: "
                                  "getattr(ac, f.name) for f in fields(ac)})\n") == []


def test_in_place_mutation_through_the_shallow_copy(tmp_path) -> None:
    [c] = _lossy(tmp_path, "    prof = d.get('profiler')\n    if prof is not None:\n"
                           "        prof.post = 1\n")
    assert (c.kind, c.field, c.code) == ("in-place mutation", "profiler", "prof.post = 1")
    # Reassigning a copy first is fine.
    assert _lossy(tmp_path / "b", "    prof = replace(d['profiler'])\n    prof.post = 1\n"
                                  "    d['profiler'] = prof\n") == []


# --- hand-rolled construction ---------------------------------------------------------------

DIMS = """\
    from dataclasses import dataclass


    @dataclass
    class ParallelDims:
        dp: int
        tp: int
        world: int
"""
FACTORY = DIMS + """\

        @classmethod
        def from_config(cls, par, world):
            return cls(dp=par.dp_degree, tp=par.tp_degree, world=world)
"""


def test_hand_rolled_construction_of_a_class_with_a_new_factory(tmp_path) -> None:
    launch = ("from core.dims import ParallelDims\n\n\ndef dims(par, n):\n"
              "    return ParallelDims(dp=par.dp_degree, tp=par.tp_degree, world=n)\n")
    inp = minirepo.build(tmp_path, base={"core/dims.py": DIMS, "sub/launch.py": launch},
                         head={"core/dims.py": FACTORY})
    [h] = factories.hand_rolled(inp)
    assert (h.cls, h.factory, h.file, h.line, h.new_in_window) == (
        "ParallelDims", "from_config", "sub/launch.py", 5, True)
    assert h.shared == ("dp", "tp", "world")


def test_constants_or_tests_are_not_hand_rolled_configs(tmp_path) -> None:
    consts = ("from core.dims import ParallelDims\n\n\ndef dims():\n"
              "    return ParallelDims(dp=1, tp=1, world=8)\n")
    inp = minirepo.build(tmp_path, head={
        "core/dims.py": FACTORY, "sub/launch.py": consts,
        "sub/tests/test_x.py": consts.replace("dp=1", "dp=par.dp_degree")})
    assert factories.hand_rolled(inp) == []


def test_a_literal_where_the_factory_reads_the_config_is_a_deliberate_override(
        tmp_path) -> None:
    # (#22, set 22 kind a) a wrapper that pins one degree (``tp=1``) and reads the rest
    # from the source builds another object than the factory would: no finding.
    pinned = ("from core.dims import ParallelDims\n\n\ndef dims(par, n):\n"
              "    return ParallelDims(dp=par.dp_degree, tp=1, world=n)\n")
    inp = minirepo.build(tmp_path, head={"core/dims.py": FACTORY, "sub/launch.py": pinned})
    assert factories.hand_rolled(inp) == []


def test_what_a_hand_rolled_construction_leaves_out_decides_its_severity(tmp_path) -> None:
    # (#22, sets 4 and 22) every keyword passed from the source: a clean-up (an
    # opportunity); a keyword of the factory left out: that field drifts (an action).
    from agentops.scout.itemize import debt as debt_items

    same = ("from core.dims import ParallelDims\n\n\ndef dims(par, n):\n"
            "    return ParallelDims(dp=par.dp_degree, tp=par.tp_degree, world=n)\n")
    short = same.replace(", world=n)", ")")
    found = {}
    for name, src in (("same", same), ("short", short)):
        inp = minirepo.build(tmp_path / name, head={"core/dims.py": FACTORY,
                                                    "sub/launch.py": src})
        [h] = factories.hand_rolled(inp)
        [item] = debt_items._factories(inp, {"hand_rolled_constructions": [h]})
        found[name] = (h.omitted, item.kind)
    assert found == {"same": ((), "opportunity"), "short": (("world",), "action")}


def test_same_callee_through_a_re_export(tmp_path) -> None:
    # ours imports apply_tp from a module that only re-exports core's: the same callee.
    ours = """\
        from sub.reexport import apply_tp


        def parallelize(model, dims, par):
            apply_tp(model, dims.mesh)
            return model
    """
    files = {"core/par.py": CORE_PAR, "core/cp.py": "def apply_cp(model):\n    return model\n",
             "sub/reexport.py": "from core.par import apply_tp\n", "sub/par.py": ours}
    inp = minirepo.build(tmp_path / "r", head=files, target=PAIR)
    [d] = duplicates.call_drift(inp)
    assert d.missing == ("enable_cp", "enable_sp")


def test_function_imported_from_core_against_its_upstream_callers(tmp_path) -> None:
    lib = "def build(model, *, fast=False, seed=0):\n    return model\n"
    caller = ("from core.lib import build\n\n\ndef f{n}(m, cfg):\n"
              "    return build(m, fast=cfg.fast, seed=1)\n")
    ours = ("from core.lib import build\n\n\ndef mine(m, cfg):\n    return build(m, seed=1)\n")
    inp = minirepo.build(tmp_path, head={
        "core/lib.py": lib, "core/a.py": caller.format(n=1), "core/b.py": caller.format(n=2),
        "sub/use.py": ours})
    [d] = duplicates.call_drift(inp)
    assert (d.callee, d.ours, d.missing) == ("build", "sub/use.py:5", ("fast",))
    assert d.why == "upstream's 2 callers"
    # One upstream caller is an example, not a convention.
    inp1 = minirepo.build(tmp_path / "one", head={
        "core/lib.py": lib, "core/a.py": caller.format(n=1), "sub/use.py": ours})
    assert duplicates.call_drift(inp1) == []


INIT_CORE = """\
    from core.cp import apply_cp


    class Trainer:
        def __init__(self, cfg):
            if cfg.cp_enabled:
                apply_cp(self)
            self.model = cfg.model
"""


def test_a_method_calling_super_inherits_what_upstreams_does(tmp_path) -> None:
    """#22 defect 6: ``__init__`` that calls ``super().__init__`` runs core's code; no
    "lacks what upstream's __init__ handles" for what it inherits."""
    target = "duplicate_logic:\n  - {ours: [sub/t.py], upstream: [core/t.py]}\n"
    head = {"core/t.py": INIT_CORE, "core/cp.py": "def apply_cp(m):\n    return m\n"}
    inherits = """\
        from core.t import Trainer


        class MyTrainer(Trainer):
            def __init__(self, cfg):
                super().__init__(cfg)
                if cfg.cp_enabled:
                    self.extra = 1
    """
    inp = minirepo.build(tmp_path / "a", head={**head, "sub/t.py": inherits}, target=target)
    assert duplicates.divergences(inp, []) == []
    # No match: re-implemented without super(), the gated call it skips is divergence.
    reimplemented = inherits.replace("super().__init__(cfg)", "self.model = cfg.model")
    inp = minirepo.build(tmp_path / "b", head={**head, "sub/t.py": reimplemented},
                         target=target)
    [d] = duplicates.divergences(inp, [])
    assert d.ours_function == "__init__" and d.calls == ("apply_cp",)


def test_gated_call_under_a_condition_ours_raises_on_is_not_missing(tmp_path) -> None:
    """#22: upstream calls ``apply_cp`` under ``if dims.cp_enabled``; ours raises
    NotImplementedError under that very condition first (CP not supported yet)."""
    refuses = """\
        from core.par import apply_tp


        def parallelize(model, dims, par):
            if dims.cp_enabled:
                raise NotImplementedError("not supported yet")
            apply_tp(model, dims.mesh, enable_cp=dims.cp_enabled, enable_sp=par.sp)
            return model
    """
    files = {"core/par.py": CORE_PAR, "core/cp.py": "def apply_cp(model):\n    return model\n"}
    inp = minirepo.build(tmp_path, head={**files, "sub/par.py": refuses}, target=PAIR)
    assert duplicates.divergences(inp, duplicates.call_drift(inp)) == []
    # No match: ours only warns under that condition and goes on: the call is missing.
    warns = refuses.replace('raise NotImplementedError("not supported yet")', 'print("slow")')
    inp = minirepo.build(tmp_path / "b", head={**files, "sub/par.py": warns}, target=PAIR)
    [d] = duplicates.divergences(inp, duplicates.call_drift(inp))
    assert d.calls == ("apply_cp",)
