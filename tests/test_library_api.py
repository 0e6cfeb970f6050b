"""The public library API (``import causal_oracle``): its doctests and its contract."""

from __future__ import annotations

import doctest
import importlib
import json
from pathlib import Path

import pytest
from conftest import DATA

import causal_oracle as co

P3 = ("Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
      "relations among these 3 variables are as follows: A correlates with C. B correlates "
      "with C. However, A is independent of B.")


@pytest.mark.parametrize("module", ["causal_oracle", "causal_oracle.api",
                                    "causal_oracle.clients.library_files",
                                    "causal_oracle.oracle.budget"])
def test_doctests_of_the_public_api(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), raise_on_error=False)
    assert result.failed == 0
    if module == "causal_oracle.api":
        assert result.attempted >= 20


def test_every_public_name_is_documented() -> None:
    for name in co.__all__:
        if name.startswith("__"):
            continue
        obj = getattr(co, name)
        assert obj.__doc__ and len(obj.__doc__.strip()) > 20, name
    for verb in (co.verify, co.explain, co.answer, co.grade, co.audit):
        doc = verb.__doc__ or ""
        for section in ("Parameters", "Returns", "Raises", "Examples"):
            assert section in doc, (verb.__name__, section)


def test_verify_matches_the_published_layout_and_profiles() -> None:
    direct = co.verify(P3, "A causes something else which causes C.", profile="loose")
    published = co.verify(f"Premise: {P3}\nHypothesis: A causes something else which causes C.",
                          profile=co.Profile.LOOSE)
    assert direct.summary() == published.summary()
    assert direct.check.ok


def test_bad_input_raises_the_documented_errors() -> None:
    with pytest.raises(co.ParseError) as info:
        co.verify(P3, "A directly causes")
    assert info.value.line == 1 and info.value.column is not None
    with pytest.raises(co.InputError, match="unknown profile"):
        co.verify(P3, "A directly causes C.", profile="sloppy")
    with pytest.raises(co.InputError, match="unknown explanation format"):
        co.explain(P3, "A directly causes C.", format="svg")
    with pytest.raises(co.InputError, match="no such file"):
        co.audit("/nonexistent/data.jsonl")
    with pytest.raises(co.InputError, match="unknown column key"):
        co.audit([], columns={"gold": "label"})


def test_answer_and_grade_on_cibench_items() -> None:
    rows = [json.loads(line) for line in (DATA / "cibench/items_sample.jsonl").open()]
    cp = next(r for r in rows if r["task"] == "CP")
    result = co.answer(cp["prompt"])
    assert result.task == "CP" and result.certificate_checked
    assert {tuple(p) for p in result.answer} == {tuple(p) for p in cp["truth"]["causal_paths"]}
    assert co.grade(cp["prompt"], result.answer_text).correct is True
    unreadable = co.grade(cp["prompt"], "{{{")
    assert unreadable.correct is False and not unreadable.readable
    assert unreadable.normalised == unreadable.grade == "UNREADABLE"


def test_answer_and_grade_corr2cause_items() -> None:
    item = f"Premise: {P3}\nHypothesis: C directly causes A."
    result = co.answer(item)
    assert (result.task, result.answer_text) == ("corr2cause", "no")
    assert result.answer["relation"] == "contradiction"
    assert co.grade(item, "contradiction").correct is True
    assert co.grade(item, "Yes").correct is False
    assert co.grade(item, "**Answer:** No").normalised == "no"


def test_audit_of_a_file_equals_the_audit_of_its_rows() -> None:
    path = DATA / "n3.jsonl"
    rows = [json.loads(line) for line in path.open()]
    from_file, from_rows = co.audit(path), co.audit(rows)
    assert from_file.to_json()["summary"] == from_rows.to_json()["summary"]
    assert from_file.disagreements == from_rows.disagreements


def _modules_with_examples() -> list[str]:
    root = Path(__file__).resolve().parent.parent
    found = []
    for folder in ("oracle", "parser", "entry", "clients", "rewards", "environments"):
        for path in sorted((root / folder).rglob("*.py")):
            if ">>> " in path.read_text(encoding="utf-8"):
                dotted = ".".join(path.relative_to(root).with_suffix("").parts)
                found.append(f"causal_oracle.{dotted}")
    return found


@pytest.mark.parametrize("module", _modules_with_examples())
def test_doctests_of_every_module(module: str) -> None:
    """Every example in a module docstring runs as written (a module whose examples need
    a running server marks them ``+SKIP``)."""
    loaded = importlib.import_module(module)
    result = doctest.testmod(loaded, raise_on_error=False)
    assert result.failed == 0
    assert result.attempted > 0 or "doctest: +SKIP" in Path(str(loaded.__file__)).read_text(
        encoding="utf-8")
