"""benchmarks/quote_check.py: third-party sentences in tracked files are found (#24, #23).

Every cache here is a temporary one with made-up text; the real caches are never needed.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from benchmarks import quote_check as qc

CACHE_TEXT = (
    "# Outage of the mirror\n\nThe kettle service went dark because the west mirror lost its\n"
    "lease twice, and nobody on the rota noticed before breakfast.\n"
)


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "repo"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    return root


def _cache(tmp_path: Path) -> Path:
    cache = tmp_path / "cache" / "set9" / "texts"
    cache.mkdir(parents=True)
    (cache / "kettle.md").write_text(CACHE_TEXT, encoding="utf-8")
    triage = tmp_path / "cache" / "triage.jsonl"
    triage.write_text(json.dumps({"number": 1, "title": "Kettle rota skips the west mirror",
                                  "text": "RuntimeError: NCCL error in: socket timed out "
                                          "while waiting for rank 3"}) + "\n",
                      encoding="utf-8")
    return tmp_path / "cache"


def _run(root: Path, cache: Path, capsys, *extra: str) -> tuple[int, str]:
    code = qc.main(["--root", str(root), "--cache", str(cache), *extra])
    return code, capsys.readouterr().out


def test_a_copied_sentence_in_a_comment_fails_with_file_line_and_cache(tmp_path, capsys):
    root = _repo(tmp_path, {"src/a.py": 'x = 1  # as one reply put it, “nobody on the rota '
                                        'noticed before breakfast”\n'})
    code, out = _run(root, _cache(tmp_path), capsys)
    assert code == 1
    assert "src/a.py:1: 7 words" in out
    assert "kettle.md" in out


def test_case_whitespace_and_edge_punctuation_do_not_hide_a_quote(tmp_path, capsys):
    root = _repo(tmp_path, {"docs/n.md": 'They wrote "THE WEST MIRROR   lost its lease twice!"\n'})
    code, out = _run(root, _cache(tmp_path), capsys)
    assert code == 1
    assert "docs/n.md:1: 7 words" in out


def test_own_paraphrase_passes(tmp_path, capsys):
    own = 'NOTE = "the mirror lease ran out and the rota was asleep"\n'
    root = _repo(tmp_path, {"src/a.py": own})
    code, out = _run(root, _cache(tmp_path), capsys)
    assert code == 0
    assert "failing: 0" in out


def test_four_words_fail_in_a_rule_example_but_not_in_prose(tmp_path, capsys):
    example = 'rules:\n  - match: ["the kettle service went"]\n'
    prose = 'x = "the kettle service went"\n'
    cache = _cache(tmp_path)
    code, out = _run(_repo(tmp_path / "a", {"src/r.yaml": example}), cache, capsys)
    assert code == 1 and "src/r.yaml:2: 4 words (example, whole)" in out
    code, _ = _run(_repo(tmp_path / "b", {"src/x.py": prose}), cache, capsys)
    assert code == 0


def test_a_sentence_copied_behind_a_role_prefix_counts_whole(tmp_path, capsys):
    test = 'TEXT = "Maintainer: the west mirror lost its lease twice. Sorry!"\n'
    code, out = _run(_repo(tmp_path, {"tests/t.py": test}), _cache(tmp_path), capsys)
    assert code == 1
    assert "tests/t.py:1: 7 words (test, whole)" in out


def test_a_short_stock_sentence_inside_our_own_text_is_no_whole_quote(tmp_path, capsys):
    """A four-word sentence of a longer string of ours that a cached text also has is a
    stock phrase, not a copied example; the same words as the whole string still fail."""
    cache = tmp_path / "stock"
    cache.mkdir()
    (cache / "t.md").write_text("Thanks for the report. The mirror broke at noon.\n")
    own = 'X = "Thanks for the report. Please attach the launch command and the logs."\n'
    code, out = _run(_repo(tmp_path, {"tests/x.py": own}), cache, capsys)
    assert code == 0, out
    copied = 'X = "Thanks for the report."\n'
    code, out = _run(_repo(tmp_path / "b", {"tests/x.py": copied}), cache, capsys)
    assert code == 1 and "tests/x.py:1: 4 words (test, whole)" in out


def test_a_short_run_inside_our_own_sentence_fails_only_from_the_run_limit(tmp_path, capsys):
    own = 'X = "yesterday the west mirror lost its lease again, oddly enough"\n'
    cache = _cache(tmp_path)
    root = _repo(tmp_path, {"src/x.py": own})
    code, out = _run(root, cache, capsys)
    assert code == 0
    code, out = _run(root, cache, capsys, "--min-run-words", "6")
    assert code == 1 and "src/x.py:1: 6 words (other, part)" in out


def test_yaml_text_values_without_quotes_are_examples(tmp_path, capsys):
    lex = "lexicon:\n  - text: nobody on the rota noticed\n    count: 1\n"
    code, out = _run(_repo(tmp_path, {"src/l.yaml": lex}), _cache(tmp_path), capsys)
    assert code == 1 and "src/l.yaml:2: 5 words" in out


def test_issue_title_fails_but_an_error_message_is_software(tmp_path, capsys):
    cache = _cache(tmp_path)
    title = _repo(tmp_path / "a", {"tests/t.py": 'T = "Kettle rota skips the west mirror"\n'})
    code, out = _run(title, cache, capsys)
    assert code == 1 and "in triage" in out
    error = _repo(tmp_path / "b", {"tests/t.py": 'E = "RuntimeError: NCCL error in: socket '
                                                 'timed out while waiting for rank 3"\n'})
    code, out = _run(error, cache, capsys, "--all")
    assert code == 0
    assert "software" in out


def test_a_missing_cache_is_skipped_with_a_message(tmp_path, capsys):
    root = _repo(tmp_path, {"src/a.py": 'x = "nobody on the rota noticed before breakfast"\n'})
    code, out = _run(root, tmp_path / "nowhere", capsys)
    assert code == 0
    assert "missing, skipped" in out


def test_a_run_split_across_two_texts_is_not_one_quote(tmp_path, capsys):
    # 4-grams of both halves exist, but in different files: the run is confirmed per text.
    cache = tmp_path / "c"
    cache.mkdir()
    (cache / "a.md").write_text("alpha beta gamma delta epsilon\n", encoding="utf-8")
    (cache / "b.md").write_text("gamma delta epsilon zeta eta theta\n", encoding="utf-8")
    root = _repo(tmp_path, {"docs/x.md": '"alpha beta gamma delta epsilon zeta eta"\n'})
    code, out = _run(root, cache, capsys, "--all")
    assert code == 0
    assert "docs/x.md:1: 6 words" not in out and "docs/x.md:1: 5 words" in out


def test_not_a_repository_is_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        qc.main(["--root", str(tmp_path), "--cache", str(tmp_path)])
    assert exc.value.code == 2
    assert "not a git repository" in capsys.readouterr().err


def test_an_issue_template_heading_is_the_templates_not_a_quote(tmp_path, capsys):
    cache = tmp_path / "c"
    cache.mkdir()
    (cache / "t.jsonl").write_text(json.dumps({"title": "x", "text": "### The feature, "
                                               "motivation and pitch\nsomeone else's words"})
                                   + "\n", encoding="utf-8")
    own = 'BODY = "### \U0001f680 The feature, motivation and pitch\\nour own made-up ask"\n'
    code, out = _run(_repo(tmp_path, {"tests/t.py": own}), cache, capsys, "--all")
    assert code == 0
    assert "software" in out


def test_an_environment_report_line_is_the_programs_but_a_sentence_beside_it_is_not(
        tmp_path, capsys):
    """collect_env's field lines and a shell prompt's command are a program's words and a
    command, not a writer's; the reporter's own sentence in the same record still fails."""
    cache = tmp_path / "c"
    cache.mkdir()
    (cache / "t.jsonl").write_text(json.dumps({"title": "x", "text": (
        "Is debug build: False\nGPU models and configuration: none\n"
        "$ python -c \"import torch\"\nthe west mirror lost its lease twice today")})
        + "\n", encoding="utf-8")
    own = ('ENV = "Is debug build: False"\nGPU = "GPU models and configuration:"\n'
           'CMD = \'$ python -c "import torch"\'\n')
    code, out = _run(_repo(tmp_path, {"tests/t.py": own}), cache, capsys, "--all")
    assert code == 0 and out.count("software") >= 3, out
    copied = 'S = "the west mirror lost its lease twice today"\n'
    code, out = _run(_repo(tmp_path / "b", {"tests/t.py": copied}), cache, capsys)
    assert code == 1 and "tests/t.py:1:" in out


def test_the_c_library_error_texts_are_software_but_a_sentence_around_them_is_not():
    # A test's fake OSError carries the system's words; a writer's sentence that merely
    # contains them is still prose.
    assert qc.is_software("No space left on device")
    assert qc.is_software("Permission denied")
    assert qc.is_software("Fatal Python error: Aborted")
    assert not qc.is_software("The runner had no space left on device after the upgrade")
    assert not qc.is_software("Kettle rota skips the west mirror")
