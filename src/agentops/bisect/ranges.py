"""Bisection across nightlies (S-10c, S-10d): split a good/bad range into up to K
probes, narrow it from probe results, and render the regression-range table (S-3b).

Pure: works on positions in an ordered list of nightlies and on result records the
adapter read; never opens a file or a socket. Positions, not dates, are the unit: a
nightly missing for a day is simply not in the list.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from packaging.version import InvalidVersion, Version

from agentops import console, flag_values, markdown_escape
from agentops.errors import DataError, InputError

Status = Literal["pass", "fail", "skip"]
STATUSES: tuple[str, ...] = ("pass", "fail", "skip")
# Sanity: GitHub runs at most 256 jobs per matrix.
MAX_WIDTH = 256
LOG_TAIL_LIMIT = 4000
_SHA_RE = re.compile(r"^[0-9a-f]{7,40}$")


@dataclass(frozen=True)
class ProbeResult:
    """What one matrix job found for one nightly: ``pass`` (repro exits 0), ``fail``
    (non-zero), or ``skip`` (could not be tested, e.g. the install failed)."""

    version: str
    status: Status
    log_tail: str = ""
    git_version: str | None = None
    wheel_url: str | None = None
    source: str = ""  # the file it came from (for messages)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise DataError(self.source or "result", "status",
                            f"expected one of {', '.join(STATUSES)}, got {self.status!r}")
        if self.git_version is not None and not _SHA_RE.match(self.git_version):
            raise DataError(self.source or "result", "git_version",
                            f"not a commit sha: {self.git_version!r}")

    @classmethod
    def from_json(cls, obj: Any, *, source: str) -> ProbeResult:
        """Validate one result file's object (unknown keys are rejected)."""
        if not isinstance(obj, dict):
            raise DataError(source, "", "expected a JSON object")
        known = {"version", "status", "log_tail", "git_version", "wheel_url", "exit_code",
                 "seconds"}
        extra = sorted(set(obj) - known)
        if extra:
            raise DataError(source, extra[0], f"unknown key (known: {', '.join(sorted(known))})")
        for key in ("version", "status"):
            if not isinstance(obj.get(key), str) or not obj[key]:
                raise DataError(source, key, "required string is missing")
        # Sanity: a result file is an artifact another job uploaded; a value of the wrong
        # type is a data error here, not a TypeError (exit 70) further on.
        for key in ("log_tail", "git_version", "wheel_url"):
            if obj.get(key) is not None and not isinstance(obj[key], str):
                raise DataError(source, key, f"expected text or null, got "
                                f"{type(obj[key]).__name__}")
        for key in ("exit_code", "seconds"):
            value = obj.get(key)
            if value is not None and (isinstance(value, bool)
                                      or not isinstance(value, (int, float))):
                raise DataError(source, key, f"expected a number or null, got "
                                f"{type(value).__name__}")
        return cls(version=obj["version"], status=obj["status"],
                   log_tail=str(obj.get("log_tail") or "")[-LOG_TAIL_LIMIT:],
                   git_version=obj.get("git_version") or None,
                   wheel_url=obj.get("wheel_url") or None, source=source)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"version": self.version, "status": self.status,
                               "log_tail": self.log_tail}
        if self.git_version:
            out["git_version"] = self.git_version
        if self.wheel_url:
            out["wheel_url"] = self.wheel_url
        return out


def check_pair(good: int, bad: int, *, good_text: str, bad_text: str) -> None:
    """Refuse an empty or reversed range before anything is planned."""
    if good == bad:
        raise InputError("--good/--bad", f"{good_text} and {bad_text} are the same nightly "
                         "(a range of 0 steps)", fix="give the last good and the first bad "
                                                    "nightly")
    if good > bad:
        raise InputError("--good/--bad", f"the good nightly {good_text} is newer than the bad "
                         f"one {bad_text}", fix="swap them (to find a fix rather than a "
                                                "regression, call the fixed nightly `bad`)")


def check_width(width: int) -> None:
    if not 1 <= width <= MAX_WIDTH:
        raise InputError("--width", f"must be 1…{MAX_WIDTH} (a matrix holds at most "
                         f"{MAX_WIDTH} jobs), got {width}")


def rounds_needed(steps: int, width: int) -> int:
    """ceil(log_(K+1) steps), computed exactly (no floating point): each round leaves
    at most ceil(steps / (K+1)) steps."""
    check_width(width)
    rounds = 0
    while steps > 1:
        steps = -(-steps // (width + 1))
        rounds += 1
    return rounds


def split(good: int, bad: int, width: int, *, exclude: frozenset[int] = frozenset()) -> list[int]:
    """Up to ``width`` positions strictly between ``good`` and ``bad`` that cut the
    candidates into equal parts; positions in ``exclude`` (untestable) are never picked."""
    check_width(width)
    cands = [i for i in range(good + 1, bad) if i not in exclude]
    if len(cands) <= width:
        return cands
    # Invariant: j*(c+1)//(K+1) is strictly increasing in j when c > K, so the picks
    # are distinct and every gap holds at most ceil((c+1)/(K+1)) steps.
    c = len(cands)
    return [cands[j * (c + 1) // (width + 1) - 1] for j in range(1, width + 1)]


@dataclass(frozen=True)
class Narrowing:
    """The range after one round: the new pair, what contradicts, and what comes next."""

    good: int
    bad: int
    next_probes: tuple[int, ...]
    done: bool
    contradictions: tuple[str, ...] = ()
    skipped: tuple[int, ...] = ()  # untestable positions still inside (good, bad)
    ignored: tuple[str, ...] = ()  # results outside the range, or duplicated

    @property
    def steps(self) -> int:
        return self.bad - self.good


def narrow(good: int, bad: int, results: Mapping[int, ProbeResult], *, width: int,
           labels: Sequence[str] | None = None) -> Narrowing:
    """Narrow ``good..bad`` with results keyed by position. The new bad is the first
    failing probe, the new good the last pass before it; a pass after a fail (or a
    failing good / passing bad) is a contradiction, reported rather than smoothed over.
    ``labels`` (version text by position) only make the messages readable."""
    check_width(width)

    def name(i: int) -> str:
        return labels[i] if labels is not None and 0 <= i < len(labels) else f"#{i}"

    contradictions: list[str] = []
    ignored: list[str] = []
    inside: dict[int, ProbeResult] = {}
    for pos, res in sorted(results.items()):
        if pos == good and res.status == "fail":
            contradictions.append(f"{name(pos)} is the good end but its probe failed")
        elif pos == bad and res.status == "pass":
            contradictions.append(f"{name(pos)} is the bad end but its probe passed")
        elif good < pos < bad:
            inside[pos] = res
        elif pos not in (good, bad):
            ignored.append(f"{name(pos)} ({res.status}) is outside {name(good)}…{name(bad)}")
    fails = [p for p, r in inside.items() if r.status == "fail"]
    new_bad = min(fails) if fails else bad
    passes_before = [p for p, r in inside.items() if r.status == "pass" and p < new_bad]
    new_good = max(passes_before) if passes_before else good
    for p, r in sorted(inside.items()):
        if r.status == "pass" and p > new_bad:
            contradictions.append(
                f"{name(p)} passed after {name(new_bad)} failed (flaky repro, or the "
                "regression was fixed and came back); narrowing to the first failure")
    skipped = frozenset(p for p, r in inside.items()
                        if r.status == "skip" and new_good < p < new_bad)
    nxt = split(new_good, new_bad, width, exclude=skipped)
    return Narrowing(good=new_good, bad=new_bad, next_probes=tuple(nxt), done=not nxt,
                     contradictions=tuple(contradictions), skipped=tuple(sorted(skipped)),
                     ignored=tuple(ignored))


# --- the regression-range table (S-3b) ------------------------------------------------

@dataclass(frozen=True)
class Row:
    """One line of the table: a nightly, its status, and the main-branch commit."""

    version: str
    status: str  # good | bad | pass | fail | skip
    commit: str | None = None
    note: str = ""


@dataclass(frozen=True)
class RegressionRange:
    """The final good/bad pair with commits, and the compare link between them."""

    repo: str
    rows: tuple[Row, ...]
    good: Row
    bad: Row
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def compare_url(self) -> str | None:
        if self.good.commit and self.bad.commit:
            return (f"https://github.com/{self.repo}/compare/"
                    f"{self.good.commit}...{self.bad.commit}")
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "good": _row_json(self.good),
            "bad": _row_json(self.bad),
            "rows": [_row_json(r) for r in self.rows],
            "compare_url": self.compare_url,
            "notes": list(self.notes),
        }


def _row_json(row: Row) -> dict[str, Any]:
    return {"version": row.version, "status": row.status, "commit": row.commit,
            "note": row.note}


_ICON = {"good": "✅ good", "bad": "❌ bad", "pass": "✅ pass", "fail": "❌ fail",
         "skip": "⚪ untested"}


def _is_nightly(version: str) -> bool:
    if flag_values.nightly_date(version) is not None:  # a date (commit-source branch)
        return True
    try:
        return Version(version).dev is not None
    except InvalidVersion:
        return False


def column(rng: RegressionRange) -> str:
    """What the first column lists: Nightly, Release, or Version for a mix."""
    kinds = {_is_nightly(r.version) for r in rng.rows}
    return "Nightly" if kinds == {True} else "Release" if kinds == {False} else "Version"


def render_markdown(rng: RegressionRange) -> str:
    """The ``Nightly | Status | PyTorch Commit`` table (``Release`` when the rows are
    releases) and the compare link. Notes are our sentences around untrusted values:
    their backtick spans render as code, everything else as inert text."""
    lines = [f"| {column(rng)} | Status | PyTorch Commit |", "|---|---|---|"]
    for row in rng.rows:
        if row.commit:
            commit = f"[`{row.commit[:12]}`](https://github.com/{rng.repo}/commit/{row.commit})"
        else:
            commit = "unknown"
        if row.note:
            commit += f" ({markdown_escape.marked(row.note, limit=200, cell=True)})"
        status = _ICON.get(row.status, row.status)
        lines.append(f"| `{row.version}` | {status} | {commit} |")
    url = rng.compare_url
    lines += ["", f"Compare: {url}" if url else
              "Compare: not available (a commit is unknown; see the notes)"]
    lines += [f"- {markdown_escape.marked(n, limit=500)}" for n in rng.notes]
    return "\n".join(lines) + "\n"


def render_log_tail(version: str, text: str, *, lines: int = 20) -> str:
    """The last lines of a probe's log as a collapsed block. The fence is longer than
    any backtick run in the text, so the log cannot close it and inject Markdown."""
    # The gate after the split: ``splitlines`` also breaks at characters the runner
    # does not (U+2028, form feed), and each piece becomes a line of its own here.
    tail = console.inert_line("\n".join(text.splitlines()[-lines:]), limit=LOG_TAIL_LIMIT)
    longest = max((len(m) for m in re.findall(r"`+", tail)), default=0)
    fence = "`" * max(3, longest + 1)
    return (f"<details><summary>Log tail of <code>{version}</code></summary>\n\n"
            f"{fence}text\n{tail}\n{fence}\n\n</details>\n")
