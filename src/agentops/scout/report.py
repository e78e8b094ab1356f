"""The ``report`` verb: gather (git checkout, prior reports, optional live API data),
run the pure analyses, reconcile with the priors, render, print.

Shell side: reads files and git (through ``gitrepo``), calls ``collect`` lazily for
the API; never writes anywhere but stdout and the ``--out`` file.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import gc
import importlib
import posixpath
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentops import console, files, ghactions, untrusted_files
from agentops.errors import InputError, UsageError
from agentops.scout import embedded, installed, items, render, trusted_repro
from agentops.scout.analyses import (
    bodydrift,
    corerefs,
    declareddeps,
    docparts,
    patches,
    pysource,
    run_all,
    testowner,
    todos,
)
from agentops.scout.config import DEFAULT_TARGET, Target, load_target
from agentops.scout.gitrepo import GitRepo, Tree
from agentops.scout.livedata import LiveData
from agentops.scout.model import Baseline, Inputs, PriorPayload, Report

LIVE_PARTS = ("prior_reports", "board_items", "pulls", "ci", "open_work")
_HEADER_RE = re.compile(r"^# Nightly Scout Report — (\d{4}-\d{2}-\d{2})", re.M)


def _date(value: str, flag: str) -> str:
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError as exc:
        raise InputError(flag, f"{value!r} is not a date", fix="use YYYY-MM-DD") from exc


_SHA_RE = re.compile(r"[0-9a-f]{7,40}")
_ID_RE = re.compile(r"[\w.-]{1,64}")
MAX_PRIOR_BYTES = 1024 * 1024  # a posted report is at most 65,536 characters


def _valid_date(value: object) -> str | None:
    try:
        return dt.date.fromisoformat(str(value)).isoformat()
    except ValueError:
        return None


# The list fields of a prior entry that reconcile iterates (carried, resolved, dropped).
_LIST_FIELDS = ("files", "facts")


def _records(value: object) -> tuple[dict[str, Any], ...]:
    # Sanity: the block is JSON someone may have edited; keep only well-formed entries.
    if not isinstance(value, list):
        return ()
    return tuple(_strings_in_lists(i) for i in value
                 if isinstance(i, dict) and _ID_RE.fullmatch(str(i.get("id"))))


def _strings_in_lists(entry: dict[str, Any]) -> dict[str, Any]:
    # A number there would stop the run when iterated, and a string be read letter by
    # letter (a "file" named "s"): a list field keeps only its strings, else is empty.
    fixed = {key: [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
             for key in _LIST_FIELDS if (value := entry.get(key)) is not None}
    return {**entry, **fixed}


def prior_from_markdown(text: str, *, name: str) -> PriorPayload:
    """One posted report → its payload (the embedded block; the header date alone when
    the block is missing or was hand-edited). Raises ``InputError`` naming ``name`` when
    it is not a report or its date is not a date."""
    block = embedded.extract(text)
    header = _HEADER_RE.search(text)
    if block is not None and block.get("date"):
        date = _valid_date(block["date"])
        if date is None:
            raise InputError("--prior", f"{name}: the embedded block's date "
                             f"{str(block['date'])[:40]!r} is not a date",
                             fix="pass the Markdown of a report as posted, unedited")
        head = str(block.get("head") or "")
        suppressed = block.get("suppressed")
        return PriorPayload(date=date, head=head if _SHA_RE.fullmatch(head) else "",
                            items=_records(block.get("items")),
                            todos=_records(block.get("todos")),
                            suppressed=tuple(str(x) for x in suppressed)
                            if isinstance(suppressed, list) else ())
    if header:
        date = _valid_date(header.group(1))
        if date is None:
            raise InputError("--prior", f"{name}: the heading's date {header.group(1)!r} is "
                             "not a date", fix="pass the Markdown of a report as posted")
        return PriorPayload(date=date)
    raise InputError("--prior", f"{name} is not a scout report (no '# Nightly Scout Report — "
                     "DATE' header and no embedded block)",
                     fix="pass the Markdown of a report as posted")


def read_prior(name: str, *, field: str = "--prior") -> PriorPayload:
    """A ``--prior`` file: a regular UTF-8 file of at most ``MAX_PRIOR_BYTES``."""
    text = files.read_text(name, field=field, limit=MAX_PRIOR_BYTES,
                           fix="pass saved reports as `report --out` wrote them")
    return prior_from_markdown(text, name=name)


def drop_future(priors: list[PriorPayload], names: list[str], date: str
                ) -> list[PriorPayload]:
    """Security: a prior dated after the report date would become the baseline (and
    nothing could be newer); it is ignored, with a warning naming it."""
    kept = []
    for prior, name in zip(priors, names, strict=True):
        if prior.date > date:
            ghactions.warning(f"prior report {name} is dated {prior.date}, after the report "
                              f"date {date}; ignored")
            continue
        kept.append(prior)
    return kept


def _prior_files(args: argparse.Namespace) -> list[str]:
    """``--prior`` files, then every ``*.md`` in ``--prior-dir`` (sorted by name)."""
    names = list(args.prior or [])
    prior_dir = getattr(args, "prior_dir", None)
    if prior_dir:
        folder = Path(prior_dir)
        if not folder.is_dir():
            raise InputError("--prior-dir", f"{prior_dir} is not a directory",
                             fix="pass a directory of earlier reports (*.md), or omit it")
        found = untrusted_files.walk(folder, suffix=".md", max_entries=10_000,
                                     recursive=False)
        names += [str(p) for p in found.files]
        for refused in found.refused:
            ghactions.warning(f"--prior-dir: {refused.path} skipped: {refused.reason}")
    return names


def baseline_for(*, date: str, since: str | None, priors: list[PriorPayload]
                 ) -> tuple[str, str]:
    """S-0a: ``--since`` wins; else the newest prior report's date; else date − 1 day."""
    if since:
        return since, "--since"
    if priors:
        return max(p.date for p in priors), "prior report"
    return (dt.date.fromisoformat(date) - dt.timedelta(days=1)).isoformat(), "first run"


def _live(args: argparse.Namespace, target: Target, since: str) -> LiveData:
    if args.offline:
        return LiveData(skipped=dict.fromkeys(LIVE_PARTS, "offline"))
    try:  # the API side lives in its own module (the other half of the scout)
        collect = importlib.import_module("agentops.scout.collect")
    except ModuleNotFoundError as exc:
        if exc.name != "agentops.scout.collect":
            raise
        return LiveData(skipped=dict.fromkeys(LIVE_PARTS, "live collection unavailable"))
    from agentops.github.client import GitHubClient

    client = GitHubClient.from_env()
    live = collect.collect_live(client, target, since, checkout=args.checkout)
    console.say(client.counter.line(), err=True)
    return live


def _ci_outputs(args: argparse.Namespace, live: LiveData) -> None:
    """ci-red / last-good / first-bad / repro-command for the workflow's bisect job;
    set only after ``trusted_repro`` replaced every logged command (issue #21)."""
    if args.offline:
        return
    try:
        collect = importlib.import_module("agentops.scout.collect")
    except ModuleNotFoundError as exc:
        if exc.name != "agentops.scout.collect":
            raise
        return
    collect.write_ci_outputs(live)


def _torch_names(inp: Inputs) -> set[str]:
    """The names worth looking up in torch: configured private APIs (and their public
    spelling) and the APIs waiting TODOs name."""
    names: set[str] = set()
    for name in inp.target.section("private_api").get("names", []):
        names |= {name, name.lstrip("_")}
    sub = inp.target.subproject + "/"
    for path, text in inp.head.files.items():
        if path.startswith(sub) and path.endswith(".py"):
            for t in todos.scan(path, text):
                names |= set(todos.api_names(t.text))
    return names


def _torch_index(args: argparse.Namespace, names: set[str]) -> installed.PackageIndex | None:
    """The installed torch (``--torch DIR`` or found on the path), or None."""
    choice = getattr(args, "torch", None) or "auto"
    if choice == "none":
        return None
    root = installed.locate("torch") if choice == "auto" else Path(choice)
    if root is None:
        return None
    if not root.is_dir():
        raise InputError("--torch", f"{choice} is not a directory",
                         fix="give the directory of the installed torch package, or 'none'")
    return installed.index(root, "torch", names)


def _upstream_modules(inp: Inputs, name: str) -> set[str]:
    """Modules of upstream ``name`` the sub-project imports (``from x.y import Z``
    also asks for ``x.y.Z``, which may be a module), plus configured surface files."""
    out: set[str] = set()
    sub = inp.target.subproject + "/"
    for path, text in inp.head.files.items():
        if not (path.startswith(sub) and path.endswith(".py")) or name not in text:
            continue
        for module, imported in pysource.imports(pysource.parse(text)).values():
            if module == name or module.startswith(name + "."):
                out.add(module)
                if imported:
                    out.add(f"{module}.{imported}")
    for key in ("classes", "functions", "return_tuples", "monkey_patches"):
        for sym in inp.target.symbols("fragile_surfaces", key):
            if sym.upstream == name:
                out.add(pysource.module_name(sym.file))
    return out


def _upstreams(inp: Inputs, args: argparse.Namespace) -> dict[str, installed.UpstreamSource]:
    """The configured upstreams' sources (``--upstream NAME=DIR`` overrides a path)."""
    given: dict[str, str] = {}
    known = {u["name"] for u in inp.target.upstreams}
    for value in getattr(args, "upstream", None) or []:
        name, sep, path = value.partition("=")
        if not sep or name not in known or not path:
            raise InputError("--upstream", f"{value!r} is not NAME=DIR for a configured "
                             f"upstream ({', '.join(sorted(known)) or 'none configured'})",
                             fix="name an upstream listed under upstreams: in the target")
        given[name] = path
    out = {}
    for configured in inp.target.upstreams:
        name = configured["name"]
        spec = {**configured, "path": given[name]} if name in given else configured
        out[name] = installed.load_upstream(spec, _upstream_modules(inp, name))
    return out


def _wanted(target: Target) -> Any:
    extra = set(target.workflows) | set(target.docs)
    sub = target.subproject.rstrip("/") + "/"
    parent = posixpath.dirname(target.subproject.rstrip("/"))

    def want(path: str) -> bool:
        # Shell scripts: the commands docs show run them (S-5 reads which variables
        # they use); Markdown beside the docs: the sections their links point at;
        # Markdown one folder up: a guide there may point at the folder as the example.
        # Every workflow of the repository: a module some workflow's pytest collects is
        # run, whichever workflow it is (#22 defect 1). TOML configs of the folder and of
        # the test folders: which flavor a test case runs by default (``specflavors``).
        return path.endswith((".py", ".sh")) or path in extra or (
            path.endswith(".md") and (path.startswith(sub) or "/" not in path
                                      or posixpath.dirname(path) == parent)) or (
            path.startswith(".github/workflows/") and path.endswith((".yml", ".yaml"))) or (
            path.endswith(".toml") and (path.startswith(sub)
                                        or testowner.in_test_folder(path))) or (
            # What the project declares it needs (``declareddeps``): the folder's
            # requirements files, the root's, CI's (dot-folders) and pyproject.
            path == "pyproject.toml" or (declareddeps.is_requirements(path) and (
                path.startswith(sub) or "/" not in path or path.startswith("."))))

    return want


def _with_guides(target: Target, head: Tree) -> Target:
    """The target with the guides one folder up that point at its folder as the
    siblings' example added to ``docs`` (what ``init`` drafts today; a target drafted
    before it did would never have the shared guide's claims checked, #22 defect 7)."""
    extra = [g for g in docparts.example_guides(head.paths, head.text, target.subproject)
             if g not in target.docs]
    if not extra:
        return target
    return dataclasses.replace(target, raw={**target.raw,
                                            "docs": [*target.docs, *extra]})


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    return value


def build_report(args: argparse.Namespace) -> tuple[Report, LiveData, str]:
    """Everything but the printing; returns (report, live data, markdown)."""
    target = load_target(args.config or DEFAULT_TARGET)
    repo = GitRepo(args.checkout)
    date = _date(args.date, "--date") if args.date else dt.datetime.now(dt.UTC).date(
        ).isoformat()
    since_arg = _date(args.since, "--since") if args.since else None
    if since_arg and since_arg > date:
        # A baseline after the report date would report on a window that runs backwards.
        raise UsageError(f"--since {since_arg}", f"is after the report date --date {date}",
                         fix="give a --since on or before --date (the baseline the report "
                             "compares against)")
    names = _prior_files(args)
    priors = drop_future([read_prior(name, field="--prior" if name in (args.prior or [])
                                     else "--prior-dir") for name in names], names, date)
    since, source = baseline_for(date=date, since=since_arg, priors=priors)
    live = _live(args, target, since)
    if live.ignored_reports:
        ghactions.warning(ignored_note(live))
    if live.prior_reports:
        # Only the token's own report comments reach here (collect filters by author).
        known = {p.date for p in priors}
        for pr in live.prior_reports:
            where = pr.url or f"comment {pr.comment_id}"
            try:
                payload = prior_from_markdown(pr.markdown, name=where)
            except InputError as exc:
                ghactions.warning(f"prior report {exc.message}; ignored")
                continue
            if payload.date not in known and drop_future([payload], [where], date):
                priors.append(payload)
        since, source = baseline_for(date=date, since=since_arg, priors=priors)
    priors = sorted(priors, key=lambda p: p.date)
    head_sha = repo.head()
    base_sha = repo.commit_before(since)
    exact = False
    if source == "prior report":
        # The newest prior report names the commit it analysed: when it is HEAD or an
        # ancestor of it, it is the exact baseline. A date would re-show that day's earlier
        # commits, and commit dates on main are not ordered; an unchanged tree (the prior's
        # head is HEAD) has an empty delta (#22, S-0a).
        newest = max(priors, key=lambda p: p.date)
        if newest.head and (newest.head == head_sha or repo.is_ancestor(newest.head)):
            base_sha, source, exact = newest.head, "prior report head", True
    want = _wanted(target)
    head = repo.tree(head_sha, want)
    if not any(p.startswith(target.subproject + "/") for p in head.paths):
        raise InputError("--checkout", f"{args.checkout} has no {target.subproject}/ at HEAD "
                         f"(target {target.name} is about {target.repo})",
                         fix=f"pass a checkout of {target.repo}, or choose another --config")
    target = _with_guides(target, head)
    # Security: a failed test's command comes only from the target's template, its
    # values checked against this checkout's registries; the log's text stays text.
    live = trusted_repro.check_ci(live, target.repro, head.files)
    _ci_outputs(args, live)
    base = repo.tree(base_sha, lambda p: p.endswith(".py")) if base_sha else None
    commits = tuple(repo.log(since, list(target.watched_paths),
                             base=base_sha if exact else None))
    inp = Inputs(target=target, date=date, baseline=Baseline(since, source, base_sha),
                 head=head, base=base, commits=commits, live=live, priors=tuple(priors))
    # Which commit changed a fragile surface: the text of those files at each commit.
    fragile = {s.file for key in ("classes", "functions", "return_tuples")
               for s in target.symbols("fragile_surfaces", key)}
    fragile |= {p.upstream_file for p in patches.patch_sites(inp)
                if p.upstream_file and not p.upstream}
    # Copied and overridden functions: which commit added what the copy lacks (#22).
    fragile |= bodydrift.upstream_files(inp)
    # Broken references to core: which commit of the window removed the name (#22).
    fragile |= corerefs.upstream_files(inp)
    inp = dataclasses.replace(inp, history=repo.history(list(commits), fragile),
                              commit_files=repo.files_of([c.sha for c in commits]),
                              torch=_torch_index(args, _torch_names(inp)))
    inp = dataclasses.replace(inp, upstreams=_upstreams(inp, args))
    results = run_all(inp)
    candidates = items.build(inp, results)
    final, resolved, suppressed = items.reconcile(candidates, inp.priors, date, inp)
    if live.board_items is not None:
        final = items.annotate_board(final, live.board_items)
    analyses = _analyses_json(results)
    analyses["files_skipped"] = files_skipped(head, results["ci"].parse_errors)
    analyses["prior_reports_ignored"] = [p.url or str(p.comment_id)
                                         for p in live.ignored_reports
                                         if p.why == "" or p.why.startswith("not written")]
    analyses["prior_reports_unproven"] = [
        f"{p.url or p.comment_id} ({p.why})" for p in live.ignored_reports
        if p.why and not p.why.startswith("not written")]
    analyses["docs_checked"] = bool(target.docs)
    kinds = {f"{c.id}:{c.fingerprint}": c.kind for c in candidates}
    quiet: dict[str, int] = {}
    for key in suppressed:
        kind = kinds.get(key, "fyi")
        quiet[kind] = quiet.get(kind, 0) + 1
    report = Report(date=date, target=target.name, baseline=inp.baseline, head=head_sha,
                    items=tuple(final), resolved=tuple(resolved), suppressed=tuple(suppressed),
                    analyses=analyses, provenance=target.source.provenance(), quiet=quiet)
    return report, live, render.render(report, live)


def files_skipped(head: Tree, ci_errors: tuple[str, ...]) -> dict[str, str]:
    """Path -> why it was not analysed: not loaded (a link, too large, binary), a
    Python file an analysis could not parse (a syntax error, or nested past what the
    parser and the analyses can take), a workflow refused or invalid as YAML."""
    out = dict(head.skipped)
    for path, text in head.files.items():
        why = pysource.unparsed(text) if path.endswith(".py") else None
        if why:
            out[path] = f"not parsed: {why}"
    for error in ci_errors:
        path, _, why = error.partition(": ")
        out[path] = why
    return dict(sorted(out.items()))


def ignored_note(live: LiveData) -> str:
    """The warning for report-like comments not written by the token's account."""
    urls = ", ".join(p.url or str(p.comment_id) for p in live.ignored_reports[:5])
    whys = "; ".join(dict.fromkeys(p.why for p in live.ignored_reports
                                   if p.why and not p.why.startswith("not written")))
    return (f"prior reports: ignored {len(live.ignored_reports)} report-like comment(s) "
            f"not written by the token's account or whose provenance does not check out"
            + (f" ({whys})" if whys else "") + f": {urls}")


def _analyses_json(res: dict[str, Any]) -> dict[str, Any]:
    todos, resolved = res["todos"]
    ci = res["ci"]
    out = {k: _jsonable(v) for k, v in res.items() if k not in ("todos", "ci")}
    out["todos"] = [{k: v for k, v in _jsonable(t).items()} for t in todos]
    out["todos_resolved"] = _jsonable(resolved)
    out["tests_missing_from_ci"] = list(ci.missing)
    out["tests_in_ci"] = _jsonable(ci.covered)
    out["ci_invocations"] = _jsonable(ci.invocations)
    out["ci_steps_without_tests"] = _jsonable(ci.empty_steps)
    out["ci_parse_errors"] = list(ci.parse_errors)
    out["ci_class_gaps"] = _jsonable(ci.class_gaps)
    out["ci_runner_gaps"] = _jsonable(ci.runner_gaps)
    out["ci_disabled"] = _jsonable(ci.missing_detail)
    out["ci_foreign_workflows"] = _jsonable(ci.foreign)
    return out


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused for one report, left as it was found.
    A report parses a few hundred files and keeps their trees (millions of objects) for
    every analysis; each few hundred allocations start a collection, and each full one
    scans all of those trees again: a third of the report's time on torchtitan, with
    nothing to free (a syntax tree holds no reference cycle; whatever else the analyses
    drop is freed by reference counting). Peak memory is the same with it paused;
    anything cyclic a report leaves is collected once the collector runs again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def report_command(args: argparse.Namespace) -> int:
    """``scout.py report``: print the Markdown report, or one JSON object."""
    if args.out:  # before the analysis: a bad path should not cost a whole run
        files.check_writable(args.out, field="--out")
    with collector_paused():
        report, _live_data, md = build_report(args)
    if args.out:
        out = files.write_atomic(args.out, md, field="--out")
        ghactions.set_output("report-path", str(out))
    if args.json:
        doc = {"date": report.date, "target": report.target, "head": report.head,
               "baseline": {"since": report.baseline.since, "source": report.baseline.source,
                            "commit": report.baseline.commit},
               "markdown": md, "items": [i.to_json() for i in report.items],
               "resolved": [i.to_json() for i in report.resolved],
               "suppressed": list(report.suppressed), "provenance": report.provenance,
               **report.analyses}
        console.say_json(doc, indent=1, sort_keys=False)
    else:
        console.say(md, end="")
    return 0
