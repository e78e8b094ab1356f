"""Fragile surfaces (issue #9, finding 7): signature changes classified by what they
break (griffe's breakage kinds), monkey-patches judged by kind (a wrapper forwarding
every argument stays valid), upstream subclasses a patch never reaches, listed patch
targets that no longer exist, and upstream changes the sub-project never names kept
out of P0/P1. Small fixture repositories, match and no-match."""

from __future__ import annotations

from agentops.scout.analyses import patches, pysource, signatures, upstream
from agentops.scout.itemize import delta
from tests.scout import minirepo


def _fn(src: str):
    return pysource.find(pysource.parse(src), "f")


def test_breakage_kinds_decide_severity() -> None:
    old = _fn("def f(self, x, y=1, *, z=2): pass")
    cases = {
        "def f(self, x, y=1): pass": ("z", "removed", "blocking"),
        "def f(self, x, w, y=1, *, z=2): pass": ("w", "added as required", "blocking"),
        "def f(self, x, *, y=1, z=2): pass": ("y", "changed kind", "blocking"),
        "def f(self, x, y=5, *, z=2): pass": ("y", "default changed", "should-fix"),
        "def f(self, x, y=1, *, z=2, q=None): pass": ("q", "added (optional)",
                                                      "nice-to-have"),
    }
    for new, want in cases.items():
        found = signatures.breakages(old, _fn(new))
        assert (found[0].param, found[0].what, found[0].severity) == want, new
    assert signatures.breakages(old, _fn("def f(self, x, y=1, *, z=2): pass")) == []


def test_forwarding_wrapper_detection() -> None:
    assert signatures.forwards_everything(_fn("def f(*a, **k):\n    return g(*a, **k)"))
    assert not signatures.forwards_everything(_fn("def f(*a, **k):\n    return g(a)"))
    assert not signatures.forwards_everything(_fn("def f(self, x):\n    return g(x)"))


CORE_OLD = "class MoE:\n    def forward(self, x):\n        return x\n"
CORE_NEW = "class MoE:\n    def forward(self, x, scores):\n        return x\n"


def _patch(tmp_path, sub: str, head_core: str = CORE_NEW):
    inp = minirepo.build(tmp_path, base={"core/moe.py": CORE_OLD, "sub/p.py": sub},
                         head={"core/moe.py": head_core})
    sites = patches.patch_sites(inp)
    return sites, patches.patch_changes(inp, sites)


def test_forwarder_patch_stays_valid_and_is_no_stale_claim(tmp_path) -> None:
    sub = ("from core.moe import MoE\n_orig = MoE.forward\n\n\ndef fwd(self, *args, **kw):\n"
           "    return _orig(self, *args, **kw)\n\n\nMoE.forward = fwd\n")
    sites, [ch] = _patch(tmp_path, sub)
    assert [s.how for s in sites] == ["forwarder"]
    assert ch.verdict == "still valid" and ch.severity == "nice-to-have"
    assert "patch still valid" in ch.change
    [item] = [i for i in delta._patches(minirepo.build(tmp_path / "x", head={}),
                                        {"stale_patches": [ch], "listed_patches": []})]
    assert item.kind == "fyi" and "still valid" in item.title


def test_replacement_that_drops_a_new_argument_is_stale(tmp_path) -> None:
    sub = "from core.moe import MoE\n\n\ndef fwd(self, x):\n    return x\n\n\nMoE.forward = fwd\n"
    sites, [ch] = _patch(tmp_path, sub)
    assert sites[0].how == "replacement" and sites[0].replacement_line == 4
    assert (ch.verdict, ch.severity) == ("stale", "blocking")
    assert ch.change == ("signature changed upstream (`scores` added as required); the "
                         "replacement at sub/p.py:4 does not take `scores`")


def test_restore_and_flag_assignments_are_not_patches(tmp_path) -> None:
    sub = ("from core.moe import MoE\nfrom core.cfg import opts\norig = MoE.forward\n"
           "MoE.forward = wrap(orig)\nMoE.forward = orig\nopts.fast = True\n")
    inp = minirepo.build(tmp_path, head={"core/moe.py": CORE_NEW, "core/cfg.py": "opts = 1\n",
                                         "sub/p.py": sub})
    assert [(s.line, s.how) for s in patches.patch_sites(inp)] == [(4, "wrapper")]


def test_subclass_override_without_super_bypasses_the_patch(tmp_path) -> None:
    core = ("class EP:\n    def dispatch(self, x):\n        return x\n\n\n"
            "class FastEP(EP):\n    def dispatch(self, x):\n        return x * 2\n\n\n"
            "class KindEP(EP):\n    def dispatch(self, x):\n        return super().dispatch(x)\n")
    sub = "from core.ep import EP\nEP.dispatch = wrap(EP.dispatch)\n"
    inp = minirepo.build(tmp_path, head={"core/ep.py": core, "sub/p.py": sub})
    [b] = patches.bypasses(inp, patches.patch_sites(inp))
    assert (b.subclass, b.file, b.line) == ("FastEP", "core/ep.py", 7)


def test_listed_patch_targets_that_are_gone_or_unpatched(tmp_path) -> None:
    target = ("fragile_surfaces:\n  monkey_patches:\n"
              "    - {name: MoE.forward, file: core/moe.py}\n"
              "    - {name: MoE.backward, file: core/moe.py}\n"
              "    - {name: Gone.forward, file: core/moe.py}\n")
    inp = minirepo.build(tmp_path, head={
        "core/moe.py": "class MoE:\n    def forward(self, x):\n        return x\n"
                       "    def backward(self, x):\n        return x\n",
        "sub/p.py": "from core.moe import MoE\nMoE.forward = wrap(MoE.forward)\n"}, target=target)
    got = {(p.name, p.status) for p in patches.listed(inp, patches.patch_sites(inp))}
    assert got == {("Gone.forward", "no longer exists"),
                   ("MoE.backward", "not patched by the code")}


def test_change_the_sub_project_never_names_is_one_fyi_line(tmp_path) -> None:
    target = "fragile_surfaces: {classes: [{name: Cfg, file: core/c.py}]}\n"
    inp = minirepo.build(tmp_path, base={"core/c.py": "class Cfg:\n    a: int = 1\n"
                                                      "    b: int = 2\n"},
                         head={"core/c.py": "class Cfg:\n    a: str = ''\n",
                               "sub/use.py": "def f(cfg):\n    return cfg.a\n"},
                         target=target)
    res = {"fragile_surface_changes": upstream.fragile_changes(inp), "config_drift": [],
           "stale_patches": [], "listed_patches": [], "new_apis": [], "new_models": []}
    got = delta.items(inp, res)
    actions = [i for i in got if i.kind == "action"]
    fyi = [i for i in got if i.kind == "fyi"]
    # `a` is used at sub/use.py:2 (P1 with the line); `b` is named nowhere (FYI).
    assert [(i.priority, i.where) for i in actions] == [("P1", "sub/use.py:2")]
    assert len(fyi) == 1 and "`Cfg.b` (field removed: `b: int`)" in fyi[0].title


def test_new_name_that_moved_is_not_new(tmp_path) -> None:
    inp = minirepo.build(tmp_path, base={"core/old.py": "def helper():\n    pass\n"},
                         head={"core/old.py": None, "core/new.py": "def helper():\n    pass\n"
                               "\n\ndef fresh_api():\n    pass\n"})
    [api] = upstream.new_apis(inp)
    assert api.names == ("fresh_api",)


def test_change_migrated_in_the_same_commit_is_not_at_risk(tmp_path) -> None:
    import dataclasses

    target = "fragile_surfaces: {classes: [{name: Cfg, file: core/c.py}]}\n"
    inp = minirepo.build(tmp_path, base={"core/c.py": "class Cfg:\n    a: int = 1\n",
                                         "sub/use.py": "def f(cfg):\n    return cfg.a\n"},
                         head={"core/c.py": "class Cfg:\n    a: str = ''\n",
                               "sub/use.py": "def f(cfg):\n    return str(cfg.a)\n"},
                         target=target)
    [sha] = [c.sha for c in inp.commits]
    # The head commit changed core/c.py and sub/use.py together.
    inp = dataclasses.replace(inp, commit_files={sha: ("core/c.py", "sub/use.py")})
    [ch] = upstream.fragile_changes(inp)
    assert ch.uses == () and ch.change.endswith("(the sub-project was updated in the same "
                                                "commit)")
    # Changed alone, the sub-project's use is at risk.
    inp = dataclasses.replace(inp, commit_files={sha: ("core/c.py",)})
    [ch] = upstream.fragile_changes(inp)
    assert ch.uses == ("sub/use.py:2",)


def test_a_checked_override_still_declaring_the_removed_parameter_is_not_migrated(
        tmp_path) -> None:
    """#22 (set 23, ds23-args-tokenizer-param): one commit removed ``tok`` from
    ``Base.update`` and also edited the folder's file (its imports); the folder's override
    still declares ``tok``. The code at HEAD decides: the override does not fit the new
    signature, so the change is at risk there, whichever commit touched the file. No
    match: the same commit rewrote the override to the new signature: adapted, no use."""
    import dataclasses

    target = "fragile_surfaces: {functions: [{name: Base.update, file: core/p.py}]}\n"
    core_old = "class Base:\n    def update(self, cfg, tok):\n        return cfg\n"
    core_new = "class Base:\n    def update(self, cfg):\n        return cfg\n"
    user = ("{imp}\n\nclass Mine(Base):\n    def update(self, cfg, tok):\n"
            "        self.vocab = tok.n_words\n")
    base = {"core/__init__.py": "", "core/p.py": core_old, "sub/__init__.py": "",
            "sub/args.py": user.format(imp="from core.p import Base")}
    inp = minirepo.build(tmp_path, base=base,
                         head={"core/p.py": core_new,
                               "sub/args.py": user.format(imp="from core import p\n"
                                                              "from core.p import Base")},
                         target=target)
    [sha] = [c.sha for c in inp.commits]
    inp = dataclasses.replace(inp, commit_files={sha: ("core/p.py", "sub/args.py")})
    [ch] = upstream.fragile_changes(inp)
    assert ch.uses == ("sub/args.py:5",) and "same commit" not in ch.change
    assert ch.severity == "blocking" and "tok" in ch.detail
    # No match: the same commit brought the override to the new signature.
    (tmp_path / "b").mkdir()
    fixed = user.replace("cfg, tok):", "cfg):").replace("tok.n_words", "cfg.vocab")
    inp = minirepo.build(tmp_path / "b", base=base,
                         head={"core/p.py": core_new,
                               "sub/args.py": fixed.format(imp="from core.p import Base")},
                         target=target)
    [sha] = [c.sha for c in inp.commits]
    inp = dataclasses.replace(inp, commit_files={sha: ("core/p.py", "sub/args.py")})
    [ch] = upstream.fragile_changes(inp)
    assert ch.uses == () and ch.adapted == ("sub/args.py:4",)
    # No match: a method of the same name in a class that does not derive from `Base`
    # is no sure use; the commit reading stands (set 8: adapters' `__init__` read against
    # every class's `__init__`).
    (tmp_path / "c").mkdir()
    other = user.replace("class Mine(Base):", "class Mine:")
    inp = minirepo.build(tmp_path / "c", base={**base, "sub/args.py": other.format(
                             imp="from core.p import Base")},
                         head={"core/p.py": core_new, "sub/args.py": other.format(
                             imp="from core import p\nfrom core.p import Base")},
                         target=target)
    [sha] = [c.sha for c in inp.commits]
    inp = dataclasses.replace(inp, commit_files={sha: ("core/p.py", "sub/args.py")})
    [ch] = upstream.fragile_changes(inp)
    assert ch.uses == () and "same commit" in ch.change


def test_new_api_is_an_opportunity_only_where_the_sub_project_hand_rolls_it(tmp_path) -> None:
    inp = minirepo.build(tmp_path, base={"core/util.py": "def old():\n    pass\n"},
                         head={"core/util.py": "def old():\n    pass\n\n\n"
                                              "def build_device_mesh(x):\n    pass\n\n\n"
                                              "def unrelated_helper():\n    pass\n",
                               "sub/mesh.py": "def make_device_mesh(dims):\n    return dims\n"})
    [api] = upstream.new_apis(inp)
    assert api.counterparts == (("build_device_mesh", "make_device_mesh (sub/mesh.py:1)"),)
    got = delta._new(inp, {"new_apis": [api], "new_models": []})
    assert sorted((i.kind, i.facts) for i in got) == [
        ("fyi", ("core/util.py:unrelated_helper",)),
        ("opportunity", ("build_device_mesh", "make_device_mesh"))]
