"""Every verb as a user types it (issue #13): ordinary mistakes are exit 1 or 2 naming
the file and the fix (never a traceback, exit 70, nor Python's own words), options work
before or after the verb in every script, no flag is silently ignored, one word has one
meaning, and workflow commands appear only under Actions."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from agentops import cli, flag_values
from agentops.errors import ExitStatus
from scripts import nightly_bisect, postmortem, scout, triage

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_ISSUE = ROOT / "examples" / "triage" / "issues" / "route-infra.json"
FACTS = ROOT / "examples" / "postmortem" / "tada-hang.facts.yml"
CLOSED = "http://127.0.0.1:9/simple"  # nothing listens: a verb that reads it fails loudly
MAINS: dict[str, Callable[[list[str]], int]] = {
    "triage": triage.main, "scout": scout.main, "nightly_bisect": nightly_bisect.main,
    "postmortem": postmortem.main}
BUILDS = {"triage": triage.build, "scout": scout.build,
          "nightly_bisect": nightly_bisect.build, "postmortem": postmortem.build}
# What Python says when our code did not look first.
INTERNALS = ("Traceback", "[Errno", "object is not subscriptable", "has no attribute",
             "got None", "NoneType", "more error(s)", "a bug in agentops")


def _run(capsys: pytest.CaptureFixture[str], script: str, *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = MAINS[script](list(argv))
    _, err = capsys.readouterr()
    for phrase in INTERNALS:
        assert phrase not in err, err
    return code, err


@pytest.fixture
def latin1(tmp_path: Path) -> Path:
    path = tmp_path / "latin1.md"
    path.write_bytes("# Nightly Scout Report - caf\xe9\n".encode("latin-1"))
    return path


@pytest.fixture
def git_checkout(tmp_path: Path) -> Path:
    repo = tmp_path / "checkout"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


# --- item 2: no traceback on ordinary bad input, nothing half-written -------------------

def test_files_in_another_encoding_are_refused_naming_flag_and_file(
        capsys: pytest.CaptureFixture[str], latin1: Path, git_checkout: Path) -> None:
    folder = latin1.parent / "priors"
    folder.mkdir()
    (folder / "2026-07-01.md").write_bytes(latin1.read_bytes())
    cases = [
        ("scout", ["report", "--checkout", str(git_checkout), "--offline", "--prior",
                   str(latin1)], "--prior", latin1),
        ("scout", ["report", "--checkout", str(git_checkout), "--offline", "--prior-dir",
                   str(folder)], "--prior-dir", folder / "2026-07-01.md"),
        ("scout", ["publish", "--report", str(latin1), "--dry-run"], "--report", latin1),
        ("scout", ["handoff", "--report", str(latin1), "--dry-run"], "--report", latin1),
        ("postmortem", ["lint", str(latin1)], "DRAFT.md", latin1),
    ]
    for script, argv, flag, path in cases:
        code, err = _run(capsys, script, *argv)
        assert code == ExitStatus.INPUT, (argv, err)
        assert f"{flag}: {path} is not UTF-8 text (line 1, column 29 is 0xe9)" in err, err
        assert "Fix: " in err and "UTF-8" in err.split("Fix: ", 1)[1]


def test_a_state_file_of_the_wrong_shape_is_input_not_a_bug(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    for text, says in (("[1, 2, 3]", "holds a JSON list, not a JSON object"),
                       ('{"format": "agentops-triage-sweep/1", "repo": "o/r", '
                        '"queue": "distributed", "issues": [1]}',
                        "'issues' an object of objects")):
        state.write_text(text)
        code, err = _run(capsys, "triage", "sweep", "--repo", "o/r", "--state-file",
                         str(state), "--dry-run")
        assert code == ExitStatus.INPUT and f"--state-file: {state}" in err and says in err
        assert state.read_text() == text  # left as it was


def _no_temp_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*.tmp"))


@pytest.mark.parametrize("case", ["folder", "under-a-file"])
def test_output_paths_that_cannot_be_files_are_refused_before_any_work(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, git_checkout: Path,
        case: str) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    target = tmp_path if case == "folder" else blocker / "out.md"
    says = (f"{target} is a folder; this writes a file" if case == "folder" else
            f"cannot write {target}: {blocker} is a file, not a folder")
    cases = [
        # The index URL is a closed port: plan refuses before reading it.
        ("nightly_bisect", ["plan", "--index-url", CLOSED, "--good", "dev20260501",
                            "--bad", "dev20260509", "--out", str(target)], "--out"),
        ("scout", ["report", "--checkout", str(git_checkout), "--offline", "--out",
                   str(target)], "--out"),
        ("postmortem", ["draft", str(FACTS), "--out", str(target)], "--out"),
        ("postmortem", ["check", str(FACTS), "--gathered-out", str(target)],
         "--gathered-out"),
        ("triage", ["plan", str(EXAMPLE_ISSUE), "--plan-out", str(target)], "--plan-out"),
        # Live verbs check before the first API call (no token is set: none is reached).
        ("triage", ["run", "--repo", "o/r", "--issue", "1", "--plan-out", str(target)],
         "--plan-out"),
        ("triage", ["sweep", "--repo", "o/r", "--state-file", str(target)], "--state-file"),
    ]
    before = sorted(p.name for p in tmp_path.iterdir())
    for script, argv, flag in cases:
        code, err = _run(capsys, script, *argv)
        assert code == ExitStatus.INPUT, (argv, err)
        assert f"{flag}: {says}" in err and "Fix: " in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert blocker.read_text() == "x" and _no_temp_files(tmp_path) == []


def test_missing_folders_are_created_and_files_written_whole(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "new" / "deeper" / "draft.md"
    code, _ = _run(capsys, "postmortem", "draft", str(FACTS), "--out", str(out))
    assert code == 0 and out.read_bytes().startswith(b"## ")
    assert (out.parent / "draft.md.sha256").read_text().split()[1] == "draft.md"
    assert _no_temp_files(tmp_path) == []


# --- item 6: options before or after the verb, in every script ---------------------------

def _value(action: argparse.Action) -> list[str]:
    if action.nargs == 0:
        return []
    if action.choices:
        return [str(list(action.choices)[-1])]
    if isinstance(action.type, flag_values.FlagValue):
        return [action.type.good]
    if action.type is int:
        return ["7"]
    if action.type is float:
        return ["1.5"]
    return ["VALUE"]


def _option_cases() -> list[tuple[str, str, str]]:
    cases = []
    for script, build in BUILDS.items():
        p = cli.share_options(build())
        for verb, sub in cli.verbs(p).items():
            for action in sub._actions:
                if action.option_strings and action.help != argparse.SUPPRESS \
                        and not isinstance(action, argparse._HelpAction):
                    cases.append((script, verb, action.option_strings[0]))
    return cases


@pytest.mark.parametrize(("script", "verb", "flag"), _option_cases())
def test_every_option_works_before_or_after_the_verb(script: str, verb: str,
                                                     flag: str) -> None:
    p = cli.share_options(BUILDS[script]())
    sub = cli.verbs(p)[verb]
    action = sub._option_string_actions[flag]
    positionals = ["POS" for a in sub._actions if not a.option_strings and a.nargs is None]
    positionals += [arg for a in sub._actions if a.required and a.option_strings
                    and flag not in a.option_strings for arg in (a.option_strings[0], "R")]
    after = [verb, *positionals, flag, *_value(action)]
    before = [flag, *_value(action), verb, *positionals]
    got_after = vars(p.parse_args(cli.order_argv(p, after)))
    got_before = vars(cli.share_options(BUILDS[script]()).parse_args(
        cli.order_argv(p, before)))
    assert got_before == got_after
    if action.nargs != 0 and not action.required:
        # The value given wins over the default, in both positions.
        untouched = vars(p.parse_args([verb, *positionals]))
        assert got_after[action.dest] != untouched.get(action.dest)


def test_the_issue_examples_parse(capsys: pytest.CaptureFixture[str]) -> None:
    # `triage.py plan FILE --queue DIR` was rc 2 although --help showed it.
    a = _run(capsys, "triage", "plan", str(EXAMPLE_ISSUE), "--queue", "distributed")
    b = _run(capsys, "triage", "--queue", "distributed", "plan", str(EXAMPLE_ISSUE))
    assert a[0] == b[0] == 0
    # `scout.py handoff --config X`: parsed, so the error is about X, not the position.
    code, err = _run(capsys, "scout", "handoff", "--config", "no-such-target", "--report",
                     str(ROOT / "README.md"))
    assert code == ExitStatus.INPUT and "usage:" not in err
    assert "--report: " in err  # the report is read first, then the target


def test_help_of_a_verb_lists_the_options_shared_with_every_verb(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert triage.main(["plan", "--help"]) == 0
    text = capsys.readouterr().out
    assert cli.SHARED_GROUP in text and "--queue QUEUE" in text.split(cli.SHARED_GROUP)[1]


@pytest.mark.parametrize("module", [triage, scout, nightly_bisect, postmortem],
                         ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_help_of_every_verb_ends_with_the_exit_code_table(
        module, capsys: pytest.CaptureFixture[str]) -> None:
    """README: every script shares one exit-code table and `--help` prints it; a user
    reading `postmortem.py lint -h` learns there what exit 6 means."""
    names = sorted(cli.verbs(module.build()))
    assert names
    for verb in names:
        assert module.main([verb, "--help"]) == 0
        text = capsys.readouterr().out
        assert text.rstrip().endswith(cli.EXIT_CODES.rstrip()), verb
        assert text.count("exit codes:") == 1, verb


def _env_defaults_missing_from_help() -> list[str]:
    """``add_argument(..., default=env_default("AGENTOPS_X"...), help=...)`` calls of the
    scripts whose help does not name AGENTOPS_X (the outermost variable; a fallback
    nested inside it may go unsaid)."""
    import ast

    missing = []
    for path in sorted((ROOT / "scripts").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "add_argument"):
                continue
            kw = {k.arg: k.value for k in node.keywords}
            default, help_ = kw.get("default"), kw.get("help")
            if not (isinstance(default, ast.Call) and getattr(default.func, "id", "") in
                    ("env_default", "env_flag") and isinstance(default.args[0], ast.Constant)):
                continue
            if help_ is None or "SUPPRESS" in ast.unparse(help_):
                continue
            text = "".join(c.value for c in ast.walk(help_)
                           if isinstance(c, ast.Constant) and isinstance(c.value, str))
            if default.args[0].value not in text:
                missing.append(f"{path.name}:{node.lineno} {default.args[0].value}")
    return missing


def test_every_flag_read_from_the_environment_says_which_variable() -> None:
    """The epilog says AGENTOPS_* are the flags' defaults; each flag's help names its
    own, so a user (or an action input) can set it without reading the code."""
    assert _env_defaults_missing_from_help() == []


@pytest.mark.parametrize(("script", "argv"), [
    ("postmortem", ["publish", "--jira-url", "your-site.atlassian.net"]),
    ("nightly_bisect", ["versions", "--index-url", "example.org/simple"]),
])
def test_a_bad_url_is_told_without_another_flags_example(capsys, script, argv) -> None:
    """--jira-url and --index-url share one check; its message used to show the PyTorch
    nightly index as the example of a JIRA URL."""
    code, err = _run(capsys, script, *argv)
    assert code == ExitStatus.USAGE
    assert f"argument {argv[1]}: expected an http(s) URL: https://HOST/PATH, got" in err
    assert "pytorch.org" not in err


# --- item 7: no flag silently ignored ------------------------------------------------------

def test_offline_plan_honours_plan_out_and_refuses_live_only_flags(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "plans.json"
    code, _ = _run(capsys, "triage", "plan", str(EXAMPLE_ISSUE), "--plan-out", str(out))
    doc = json.loads(out.read_text())
    assert code == 0 and doc["format"] == "agentops-triage-plans/1"
    assert [p["issue"] for p in doc["plans"]] == [json.loads(EXAMPLE_ISSUE.read_text())[
        "number"]]
    for flag, value in (("--snapshot-out", str(tmp_path / "snaps")), ("--issue", "3"),
                        ("--trusted-bots", "bot[bot]")):
        code, err = _run(capsys, "triage", "plan", str(EXAMPLE_ISSUE), flag, value)
        assert code == ExitStatus.USAGE, flag
        assert f"{flag}: does not apply to `plan ISSUE.json`" in err
    assert not (tmp_path / "snaps").exists()


def test_flags_that_would_be_ignored_are_refused_with_exit_2(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    gathered = tmp_path / "g.json"
    gathered.write_text("{}")
    cases = [
        ("triage", ["run", "--repo", "o/r", "--issue", "1", "--trusted-bots", "b[bot]"],
         "--trusted-bots: does not apply to `run` with --issue"),
        ("postmortem", ["check", str(FACTS), "--gathered", str(gathered), "--pr", "o/r#1"],
         "--pr: does not apply to a --gathered replay"),
        ("postmortem", ["publish", "--ticket", "JIRA-1", "--draft", str(gathered),
                        "--approved-by", "a", "--approved-by-environment", "env"],
         "--approved-by: does not apply to --approved-by-environment"),
        ("scout", ["publish", "--report", str(ROOT / "README.md"), "--repo", "o/r"],
         None),  # README is not a report: the report is checked first (exit 1)
    ]
    for script, argv, says in cases:
        code, err = _run(capsys, script, *argv)
        if says is None:
            continue
        assert code == ExitStatus.USAGE and says in err, (argv, err)


# --- item 8: one word, one meaning -----------------------------------------------------------

def test_publish_takes_the_jira_key_as_ticket_and_refuses_issue(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(capsys, "postmortem", "publish", "--issue", "JIRA-1", "--draft", "d")
    assert code == ExitStatus.USAGE
    assert "--issue is not this flag: use --ticket" in err
    code, err = _run(capsys, "postmortem", "publish", "--ticket", "JIRA-1", "--draft",
                     "missing.adf.json")
    assert code == ExitStatus.INPUT and "--draft: missing.adf.json: no such file" in err


def _actions() -> dict[str, dict]:
    paths = [ROOT / "action.yml", *sorted((ROOT / "actions").glob("*/action.yml"))]
    return {str(p.relative_to(ROOT)): yaml.safe_load(p.read_text()) for p in paths}


def test_every_action_names_the_verb_command_and_the_token_github_token() -> None:
    for name, action in _actions().items():
        inputs = action["inputs"]
        assert "command" in inputs and "github-token" in inputs, name
        assert not {"step", "token", "verb"} & set(inputs), name
        assert {i for i in inputs if "token" in i} <= {"github-token", "project-token"}, name
        run = action["runs"]["steps"][-1]
        assert run["env"]["AGENTOPS_COMMAND"] == "${{ inputs.command }}", name
        # The verb is the script's first argument and is read nowhere else.
        assert '" "$AGENTOPS_COMMAND"' in run["run"], name
        assert run["env"]["GITHUB_TOKEN"] == "${{ inputs.github-token }}", name
    for path in (ROOT / "src").rglob("*.py"):
        assert '"AGENTOPS_COMMAND"' not in path.read_text(), path


def test_workflows_use_the_same_names() -> None:
    for path in sorted((ROOT / ".github" / "workflows").glob("*.yml")):
        spec = yaml.safe_load(path.read_text())
        for job in spec["jobs"].values():
            steps = job.get("steps", [])
            calls = [s for s in steps if "agentops" in str(s.get("uses", ""))
                     or str(s.get("uses", "")).startswith(("./actions", "$/actions"))]
            for step in calls:
                assert not {"step", "token"} & set(step.get("with") or {}), (path, step)
                assert "GITHUB_TOKEN" not in (step.get("env") or {}), (path, step)
            if str(job.get("uses", "")).endswith("nightly-bisect.yml"):
                assert "command" not in job["with"] and "repro-command" in job["with"]


# --- item 9: the same scout target for every verb ----------------------------------------

def test_scout_verbs_share_the_built_in_target_by_default() -> None:
    from agentops.scout.config import DEFAULT_TARGET

    p = cli.share_options(scout.build())
    for argv in (["report", "--checkout", "."], ["publish", "--report", "r.md"],
                 ["handoff", "--report", "r.md"]):
        assert p.parse_args(argv).config == DEFAULT_TARGET, argv


# --- item 11: messages in words; a malformed flag value is exit 2 ------------------------

def test_messages_say_what_is_wrong_in_words(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    plans = tmp_path / "plans.json"
    issue = tmp_path / "issue.json"
    doc = json.loads(EXAMPLE_ISSUE.read_text())
    doc["labels"] = [5]
    issue.write_text(json.dumps(doc))
    cases = [
        (["run", "--repo", "o/r", "--plan-in", str(plans)], None,
         f"--plan-in: {plans}: no such file", ExitStatus.INPUT),
        (["run", "--repo", "o/r", "--plan-in", str(plans)],
         '{"format": "agentops-triage-plans/1", "repo": "o/r", "plans": [1]}',
         "plans[0] is a JSON number, not a plan object", ExitStatus.INPUT),
        (["run", "--repo", "o/r", "--plan-in", str(plans)],
         '{"format": "agentops-triage-plans/1", "repo": "o/r", "plans": [{"issue": 1}]}',
         "plans[0]: missing key 'decision'", ExitStatus.INPUT),
        (["run", "--issue", "1"], None, "--repo: no repository given", ExitStatus.INPUT),
        (["plan", str(issue)], None, "labels[0] is a JSON number (5), not a label",
         ExitStatus.INPUT),
        (["run", "--repo", "o/r", "--issue", "abc"], None,
         "argument --issue: expected issue numbers (123, or 123,124) or OWNER/NAME#123",
         ExitStatus.USAGE),
    ]
    for argv, content, says, status in cases:
        if content is not None:
            plans.write_text(content)
        code, err = _run(capsys, "triage", *argv)
        assert code == status and says in err, (argv, err)


def test_every_schema_error_of_a_data_file_is_listed(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    facts = tmp_path / "facts.yml"
    facts.write_text(FACTS.read_text() + "colour: red\nflavour: sour\n")
    code, err = _run(capsys, "postmortem", "check", str(facts))
    assert code == ExitStatus.INPUT
    assert "colour: unknown key" in err and "flavour: unknown key" in err


# --- item 12: workflow commands only under Actions; refusals say so ------------------------

def test_a_refusal_says_refused_and_speaks_workflow_commands_only_in_a_runner(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    facts = ROOT / "examples" / "postmortem" / "hypothesis.facts.yml"
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    code, err = _run(capsys, "postmortem", "check", str(facts))
    assert code == ExitStatus.REFUSED
    assert err.startswith("refused: drafting refused for ")
    assert not [ln for ln in err.splitlines() if ln.startswith("::")]
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, err = _run(capsys, "postmortem", "check", str(facts))
    assert err.startswith("::error title=postmortem.py refused::drafting refused")


def test_scripts_in_a_shell_print_no_workflow_command(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    runs = [
        [sys.executable, "scripts/triage.py", "plan", str(EXAMPLE_ISSUE)],
        [sys.executable, "scripts/postmortem.py", "draft", str(FACTS)],
        [sys.executable, "scripts/postmortem.py", "lint",
         str(ROOT / "examples" / "postmortem" / "hedged-draft.md")],
        [sys.executable, "scripts/nightly_bisect.py", "plan", "--index-url", CLOSED,
         "--good", "dev20260501", "--bad", "dev20260509"],
    ]
    for argv in runs:
        proc = subprocess.run(argv, cwd=ROOT, env={**env, "AGENTOPS_HTTP_ATTEMPTS": "1"},
                              capture_output=True, text=True, timeout=120, check=False)
        assert proc.returncode != ExitStatus.BUG, proc.stderr
        lines = (proc.stdout + proc.stderr).splitlines()
        assert not [ln for ln in lines if ln.startswith("::")], (argv, proc.stderr)


@pytest.mark.parametrize("case", [
    ("triage", "AGENTOPS_MAX_ISSUES", ["sweep", "--repo", "o/r"], "--max-issues"),
    ("nightly_bisect", "AGENTOPS_WIDTH", ["plan"], "--width"),
    ("nightly_bisect", "AGENTOPS_TIMEOUT", ["probe"], "--timeout"),
    ("scout", "AGENTOPS_ISSUE", ["publish", "--report", "r.md"], "--issue"),
])
def test_a_malformed_action_input_is_a_usage_error_not_a_crash(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        case: tuple[str, str, list[str], str]) -> None:
    # Inputs reach flag defaults through env when the parser is built: a non-number
    # there used to raise before any handler ran.
    script, env, argv, says = case
    monkeypatch.setenv(env, "eight")
    code, err = _run(capsys, script, *argv)
    assert code == ExitStatus.USAGE and f"argument {says}: expected" in err
    assert "'eight'" in err


def _documented_command_lines() -> list[tuple[str, str, list[str]]]:
    import re
    import shlex

    found = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for block in re.findall(r"```(?:bash|sh)\n(.*?)```", doc.read_text(), re.S):
            for line in block.replace("\\\n", " ").splitlines():
                m = re.search(r"python3? scripts/(\w+)\.py (.*)", line.split(" # ")[0])
                if m and m.group(1) in MAINS:
                    argv = [a for a in shlex.split(m.group(2)) if a not in ("|", ">")]
                    found.append((doc.name, m.group(1), argv))
    return found


@pytest.mark.parametrize(("doc", "script", "argv"), _documented_command_lines())
def test_every_documented_command_line_parses(doc: str, script: str, argv: list[str]) -> None:
    # README, docs and --help say the same as the code: each example is accepted as
    # written (the parse only; nothing runs).
    p = cli.share_options(BUILDS[script]())
    # A `$(...)`/`$VAR` value is the shell's to fill in: stand in a value of its format.
    types = {flag: value for _, flag, value in flag_values.parsed_flags(p)}
    argv = [types[argv[i - 1]].good if "$" in a and i and argv[i - 1] in types else a
            for i, a in enumerate(argv)]
    try:
        p.parse_args(cli.order_argv(p, argv))
    except SystemExit as exc:
        pytest.fail(f"{doc}: scripts/{script}.py {' '.join(argv)} is rejected ({exc.code})")


# --- issue #25 item 2: a value failing its own format check is exit 2, everywhere -------

def _verb_of(p: argparse.ArgumentParser, parser: argparse.ArgumentParser) -> str:
    return next(verb for verb, sub in cli.verbs(p).items() if sub is parser)


def _validated_flags() -> list[tuple[str, str, str, str]]:
    cases = []
    for script, build in BUILDS.items():
        p = cli.share_options(build())
        for parser, flag, value in flag_values.parsed_flags(p):
            cases.append((script, _verb_of(p, parser), flag, value.bad))
    return cases


@pytest.mark.parametrize("case", _validated_flags(), ids="-".join)
def test_every_validated_flag_refuses_a_bad_value_with_exit_2(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        case: tuple[str, str, str, str]) -> None:
    script, verb, flag, bad = case
    monkeypatch.setenv("AGENTOPS_HTTP_ATTEMPTS", "1")
    # A closed index: were the value not checked while parsing, the verb would fail
    # reading it (exit 5), not with exit 2.
    closed = ["--index-url", CLOSED] if script == "nightly_bisect" and flag != "--index-url" \
        else []
    code, err = _run(capsys, script, verb, *closed, flag, bad)
    assert code == ExitStatus.USAGE, err
    assert f"argument {flag}: " in err and (repr(bad) in err or f"got {bad}" in err), err


def test_the_walk_covers_the_flags_the_issue_names_and_every_formatted_flag() -> None:
    walked = {(s, v, f) for s, v, f, _ in _validated_flags()}
    for case in [("triage", "run", "--repo"), ("triage", "sweep", "--repo"),
                 ("triage", "evaluate", "--since"), ("scout", "report", "--date"),
                 ("scout", "publish", "--repo"), ("nightly_bisect", "plan", "--width"),
                 ("nightly_bisect", "range", "--good"), ("nightly_bisect", "auto", "--bad"),
                 ("postmortem", "draft", "--date"), ("postmortem", "check", "--issue"),
                 ("postmortem", "publish", "--approved-sha256")]:
        assert case in walked, case
    # A flag whose --help promises a format has the check that enforces it.
    promises = ("OWNER/NAME", "YYYY-MM-DD", "YYYYMMDD", "sha256 of", "JIRA key",
                "1-256", "version or date")
    for script, build in BUILDS.items():
        p = cli.share_options(build())
        for verb, sub in cli.verbs(p).items():
            for action in sub._actions:
                if action.option_strings and any(w in str(action.help) for w in promises) \
                        and action.nargs != 0:
                    assert isinstance(action.type, flag_values.FlagValue), \
                        (script, verb, action.option_strings)


@pytest.mark.parametrize(("script", "argv", "says"), [
    ("triage", ["evaluate", "--save", "h.jsonl"], "--save: only applies with --repo"),
    ("triage", ["evaluate", "FILE.jsonl", "--repo", "o/r"], "FILE.jsonl and --repo"),
    ("scout", ["report", "--checkout", ".", "--offline", "--date", "2026-08-21",
               "--since", "2026-08-25"], "--since 2026-08-25: is after the report date"),
])
def test_flags_that_cannot_go_together_are_exit_2(
        capsys: pytest.CaptureFixture[str], script: str, argv: list[str], says: str) -> None:
    code, err = _run(capsys, script, *argv)
    assert code == ExitStatus.USAGE and says in err, err


def test_an_env_default_goes_through_the_same_check(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTOPS_GOOD", "2026/05/01")
    code, err = _run(capsys, "nightly_bisect", "plan", "--bad", "dev20260509",
                     "--index-url", CLOSED)
    assert code == ExitStatus.USAGE and "argument --good: expected a version or a date" in err


# --- issue #25 item 6: --issue is N (with --repo) or OWNER/NAME#N in every script -------

def test_issue_refs_both_forms_and_their_conflicts() -> None:
    from agentops.errors import UsageError

    assert flag_values.issue_refs(["o/r#5"], None) == flag_values.IssueRefs("o/r", (5,))
    assert flag_values.issue_refs(["5, #6 5"], "o/r") == flag_values.IssueRefs("o/r", (5, 6))
    assert flag_values.issue_refs("O/R#5", "o/r").numbers == (5,)  # same repo, any case
    assert flag_values.issue_refs("5", None, fallback_repo="g/h").repo == "g/h"
    assert flag_values.issue_refs("a/b#5", None, fallback_repo="g/h").repo == "a/b"
    with pytest.raises(UsageError, match=r"--issue a/b#… and --repo c/d: name two"):
        flag_values.issue_refs("a/b#5", "c/d")
    with pytest.raises(UsageError, match="names two repositories: a/b and c/d"):
        flag_values.issue_refs("a/b#5,c/d#6", None)
    for bad in ("a/b", "a/b5", "0", "#", "a/b#0", "x#5"):
        with pytest.raises(UsageError, match="not an issue"):
            flag_values.issue_refs(bad, "o/r")


@pytest.mark.parametrize(("script", "argv"), [
    ("triage", ["run", "--repo", "c/d", "--issue", "a/b#5"]),
    ("triage", ["plan", "--repo", "c/d", "--issue", "a/b#5"]),
    ("postmortem", ["check", str(FACTS), "--repo", "c/d", "--issue", "a/b#5"]),
    ("postmortem", ["draft", str(FACTS), "--repo", "c/d", "--pr", "a/b#5"]),
])
def test_an_issue_of_another_repo_than_repo_is_exit_2_naming_both(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        script: str, argv: list[str]) -> None:
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    code, err = _run(capsys, script, *argv)
    assert code == ExitStatus.USAGE, err
    flag = "--pr" if "--pr" in argv else "--issue"
    assert f"{flag} a/b#… and --repo c/d: name two different repositories" in err


def test_scout_and_triage_take_owner_name_number(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from agentops.scout import commands

    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    assert commands._repo_issue(argparse.Namespace(issue="a/b#7", repo=None)) == ("a/b", 7)
    assert commands._repo_issue(argparse.Namespace(issue="7", repo="a/b")) == ("a/b", 7)
    code, err = _run(capsys, "scout", "publish", "--report", "r.md", "--repo", "c/d",
                     "--issue", "a/b#7")
    assert code == ExitStatus.USAGE and "--issue a/b#… and --repo c/d" in err
    # No --repo, no GITHUB_REPOSITORY: the reference alone names the repository, so the
    # run gets as far as wanting a token (a bare number stops at "no repository").
    code, err = _run(capsys, "triage", "run", "--issue", "a/b#7")
    assert code == ExitStatus.INPUT and "GITHUB_TOKEN: not set" in err
    code, err = _run(capsys, "triage", "run", "--issue", "7")
    assert code == ExitStatus.INPUT and "--repo: no repository given" in err


def test_postmortem_takes_a_number_with_repo(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    code, err = _run(capsys, "postmortem", "check", str(FACTS), "--issue", "12")
    assert code == ExitStatus.USAGE
    assert "--issue: 12 is a number and no repository is given" in err
    assert "--issue OWNER/NAME#12" in err and "--pr" not in err  # item 5: the right flag
    code, err = _run(capsys, "postmortem", "check", str(FACTS), "--issue", "12",
                     "--repo", "o/r")
    assert code == ExitStatus.INPUT and "GITHUB_TOKEN: not set" in err
    # Item 5: the fix names the action input, and each script's way to run offline.
    assert "`github-token` input" in err and "env: GITHUB_TOKEN" not in err
    assert "scout.py report --offline" in err and "offline verbs" not in err


# --- issue #25 item 7: messages a newcomer reads -------------------------------------------

def test_a_null_or_empty_title_is_said_in_words_with_the_fix(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    issue = tmp_path / "issue.json"
    for title, says in ((None, "field 'title' is missing (null) Fix: set 'title' to the "
                               "issue's title as text"),
                        ("  ", "field 'title' is empty Fix: set 'title'"),
                        (7, "field 'title' is a JSON number (7), not the issue's title")):
        doc = json.loads(EXAMPLE_ISSUE.read_text())
        doc["title"] = title
        issue.write_text(json.dumps(doc))
        code, err = _run(capsys, "triage", "plan", str(issue))
        assert code == ExitStatus.INPUT and says in err, err
        assert "should be a" not in err


def test_a_missing_facts_file_is_named_once(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    missing = tmp_path / "nofile.yml"
    for argv in (["check", str(missing)], ["lint", str(ROOT / "README.md"),
                                             "--facts", str(missing)]):
        code, err = _run(capsys, "postmortem", *argv)
        assert code == ExitStatus.INPUT
        assert err.count("nofile.yml") == 1, err
        assert f"facts file: {missing}: no such file" in err


def test_help_examples_name_only_files_a_clone_has() -> None:
    # `triage.py --help` pointed at ../shared/…, which is not in the repository.
    import re

    for script, build in BUILDS.items():
        p = cli.share_options(build())
        for parser in [p, *cli.verbs(p).values()]:
            text = parser.format_help()
            assert "shared/" not in text, script
            for path in re.findall(r"\b((?:src|examples)/[\w./-]+\.\w+)", text):
                assert (ROOT / path).exists(), (script, path)


def test_the_repro_command_fix_names_where_each_action_takes_it(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    # Issue #25 item 5: it pointed at a `repro-command` input the root action lacks.
    monkeypatch.delenv("AGENTOPS_REPRO_COMMAND", raising=False)
    code, err = _run(capsys, "nightly_bisect", "probe", "--index-url", CLOSED, "--version",
                     "dev20260705", "--results", str(tmp_path))
    assert code == ExitStatus.INPUT
    fix = err.split("Fix: ", 1)[1]
    assert "actions/nightly-bisect: the `repro-command` input" in fix
    assert "the root action (no such input): `AGENTOPS_REPRO_COMMAND` in the step's env" in fix
    root = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    bisect = yaml.safe_load((ROOT / "actions" / "nightly-bisect" / "action.yml").read_text(
        encoding="utf-8"))
    assert "repro-command" not in root["inputs"] and "repro-command" in bisect["inputs"]
