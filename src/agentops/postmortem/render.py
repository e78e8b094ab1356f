"""Build the section model from facts (P-4) and render it as Markdown or as a JIRA
ADF document; validate an ADF document structurally.

Pure: facts in, text/JSON out. Every sentence comes from one fact; a fact the owner
has not given becomes a ``Question``, never plausible prose (P-5). ADF is built from
the same section model as Markdown, never by converting Markdown text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from agentops import markdown_escape as esc
from agentops.postmortem.model import (
    NONE_SENTENCE,
    SECTIONS,
    Block,
    BulletList,
    CodeBlock,
    Draft,
    Facts,
    Inline,
    Paragraph,
    Question,
    Section,
    Span,
    gathered_verification,
)

SLIPPED = {
    "ci-gap": "CI gap.",
    "latent-code": "Latent code.",
    "workload-coverage": "Workload coverage.",
    "incomplete-prior-fix": "Incomplete earlier fix.",
    "review-miss": "Review miss.",
    "no-good-reason": "No good reason — we should have caught it.",
}
# Sanity: a gathered code block longer than this is a log dump, not a symptom.
MAX_BLOCK_LINES = 40
MAX_GATHERED_BLOCKS = 2
MAX_COMMITS = 10

_GH_REF = re.compile(r"(?<![\w/.-])([A-Za-z0-9][\w.-]*/[\w.-]+)#(\d+)\b")
_URL = re.compile(r"https?://[^\s<>()\"']+[^\s<>()\"'.,;:]")
_SHA = re.compile(r"(?<![\w/#-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![\w-])")
_BACKTICK = re.compile(r"`([^`\n]+)`")
_PATH = re.compile(r"(?<![\w/.#-])(?:[\w.-]+/)+[\w-]+\.[A-Za-z]{1,5}(?![\w/])")


# --- inline classification -------------------------------------------------------

def inline(text: str, *, identifiers: Sequence[str] = (), server: str = "https://github.com"
           ) -> Inline:
    """Split prose into spans: `backticked` text, known identifiers and commit SHAs
    become inline code; ``owner/name#N`` and URLs become links."""
    out: list[Span] = []
    pos = 0
    for m in _BACKTICK.finditer(text):
        out += _plain(text[pos:m.start()], identifiers, server)
        out.append(Span(m.group(1), code=True))
        pos = m.end()
    out += _plain(text[pos:], identifiers, server)
    return _coalesce(out)


def _plain(text: str, identifiers: Sequence[str], server: str) -> list[Span]:
    if not text:
        return []
    alternatives = [_URL.pattern, _GH_REF.pattern, _PATH.pattern, _SHA.pattern]
    idents = sorted({i for i in identifiers if i}, key=len, reverse=True)
    if idents:
        # Longest first, so `handle->shared->deviceStream` wins over `deviceStream`.
        alternatives.insert(0, "(?<![\\w])(?:" + "|".join(map(re.escape, idents)) + ")(?![\\w])")
    pattern = re.compile("|".join(f"(?:{a})" for a in alternatives))
    out: list[Span] = []
    pos = 0
    for m in pattern.finditer(text):
        if m.start() > pos:
            out.append(Span(text[pos:m.start()]))
        token = m.group(0)
        if _URL.fullmatch(token):
            out.append(Span(token, href=token))
        elif (ref := _GH_REF.fullmatch(token)) and token not in idents:
            out.append(Span(token, href=f"{server}/{ref.group(1)}/issues/{ref.group(2)}"))
        else:
            out.append(Span(token, code=True))
        pos = m.end()
    if pos < len(text):
        out.append(Span(text[pos:]))
    return out


def _coalesce(spans: Iterable[Span]) -> Inline:
    out: list[Span] = []
    for s in spans:
        if out and out[-1] == Span(out[-1].text) and s == Span(s.text):
            out[-1] = Span(out[-1].text + s.text)
        else:
            out.append(s)
    return tuple(out)


# A reproduction step that is a shell command: optional VAR=value assignments, then a
# program people run from a shell (not an English verb such as "make" or "run"), or a
# path to a script. An English lead-in ("Run:", "Then run") may come before it.
_PROGRAMS = (
    "python", "python3", "torchrun", "pytest", "bash", "sh", "zsh", "pip", "pip3", "uv",
    "uvx", "git", "cargo", "cmake", "ninja", "ctest", "bazel", "buck2", "docker",
    "podman", "conda", "mamba", "srun", "sbatch", "salloc", "mpirun", "mpiexec",
    "nvidia-smi", "nsys", "ncu", "gdb", "lldb", "valgrind", "node", "npm", "npx", "curl",
    "wget", "env", "export", "cd", "sudo", "kubectl", "gh", "accelerate", "deepspeed")
_COMMAND = re.compile(
    r"^(?P<lead>(?i:(?:then |and )?(?:run|execute|launch|invoke|start)(?: it)?)(?:\s*:)?\s+)?"
    r"(?P<cmd>(?:[A-Z_][A-Z0-9_]*=\S*\s+)*"
    r"(?:(?:" + "|".join(map(re.escape, _PROGRAMS)) + r")(?=\s|$)|\.{0,2}/[\w./-]+|"
    r"[\w.-]+/[\w./-]+\.(?:sh|py)(?=\s|$))[^\n]*)$")
# Words no command line has as an argument of its own, but every sentence does.
_PROSE_WORDS = frozenset(
    "the a an is was are were be been to of with for and or but that this it its when "
    "then found fails failed works worked hangs crashes shows".split())


def command_step(text: str) -> tuple[str, str] | None:
    """(lead-in, command) when a reproduction step is a shell command, else None.
    Program names match as typed (lowercase), so "Python 3.12 is required" is prose."""
    m = _COMMAND.match(text.strip())
    if not m:
        return None
    lead, cmd = m.group("lead") or "", m.group("cmd").strip()
    words = cmd.split()
    if len(words) == 1 and words[0] in ("cd", "env", "export", "sudo"):
        return None
    bare = re.sub(r"'[^']*'|\"[^\"]*\"", " ", cmd).split()  # quoted arguments aside
    if any(w.lower() in _PROSE_WORDS for w in bare[1:]):
        return None  # "git bisect found the commit": a sentence about a program
    # The full stop of the sentence the command was written in, not part of it
    # ("pip install torch==2.5.0." ends at 2.5.0; "git add ." keeps its dot).
    if cmd.endswith(".") and not cmd.endswith(("..", " .")):
        cmd = cmd[:-1]
    return lead, cmd


def sentence(text: str) -> str:
    """A fact as a sentence: trimmed, ending with a full stop unless it has one."""
    text = " ".join(text.split())
    return text if text[-1:] in ".!?…:" else text + "."


# --- the section model -----------------------------------------------------------

def _code_list(label: str, names: Sequence[str]) -> Paragraph:
    spans: list[Span] = [Span(label)]
    for i, name in enumerate(names):
        spans += [Span(", ")] if i else []
        spans.append(Span(name, code=True))
    spans.append(Span("."))
    return Paragraph(tuple(spans))


class _Builder:
    def __init__(self, facts: Facts, server: str) -> None:
        self.f = facts
        self.server = server
        self.ids = facts.identifiers()

    def t(self, text: str) -> Inline:
        return inline(text, identifiers=self.ids, server=self.server)

    def p(self, *parts: str | Inline) -> Paragraph:
        spans: list[Span] = []
        for i, part in enumerate(parts):
            if i and spans and not spans[-1].text.endswith(" "):
                spans.append(Span(" "))
            spans += self.t(part) if isinstance(part, str) else part
        return Paragraph(_coalesce(spans))

    def q(self, text: str) -> Question:
        return Question(owner=self.f.owner, text=text)

    def step(self, text: str) -> Inline:
        """A reproduction step: a shell command is code (no escaping, no full stop
        added); anything else is a sentence."""
        command = command_step(text)
        if command is None:
            return self.t(sentence(text))
        lead, cmd = command
        return ((Span(lead[:1].upper() + lead[1:]),) if lead else ()) + (Span(cmd, code=True),)

    def refs(self) -> Inline:
        refs = [str(r) for r in self.f.get("fix", "refs") or []]
        return self.t(", ".join(refs)) if refs else ()

    # One method per section; each returns its blocks, or () when it has no facts.
    def summary(self) -> tuple[Block, ...]:
        impact = self.f.get("summary", "impact")
        fix = self.f.get("summary", "fix")
        blocks: list[Block] = []
        parts: list[str | Inline] = []
        if impact:
            parts.append(sentence(impact))
        if fix:
            parts.append(sentence(fix))
        tail: list[Span] = [Span(f"{self.f.ticket}, PR ")]
        tail += self.refs() or (Span("(none given)"),)
        tail.append(Span(f", owner {self.f.owner}."))
        parts.append(tuple(tail))
        blocks.append(self.p(*parts))
        if not impact:
            blocks.append(self.q("What broke, from the user's or the workload's side "
                                 "(summary.impact)?"))
        if not fix:
            blocks.append(self.q("What is the fix, in one sentence (summary.fix)?"))
        return tuple(blocks)

    def symptoms(self) -> tuple[Block, ...]:
        blocks: list[Block] = []
        given = self.f.get("symptoms") or []
        g = self.f.gathered
        if given:
            blocks.append(BulletList(tuple(self.t(sentence(s)) for s in given)))
        elif g.error_lines or g.code_blocks:
            blocks.append(self.p(f"From {g.issue_ref}:"))
            if g.error_lines:
                blocks.append(BulletList(tuple((Span(line, code=True),)
                                               for line in g.error_lines)))
            for block in g.code_blocks[:MAX_GATHERED_BLOCKS]:
                lines = block.splitlines()[:MAX_BLOCK_LINES]
                blocks.append(CodeBlock("\n".join(lines)))
        steps = self.f.get("repro", "steps") or []
        if steps:
            reliability = self.f.get("repro", "reliability") or "reliability not stated"
            blocks.append(self.p(f"Reproduction ({reliability}):"))
            blocks.append(BulletList(tuple(self.step(s) for s in steps)))
        return tuple(blocks)

    def root_cause(self) -> tuple[Block, ...]:
        mechanism = self.f.get("root_cause", "mechanism")
        # Sanity: the gate refuses facts without a mechanism; build() alone still asks.
        blocks: list[Block] = [self.p(sentence(mechanism)) if mechanism else
                               self.q("What is the mechanism of the bug (root_cause.mechanism)?")]
        introduced = self.f.get("root_cause", "introduced_by")
        if introduced:
            blocks.append(self.p((Span("Introduced by "),), sentence(str(introduced))))
        else:
            blocks.append(self.q("Which commit or change introduced the bug "
                                 "(root_cause.introduced_by)?"))
        ids = self.f.get("root_cause", "identifiers") or []
        if ids:
            blocks.append(_code_list("Code identifiers: ", [str(i) for i in ids]))
        return tuple(blocks)

    def why_symptom(self) -> tuple[Block, ...]:
        text = self.f.get("why_symptom")
        return (self.p(sentence(text)),) if text else ()

    def fix(self) -> tuple[Block, ...]:
        blocks: list[Block] = []
        description = self.f.get("fix", "description")
        if description:
            blocks.append(self.p(sentence(description)))
        else:
            blocks.append(self.q("What changed, and why does it fix the cause rather than "
                                 "mask the symptom (fix.description)?"))
        refs = [str(r) for r in self.f.get("fix", "refs") or []]
        if refs and not (description and all(r in description for r in refs)):
            # Named here unless the owner's own description already names every ref.
            blocks.append(self.p((Span("Fix: "),), (*self.refs(), Span("."))))
        elif not refs:
            blocks.append(self.q("Which PR, commit or branch is the fix (fix.refs)?"))
        g = self.f.gathered
        if g.pr_ref:
            # The PR is named once here (Fix:) and once in the summary; GitHub's facts
            # about it follow without naming it a third time.
            state = ("merged" if g.pr_merged else "not merged") + (
                f" as {g.merge_commit[:12]}" if g.merge_commit else "")
            named = any(g.pr_ref in str(r) for r in self.f.get("fix", "refs") or [])
            facts = [f"the PR is {state}" if named else f"{g.pr_ref} ({state})"]
            if g.pr_title:
                facts.append(f"title: {g.pr_title}")
            blocks.append(self.p("From GitHub: " + "; ".join(facts) + "."))
            if g.files:
                blocks.append(_code_list("Changed files: ", g.files))
            if g.diff_identifiers:
                blocks.append(_code_list("Identifiers in the diff: ", g.diff_identifiers))
            if g.commits:
                blocks.append(self.p("Commits:"))
                blocks.append(BulletList(tuple(
                    (Span(c.split(" ", 1)[0], code=True),
                     *((Span(" " + c.split(" ", 1)[1]),) if " " in c else ()))
                    for c in g.commits[:MAX_COMMITS])))
        prior = self.f.get("fix", "prior_attempts") or []
        if prior:
            blocks.append(self.p("Earlier attempts that masked the symptom:"))
            blocks.append(BulletList(tuple(
                self.t(f"{a['ref']}: {sentence(a['why_wrong'])}") for a in prior)))
        return tuple(blocks)

    def how_found(self) -> tuple[Block, ...]:
        h = self.f.get("how_found") or {}
        items: list[Inline] = []
        if h.get("repro"):
            items.append(self.t(f"Reliable repro: {sentence(h['repro'])}"))
        if h.get("tools"):
            items.append(self.t("Tools: " + "; ".join(h["tools"]) + "."))
        for hyp in h.get("hypotheses") or []:
            items.append(self.t(f"Hypothesis ruled out: {sentence(hyp['hypothesis'])} "
                                f"{sentence(hyp['ruled_out_by'])}"))
        if h.get("confirming_experiment"):
            items.append(self.t(f"Confirming experiment: {sentence(h['confirming_experiment'])}"))
        return (BulletList(tuple(items)),) if items else ()

    def why_slipped(self) -> tuple[Block, ...]:
        w = self.f.get("why_slipped")
        if not w:
            return ()
        label = (Span(SLIPPED[w["category"]], strong=True),)
        if w.get("explanation"):
            return (self.p(label, sentence(w["explanation"])),)
        return (Paragraph(label), self.q("What made it slip, in one or two sentences "
                                         "(why_slipped.explanation)?"))

    def verification(self) -> tuple[Block, ...]:
        blocks: list[Block] = []
        checks = self.f.get("verification") or []
        g = self.f.gathered
        if checks:
            items = []
            for c in checks:
                text = c["check"].rstrip(".")
                if c.get("result"):
                    text += f": {c['result'].rstrip('.')}"
                if c.get("scope"):
                    text += f" (scope: {c['scope'].rstrip('.')})"
                items.append(self.t(sentence(text)))
            blocks.append(BulletList(tuple(items)))
        elif g.check_runs:
            passed, _ = gathered_verification(g)
            blocks.append(self.p(f"From GitHub: check runs on the PR head {g.head_sha}."))
            blocks.append(BulletList(tuple(
                ((Span(c.name, code=True), Span(f": {c.conclusion or c.status}")))
                for c in g.check_runs)))
            if passed:
                blocks.append(self.q("Which tests or workloads did these check runs cover, "
                                     "and does the original repro now pass (verification)?"))
        not_retested = self.f.get("not_retested") or []
        if not_retested:
            blocks.append(self.p("Not re-tested: " + "; ".join(
                s.rstrip(".") for s in not_retested) + "."))
        else:
            blocks.append(self.q("Which configurations or workloads were NOT re-tested "
                                 "(not_retested)? Say so plainly, or write that none were "
                                 "left out."))
        return tuple(blocks)

    def action_items(self) -> tuple[Block, ...]:
        items = self.f.get("action_items")
        if items is None:
            return ()
        if items == "none":
            return (Paragraph((Span(NONE_SENTENCE),)),)
        return (BulletList(tuple(
            self.t(f"{sentence(a['what'])} (Owner: {a['owner']}; tracking: {a['tracking']}.)")
            for a in items)),)


QUESTIONS_FOR_OPTIONAL = {
    "symptoms": "What exactly was seen (messages, log lines, numbers) (symptoms)?",
    "why_symptom": "How does the root cause lead to the symptom that was seen (why_symptom)?",
    "how_found": "How was it found: the repro that made it reliable, tools, hypotheses "
                 "ruled out, the confirming experiment (how_found)?",
    "why_slipped": "Why did it slip: ci-gap, latent-code, workload-coverage, "
                   "incomplete-prior-fix, review-miss or no-good-reason (why_slipped)?",
    "action_items": "Which follow-ups remain (what + owner + tracking), or is the fix "
                    "sufficient (action_items: none)?",
}


def build(facts: Facts, *, date: str, destination: str = "jira", status: str = "draft",
          revision: int = 1, server: str = "https://github.com") -> Draft:
    """The draft of a gated facts file (call ``validate.check`` first)."""
    b = _Builder(facts, server)
    sections: list[Section] = []
    open_questions: list[Question] = []
    for key, title, required in SECTIONS:
        blocks = getattr(b, key)()
        if blocks:
            sections.append(Section(key, title, required, blocks))
        else:
            open_questions.append(b.q(QUESTIONS_FOR_OPTIONAL[key]))
    title = facts.get("title") or f"{facts.ticket}"
    marker = f"{facts.ticket} r{revision} facts:{facts.facts_sha256[:12] or 'none'}"
    meta: list[tuple[str, Inline]] = [
        ("Ticket", (Span(facts.ticket),)),
        ("Owner", (Span(facts.owner),)),
        ("Date", (Span(date),)),
        ("Status", (Span(f"{status} (revision {revision})"),)),
        ("Draft id", (Span(marker, code=True),)),
    ]
    gathered = sorted({v for k, v in facts.sources.items() if v.startswith("GitHub")})
    if gathered:
        meta.append(("From GitHub", b.t("; ".join(f"{k}: {v}" for k, v in sorted(
            facts.sources.items()) if v.startswith("GitHub")) + ". Everything else: "
            "the facts file.")))
    return Draft(ticket=facts.ticket, title=str(title), owner=facts.owner, date=date,
                 status=status, revision=revision, destination=destination,
                 metadata=tuple(meta), sections=tuple(sections),
                 open_questions=tuple(open_questions), marker=marker)


# --- Markdown --------------------------------------------------------------------

OPEN_QUESTIONS = "Open questions"

# A span is a sentence or a name; the draft as a whole is bounded by the facts file's
# own size limits, so this only keeps one runaway field from dominating it.
MAX_SPAN_CHARS = 20_000

def _md_text(text: str) -> str:
    # Facts-file and GitHub text alike: the one escaper of every renderer.
    return esc.text(text, limit=MAX_SPAN_CHARS)


def _md_code(text: str) -> str:
    return esc.code(text, limit=MAX_SPAN_CHARS)


def md_inline(spans: Inline) -> str:
    out = []
    for s in spans:
        if s.code:
            out.append(_md_code(s.text))
        elif s.href:
            out.append(f"[{_md_text(s.text)}](<{s.href}>)")
        elif s.strong:
            out.append(f"**{_md_text(s.text)}**")
        else:
            out.append(_md_text(s.text))
    return "".join(out)


def _levels(destination: str) -> tuple[int, int]:
    # docs/wiki pages own their title; a JIRA comment or a PR body sits under one.
    return (1, 2) if destination in ("docs", "wiki") else (2, 3)


def _md_block(block: Block) -> str:
    if isinstance(block, Paragraph):
        return md_inline(block.spans)
    if isinstance(block, BulletList):
        return "\n".join(f"- {md_inline(item)}" for item in block.items)
    if isinstance(block, CodeBlock):
        longest = max((len(r) for r in re.findall(r"`{3,}", block.text)), default=0)
        fence = "`" * max(3, longest + 1)
        return f"{fence}{block.language or ''}\n{block.text}\n{fence}"
    return f"**Question for {_md_text(block.owner)}:** {_md_text(block.text)}"


def to_markdown(draft: Draft) -> str:
    """The draft as Markdown (GitHub-flavoured; the same content as the ADF)."""
    top, sub = _levels(draft.destination)
    out = [f"{'#' * top} Post-mortem: {_md_text(draft.title)}", ""]
    out += [f"- **{k}:** {md_inline(v)}" for k, v in draft.metadata]
    for section in draft.sections:
        out += ["", f"{'#' * sub} {section.title}"]
        for block in section.blocks:
            out += ["", _md_block(block)]
    # The owner's questions for sections without facts come last: the reader meets
    # the Summary first.
    if draft.open_questions:
        out += ["", f"{'#' * sub} {OPEN_QUESTIONS}", ""]
        out += [f"- **Question for {_md_text(q.owner)}:** {_md_text(q.text)}"
                for q in draft.open_questions]
    return "\n".join(out) + "\n"


# --- ADF -------------------------------------------------------------------------

def _adf_text(span: Span) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "text", "text": span.text}
    marks: list[dict[str, Any]] = []
    if span.code:
        marks.append({"type": "code"})
    if span.href:
        marks.append({"type": "link", "attrs": {"href": span.href}})
    if span.strong:
        marks.append({"type": "strong"})
    if marks:
        node["marks"] = marks
    return node


def _adf_para(spans: Inline) -> dict[str, Any]:
    return {"type": "paragraph", "content": [_adf_text(s) for s in spans]}


def _adf_block(block: Block) -> dict[str, Any]:
    if isinstance(block, Paragraph):
        return _adf_para(block.spans)
    if isinstance(block, BulletList):
        return {"type": "bulletList", "content": [
            {"type": "listItem", "content": [_adf_para(item)]} for item in block.items]}
    if isinstance(block, CodeBlock):
        node: dict[str, Any] = {"type": "codeBlock", "content": [{"type": "text",
                                                                  "text": block.text}]}
        if block.language:
            node["attrs"] = {"language": block.language}
        return node
    return _adf_para((Span(f"Question for {block.owner}:", strong=True),
                      Span(" " + block.text)))


def to_adf(draft: Draft) -> dict[str, Any]:
    """The draft as an ADF document: the JIRA comment body (``{"body": <this>}``)."""
    top, sub = _levels(draft.destination)
    content: list[dict[str, Any]] = [
        {"type": "heading", "attrs": {"level": top},
         "content": [{"type": "text", "text": f"Post-mortem: {draft.title}"}]},
    ]
    meta = [(Span(f"{k}:", strong=True), Span(" "), *v) for k, v in draft.metadata]
    content.append(_adf_block(BulletList(tuple(meta))))
    for section in draft.sections:
        content.append({"type": "heading", "attrs": {"level": sub},
                        "content": [{"type": "text", "text": section.title}]})
        content += [_adf_block(b) for b in section.blocks]
    if draft.open_questions:
        content.append({"type": "heading", "attrs": {"level": sub},
                        "content": [{"type": "text", "text": OPEN_QUESTIONS}]})
        content.append(_adf_block(BulletList(tuple(
            (Span(f"Question for {q.owner}:", strong=True), Span(" " + q.text))
            for q in draft.open_questions))))
    return {"type": "doc", "version": 1, "content": content}


def adf_bytes(doc: dict[str, Any]) -> bytes:
    """The artifact's exact bytes (what is hashed, approved and posted): one top-level
    node per line, each compact, so the approver can read it in the job summary while
    the payload stays far from JIRA's size limit (indent=2 would double it)."""
    head = {k: v for k, v in doc.items() if k != "content"}
    nodes = ",\n".join(json.dumps(n, ensure_ascii=False, separators=(",", ":"))
                        for n in doc.get("content", []))
    opening = json.dumps(head, ensure_ascii=False)[:-1]
    return f'{opening}, "content": [\n{nodes}\n]}}\n'.encode()


# Node and mark types of the ADF schema this renderer may emit, with allowed children.
ADF_CHILDREN: dict[str, tuple[str, ...]] = {
    "doc": ("heading", "paragraph", "bulletList", "codeBlock"),
    "heading": ("text",),
    "paragraph": ("text",),
    "bulletList": ("listItem",),
    "listItem": ("paragraph", "bulletList", "codeBlock"),
    "codeBlock": ("text",),
}
ADF_MARKS = ("code", "link", "strong", "em")


def validate_adf(doc: Any) -> list[str]:
    """Structural check of an ADF document; returns the problems (empty when valid)."""
    errors: list[str] = []
    if not isinstance(doc, dict) or doc.get("type") != "doc" or doc.get("version") != 1:
        return ["(root): expected {\"type\": \"doc\", \"version\": 1, ...}"]
    _check_node(doc, "content", errors, parent=None)
    return errors


def _check_node(node: Any, where: str, errors: list[str], *, parent: str | None) -> None:
    if not isinstance(node, dict) or not isinstance(node.get("type"), str):
        errors.append(f"{where}: not a node")
        return
    kind = node["type"]
    if kind == "text":
        _check_text(node, where, errors, parent=parent)
        return
    if kind not in ADF_CHILDREN:
        errors.append(f"{where}: node type {kind!r} is not allowed")
        return
    if kind == "heading" and node.get("attrs", {}).get("level") not in range(1, 7):
        errors.append(f"{where}: heading level must be 1..6")
    content = node.get("content")
    if not isinstance(content, list) or (kind != "paragraph" and not content):
        errors.append(f"{where}: {kind} needs a non-empty content list")
        return
    if kind == "listItem" and content[0].get("type") != "paragraph":
        errors.append(f"{where}: a listItem starts with a paragraph")
    for i, child in enumerate(content):
        ctype = child.get("type") if isinstance(child, dict) else None
        if ctype not in ADF_CHILDREN[kind]:
            errors.append(f"{where}[{i}]: {ctype!r} may not appear inside {kind}")
            continue
        _check_node(child, f"{where}[{i}].content" if ctype != "text" else f"{where}[{i}]",
                    errors, parent=kind)


def _check_text(node: dict[str, Any], where: str, errors: list[str], *,
                parent: str | None) -> None:
    if not isinstance(node.get("text"), str) or not node["text"]:
        errors.append(f"{where}: text nodes need non-empty text")
    marks = node.get("marks", [])
    types = [m.get("type") for m in marks]
    if parent == "codeBlock" and marks:
        errors.append(f"{where}: no marks inside a codeBlock")
    for m in marks:
        if m.get("type") not in ADF_MARKS:
            errors.append(f"{where}: mark {m.get('type')!r} is not allowed")
        if m.get("type") == "link" and not str(m.get("attrs", {}).get("href", "")):
            errors.append(f"{where}: a link mark needs attrs.href")
    if "code" in types and len(types) > 1:
        errors.append(f"{where}: the code mark may not be combined with {types}")
    if len(set(types)) != len(types):
        errors.append(f"{where}: a mark repeats")
