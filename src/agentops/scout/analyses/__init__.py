"""Registry of the scout's analyses, run in order over one ``Inputs``: name →
function ``(inputs, results so far) -> result``. The names are the ``--json`` keys.

Pure: every analysis reads ``Inputs`` (and earlier results) only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentops.scout.analyses import (
    bareimports,
    bodydrift,
    borrowedspecs,
    callparity,
    ci,
    cipaths,
    commentconds,
    commentrefs,
    compilechecks,
    componentuse,
    configcopy,
    configfields,
    configkeys,
    copiedsettings,
    corerefs,
    coverage,
    deadclasses,
    deadparams,
    debt,
    declareddeps,
    direction,
    docargs,
    docdirection,
    docmembers,
    docparity,
    docparts,
    docpins,
    docs,
    doctypes,
    docuses,
    dupconfigs,
    duplicates,
    factories,
    fallbacks,
    fieldvalues,
    flavors,
    fqnnames,
    graddivision,
    guardgaps,
    modelhelpers,
    modelprep,
    newcopy,
    outsidewrites,
    ownbinds,
    partreads,
    patches,
    pinnedparams,
    privateattrs,
    refusaldrift,
    savelists,
    settingbranches,
    settingpairs,
    siblingguards,
    siblinghooks,
    siblingimports,
    siblingsettings,
    siblingwraps,
    specflavors,
    stalecopy,
    staleopts,
    swallowed,
    todos,
    unbound,
    upstream,
    usecheck,
)
from agentops.scout.model import Inputs

Analysis = Callable[[Inputs, dict[str, Any]], Any]


def _open_work(inp: Inputs, _done: dict[str, Any]) -> Any:
    return inp.live.open_work


def _checked_docs(inp: Inputs, done: dict[str, Any]) -> list[Any]:
    """The doc checks, and the support claims judged against the code: a claim one of
    them settles is no longer listed as unverified."""
    found = docdirection.analyse(inp)
    return docdirection.settled(docs.analyse(inp, done), found) + found


def _doc_problems(inp: Inputs, done: dict[str, Any]) -> list[Any]:
    """Every doc check; the prose about what a definition stopped doing skips the lines
    another check already reports."""
    found = _checked_docs(inp, done) + commentrefs.analyse(inp) + docparts.analyse(inp) \
        + staleopts.analyse(inp) + docargs.analyse(inp) + docmembers.analyse(inp) \
        + docpins.analyse(inp) + docparity.analyse(inp, done["body_drift"], done["copy_lag"]) \
        + doctypes.analyse(inp) + declareddeps.analyse(inp)
    return found + docuses.analyse(inp, {(p.file, p.line) for p in found})


REGISTRY: dict[str, Analysis] = {
    "upstream_commits": lambda inp, _: upstream.commits(inp),
    "fragile_surface_changes": lambda inp, _: upstream.fragile_changes(inp),
    "use_checks": lambda inp, _: usecheck.discover(inp),
    "body_drift": lambda inp, _: bodydrift.analyse(inp),
    "init_gaps": lambda inp, _: bodydrift.init_gaps(inp),
    "list_drift": lambda inp, _: bodydrift.list_drift(inp),
    "name_copies": lambda inp, _: bodydrift.name_copies(inp),
    "new_copy_keywords": lambda inp, _: newcopy.analyse(inp),
    "core_refs": lambda inp, done: corerefs.analyse(inp, done["use_checks"]),
    "monkey_patches": lambda inp, _: patches.patch_sites(inp),
    "stale_patches": lambda inp, done: patches.patch_changes(inp, done["monkey_patches"])
    + patches.upstream_checks(inp, done["monkey_patches"]),
    "patch_bypasses": lambda inp, done: patches.bypasses(inp, done["monkey_patches"]),
    "listed_patches": lambda inp, done: patches.listed(inp, done["monkey_patches"]),
    "config_drift": lambda inp, _: upstream.config_drift(inp),
    "lossy_config_copies": lambda inp, _: configcopy.lossy_copies(inp),
    "new_apis": lambda inp, _: upstream.new_apis(inp),
    "new_models": lambda inp, _: upstream.new_models(inp),
    "hand_rolled_constructions": lambda inp, _: factories.hand_rolled(inp),
    "call_drift": lambda inp, _: duplicates.call_drift(inp),
    "call_parity": lambda inp, _: callparity.analyse(inp),
    "component_use": lambda inp, _: componentuse.analyse(inp),
    "divergences": lambda inp, done: duplicates.divergences(inp, done["call_drift"]),
    "copy_lag": lambda inp, done: bodydrift.lags(inp, done["body_drift"],
                                                 done["divergences"], done["call_drift"]),
    "stale_copies": lambda inp, _: stalecopy.analyse(inp),
    "todos": lambda inp, _: todos.collect(inp),
    "ci": lambda inp, _: ci.analyse(inp),
    "ci_paths": lambda inp, done: cipaths.analyse(inp, done["ci"]),
    "coverage_gaps": lambda inp, _: coverage.parallelism_gaps(inp)
    + coverage.untested_new_code(inp),
    "model_parity": lambda inp, _: coverage.model_parity(inp, docs.list_flags(inp)),
    "untested_settings": lambda inp, _: coverage.untested_settings(inp,
                                                                   docs.field_paths(inp)),
    "graph_passes": lambda inp, _: coverage.graph_passes(inp),
    "passes_without_tests": lambda inp, _: coverage.passes_without_tests(inp),
    "configs_without_tests": lambda inp, _: coverage.configs_without_tests(inp),
    "duplicate_configs": lambda inp, _: dupconfigs.analyse(inp),
    "untested_branches": lambda inp, _: coverage.untested_branches(inp),
    "setting_branches": lambda inp, _: settingbranches.analyse(inp),
    "setting_pairs": lambda inp, _: settingpairs.analyse(inp),
    "unreached_flavors": lambda inp, _: flavors.analyse(inp),
    "unrun_flavors": lambda inp, _: specflavors.analyse(inp),
    "unselected_values": lambda inp, done: fieldvalues.analyse(inp, frozenset(
        (b.file, b.line) for b in [*done["untested_branches"],
                                   *done["setting_branches"].branches])),
    "dead_parameters": lambda inp, _: deadparams.analyse(inp),
    "config_fields": lambda inp, _: configfields.analyse(inp),
    "config_keys": lambda inp, _: configkeys.analyse(inp),
    "fqn_names": lambda inp, _: fqnnames.analyse(inp),
    "part_member_reads": lambda inp, _: partreads.analyse(inp),
    "skipped_preparations": lambda inp, _: modelprep.analyse(inp),
    "unbound_names": lambda inp, _: unbound.analyse(inp),
    "own_binds": lambda inp, _: ownbinds.analyse(inp),
    "refusal_drift": lambda inp, _: refusaldrift.analyse(inp),
    "guard_gaps": lambda inp, _: guardgaps.analyse(inp),
    "save_list_gaps": lambda inp, _: savelists.analyse(inp),
    "pinned_parameters": lambda inp, _: pinnedparams.analyse(inp),
    "compiled_checks": lambda inp, _: compilechecks.analyse(inp),
    "sibling_guards": lambda inp, _: siblingguards.analyse(inp),
    "sibling_hooks": lambda inp, _: siblinghooks.analyse(inp),
    "borrowed_specs": lambda inp, done: borrowedspecs.analyse(inp, done["sibling_hooks"]),
    "sibling_imports": lambda inp, _: siblingimports.analyse(inp),
    "model_helpers": lambda inp, _: modelhelpers.analyse(inp),
    "outside_writes": lambda inp, _: outsidewrites.analyse(inp),
    "bare_imports": lambda inp, _: bareimports.analyse(inp),
    "comment_conditions": lambda inp, _: commentconds.analyse(inp),
    "gradient_divisions": lambda inp, _: graddivision.analyse(inp),
    "sibling_wraps": lambda inp, _: siblingwraps.analyse(inp),
    "sibling_settings": lambda inp, _: siblingsettings.analyse(inp),
    "ignored_settings": lambda inp, _: fallbacks.analyse(inp),
    "copied_settings": lambda inp, _: copiedsettings.analyse(inp),
    "dead_classes": lambda inp, _: deadclasses.analyse(inp),
    "private_api_uses": lambda inp, _: debt.private_api_uses(inp),
    "private_attributes": lambda inp, _: privateattrs.analyse(inp),
    "swallowed_errors": lambda inp, _: swallowed.analyse(inp),
    "duplicate_logic_changes": lambda inp, _: debt.duplicate_changes(inp),
    "reversed_copies": lambda inp, _: direction.reversed_pairs(inp),
    "doc_inaccuracies": _doc_problems,
    "open_work": _open_work,
}


def run_all(inp: Inputs) -> dict[str, Any]:
    """Every registered analysis, in registry order."""
    done: dict[str, Any] = {}
    for name, fn in REGISTRY.items():
        done[name] = fn(inp, done)
    return done
