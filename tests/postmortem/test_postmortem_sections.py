"""P-4/P-5: sections.yaml maps headings to section meanings; every example and
not_example in it holds, and a broken file names its key."""

from __future__ import annotations

import functools

import pytest
import yaml

from agentops.errors import DataError
from agentops.postmortem import datafiles, lint

RAW = yaml.safe_load(datafiles.SECTIONS.read_text("utf-8"))["sections"]
SECTIONS = datafiles.sections()


def _cases(kind: str) -> list[object]:
    return [pytest.param(s["key"], text, id=f"{s['key']}-{kind}-{i}")
            for s in RAW for i, text in enumerate(s[kind])]


@pytest.mark.parametrize(("key", "heading"), _cases("examples"))
def test_example_heading_means_its_section(key: str, heading: str) -> None:
    assert key in lint.heading_keys(heading, SECTIONS), heading


@pytest.mark.parametrize(("key", "heading"), _cases("not_examples"))
def test_not_example_heading_does_not(key: str, heading: str) -> None:
    assert key not in lint.heading_keys(heading, SECTIONS), heading


def test_first_meaning_names_the_part_and_all_count_as_present() -> None:
    assert lint.heading_keys("Root cause and fixes", SECTIONS)[:1] == ("root_cause",)
    doc = lint.parse("## Root cause and fixes\n\nA.\n", SECTIONS)
    assert {"root_cause", "fix"} <= doc.present()
    assert lint.heading_keys("Why the symptom", SECTIONS)[0] == "why_symptom"
    assert lint.heading_keys("Appendix", SECTIONS) == ()


def test_broken_sections_file_names_the_key(broken_data) -> None:  # type: ignore[no-untyped-def]
    write = functools.partial(broken_data, "SECTIONS", datafiles.sections)
    one = "  - key: summary\n    patterns: ['{p}']\n    examples: [a]\n    not_examples: [b]\n"
    write("version: 1\nsections:\n" + one.format(p="("))
    with pytest.raises(DataError, match=r"sections\[0\]\.patterns\[0\]: not a valid regex"):
        datafiles.sections()
    write("version: 1\nsections:\n" + one.format(p="x"))
    with pytest.raises(DataError, match=r"sections\.yaml: sections: the seed's sections "
                                        r"are missing: \['symptoms'"):
        datafiles.sections()
    write("version: 1\nsections:\n  - key: summary\n"
          "    patterns: [x]\n    examples: [a]\n")
    with pytest.raises(DataError, match=r"sections\[0\]: missing required key: "
                                        r"'not_examples'"):
        datafiles.sections()
