"""``scout.py init`` (#22): a draft target written by analysis of a fixture
repository — subclasses of core classes and the methods they override, core
functions called and copied (by similarity), private imports, monkey-patches, tests
in a shared folder that import the folder and the workflow that runs them, docs —
each entry with a comment saying why; ``report`` runs on the draft unedited."""

from __future__ import annotations

import json

import yaml

from agentops.scout import draft
from agentops.scout.gitrepo import GitRepo
from scripts import scout as cli
from tests.scout import minirepo

# A function core and two sub-projects hold (the init draft finds copies of it).
MERGE = '''\
def merge(a, b):
    out = dict(a)
    for k, v in b.items():
        if k in out:
            out[k] = out[k] + v
        else:
            out[k] = v
    return out
'''


CORE = {
    "core/__init__.py": "",
    "core/trainer.py": '''\
from dataclasses import dataclass


class Trainer:
    @dataclass
    class Config:
        steps: int = 1
        lr: float = 0.1

    def __init__(self, config):
        self.config = config

    def step(self, batch):
        return batch

    def log(self, x):
        return x
''',
    "core/util.py": '''\
def build(model, *, fast=False):
    return model


def _hidden():
    return 1


''' + MERGE,
    "core/other.py": "class Unrelated:\n    pass\n",
}
SUB = {
    "sub/__init__.py": "",
    "sub/trainer.py": '''\
from dataclasses import dataclass

from core.trainer import Trainer
from core.util import _hidden, build
from core.other import Unrelated


class MyTrainer(Trainer):
    @dataclass
    class Config(Trainer.Config):
        extra: int = 0

    def step(self, batch):
        return build(batch, fast=True)


class Local:
    def step(self):
        return _hidden()


Unrelated.run = lambda self: 1
''',
    "sub/merge.py": MERGE + '''

def log(x):
    print(x)
    print(x)
    print(x)
    return x
''',
    "sub/README.md": "# Sub\n\nRun `python -m sub.trainer --steps 2`.\n",
    "tests/__init__.py": "",
    "tests/unit/test_sub_trainer.py": "from sub.trainer import MyTrainer\n\n\n"
                                      "def test_it():\n    assert MyTrainer\n",
    "tests/unit/test_core_only.py": "def test_core():\n    assert True\n",
    ".github/workflows/unit.yaml": "name: unit\non: [push]\njobs:\n  t:\n"
                                  "    runs-on: ubuntu-latest\n    steps:\n"
                                  "      - run: pytest tests/unit -v\n",
    ".github/workflows/lint.yaml": "name: lint\non: [push]\njobs:\n  l:\n"
                                  "    runs-on: ubuntu-latest\n    steps:\n"
                                  "      - run: ruff check .\n",
}


def _draft(tmp_path) -> tuple[draft.Draft, str]:
    inp = minirepo.build(tmp_path, base=CORE, head=SUB)
    tree = inp.head
    d = draft.build(tree, "sub", repo="o/r")
    return d, draft.to_yaml(d)


def test_the_draft_lists_what_the_folder_builds_on_each_with_why(tmp_path) -> None:
    _d, text = _draft(tmp_path)
    doc = yaml.safe_load(text)
    classes = [c["name"] for c in doc["fragile_surfaces"]["classes"]]
    assert classes == ["Trainer", "Trainer.Config"]  # not Unrelated: only patched
    functions = [f["name"] for f in doc["fragile_surfaces"]["functions"]]
    assert functions == ["Trainer.step", "_hidden", "build"]  # overridden, then called
    assert "Trainer.log" not in functions  # a same-named method of another class
    assert doc["fragile_surfaces"]["monkey_patches"] == [
        {"name": "Unrelated.run", "file": "core/other.py"}]
    assert doc["private_api"]["private_import_roots"] == ["core"]
    assert doc["config_drift"]["subclasses"] == [
        {"base": {"name": "Trainer.Config", "file": "core/trainer.py"},
         "subclass": {"name": "MyTrainer.Config", "file": "sub/trainer.py"}}]
    # Copied by similarity: merge (same body); log shares a name, not a body.
    assert doc["duplicate_logic"] == [{"ours": ["sub/merge.py"], "upstream": ["core/util.py"],
                                       "why": "copies merge (100%)"}]
    # Tests in the shared folder that import it; the workflow that runs them (not lint).
    assert doc["tests_dir"] == "tests/unit" and doc["test_glob"] == "test_sub_trainer*.py"
    assert doc["workflows"] == [".github/workflows/unit.yaml"]
    assert doc["docs"] == ["sub/README.md"]
    assert doc["doc_config_roots"] == [{"name": "MyTrainer.Config", "file": "sub/trainer.py"}]
    # Three modules of core/ imported: the folder is watched.
    assert doc["watched_paths"] == ["core/"]
    # Every entry is preceded by a comment saying why.
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.lstrip().startswith("- "):
            assert lines[i - 1].lstrip().startswith("#"), line
    assert "# subclassed by MyTrainer at sub/trainer.py:8; overrides step" in text
    assert "# overridden by MyTrainer.step at sub/trainer.py:13" in text


def test_report_runs_on_the_draft_unedited(tmp_path, capsys) -> None:
    inp = minirepo.build(tmp_path, base=CORE, head=SUB)
    checkout = str(tmp_path / "repo")
    assert GitRepo(checkout).head() == inp.head.commit
    out = tmp_path / "draft.yaml"
    assert cli.main(["init", "--subproject", "sub/", "--checkout", checkout, "--repo", "o/r",
                     "--out", str(out)]) == 0
    capsys.readouterr()
    assert cli.main(["--config", str(out), "report", "--checkout", checkout, "--offline",
                     "--torch", "none", "--date", "2026-03-06", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["target"] == "r-sub"
    assert "tests/unit/test_sub_trainer.py" in [c["file"] for c in doc["tests_in_ci"]]
    assert doc["tests_missing_from_ci"] == []


def test_init_refuses_a_folder_that_is_not_there(tmp_path, capsys) -> None:
    minirepo.build(tmp_path, base=CORE, head=SUB)
    code = cli.main(["init", "--subproject", "nope", "--checkout", str(tmp_path / "repo"),
                     "--repo", "o/r"])
    assert code != 0
    assert "--subproject" in capsys.readouterr().err


def test_a_folder_without_tests_or_workflows_still_drafts_a_runnable_target(
        tmp_path, capsys) -> None:
    """No test imports the folder and no workflow runs Python: the draft says so in
    notes, still loads, and report runs on it (CI "not checked", never an all-clear)."""
    head = {"lonely/__init__.py": "", "lonely/m.py": "from core.util import build\n\n\n"
            "def go(m):\n    return build(m)\n"}
    minirepo.build(tmp_path, base={"core/__init__.py": "", "core/util.py": CORE["core/util.py"]},
                   head=head)
    checkout = str(tmp_path / "repo")
    out = tmp_path / "draft.yaml"
    assert cli.main(["init", "--subproject", "lonely", "--checkout", checkout, "--repo",
                     "o/r", "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "# NOTE: no test file imports lonely" in text
    assert "# NOTE: no workflow runs the folder's tests" in text
    capsys.readouterr()
    assert cli.main(["--config", str(out), "report", "--checkout", checkout, "--offline",
                     "--torch", "none", "--date", "2026-03-06", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert not [i for i in doc["items"] if i["kind"] == "all_clear"
                and i["title"].startswith("Tests in CI: every")]


def test_tests_importing_the_folder_from_unrelated_trees_give_one_tests_dir(tmp_path) -> None:
    """(#22) Core's tests/unit and another shared test tree both import the folder:
    their common path is the repository root, which is no tests_dir; the draft keeps
    the folder holding most of them and still loads. (A test under another
    sub-project's folder is never the folder's: tests/scout/test_scout_ci_owner.py.)"""
    head = {**SUB,
            "tests/unit/test_a.py": "import sub.mod\n\n\ndef test_a():\n    assert sub\n",
            "tests/unit/test_b.py": "import sub.mod\n\n\ndef test_b():\n    assert sub\n",
            "integration_tests/test_c.py": "import sub.mod\n\n\ndef test_c():\n"
                                           "    assert 1\n"}
    head = {k: v for k, v in head.items() if not k.startswith("sub/tests/")}
    inp = minirepo.build(tmp_path, base=CORE, head=head)
    d = draft.build(inp.head, "sub", repo="o/r")
    assert d.tests_dir.value == "tests/unit"
    assert "3 test file(s)" in d.tests_dir.why
    assert any("1 more test file(s) outside tests/unit" in n for n in d.notes)
    doc = yaml.safe_load(draft.to_yaml(d))
    assert doc["tests_dir"] == "tests/unit"


def test_no_workflow_naming_the_folder_drafts_only_the_broadest_pytest_one(tmp_path) -> None:
    """(#22) Listing every pytest workflow would pull other folders' CI problems into the
    report; the broadest one is enough to say the folder's tests run nowhere."""
    def wf(cmd: str) -> str:
        return ("name: w\non: [push]\njobs:\n  t:\n    runs-on: ubuntu-latest\n"
                f"    steps:\n      - run: {cmd}\n")

    head = {"lonely/__init__.py": "", "lonely/m.py": "from core.util import build\n\n\n"
            "def go(m):\n    return build(m)\n",
            "other/tests/test_x.py": "def test_x():\n    assert True\n",
            ".github/workflows/narrow.yaml": wf("pytest other/tests/test_x.py -v"),
            ".github/workflows/broad.yaml": wf("pytest other -v")}
    inp = minirepo.build(tmp_path, base={"core/__init__.py": "",
                                         "core/util.py": CORE["core/util.py"]}, head=head)
    d = draft.build(inp.head, "lonely", repo="o/r")
    assert [e.value for e in d.workflows] == [".github/workflows/broad.yaml"]
    assert "no workflow runs the folder's tests" in d.notes


def test_a_parent_guide_linking_the_folder_is_among_its_docs(tmp_path) -> None:
    """#22: a model folder with no README of its own is described by the models guide
    one folder up ("refer to the [Llama folder](llama) as an example"); the draft lists
    that guide, with why. A parent doc that does not link the folder (`deep`, which
nothing links) is not listed."""
    head = {"pkg/__init__.py": "", "pkg/models/__init__.py": "",
            "pkg/models/llama/__init__.py": "", "pkg/models/llama/model.py": "X = 1\n",
            "pkg/models/qwen/__init__.py": "", "pkg/models/deep/__init__.py": "",
            "pkg/models/README.md": "# Adding a model\n\nRefer to the [Llama folder](llama) "
                                    "as an example.\n",
            "pkg/models/NOTES.md": "Links [elsewhere](qwen) and [docs](/docs/x.md).\n"}
    inp = minirepo.build(tmp_path, head=head)
    doc = yaml.safe_load(draft.to_yaml(draft.build(inp.head, "pkg/models/llama", repo="o/r")))
    assert doc["docs"] == ["pkg/models/README.md"]
    doc = yaml.safe_load(draft.to_yaml(draft.build(inp.head, "pkg/models/qwen", repo="o/r")))
    assert doc["docs"] == ["pkg/models/NOTES.md"]
    doc = yaml.safe_load(draft.to_yaml(draft.build(inp.head, "pkg/models/deep", repo="o/r")))
    assert not doc.get("docs")



def test_a_copy_in_code_built_on_the_folder_is_not_its_upstream(tmp_path) -> None:
    """#22 precision: an experiment that imports the folder (its registry does) and
    keeps its own copy of one of the folder's functions is downstream: the draft never
    names that copy as the folder's upstream; a copy in core still is."""
    files = {"pkg/__init__.py": "", "pkg/models/__init__.py": "",
             "pkg/models/a/__init__.py": "", "pkg/models/a/merge.py": MERGE,
             "pkg/exp/b/__init__.py": "",
             "pkg/exp/b/registry.py": "from pkg.models.a import merge as m\n",
             "pkg/exp/b/parts/par.py": MERGE.replace("out = dict(a)", "out = dict(a)  # b")}
    inp = minirepo.build(tmp_path / "a", head=files)
    d = yaml.safe_load(draft.to_yaml(draft.build(inp.head, "pkg/models/a", repo="o/r")))
    assert not d.get("duplicate_logic")
    # No match: the same copy with nothing in its folders importing the folder (here a
    # core helper the folder copied) is drafted as the upstream.
    files["pkg/exp/b/registry.py"] = "from pkg.models import other\n"
    inp = minirepo.build(tmp_path / "b", head=files)
    d = yaml.safe_load(draft.to_yaml(draft.build(inp.head, "pkg/models/a", repo="o/r")))
    assert d["duplicate_logic"] == [{"ours": ["pkg/models/a/merge.py"],
                                     "upstream": ["pkg/exp/b/parts/par.py"],
                                     "why": "copies merge (100%)"}]


def test_init_on_a_folder_that_is_no_checkout_names_the_checkout(tmp_path, capsys) -> None:
    """A plain folder has no origin either: the message is about --checkout, the
    input to fix, not about the --repo a checkout's remote would have given."""
    (tmp_path / "plain").mkdir()
    code = cli.main(["init", "--subproject", "sub", "--checkout", str(tmp_path / "plain")])
    err = capsys.readouterr().err
    assert code == 1
    assert "--checkout:" in err and "is not a git checkout" in err and "Fix:" in err
    assert "--repo" not in err


def test_init_repo_of_the_wrong_form_is_a_bad_command_line(tmp_path, capsys) -> None:
    """`--repo pytorch` is exit 2 as on every other verb (one OWNER/NAME rule)."""
    minirepo.build(tmp_path, base=CORE, head=SUB)
    code = cli.main(["init", "--subproject", "sub", "--checkout", str(tmp_path / "repo"),
                     "--repo", "pytorch"])
    assert code == 2
    assert "expected OWNER/NAME" in capsys.readouterr().err


def test_init_checks_a_name_read_from_origin_with_the_same_rule(tmp_path, capsys) -> None:
    import subprocess

    minirepo.build(tmp_path, base=CORE, head=SUB)
    checkout = tmp_path / "repo"
    subprocess.run(["git", "-C", str(checkout), "remote", "add", "origin",
                    "https://github.com/-bad-/r.git"], check=True)
    code = cli.main(["init", "--subproject", "sub", "--checkout", str(checkout)])
    err = capsys.readouterr().err
    assert code == 1
    assert "--repo: the checkout's origin: expected OWNER/NAME" in err
    assert "Fix: pass --repo OWNER/NAME" in err
