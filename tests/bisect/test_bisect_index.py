"""Pure parsing: simple-index pages (PEP 503 HTML, PEP 691 JSON), wheel choice,
version/date lookup, and torch/version.py."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from agentops.bisect import index as idx
from agentops.bisect import wheels
from agentops.errors import DataError, InputError

BASE = "https://download.example/whl/nightly/cu126/torch/"
SHA = "0123456789abcdef0123456789abcdef01234567"


def _name(day: str, py: str = "cp312", abi: str | None = None,
          plat: str = "manylinux_2_28_x86_64", local: str = "cu126") -> str:
    return f"torch-2.10.0.dev{day}%2B{local}-{py}-{abi or py}-{plat}.whl"


def _html(names: list[str]) -> str:
    rows = "\n".join(f'<a href="/whl/nightly/cu126/{n}#sha256=ab12">'
                     f'{n.replace("%2B", "+")}</a><br/>' for n in names)
    return f"<!DOCTYPE html><html><body><h1>Links for torch</h1>\n{rows}\n</body></html>"


def test_html_with_root_absolute_encoded_hrefs() -> None:
    links = idx.parse_html(_html([_name("20260701")]), BASE)
    assert links == [idx.FileLink(
        filename="torch-2.10.0.dev20260701+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
        url="https://download.example/whl/nightly/cu126/"
            "torch-2.10.0.dev20260701%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl",
        hashes={"sha256": "ab12"})]


def test_html_relative_hrefs_base_tag_and_yanked() -> None:
    page = ('<html><head><base href="https://mirror.example/files/"></head><body>'
            '<a href="a/torch-1.0-py3-none-any.whl" data-yanked="">x</a>'
            '<a href="torch-2.0-py3-none-any.whl">torch-2.0-py3-none-any.whl</a></body></html>')
    links = idx.parse_html(page, BASE)
    assert [link.url for link in links] == [
        "https://mirror.example/files/a/torch-1.0-py3-none-any.whl",
        "https://mirror.example/files/torch-2.0-py3-none-any.whl"]
    assert [link.yanked for link in links] == [True, False]


def test_json_page_and_dispatch_on_content_type() -> None:
    doc = {"meta": {"api-version": "1.1"}, "name": "torch", "files": [
        {"filename": "torch-2.10.0.dev20260701+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
         "url": "/whl/" + _name("20260701"), "hashes": {"sha256": "ff"}}]}
    links = idx.parse_page(json.dumps(doc), "application/vnd.pypi.simple.v1+json", BASE)
    assert links[0].url == "https://download.example/whl/" + _name("20260701")
    assert links[0].hashes == {"sha256": "ff"}
    with pytest.raises(DataError, match=r"meta\.api-version: expected a 1\.x"):
        idx.parse_json(json.dumps({"meta": {"api-version": "2.0"}, "files": []}), BASE)
    with pytest.raises(DataError, match=r"files\[0\]: a file needs"):
        idx.parse_json(json.dumps({"meta": {"api-version": "1.0"}, "files": [{}]}), BASE)
    # text/html goes to the HTML parser
    assert idx.parse_page(_html([_name("20260701")]), "text/html; charset=utf-8", BASE)


def test_select_one_wheel_per_version_by_tag_and_platform() -> None:
    names = [_name("20260702", "cp312"), _name("20260701", "cp311"),
             _name("20260701", "cp312", abi="cp312t"), _name("20260701", "cp312"),
             _name("20260701", "cp312", plat="manylinux_2_28_aarch64"),
             _name("20260703", "cp313"), "torch-2.10.0.dev20260704.tar.gz",
             "torchvision-0.25.0.dev20260701%2Bcu126-cp312-cp312-manylinux_2_28_x86_64.whl",
             "not a wheel.whl"]
    links = idx.parse_html(_html(names), BASE)
    got = idx.select(links, package="torch", python="3.12", platform="manylinux_2_28_x86_64")
    assert [str(n.version) for n in got] == ["2.10.0.dev20260701+cu126",
                                             "2.10.0.dev20260702+cu126"]
    assert got[0].tag == "cp312-cp312-manylinux_2_28_x86_64"  # not the free-threaded one
    assert got[0].date == dt.date(2026, 7, 1) and got[0].variant == "cu126"
    assert idx.select(links, package="torch", python="cp313",
                      platform="manylinux_2_28_x86_64")[0].date == dt.date(2026, 7, 3)
    assert "cp312/manylinux_2_28_aarch64" in idx.available_tags(links)


def test_manylinux_aliases_match() -> None:
    links = idx.parse_html(_html([_name("20260701", plat="manylinux2014_x86_64")]), BASE)
    assert idx.select(links, package="torch", python="3.12", platform="manylinux_2_17_x86_64")


def test_python_tag_forms() -> None:
    assert idx.python_tag("3.12") == idx.python_tag("cp312") == idx.python_tag("312") == "cp312"
    with pytest.raises(InputError, match="--python: not a CPython version"):
        idx.python_tag("three")


def _nightlies(days: list[str]) -> list[idx.Nightly]:
    links = idx.parse_html(_html([_name(d) for d in days]), BASE)
    return idx.select(links, package="torch", python="3.12", platform="manylinux_2_28_x86_64")


def test_find_by_version_or_date() -> None:
    ns = _nightlies(["20260701", "20260702", "20260704"])
    assert idx.find(ns, "2.10.0.dev20260702+cu126") == 1
    assert idx.find(ns, "2.10.0.dev20260702") == 1  # without the local part
    for spec in ("dev20260704", "20260704", "2026-07-04"):
        assert idx.find(ns, spec) == 2
    with pytest.raises(InputError, match="is not on the index: the index lists 3 nightlies"):
        idx.find(ns, "dev20260703")  # a missing day inside the window
    with pytest.raises(InputError, match=r"gone from the index.*newest 60") as exc:
        idx.find(ns, "dev20260601", field_name="--good")
    assert exc.value.field == "--good" and "nightly branch" in (exc.value.fix or "")
    with pytest.raises(InputError, match="neither a version nor a date"):
        idx.find(ns, "yesterday")
    with pytest.raises(InputError, match="lists no nightly"):
        idx.find([], "dev20260701")


def test_within_dates() -> None:
    ns = _nightlies(["20260701", "20260702", "20260704"])
    got = idx.within(ns, since=dt.date(2026, 7, 2), until=dt.date(2026, 7, 3))
    assert [n.date for n in got] == [dt.date(2026, 7, 2)]


def test_version_py_is_parsed_not_executed() -> None:
    text = ("from typing import Optional\n__version__ = '2.10.0.dev20260701+cu126'\n"
            f"debug = False\ncuda: Optional[str] = '12.6'\ngit_version = '{SHA}'\n"
            "hip: Optional[str] = None\nimport os; os.system('false')\n")
    info = wheels.parse_version_py(text, source="w.whl")
    assert info["git_version"] == SHA and info["cuda"] == "12.6" and info["hip"] is None
    with pytest.raises(DataError, match=r"w\.whl: torch/version\.py: git_version: missing"):
        wheels.parse_version_py("__version__ = '1'\n", source="w.whl")
    with pytest.raises(DataError, match="not valid Python"):
        wheels.parse_version_py("git_version = (", source="w.whl")


def test_version_from_a_pip_log() -> None:
    log = ("2026-07-09T10:00:01Z Collecting torch==2.10.0.dev20260708\n"
           "2026-07-09T10:02:11Z Successfully installed filelock-3.20.0 "
           "torch-2.10.0.dev20260708+cu126 torchvision-0.25.0.dev20260708+cu126\n"
           "later: Successfully installed pytorch-triton-3.5.0+git1234 "
           "torch-2.10.0.dev20260709+cu126\n")
    assert idx.version_from_log(log) == "2.10.0.dev20260709+cu126"  # the last install wins
    assert idx.version_from_log(log, "torchvision") == "0.25.0.dev20260708+cu126"
    assert idx.version_from_log("Successfully installed numpy-2.3.0\n") is None


# --- PEP 691 pages are validated (#12 item 6) -------------------------------------------

def _page(**changes: object) -> dict:
    doc: dict = {"meta": {"api-version": "1.1"}, "name": "torch", "files": [
        {"filename": "torch-2.10.0.dev20260701+cu126-cp312-cp312-manylinux_2_28_x86_64.whl",
         "url": "/whl/" + _name("20260701"), "hashes": {"sha256": "ff"}}]}
    doc.update(changes)
    return doc


@pytest.mark.parametrize(("doc", "where", "said"), [
    (["not", "an", "object"], "(top level)", "expected an object, got a list"),
    (_page(meta=["api-version", "1.1"]), "meta", "expected an object, got a list"),
    (_page(meta={"api-version": 1.1}), "meta.api-version", "got a number"),
    (_page(files={"a": 1}), "files", "expected a list, got an object"),
    (_page(files=["x.whl"]), "files[0]", "expected an object, got a string"),
    (_page(files=[{"filename": 7, "url": "/x.whl"}]), "files[0]", "`filename` is a number"),
    (_page(files=[{"filename": "x.whl", "url": "/x.whl", "hashes": "x"}]), "files[0].hashes",
     "expected an object of hex strings, got a string"),
    (_page(files=[{"filename": "x.whl", "url": "/x.whl", "hashes": {"sha256": 1}}]),
     "files[0].hashes", "got an object"),
    (_page(files=[{"filename": "x.whl", "url": "/x.whl", "yanked": 1}]), "files[0].yanked",
     "a boolean or a reason string, got a number"),
])
def test_ill_typed_json_pages_are_data_errors(doc: object, where: str, said: str) -> None:
    with pytest.raises(DataError) as info:
        idx.parse_json(json.dumps(doc), BASE)
    assert info.value.key == where and said in info.value.message


def test_deep_json_is_a_data_error_not_a_recursion_error() -> None:
    with pytest.raises(DataError, match="nested deeper than"):
        idx.parse_json("[" * 200_000 + "]" * 200_000, BASE)
    with pytest.raises(DataError, match="nested deeper than"):
        idx.parse_json(json.dumps(_page(extra=[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]])), BASE)


def test_too_many_links(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(idx, "MAX_LINKS", 50)
    names = [_name(f"202607{d:02d}") for d in range(1, 29)] * 2
    with pytest.raises(DataError, match="more than 50 files on one project page"):
        idx.parse_html(_html(names), BASE)
    doc = _page(files=[{"filename": "x.whl", "url": "/x.whl"}] * 51)
    with pytest.raises(DataError, match="more than 50 files"):
        idx.parse_json(json.dumps(doc), BASE)
    assert len(idx.parse_html(_html(names[:50]), BASE)) == 50


def test_credentials_never_reach_a_page_error() -> None:
    with pytest.raises(DataError) as info:
        idx.parse_json("{", "https://alice:hunter2@idx.example/simple/torch/")
    assert "hunter2" not in info.value.message and "***@idx.example" in info.value.message


# --- pip's choice of wheel (#13 items 13, 15) ---------------------------------------------

def test_compatible_platforms_in_packagings_order(monkeypatch: pytest.MonkeyPatch) -> None:
    from packaging.tags import _manylinux

    # packaging's own generator, on a system pretending to be glibc 2.28 x86_64, is the
    # oracle for the order pip uses.
    monkeypatch.setattr(_manylinux, "_get_glibc_version", lambda: (2, 28))
    monkeypatch.setattr(_manylinux, "_is_compatible", lambda arch, version: True)
    expected = [*_manylinux.platform_tags(["x86_64"]), "linux_x86_64"]
    got = idx.compatible_platforms("manylinux_2_28_x86_64")
    assert got == expected
    assert got[:2] == ["manylinux_2_28_x86_64", "manylinux_2_27_x86_64"]
    assert got[-3:] == ["manylinux_2_5_x86_64", "manylinux1_x86_64", "linux_x86_64"]
    assert idx.compatible_platforms("manylinux2014_x86_64")[:2] == [
        "manylinux_2_17_x86_64", "manylinux2014_x86_64"]
    assert idx.compatible_platforms("manylinux_2_28_aarch64")[-2:] == [
        "manylinux2014_aarch64", "linux_aarch64"]  # no manylinux1 off x86
    assert idx.compatible_platforms("macosx_14_0_arm64")[:2] == [
        "macosx_14_0_arm64", "macosx_14_0_universal2"]
    assert idx.compatible_platforms("win_amd64") == ["win_amd64"]


def _rel(version: str, py: str = "cp312", plat: str = "manylinux1_x86_64",
         build: str = "") -> str:
    return f"torch-{version}{'-' + build if build else ''}-{py}-{py}-{plat}.whl"


def _links(names: list[str], fmt: str) -> list[idx.FileLink]:
    if fmt == "html":
        rows = "\n".join(f'<a href="/files/{n}">{n}</a>' for n in names)
        return idx.parse_html(f"<html><body>{rows}</body></html>", BASE)
    doc = {"meta": {"api-version": "1.1"}, "files": [
        {"filename": n, "url": f"/files/{n}", "hashes": {}} for n in names]}
    return idx.parse_json(json.dumps(doc), BASE)


@pytest.mark.parametrize("fmt", ["html", "json"])
def test_manylinux1_wheels_are_found_with_the_default_platform(fmt: str) -> None:
    names = [_rel("2.5.0"), _rel("2.6.0"),
             _rel("2.6.0", plat="manylinux_2_28_x86_64"),  # preferred over manylinux1
             _rel("2.7.0", plat="manylinux_2_34_x86_64")]  # too new for glibc 2.28
    got = idx.select(_links(names, fmt), package="torch", python="3.12",
                     platform="manylinux_2_28_x86_64")
    assert [(str(n.version), n.tag) for n in got] == [
        ("2.5.0", "cp312-cp312-manylinux1_x86_64"),
        ("2.6.0", "cp312-cp312-manylinux_2_28_x86_64")]


@pytest.mark.parametrize("fmt", ["html", "json"])
@pytest.mark.parametrize("reverse", [False, True])
def test_build_tags_pick_what_pip_picks_whatever_the_page_order(fmt: str, reverse: bool) -> None:
    names = [_rel("2.6.0", build="1"), _rel("2.6.0", build="2"), _rel("2.6.0"),
             _rel("2.6.0", build="10", plat="linux_x86_64"),  # higher build, worse tag
             _rel("2.6.0", build="2a", plat="manylinux1_x86_64")]
    if reverse:
        names.reverse()
    (got,) = idx.select(_links(names, fmt), package="torch", python="3.12",
                        platform="manylinux_2_28_x86_64")
    # pip: the most preferred tag first, then the highest build tag ((2, "a") > (2, ""))
    assert got.wheel.filename == _rel("2.6.0", build="2a")


# --- releases, and what a missing version does have (#13 items 13, 14) --------------------

def _releases(names: list[str]) -> tuple[list[idx.Nightly], idx.Query]:
    links = _links(names, "html")
    q = idx.Query(package="torch", python="3.12", platform="manylinux_2_28_x86_64",
                  links=tuple(links))
    return idx.select(links, package="torch", python="3.12",
                      platform="manylinux_2_28_x86_64"), q


def test_releases_are_not_called_nightlies() -> None:
    ns, q = _releases([_rel("2.5.0"), _rel("2.6.0")])
    assert idx.noun(ns) == "2 releases" and idx.noun(ns[:1]) == "1 release"
    assert idx.noun(_nightlies(["20260701"])) == "1 nightly"
    assert idx.noun([*ns, *_nightlies(["20260701"])]) == "3 versions"
    with pytest.raises(InputError) as info:
        idx.find(ns, "2.4.0", query=q)
    assert "is not on the index: the index lists 2 releases for cp312 on " \
           "manylinux_2_28_x86_64, 2.5.0 … 2.6.0" in info.value.message
    assert "nightl" not in info.value.message


def test_a_version_listed_for_other_tags_names_them_requested_python_first() -> None:
    ns, q = _releases([_rel("2.5.0"), _rel("2.6.0", py="cp311"),
                       _rel("2.6.0", py="cp312", plat="macosx_11_0_arm64"),
                       _rel("2.6.0", py="cp310")])
    with pytest.raises(InputError) as info:
        idx.find(ns, "2.6.0", query=q)
    msg = info.value.message
    assert "2.6.0 is on the index, but not for cp312 on manylinux_2_28_x86_64" in msg
    assert msg.endswith("its wheels are for cp312/macosx_11_0_arm64, "
                        "cp310/manylinux1_x86_64, cp311/manylinux1_x86_64")
    assert "not on the index" not in msg


def test_a_wheel_url_is_a_nightly_without_the_page() -> None:
    n = idx.nightly_from_url("https://h/whl/" + _name("20260701"), "torch")
    assert str(n.version) == "2.10.0.dev20260701+cu126"
    assert n.tag == "cp312-cp312-manylinux_2_28_x86_64" and n.date == dt.date(2026, 7, 1)
    with pytest.raises(InputError, match="--wheel-url: not a wheel file name"):
        idx.nightly_from_url("https://h/whl/torch-2.10.0.tar.gz", "torch")
    with pytest.raises(InputError, match="a numpy wheel, not torch"):
        idx.nightly_from_url("https://h/numpy-2.0-cp312-cp312-linux_x86_64.whl", "torch")


def test_html_forms_a_real_page_may_use() -> None:
    page = ("<!DOCTYPE html><HTML><BODY>\n"
            "<!-- <a href='/commented.whl'>commented.whl</a> -->\n"
            "<A HREF='/a/torch-1.0-py3-none-any.whl?x=1&amp;y=2#sha256=aa' "
            "data-requires-python='&gt;=3.8'><span>torch-1.0-py3-none-any.whl</span></A>\n"
            "<a href=/b/torch-2.0-py3-none-any.whl data-yanked>torch-2.0-py3-none-any.whl</a>"
            "<a name=anchor-without-href>nothing</a>\n</BODY></HTML>")
    links = idx.parse_html(page, BASE)
    assert [(link.filename, link.url, link.hashes, link.yanked) for link in links] == [
        ("torch-1.0-py3-none-any.whl",
         "https://download.example/a/torch-1.0-py3-none-any.whl?x=1&y=2", {"sha256": "aa"},
         False),
        ("torch-2.0-py3-none-any.whl", "https://download.example/b/torch-2.0-py3-none-any.whl",
         {}, True)]


@pytest.mark.parametrize("markup", ["<" * 200_000, "<p>" * 100_000,
                                    "<a " + "h=1 " * 200_000 + ">x</a>", "<!--" * 100_000])
def test_hostile_markup_yields_no_links_and_no_error(markup: str) -> None:
    assert idx.parse_html(markup, BASE) == []


def test_the_scanner_agrees_with_an_html_parser_on_the_server_pages() -> None:
    import html.parser

    class Reference(html.parser.HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.hrefs: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "a" and dict(attrs).get("href"):
                self.hrefs.append(str(dict(attrs)["href"]))

    names = [_name(f"202607{d:02d}", py) for d in range(1, 20) for py in ("cp311", "cp312")]
    page = _html(names)
    ref = Reference()
    ref.feed(page)
    assert [link.url for link in idx.parse_html(page, BASE)] == [
        idx._split_url(BASE, h)[0] for h in ref.hrefs]


def test_a_count_of_listed_versions_says_its_scope() -> None:
    # Issue #25 item 7: "the index lists 6 releases" beside a page listing 8 versions.
    names = [f"torch-2.{m}.0-cp312-cp312-manylinux_2_28_x86_64.whl" for m in range(6)]
    names += [f"torch-2.{m}.0-cp311-cp311-manylinux_2_28_x86_64.whl" for m in range(6, 8)]
    links = [idx.FileLink(filename=n, url=f"https://h/{n}") for n in names]
    query = idx.Query(package="torch", python="3.12", platform="manylinux_2_28_x86_64",
                      links=tuple(links))
    listed = idx.select(links, package="torch", python="3.12",
                        platform="manylinux_2_28_x86_64")
    assert idx.lists(listed, query) == ("the index lists 6 releases for cp312 on "
                                        "manylinux_2_28_x86_64 (8 versions in all)")
    with pytest.raises(InputError, match=r"lists 6 releases for cp312 .*\(8 versions in all\)"):
        idx.find(listed, "2.99.0", field_name="--good", query=query)
    only = idx.Query(package="torch", python="3.12", platform="manylinux_2_28_x86_64",
                     links=tuple(links[:6]))
    assert idx.lists(listed, only).endswith("manylinux_2_28_x86_64")
