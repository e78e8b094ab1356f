"""#22 defect 7, S-5: how a doc's file names resolve. A link's label is shown, its
target is the reference (resolved from the doc's folder); a bare file name (no folder)
resolves anywhere beneath the doc's folder or the sub-project, or at the top of a
package; a folder layout's bullets are files a folder should have, judged by the
layout check against its example (nested as the layout nests them, optional bullets
left alone), never as paths that "do not exist". Each case with its no-match: a name
that resolves nowhere is still reported."""

from __future__ import annotations

from agentops.scout.analyses import docparts, docs
from tests.scout import minirepo

PKG = {"pkg/__init__.py": "", "pkg/train.py": "", "scripts/run.py": "",
       "sub/__init__.py": "", "sub/m.py": ""}


def _problems(tmp_path, files: dict[str, str], doc: str) -> list[tuple[int, str]]:
    inp = minirepo.build(tmp_path, head={**PKG, **files}, target=f"docs: [{doc}]")
    return [(p.line, p.problem) for p in docs.references(inp)]


def test_a_link_label_is_not_a_second_path(tmp_path) -> None:
    # The label `run.py` of a link to ../../scripts/run.py is no file of its own; the
    # link target is checked, and a link to a file that is gone is still reported.
    text = ("Reuse [`run.py`](../../scripts/run.py) as it is.\n"
            "See [`gone.py`](../../scripts/gone.py).\n"
            "Or call `run.py` directly.\n"
            "Start [the `run.py` script](../../scripts/run.py).\n")
    assert _problems(tmp_path, {"pkg/experiments/README.md": text},
                     "pkg/experiments/README.md") == [
        (2, "path ../../scripts/gone.py does not exist"),
        (3, "path run.py does not exist")]


def test_a_bare_name_resolves_beneath_the_doc_or_at_a_package_top(tmp_path) -> None:
    # A shared guide one level above the model folders: `args.py` is a model folder's
    # (nested in model/), `train.py` is the package's; `nothere.py` is nowhere.
    text = "Write `args.py` next to the model.\nReuse `train.py`.\nSee `nothere.py`.\n"
    files = {"pkg/models/README.md": text, "pkg/models/a/model/args.py": ""}
    assert _problems(tmp_path, files, "pkg/models/README.md") == [
        (3, "path nothere.py does not exist")]
    # The same name in a doc beside no such file is reported.
    assert _problems(tmp_path / "b", {"pkg/other/README.md": text},
                     "pkg/other/README.md") == [
        (1, "path args.py does not exist"), (3, "path nothere.py does not exist")]


GUIDE = """\
# Adding a model

Please refer to the [Example folder](ex) as an example.

The folder should be organized as follows
- `model` folder: a self-contained folder of the model
  - `args.py`
    - implement `update_from_config()`
  - `model.py`
- `infra` folder: parallelisms
  - `parallelize.py`
  - `pipeline.py` (optional if model size is small)
- `__init__.py`
- `README.md`
- `job_config.py` (if necessary)
- `train.py` (only if absolutely necessary)

## Testing
"""
NESTED = {"pkg/models/GUIDE.md": GUIDE, "pkg/models/ex/__init__.py": "",
          "pkg/models/ex/model/args.py": "", "pkg/models/ex/model/model.py": "",
          "pkg/models/ex/infra/parallelize.py": "", "pkg/models/ex/README.md": ""}


def _layout(tmp_path, files: dict[str, str | None]) -> list[tuple[int, str]]:
    head = {**PKG, **NESTED, **files}
    inp = minirepo.build(tmp_path, head={k: v for k, v in head.items() if v is not None},
                         target="docs: [pkg/models/GUIDE.md]")
    return [(p.line, p.problem) for p in docparts.analyse(inp)]


def test_layout_files_sit_in_the_folders_the_layout_nests_them_in(tmp_path) -> None:
    # Every listed file is where the layout nests it: nothing, and the optional
    # pipeline.py / job_config.py / train.py are not claimed.
    assert _layout(tmp_path, {}) == []
    # A non-optional top-level file the example lacks is still reported.
    assert _layout(tmp_path / "b", {"pkg/models/ex/README.md": None}) == [
        (14, "the folder layout lists `README.md`, but the example folder it points to "
             "(`pkg/models/ex/`, line 3) has no README.md")]


def test_layout_folder_the_example_flattened(tmp_path) -> None:
    # The example keeps its files at the top: the `infra` folder the layout lists is
    # gone, said once with where its file sits now.
    got = _layout(tmp_path, {"pkg/models/ex/infra/parallelize.py": None,
                             "pkg/models/ex/parallelize.py": ""})
    assert got == [(10, "the folder layout lists a `infra/` folder, but the example folder "
                        "it points to (`pkg/models/ex/`, line 3) has no infra/ "
                        "(parallelize.py sits at parallelize.py)")]
    # A nested file missing from a folder that exists is named with its folder.
    got = _layout(tmp_path / "b", {"pkg/models/ex/model/args.py": None})
    assert got == [(7, "the folder layout lists `model/args.py`, but the example folder it "
                       "points to (`pkg/models/ex/`, line 3) has no model/args.py")]


def test_layout_bullets_are_no_paths_for_the_reference_check(tmp_path) -> None:
    # pipeline.py (optional) exists nowhere below the guide: the layout's bullet is a
    # file to write, not a stale path; the same name in prose is a path and reported.
    assert _problems(tmp_path, NESTED, "pkg/models/GUIDE.md") == []
    prose = GUIDE.replace("## Testing\n", "## Testing\nRun `pipeline.py` first.\n")
    assert _problems(tmp_path / "b", {**NESTED, "pkg/models/GUIDE.md": prose},
                     "pkg/models/GUIDE.md") == [(19, "path pipeline.py does not exist")]


def test_an_optional_layout_file_no_folder_has_is_said_once(tmp_path) -> None:
    """An optional file the layout offers that neither the example nor any folder
    beside it has (every model pipelines through shared code) is said, optional as it
    is; one a sibling folder has is a real option and not claimed."""
    other = {"pkg/models/other/__init__.py": "", "pkg/models/other/job_config.py": "",
             "pkg/models/other/train.py": ""}
    assert _layout(tmp_path, other) == [
        (12, "the folder layout lists `infra/pipeline.py` (optional), but neither the "
             "example folder (`pkg/models/ex/`) nor any of the 1 folder beside it under "
             "`pkg/models/` has one")]
    assert _layout(tmp_path / "b", {**other, "pkg/models/other/pipeline.py": ""}) == []
