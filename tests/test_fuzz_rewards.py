"""Reward-adapter fuzz: every trainer's call shape (TRL sync and async, verl single and
batched, OpenRLHF) with mutated values — every type, NaN, None, huge and surrogate
strings, nested chat messages, misaligned columns — never raises, and returns what
that trainer expects: a finite reward or its "no reward" (TRL ``None``; verl and
OpenRLHF NaN, with ``verifier_failed`` 1 exactly then), verl dicts with the same keys
and no other NaN, reasons bounded.  The default run is a few hundred calls; the
``slow`` run 20,000 (``FUZZ_COUNT``; ``FUZZ_SEED`` another seed)."""

from __future__ import annotations

import asyncio
import math
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from fuzz_values import ITEMS, REPLIES, messages, scalar, seed, slow_count, value

from causal_oracle.rewards import (
    RewardConfig,
    compute_score,
    compute_score_batch,
    configure,
    reward_func,
    trl_reward,
    trl_reward_async,
)
from causal_oracle.rewards.scoring import FAILED, LOG_CHARS, SCORED

STATUSES = set(SCORED) | set(FAILED)
VERL_KEYS = {"score", "acc", "unreadable", "verifier_failed", "relation", "task", "status",
             "reason"}


@pytest.fixture(autouse=True, scope="module")
def in_process() -> Iterator[None]:
    configure(RewardConfig(workers=0, budget_s=2.0, cap_s=2.0))
    yield
    configure(RewardConfig(workers=0))


def _prompt(rng: random.Random) -> Any:
    return messages(rng, rng.choice(ITEMS)) if rng.random() < 0.6 else value(rng)


def _reply(rng: random.Random) -> Any:
    return messages(rng, rng.choice(REPLIES)) if rng.random() < 0.6 else value(rng)


def _column(rng: random.Random, n: int) -> Any:
    kind = rng.randrange(4)
    if kind == 0:
        return scalar(rng)
    if kind == 1:
        return [scalar(rng) for _ in range(rng.randrange(n + 2))]
    return value(rng)


def _finite_or_none(r: Any) -> bool:
    return r is None or (isinstance(r, float) and math.isfinite(r))


def _check_verl(out: Any) -> None:
    assert isinstance(out, dict) and VERL_KEYS <= set(out) <= VERL_KEYS | {"format"}
    failed = out["verifier_failed"] == 1.0
    assert out["status"] in STATUSES and isinstance(out["reason"], str)
    assert len(out["reason"]) <= LOG_CHARS + 40
    for key, v in out.items():
        if isinstance(v, float) and math.isnan(v):
            assert failed and key in ("score", "acc", "format"), (key, out)
    assert math.isnan(out["score"]) == failed


def _check_openrlhf(out: Any, n: int) -> None:
    rewards, failed = out["rewards"], out["extra_logs"]["verifier_failed"]
    assert len(rewards) == len(failed) == n
    assert all(math.isnan(r) == (f == 1.0) for r, f in zip(rewards, failed, strict=True))


def one_call(rng: random.Random, counts: Counter[str]) -> None:
    n = rng.randrange(1, 4)
    shape = rng.randrange(6)
    if shape in (0, 1):
        prompts = [_prompt(rng) for _ in range(n + rng.randrange(-1, 2))]
        replies = [_reply(rng) for _ in range(n)]
        columns = {c: _column(rng, n) for c in ("premise", "hypothesis", "task", "other")
                   if rng.random() < 0.3}
        if shape == 0:
            out = trl_reward(prompts, replies, **columns)
        else:
            out = asyncio.run(trl_reward_async(prompts, replies, **columns))
        assert len(out) == n and all(_finite_or_none(r) for r in out), out
        counts["trl"] += 1
        counts["trl_no_reward"] += sum(r is None for r in out)
    elif shape == 2:
        info = {k: value(rng) for k in ("prompt", "premise", "hypothesis", "task", "index")
                if rng.random() < 0.5} if rng.random() < 0.9 else value(rng)
        if rng.random() < 0.5 and isinstance(info, dict):
            info["prompt"] = _prompt(rng)
        _check_verl(compute_score(value(rng), _reply(rng), value(rng), info))
        counts["verl"] += 1
    elif shape == 3:
        infos = [{"prompt": _prompt(rng), "task": scalar(rng)} if rng.random() < 0.7
                 else value(rng) for _ in range(n)]
        outs = compute_score_batch([value(rng)] * n, [_reply(rng) for _ in range(n)],
                                   [value(rng) for _ in range(n)], infos)
        assert len(outs) == n
        for out in outs:
            _check_verl(out)
        counts["verl_batch"] += 1
    else:
        prompts = [rng.choice(ITEMS) if rng.random() < 0.7 else scalar(rng) for _ in range(n)]
        queries = [(p + str(rng.choice(REPLIES))) if isinstance(p, str) and rng.random() < 0.8
                   else scalar(rng) for p in prompts]
        labels = [scalar(rng) for _ in range(rng.randrange(n + 1))] if rng.random() < 0.5 \
            else None
        _check_openrlhf(reward_func(queries, prompts, labels), n)
        counts["openrlhf"] += 1


def run(rng_seed: int, calls: int) -> Counter[str]:
    rng = random.Random(rng_seed)
    counts: Counter[str] = Counter()
    for _ in range(calls):
        one_call(rng, counts)
    return counts


def test_reward_adapters_fuzz() -> None:
    counts = run(seed(27), 300)
    assert counts["trl"] and counts["verl"] and counts["openrlhf"]


@pytest.mark.slow
def test_reward_adapters_fuzz_slow() -> None:
    counts = run(seed(2727), slow_count())
    print("reward adapters:", dict(counts))
    assert sum(counts[k] for k in ("trl", "verl", "verl_batch", "openrlhf")) == slow_count()
