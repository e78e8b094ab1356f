"""``nightly_bisect.py range``: the ``Nightly | Status | PyTorch Commit`` table and the
compare link for a good/bad pair (S-3b, S-10c). ``build_range`` is also ``narrow``'s
final answer."""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Sequence
from typing import Any

from agentops import files, ghactions
from agentops.bisect import index as idx
from agentops.bisect import ranges as rg
from agentops.bisect.session import Session
from agentops.bisect.verbs.args import require_pair, version_date
from agentops.bisect.verbs.output import emit, json_text
from agentops.errors import ExitStatus, InputError


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
        gd = idx.parse_date(good) or version_date(good)
        bd = idx.parse_date(bad) or version_date(bad)
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
    emit(json_text(payload) if as_json else md)
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
    require_pair(good, bad)
    rng = build_range(session, good, bad)
    _publish_range(rng, as_json=args.json)
    session.finish()
    return ExitStatus.OK
