"""``nightly_bisect.py resolve``: one nightly's wheel and commit, as one JSON object
(S-10b); the wheel is read with HTTP range requests, never downloaded whole."""

from __future__ import annotations

import argparse
from typing import Any

from agentops import console, ghactions
from agentops.bisect import index as idx
from agentops.bisect.session import Session
from agentops.bisect.verbs.args import version_date
from agentops.bisect.verbs.output import emit
from agentops.errors import ExitStatus, InputError


def resolve_command(args: argparse.Namespace) -> int:
    """One nightly's wheel and commit, as one JSON object (S-10b)."""
    session = Session(args)
    if not args.version:
        raise InputError("--version", "required", fix="give a version or a date")
    out = _resolve_one(session, args.version)
    emit(console.json_text(out, indent=2))
    session.finish()
    return ExitStatus.OK


def _resolve_one(session: Session, spec: str) -> dict[str, Any]:
    if session.source == "branch":
        date = idx.parse_date(spec) or version_date(spec)
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
