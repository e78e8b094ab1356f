"""Issue #21 item 1 (S-3c): no text from a CI log ever becomes a command that runs.

The scout proposes a repro only from the target's template, with each value checked
against what the checkout defines and shell-quoted; the workflows hand the bisect probe
only a command from trusted configuration.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
import types
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from agentops.errors import DataError
from agentops.scout import collect, joblog, render, trusted_repro
from agentops.scout.config import load_target
from agentops.scout.livedata import FailedTest, LiveData, WorkflowHealth
from tests.scout import minirepo

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_YAML = """\
repro:
  template: "NGPU={ngpu} ./run_train.sh --module {module} --config {config} {flags}"
  flags: [--compile.mode, --parallelism.tensor_parallel_degree, --compile.passes,
          --training.disable_cuda_graphs]
  max_ngpu: 8
"""
TEMPLATE = trusted_repro.load_template(yaml.safe_load(TEMPLATE_YAML)["repro"], "t.yaml")
# What the checkout defines: two registries, core's and the sub-project's.
FILES = {
    "pkg/models/llama3/config_registry.py": "def llama3_debugmodel():\n    return 1\n"
                                            "def _private():\n    return 2\n",
    "pkg/experiments/sub/llama3/config_registry.py": "def sub_llama3_debug():\n    return 1\n",
    "pkg/experiments/sub/llama3/other.py": "def not_a_config():\n    return 1\n",
}
REGS = trusted_repro.registries(FILES)
GOOD = ("TORCH_TRACE=\"out/t/trace\" CUDA_VISIBLE_DEVICES=0,1 NGPU=2 LOG_RANK=0,1 "
        "MODULE=sub.llama3 CONFIG=sub_llama3_debug ./run_train.sh --dump_folder out/t "
        "--parallelism.tensor_parallel_degree 2 --compile.mode=aot "
        "--training.disable_cuda_graphs")


def test_a_logged_command_becomes_the_template_with_checked_values():
    p = trusted_repro.propose(GOOD, TEMPLATE, REGS)
    assert p.refused == ""
    assert p.command == ("NGPU=2 ./run_train.sh --module sub.llama3 --config sub_llama3_debug "
                         "--parallelism.tensor_parallel_degree 2 --compile.mode aot "
                         "--training.disable_cuda_graphs")


@pytest.mark.parametrize(("module", "config"), [
    ("llama3", "llama3_debugmodel"),  # a short name
    ("pkg.models.llama3", "llama3_debugmodel"),  # the full package
    ("pkg.models.llama3.config_registry", "llama3_debugmodel"),  # as the runner logs it
    ("models.llama3", "llama3_debugmodel"),
])
def test_module_forms_that_name_a_registry_of_the_checkout(module, config):
    p = trusted_repro.propose(f"MODULE={module} CONFIG={config} ./run_train.sh", TEMPLATE,
                              REGS)
    assert p.command == f"./run_train.sh --module {module} --config {config}"


def test_registries_hold_only_public_functions_of_registry_files():
    want = {"pkg.models.llama3": frozenset({"llama3_debugmodel"}),
            "pkg.experiments.sub.llama3": frozenset({"sub_llama3_debug"})}
    assert want == REGS


@pytest.mark.parametrize("logged", ["NGPU=8 MODULE=llama3 CONFIG=llama3_debugmodel", ""])
def test_a_logged_line_of_settings_only_runs_no_program_and_is_refused(logged):
    # Nothing after the VAR=value words: a refusal naming the program, never a crash.
    p = trusted_repro.propose(logged, TEMPLATE, REGS)
    assert p.command == ""
    assert "does not run ./run_train.sh" in p.refused


def test_a_registry_file_that_does_not_parse_hides_no_other_registry():
    # A checkout is someone else's: one broken registry file is skipped, and the
    # registries after it are still read (made-up packages).
    files = {"pkg/models/broken/config_registry.py": "def broken(:\n",
             "pkg/models/tiny/config_registry.py": "def tiny_debug():\n    return 1\n"}
    assert trusted_repro.registries(files) == {
        "pkg.models.tiny": frozenset({"tiny_debug"})}


HOSTILE = {
    "program in quotes": 'NGPU=8 "./run_train.sh; id > PWNED; #" --module llama3 '
                         '--config llama3_debugmodel',
    "semicolon after config": "./run_train.sh --module llama3 --config llama3_debugmodel; id",
    "semicolon word": "./run_train.sh --module llama3 --config llama3_debugmodel ; id",
    "and-and": "./run_train.sh --module llama3 --config llama3_debugmodel && id",
    "pipe": "./run_train.sh --module llama3 --config llama3_debugmodel | sh",
    "redirect": "./run_train.sh --module llama3 --config llama3_debugmodel > /etc/x",
    "command substitution in NGPU": "NGPU=$(touch${IFS}x) ./run_train.sh --module llama3 "
                                    "--config llama3_debugmodel",
    "command substitution in config": "./run_train.sh --module llama3 --config "
                                      "$(touch${IFS}x)",
    "command substitution in a value": "./run_train.sh --module llama3 --config "
                                       "llama3_debugmodel --compile.mode $(id)",
    "backticks in a value": "./run_train.sh --module llama3 --config llama3_debugmodel "
                            "--compile.mode `id`",
    "backticks in module": "./run_train.sh --module `id` --config llama3_debugmodel",
    "IFS in a value": "./run_train.sh --module llama3 --config llama3_debugmodel "
                      "--compile.mode=aot${IFS}--x",
    "quotes in a value": "./run_train.sh --module llama3 --config llama3_debugmodel "
                         "--compile.mode \"aot' ; id '\"",
    "space in config": "./run_train.sh --module llama3 --config 'llama3_debugmodel x'",
    "unbalanced quote": "./run_train.sh --module llama3 --config 'llama3_debugmodel",
    "newline": "./run_train.sh --module llama3 --config llama3_debugmodel\nid",
    "carriage return": "./run_train.sh --module llama3 --config llama3_debugmodel\rid",
    "NUL": "./run_train.sh --module llama3 --config llama3_debugmodel\x00id",
    "full-width semicolon": "./run_train.sh --module llama3 --config llama3_debugmodel\uff1bid",
    "cyrillic a in the program": "./run_tr\u0430in.sh --module llama3 --config "
                                 "llama3_debugmodel",
    "cyrillic a in the module": "./run_train.sh --module ll\u0430ma3 --config "
                                "llama3_debugmodel",
    "full-width digit NGPU": "NGPU=\uff18 ./run_train.sh --module llama3 --config "
                             "llama3_debugmodel",
    "right-to-left override": "./run_train.sh --module llama3 --config "
                              "llama3_debugmodel\u202e",
    "another program": "bash -c id --module llama3 --config llama3_debugmodel",
    "python": "python -c 'import os' --module llama3 --config llama3_debugmodel",
    "an extra variable": "LD_PRELOAD=/tmp/x.so ./run_train.sh --module llama3 "
                         "--config llama3_debugmodel",
    "BASH_ENV": "BASH_ENV=/tmp/x ./run_train.sh --module llama3 --config llama3_debugmodel",
    "flag off the allowlist": "./run_train.sh --module llama3 --config llama3_debugmodel "
                              "--override.imports evil",
    "a positional word": "./run_train.sh --module llama3 --config llama3_debugmodel evil",
    "a module the checkout lacks": "./run_train.sh --module os --config system",
    "a config the registry lacks": "./run_train.sh --module models.llama3 --config "
                                   "sub_llama3_debug",
    "a private name": "./run_train.sh --module llama3 --config _private",
    "a non-registry file": "./run_train.sh --module sub.llama3.other --config not_a_config",
    "no module": "./run_train.sh --config llama3_debugmodel",
    "NGPU over the limit": "NGPU=9 ./run_train.sh --module llama3 --config llama3_debugmodel",
    "NGPU negative": "NGPU=-1 ./run_train.sh --module llama3 --config llama3_debugmodel",
    "NGPU words": "NGPU='8 x' ./run_train.sh --module llama3 --config llama3_debugmodel",
    "too long": "./run_train.sh --module llama3 --config llama3_debugmodel "
                + "--compile.mode aot " * 300,
}


@pytest.mark.parametrize("logged", HOSTILE.values(), ids=HOSTILE.keys())
def test_crafted_log_lines_propose_no_command(logged):
    p = trusted_repro.propose(logged, TEMPLATE, REGS)
    assert p.command == ""
    assert p.refused  # the report says why


# Each check is seen on its own: the reason names the one that refused.
REASONS = {
    "newline": "not printable ASCII",
    "full-width semicolon": "not printable ASCII",
    "right-to-left override": "not printable ASCII",
    "unbalanced quote": "does not parse as shell words",
    "an extra variable": "sets LD_PRELOAD, which the template does not",
    "program in quotes": "does not run ./run_train.sh",
    "another program": "does not run ./run_train.sh",
    "semicolon word": "is not a --flag",
    "a positional word": "is not a --flag",
    "flag off the allowlist": "flag --override.imports is not on the template's allowlist",
    "command substitution in a value": "the value of --compile.mode holds characters",
    "IFS in a value": "the value of --compile.mode holds characters",
    "command substitution in config": "not a Python name",
    "space in config": "not a Python name",
    "a module the checkout lacks": "module os defines config system",
    "a config the registry lacks": "defines config sub_llama3_debug",
    "a non-registry file": "defines config not_a_config",
    "no module": "names no module and config",
    "NGPU over the limit": "NGPU is not a GPU count from 1 to 8",
    "NGPU words": "NGPU is not a GPU count",
    "too long": "longer than 4000 characters",
}


@pytest.mark.parametrize(("case", "reason"), REASONS.items(), ids=REASONS.keys())
def test_the_reason_names_the_check_that_refused(case, reason):
    assert reason in trusted_repro.propose(HOSTILE[case], TEMPLATE, REGS).refused


def test_an_empty_value_is_quoted_and_reaches_the_program_as_one_empty_word(tmp_path):
    p = trusted_repro.propose("NGPU=1 ./run_train.sh --module llama3 --config "
                              "llama3_debugmodel --compile.mode ''", TEMPLATE, REGS)
    assert p.command == ("NGPU=1 ./run_train.sh --module llama3 --config llama3_debugmodel "
                         "--compile.mode ''")
    _fake_program(tmp_path)
    assert _run(p.command, tmp_path) == ["NGPU=1", "--module", "llama3", "--config",
                                         "llama3_debugmodel", "--compile.mode", ""]


def _template(text: str) -> trusted_repro.Template:
    return trusted_repro.load_template({"template": text, "flags": ["--compile.mode"]}, "t")


def test_what_the_template_cannot_express_is_refused_not_dropped():
    bare = _template("./run_train.sh --module {module} --config {config}")
    assert "the template has no {ngpu}" in trusted_repro.propose(
        "NGPU=2 ./run_train.sh --module llama3 --config llama3_debugmodel", bare, REGS).refused
    assert "the template has no {flags}" in trusted_repro.propose(
        "./run_train.sh --module llama3 --config llama3_debugmodel --compile.mode aot", bare,
        REGS).refused
    # An {ngpu} outside a VAR= word cannot just vanish when the log gives no NGPU.
    flag = _template("./run_train.sh --ngpu={ngpu} --module {module} --config {config}")
    p = trusted_repro.propose("./run_train.sh --module llama3 --config llama3_debugmodel",
                              flag, REGS)
    assert (p.command, p.refused) == ("", "the logged command gives no NGPU for the template")
    assert trusted_repro.propose("NGPU=4 ./run_train.sh --module llama3 --config "
                                 "llama3_debugmodel", flag, REGS).command == (
        "./run_train.sh --ngpu=4 --module llama3 --config llama3_debugmodel")


def test_the_checkout_is_outside_text_too():
    """A registry at a hostile path, or a function with a look-alike name, defines
    nothing a proposal may name."""
    files = {"pkg/$(id)/config_registry.py": "def cfg():\n    return 1\n",
             "pkg/a b/config_registry.py": "def cfg():\n    return 1\n",
             "pkg/ok/config_registry.py": "def c\u0430fg():\n    return 1\n"}
    regs = trusted_repro.registries(files)
    for module, config in (("$(id)", "cfg"), ("'a b'", "cfg"), ("ok", "c\u0430fg")):
        p = trusted_repro.propose(f"./run_train.sh --module {module} --config {config}",
                                  TEMPLATE, regs)
        assert p.command == "" and p.refused, module


def test_check_ci_leaves_a_report_without_ci_alone():
    skipped = LiveData(skipped={"ci": "offline"})
    assert trusted_repro.check_ci(skipped, TEMPLATE, FILES) is skipped
    assert trusted_repro.check_ci(LiveData(ci=()), TEMPLATE, FILES).ci == ()


def test_no_template_means_no_command():
    p = trusted_repro.propose(GOOD, None, REGS)
    assert (p.command, p.refused) == ("", "the target has no repro template")


def _fake_program(tmp_path: Path) -> Path:
    program = tmp_path / "run_train.sh"
    program.write_text('#!/bin/sh\nprintf "%s\\0" "NGPU=$NGPU" "$@"\n')
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return program


def _run(command: str, cwd: Path) -> list[str]:
    proc = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, check=True,
                          timeout=30, env={"PATH": os.environ["PATH"]})
    return proc.stdout.decode().split("\0")[:-1]


_WORD = st.text(alphabet=st.sampled_from(
    [*"abz_09.,:+=/-", "$", "`", "'", '"', ";", " ", "(", ")", "{", "}", "\\", "|",
                              "&", "<", ">", "*", "?", "~", "#", "!", "\n", "\u0430",
                              "\uff1b"]), min_size=0, max_size=12)


@settings(max_examples=150, deadline=None)
@given(ngpu=_WORD, module=st.sampled_from(["llama3", "sub.llama3", "x"]) | _WORD,
       config=st.sampled_from(["llama3_debugmodel", "sub_llama3_debug"]) | _WORD,
       value=_WORD)
def test_any_proposal_is_exactly_the_template_and_runs_nothing_else(tmp_path_factory, ngpu,
                                                                      module, config, value):
    # The log line is built the way an attacker would write one: each value quoted so
    # that shlex hands it to the checker whole.
    logged = (f"NGPU={shlex.quote(ngpu)} ./run_train.sh --module {shlex.quote(module)} "
              f"--config {shlex.quote(config)} --compile.mode {shlex.quote(value)}")
    p = trusted_repro.propose(logged, TEMPLATE, REGS)
    if not p.command:
        return
    # Each value was checked against the checkout and the allowlist ...
    assert ngpu == "" or (ngpu.isascii() and ngpu.isdigit() and 1 <= int(ngpu) <= 8)
    assert any(config in names and (pkg == module or pkg.endswith("." + module))
               for pkg, names in REGS.items())
    assert all(c.isascii() and (c.isalnum() or c in "_.,:+=/-") for c in value)
    assert not value.startswith("-")
    # ... and the command is the template with exactly those values, quoted.
    # (An empty NGPU drops its word: the program's own default applies.)
    assert p.command == ((f"NGPU={shlex.quote(ngpu)} " if ngpu else "")
                         + f"./run_train.sh --module {shlex.quote(module)} --config "
                         f"{shlex.quote(config)} --compile.mode {shlex.quote(value)}")
    where = tmp_path_factory.mktemp("run")
    _fake_program(where)
    assert _run(p.command, where) == [f"NGPU={ngpu}", "--module", module, "--config", config,
                                      "--compile.mode", value]
    assert sorted(x.name for x in where.iterdir()) == ["run_train.sh"]


def test_a_hostile_log_runs_nothing_through_the_parser_and_the_step_outputs(tmp_path,
                                                                             monkeypatch):
    """joblog keeps the logged text as text; the outputs carry no command from it."""
    # A line break ends a log line: those cases are the propose() test's alone.
    one_line = [cmd for cmd in HOSTILE.values() if len(cmd.splitlines()) == 1]
    lines = [f"2026-07-09T04:16:12.3300001Z [t{i}] Command: {cmd}"
             for i, cmd in enumerate(one_line)]
    names = ", ".join(f"t{i}" for i in range(len(one_line)))
    lines.append(f"2026-07-09T04:16:13.0000000Z RuntimeError: {len(one_line)} integration "
                 f"test(s) failed: {names}")
    summary = joblog.parse("\n".join(lines), source_dir="pkg/experiments/sub")
    assert len(summary.failed_tests) == len(one_line) > 30
    assert all(t.command == "" and t.logged_command for t in summary.failed_tests)
    wf = WorkflowHealth("ci.yaml", "failure", last_success_torch="2.9.0.dev20260707",
                        failing_torch="2.9.0.dev20260709", recent_runs=2,
                        failed_tests=summary.failed_tests)
    live = trusted_repro.check_ci(LiveData(ci=(wf,)), TEMPLATE, FILES)
    out = tmp_path / "out"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    assert collect.write_ci_outputs(live)["repro-command"] == ""
    assert "repro-command<<" in out.read_text()
    for t in live.ci[0].failed_tests:
        assert t.command == "" and t.command_refused
    # The report shows each logged command as an inert code span with the reason.
    md = "\n".join(render._ci_lines(live))
    assert md.count("**Logged command** (no repro proposed: ") == len(one_line)
    assert "**Repro**" not in md


def test_the_live_report_proposes_only_the_template_and_sets_it_as_the_output(
        tmp_path, capsys, monkeypatch):
    checkout = tmp_path / "co"
    minirepo.build(checkout, head={
        "sub/a.py": "def f():\n    return 1\n",
        "sub/llama3/config_registry.py": "def sub_debug():\n    return 1\n",
        "core/x.py": "x = 1\n"})
    target = minirepo.target_file(tmp_path, TEMPLATE_YAML)
    good = FailedTest("t_ok", logged_command="NGPU=2 MODULE=sub.llama3 CONFIG=sub_debug "
                                             "./run_train.sh --compile.mode aot")
    bad = FailedTest("t_bad", logged_command=HOSTILE["program in quotes"])
    written: list[LiveData] = []
    fake = types.ModuleType("agentops.scout.collect")
    fake.collect_live = lambda client, config, since, *, checkout=None: LiveData(
        ci=(WorkflowHealth("ci.yaml", "failure", last_success_torch="2.9.0.dev20260707",
                           failing_torch="2.9.0.dev20260709", recent_runs=2,
                           failed_tests=(bad, good)),))
    fake.write_ci_outputs = written.append
    monkeypatch.setitem(sys.modules, "agentops.scout.collect", fake)
    monkeypatch.setattr("agentops.github.client.GitHubClient.from_env",
                        classmethod(lambda cls: types.SimpleNamespace(
                            counter=types.SimpleNamespace(line=lambda: "API calls: 0"))))
    from scripts import scout as cli

    code = cli.main(["--config", str(target), "report", "--checkout", str(checkout / "repo"),
                     "--date", "2026-03-06", "--torch", "none", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    [live] = written
    assert collect.ci_outputs(live)["repro-command"] == (
        "NGPU=2 ./run_train.sh --module sub.llama3 --config sub_debug --compile.mode aot")
    md = json.loads(out)["markdown"]
    assert ("**Repro** (from the target's template): `NGPU=2 ./run_train.sh --module "
            "sub.llama3 --config sub_debug --compile.mode aot`") in md
    assert "**Logged command** (no repro proposed: the logged command does not run " in md


@pytest.mark.parametrize(("template", "says"), [
    ("./run_train.sh --module {module} --config {config}; id", "holds ';'"),
    ("./run_train.sh --module {module} --config {config} $X", "holds '$'"),
    ("./run_train.sh --module '{module}' --config {config}", "holds \"'\""),
    ("./run_train.sh --module `{module}` --config {config}", "holds '`'"),
    ("./run_train.sh --module {module} --config {cfg}", "unknown slot {cfg}"),
    ("./run_train.sh --module {module} --config {config} {module}", "appears twice"),
    ("./run_train.sh --config {config}", "has no {module} slot"),
    ("./run_train.sh --module {module} --config {config} --x={flags}", "a word of its own"),
    ("./run_train.sh --m={module}{config}", "more than one slot"),
    ("./run_train.sh --module {module}} --config {config}", "stray brace"),
    ("NGPU={ngpu} {module} {config}", "names no program"),
])
def test_a_template_that_could_not_be_filled_safely_is_refused_on_load(tmp_path, template,
                                                                       says):
    path = minirepo.target_file(tmp_path, f"repro:\n  template: {json.dumps(template)}\n")
    with pytest.raises(DataError) as info:
        load_target(str(path))
    assert info.value.key == "repro.template" and says in info.value.message
    assert str(path) in str(info.value)


def test_the_built_in_target_has_a_template_without_risky_flags():
    tmpl = load_target("torchtitan-graph-trainer").repro
    assert tmpl is not None and tmpl.program == "./run_train.sh"
    # A flag that imports code or picks paths must never be proposed from a log.
    assert not {f for f in tmpl.flags if f.startswith(("--override", "--job.", "--checkpoint"))
                or "path" in f or "folder" in f}


def _workflows() -> dict[str, dict]:
    return {p.name: yaml.safe_load(p.read_text()) for p in
            sorted((ROOT / ".github" / "workflows").glob("*.yml"))}


def _repro_values(node, where=""):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "repro-command" and isinstance(value, str):
                yield where, value
            yield from _repro_values(value, f"{where}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _repro_values(value, f"{where}[{i}]")


def test_no_workflow_feeds_a_job_output_to_repro_command():
    """The probe runs repro-command with bash: in every workflow it is a trusted input
    (the workflow's own input, or a repository variable), never another job's or step's
    output, which is where a log-derived value would come from."""
    seen = []
    for name, wf in _workflows().items():
        jobs = wf.get("jobs", {})
        for job, body in jobs.items():
            for where, value in _repro_values(body.get("with", {})):
                seen.append((name, job + where, value))
            for step in body.get("steps", []):
                for where, value in _repro_values(step.get("with", {})):
                    seen.append((name, job + where, value))
    assert seen, "the check found no repro-command at all"
    for name, job, value in seen:
        assert "needs." not in value and "steps." not in value, (name, job, value)
        assert value.strip() in ("${{ inputs.repro-command }}",
                                 "${{ vars.SCOUT_REPRO_COMMAND }}"), (name, job, value)
    scout = _workflows()["nightly-scout.yml"]
    assert "repro-command" not in scout["jobs"]["report"].get("outputs", {})
    assert scout["jobs"]["bisect"]["with"]["repro-command"] == "${{ vars.SCOUT_REPRO_COMMAND }}"
    assert "vars.SCOUT_REPRO_COMMAND != ''" in scout["jobs"]["bisect"]["if"]


def test_the_security_doc_states_the_rule():
    text = (ROOT / "docs" / "security.md").read_text()
    section = text[text.index("## No outside text becomes a command"):]
    section = section[:section.index("\n## ", 5)]
    for needle in ("trusted_repro.py", "SCOUT_REPRO_COMMAND", "shell-quoted",
                   "test_no_workflow_feeds_a_job_output_to_repro_command"):
        assert needle in section


def test_the_refusal_counts_words_after_the_program_from_one():
    logged = "NGPU=2 ./run_train.sh --module sub.llama3 --config sub_llama3_debug stray"
    assert trusted_repro.propose(logged, TEMPLATE, REGS).refused == (
        "word 5 after the program is not a --flag")


def test_a_flag_value_may_hold_every_character_of_its_alphabet():
    # Letters, digits and _ . , : + = / - are what config values (paths, dotted names,
    # lists, a "bf16+fp8" recipe) are written with; each one passes through.
    value = "aZ9_.,:+=/-x"
    p = trusted_repro.propose("NGPU=2 ./run_train.sh --module sub.llama3 --config "
                              f"sub_llama3_debug --compile.passes={value}", TEMPLATE, REGS)
    assert p.refused == "" and p.command.endswith(f"--compile.passes {value}")


_PAD = "./run_train.sh --module {module} --config {config} --tag="


@pytest.mark.parametrize(("repro", "refused"), [
    ({"template": _PAD + "a" * (500 - len(_PAD))}, None),
    ({"template": _PAD + "a" * (501 - len(_PAD))}, "repro.template"),
    ({"template": _PAD + "a", "max_ngpu": 1}, None),
    ({"template": _PAD + "a", "max_ngpu": 0}, "repro.max_ngpu"),
    ({"template": _PAD + "a", "max_ngpu": 9999}, None),
    ({"template": _PAD + "a", "max_ngpu": 10000}, "repro.max_ngpu"),
])
def test_the_templates_bounds_are_checked_on_load(tmp_path, repro, refused):
    # docs/scout.md "Repro": NGPU is 1 to max_ngpu, max_ngpu 1 to 9999 (a one-GPU
    # target is a target), the template at most 500 characters; past a bound the target
    # is refused on load, naming the file and the key.
    path = minirepo.target_file(tmp_path, yaml.safe_dump({"repro": repro}))
    if refused is None:
        tmpl = load_target(str(path)).repro
        assert tmpl is not None and tmpl.max_ngpu == repro.get("max_ngpu", 64)
        return
    with pytest.raises(DataError) as info:
        load_target(str(path))
    assert info.value.key == refused and str(path) in str(info.value)
