"""TOML files of a checkout are untrusted: a hostile nesting depth is "not TOML", never a
traceback that ends the report (brief: untrusted input; #22)."""

from __future__ import annotations

from agentops.scout.analyses import declareddeps, specflavors, tomldoc

# Deep enough that tomllib's recursive descent overflows Python's recursion limit.
DEEP = "a = " + "[" * 50_000 + "]" * 50_000 + "\n"


def test_a_document_parses_and_bad_text_is_none() -> None:
    assert tomldoc.parse('[model]\nname = "llama3"\n') == {"model": {"name": "llama3"}}
    assert tomldoc.parse("[model\n") is None


def test_hostile_nesting_is_none_not_a_recursion_error() -> None:
    assert tomldoc.parse(DEEP) is None


def test_every_reader_of_checkout_toml_survives_hostile_nesting() -> None:
    assert declareddeps.pyproject_names(DEEP) is None
    assert specflavors._toml_pair(DEEP, "model", "flavor") == (None, None)
