"""Reward adapters called as their trainers call them (TRL, verl, OpenRLHF).

Each trainer's exact call shape (keyword names, chat messages or strings, dataset
columns as keyword lists, verl's ``extra_info`` / ``ground_truth``, OpenRLHF's query =
prompt + completion) with gold-correct, wrong, unreadable and over-budget completions;
the hard per-sample cap on a worker that ignores the cooperative budget.
"""

from __future__ import annotations

import asyncio
import doctest
import importlib
import math
from collections.abc import Iterator

import pytest
from conftest import load_rows

from causal_oracle.entry import REGISTRY, InputError, default, join_input, register
from causal_oracle.rewards import (
    RewardConfig,
    Sample,
    Scorer,
    compute_score,
    compute_score_batch,
    configure,
    reward_func,
    trl_reward,
    trl_reward_async,
)
from causal_oracle.rewards.prompts import candidates, user_turn
from causal_oracle.rewards.scoring import Verifier

INSTRUCTION = "Is the hypothesis necessarily true given the premise? Answer Yes or No."
ROWS = load_rows("n4")[:24:3]


def _item(row: dict) -> str:
    return join_input(row["premise"], row["hypothesis"])


def _right(row: dict) -> str:
    return "Yes." if default().verify(row["premise"], row["hypothesis"]).label else "No."


def _flip(reply: str) -> str:
    return "No." if reply == "Yes." else "Yes."


@pytest.fixture
def slow_family() -> Iterator[None]:
    import slow_family

    register(slow_family.FAMILY)
    yield
    REGISTRY.unregister(slow_family.FAMILY.name)


@pytest.fixture(autouse=True)
def in_process() -> Iterator[None]:
    configure(RewardConfig(workers=0))
    yield
    configure(RewardConfig(workers=0))


@pytest.mark.parametrize("module", ["causal_oracle.rewards", "causal_oracle.rewards.scoring",
                                    "causal_oracle.rewards.prompts",
                                    "causal_oracle.rewards.pool",
                                    "causal_oracle.rewards.trainers"])
def test_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0


# ---- TRL ------------------------------------------------------------------------------------

def test_trl_standard_format_as_grpo_trainer_calls_it() -> None:
    prompts = [f"{_item(r)}\n{INSTRUCTION}" for r in ROWS for _ in range(3)]
    completions = [c for r in ROWS for c in (_right(r), _flip(_right(r)), "Hard to say.")]
    out = trl_reward(prompts=prompts, completions=completions,
                     completion_ids=[[1, 2, 3]] * len(prompts), trainer_state=None,
                     label=[r["label"] for r in ROWS for _ in range(3)])
    assert out == [1.0, 0.0, 0.0] * len(ROWS)


def test_trl_conversational_format() -> None:
    row = ROWS[1]
    prompt = [{"role": "system", "content": "Think step by step."},
              {"role": "user", "content": f"{_item(row)}\n{INSTRUCTION}"}]
    completions = [[{"role": "assistant", "content": f"Let me see.\n**Answer:** {c}"}]
                   for c in (_right(row), _flip(_right(row)))]
    assert trl_reward([prompt, prompt], completions) == [1.0, 0.0]


def test_trl_columns_take_precedence_over_the_prompt() -> None:
    row = ROWS[2]
    out = trl_reward(["Answer the question below."] * 2, [_right(row), _flip(_right(row))],
                     premise=[row["premise"]] * 2, hypothesis=[row["hypothesis"]] * 2,
                     task=["corr2cause"] * 2)
    assert out == [1.0, 0.0]


def test_trl_over_budget_and_unknown_questions_give_no_reward(slow_family: None) -> None:
    configure(RewardConfig(workers=0, budget_s=0.2, cap_s=1.0))
    row = ROWS[3]
    out = trl_reward([_item(row), "Slow toy: spin 30.", "What is the capital of France?"],
                     ["Yes. " * 70_000, "yes", "Paris"])
    assert out == [None, None, None]


def test_trl_async_twin() -> None:
    row = ROWS[4]
    out = asyncio.run(trl_reward_async(prompts=[_item(row)] * 3,
                                       completions=[_right(row), _flip(_right(row)), ""]))
    assert out == [1.0, 0.0, 0.0]


# ---- verl -----------------------------------------------------------------------------------

def test_verl_compute_score_reads_the_prompt_or_the_ground_truth() -> None:
    row = ROWS[5]
    info = {"prompt": [{"role": "user", "content": f"{_item(row)}\n{INSTRUCTION}"}],
            "index": 7, "split": "train"}
    right = compute_score(data_source="causal_oracle", solution_str=_right(row),
                          ground_truth=str(row["label"]), extra_info=info)
    assert right["score"] == 1.0 and right["acc"] == 1.0 and right["verifier_failed"] == 0.0
    assert right["relation"] in ("entailment", "neutral", "contradiction")
    wrong = compute_score("causal_oracle", _flip(_right(row)), _item(row))  # no extra_info
    assert wrong["score"] == 0.0 and wrong["unreadable"] == 0.0
    unreadable = compute_score("causal_oracle", "I would rather not say", _item(row), None)
    assert unreadable["score"] == 0.0 and unreadable["unreadable"] == 1.0
    none = compute_score("causal_oracle", "Yes.", "42", {"prompt": "What is 6 * 7?"})
    assert math.isnan(none["score"]) and none["verifier_failed"] == 1.0
    assert none["status"] == "no_question" and none["reason"]
    assert set(right) == set(wrong) == set(unreadable) == set(none)


def test_verl_batched_form() -> None:
    rows = ROWS[:4]
    out = compute_score_batch(data_sources=["causal_oracle"] * 4,
                              solution_strs=[_right(r) for r in rows],
                              ground_truths=[_item(r) for r in rows],
                              extra_infos=[{"index": i} for i in range(4)])
    assert [o["score"] for o in out] == [1.0] * 4


# ---- OpenRLHF -------------------------------------------------------------------------------

def test_openrlhf_reward_func_splits_queries_after_their_prompts() -> None:
    row = ROWS[6]
    prompt = (f"<|im_start|>system\nYou are careful.<|im_end|>\n<|im_start|>user\n{_item(row)}"
              f"\n{INSTRUCTION}<|im_end|>\n<|im_start|>assistant\n")
    replies = [_right(row), _flip(_right(row)), "🤔" * 50]
    out = reward_func(queries=[prompt + r + "<|im_end|>" for r in replies],
                      prompts=[prompt] * 3, labels=[""] * 3)
    assert out["rewards"] == [1.0, 0.0, 0.0] == out["scores"]
    assert out["extra_logs"]["unreadable"] == [0.0, 0.0, 1.0]
    failed = reward_func(["What is 6 * 7? 42"], ["What is 6 * 7?"], ["42"])
    assert math.isnan(failed["rewards"][0]) and failed["extra_logs"]["verifier_failed"] == [1.0]


C2 = ("Premise: Suppose there is a closed system of 2 variables, A and B. All the "
      "statistical relations among these 2 variables are as follows: A correlates with B."
      "\nHypothesis: A directly causes B.")  # gold: No
REASONED = ["A and B are adjacent. The answer is No.",
            "A is independent of B. The answer is No.", "The answer is No."]


def test_openrlhf_logs_the_reasoning_components_with_a_weight() -> None:
    prompt = C2 + "\n"
    configure(RewardConfig(workers=0, reasoning_weight=0.5))
    try:
        out = reward_func([prompt + r for r in REASONED], [prompt] * 3, None)
    finally:
        configure(RewardConfig(workers=0))
    assert out["rewards"] == [1.5, 1.0, 1.0]
    logs = out["extra_logs"]
    assert logs["reasoning"][:2] == [1.0, 0.0] and math.isnan(logs["reasoning"][2])
    assert logs["lucky"] == [0.0, 1.0, 0.0] and logs["unsupported"] == [0.0, 0.0, 1.0]
    plain = reward_func([prompt + r for r in REASONED], [prompt] * 3, None)
    assert plain["rewards"] == [1.0, 1.0, 1.0] and "reasoning" not in plain["extra_logs"]


def test_the_reasoning_components_ride_on_the_reward() -> None:
    v = Verifier(RewardConfig(workers=0))
    plain = v.score(Sample(C2, REASONED[1]))
    assert plain.parts is None and "reasoning" not in plain.as_dict()
    asked = v.score(Sample(C2, REASONED[1], reasoning=True))
    assert asked.reward == 1.0 and asked.parts is not None  # weight 0: asked, not paid
    assert asked.as_dict()["reasoning"] == {"reasoning": 0.0, "lucky": True,
                                            "unsupported": False, "claims": 1,
                                            "false_claims": 1}
    with pytest.raises(InputError, match="reasoning_weight"):
        RewardConfig(reasoning_weight=math.inf).checked()


# ---- scoring details ------------------------------------------------------------------------

def test_format_term_and_the_reasons_for_no_reward(slow_family: None) -> None:
    row = ROWS[7]
    v = Verifier(RewardConfig(workers=0, format_weight=0.25, budget_s=0.2))
    tagged = v.score(Sample(_item(row), f"<answer>{_right(row)}</answer>"))
    assert tagged.reward == 1.25 and tagged.format_ok
    assert v.score(Sample(_item(row), _right(row))).reward == 1.0
    huge = v.score(Sample(_item(row), "yes " * 100_000))
    assert huge.reward is None and huge.status == "budget" and "limit" in huge.reason
    spent = v.score(Sample("Slow toy: spin 30.", "yes"))
    assert spent.reward is None and spent.status == "budget" and "time budget" in spent.reason


def test_prompt_windows() -> None:
    assert user_turn("<|start_header_id|>user<|end_header_id|>\n\nQ?<|eot_id|>") == "Q?"
    windows = list(candidates("System says hi.\nPremise: P\nHypothesis: H\nAnswer Yes or No.",
                              ("Answer Yes or No.",)))
    assert "Premise: P\nHypothesis: H" in windows and len(windows) == len(set(windows))


# ---- the hard cap ---------------------------------------------------------------------------

def test_a_sample_past_the_hard_cap_is_killed_and_the_step_goes_on(slow_family: None) -> None:
    row = ROWS[0]
    with Scorer(RewardConfig(workers=1, cap_s=1.0, budget_s=0.5)) as scorer:
        out = scorer.score_many([Sample("Slow toy: wait 60.", "yes"),
                                 Sample("Slow toy: wait 0.", "yes"),
                                 Sample(_item(row), _right(row))])
        assert [r.status for r in out] == ["timeout", "correct", "correct"]
        assert out[0].reward is None and "cap" in out[0].reason
        assert scorer.replaced == 1
