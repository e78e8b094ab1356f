"""Records of the post-mortem skill: the facts (people's file merged with what GitHub
showed), the section model every renderer reads, and the Draft.

Pure: no I/O. Renderers never see raw facts text; they see ``Span`` runs already
classified as plain text, inline code or links, so Markdown and ADF stay the same
document (P-6: the payload shown is the payload posted).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Destination = Literal["jira", "pr", "docs", "wiki"]
DESTINATIONS: tuple[str, ...] = ("jira", "pr", "docs", "wiki")
STATUSES: tuple[str, ...] = ("draft", "approved", "published")

# The seed's nine sections, in its order (P-4). Titles are a contract with lint.py,
# which finds sections by these headings.
SECTIONS: tuple[tuple[str, str, bool], ...] = (
    ("summary", "Summary", True),
    ("symptoms", "Symptoms", False),
    ("root_cause", "Root cause", True),
    ("why_symptom", "Why the symptom", False),
    ("fix", "Fix", True),
    ("how_found", "How it was found", False),
    ("why_slipped", "Why it slipped", False),
    ("verification", "Verification", True),
    ("action_items", "Action items", False),
)
TITLES = {key: title for key, title, _ in SECTIONS}
REQUIRED = tuple(key for key, _, required in SECTIONS if required)
NONE_SENTENCE = "None — this fix is sufficient; no follow-up is needed for this class of bug."


@dataclass(frozen=True)
class Span:
    """A run of inline text: plain, inline code, or a link (never code *and* link:
    ADF forbids that combination, so the model cannot express it)."""

    text: str
    code: bool = False
    href: str | None = None
    strong: bool = False

    def __post_init__(self) -> None:
        if not self.text:
            raise ValueError("Sanity: empty span (ADF rejects empty text nodes)")
        if self.code and (self.href or self.strong):
            raise ValueError("Sanity: a code span carries no other mark")


Inline = tuple[Span, ...]


@dataclass(frozen=True)
class Paragraph:
    spans: Inline


@dataclass(frozen=True)
class BulletList:
    items: tuple[Inline, ...]


@dataclass(frozen=True)
class CodeBlock:
    text: str
    language: str | None = None


@dataclass(frozen=True)
class Question:
    """A fact the owner has not given: asked, never filled with invented prose."""

    owner: str
    text: str


Block = Paragraph | BulletList | CodeBlock | Question


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    required: bool
    blocks: tuple[Block, ...]

    @property
    def questions(self) -> tuple[Question, ...]:
        return tuple(b for b in self.blocks if isinstance(b, Question))


@dataclass(frozen=True)
class Draft:
    """The whole document: a metadata block, then the sections in the seed's order."""

    ticket: str
    title: str
    owner: str
    date: str
    status: str
    revision: int
    destination: str
    metadata: tuple[tuple[str, Inline], ...]
    sections: tuple[Section, ...]
    open_questions: tuple[Question, ...]  # optional sections left out for want of facts
    marker: str  # a stable id of this draft in the posted text (used to detect a landed post)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"Sanity: status {self.status!r} not in {STATUSES}")
        keys = [s.key for s in self.sections]
        order = [k for k, _, _ in SECTIONS if k in keys]
        if keys != order:
            raise ValueError(f"Sanity: sections out of the seed's order: {keys}")
        missing = [k for k in REQUIRED if k not in keys]
        if missing:
            raise ValueError(f"Sanity: required sections missing: {missing}")

    def questions(self) -> tuple[Question, ...]:
        """Every question to the owner, in document order."""
        out = list(self.open_questions)
        for section in self.sections:
            out += section.questions
        return tuple(out)


@dataclass(frozen=True)
class CheckRun:
    name: str
    status: str
    conclusion: str | None
    url: str = ""


@dataclass(frozen=True)
class Gathered:
    """What GitHub showed (P-2), already parsed; fills gaps in the people's facts."""

    issue_ref: str | None = None
    issue_title: str | None = None
    error_lines: tuple[str, ...] = ()
    code_blocks: tuple[str, ...] = ()
    pr_ref: str | None = None
    pr_url: str | None = None
    pr_title: str | None = None
    pr_body: str | None = None  # first paragraph only
    pr_merged: bool | None = None
    merge_commit: str | None = None
    head_sha: str | None = None
    commits: tuple[str, ...] = ()  # "sha7 subject"
    files: tuple[str, ...] = ()
    diff_identifiers: tuple[str, ...] = ()
    check_runs: tuple[CheckRun, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if name == "check_runs":
                value = [vars(c).copy() for c in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[name] = value
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Gathered:
        kwargs: dict[str, Any] = {}
        for name in cls.__dataclass_fields__:
            if name not in obj:
                continue
            value = obj[name]
            if name == "check_runs":
                value = tuple(CheckRun(**c) for c in value)
            elif isinstance(value, list):
                value = tuple(value)
            kwargs[name] = value
        return cls(**kwargs)


_TEXT_OR_NULL: dict[str, Any] = {"type": ["string", "null"]}
_TEXTS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
# The shape Gathered.to_json writes (a test keeps the two in step): a replayed file of
# another shape is refused, never half-read (pr_merged: "no" would read as merged).
GATHERED_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "issue_ref": _TEXT_OR_NULL, "issue_title": _TEXT_OR_NULL,
        "error_lines": _TEXTS, "code_blocks": _TEXTS,
        "pr_ref": _TEXT_OR_NULL, "pr_url": _TEXT_OR_NULL, "pr_title": _TEXT_OR_NULL,
        "pr_body": _TEXT_OR_NULL, "pr_merged": {"type": ["boolean", "null"]},
        "merge_commit": _TEXT_OR_NULL, "head_sha": _TEXT_OR_NULL,
        "commits": _TEXTS, "files": _TEXTS, "diff_identifiers": _TEXTS,
        "check_runs": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["name", "status", "conclusion"],
            "properties": {"name": {"type": "string"}, "status": {"type": "string"},
                           "conclusion": _TEXT_OR_NULL, "url": {"type": "string"}}}},
    },
}

PASSING = ("success", "neutral", "skipped")


@dataclass(frozen=True)
class Facts:
    """People's facts with GitHub's filling the gaps (people win, P-2); ``sources``
    says, per top-level key, where the value came from."""

    data: Mapping[str, Any]
    sources: Mapping[str, str]
    facts_path: str = ""
    facts_sha256: str = ""
    gathered: Gathered = field(default_factory=Gathered)

    def get(self, *path: str | int, default: Any = None) -> Any:
        node: Any = self.data
        for part in path:
            if isinstance(node, Mapping) and isinstance(part, str):
                node = node.get(part)
            elif isinstance(node, list) and isinstance(part, int) and part < len(node):
                node = node[part]
            else:
                return default
            if node is None:
                return default
        return node

    @property
    def ticket(self) -> str:
        return str(self.data["ticket"])

    @property
    def owner(self) -> str:
        return str(self.data["owner"])

    def identifiers(self) -> tuple[str, ...]:
        """Code identifiers the document must keep: the people's, then the diff's."""
        seen: dict[str, None] = {}
        for ident in [*(self.get("root_cause", "identifiers") or []),
                      *self.gathered.diff_identifiers]:
            seen.setdefault(str(ident), None)
        return tuple(seen)


def merge(data: Mapping[str, Any], gathered: Gathered | None, *, facts_path: str = "",
          facts_sha256: str = "") -> Facts:
    """People's facts, with gaps filled from GitHub; never overwrites a given fact."""
    merged = copy.deepcopy(dict(data))
    sources = {key: f"facts file {facts_path}".strip() for key in merged}
    g = gathered or Gathered()
    if g.pr_ref:
        fix = merged.setdefault("fix", {})
        if not fix.get("refs"):
            # Sanity: an unmerged PR is not a landed fix; the gate names it.
            fix["refs"] = [g.pr_ref]
            sources["fix"] = f"GitHub PR {g.pr_ref}"
        if not fix.get("description") and g.pr_body:
            fix["description"] = g.pr_body
            sources["fix.description"] = f"GitHub PR {g.pr_ref} description"
        if not (merged.get("summary") or {}).get("fix") and g.pr_title:
            merged.setdefault("summary", {})["fix"] = g.pr_title
            sources["summary.fix"] = f"GitHub PR {g.pr_ref} title"
    if not merged.get("symptoms") and (g.error_lines or g.code_blocks):
        sources["symptoms"] = f"GitHub issue {g.issue_ref}"
    if not merged.get("verification") and g.check_runs:
        sources["verification"] = f"GitHub check runs on {(g.head_sha or '')[:7]}"
    if not merged.get("title") and (g.issue_title or g.pr_title):
        merged["title"] = g.issue_title or g.pr_title
        sources["title"] = f"GitHub {'issue ' + str(g.issue_ref) if g.issue_title else 'PR'}"
    return Facts(data=merged, sources=sources, facts_path=facts_path,
                 facts_sha256=facts_sha256, gathered=g)


def gathered_verification(g: Gathered) -> tuple[bool, str]:
    """Whether the PR head's check runs verify the fix on their own, and why not."""
    if not g.check_runs:
        return False, "no check runs on the PR head"
    pending = [c.name for c in g.check_runs if c.status != "completed"]
    failed = [c.name for c in g.check_runs
              if c.status == "completed" and c.conclusion not in PASSING]
    if pending:
        return False, f"check runs still running on {(g.head_sha or '')[:7]}: {', '.join(pending)}"
    if failed:
        return False, f"check runs failed on {(g.head_sha or '')[:7]}: {', '.join(failed)}"
    if not any(c.conclusion == "success" for c in g.check_runs):
        return False, "no check run on the PR head succeeded"
    return True, ""
