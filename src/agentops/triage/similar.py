"""Is a template's request already on the issue? (T-26)

Pure: compares text only. Used by the planner (so the plan shows the comment it will
really post) and again by the applier right before it writes (the issue may have
changed since the plan was made).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from agentops.triage.model import Comment, Template

_MARKER_RE = re.compile(r"<!--\s*agentops:triage template=([\w.-]+) version=(\d+)\s*-->")
_WORD_RE = re.compile(r"[a-z0-9]+")
_CODE_RE = re.compile(r"```.*?```", re.S)
# Words that carry no request meaning; shared by every template.
_STOP = frozenset(
    "a an and are as at be by can could do for from have if in is it of on or our please "
    "so that the this to we with you your would will us".split()
)
# Sanity: share of a template version's 3-word shingles that must reappear in a comment
# for it to count as "substantially the same request"; measured on rewordings of the
# shipped templates (tests/triage/test_similar.py).
SHINGLE_CONTAINMENT = 0.5


def markers(text: str) -> list[tuple[str, int]]:
    """The (template, version) markers in a comment body."""
    return [(m.group(1), int(m.group(2))) for m in _MARKER_RE.finditer(text)]


def _shingles(text: str) -> set[tuple[str, str, str]]:
    text = _MARKER_RE.sub(" ", _CODE_RE.sub(" ", text.lower()))
    words = [w for w in _WORD_RE.findall(text) if w not in _STOP]
    return {tuple(words[i:i + 3]) for i in range(len(words) - 2)}  # type: ignore[misc]


def find_equivalent(comments: Sequence[Comment], template: Template) -> str | None:
    """Why the template must not be posted again, or ``None`` if it may be.

    Skips when any comment carries the template's marker (any version); or when a bot
    or maintainer comment matches one of its intent patterns or contains at least half
    of the 3-word shingles of any of its versions (an older wording counts)."""
    for comment in comments:
        why = equivalent(comment, template)
        if why:
            return why
    return None


def equivalent(comment: Comment, template: Template) -> str | None:
    """Why ``comment`` already is ``template``'s request (its marker, or a bot's or
    maintainer's comment saying substantially the same), or ``None``."""
    for name, version in markers(comment.body):
        if name == template.name:
            return f"marker of {name} v{version} already in comment {comment.id}"
    if not (comment.is_bot or comment.is_maintainer):
        return None
    versions, patterns = _compiled(template)
    who = f"{'bot' if comment.is_bot else 'maintainer'} {comment.author}"
    for pat in patterns:
        if pat.search(comment.body):
            return f"{who} already asked (comment {comment.id})"
    words = _shingles(comment.body)
    for shingles in versions:
        if shingles and len(shingles & words) / len(shingles) >= SHINGLE_CONTAINMENT:
            return f"{who} already posted this request (comment {comment.id})"
    return None


def is_boilerplate(comment: Comment, templates: Iterable[Template]) -> bool:
    """A triage comment rather than part of the report: it carries any agentops triage
    marker (whoever posted it: a bot running on a person's token shows as a user), or a
    bot or maintainer wrote one of the templates' requests. Its words (the
    not-distributed notice names DDP, FSDP, torchrun, ranks …) are not evidence."""
    if markers(comment.body):
        return True
    return any(equivalent(comment, t) for t in templates)


@functools.lru_cache(maxsize=64)
def _compiled(template: Template) -> tuple[list[set[tuple[str, str, str]]], list[re.Pattern[str]]]:
    return ([_shingles(body) for body in template.bodies()],
            [re.compile(p, re.I | re.S) for p in template.intent_patterns])
