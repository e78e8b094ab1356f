"""Registry of the scout's analyses, run in order over one ``Inputs``: name →
function ``(inputs, results so far) -> result``. The names are the ``--json`` keys.

Pure: every analysis reads ``Inputs`` only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentops.scout.analyses import ci, coverage, debt, docs, todos, upstream
from agentops.scout.model import Inputs

Analysis = Callable[[Inputs, dict[str, Any]], Any]


def _open_work(inp: Inputs, _done: dict[str, Any]) -> Any:
    return inp.live.open_work


REGISTRY: dict[str, Analysis] = {
    "upstream_commits": lambda inp, _: upstream.commits(inp),
    "fragile_surface_changes": lambda inp, _: upstream.fragile_changes(inp),
    "monkey_patches": lambda inp, _: upstream.patch_sites(inp),
    "stale_patches": lambda inp, done: upstream.stale_patches(inp, done["monkey_patches"]),
    "config_drift": lambda inp, _: upstream.config_drift(inp),
    "new_apis": lambda inp, _: upstream.new_apis(inp),
    "new_models": lambda inp, _: upstream.new_models(inp),
    "todos": lambda inp, _: todos.collect(inp),
    "ci": lambda inp, _: ci.analyse(inp),
    "coverage_gaps": lambda inp, _: coverage.parallelism_gaps(inp)
    + coverage.untested_new_code(inp),
    "passes_without_tests": lambda inp, _: coverage.passes_without_tests(inp),
    "configs_without_tests": lambda inp, _: coverage.configs_without_tests(inp),
    "private_api_uses": lambda inp, _: debt.private_api_uses(inp),
    "duplicate_logic_changes": lambda inp, _: debt.duplicate_changes(inp),
    "doc_inaccuracies": lambda inp, _: docs.analyse(inp),
    "open_work": _open_work,
}


def run_all(inp: Inputs) -> dict[str, Any]:
    """Every registered analysis, in registry order."""
    done: dict[str, Any] = {}
    for name, fn in REGISTRY.items():
        done[name] = fn(inp, done)
    return done
