"""The nightly-bisect CLI against a real HTTP server on loopback: a simple index (HTML
and JSON), wheels built here with zipfile, Range on and off, injected faults, and the
bytes the server sent per wheel."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentops.errors import ExitStatus
from scripts.nightly_bisect import main
from tests.bisect.server import Fault, State, build_wheel, fake_sha, nightly_versions, serve

KIB = 1024
PLAT = "manylinux_2_28_x86_64"


@pytest.fixture(autouse=True)
def _fast_http(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTOPS_HTTP_BACKOFF", "0.01")
    monkeypatch.setenv("AGENTOPS_HTTP_ATTEMPTS", "3")
    monkeypatch.setenv("AGENTOPS_HTTP_TIMEOUT", "5")


class Index:
    def __init__(self, url: str, state: State, versions: list[str]) -> None:
        self.url, self.state, self.versions = url, state, versions

    def run(self, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main([argv[0], "--index-url", self.url, "--python", "3.12", *argv[1:]])
        out, err = capsys.readouterr()
        return code, out, err


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Index]:
    versions = nightly_versions(12, skip=frozenset({4}))  # one day without a nightly
    state = State(root=tmp_path)
    for i, v in enumerate(versions):
        for py in ("cp311", "cp312"):
            state.add("torch", build_wheel(tmp_path, v, python=py, members=50, seed=i))
    state.add("torch", build_wheel(tmp_path, versions[0], python="cp312",
                                   platform="manylinux_2_28_aarch64"))
    with serve(state) as url:
        yield Index(url, state, versions)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 40 MiB stored, incompressible member plus 6000 small ones: a full download
    would be obvious in the byte count."""
    d = tmp_path_factory.mktemp("big")
    for order in ("walk", "lex", "zip", "random"):
        sub = d / order
        sub.mkdir()
        build_wheel(sub, "2.10.0.dev20260601+cu126", cuda="12.6", members=6000,
                    big_member_bytes=40 << 20, order=order)
    return d


def _serve_one(root: Path) -> tuple[State, str]:
    state = State(root=root)
    for wheel in sorted(root.glob("*.whl")):
        state.add("torch", wheel)
    return state, wheel.name


# --- versions ---------------------------------------------------------------------------

@pytest.mark.parametrize("formats", [("json", "html"), ("html",)])
@pytest.mark.parametrize("hrefs", ["absolute", "full", "relative"])
def test_versions_from_html_or_json(index: Index, capsys: pytest.CaptureFixture[str],
                                    formats: tuple[str, ...], hrefs: str) -> None:
    index.state.formats, index.state.href_style = formats, hrefs
    code, out, _ = index.run(capsys, "versions", "--json")
    assert code == 0
    got = json.loads(out)
    assert [g["version"] for g in got] == index.versions  # sorted, day 5 missing
    assert all(g["tag"] == f"cp312-cp312-{PLAT}" for g in got)
    assert got[0]["wheel_url"].endswith(
        "/files/torch-2.10.0.dev20260501%2Bcpu-cp312-cp312-manylinux_2_28_x86_64.whl")
    assert index.state.log[0][1] == "/simple/torch/"


def test_versions_since_until_and_text_output(index: Index,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = index.run(capsys, "versions", "--since", "20260503", "--until",
                               "20260507")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == [
        "2.10.0.dev20260503+cpu", "2.10.0.dev20260504+cpu", "2.10.0.dev20260506+cpu",
        "2.10.0.dev20260507+cpu"]
    assert "newest 60" in err


def test_no_wheel_for_the_tag(index: Index, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = index.run(capsys, "versions", "--platform", "win_amd64")
    assert code == ExitStatus.INPUT and out == ""
    assert "lists no torch wheel for cp312 on win_amd64" in err
    assert "cp312/manylinux_2_28_aarch64" in err  # says what there is


# --- resolve ------------------------------------------------------------------------------

def test_resolve_small_wheel(index: Index, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = index.run(capsys, "resolve", "--version", "dev20260503")
    assert code == 0
    got = json.loads(out)
    v = "2.10.0.dev20260503+cpu"
    assert got["version"] == v and got["git_version"] == fake_sha(v)
    assert got["full_download"] is False and "cuda" not in got
    name = Path(got["wheel_url"]).name.replace("%2B", "+")
    assert got["bytes_fetched"] == index.state.bytes_for(name)
    # the tail read covers a small wheel entirely: one request, nothing more
    assert got["requests"] == 1
    assert got["bytes_fetched"] == (index.state.root / name).stat().st_size


@pytest.mark.parametrize("order", ["walk", "lex", "zip"])
def test_resolve_big_wheel_reads_at_most_256_kib(big: Path, order: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    state, name = _serve_one(big / order)
    size = (big / order / name).stat().st_size
    with serve(state) as url:
        code = main(["resolve", "--index-url", url, "--python", "3.12",
                     "--version", "2.10.0.dev20260601"])
    out = capsys.readouterr().out
    assert code == 0
    got = json.loads(out)
    assert got["git_version"] == fake_sha("2.10.0.dev20260601+cu126")
    assert got["cuda"] == "12.6" and got["full_download"] is False
    assert size > 40 << 20
    assert got["bytes_fetched"] == state.bytes_for(name) <= 256 * KIB
    assert got["strategy"] == ("subtrees" if order == "zip" else "search")


def test_resolve_big_wheel_in_arbitrary_order_reads_the_directory_only(
        big: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state, name = _serve_one(big / "random")
    size = (big / "random" / name).stat().st_size
    with serve(state) as url:
        code = main(["resolve", "--index-url", url, "--python", "3.12",
                     "--version", "dev20260601"])
    got = json.loads(capsys.readouterr().out)
    assert code == 0 and got["git_version"] == fake_sha("2.10.0.dev20260601+cu126")
    # No order to search by: the central directory is read, the 40 MiB member is not.
    assert got["bytes_fetched"] == state.bytes_for(name) < 2 << 20 < size // 20
    assert got["strategy"] in ("scan", "tail")


def test_resolve_zip64(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wheel = build_wheel(tmp_path, "2.10.0.dev20260601+cpu", members=3000, zip64=True)
    with open(wheel, "rb") as fh:  # Sanity: the fixture really has zip64 end records
        fh.seek(-(22 + 20), 2)
        assert fh.read(4) == b"PK\x06\x07"
    state, _ = _serve_one(tmp_path)
    with serve(state) as url:
        code = main(["resolve", "--index-url", url, "--python", "3.12",
                     "--version", "dev20260601"])
    got = json.loads(capsys.readouterr().out)
    assert code == 0 and got["git_version"] == fake_sha("2.10.0.dev20260601+cpu")
    assert got["bytes_fetched"] < wheel.stat().st_size


def test_archive_comment_pushing_the_end_record_out_of_the_tail(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import zipfile
    wheel = build_wheel(tmp_path, "2.10.0.dev20260601+cpu", members=500)
    with zipfile.ZipFile(wheel, "a") as zf:
        zf.comment = b"c" * 40000
    state, _ = _serve_one(tmp_path)
    with serve(state) as url:
        code = main(["resolve", "--index-url", url, "--python", "3.12",
                     "--version", "dev20260601"])
    got = json.loads(capsys.readouterr().out)
    assert code == 0 and got["git_version"] == fake_sha("2.10.0.dev20260601+cpu")
    from agentops.bisect import wheels
    assert [r for _, _, r, _ in state.log if r][:2] == [
        f"bytes=-{wheels.TAIL_BYTES}", f"bytes=-{wheels.EOCD_MAX_BYTES}"]


def test_server_without_range_means_a_full_download_said_out_loud(
        big: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state, name = _serve_one(big / "walk")
    state.range_enabled = False
    with serve(state) as url:
        code = main(["resolve", "--index-url", url, "--python", "3.12",
                     "--version", "dev20260601"])
    out, err = capsys.readouterr()
    assert code == 0
    got = json.loads(out)
    size = (big / "walk" / name).stat().st_size
    assert got["full_download"] is True and got["git_version"]
    assert got["bytes_fetched"] == size == state.bytes_for(name)
    assert "ignored the Range header" in err and "full download" in err


def test_wheel_without_version_py(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_wheel(tmp_path, "2.10.0.dev20260601+cpu", members=3000, with_version_py=False)
    state, _ = _serve_one(tmp_path)
    with serve(state) as url:
        code = main(["resolve", "--index-url", url, "--python", "3.12",
                     "--version", "dev20260601"])
    out, err = capsys.readouterr()
    assert code == ExitStatus.INPUT and out == ""
    assert "torch/version.py: not in the wheel (3005 members)" in err


def test_version_not_on_the_index_and_gone(index: Index,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = index.run(capsys, "resolve", "--version", "dev20260505")
    assert code == ExitStatus.INPUT and out == "" and "is not on the index" in err
    code, out, err = index.run(capsys, "resolve", "--version", "dev20260301")
    assert code == ExitStatus.INPUT and "gone from the index" in err


# --- faults ---------------------------------------------------------------------------------

def test_404_is_a_clear_api_error(index: Index, capsys: pytest.CaptureFixture[str]) -> None:
    index.state.inject(r"\.whl$", Fault(status=404))
    code, out, err = index.run(capsys, "resolve", "--version", "dev20260503")
    assert code == ExitStatus.API and out == ""
    assert "wheel range" in err and "HTTP 404" in err
    code, out, err = index.run(capsys, "versions", "--package", "nosuch")
    assert code == ExitStatus.API and "/simple/nosuch/: HTTP 404" in err


def test_503_then_success_is_retried(index: Index, capsys: pytest.CaptureFixture[str]) -> None:
    index.state.inject(r"/simple/", Fault(status=503))
    index.state.inject(r"\.whl$", Fault(status=502), Fault(status=503))
    code, out, err = index.run(capsys, "resolve", "--version", "dev20260503")
    assert code == 0 and json.loads(out)["git_version"]
    statuses = [s for _, _, _, s in index.state.log]
    assert statuses[:2] == [503, 0] and statuses[2:] == [502, 503, 0]
    assert err.count("retry ") == 3


def test_5xx_forever_gives_up(index: Index, capsys: pytest.CaptureFixture[str]) -> None:
    index.state.inject(r"/simple/", *[Fault(status=500)] * 5)
    code, out, err = index.run(capsys, "versions")
    assert code == ExitStatus.API and out == ""
    assert "failed after 3 attempt(s): HTTP 500" in err


def test_timeout_then_success(index: Index, capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTOPS_HTTP_TIMEOUT", "0.3")
    index.state.inject(r"\.whl$", Fault(delay=1.0))
    code, out, err = index.run(capsys, "resolve", "--version", "dev20260503")
    assert code == 0 and json.loads(out)["git_version"]
    assert "timed out" in err


def test_timeout_forever(index: Index, capsys: pytest.CaptureFixture[str],
                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTOPS_HTTP_TIMEOUT", "0.2")
    monkeypatch.setenv("AGENTOPS_HTTP_ATTEMPTS", "2")
    index.state.inject(r"/simple/", Fault(delay=0.6), Fault(delay=0.6))
    code, out, err = index.run(capsys, "versions")
    assert code == ExitStatus.API and out == "" and "timed out" in err


# --- range, plan, narrow ------------------------------------------------------------------------

def test_range_table_and_compare_link(index: Index, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = index.run(capsys, "range", "--good", "dev20260502", "--bad",
                             "2.10.0.dev20260503", "--json", "--repo", "org/fork")
    assert code == 0
    got = json.loads(out)
    g, b = fake_sha("2.10.0.dev20260502+cpu"), fake_sha("2.10.0.dev20260503+cpu")
    assert got["compare_url"] == f"https://github.com/org/fork/compare/{g}...{b}"
    assert [r["status"] for r in got["rows"]] == ["good", "bad"]
    assert "| Nightly | Status | PyTorch Commit |" in got["markdown"]


def test_plan_matrix_and_atomic_out(index: Index, capsys: pytest.CaptureFixture[str],
                                    tmp_path: Path) -> None:
    out_file = tmp_path / "m" / "matrix.json"
    code, out, err = index.run(capsys, "plan", "--good", "dev20260501", "--bad",
                               "dev20260512", "--width", "3", "--out", str(out_file))
    assert code == 0
    matrix = json.loads(out)
    # 11 nightlies listed from 05-01 to 05-12 (05-05 missing): 10 steps, probes at
    # positions 2, 5, 7 (no probe falls on the missing day: positions, not dates)
    assert [m["version"] for m in matrix["include"]] == [
        "2.10.0.dev20260503+cpu", "2.10.0.dev20260507+cpu", "2.10.0.dev20260509+cpu"]
    assert matrix["include"][0]["slug"] == "2-10-0-dev20260503-cpu"
    assert json.loads(out_file.read_text()) == matrix
    assert "2 round(s) at width 3" in err
    bad_out = tmp_path / "n" / "matrix.json"
    code, out, err = index.run(capsys, "plan", "--good", "dev20260512", "--bad",
                               "dev20260501", "--out", str(bad_out))
    assert code == ExitStatus.INPUT and out == "" and not bad_out.exists()
    assert "newer than the bad" in err


def _write_results(d: Path, **statuses: str) -> None:
    d.mkdir(parents=True, exist_ok=True)
    for day, status in statuses.items():
        v = f"2.10.0.dev202605{day[1:]}+cpu"
        sub = d / f"bisect-result-{day}"  # as download-artifact lays them out
        sub.mkdir(exist_ok=True)
        (sub / "r.json").write_text(json.dumps({"version": v, "status": status,
                                                "log_tail": f"log of {v}"}))


def test_narrow_rounds_to_the_final_range(index: Index, capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    results = tmp_path / "results"
    pair = ["--good", "dev20260501", "--bad", "dev20260512", "--width", "3"]
    _write_results(results, d03="pass", d07="pass", d09="fail")
    code, out, _ = index.run(capsys, "narrow", *pair, "--results", str(results), "--json")
    got = json.loads(out)
    assert code == 0 and got["done"] is False
    assert (got["good"], got["bad"]) == ("2.10.0.dev20260507+cpu", "2.10.0.dev20260509+cpu")
    assert [m["version"] for m in got["matrix"]["include"]] == ["2.10.0.dev20260508+cpu"]
    assert got["rounds_left"] == 1
    # round two: results accumulate; the original pair is passed again
    _write_results(results, d08="fail")
    outputs = tmp_path / "github_output"
    outputs.write_text("")
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    code, out, _ = index.run(capsys, "narrow", *pair, "--results", str(results))
    assert code == 0
    assert out.startswith("good: 2.10.0.dev20260507+cpu\nbad:  2.10.0.dev20260508+cpu\n")
    g, b = fake_sha("2.10.0.dev20260507+cpu"), fake_sha("2.10.0.dev20260508+cpu")
    assert f"compare/{g}...{b}" in out
    written = outputs.read_text()
    assert "done\n" not in written  # multi-line-safe form: name<<delimiter
    assert "2.10.0.dev20260508+cpu" in written and "true" in written
    assert "| Nightly | Status | PyTorch Commit |" in written


def test_narrow_reports_contradictions(index: Index, capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    results = tmp_path / "results"
    _write_results(results, d03="fail", d07="pass", d09="fail")
    code, out, err = index.run(capsys, "narrow", "--good", "dev20260501", "--bad",
                               "dev20260512", "--width", "3", "--results", str(results),
                               "--json")
    got = json.loads(out)
    assert code == 0
    assert got["bad"] == "2.10.0.dev20260503+cpu"
    assert got["contradictions"] == [
        "2.10.0.dev20260507+cpu passed after 2.10.0.dev20260503+cpu failed (flaky repro, "
        "or the regression was fixed and came back); narrowing to the first failure"]
    assert "contradictory probe results" in err or "passed after" in err


def test_narrow_rejects_a_malformed_result_and_prints_nothing(
        index: Index, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    results = tmp_path / "results"
    _write_results(results, d03="pass")
    (results / "broken.json").write_text('{"version": "x", "status": "maybe"}')
    code, out, err = index.run(capsys, "narrow", "--good", "dev20260501", "--bad",
                               "dev20260512", "--results", str(results))
    assert code == ExitStatus.INPUT and out == ""
    assert "broken.json: status: expected one of pass, fail, skip" in err


# --- probe (a real pip install from the loopback index) ------------------------------------

def test_probe_installs_the_nightly_and_records_a_failure(
        index: Index, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    if py not in ("3.11", "3.12"):
        pytest.skip("the fixture index has cp311/cp312 wheels only")
    repro = ('python -c "import torch, os, sys; print(torch.__version__, '
             'os.environ[\'AGENTOPS_NIGHTLY_VERSION\']); sys.exit(3)"')
    monkeypatch.setenv("AGENTOPS_REPRO_COMMAND", repro)
    capsys.readouterr()
    code = main(["probe", "--index-url", index.url, "--python", py, "--version",
                 "dev20260506", "--results", str(tmp_path / "res"), "--venv",
                 str(tmp_path / "v")])
    out = capsys.readouterr().out
    assert code == 0
    result = json.loads((tmp_path / "res" / "2-10-0-dev20260506-cpu.json").read_text())
    assert result == json.loads(out)
    v = "2.10.0.dev20260506+cpu"
    assert result["status"] == "fail" and result["exit_code"] == 3
    assert result["log_tail"].strip() == f"{v} {v}"
    assert result["git_version"] == fake_sha(v)


def test_range_from_ci_logs(index: Index, capsys: pytest.CaptureFixture[str],
                            tmp_path: Path) -> None:
    good_log, bad_log = tmp_path / "good.log", tmp_path / "bad.log"
    good_log.write_text("Successfully installed sympy-1.14.0 torch-2.10.0.dev20260506+cpu\n")
    bad_log.write_text("Successfully installed torch-2.10.0.dev20260507+cpu\nFAILED t.py\n")
    code, out, _ = index.run(capsys, "range", "--good-log", str(good_log), "--bad-log",
                             str(bad_log), "--json")
    got = json.loads(out)
    assert code == 0
    assert (got["good"]["version"], got["bad"]["version"]) == ("2.10.0.dev20260506+cpu",
                                                               "2.10.0.dev20260507+cpu")
    bad_log.write_text("pip failed\n")
    code, out, err = index.run(capsys, "range", "--good-log", str(good_log), "--bad-log",
                               str(bad_log))
    assert code == ExitStatus.INPUT and out == "" and "--bad-log" in err


def test_auto_takes_everything_from_action_env(index: Index, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"INDEX_URL": index.url, "PYTHON": "3.12", "GOOD": "dev20260501",
                        "BAD": "dev20260512", "WIDTH": "3"}.items():
        monkeypatch.setenv(f"AGENTOPS_{name}", value)
    capsys.readouterr()
    assert main(["auto"]) == 0  # no version, no results: plan
    assert len(json.loads(capsys.readouterr().out)["include"]) == 3
    results = tmp_path / "results"
    _write_results(results, d03="pass", d07="fail", d09="fail")
    monkeypatch.setenv("AGENTOPS_RESULTS_DIR", str(results))
    assert main(["auto", "--json"]) == 0  # results: narrow
    got = json.loads(capsys.readouterr().out)
    assert (got["good"], got["bad"]) == ("2.10.0.dev20260503+cpu", "2.10.0.dev20260507+cpu")
    # The action's `command` input is the verb itself (issue #13): no AGENTOPS_STEP.
    assert main(["range"]) == 0
    assert "compare/" in capsys.readouterr().out
    monkeypatch.setenv("AGENTOPS_VERSION", "dev20260506")
    assert main(["auto", "--out", str(tmp_path / "m.json")]) == ExitStatus.USAGE
    assert "--out: does not apply to auto's probe and narrow" in capsys.readouterr().err


def test_both_sources_degrade_to_the_wheel_when_the_api_is_down(
        index: Index, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("AGENTOPS_RETRY_ATTEMPTS", "1")
    code, out, err = index.run(capsys, "resolve", "--version", "dev20260503",
                               "--commit-source", "both")
    assert code == 0
    assert json.loads(out)["commit"] == fake_sha("2.10.0.dev20260503+cpu")
    assert "commit cross-check skipped" in err or "nightly branch not read" in err
    code, out, err = index.run(capsys, "resolve", "--version", "dev20260503",
                               "--commit-source", "branch")
    assert code == ExitStatus.API and out == ""


def test_mixed_variants_need_a_choice(index: Index, capsys: pytest.CaptureFixture[str]) -> None:
    extra = build_wheel(index.state.root, "2.10.0.dev20260503+cu126", cuda="12.6")
    index.state.add("torch", extra)
    code, out, err = index.run(capsys, "resolve", "--version", "dev20260503")
    assert code == ExitStatus.INPUT and "several build variants (cpu, cu126)" in err
    code, out, _ = index.run(capsys, "resolve", "--version", "dev20260503", "--variant", "cu126")
    got = json.loads(out)
    assert code == 0 and got["cuda"] == "12.6" and got["version"].endswith("+cu126")
    code, out, _ = index.run(capsys, "versions", "--variant", "cpu", "--json")
    assert code == 0 and len(json.loads(out)) == len(index.versions)


def test_probe_records_an_install_failure_as_skip(
        index: Index, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    if py not in ("3.11", "3.12"):
        pytest.skip("the fixture index has cp311/cp312 wheels only")
    monkeypatch.setenv("AGENTOPS_REPRO_COMMAND", "exit 0")
    index.state.inject(r"\.whl$", *[Fault(status=404)] * 10)  # pip cannot fetch it
    capsys.readouterr()
    code = main(["probe", "--index-url", index.url, "--python", py, "--version",
                 "dev20260506", "--results", str(tmp_path / "res")])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "skip" and result["exit_code"] is None
    assert "404" in result["log_tail"]
    assert json.loads((tmp_path / "res" / "2-10-0-dev20260506-cpu.json").read_text()) == result


def test_narrow_without_any_result_is_an_error(index: Index, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    for folder in (tmp_path / "empty", tmp_path / "missing"):
        code, out, err = index.run(capsys, "narrow", "--good", "dev20260501", "--bad",
                                   "dev20260512", "--results", str(folder))
        assert code == ExitStatus.INPUT and out == "" and "--results" in err


def test_versions_says_when_since_is_older_than_the_index(
        index: Index, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = index.run(capsys, "versions", "--since", "20260101")
    assert code == 0 and len(out.splitlines()) == len(index.versions)
    assert "before 2026-05-01 are gone from the index" in err
