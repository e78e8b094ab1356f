"""#11, from drafting real post-mortems (P-4): a shell command in a reproduction step
is code, not escaped prose; the owner's questions come after the Summary, never
before it; a PR reference is named once by the renderer (plus wherever the owner's own
facts name it), not three or four times."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from agentops.postmortem import datafiles, lint, render
from agentops.postmortem.model import Facts, merge

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples" / "postmortem").glob("*.facts.yml"))


def _facts(content: dict[str, Any]) -> Facts:
    return merge(content, None, facts_path="x.facts.yml", facts_sha256="0" * 64)


@pytest.mark.parametrize(("step", "lead", "command"), [
    ("torchrun --nproc_per_node=2 train.py --job.config_file a.toml", "",
     "torchrun --nproc_per_node=2 train.py --job.config_file a.toml"),
    ("CUDA_VISIBLE_DEVICES=0,1 pytest test/x.py -k 'a[b] and not c_d'", "",
     "CUDA_VISIBLE_DEVICES=0,1 pytest test/x.py -k 'a[b] and not c_d'"),
    ('python -c "import torch; print(torch.__version__)"', "",
     'python -c "import torch; print(torch.__version__)"'),
    ("Run: bash scripts/repro.sh --steps 10", "Run: ", "bash scripts/repro.sh --steps 10"),
    ("Then run ./build/bin/repro --n 2", "Then run ", "./build/bin/repro --n 2"),
    ("pip install torch==2.5.0.", "", "pip install torch==2.5.0"),
    ("git add .", "", "git add ."),
])
def test_shell_command_steps_are_recognised(step: str, lead: str, command: str) -> None:
    assert render.command_step(step) == (lead, command)


@pytest.mark.parametrize("step", [
    "Run the job on two nodes.",
    "Run one pinned evaluation step of LLM-7B with dumbModel on a 2-GPU subset.",
    "make sure the flag is set before launch",
    "Python 3.12 is required.",
    "git bisect found the commit in a day.",
    "The step hangs in the ring wait loop within 30 seconds.",
])
def test_prose_steps_stay_prose(step: str) -> None:
    assert render.command_step(step) is None


def test_command_step_renders_as_code_in_markdown_and_adf(tada: dict[str, Any]) -> None:
    cmd = "CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node=2 -m repro --cfg=a[b]"
    tada["repro"]["steps"] = [f"Run {cmd}", "The step hangs within 30 seconds."]
    draft = render.build(_facts(tada), date="2026-03-30")
    md = render.to_markdown(draft)
    assert f"- Run `{cmd}`\n" in md
    assert "\\[" not in md.split("### Root cause")[0]  # nothing escaped in the steps
    adf = render.to_adf(draft)
    assert render.validate_adf(adf) == []
    texts = [n for n in _nodes(adf) if n.get("text") == cmd]
    assert texts and texts[0].get("marks") == [{"type": "code"}]


def _nodes(node: Any) -> list[dict[str, Any]]:
    out = []
    if isinstance(node, dict):
        out.append(node)
        for child in node.get("content", []):
            out += _nodes(child)
    return out


def test_owner_questions_come_after_the_summary(tada: dict[str, Any]) -> None:
    del tada["how_found"]
    del tada["why_symptom"]
    draft = render.build(_facts(tada), date="2026-03-30")
    md = render.to_markdown(draft)
    summary = md.index("### Summary")
    questions = [m.start() for m in re.finditer(r"\*\*Question for ", md)]
    assert len(questions) >= 2 and all(q > summary for q in questions)
    assert md.index("### Open questions") > md.index("### Action items")
    adf = render.to_adf(draft)
    headings = [n["content"][0]["text"] for n in adf["content"] if n["type"] == "heading"]
    assert headings.index("Summary") < headings.index("Open questions") == len(headings) - 1
    # The draft still lints clean: "Open questions" is not prose that needs a section.
    findings = lint.lint(md, datafiles.lint_rules(), sections=datafiles.sections())
    assert [f for f in findings if f.rule in ("hedging", "blame", "advocacy")] == []


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_pr_reference_named_once_besides_the_owners_own_words(path: Path) -> None:
    content = datafiles.load_facts(path).content
    refs = [str(r) for r in (content.get("fix") or {}).get("refs") or []]
    md = render.to_markdown(render.build(_facts(content), date="2026-03-30"))
    for ref in refs:
        number = ref.rsplit("#", 1)[-1]
        in_facts = sum(1 for text in _strings(content) if number in text and text != ref)
        in_draft = md.count(f"#\u200b{number}") + md.count(f"#{number}")
        assert in_draft <= 1 + in_facts, (ref, in_draft, in_facts)


def _strings(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for v in node.values() for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return []
