"""``clients.opencompass_evaluator`` without OpenCompass: the project imports without it,
and ``score_replies`` (what ``OracleEvaluator.score`` returns) grades each reply by the
oracle and by its family's own rule.  The run inside OpenCompass itself is
``tests/test_opencompass_calm.py`` (slow, in its own environment)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

import causal_oracle as co
from causal_oracle.clients import opencompass_evaluator as oc
from causal_oracle.entry import REGISTRY, Item, default

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _rows(n: int = 6) -> list[dict]:
    lines = EXAMPLES.joinpath("corr2cause_sample.jsonl").read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines[:n]]


def test_the_module_imports_without_opencompass() -> None:
    code = ("import sys, causal_oracle.clients.opencompass_evaluator as m; "
            "assert 'opencompass' not in sys.modules; print(m.PROMPT_COLUMN)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "question"


@pytest.mark.skipif(importlib.util.find_spec("opencompass") is not None,
                    reason="OpenCompass is installed here")
def test_the_evaluator_class_says_how_to_get_opencompass() -> None:
    with pytest.raises(ImportError, match=r"docs/opencompass\.md"):
        _ = oc.OracleEvaluator
    with pytest.raises(AttributeError):
        _ = oc.NoSuchThing


def test_replies_are_graded_as_co_grade_grades_them() -> None:
    rows = _rows()
    prompts = [default().item(r).prompt for r in rows]  # type: ignore[union-attr]
    replies = ["yes", "no", "maybe", "No.", "Yes", "the answer is no"]
    out = oc.score_replies(replies, rows, prompts)
    grades = [co.grade(p, r) for p, r in zip(prompts, replies, strict=True)]
    assert [d["correct"] for d in out["details"]] == [g.correct for g in grades]
    assert [d["grade"] for d in out["details"]] == [g.grade for g in grades]
    right = sum(g.correct for g in grades)
    assert out["items"] == 6 and out["certified_correct"] == right
    assert out["certified_accuracy"] == pytest.approx(100 * right / 6)
    assert "benchmark_rule_accuracy" not in out  # corr2cause has no rule of its own
    assert all(d["benchmark_rule"] is None for d in out["details"])


def test_a_prompt_the_oracle_cannot_read_is_an_error_not_a_grade() -> None:
    rows = _rows(2)
    out = oc.score_replies(["yes", "no"], rows, ["What is the weather?", None])
    assert out["errors"] == 2 and out["certified_graded"] == 0
    assert out["certified_accuracy"] == 0.0 and "certified_accuracy_graded" not in out
    assert "no benchmark recognises" in out["details"][0]["error"]
    assert "'question'" in out["details"][1]["error"]
    assert "differ in length" in oc.score_replies(["yes"], rows, None)["error"]


def test_the_rule_comes_from_the_rows_family_with_task_and_style_added(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _rows(4)
    seen: list[Item] = []

    def rule(item: Item, reply: str) -> bool:
        seen.append(item)
        return reply == "yes"

    monkeypatch.setattr(REGISTRY.get("corr2cause"), "benchmark_rule", rule)
    scoring = oc.Scoring(task="TASK-X_EN", prompt_style="basic")
    out = oc.score_replies(["yes", "no", "yes", "yes"], rows, None, scoring)
    assert out["benchmark_rule_items"] == 4 and out["benchmark_rule_correct"] == 3
    assert out["benchmark_rule_accuracy"] == pytest.approx(75.0)
    assert {i.raw["task"] for i in seen} == {"TASK-X_EN"}
    assert {i.raw["prompt_style"] for i in seen} == {"basic"}
    assert out["errors"] == 4  # no prompts given: the certified side has none to grade
