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
