"""#22 S-3: a registry config that builds exactly what a sibling builds (the same
returned call, or the sibling's config with overrides that change nothing) is a
misleading duplicate; a variant whose override differs is not. Fixture registry,
match and no-match."""

from __future__ import annotations

from agentops.scout import analyses
from agentops.scout.analyses import dupconfigs
from agentops.scout.itemize import tests as tests_items
from tests.scout import minirepo

REGISTRY = '''\
def debug() -> Config:
    return Config(spec=registry("debug"), steps=10, parallel=Par(ep=1))


def debug_ep() -> Config:
    config = debug()
    config.spec = registry("debug")
    return config


def debug_flex() -> Config:
    config = debug()
    config.spec = registry("debug", attn="flex")
    return config


def debug_flex_ep() -> Config:
    """Flex attention with EP."""
    config = debug()
    config.spec = registry("debug", attn="flex")
    return config


def big() -> Config:
    return Config(spec=registry("big"), steps=10, parallel=Par(ep=1))


def big_ep() -> Config:
    config = big()
    config.parallel = Par(ep=8)
    return config
'''


def _inp(tmp_path, registry: str):
    return minirepo.build(tmp_path, head={"sub/__init__.py": "",
                                          "sub/config_registry.py": registry})


def test_a_variant_that_builds_what_its_sibling_builds_is_a_duplicate(tmp_path) -> None:
    found = dupconfigs.analyse(_inp(tmp_path, REGISTRY))
    assert sorted(d.names for d in found) == [("debug", "debug_ep"),
                                              ("debug_flex", "debug_flex_ep")]
    assert all(d.file == "sub/config_registry.py" for d in found)
    inp = _inp(tmp_path / "i", REGISTRY)
    dup = [i for i in tests_items.items(inp, analyses.run_all(inp))
           if "build the same config" in i.title]
    assert len(dup) == 2 and all(i.kind == "opportunity" for i in dup)
    assert any("`debug_flex` (:11), `debug_flex_ep` (:17)" in i.title for i in dup)


def test_a_variant_whose_override_differs_is_no_duplicate(tmp_path) -> None:
    differs = REGISTRY.replace('    config.spec = registry("debug")\n',
                               '    config.parallel = Par(ep=2)\n').replace(
        'config.spec = registry("debug", attn="flex")\n    return config\n'
        '\n\ndef big',
        'config.spec = registry("debug", attn="flex")\n    config.steps = 5\n'
        '    return config\n\n\ndef big')
    assert dupconfigs.analyse(_inp(tmp_path, differs)) == []
    # placeholders returning the same literal build no config worth comparing
    literal = "def a() -> dict:\n    return {}\n\n\ndef b() -> dict:\n    return {}\n"
    assert dupconfigs.analyse(_inp(tmp_path / "l", literal)) == []

