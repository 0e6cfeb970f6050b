"""The reward adapters never raise on a trainer's values (the contract issue's reproducer
``rewards_exceptions.py``, kept): a missing column value (None, NaN, "") is absent, one
that is not text makes its sample ``invalid`` — no reward, in each trainer's own way
(TRL ``None``, verl NaN ``score``, OpenRLHF NaN) — with a reason naming the field; verl
dicts carry NaN only where a sample has no reward; log lines are bounded."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator

import pytest

from causal_oracle.rewards import (
    RewardConfig,
    compute_score,
    compute_score_batch,
    configure,
    reward_func,
    trl_reward,
)
from causal_oracle.rewards.inputs import QUOTE_CHARS, Refused, column_at, column_value
from causal_oracle.rewards.scoring import Sample, Verifier
from causal_oracle.rewards.trainers import openrlhf_samples, trl_samples, verl_sample

PREMISE = ("Suppose there is a closed system of 2 variables, A and B. All the statistical "
           "relations among these 2 variables are as follows: A correlates with B.")
HYPOTHESIS = "A directly causes B."
ITEM = f"Premise: {PREMISE}\nHypothesis: {HYPOTHESIS}"


@pytest.fixture(autouse=True)
def in_process() -> Iterator[None]:
    configure(RewardConfig(workers=0))
    yield
    configure(RewardConfig(workers=0))


@pytest.mark.parametrize("info, field", [
    ({"prompt": ITEM, "task": 0}, "extra_info['task']"),
    ({"prompt": ITEM, "hypothesis": {"x": 1}}, "extra_info['hypothesis']"),
    ({"prompt": ITEM, "premise": 3.5}, "extra_info['premise']"),
    ({"prompt": ITEM, "task": True}, "extra_info['task']"),
    ({"prompt": ITEM, "premise": ["a"]}, "extra_info['premise']"),
])
def test_verl_refuses_a_column_that_is_not_text(info: dict, field: str) -> None:
    out = compute_score("c2c", "No.", ITEM, info)
    assert math.isnan(out["score"]) and out["status"] == "invalid"
    assert field in out["reason"] and out["verifier_failed"] == 1.0


@pytest.mark.parametrize("missing", [None, float("nan"), "", "   "])
def test_verl_reads_a_missing_column_as_absent(missing: object) -> None:
    out = compute_score("c2c", "No.", ITEM, {"prompt": ITEM, "premise": missing,
                                             "task": missing})
    assert out["score"] == 1.0 and out["status"] == "correct"


def test_verl_dicts_carry_nan_only_without_a_reward() -> None:
    scored = compute_score("c2c", "No.", ITEM, {"prompt": ITEM})
    assert "format" not in scored  # no format term configured: no NaN "format" metric
    assert not any(isinstance(v, float) and math.isnan(v) for v in scored.values())
    failed = compute_score("c2c", "No.", "", {"prompt": "What is 2 + 2?"})
    assert math.isnan(failed["score"]) and failed["status"] == "no_question"
    configure(RewardConfig(workers=0, format_weight=0.5, format_pattern="<answer>"))
    asked = compute_score("c2c", "<answer>No.</answer>", ITEM, {"prompt": ITEM})
    assert asked["format"] == 1.0 and asked["score"] == 1.5
    batch = compute_score_batch(["c2c"] * 3, ["No.", "Yes.", "No."], [ITEM, ITEM, 7],
                                [{"prompt": ITEM}, None, {"premise": float("nan")}])
    assert [b["score"] for b in batch][:2] == [1.0, 0.0] and math.isnan(batch[2]["score"])
    assert math.isnan(batch[2]["format"])  # asked for, and the sample has no reward
    assert {tuple(sorted(b)) for b in batch} == {tuple(sorted(asked))}


def test_trl_scalar_and_list_columns() -> None:
    assert trl_reward([ITEM], ["No."], premise=5) == [None]
    assert trl_reward([ITEM, ITEM], ["No.", "Yes."], task=[None, float("nan")]) == [1.0, 0.0]
    # one string every sample shares (a scalar keyword column) is broadcast
    assert trl_reward(["", ""], ["No.", "Yes."], premise=PREMISE,
                      hypothesis=HYPOTHESIS) == [1.0, 0.0]
    samples = trl_samples([ITEM, ITEM], ["No.", "No."], {"premise": [PREMISE, {"a": 1}]})
    assert samples[0].problem is None and "premise[1]" in (samples[1].problem or "")
    assert trl_samples([ITEM], ["No."], {"task": {"a": 1}})[0].problem
    # odd prompt and completion values are text, never an exception
    assert trl_reward([None, 5, ITEM], [None, 3.5, [{"role": "assistant", "content": "No."}]]
                      ) == [None, None, 1.0]


def test_openrlhf_none_query_is_that_samples_nan() -> None:
    out = reward_func([None, ITEM + "\nNo.", 5], [ITEM, ITEM, None], ["", None, 3])
    assert math.isnan(out["rewards"][0]) and out["rewards"][1] == 1.0
    assert math.isnan(out["rewards"][2])
    assert out["extra_logs"]["verifier_failed"] == [1.0, 0.0, 1.0]
    problems = [s.problem for s in openrlhf_samples([None, "q", 5], ["p", None, "p"], None)]
    assert "queries[0]" in problems[0] and "prompts[1]" in problems[1]
    assert "queries[2]" in problems[2]


def test_surrogates_are_replaced_not_raised() -> None:
    sample = verl_sample("No.\ud800", ITEM, {"prompt": ITEM + "\udfff", "task": "\ud83d"})
    assert "\ufffd" in sample.completion and "\ud800" not in sample.completion
    assert sample.task == "\ufffd"
    assert compute_score("c2c", "No.\ud800", ITEM, {"prompt": "x\ud800"})["status"]


def test_inputs_gate() -> None:
    assert column_value(float("nan"), "f") is None and column_value("a", "f") == "a"
    with pytest.raises(Refused, match="f must be text"):
        column_value(0, "f")
    assert column_at(["a", "b"], 1, "c") == "b" and column_at("s", 3, "c") == "s"
    assert column_at(["a"], 5, "c") is None
    with pytest.raises(Refused, match=r"c\[0\]"):
        column_at([1], 0, "c")
    with pytest.raises(Refused, match="not a dict"):
        column_at({"a": 1}, 0, "c")


def test_no_question_log_line_is_bounded(caplog: pytest.LogCaptureFixture) -> None:
    prompt = "What is the capital of France? " * 20_000
    with caplog.at_level(logging.WARNING, logger="causal_oracle.rewards"):
        reward = Verifier(RewardConfig(workers=0)).score(Sample(prompt, "Paris"))
    assert reward.status in ("no_question", "budget")
    lines = [r.getMessage() for r in caplog.records]
    assert lines and all(len(line) <= 2 * QUOTE_CHARS + 240 for line in lines)
    assert len(reward.reason) <= 2 * QUOTE_CHARS + 200


def test_the_reproducer_cases_do_not_raise() -> None:
    cases = [
        lambda: compute_score("c2c", "No.", ITEM, {"prompt": ITEM, "task": 0})["score"],
        lambda: compute_score("c2c", "No.", ITEM, {"prompt": ITEM, "premise": float("nan")}
                              )["score"],
        lambda: compute_score("c2c", "No.", ITEM, {"prompt": ITEM, "hypothesis": {"x": 1}}
                              )["score"],
        lambda: trl_reward([ITEM], ["No."], premise=5)[0],
        lambda: reward_func([None], [ITEM], [""])["rewards"][0],
    ]
    values = [case() for case in cases]
    assert values[1] == 1.0 and values[3] is None
    assert all(math.isnan(v) for v in (values[0], values[2], values[4]))


@pytest.mark.parametrize("module", ["rewards.inputs", "rewards.trainers", "rewards.scoring",
                                    "auth"])
def test_doctests(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(f"causal_oracle.{module}"))
    assert result.attempted and not result.failed
