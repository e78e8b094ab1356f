"""The verbs of ``scripts/nightly_bisect.py``: versions, resolve, range, plan, probe,
narrow (and ``auto``, which picks one for the composite action).

Shell side: wires the adapters (``wheels``, ``nightly_branch``) to the pure core
(``index``, ``ranges``) and prints. Every verb computes everything first and only then
prints, sets step outputs or writes a file (atomically), so a failure leaves nothing
half-written. Nothing here writes to GitHub.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from agentops import cli, console, files, ghactions
from agentops.bisect import index as idx
from agentops.bisect import nightly_branch as nb
from agentops.bisect import page as pg
from agentops.bisect import ranges as rg
from agentops.bisect import wheels
from agentops.errors import AgentopsError, ApiError, ExitStatus, InputError
from agentops.http import (
    check_http_url,
    mask_credentials,
    redact,
    redact_text,
    short,
    with_credentials_of,
)

DEFAULT_INDEX = "https://download.pytorch.org/whl/nightly/cpu"
DEFAULT_PLATFORM = "manylinux_2_28_x86_64"
DEFAULT_REPO = "pytorch/pytorch"
SOURCES = ("wheel", "branch", "both")


# --- shared plumbing ------------------------------------------------------------------

class Session:
    """What one run reads, cached: the index page (fetched once per run, and reused
    across runs with ``--page-cache``), resolved wheels, nightly branch."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        # Security: credentials in index URLs are masked before anything can print them
        # (and every message redacts them).
        for url in (getattr(args, "index_url", None), getattr(args, "extra_index_url", None),
                    getattr(args, "wheel_url", None)):
            if url:
                mask_credentials(url)
        self.page_cache = pg.check_cache_path(getattr(args, "page_cache", None))
        self.http = wheels.transport()
        self.page: pg.Page | None = None
        self._nightlies: list[idx.Nightly] | None = None
        self._releases: list[nb.NightlyRelease] | None = None
        self.client: Any = None
        self.branch_failed = False

    @property
    def source(self) -> str:
        src = getattr(self.args, "commit_source", "wheel") or "wheel"
        if src not in SOURCES:
            raise InputError("--commit-source", f"expected one of {', '.join(SOURCES)}, "
                             f"got {src!r}")
        return src

    def nightlies(self) -> list[idx.Nightly]:
        """The listed versions for the package/python/platform, oldest first."""
        if self._nightlies is None:
            a = self.args
            check_http_url(a.index_url, field_name="--index-url",
                           example="https://download.pytorch.org/whl/nightly/cpu")
            page = pg.fetch_page(self.http, a.index_url, a.package, cache=self.page_cache)
            # The page parsed: only now is the copy for the next run written.
            if self.page_cache is not None and page.to_save is not None:
                files.write_atomic(self.page_cache, page.to_save, field="--page-cache")
            self.page = page
            shown_url = redact(page.url)
            found = idx.select(page.links, package=a.package, python=a.python,
                               platform=a.platform)
            if not found:
                tags = idx.available_tags(page.links, package=a.package, python=a.python)
                raise InputError("--python/--platform",
                                 f"{shown_url} lists no {a.package} wheel for "
                                 f"{idx.python_tag(a.python)} on {a.platform} "
                                 f"({len(page.links)} files; tags: "
                                 f"{idx.listing(tags) or 'none'})",
                                 fix="pick a python/platform pair from the tags listed")
            variant = getattr(a, "variant", None)
            variants = sorted({n.variant or "" for n in found})
            shown_variants = idx.listing([v or "none" for v in variants])
            if variant:
                found = [n for n in found if n.variant == variant]
                if not found:
                    raise InputError("--variant", f"no {variant} build on {shown_url} "
                                     f"(variants: {shown_variants})")
            elif len(variants) > 1:
                # Sanity: cpu and cu126 builds of one day are different wheels; a range
                # that mixes them bisects nothing.
                raise InputError("--variant", f"{shown_url} lists several build variants "
                                 f"({shown_variants})",
                                 fix="pick one, e.g. --variant " + (variants[-1] or "none"))
            self._nightlies = found
        return self._nightlies

    def query(self) -> idx.Query:
        """What ``find`` needs to say which tags a missing version does have."""
        a = self.args
        return idx.Query(package=a.package, python=a.python, platform=a.platform,
                         links=self.page.links if self.page else ())

    def find(self, spec: str, *, field_name: str = "--version") -> int:
        return idx.find(self.nightlies(), spec, field_name=field_name, query=self.query())

    def given_wheel(self) -> idx.Nightly | None:
        """The wheel named by ``--wheel-url`` (a matrix cell's), which needs no page;
        the index URL's credentials go with it to the same host."""
        url = getattr(self.args, "wheel_url", None)
        if not url:
            return None
        check_http_url(url, field_name="--wheel-url",
                       example="the wheel_url of a plan matrix cell")
        n = idx.nightly_from_url(with_credentials_of(url, self.args.index_url or ""),
                                 self.args.package)
        spec = getattr(self.args, "version", None)
        if spec:
            try:
                idx.find([n], spec)
            except InputError:
                raise InputError("--wheel-url", f"the wheel is {n.version}, not "
                                 f"{short(spec, 80)} (--version)",
                                 fix="pass the version and wheel_url of the same matrix "
                                     "cell") from None
        return n

    def releases(self) -> list[nb.NightlyRelease] | None:
        """The nightly branch's releases; with ``both``, None (and a warning) when the
        API cannot be read, so the wheels alone still give an answer."""
        if self._releases is None:
            self.client = self.client or nb.client_from_env()
            try:
                self._releases = nb.read_releases(self.client, self.args.repo)
            except ApiError as exc:
                if self.source != "both":
                    raise
                ghactions.warning(f"nightly branch not read, commits from version.py only: "
                                  f"{exc.one_line()}", title="commit cross-check skipped")
                self._releases = []
                self.branch_failed = True
        return None if self.branch_failed else self._releases

    def commit(self, n: idx.Nightly | None, *, date: dt.date | None,
               git_version: str | None = None) -> tuple[nb.Commit, wheels.Resolved | None]:
        """The main commit of one nightly from the configured source(s)."""
        resolved = None
        if self.source in ("wheel", "both") and n is not None and git_version is None:
            resolved = wheels.resolve(self.http, n)
            git_version = resolved.git_version
        releases = self.releases() if self.source in ("branch", "both") else None
        return nb.cross_check(date, git_version, releases), resolved

    def finish(self) -> None:
        """The closing lines every live run prints."""
        c = self.http.counter
        cached = " (the project page from --page-cache, unchanged)" if (
            self.page and self.page.cached) else ""
        ghactions.notice(f"HTTP (index and wheels): {c.total} request(s), {c.retries} "
                         f"retries, {c.body_bytes} body bytes{cached}")
        if self.client is not None:
            line = self.client.counter.line()
            ghactions.notice(line)
            ghactions.append_summary(line)


def _emit(text: str) -> None:
    console.say(text[:-1] if text.endswith("\n") else text)


def _json(obj: Any) -> str:
    return console.json_text(obj, indent=2, sort_keys=False)


def slug(version: str) -> str:
    """A version made safe for artifact and file names (``+`` and ``.`` kept out)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", version).strip("-")


def _date_arg(text: str | None, field: str) -> dt.date | None:
    if not text:
        return None
    date = idx.parse_date(text)
    if date is None:
        raise InputError(field, f"not a date: {text!r}", fix="give YYYYMMDD")
    return date


def _pair(session: Session) -> tuple[list[idx.Nightly], int, int]:
    a = session.args
    if not a.good or not a.bad:
        raise InputError("--good/--bad", "both are required",
                         fix="give the last good and the first bad nightly (versions or "
                             "dates such as dev20260709)")
    ns = session.nightlies()
    g = session.find(a.good, field_name="--good")
    b = session.find(a.bad, field_name="--bad")
    rg.check_pair(g, b, good_text=str(ns[g].version), bad_text=str(ns[b].version))
    return ns, g, b


def _matrix(ns: Sequence[idx.Nightly], positions: Sequence[int]) -> dict[str, Any]:
    # Security: the matrix is printed and stored; the probe re-adds the index URL's
    # credentials to a wheel URL on the same host.
    return {"include": [{"version": str(ns[i].version), "wheel_url": redact(ns[i].wheel.url),
                         "slug": slug(str(ns[i].version)),
                         "date": ns[i].date.isoformat() if ns[i].date else None}
                        for i in positions]}


# --- versions ---------------------------------------------------------------------------

def versions_command(args: argparse.Namespace) -> int:
    """List the nightlies on the index (S-10a)."""
    session = Session(args)
    since = _date_arg(args.since, "--since")
    until = _date_arg(args.until, "--until")
    listed = session.nightlies()
    ns = idx.within(listed, since=since, until=until)
    dated = [n for n in listed if n.date is not None]
    if (since or until) and not dated:
        flag = "--since" if since else "--until"
        raise InputError(flag, f"{idx.lists(listed, session.query())} ({listed[0].version} … "
                         f"{listed[-1].version}) and none is a nightly: --since/--until "
                         "filter by a nightly's date (.devYYYYMMDD), which releases do not "
                         "have, so nothing could match",
                         fix="drop --since/--until to list the releases, or point "
                             "--index-url at a nightly index")
    oldest = dated[0].date if dated else None
    if since and oldest and since < oldest:
        ghactions.notice(f"nightlies before {oldest} are gone from the index (it keeps about "
                         f"the newest {idx.RETENTION_HINT}); `resolve`/`range` with "
                         "--commit-source branch still find their commits")
    if (since or until) and not ns:
        ghactions.notice(f"no nightly between {since or 'the first'} and {until or 'the last'}: "
                         f"{idx.lists(listed, session.query())} dated {dated[0].date} … "
                         f"{dated[-1].date}")
    if args.json:
        _emit(_json([{**n.to_json(), "wheel_url": redact(n.wheel.url)} for n in ns]))
    else:
        for n in ns:
            _emit(f"{n.version}  {n.date or '-'}  {redact(n.wheel.url)}")
        retention = (f" (the index keeps about the newest {idx.RETENTION_HINT})"
                     if dated else "")
        ghactions.notice(f"{idx.noun(ns) if ns else idx.noun(listed, 0)} for "
                         f"{idx.python_tag(args.python)} on {args.platform}{retention}")
    session.finish()
    return ExitStatus.OK


# --- resolve -----------------------------------------------------------------------------

def resolve_command(args: argparse.Namespace) -> int:
    """One nightly's wheel and commit, as one JSON object (S-10b)."""
    session = Session(args)
    if not args.version:
        raise InputError("--version", "required", fix="give a version or a date")
    out = _resolve_one(session, args.version)
    _emit(console.json_text(out, indent=2))
    session.finish()
    return ExitStatus.OK


def _resolve_one(session: Session, spec: str) -> dict[str, Any]:
    if session.source == "branch":
        date = idx.parse_date(spec) or _version_date(spec)
        commit, _ = session.commit(None, date=date)
        if commit.sha is None:
            raise InputError("--version", f"{spec}: {commit.note}",
                             fix="the nightly branch keeps ~50 days of titles; use a "
                                 "newer nightly or --commit-source wheel")
        return {"version": spec, "wheel_url": None, "git_version": commit.sha,
                "bytes_fetched": 0, "full_download": False, "commit": commit.sha,
                "commit_source": commit.source, "note": commit.note}
    n = session.given_wheel()
    if n is None:
        ns = session.nightlies()
        n = ns[session.find(spec)]
    commit, res = session.commit(n, date=n.date)
    assert res is not None  # Sanity: source is wheel or both here
    out = res.to_json()
    out.update({"commit": commit.sha, "commit_source": commit.source})
    if commit.note:
        out["note"] = commit.note
    if commit.mismatch:
        ghactions.warning(f"{n.version}: {commit.note}", title="commit cross-check")
    if res.full_download:
        ghactions.warning(f"{n.version}: full download of {res.bytes_fetched} bytes "
                          "(the server ignored Range)", title="full download")
    return out


def _version_date(spec: str) -> dt.date | None:
    try:
        return idx.dev_date(Version(spec))
    except InvalidVersion:
        return None


# --- range ---------------------------------------------------------------------------------

def _row(session: Session, n: idx.Nightly | None, *, version: str, status: str,
         date: dt.date | None, git_version: str | None = None) -> tuple[rg.Row, list[str]]:
    commit, res = session.commit(n, date=date, git_version=git_version)
    notes = []
    if commit.mismatch:
        notes.append(f"{version}: {commit.note}")
        ghactions.warning(f"{version}: {commit.note}", title="commit cross-check")
    if res is not None and res.full_download:
        notes.append(f"{version}: the wheel was downloaded in full (server ignored Range)")
    return rg.Row(version=version, status=status, commit=commit.sha,
                  note=commit.note if commit.source != "version.py" else ""), notes


def build_range(session: Session, good: str, bad: str, *,
                known: dict[str, str] | None = None,
                skipped: Sequence[str] = ()) -> rg.RegressionRange:
    """The S-3b table for a good/bad pair; ``known`` maps versions to commits already
    read (probe results), so their wheels are not read again."""
    known = known or {}
    if session.source == "branch":
        # The index may have dropped these nightlies: dates are enough.
        gd = idx.parse_date(good) or _version_date(good)
        bd = idx.parse_date(bad) or _version_date(bad)
        if gd is None or bd is None:
            raise InputError("--good/--bad", "with --commit-source branch give dates or "
                             "nightly versions")
        if gd >= bd:
            raise InputError("--good/--bad", f"the good nightly ({gd}) must be older than "
                             f"the bad one ({bd})")
        grow, gn = _row(session, None, version=good, status="good", date=gd)
        brow, bn = _row(session, None, version=bad, status="bad", date=bd)
        return rg.RegressionRange(repo=session.args.repo, rows=(grow, brow), good=grow,
                                  bad=brow, notes=tuple(gn + bn))
    ns = session.nightlies()
    g = session.find(good, field_name="--good")
    b = session.find(bad, field_name="--bad")
    rg.check_pair(g, b, good_text=str(ns[g].version), bad_text=str(ns[b].version))
    rows, notes = [], []
    grow, more = _row(session, ns[g], version=str(ns[g].version), status="good",
                      date=ns[g].date, git_version=known.get(str(ns[g].version)))
    rows.append(grow)
    notes += more
    skipset = set(skipped)
    rows += [rg.Row(version=str(n.version), status="skip", note="could not be tested")
             for n in ns[g + 1:b] if str(n.version) in skipset]
    brow, more = _row(session, ns[b], version=str(ns[b].version), status="bad",
                      date=ns[b].date, git_version=known.get(str(ns[b].version)))
    rows.append(brow)
    notes += more
    if b - g > 1 and not skipset:
        between = ns[g + 1:b]
        notes.append(f"{idx.noun(between)} between them "
                     f"{'was' if len(between) == 1 else 'were'} not tested (run `plan` to "
                     "bisect)")
    return rg.RegressionRange(repo=session.args.repo, rows=tuple(rows), good=grow, bad=brow,
                              notes=tuple(notes))


def _publish_range(rng: rg.RegressionRange, *, as_json: bool,
                   extra: dict[str, Any] | None = None) -> None:
    md = rg.render_markdown(rng)
    payload = {**rng.to_json(), **(extra or {}), "markdown": md}
    _emit(_json(payload) if as_json else md)
    ghactions.set_output("good", rng.good.version)
    ghactions.set_output("bad", rng.bad.version)
    ghactions.set_output("range-markdown", md)
    ghactions.append_summary("### Nightly regression range\n\n" + md)


def range_command(args: argparse.Namespace) -> int:
    """The regression-range table and compare link for a good/bad pair (S-10c)."""
    session = Session(args)
    good, bad = args.good or "", args.bad or ""
    for path, flag in ((args.good_log, "--good-log"), (args.bad_log, "--bad-log")):
        if not path:
            continue
        # A CI log may hold any bytes; only the `Successfully installed` line matters.
        text = files.read_bytes(path, field=flag).decode("utf-8", errors="replace")
        found = idx.version_from_log(text, args.package)
        if found is None:
            raise InputError(flag, f"{path} has no `Successfully installed … "
                             f"{args.package}-<version>` line",
                             fix="pass the log of the job that installed the nightly, or "
                                 "give the version with --good/--bad")
        if flag == "--good-log":
            good = found
        else:
            bad = found
    rng = build_range(session, good, bad)
    _publish_range(rng, as_json=args.json)
    session.finish()
    return ExitStatus.OK


# --- plan ----------------------------------------------------------------------------------

def plan_command(args: argparse.Namespace) -> int:
    """The first matrix of probes for a good/bad pair (S-10d)."""
    session = Session(args)
    rg.check_width(args.width)
    if args.out:  # before the index is read: a bad path should not cost the requests
        files.check_writable(args.out, field="--out")
    ns, g, b = _pair(session)
    probes = rg.split(g, b, args.width)
    matrix = _matrix(ns, probes)
    rounds = rg.rounds_needed(b - g, args.width)
    ghactions.notice(f"{b - g} step(s) from {ns[g].version} to {ns[b].version}; "
                     f"{len(probes)} probe(s) this round; {rounds} round(s) at width "
                     f"{args.width}")
    text = console.json_text(matrix, separators=(",", ":"))
    if args.out:
        files.write_atomic(args.out, text + "\n", field="--out")
    _emit(text)
    ghactions.set_output("matrix", text)
    ghactions.set_output("good", str(ns[g].version))
    ghactions.set_output("bad", str(ns[b].version))
    ghactions.set_output("done", "true" if not probes else "false")
    ghactions.set_output("rounds", str(rounds))
    ghactions.append_summary(f"Nightly bisection: `{ns[g].version}` … `{ns[b].version}`, "
                             f"{b - g} step(s); {len(probes)} probe(s) this round, {rounds} "
                             f"round(s) at width {args.width}.")
    session.finish()
    return ExitStatus.OK


# --- narrow ----------------------------------------------------------------------------------

def load_results(directory: Path) -> list[rg.ProbeResult]:
    """Every ``*.json`` under ``directory`` (artifacts may be nested one per folder)."""
    if not directory.is_dir():
        raise InputError("--results", f"{directory} is not a directory: no probe wrote "
                         "a result", fix="check the probe jobs (each uploads one result "
                         "file) and download their artifacts into this folder")
    out = []
    for path in sorted(directory.rglob("*.json")):
        obj = files.read_json(path, field="--results", limit=2**20,
                              fix="remove it, or rerun the probe that wrote it")
        out.append(rg.ProbeResult.from_json(obj, source=str(path)))
    if not out:
        # Sanity: narrowing without results would hand back the same matrix forever.
        raise InputError("--results", f"no *.json result files under {directory}",
                         fix="check the probe jobs (each uploads one result file)")
    return out


def narrow_command(args: argparse.Namespace) -> int:
    """Narrow the range with the probe results; print the next matrix or the range."""
    session = Session(args)
    rg.check_width(args.width)
    ns, g, b = _pair(session)
    labels = [str(n.version) for n in ns]
    results: dict[int, rg.ProbeResult] = {}
    problems: list[str] = []
    unknown: list[str] = []
    for res in load_results(Path(args.results)):
        try:
            pos = idx.find(ns, res.version, field_name=res.source)
        except InputError as exc:
            unknown.append(exc.message)
            continue
        if pos in results and results[pos].status != res.status:
            problems.append(f"{labels[pos]}: results disagree ({results[pos].status} in "
                            f"{results[pos].source}, {res.status} in {res.source})")
            # Sanity: a disagreeing duplicate is a contradiction; a fail is kept, since
            # narrowing to a failure never hides the regression.
            if res.status != "fail":
                continue
        results[pos] = res
    nar = rg.narrow(g, b, results, width=args.width, labels=labels)
    contradictions = [*nar.contradictions, *problems]
    for c in contradictions:
        ghactions.warning(c, title="contradictory probe results")
    ignored = [*nar.ignored, *unknown]
    for msg in ignored:
        ghactions.notice(f"  ignored: {msg}")
    good, bad = labels[nar.good], labels[nar.bad]
    payload: dict[str, Any] = {
        "good": good, "bad": bad, "steps": nar.steps, "done": nar.done,
        "rounds_left": 0 if nar.done else rg.rounds_needed(nar.steps, args.width),
        "contradictions": contradictions,
        "skipped": [labels[i] for i in nar.skipped],
        "ignored": ignored,
        "results": {labels[p]: r.status for p, r in sorted(results.items())},
    }
    matrix = _matrix(ns, nar.next_probes)
    md = ""
    if nar.done:
        known = {labels[p]: r.git_version for p, r in results.items() if r.git_version}
        rng = build_range(session, good, bad, known=known,
                          skipped=[labels[i] for i in nar.skipped])
        md = rg.render_markdown(rng)
        first_bad = results.get(nar.bad)
        if first_bad is not None and first_bad.log_tail.strip():
            md += "\n" + rg.render_log_tail(bad, first_bad.log_tail)
        if contradictions:
            md += "\n**Contradictory results:**\n" + "".join(
                f"- {ghactions.inert_markdown(c, limit=500)}\n" for c in contradictions)
        payload["range"] = rng.to_json()
        payload["range_markdown"] = md
    else:
        payload["matrix"] = matrix
    if args.json:
        _emit(_json(payload))
    else:
        lines = [f"good: {good}", f"bad:  {bad}", f"steps left: {nar.steps}"]
        lines += [f"contradiction: {c}" for c in contradictions]
        if nar.skipped:
            lines.append("untested: " + ", ".join(payload["skipped"]))
        if nar.done:
            lines += ["", md]
        else:
            lines += [f"rounds left: {payload['rounds_left']} at width {args.width}",
                      "next matrix: " + console.json_text(matrix, separators=(",", ":"))]
        _emit("\n".join(lines))
    ghactions.set_output("good", good)
    ghactions.set_output("bad", bad)
    ghactions.set_output("done", "true" if nar.done else "false")
    ghactions.set_output("matrix", json.dumps(matrix, separators=(",", ":")))
    ghactions.set_output("contradictions", str(len(contradictions)))
    if nar.done:
        ghactions.set_output("range-markdown", md)
        ghactions.append_summary("### Nightly regression range\n\n" + md)
    else:
        ghactions.append_summary(f"Narrowed to `{good}` … `{bad}` ({nar.steps} steps); "
                                 f"{len(nar.next_probes)} probe(s) next.")
    session.finish()
    return ExitStatus.OK


# --- probe -----------------------------------------------------------------------------------

def probe_command(args: argparse.Namespace) -> int:
    """Install one nightly into a fresh venv, run the repro command, write the result."""
    if not args.repro_command:
        raise InputError("--repro-command", "the repro command is required (env "
                         "AGENTOPS_REPRO_COMMAND)",
                         fix="actions/nightly-bisect: the `repro-command` input; the root "
                             "action (no such input): `AGENTOPS_REPRO_COMMAND` in the step's "
                             "env; a shell: --repro-command. It exits 0 when the nightly is "
                             "good")
    if not args.results:
        raise InputError("--results", "where to write the result file is required",
                         fix="give a folder (env AGENTOPS_RESULTS_DIR, the input results-dir)")
    # Everything that can be checked is checked before the install and the repro run.
    files.check_folder(args.results, field="--results")
    interpreter = probe_interpreter(args.interpreter, args.python)
    session = Session(args)
    n = session.given_wheel()
    if n is None:
        ns = session.nightlies()
        n = ns[session.find(args.version or "")]
    version = str(n.version)
    path = Path(args.results) / f"{slug(version)}.json"
    files.check_writable(path, field="--results")
    started = time.monotonic()
    # A torch venv weighs gigabytes: a temporary one goes away after the run.
    with (contextlib.nullcontext(args.venv) if args.venv
          else tempfile.TemporaryDirectory(prefix="nightly-probe-")) as where:
        venv = Path(where) / "venv"
        with ghactions.group(f"install {version}"):
            ok, log = _install(venv, n, args, interpreter=interpreter)
        git_version = None
        if ok:
            git_version = _installed_git_version(venv)
            with ghactions.group(f"repro on {version}"):
                code, out = _run_repro(venv, args.repro_command, version=version,
                                       timeout=args.timeout * 60)
            status = "pass" if code == 0 else "fail"
        else:
            code, out, status = None, log, "skip"
    result = rg.ProbeResult(version=version, status=status,  # type: ignore[arg-type]
                            # Security: pip's log names the index URL.
                            log_tail=console.inert_line(redact_text(out[-rg.LOG_TAIL_LIMIT:]),
                                                        limit=rg.LOG_TAIL_LIMIT),
                            git_version=git_version, wheel_url=redact(n.wheel.url))
    obj = {**result.to_json(), "exit_code": code,
           "seconds": round(time.monotonic() - started, 1)}
    files.write_atomic(path, json.dumps(obj, indent=2) + "\n", field="--results")
    _emit(console.json_text(obj, indent=2))
    ghactions.set_output("status", status)
    ghactions.set_output("result-path", str(path))
    ghactions.append_summary(f"Probe `{version}`: **{status}**"
                             + (f" (exit {code})" if code is not None else " (install failed)"))
    session.finish()
    return ExitStatus.OK


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def probe_interpreter(interpreter: str | None, python: str) -> str:
    """The interpreter the probe's venv is made from, refused up front unless it is the
    CPython ``--python`` names: pip would reject every wheel of another version, and
    the probe would record a skip that is never probed again (issue #13)."""
    exe = interpreter or sys.executable
    want = idx.python_tag(python)
    try:
        proc = subprocess.run([exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True, check=False, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError("--interpreter", f"cannot run {exe}",
                         fix="give the path of a CPython interpreter (env "
                             "AGENTOPS_INTERPRETER)") from exc
    got = proc.stdout.strip()
    if proc.returncode != 0 or not re.fullmatch(r"\d+\.\d+", got):
        raise InputError("--interpreter", f"{exe} did not report a Python version",
                         fix="give the path of a CPython interpreter (env "
                             "AGENTOPS_INTERPRETER)")
    if idx.python_tag(got) != want:
        wanted = f"{want[2]}.{want[3:]}"
        found = shutil.which(f"python{wanted}")
        raise InputError("--python", f"the wheels are for CPython {wanted}, but the probe's "
                         f"interpreter {exe} is {got}; every wheel would fail to install and "
                         "be recorded as skip",
                         fix=(f"pass --interpreter {found}" if found else
                              f"pass --interpreter /path/to/python{wanted}")
                         + f", or --python {got}")
    return exe


def _install(venv: Path, n: idx.Nightly, args: argparse.Namespace, *,
             interpreter: str) -> tuple[bool, str]:
    steps = [[interpreter, "-m", "venv", str(venv)],
             [str(_venv_python(venv)), "-m", "pip", "install", "--quiet",
              "--disable-pip-version-check", "--pre", "--index-url", args.index_url,
              *(["--extra-index-url", args.extra_index_url] if args.extra_index_url else []),
              n.wheel.url]]
    # Sanity: a venv made from inside the agentops venv must be based on the real
    # interpreter, not inherit the agentops packages.
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    log = []
    for cmd in steps:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False,
                              timeout=3600)
        log.append(proc.stdout + proc.stderr)
        if proc.returncode != 0:
            return False, "".join(log)
    return True, "".join(log)


def _installed_git_version(venv: Path) -> str | None:
    code = ("import sysconfig, pathlib; p = pathlib.Path(sysconfig.get_paths()['platlib']) / "
            "'torch' / 'version.py'; print(p.read_text() if p.exists() else '')")
    proc = subprocess.run([str(_venv_python(venv)), "-c", code], capture_output=True,
                          text=True, check=False, timeout=120)
    if proc.returncode != 0 or not proc.stdout.strip():
        return None
    try:
        return wheels.parse_version_py(proc.stdout, source="installed torch")["git_version"]
    except AgentopsError:
        return None


def _run_repro(venv: Path, command: str, *, version: str, timeout: float) -> tuple[int, str]:
    # Security: the repro is the caller's code at an untested nightly; it gets no token.
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "GITHUB_TOKEN", "GH_TOKEN", "ACTIONS_RUNTIME_TOKEN",
                        "ACTIONS_ID_TOKEN_REQUEST_TOKEN")}
    env["VIRTUAL_ENV"] = str(venv)
    env["PATH"] = str(_venv_python(venv).parent) + os.pathsep + env.get("PATH", "")
    env["AGENTOPS_NIGHTLY_VERSION"] = version
    try:
        # Security: the command is the caller's own repro text; it reaches us through
        # env (never a workflow expression) and runs as one bash argument.
        proc = subprocess.run(["bash", "-c", command], env=env, capture_output=True,
                              text=True, check=False, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout
                                                                                or "")
        return 124, out + f"\n[agentops] the repro timed out after {timeout:g} s\n"
    out = proc.stdout + proc.stderr
    ghactions.notice(console.inert_line(redact_text(out[-2000:]), limit=2000))
    return proc.returncode, out


# --- auto (the composite action's entry) ---------------------------------------------------

def auto_command(args: argparse.Namespace) -> int:
    """Probe when a version is given, narrow when a results folder is, plan otherwise
    (the nightly-bisect action's default command)."""
    if args.version or args.results:
        cli.refuse_flags(args, {"out": "--out"}, context="auto's probe and narrow",
                         fix="use --out with plan (no --version, no --results)")
    if args.version:
        return probe_command(args)
    return narrow_command(args) if args.results else plan_command(args)
