"""The nightly-bisect CLI against hostile servers on loopback (issue #12 items 4-7):
compression bombs and a huge version.py in the wheel, endless and slow bodies, a 200
answer to a Range request, redirect loops and file:// redirects, deep, ill-typed and
huge index pages, credentials in the index URL. Each ends with a documented exit code
(never 70), a message naming what was refused, and nothing half-written. Also the
page cache and --wheel-url (#13 item 16) and the wording for an index of releases
(#13 item 14). Attacks are generated here; time and memory are measured by
benchmarks/hostile_bisect.py."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentops.errors import ExitStatus
from scripts.nightly_bisect import main
from tests.bisect import hostile
from tests.bisect.server import Fault, State, build_wheel, fake_sha, serve, wheel_name
from tests.standin.scripted import Scripted, body, drip, endless, redirect, stream

V = "2.10.0.dev20260601+cpu"
WHEEL = wheel_name(V)


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AGENTOPS_HTTP_BACKOFF", "0.01")
    monkeypatch.setenv("AGENTOPS_HTTP_ATTEMPTS", "2")
    monkeypatch.setenv("AGENTOPS_HTTP_TIMEOUT", "5")
    # A full download's temporary file must be gone, whatever happened.
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def _nothing_left(tmp_path: Path) -> None:
    assert list((tmp_path / "tmp").iterdir()) == []


def _page_for(srv: Scripted, names: list[str]) -> None:
    rows = "".join(f'<a href="/files/{n.replace("+", "%2B")}">{n}</a>\n' for n in names)
    srv.route("/simple/torch/", body(f"<html><body>{rows}</body></html>".encode(),
                                     content_type="text/html"))


def _resolve(url: str, *extra: str) -> list[str]:
    return ["resolve", "--index-url", url, "--python", "3.12", "--version", "dev20260601",
            *extra]


# --- the wheel (#12 items 4, 5) ---------------------------------------------------------------

@pytest.fixture
def index_of(tmp_path: Path) -> Iterator[callable]:
    """Serve one wheel file from a real range-capable index."""
    servers = []

    def start(wheel: Path, **state: object) -> str:
        st = State(root=wheel.parent, **state)  # type: ignore[arg-type]
        st.add("torch", wheel)
        ctx = serve(st)
        servers.append(ctx)
        return ctx.__enter__()

    yield start
    for ctx in servers:
        ctx.__exit__(None, None, None)


@pytest.mark.parametrize("method", [hostile.DEFLATED, hostile.BZIP2])
@pytest.mark.parametrize("lie", [False, True])
def test_compression_bomb_in_version_py(tmp_path: Path, index_of, capsys,
                                        method: int, lie: bool) -> None:
    d = tmp_path / "w"
    d.mkdir()
    url = index_of(hostile.bomb_wheel(d, V, method=method, size=64 << 20, lie=lie))
    code, out, err = _run(capsys, *_resolve(url))
    assert code == ExitStatus.INPUT and out == ""
    assert ("decompresses to more than 65536 bytes" if lie else
            "the member is 67108864 bytes") in err


def test_huge_version_py(tmp_path: Path, index_of, capsys) -> None:
    d = tmp_path / "w"
    d.mkdir()
    url = index_of(hostile.huge_version_wheel(d, V, size=4 << 20))
    code, _out, err = _run(capsys, *_resolve(url))
    assert code == ExitStatus.INPUT and "more than the 65536 bytes" in err


def test_a_version_py_that_exhausts_the_parser(tmp_path: Path, index_of, capsys) -> None:
    d = tmp_path / "w"
    d.mkdir()
    text = ("git_version = 'abcdef1'\nx = " + "-" * 60_000 + "1\n").encode()
    import zlib
    url = index_of(hostile.write_zip(d / WHEEL, [
        ("torch/version.py", hostile.STORED, text, zlib.crc32(text), len(text))]))
    code, _out, err = _run(capsys, *_resolve(url))
    assert code == ExitStatus.INPUT
    assert "not a version file" in err or "not valid Python" in err


def _wheel_server(script) -> Iterator[str]:  # type: ignore[no-untyped-def]
    with Scripted() as srv:
        _page_for(srv, [WHEEL])
        srv.route_prefix("/files/", script)
        yield srv.url + "/simple"


def test_endless_206_body(capsys) -> None:
    for url in _wheel_server(stream(endless, status=206,
                                    headers={"Content-Range": "bytes 0-16383/999999999"})):
        code, out, err = _run(capsys, *_resolve(url))
    assert code == ExitStatus.API and out == ""
    assert "longer than the 16.0 KiB this call reads" in err


def test_one_byte_a_second_ends_at_the_deadline(capsys, monkeypatch) -> None:
    monkeypatch.setenv("AGENTOPS_HTTP_DEADLINE", "1")
    for url in _wheel_server(drip(16384, every=0.2, headers={
            "Content-Range": "bytes 0-16383/999999"})):
        code, _out, err = _run(capsys, *_resolve(url))
    assert code == ExitStatus.API and "1 s deadline" in err
    assert "AGENTOPS_HTTP_DEADLINE" in err


def test_200_to_range_for_a_huge_file_downloads_nothing(tmp_path: Path, capsys) -> None:
    for url in _wheel_server(stream(endless, length=3 << 30)):
        code, out, err = _run(capsys, *_resolve(url))
    assert code == ExitStatus.API and out == ""
    assert "3.0 GiB, more than the 1.0 GiB a full download may take" in err
    assert "AGENTOPS_HTTP_MAX_DOWNLOAD_MB" in err
    _nothing_left(tmp_path)


def test_200_to_range_without_a_length_stops_at_the_limit(tmp_path: Path, capsys,
                                                           monkeypatch) -> None:
    monkeypatch.setenv("AGENTOPS_HTTP_MAX_DOWNLOAD_MB", "2")
    for url in _wheel_server(stream(endless)):
        code, _out, err = _run(capsys, *_resolve(url))
    assert code == ExitStatus.API and "longer than the 2.0 MiB" in err
    assert "nothing was kept" in err
    _nothing_left(tmp_path)


def test_a_full_download_within_the_limit_still_works(tmp_path: Path, index_of,
                                                      capsys) -> None:
    d = tmp_path / "w"
    d.mkdir()
    url = index_of(build_wheel(d, V, members=500), range_enabled=False)
    code, out, err = _run(capsys, *_resolve(url))
    got = json.loads(out)
    assert code == 0 and got["full_download"] is True and got["git_version"] == fake_sha(V)
    assert "full download" in err
    _nothing_left(tmp_path)


# --- the index page (#12 item 6) --------------------------------------------------------------

@pytest.mark.parametrize(("script", "said"), [
    (redirect("/simple/torch/"), "redirect loop"),
    (redirect("file:///etc/passwd"), "redirected to a file: URL"),
    (redirect("ftp://127.0.0.1/torch/"), "only http(s) redirects"),
])
def test_redirects(capsys, tmp_path: Path, script, said: str) -> None:  # type: ignore[no-untyped-def]
    out_file = tmp_path / "m" / "matrix.json"
    with Scripted() as srv:
        srv.route("/simple/torch/", script)
        code, out, err = _run(capsys, "plan", "--index-url", srv.url + "/simple", "--good",
                              "dev20260601", "--bad", "dev20260609", "--out", str(out_file))
    assert code == ExitStatus.API and out == "" and said in err
    assert not out_file.exists()


@pytest.mark.parametrize(("page", "said"), [
    (hostile.deep_json(), "nested deeper than"),
    (hostile.ill_typed_json("hashes"), "files[0].hashes: expected an object of hex strings"),
    (hostile.ill_typed_json("meta"), "meta: expected an object, got a list"),
])
def test_bad_json_pages_are_input_errors(capsys, page: bytes, said: str) -> None:
    with Scripted() as srv:
        srv.route("/simple/torch/", body(page,
                                         content_type="application/vnd.pypi.simple.v1+json"))
        code, out, err = _run(capsys, "versions", "--index-url", srv.url + "/simple")
    assert code == ExitStatus.INPUT and out == "" and said in err


def test_a_page_larger_than_the_cap(capsys) -> None:
    with Scripted() as srv:
        srv.route("/simple/torch/", stream(endless))
        code, _out, err = _run(capsys, "versions", "--index-url", srv.url + "/simple")
    assert code == ExitStatus.API and "longer than the 16.0 MiB" in err


def test_too_many_links_and_a_bounded_message(capsys, monkeypatch) -> None:
    from agentops.bisect import index as idx
    monkeypatch.setattr(idx, "MAX_LINKS", 1000)
    with Scripted() as srv:
        srv.route("/simple/torch/", body(hostile.many_links_html(1001),
                                         content_type="text/html"))
        code, _out, err = _run(capsys, "versions", "--index-url", srv.url + "/simple")
    assert code == ExitStatus.INPUT and "more than 1,000 files" in err
    assert len(err) < 2000


def test_many_versions_of_one_day_are_listed_boundedly(tmp_path: Path, capsys) -> None:
    names = [f"torch-2.10.0.dev20260601+cu{i}-cp312-cp312-manylinux_2_28_x86_64.whl"
             for i in range(500)]
    with Scripted() as srv:
        _page_for(srv, names)
        code, out, err = _run(capsys, *_resolve(srv.url + "/simple"))
        assert code == ExitStatus.INPUT and out == ""
        assert "several build variants (cu0, cu1," in err
        assert "(488 more)" in err and len(err) < 2000
        code, _out, err = _run(capsys, *_resolve(srv.url + "/simple", "--variant", "rocm6"))
    assert code == ExitStatus.INPUT and "no rocm6 build" in err and "(488 more)" in err


# --- credentials in the index URL (#12 item 7) -------------------------------------------------

def test_credentials_are_redacted_everywhere_and_masked(tmp_path: Path, capsys,
                                                        monkeypatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs"
    summary.write_text("")
    outputs.write_text("")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    d = tmp_path / "w"
    d.mkdir()
    state = State(root=d, href_style="relative")
    for day in ("20260601", "20260602", "20260603", "20260604"):
        state.add("torch", build_wheel(d, f"2.10.0.dev{day}+cpu", members=30))
    with serve(state) as url:
        secret = url.replace("http://", "http://alice:hunter2@")
        # a plan that works: the matrix's wheel URLs carry no credentials
        code, out, err = _run(capsys, "plan", "--index-url", secret, "--python", "3.12",
                              "--good", "dev20260601", "--bad", "dev20260604", "--width", "2")
        assert code == 0
        assert "::add-mask::hunter2" in err
        assert json.loads(out)["include"][0]["wheel_url"].startswith("http://***@127.0.0.1")
        # retries and a failure: every line, the error and the summary are redacted
        state.inject(r"/simple/", *[Fault(status=503)] * 2)
        code, out, err = _run(capsys, "versions", "--index-url", secret, "--python", "3.12")
        assert code == ExitStatus.API and "retry 1/1" in err
    texts = {"stderr": err.replace("::add-mask::hunter2", ""), "stdout": out,
             "summary": summary.read_text(), "outputs": outputs.read_text()}
    for where, text in texts.items():
        assert "hunter2" not in text, where
    assert "http://***@127.0.0.1" in texts["stderr"]


# --- page cache and --wheel-url (#13 item 16) ------------------------------------------------

@pytest.fixture
def nightly_index(tmp_path: Path) -> Iterator[tuple[str, State]]:
    d = tmp_path / "w"
    d.mkdir()
    state = State(root=d)
    for day in ("20260601", "20260602", "20260603"):
        state.add("torch", build_wheel(d, f"2.10.0.dev{day}+cpu", members=40))
    with serve(state) as url:
        yield url, state


def test_page_cache_revalidates_and_reuses(nightly_index, tmp_path: Path, capsys) -> None:
    url, state = nightly_index
    cache = tmp_path / "cache" / "page.json"
    argv = ["resolve", "--index-url", url, "--python", "3.12", "--version", "dev20260602",
            "--page-cache", str(cache)]
    code, first, err = _run(capsys, *argv)
    assert code == 0 and cache.is_file()
    saved = json.loads(cache.read_text())
    assert saved["etag"] and "hunter2" not in cache.read_text()
    page_bytes = state.served["/simple/torch/"]
    code, second, err = _run(capsys, *argv)
    assert code == 0 and json.loads(second)["git_version"] == json.loads(first)["git_version"]
    assert state.served["/simple/torch/"] == page_bytes  # the 304 carried no body
    assert "from --page-cache, unchanged" in err
    # a changed page is fetched again and replaces the copy
    state.add("torch", build_wheel(state.root, "2.10.0.dev20260604+cpu", members=40))
    code, _, err = _run(capsys, *argv)
    assert code == 0 and state.served["/simple/torch/"] > page_bytes
    assert "20260604" in cache.read_text()


def test_a_304_takes_the_parsed_links_from_the_copy_and_parses_nothing(
        nightly_index, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue #25 item 12: after a 304 the page text was parsed and every link re-joined.
    from agentops.bisect import index as idx
    from agentops.bisect import page as pg
    from agentops.bisect import wheels

    url, _state = nightly_index
    host = url.split("://", 1)[1]
    secret = f"http://bot:hunter2@{host}"  # credentials ride on same-host links only
    cache = tmp_path / "page.json"
    http = wheels.transport()
    fresh = pg.fetch_page(http, secret, "torch", cache=cache)
    assert fresh.to_save is not None and not fresh.cached
    cache.write_text(fresh.to_save)
    saved = cache.read_text()
    assert "hunter2" not in saved and "<a " not in saved and '"text"' not in saved
    assert all("bot:hunter2@" in f.url for f in fresh.links)

    def no_parse(*_a: object, **_k: object) -> None:
        raise AssertionError("a 304 parsed the page again")

    monkeypatch.setattr(idx, "parse_page", no_parse)
    again = pg.fetch_page(http, secret, "torch", cache=cache)
    assert again.cached and again.bytes == 0 and again.links == fresh.links
    # A run without credentials gets none from the copy (it names the page, not them).
    plain = pg.fetch_page(http, url, "torch", cache=cache)
    assert plain.cached and [f.filename for f in plain.links] == \
        [f.filename for f in fresh.links]
    assert all("hunter2" not in f.url for f in plain.links)
    http.close()


@pytest.mark.parametrize("links", [
    None, "x", [["torch.whl"]], [["torch.whl", "", {}, False, False]],
    [["torch.whl", "http://h/t.whl", {"sha256": 1}, False, False]],
    [["torch.whl", "http://h/t.whl", {}, "no", False]],
])
def test_a_forged_copy_of_the_links_is_ignored_and_the_page_fetched(
        nightly_index, tmp_path: Path, capsys, links: object) -> None:
    url, _state = nightly_index
    cache = tmp_path / "page.json"
    code, _out, _err = _run(capsys, "versions", "--index-url", url, "--python", "3.12",
                            "--page-cache", str(cache))
    assert code == 0
    doc = json.loads(cache.read_text())
    doc["links"] = links
    cache.write_text(json.dumps(doc))
    code, out, err = _run(capsys, "versions", "--index-url", url, "--python", "3.12",
                          "--page-cache", str(cache))
    assert code == 0 and len(out.splitlines()) == 3
    assert "page cache" in err and "ignored" in err and "links" in err
    assert len(json.loads(cache.read_text())["links"]) == 3  # replaced by the real page


def test_a_broken_page_cache_is_ignored_and_replaced(nightly_index, tmp_path: Path,
                                                     capsys) -> None:
    url, _ = nightly_index
    cache = tmp_path / "page.json"
    cache.write_bytes(b"\xff\xfe not json")
    code, out, err = _run(capsys, "versions", "--index-url", url, "--python", "3.12",
                          "--page-cache", str(cache))
    assert code == 0 and len(out.splitlines()) == 3
    assert "page cache" in err and "ignored" in err
    assert json.loads(cache.read_text())["format"] == 2
    code, _out, err = _run(capsys, "versions", "--index-url", url, "--page-cache",
                          str(tmp_path))
    assert code == ExitStatus.INPUT and "--page-cache" in err and "is a directory" in err


def test_wheel_url_skips_the_page(nightly_index, capsys) -> None:
    url, state = nightly_index
    wheel_url = url.replace("/simple", "/files/") + wheel_name(
        "2.10.0.dev20260602+cpu").replace("+", "%2B")
    code, out, _ = _run(capsys, "resolve", "--index-url", url, "--wheel-url", wheel_url,
                        "--version", "dev20260602")
    assert code == 0 and json.loads(out)["git_version"] == fake_sha("2.10.0.dev20260602+cpu")
    assert not any(path.startswith("/simple/") for _, path, _, _ in state.log)
    code, out, err = _run(capsys, "resolve", "--index-url", url, "--wheel-url", wheel_url,
                          "--version", "dev20260603")
    assert code == ExitStatus.INPUT and "the wheel is 2.10.0.dev20260602+cpu, not" in err


# --- an index of releases (#13 item 14) ------------------------------------------------------

@pytest.fixture
def releases(tmp_path: Path) -> Iterator[str]:
    d = tmp_path / "w"
    d.mkdir()
    state = State(root=d)
    for v in ("2.5.0", "2.5.1", "2.6.0", "2.7.0"):
        state.add("torch", build_wheel(d, v, members=20, platform="manylinux1_x86_64"))
    state.add("torch", build_wheel(d, "2.5.0", python="cp311", members=20,
                                   platform="manylinux1_x86_64"))
    with serve(state) as url:
        yield url


def test_versions_since_on_releases_says_why_nothing_matched(releases: str, capsys) -> None:
    code, out, err = _run(capsys, "versions", "--index-url", releases, "--python", "3.12")
    assert code == 0 and len(out.splitlines()) == 4  # manylinux1 found by default
    assert "4 releases for cp312" in err and "nightl" not in err
    code, out, err = _run(capsys, "versions", "--index-url", releases, "--python", "3.12",
                          "--since", "20260101")
    assert code == ExitStatus.INPUT and out == ""
    assert "none is a nightly" in err and "releases do not have" in err


def test_range_of_releases_says_releases(releases: str, capsys) -> None:
    code, out, err = _run(capsys, "range", "--index-url", releases, "--python", "3.12",
                          "--good", "2.5.0", "--bad", "2.7.0", "--json")
    assert code == 0 and "nightl" not in err
    notes = json.loads(out)["notes"]
    assert "2 releases between them were not tested (run `plan` to bisect)" in notes
    code, out, _err = _run(capsys, "range", "--index-url", releases, "--python", "3.12",
                          "--good", "2.5.1", "--bad", "2.7.0", "--json")
    assert "1 release between them was not tested" in " ".join(json.loads(out)["notes"])


def test_not_on_the_index_only_when_absent(releases: str, capsys) -> None:
    code, out, err = _run(capsys, "resolve", "--index-url", releases, "--python", "3.11",
                          "--version", "2.6.0")
    assert code == ExitStatus.INPUT and out == ""
    assert "2.6.0 is on the index, but not for cp311" in err and "cp312/manylinux1" in err
    code, _out, err = _run(capsys, "resolve", "--index-url", releases, "--python", "3.12",
                          "--version", "2.4.0")
    assert code == ExitStatus.INPUT and "is not on the index: the index lists 4 releases" in err


def test_nothing_half_written_by_a_failed_plan(tmp_path: Path, capsys) -> None:
    out_file = tmp_path / "plan" / "matrix.json"
    with Scripted() as srv:
        srv.route("/simple/torch/", body(hostile.deep_json(),
                                         content_type="application/vnd.pypi.simple.v1+json"))
        code, _, _ = _run(capsys, "plan", "--index-url", srv.url + "/simple", "--good",
                          "dev20260601", "--bad", "dev20260609", "--out", str(out_file))
    assert code == ExitStatus.INPUT and not out_file.parent.exists()
    assert os.listdir(tmp_path / "tmp") == []
