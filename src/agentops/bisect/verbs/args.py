"""The verbs' shared argument readers: dates, a version's nightly date, and the
good/bad pair checked against the index (``range``, ``plan``, ``narrow``).
"""

from __future__ import annotations

import datetime as dt

from packaging.version import InvalidVersion, Version

from agentops.bisect import index as idx
from agentops.bisect import ranges as rg
from agentops.bisect.session import Session
from agentops.errors import InputError


def date_arg(text: str | None, field: str) -> dt.date | None:
    if not text:
        return None
    date = idx.parse_date(text)
    if date is None:
        raise InputError(field, f"not a date: {text!r}", fix="give YYYYMMDD")
    return date


def require_pair(good: str | None, bad: str | None) -> None:
    """Exit 1 naming --good/--bad when either is missing: checked before the index is
    read, so a forgotten flag costs no request and no retry wait."""
    if not good or not bad:
        raise InputError("--good/--bad", "both are required",
                         fix="give the last good and the first bad nightly (versions or "
                             "dates such as dev20260709)")


def pair(session: Session) -> tuple[list[idx.Nightly], int, int]:
    a = session.args
    require_pair(a.good, a.bad)
    ns = session.nightlies()
    g = session.find(a.good, field_name="--good")
    b = session.find(a.bad, field_name="--bad")
    rg.check_pair(g, b, good_text=str(ns[g].version), bad_text=str(ns[b].version))
    return ns, g, b


def version_date(spec: str) -> dt.date | None:
    try:
        return idx.dev_date(Version(spec))
    except InvalidVersion:
        return None
