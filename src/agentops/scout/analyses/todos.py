"""S-2 TODO unblock detection: every TODO/FIXME/HACK/XXX in the sub-project's
``*.py``, with owner, upstream references, context lines, and a status against the
prior reports (new / carried / changed) plus the ones resolved since.

Pure: reads the loaded tree and prior payloads; never reads files or the network.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentops.scout.livedata import PullState
from agentops.scout.model import Inputs, stable_id

# The marker words of a note left in code; docargs reads them too (a "TODO:" line under a
# docstring's Args: is a note, not a parameter).
MARKERS = ("TODO", "FIXME", "HACK", "XXX")
_TAG_RE = re.compile(r"\[?\b(" + "|".join(MARKERS)
                     + r")\b\]?(?:\(\s*@?([^)]*?)\s*\))?[:\s-]*(.*)")
# Order matters: the full URL forms first, so "github.com/a/b/pull/1" is not also "a/b#1".
_URL_PR_RE = re.compile(r"github\.com/([\w.-]+)/([\w.-]+)/(?:pull|issues)/(\d+)")
_SHORT_RE = re.compile(r"(?<![\w/.])([A-Za-z][\w.-]*)/([\w.-]+)#(\d+)")
_PATH_PR_RE = re.compile(r"(?<![\w/.])([A-Za-z][\w.-]*)/([\w.-]+)/(?:pull|issues)/(\d+)")
_BARE_RE = re.compile(r"(?<![\w/#])#(\d+)\b")
_URL_RE = re.compile(r"https?://[^\s)\]>'\"]+")


@dataclass(frozen=True)
class Todo:
    id: str  # stable: file + tag + normalized text (never the line)
    file: str  # relative to the checkout
    line: int
    tag: str
    text: str  # the comment text after the tag (continuation lines joined)
    owner: str
    refs: tuple[str, ...]  # "owner/name#N" and URLs
    context: tuple[str, ...]
    fingerprint: str
    status: str = "new"  # new | carried | changed
    first_reported: str = ""
    pr_states: tuple[tuple[str, str], ...] = ()  # (ref, "merged 2026-01-02" | "open" | …)
    # Named APIs the TODO waits for that the installed torch now defines: (name, module).
    api_hits: tuple[tuple[str, str], ...] = ()


def _normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def refs_in(text: str, repo: str = "", aliases: dict[str, str] | None = None
            ) -> tuple[str, ...]:
    """Upstream references in ``text``: ``owner/name#N`` for PRs/issues (``PyTorch #N``
    through ``aliases``; a bare ``#N`` means ``repo``), then URLs that are not PR/issue
    links."""
    found: list[str] = []
    for word, target in (aliases or {}).items():
        rx = re.compile(rf"\b{re.escape(word)}\s+(?:PR\s+|pull\s+|issue\s+)?#(\d+)", re.I)
        found += [f"{target}#{m.group(1)}" for m in rx.finditer(text)]
        text = rx.sub(" ", text)
    for m in _URL_PR_RE.finditer(text):
        found.append(f"{m.group(1)}/{m.group(2)}#{m.group(3)}")
    stripped = _URL_PR_RE.sub(" ", text)
    for rx in (_PATH_PR_RE, _SHORT_RE):
        for m in rx.finditer(stripped):
            found.append(f"{m.group(1)}/{m.group(2)}#{m.group(3)}")
        stripped = rx.sub(" ", stripped)
    if repo:
        found += [f"{repo}#{m.group(1)}" for m in _BARE_RE.finditer(stripped)]
    found += [u.rstrip(".,;:") for u in _URL_RE.findall(stripped)]
    return tuple(dict.fromkeys(found))


# Words written in TODO(...) that name a topic, not a person (a target adds its own
# with `todo_tags`): "TODO(perf)" has no owner.
DEFAULT_TAGS = frozenset("""
perf performance speed memory bug bugfix fix cleanup refactor test tests testing docs doc
compat bc bc-breaking deprecation deprecate hack later followup follow-up future
optional security typing types lint ci temp temporary wip nit minor debug experimental
upstream correctness numerics accuracy flaky
""".split())


def scan(path: str, text: str, repo: str = "", aliases: dict[str, str] | None = None,
         tags: frozenset[str] = DEFAULT_TAGS) -> list[Todo]:
    """TODO-like comments of one file."""
    lines = text.splitlines()
    out: list[Todo] = []
    for i, line in enumerate(lines):
        hash_at = line.find("#")
        comment = line[hash_at + 1:] if hash_at >= 0 else ""
        if hash_at < 0 or not _TAG_RE.search(comment):
            stripped = line.strip()
            # Docstring lines that start with a tag count too (grep would find them).
            if not stripped.startswith(("TODO", "FIXME", "HACK", "XXX")):
                continue
            comment = stripped
        m = _TAG_RE.search(comment)
        if m is None:
            continue
        tag, owner, first = m.group(1), (m.group(2) or "").strip(), m.group(3).strip()
        body = [first]
        if re.fullmatch(r"#\d+|[\w.-]+/[\w.-]+#\d+|https?://\S+", owner):
            body.insert(0, owner)  # TODO(#123): a reference, not a person
            owner = ""
        elif owner.lower() in tags:
            body.insert(0, f"({owner})")  # TODO(perf): a topic, not a person
            owner = ""
        # Continuation: following comment lines at the same indent without a new tag.
        for nxt in lines[i + 1:i + 8]:
            s = nxt.strip()
            if not s.startswith("#") or _TAG_RE.search(s[1:]) or s == "#":
                break
            body.append(s[1:].strip())
        full = " ".join(b for b in body if b)
        ctx = tuple(lines[max(0, i - 2):i + 3])
        out.append(Todo(id=stable_id("todo", path, tag, _normalize(first)), file=path,
                        line=i + 1, tag=tag, text=full, owner=owner,
                        refs=refs_in(full, repo, aliases),
                        context=ctx,
                        fingerprint=stable_id(_normalize(full), owner)))
    return out


# A TODO that waits for something ("once X lands", "when torch exposes X").
_WAITING_RE = re.compile(r"\b(once|when|until|after|requires?|waiting|blocked|includes?|"
                         r"lands?|exposes?|supports?|available)\b", re.I)
# Named APIs: `backticked` identifiers, _private_names, CamelCase names.
_API_RE = re.compile(r"`([A-Za-z_][\w.]*)`|\b(_[a-z]\w+|[A-Z][a-z]+(?:[A-Z][a-z0-9]*)+)\b")


def api_names(text: str) -> list[str]:
    """Identifiers a waiting TODO names (last dotted part), or [] when it waits for
    nothing in particular."""
    if not _WAITING_RE.search(text):
        return []
    out = []
    for m in _API_RE.finditer(text):
        name = (m.group(1) or m.group(2)).split(".")[-1].strip("()")
        if len(name) > 3 and name not in out:
            out.append(name)
    return out


def _pr_state(ref: str, pulls: dict[str, PullState] | None) -> str:
    if "#" not in ref:
        return ""
    if pulls is None:
        return "unknown (skipped — offline)"
    pr = pulls.get(ref)
    if pr is None:
        return "unknown"
    if pr.merged_at:
        return f"merged {pr.merged_at[:10]}"
    return pr.state


def collect(inp: Inputs) -> tuple[list[Todo], list[dict]]:
    """All TODOs with status against the priors, and the prior ones resolved since."""
    sub = inp.target.subproject + "/"
    tags = DEFAULT_TAGS | {t.lower() for t in inp.target.raw.get("todo_tags", [])}
    todos: list[Todo] = []
    for path in sorted(inp.head.files):
        if path.startswith(sub) and path.endswith(".py"):
            todos += scan(path, inp.head.files[path], inp.target.repo,
                          inp.target.raw.get("todo_ref_aliases", {}), tags)
    prior: dict[str, dict] = {}
    for payload in inp.priors:  # oldest first: keep the first-reported date of the oldest
        for t in payload.todos:
            entry = prior.setdefault(t["id"], {**t, "first_reported": t.get("first_reported")
                                               or payload.date})
            entry["fingerprint"] = t.get("fingerprint", "")
    newest = inp.priors[-1] if inp.priors else None
    out: list[Todo] = []
    # Sanity: two identical TODO lines in one file share an id; number the repeats so
    # each keeps its own identity.
    seen: dict[str, int] = {}
    for t in todos:
        n = seen.get(t.id, 0)
        seen[t.id] = n + 1
        tid = t.id if n == 0 else stable_id(t.id, str(n))
        p = prior.get(tid)
        status = "new" if p is None else ("carried" if p.get("fingerprint") == t.fingerprint
                                          else "changed")
        states = tuple((r, _pr_state(r, inp.live.pulls)) for r in t.refs if "#" in r)
        hits: tuple[tuple[str, str], ...] = ()
        if inp.torch is not None:
            hits = tuple((n, inp.torch.defs[n][0]) for n in api_names(t.text)
                         if n in inp.torch.defs)
        out.append(Todo(**{**t.__dict__, "id": tid, "status": status,
                           "first_reported": p["first_reported"] if p else inp.date,
                           "pr_states": states, "api_hits": hits}))
    current = {t.id for t in out}
    resolved = [dict(t) for t in (newest.todos if newest else ()) if t["id"] not in current]
    return out, resolved
