"""The event that started a workflow run, turned into what a skill should work on.

Two sides of the I/O line, kept apart:
- ``read_event`` is the adapter: it reads ``GITHUB_EVENT_NAME`` and the JSON file at
  ``GITHUB_EVENT_PATH`` the runner wrote, and nothing else.
- ``triage_targets`` and ``dispatch_inputs`` are pure: payload in, frozen record out.
  They never call the API and never trust the payload for more than *which* issue to
  look at; the triage run reads the issue fresh before planning (the payload can be
  minutes old and its text is attacker-controlled).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from agentops import files
from agentops.errors import InputError

# Sanity: a dispatch naming more issues than this is a paste error, not a request;
# the scheduled sweep (with its own budget) is the way to do many.
MAX_DISPATCH_ISSUES = 50
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("", "0", "false", "no", "off")


@dataclass(frozen=True)
class Targets:
    """What a triage run should do for one event: issue numbers, a sweep, or nothing
    (``ignored_reason`` says why, for the log)."""

    numbers: tuple[int, ...] = ()
    ignored_reason: str = ""
    sweep: bool = False
    dry_run: bool = False

    @property
    def ignored(self) -> bool:
        return bool(self.ignored_reason)


def read_event(env: Mapping[str, str] | None = None) -> tuple[str, dict[str, Any]]:
    """(event name, payload) of the current run; ``("", {})`` outside a runner."""
    env = os.environ if env is None else env
    name = env.get("GITHUB_EVENT_NAME", "")
    path = env.get("GITHUB_EVENT_PATH", "")
    if not path:
        return name, {}
    fix = ("run inside a GitHub Actions job, or unset GITHUB_EVENT_PATH and pass --issue; "
           "point it only at the event JSON the runner wrote")
    payload = files.read_json(path, field="GITHUB_EVENT_PATH", fix=fix, limit=25 * 2**20)
    return name, payload


def parse_issue_numbers(text: str, *, field: str = "issue") -> tuple[int, ...]:
    """``"12, 34 #56"`` → ``(12, 34, 56)``: comma/space separated, ``#`` allowed,
    duplicates dropped in order."""
    out: list[int] = []
    for token in re.split(r"[\s,]+", text.strip()):
        if not token:
            continue
        digits = token.removeprefix("#")
        if not digits.isascii() or not digits.isdigit() or int(digits) <= 0:
            raise InputError(field, f"{token!r} is not an issue number",
                             fix="give numbers separated by commas or spaces, e.g. 12,34")
        if int(digits) not in out:
            out.append(int(digits))
    if len(out) > MAX_DISPATCH_ISSUES:
        raise InputError(field, f"{len(out)} issues in one dispatch (at most "
                                f"{MAX_DISPATCH_ISSUES})",
                         fix="split the list, or let the scheduled sweep take the backlog")
    return tuple(out)


def parse_bool(value: Any, *, field: str) -> bool:
    """A workflow_dispatch boolean: a JSON boolean or the strings the runner passes."""
    if isinstance(value, bool):
        return value
    text = "" if value is None else str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise InputError(field, f"{value!r} is not a boolean", fix="use true or false")


def dispatch_inputs(event_name: str, payload: Mapping[str, Any]) -> dict[str, str]:
    """The ``workflow_dispatch`` inputs as strings (booleans as ``true``/``false``),
    for any skill; empty for every other event."""
    if event_name != "workflow_dispatch":
        return {}
    inputs = payload.get("inputs") or {}
    if not isinstance(inputs, Mapping):
        raise InputError("inputs", "workflow_dispatch inputs are not an object")
    out = {}
    for key, value in inputs.items():
        if isinstance(value, bool):
            out[str(key)] = "true" if value else "false"
        else:
            out[str(key)] = "" if value is None else str(value)
    return out


def _is_bot(user: Mapping[str, Any], bot_logins: Iterable[str]) -> bool:
    login = str(user.get("login") or "")
    mine = {b.casefold() for b in bot_logins}
    return (user.get("type") == "Bot" or login.endswith("[bot]")
            or login.casefold() in mine)


def triage_targets(event_name: str, payload: Mapping[str, Any], *, trigger_label: str,
                   bot_logins: Iterable[str] = (), trusted_bots: Iterable[str] = ()
                   ) -> Targets:
    """Which issues a triage run should plan for this event (T-1, T-2, T-3).

    ``bot_logins``: this bot's own identities (never start a run). ``trusted_bots``:
    other bots whose trigger label does start one (the first-level triage bot that
    applies ``oncall: distributed``)."""
    bot_logins = tuple(bot_logins)
    trusted = {t.casefold() for t in trusted_bots} - {b.casefold() for b in bot_logins}
    if event_name == "schedule":
        return Targets(sweep=True)  # T-2: the backlog sweep, its budget is the runner's
    if event_name == "workflow_dispatch":
        inputs = dispatch_inputs(event_name, payload)
        dry_run = parse_bool(inputs.get("dry-run", inputs.get("dry_run")), field="dry-run")
        numbers = parse_issue_numbers(inputs.get("issue", ""))
        # T-3: named issues; none named means "sweep now" rather than "do nothing".
        return Targets(numbers=numbers, sweep=not numbers, dry_run=dry_run)
    if event_name != "issues":
        return Targets(ignored_reason=f"event {event_name or '(none)'!r} does not start triage "
                                      "(issues: labeled, schedule, workflow_dispatch do)")
    action = payload.get("action")
    if action != "labeled":
        return Targets(ignored_reason=f"issues.{action}: only issues.labeled starts triage")
    issue = payload.get("issue") or {}
    label = str((payload.get("label") or {}).get("name") or "")
    sender = payload.get("sender") or {}
    number = issue.get("number")
    if label.casefold() != trigger_label.casefold():
        return Targets(ignored_reason=f"label {label!r} is not the trigger {trigger_label!r}")
    # Security: no loops. A label added by a bot (ours through a PAT/App token, or the
    # first-level bot re-labelling) never starts a run; GITHUB_TOKEN events do not
    # start workflows at all, so this is the second guard.
    if _is_bot(sender, bot_logins) and str(sender.get("login") or "").casefold() not in trusted:
        return Targets(ignored_reason=f"labelled by a bot ({sender.get('login')!r}); "
                                      "bots never start triage")
    if "pull_request" in issue:
        return Targets(ignored_reason=f"#{number} is a pull request, not an issue")
    if issue.get("state") == "closed":
        return Targets(ignored_reason=f"#{number} is closed")
    if not isinstance(number, int) or isinstance(number, bool) or number <= 0:
        return Targets(ignored_reason="the payload has no issue number")
    return Targets(numbers=(number,))
