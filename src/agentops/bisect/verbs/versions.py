"""``nightly_bisect.py versions``: list the nightlies on the index (S-10a)."""

from __future__ import annotations

import argparse

from agentops import ghactions
from agentops.bisect import index as idx
from agentops.bisect.session import Session
from agentops.bisect.verbs.args import date_arg
from agentops.bisect.verbs.output import emit, json_text
from agentops.errors import ExitStatus, InputError
from agentops.http import redact


def versions_command(args: argparse.Namespace) -> int:
    """List the nightlies on the index (S-10a)."""
    session = Session(args)
    since = date_arg(args.since, "--since")
    until = date_arg(args.until, "--until")
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
        emit(json_text([{**n.to_json(), "wheel_url": redact(n.wheel.url)} for n in ns]))
    else:
        for n in ns:
            emit(f"{n.version}  {n.date or '-'}  {redact(n.wheel.url)}")
        retention = (f" (the index keeps about the newest {idx.RETENTION_HINT})"
                     if dated else "")
        ghactions.notice(f"{idx.noun(ns) if ns else idx.noun(listed, 0)} for "
                         f"{idx.python_tag(args.python)} on {args.platform}{retention}")
    session.finish()
    return ExitStatus.OK
