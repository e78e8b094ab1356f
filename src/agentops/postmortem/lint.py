"""Lint a post-mortem draft (P-5): required sections, hedging, blame, advocacy outside
action items, code identifiers lost, verification claiming more than the facts.

Pure: text (+ facts) and the rules data in, findings out. The rules and their
examples live in ``lint_rules.yaml``; this module only knows how to apply them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentops.postmortem.model import REQUIRED, TITLES

_HEADING = re.compile(r"^(#{1,6})\s+(?:\d+\.\s*)?(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_BY_TITLE = {title.lower(): key for key, title in TITLES.items()}


@dataclass(frozen=True)
class Rule:
    id: str
    kind: str
    message: str
    scope: str = "all"
    check: str = ""
    patterns: tuple[re.Pattern[str], ...] = ()
    unless: tuple[re.Pattern[str], ...] = ()
    match: tuple[Any, ...] = ()
    no_match: tuple[Any, ...] = ()

    def applies_to(self, section: str | None) -> bool:
        if self.scope == "all":
            return True
        where, _, name = self.scope.partition(":")
        return section != name if where == "outside" else section == name


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.rule}: {self.message}"


@dataclass(frozen=True)
class Line:
    number: int
    text: str  # prose with inline code blanked out; "" inside fenced code
    raw: str
    section: str | None  # section key, None before the first section heading


def compile_rules(content: Mapping[str, Any]) -> tuple[Rule, ...]:
    """Rules from the validated ``lint_rules.yaml`` content."""
    rules = []
    for r in content["rules"]:
        rules.append(Rule(
            id=r["id"], kind=r["kind"], message=r["message"], scope=r.get("scope", "all"),
            check=r.get("check", ""),
            patterns=tuple(re.compile(p, re.IGNORECASE) for p in r.get("patterns", [])),
            unless=tuple(re.compile(p, re.IGNORECASE) for p in r.get("unless", [])),
            match=tuple(r.get("match", [])), no_match=tuple(r.get("no_match", []))))
    return tuple(rules)


def split(text: str) -> list[Line]:
    """Lines with their section; fenced code and inline code are not prose."""
    out: list[Line] = []
    section: str | None = None
    fence: str | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        m = _FENCE.match(raw)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append(Line(number, "", raw, section))
            continue
        if m:
            fence = m.group(1)
            out.append(Line(number, "", raw, section))
            continue
        h = _HEADING.match(raw)
        if h:
            key = _BY_TITLE.get(h.group(2).strip().rstrip(":").lower())
            if key or section:
                section = key or section
        prose = _INLINE_CODE.sub(lambda mm: " " * len(mm.group(0)), raw)
        out.append(Line(number, prose, raw, section))
    return out


def lint(text: str, rules: Sequence[Rule], *, facts: Mapping[str, Any] | None = None,
         file: str = "draft.md") -> list[Finding]:
    """Every finding of every rule, by line."""
    lines = split(text)
    findings: list[Finding] = []
    for rule in rules:
        findings += apply_rule(rule, lines, facts=facts, file=file)
    return sorted(findings, key=lambda f: (f.line, f.rule))


def apply_rule(rule: Rule, lines: Sequence[Line], *, facts: Mapping[str, Any] | None,
               file: str) -> list[Finding]:
    """One rule over the split draft."""
    if rule.kind == "lexicon":
        return _lexicon(rule, lines, file)
    check = _CHECKS.get(rule.check)
    if check is None:
        raise ValueError(f"Sanity: unknown lint check {rule.check!r}")
    return check(rule, lines, facts or {}, file)


def _lexicon(rule: Rule, lines: Sequence[Line], file: str) -> list[Finding]:
    out = []
    for line in lines:
        if not line.text or not rule.applies_to(line.section):
            continue
        if any(u.search(line.text) for u in rule.unless):
            continue
        for pattern in rule.patterns:
            m = pattern.search(line.text)
            if m:
                out.append(Finding(file, line.number, rule.id,
                                   f"{rule.message} ({m.group(0).strip()!r})"))
                break
    return out


def _required_sections(rule: Rule, lines: Sequence[Line], _facts: Mapping[str, Any],
                       file: str) -> list[Finding]:
    present = {ln.section: ln.number for ln in lines if _HEADING.match(ln.raw) and ln.text}
    out = []
    last = len(lines) or 1
    for key in REQUIRED:
        if key not in present:
            # Point at the heading that should have come after it, else the end.
            later = [n for k, n in present.items() if k and _order(k) > _order(key)]
            out.append(Finding(file, min(later) if later else last, rule.id,
                               f"{rule.message}: {TITLES[key]}"))
    return out


def _order(key: str) -> int:
    return list(TITLES).index(key)


def _identifiers(rule: Rule, lines: Sequence[Line], facts: Mapping[str, Any],
                 file: str) -> list[Finding]:
    body = "\n".join(ln.raw for ln in lines)
    body_plain = body.replace("\\", "")  # Markdown escapes do not hide an identifier
    wanted = list((facts.get("root_cause") or {}).get("identifiers") or [])
    out = []
    for ident in wanted:
        if ident not in body and ident not in body_plain:
            out.append(Finding(file, _section_line(lines, "root_cause"), rule.id,
                               f"{rule.message}: {ident}"))
    return out


def _section_line(lines: Sequence[Line], key: str) -> int:
    for ln in lines:
        if ln.section == key and _HEADING.match(ln.raw):
            return ln.number
    return 1


def _verification_scope(rule: Rule, lines: Sequence[Line], facts: Mapping[str, Any],
                        file: str) -> list[Finding]:
    checks = facts.get("verification") or []
    stated = " ".join(" ".join(str(v) for v in c.values()) for c in checks).lower()
    out = []
    body = [ln for ln in lines if ln.section == "verification"]
    for ln in body:
        for pattern in rule.patterns:
            m = pattern.search(ln.text)
            # Sanity: a claim is fine only when the facts make the same claim.
            if m and m.group(0).lower() not in stated:
                out.append(Finding(file, ln.number, rule.id,
                                   f"{rule.message}: {m.group(0)!r} is not in the facts' "
                                   "verification"))
                break
    # The untested scope must be said as such, on a "Not re-tested" line.
    said = " ".join(ln.raw for ln in body
                    if re.search(r"not re-?tested", ln.raw, re.IGNORECASE)).lower()
    for item in facts.get("not_retested") or []:
        if str(item).rstrip(".").lower() not in said:
            where = body[0].number if body else 1
            out.append(Finding(file, where, rule.id,
                               f"{rule.message}: the draft drops what was NOT re-tested: "
                               f"{item!r}"))
    return out


_CHECKS = {
    "required_sections": _required_sections,
    "identifiers": _identifiers,
    "verification_scope": _verification_scope,
}
