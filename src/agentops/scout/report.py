"""The ``report`` verb: gather (git checkout, prior reports, optional live API data),
run the pure analyses, reconcile with the priors, render, print.

Shell side: reads files and git (through ``gitrepo``), calls ``collect`` lazily for
the API; never writes anywhere but stdout and the ``--out`` file.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import importlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from agentops import ghactions
from agentops.errors import InputError
from agentops.scout import embedded, installed, items, render
from agentops.scout.analyses import patches, run_all, todos
from agentops.scout.config import Target, load_target
from agentops.scout.gitrepo import GitRepo
from agentops.scout.livedata import LiveData
from agentops.scout.model import Baseline, Inputs, PriorPayload, Report

DEFAULT_TARGET = "torchtitan-graph-trainer"
LIVE_PARTS = ("prior_reports", "board_items", "pulls", "ci", "open_work")
_HEADER_RE = re.compile(r"^# Nightly Scout Report — (\d{4}-\d{2}-\d{2})", re.M)


def _date(value: str, flag: str) -> str:
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError as exc:
        raise InputError(flag, f"{value!r} is not a date", fix="use YYYY-MM-DD") from exc


def prior_from_markdown(text: str, *, name: str) -> PriorPayload:
    """One posted report → its payload (the embedded block; the header date alone when
    the block is missing or was hand-edited)."""
    block = embedded.extract(text)
    header = _HEADER_RE.search(text)
    if block is not None and block.get("date"):
        return PriorPayload(date=str(block["date"]), head=str(block.get("head", "")),
                            items=tuple(i for i in block.get("items", []) if isinstance(i, dict)
                                        and "id" in i),
                            todos=tuple(t for t in block.get("todos", []) if isinstance(t, dict)
                                        and "id" in t),
                            suppressed=tuple(str(s) for s in block.get("suppressed", [])))
    if header:
        return PriorPayload(date=header.group(1))
    raise InputError("--prior", f"{name} is not a scout report (no '# Nightly Scout Report — "
                     "DATE' header and no embedded block)",
                     fix="pass the Markdown of a report as posted")


def _prior_files(args: argparse.Namespace) -> list[str]:
    """``--prior`` files, then every ``*.md`` in ``--prior-dir`` (sorted by name)."""
    names = list(args.prior or [])
    prior_dir = getattr(args, "prior_dir", None)
    if prior_dir:
        folder = Path(prior_dir)
        if not folder.is_dir():
            raise InputError("--prior-dir", f"{prior_dir} is not a directory",
                             fix="pass a directory of earlier reports (*.md), or omit it")
        names += [str(p) for p in sorted(folder.glob("*.md"))]
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
    print(client.counter.line(), file=sys.stderr)
    # ci-red / last-good / first-bad / repro-command: what the workflow's bisect job needs.
    collect.write_ci_outputs(live)
    return live


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


def _wanted(target: Target) -> Any:
    extra = set(target.workflows) | set(target.docs)

    def want(path: str) -> bool:
        return path.endswith(".py") or path in extra

    return want


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
    priors: list[PriorPayload] = []
    for name in _prior_files(args):
        try:
            text = Path(name).read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError("--prior", f"cannot read {name}: {exc.strerror}",
                             fix="pass the path of a saved report") from exc
        priors.append(prior_from_markdown(text, name=name))
    since, source = baseline_for(date=date, since=since_arg, priors=priors)
    live = _live(args, target, since)
    if live.prior_reports:
        known = {p.date for p in priors}
        for pr in live.prior_reports:
            payload = prior_from_markdown(pr.markdown, name=pr.url or pr.date)
            if payload.date not in known:
                priors.append(payload)
        since, source = baseline_for(date=date, since=since_arg, priors=priors)
    # Sanity: a report never reconciles against one from its own future.
    priors = sorted((p for p in priors if p.date <= date), key=lambda p: p.date)
    head_sha = repo.head()
    base_sha = repo.commit_before(since)
    exact = False
    if source == "prior report":
        # The newest prior report names the commit it analysed: when it is an ancestor of
        # HEAD, it is the exact baseline (a date would re-show that day's earlier commits).
        newest = max(priors, key=lambda p: p.date)
        if newest.head and newest.head != head_sha and repo.is_ancestor(newest.head):
            base_sha, source, exact = newest.head, "prior report head", True
    want = _wanted(target)
    head = repo.tree(head_sha, want)
    if not any(p.startswith(target.subproject + "/") for p in head.paths):
        raise InputError("--checkout", f"{args.checkout} has no {target.subproject}/ at HEAD "
                         f"(target {target.name} is about {target.repo})",
                         fix=f"pass a checkout of {target.repo}, or choose another --config")
    base = repo.tree(base_sha, lambda p: p.endswith(".py")) if base_sha else None
    commits = tuple(repo.log(since, list(target.watched_paths),
                             base=base_sha if exact else None))
    inp = Inputs(target=target, date=date, baseline=Baseline(since, source, base_sha),
                 head=head, base=base, commits=commits, live=live, priors=tuple(priors))
    # Which commit changed a fragile surface: the text of those files at each commit.
    fragile = {s.file for key in ("classes", "functions", "return_tuples")
               for s in target.symbols("fragile_surfaces", key)}
    fragile |= {p.upstream_file for p in patches.patch_sites(inp) if p.upstream_file}
    inp = dataclasses.replace(inp, history=repo.history(list(commits), fragile),
                              commit_files=repo.files_of([c.sha for c in commits]),
                              torch=_torch_index(args, _torch_names(inp)))
    results = run_all(inp)
    candidates = items.build(inp, results)
    final, resolved, suppressed = items.reconcile(candidates, inp.priors, date)
    if live.board_items is not None:
        final = items.annotate_board(final, live.board_items)
    analyses = _analyses_json(results)
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
    return out


def report_command(args: argparse.Namespace) -> int:
    """``scout.py report``: print the Markdown report, or one JSON object."""
    report, _live_data, md = build_report(args)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(md, encoding="utf-8")
        ghactions.set_output("report-path", str(out))
    if args.json:
        doc = {"date": report.date, "target": report.target, "head": report.head,
               "baseline": {"since": report.baseline.since, "source": report.baseline.source,
                            "commit": report.baseline.commit},
               "markdown": md, "items": [i.to_json() for i in report.items],
               "resolved": [i.to_json() for i in report.resolved],
               "suppressed": list(report.suppressed), "provenance": report.provenance,
               **report.analyses}
        print(json.dumps(doc, indent=1, sort_keys=False))
    else:
        sys.stdout.write(md)
    return 0
