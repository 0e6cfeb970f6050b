"""The verl adapters at verl's own call sites (verl 0.9.1, the current release).

verl itself is not installed (it pulls Ray, vLLM/SGLang and a CUDA torch); its call
sites are mirrored here line for line from its 0.9.1 wheel:

* ``verl/trainer/ppo/reward.py`` ``get_custom_reward_fn``: the function named by
  ``reward.custom_reward_function.{path,name}`` (``path=pkg://module`` imports a
  module) is wrapped as ``partial(_call_with_kwargs, raw_fn, reward_kwargs)``, or
  ``partial(_call_with_kwargs_async, …)`` when it is ``async def``;
* ``verl/experimental/reward_loop/reward_manager/naive.py``
  ``NaiveRewardManager.run_single``: ``extra_info`` gains ``num_turns`` and
  ``rollout_reward_scores``; an ``async def`` function (``inspect.iscoroutinefunction``)
  is awaited, any other runs in the loop's executor; called with ``data_source=``,
  ``solution_str=``, ``ground_truth=``, ``extra_info=``; a dict result gives ``score``
  and every key into ``reward_extra_info``;
* ``verl/experimental/reward_loop/reward_loop.py`` ``RewardLoopWorker.compute_score_batch``:
  one ``asyncio`` task per sample, gathered;
* ``verl/workers/reward_manager/naive.py`` (the legacy manager) collects
  ``reward_extra_info[key].append(value)`` over the batch, and
  ``verl/workers/reward_manager/batch.py`` calls ``compute_score(data_sources=,
  solution_strs=, ground_truths=, extra_infos=)`` once per batch.

Gold 1, flipped 0, unreadable 0; an unscorable sample ``score`` NaN with
``verifier_failed`` 1 (verl has no way to leave a sample out: see docs/trainers.md),
the same keys for every sample, never an exception.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import math
from collections import defaultdict
from functools import partial
from typing import Any

import pytest

from causal_oracle.rewards import RewardConfig, configure

ITEM = ("Premise: Suppose there is a closed system of 2 variables, A and B. All the "
        "statistical relations among these 2 variables are as follows: A correlates with B."
        "\nHypothesis: A directly causes B.")  # gold: No
SAMPLES = [  # (solution_str, ground_truth, extra_info): what verl's dataset rows carry
    ("No.", ITEM, {"prompt": [{"role": "user", "content": ITEM}]}),
    ("The answer is Yes.", ITEM, {"prompt": ITEM}),
    ("I would rather not say.", ITEM, {}),  # the question read from ground_truth
    ("Yes.", "42", {"prompt": "What is 6 * 7?"}),  # nothing to verify: no reward
]
EXPECTED = [1.0, 0.0, 0.0, None]


@pytest.fixture(autouse=True)
def _in_process() -> Any:
    configure(RewardConfig(workers=0))
    yield
    configure()


# ---- verl 0.9.1, verl/trainer/ppo/reward.py --------------------------------------------------

def _call_with_kwargs(raw_fn: Any, extra_kwargs: dict, *args: Any, **kwargs: Any) -> Any:
    merged_kwargs = {**kwargs, **extra_kwargs}
    return raw_fn(*args, **merged_kwargs)


async def _call_with_kwargs_async(raw_fn: Any, extra_kwargs: dict, *args: Any,
                                  **kwargs: Any) -> Any:
    merged_kwargs = {**kwargs, **extra_kwargs}
    return await raw_fn(*args, **merged_kwargs)


def get_custom_reward_fn(path: str, name: str, reward_kwargs: dict | None = None) -> Any:
    assert path.startswith("pkg://")  # load_module: pkg:// imports the module
    raw_fn = getattr(importlib.import_module(path[len("pkg://"):].replace("/", ".")), name)
    if not inspect.iscoroutinefunction(raw_fn):
        return partial(_call_with_kwargs, raw_fn, dict(reward_kwargs or {}))
    return partial(_call_with_kwargs_async, raw_fn, dict(reward_kwargs or {}))


# ---- verl 0.9.1, reward_loop/reward_manager/naive.py and reward_loop.py ----------------------

async def run_single(compute_score: Any, data_source: str, response_str: str,
                     ground_truth: Any, extra_info: dict) -> dict:
    loop = asyncio.get_running_loop()
    extra_info["num_turns"] = None
    extra_info["rollout_reward_scores"] = {}
    if inspect.iscoroutinefunction(compute_score):
        result = await compute_score(data_source=data_source, solution_str=response_str,
                                     ground_truth=ground_truth, extra_info=extra_info)
    else:
        result = await loop.run_in_executor(None, lambda: compute_score(
            data_source=data_source, solution_str=response_str, ground_truth=ground_truth,
            extra_info=extra_info))
    reward_extra_info = {}
    if isinstance(result, dict):
        score = result["score"]
        for key, value in result.items():
            reward_extra_info[key] = value
    else:
        score = result
        reward_extra_info["acc"] = score
    return {"reward_score": score, "reward_extra_info": reward_extra_info}


async def compute_score_batch(compute_score: Any) -> list[dict]:
    tasks = [asyncio.create_task(run_single(compute_score, "causal_oracle", s, truth,
                                            dict(info)))
             for s, truth, info in SAMPLES]
    return list(await asyncio.gather(*tasks))


def _check(scores: list[float], extra: dict[str, list[Any]]) -> None:
    for got, want in zip(scores, EXPECTED, strict=True):
        assert (math.isnan(got) if want is None else got == want), scores
    assert extra["verifier_failed"] == [0.0, 0.0, 0.0, 1.0]
    assert extra["unreadable"] == [0.0, 0.0, 1.0, 0.0]
    assert extra["status"] == ["correct", "wrong", "unreadable", "no_question"]
    assert "no benchmark" in extra["reason"][3]
    for key, values in extra.items():  # NaN only in score and acc of the unscored sample
        nan = [isinstance(v, float) and math.isnan(v) for v in values]
        assert nan == ([False] * 3 + [True] if key in ("score", "acc") else [False] * 4), key


@pytest.mark.parametrize("name", ["compute_score", "compute_score_async"])
def test_the_reward_loop_calls_sync_and_async_functions(name: str) -> None:
    fn = get_custom_reward_fn("pkg://causal_oracle.rewards.trainers", name,
                              {"unused_knob": 1})  # reward_kwargs are passed through
    assert inspect.iscoroutinefunction(fn) == (name == "compute_score_async")
    outputs = asyncio.run(compute_score_batch(fn))
    keys = {frozenset(o["reward_extra_info"]) for o in outputs}
    assert len(keys) == 1  # the same keys for every sample: verl stacks them per key
    extra: dict[str, list[Any]] = defaultdict(list)
    for o in outputs:
        for key, value in o["reward_extra_info"].items():
            extra[key].append(value)
    _check([o["reward_score"] for o in outputs], extra)


def test_the_legacy_batch_manager_calls_the_batched_function() -> None:
    fn = get_custom_reward_fn("pkg://causal_oracle.rewards.trainers", "compute_score_batch")
    extras = [dict(info) for _, _, info in SAMPLES]
    for extra_info in extras:
        extra_info["rollout_reward_scores"] = {}
    scores = fn(data_sources=["causal_oracle"] * len(SAMPLES),
                solution_strs=[s for s, _, _ in SAMPLES],
                ground_truths=[t for _, t, _ in SAMPLES], extra_infos=extras)
    extra: dict[str, list[Any]] = defaultdict(list)
    for score in scores:
        for key, value in score.items():
            extra[key].append(value)
    _check([s["score"] for s in scores], extra)


REASONED = [  # a true claim; a false claim behind the right answer (lucky); no claim
    ("A and B are adjacent. The answer is No.", ITEM, {"prompt": ITEM}),
    ("A is independent of B. The answer is No.", ITEM, {"prompt": ITEM}),
    ("No.", ITEM, {"prompt": ITEM}),
    ("Yes.", "42", {"prompt": "What is 6 * 7?"}),
]


@pytest.mark.parametrize("name", ["compute_score", "compute_score_async"])
def test_a_reasoning_weight_adds_its_components(name: str) -> None:
    configure(RewardConfig(workers=0, reasoning_weight=0.5))
    fn = get_custom_reward_fn("pkg://causal_oracle.rewards.trainers", name)

    async def batch() -> list[dict]:
        return list(await asyncio.gather(*(run_single(fn, "causal_oracle", s, t, dict(i))
                                           for s, t, i in REASONED)))

    outputs = asyncio.run(batch())
    assert len({frozenset(o["reward_extra_info"]) for o in outputs}) == 1
    extra: dict[str, list[Any]] = defaultdict(list)
    for o in outputs:
        for key, value in o["reward_extra_info"].items():
            extra[key].append(value)
    assert [o["reward_score"] for o in outputs][:3] == [1.5, 1.0, 1.0]
    assert extra["reasoning"][:2] == [1.0, 0.0]
    assert all(math.isnan(v) for v in extra["reasoning"][2:])  # no claim; no reward
    assert extra["lucky"] == [0.0, 1.0, 0.0, 0.0]
    assert extra["unsupported"] == [0.0, 0.0, 1.0, 0.0]


def test_the_default_results_carry_no_reasoning_keys() -> None:
    from causal_oracle.rewards.trainers import compute_score

    out = compute_score("causal_oracle", "A and B are adjacent. The answer is No.", ITEM)
    assert not {"reasoning", "lucky", "unsupported"} & set(out) and out["score"] == 1.0
