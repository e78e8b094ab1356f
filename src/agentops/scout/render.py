"""Render a ``Report`` as the S-7 Markdown: exactly the spec's sections in order, an
empty section saying "nothing to report", API-backed parts rendered from ``LiveData``
or marked ``skipped — <reason>``, and the hidden machine-readable block appended.

Pure: records in, text out. Text quoted from the repository or the API is made inert.
"""

from __future__ import annotations

from typing import Any

from agentops import markdown_escape as esc
from agentops.scout import embedded
from agentops.scout.analyses import docnames
from agentops.scout.livedata import LiveData
from agentops.scout.model import FACT_CHARS, MAX_FACTS, Item, Report

SECTIONS = ("CI Failures", "Action Items (new findings)",
            "Carried Forward (from prior reports, re-investigated)", "Opportunities", "FYI",
            "Docs", "All Clear")
NOTHING = "nothing to report"
# GitHub refuses comment bodies over 65536 characters; keep a margin for the links that
# handoff adds to action items later.
COMMENT_LIMIT = 60000
MAX_SKIPPED_SHOWN = 10
_PRIORITY_ORDER = {"P0": 0, "P1": 1, "P2": 2, "": 3}


def _t(text: str) -> str:
    # Finding texts mark identifiers with backtick spans (S-7): those become code spans
    # (shown exactly, `->` included), everything else inert text.
    return esc.marked(text, limit=400)


def _code(text: str) -> str:
    return esc.code(text, limit=400)


def skipped_reason(live: LiveData, part: str) -> str:
    """``skipped — <reason>`` for a LiveData part that is ``None``."""
    return f"skipped — {live.skipped.get(part, 'offline')}"


def _ci_lines(live: LiveData) -> list[str]:
    if live.ci is None:
        return [f"- {skipped_reason(live, 'ci')}"]
    if not live.ci:
        return [f"- {NOTHING} (no configured workflow has scheduled runs)"]
    lines: list[str] = []
    for wf in live.ci:
        link = f" ({esc.link('run', wf.latest_url)})" if wf.latest_url else ""
        if wf.latest_conclusion == "success":
            lines.append(f"- **{esc.text(wf.workflow)}**: CI green{link}")
            continue
        lines.append(f"- **{esc.text(wf.workflow)}**: {esc.text(wf.latest_conclusion)}{link}; "
                     "last " + (esc.link("success", wf.last_success_url)
                                if wf.last_success_url else "no recent success in last 5 runs"))
        for ft in wf.failed_tests:
            lines.append(f"  - **Failing test**: {_code(ft.name)}")
            if ft.exception:
                lines.append(f"  - **Error**: {_code(ft.exception)}")
            lines += [f"    - {_code(s)}" for s in ft.source_lines[:5]]
            if ft.command:
                lines.append(f"  - **Repro** (from the target's template): {_code(ft.command)}")
            elif ft.logged_command:
                # Security: the log's own text, shown as inert code and never proposed.
                lines.append(f"  - **Logged command** (no repro proposed: "
                             f"{_t(ft.command_refused or 'not checked')}): "
                             f"{_code(ft.logged_command)}")
        if wf.last_success_torch or wf.failing_torch:
            lines.append(f"  - **Regression range**: {_code(wf.last_success_torch or '?')} → "
                         f"{_code(wf.failing_torch or '?')}")
    return lines


def _fix(it: Item) -> str:
    return f" **Fix:** {_t(it.fix)}." if it.fix else ""


def _action(it: Item) -> str:
    why = "; ".join(p for p in (it.why, it.status) if p)
    where = f" ({_t(it.where)})" if it.where else ""
    return (f"- [ ] [{it.priority or 'P2'}] {_t(it.title)}"
            + (f" — {_t(why)}." if why else "") + _fix(it) + where
            + f" <!-- scout-item:{it.id} -->")


def _carried(it: Item) -> str:
    tail = "; ".join(p for p in (f"first reported {it.first_reported}", it.status) if p)
    where = f" ({_t(it.where)})" if it.where else ""
    return (f"- [ ] [{it.priority or 'P2'}] {_t(it.title)} — {_t(tail)}."
            + _fix(it) + where + f" <!-- scout-item:{it.id} -->")


def _plain(it: Item) -> str:
    tail = ", ".join(p for p in (it.why, it.where, it.status) if p)
    sev = f"[{it.severity}] " if it.severity and it.kind == "fyi" else ""
    return f"- {sev}{_t(it.title)}" + (f" — {_t(tail)}" if tail else "")


def _sorted(items: list[Item]) -> list[Item]:
    return sorted(items, key=lambda i: (_PRIORITY_ORDER.get(i.priority, 3), i.section, i.title))


def markdown(report: Report, live: LiveData) -> str:
    """The report body (without the embedded block)."""
    by_kind: dict[str, list[Item]] = {}
    for it in report.items:
        by_kind.setdefault(it.kind, []).append(it)
    b = report.baseline
    out = [f"# Nightly Scout Report — {report.date}", "",
           f"_Target {esc.code(report.target)} at `{report.head[:12]}`; baseline {b.since} "
           f"({b.source}" + (f", `{b.commit[:12]}`" if b.commit else ", no earlier commit")
           + ")._", ""]
    body: dict[str, list[str]] = {s: [] for s in SECTIONS}
    body["CI Failures"] = _ci_lines(live)
    body["Action Items (new findings)"] = [_action(i) for i in _sorted(by_kind.get("action",
                                                                                   []))]
    carried = by_kind.get("carried", [])
    body["Carried Forward (from prior reports, re-investigated)"] = [
        _carried(i) for i in _sorted([i for i in carried if not i.muted])]
    muted = [i for i in carried if i.muted]
    if muted:
        since = min(i.first_reported for i in muted if i.first_reported) if any(
            i.first_reported for i in muted) else ""
        body["Carried Forward (from prior reports, re-investigated)"].append(
            f"- {len(muted)} action item(s) unchanged in the last three reports are not "
            "repeated: still open" + (f", the oldest first reported {since}" if since else "")
            + " (tracked on the board; `muted` items in --json)")
    body["Opportunities"] = [_plain(i) for i in _sorted(by_kind.get("opportunity", []))]
    fyi = [_plain(i) for i in _sorted(by_kind.get("fyi", []))]
    quiet = report.quiet.get("fyi", 0) + report.quiet.get("opportunity", 0)
    if quiet:
        fyi.append(f"- {quiet} FYI/opportunity item(s) unchanged in the last three reports "
                   "are not repeated (`suppressed` in --json)")
    if live.pulls is None and any(t.get("refs") for t in report.analyses.get("todos", [])
                                  if any("#" in r for r in t.get("refs", []))):
        fyi.append(f"- TODO upstream PR states: {skipped_reason(live, 'pulls')}")
    if live.open_work is None:
        fyi.append(f"- Open work (S-6): {skipped_reason(live, 'open_work')}")
    if live.prior_reports is None and live.skipped.get("prior_reports"):
        fyi.append(f"- Prior reports (S-0a): {skipped_reason(live, 'prior_reports')}")
    ignored = report.analyses.get("prior_reports_ignored") or []
    if ignored:
        fyi.append(f"- Prior reports (S-0a): {len(ignored)} report-like comment(s) not "
                   "written by the token's account ignored (never read as a prior)")
    unproven = report.analyses.get("prior_reports_unproven") or []
    if unproven:
        fyi.append(f"- Prior reports (S-0a): {len(unproven)} report-like comment(s) of the "
                   "token's account whose provenance does not check out ignored (never "
                   "read as a prior; another workflow of the same bot account, or no run or "
                   "signature)")
    skipped = report.analyses.get("files_skipped") or {}
    if skipped:
        shown = "; ".join(f"{_code(path)} ({esc.text(why)})"
                          for path, why in list(skipped.items())[:MAX_SKIPPED_SHOWN])
        more = (f"; and {len(skipped) - MAX_SKIPPED_SHOWN} more (`files_skipped` in --json)"
                if len(skipped) > MAX_SKIPPED_SHOWN else "")
        fyi.append(f"- {len(skipped)} file(s) not analysed: {shown}{more}")
    body["FYI"] = fyi
    docs = [_plain(i) for i in by_kind.get("docs", [])]  # analysis order: file, then line
    if docs and report.quiet.get("docs"):
        docs.append(_docs_status(report))
    elif docs and _unchecked(report):
        docs.append(_unchecked(report) + (f"; {_unverified(report)}" if _unverified(report)
                                          else ""))
    elif docs and _unverified(report):
        docs.append("- " + _unverified(report))
    body["Docs"] = docs or [_docs_status(report)]
    body["All Clear"] = [_plain(i) for i in by_kind.get("all_clear", [])] + [
        _plain(i) for i in report.resolved]
    for name in SECTIONS:
        out += [f"## {name}", *(body[name] or [NOTHING]), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def _docs_status(report: Report) -> str:
    """"docs are current" only when every configured doc was there and checked."""
    absent = [p["file"] for p in report.analyses.get("doc_inaccuracies", [])
              if p.get("kind") == "absent"]
    if report.quiet.get("docs"):
        return (f"- {report.quiet['docs']} known inaccuracies, unchanged in the last three "
                "reports, are not repeated (`suppressed` in --json)")
    if absent:
        tail = _unverified(report)
        return (f"- not checked: {', '.join(f'`{a}`' for a in absent)} (not at HEAD)"
                + (f"; {tail}" if tail else ""))
    if not report.analyses.get("docs_checked", True):
        return "- not checked (no docs configured)"
    if _unchecked(report):
        tail = _unverified(report)
        return ("- no inaccuracy in what was checked; "
                + _unchecked(report).removeprefix("- ") + (f"; {tail}" if tail else ""))
    if _unverified(report):
        return "- no inaccuracy in what was checked; " + _unverified(report)
    return "- docs are current"


def _unverified(report: Report) -> str:
    """Claims the scout does not verify (a TODO list, a feature or support list):
    "docs are current" is said only when every kind of claim was checked (#22)."""
    problems = [p for p in report.analyses.get("doc_inaccuracies", [])
                if p.get("kind") == "unverified"]
    # Security: a support claim quotes the doc's own sentence; shown as inert text.
    found = [esc.text(f"{p['problem']} ({p['file']}:{p['line']})", limit=240)
             for p in problems if p["problem"] != docnames.UNLISTED]
    unlisted = [_code(p["file"]) for p in problems if p["problem"] == docnames.UNLISTED]
    out = []
    if found:
        out.append("not checked against the code: " + ", ".join(found[:MAX_UNCHECKED_SHOWN])
                   + (f" and {len(found) - MAX_UNCHECKED_SHOWN} more" if len(found) >
                      MAX_UNCHECKED_SHOWN else "")
                   + " (only their items naming a parallelism, LoRA or activation "
                   "checkpointing were compared with the code; compare the rest by hand)")
    if unlisted:
        out.append("not checked at all: " + ", ".join(unlisted[:MAX_UNCHECKED_SHOWN])
                   + (f" and {len(unlisted) - MAX_UNCHECKED_SHOWN} more" if len(unlisted) >
                      MAX_UNCHECKED_SHOWN else "")
                   + f" ({docnames.UNLISTED}; add them there)")
    return "; ".join(out)


MAX_UNCHECKED_SHOWN = 3


def _unchecked(report: Report) -> str:
    """Settings the docs name that could not be resolved (their config class is not
    in the checkout, or no ``doc_config_roots``), grouped by why: never "current"."""
    why: dict[str, list[str]] = {}
    for p in report.analyses.get("doc_inaccuracies", []):
        if p.get("kind") == "unchecked":
            what, _, reason = p["problem"].partition(": ")
            names = why.setdefault(reason, [])
            if what not in names:
                names.append(what.removeprefix("flag "))
    if not why:
        return ""
    parts = []
    for reason, names in why.items():
        shown = ", ".join(_code(n) for n in names[:MAX_UNCHECKED_SHOWN])
        more = f" and {len(names) - MAX_UNCHECKED_SHOWN} more" if len(
            names) > MAX_UNCHECKED_SHOWN else ""
        parts.append(f"{len(names)} setting(s) ({shown}{more}): {esc.text(reason)}")
    return "- not checked: " + "; ".join(parts)


_KEEP = ("why", "where", "fix")  # what a board draft needs from an action item


def _bounded(it: Item) -> dict[str, Any]:
    """What the next run (and handoff) needs of an item, bounded: identity, kind and
    fingerprint for every item; the facts, files and the why/where/fix a board draft
    needs only for action items (the rest would crowd the visible report out of the
    comment)."""
    out: dict[str, Any] = {"id": it.id, "section": it.section, "kind": it.kind,
                           "fingerprint": it.fingerprint,
                           "first_reported": it.first_reported, "title": it.title[:100]}
    if it.muted:
        out["muted"] = True
    if it.kind in ("action", "carried"):
        out.update(priority=it.priority, severity=it.severity, title=it.title[:160],
                   files=list(it.files[:6]), facts=[f[:FACT_CHARS] for f in it.facts[:MAX_FACTS]])
        out.update({k: str(getattr(it, k))[:300] for k in _KEEP if getattr(it, k)})
    return out


def payload(report: Report) -> dict[str, Any]:
    """The hidden block: what the next run needs to tell new from carried exactly."""
    return {
        "date": report.date,
        "target": report.target,
        "head": report.head,
        "since": report.baseline.since,
        "items": [_bounded(i) for i in report.items if i.kind != "all_clear"]
        + [{"id": i.id, "section": i.section, "kind": "all_clear", "title": i.title[:200],
            "fingerprint": i.fingerprint} for i in report.items if i.kind == "all_clear"],
        "todos": [{"id": t["id"], "file": t["file"], "tag": t["tag"], "text": t["text"][:80],
                   "fingerprint": t["fingerprint"], "first_reported": t["first_reported"]}
                  for t in report.analyses.get("todos", [])],
        "suppressed": list(report.suppressed),
    }


def render(report: Report, live: LiveData, *, limit: int = COMMENT_LIMIT) -> str:
    """Markdown with the embedded block, ready to post, within ``limit`` characters: the
    block (what the next run needs) is kept whole; TODO texts go first, then the tail of
    the visible report, with a note saying so."""
    md, data = markdown(report, live), payload(report)
    out = embedded.embed(md, data)
    if len(out) > limit:
        data = {**data, "todos": [{k: v for k, v in t.items() if k != "text"}
                                  for t in data["todos"]]}
        out = embedded.embed(md, data)
    if len(out) > limit:
        note = ("\n_… truncated to fit a GitHub comment; the job summary and `--json` have "
                "the full report._\n")
        budget = max(0, limit - (len(out) - len(md)) - len(note))
        cut = md[:budget].rsplit("\n", 1)[0]
        out = embedded.embed(cut + "\n" + note, data)
    return out
