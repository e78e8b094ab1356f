"""Shared helpers of the post-mortem lint tests that lint one made-up sentence."""

from __future__ import annotations

from agentops.postmortem import datafiles, lint

LEXICON_RULES = [r for r in datafiles.lint_rules() if r.kind == "lexicon"]
SECTIONS = datafiles.sections()


def hedges(text: str, section: str = "Root cause") -> list[str]:
    """The hedging messages the lexicon rules give ``text`` as the body of ``section``."""
    doc = f"# Post-mortem\n\n## {section}\n\n{text}\n"
    return [f.message for f in lint.lint(doc, LEXICON_RULES, sections=SECTIONS)
            if f.rule == "hedging"]
