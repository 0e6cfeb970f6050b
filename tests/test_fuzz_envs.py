"""Environment configuration fuzz: every dataset made with random knobs — values near
the defaults of the right type (so many configurations are valid, some infeasible) and
values of every other type ('4', None, 1.5, NaN, lists, dicts), sometimes an unknown knob —
either is made or raises ``InputError`` naming a knob it was given (or the known ones);
never ``TypeError``/``ValueError``.  Every tenth dataset made draws items and grades
their gold answers: made means its items come (an infeasible combination fails at
creation, not mid-training).  The default run is a few hundred configurations; the
``slow`` run 20,000 (``FUZZ_COUNT``; ``FUZZ_SEED``)."""

from __future__ import annotations

import dataclasses
import math
import random
import typing
from collections import Counter
from typing import Any

import pytest
from fuzz_values import seed, slow_count, value

from causal_oracle.entry import InputError
from causal_oracle.environments import CATALOGUE, create


def _near(rng: random.Random, hint: Any, default: Any) -> Any:
    """A value of the declared type near the default (a subset of a default list)."""
    options = [a for a in typing.get_args(hint) if a is not type(None)]
    if options and len(options) < len(typing.get_args(hint)):
        if rng.random() < 0.2:
            return None
        hint = options[0]
    if hint is bool:
        return rng.random() < 0.5
    if hint is int:
        base = default if isinstance(default, int) and default < 100 else 6
        return rng.choice((base, base - 1, base + 1, base + 2, 0, 1, 3, 4, 5, -1))
    if hint is float:
        return rng.choice((0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2, -0.1))
    if typing.get_origin(hint) is tuple and isinstance(default, tuple) and default:
        names = list(default)
        picked = rng.sample(names, rng.randint(1, min(3, len(names))))
        return tuple(picked) if rng.random() < 0.8 else [*picked, "bogus"]
    return default


def configuration(rng: random.Random, config_class: type) -> dict[str, Any]:
    hints = typing.get_type_hints(config_class)
    knobs: dict[str, Any] = {"size": rng.choice((2, 5, 0)), "seed": rng.randrange(100)}
    for field in dataclasses.fields(config_class):
        if field.name in ("size", "seed") or rng.random() > 0.25:
            continue
        knobs[field.name] = value(rng) if rng.random() < 0.3 else \
            _near(rng, hints[field.name], field.default)
    if rng.random() < 0.03:
        knobs[rng.choice(("min_node", "nodes", "Balanced", "x"))] = 1
    return knobs


def one(rng: random.Random, counts: Counter[str]) -> None:
    name = rng.choice(sorted(CATALOGUE))
    knobs = configuration(rng, CATALOGUE[name][1])
    try:
        data = create(name, **knobs)
    except InputError as error:
        message = str(error)
        assert "unknown knob" in message or any(k in message for k in knobs), (knobs, message)
        counts["refused"] += 1
        return
    counts["made"] += 1
    if counts["made"] % 10 == 0:
        for i in range(2):
            entry = data[i]
            score = data.score_answer(entry["answer"], entry)
            # a gold answer scores 1, plus the reasoning term when its weight is set (the
            # share of the answer's own checkable claims that are true: e.g. a CI-Bench
            # adjustment set read as a claim)
            weight = getattr(data.config, "reasoning_weight", 0.0)
            expected = 1.0 + (weight * data.reasoning_score(entry["answer"], entry)[0]
                              if weight else 0.0)
            assert score == expected or math.isnan(score), (name, knobs, i, score)
            counts["items"] += 1


def run(rng_seed: int, n: int) -> Counter[str]:
    rng = random.Random(rng_seed)
    counts: Counter[str] = Counter()
    for _ in range(n):
        one(rng, counts)
    return counts


def test_environment_configurations_fuzz() -> None:
    counts = run(seed(5), 300)
    assert counts["made"] and counts["refused"]


@pytest.mark.slow
def test_environment_configurations_fuzz_slow() -> None:
    counts = run(seed(505), slow_count())
    print("environments:", dict(counts))
    assert counts["made"] + counts["refused"] == slow_count()
