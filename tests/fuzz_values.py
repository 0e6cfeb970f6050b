"""Random values of every type for the surface fuzzers (rewards, HTTP, environments).

A trainer, a client or a curriculum can hand over anything JSON or a dataframe holds:
strings (empty, huge, with lone surrogates, chat templates, NaN-looking text), numbers
(0, negative, NaN, ±Infinity, huge), booleans, None, lists and dicts (nested).  Each
fuzzer draws from ``value`` with its own seeded ``random.Random`` and checks the
contract of its surface.  ``FUZZ_SEED`` picks the seed (default: each fuzzer's own) and
``FUZZ_COUNT`` the number of inputs of a slow run (default 20,000).
"""

from __future__ import annotations

import os
import random
from typing import Any

PREMISE = ("Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
           "relations among these 3 variables are as follows: A correlates with C. B "
           "correlates with C. However, A is independent of B.")
HYPOTHESES = ("A directly causes C.", "C directly causes A.", "A causes something else "
              "which causes C.", "There exists at least one collider (i.e., common effect) "
              "of A and B.")
ITEMS = (*(f"Premise: {PREMISE}\nHypothesis: {h}" for h in HYPOTHESES),
         "Premise: Suppose there is a closed system of 2 variables, A and B. All the "
         "statistical relations among these 2 variables are as follows: A correlates with "
         "B.\nHypothesis: A directly causes B.")
REPLIES = ("Yes.", "No.", "<answer>Yes</answer>", "<think>hmm</think>No", "", "maybe",
           "entailment", "\ud800", "Yes" * 50)
TEXTS = ("", " ", "\ud800", "\udfff tail", "NaN", "null", "0", "Yes", "x" * 5000,
         "<|im_start|>user\nhi<|im_end|>", "Premise:", "Hypothesis:", "\x00", "é" * 40,
         "corr2cause", "cladder", "CLEAR", "CP", "{", "[[", "\u3000")


def seed(default: int) -> int:
    return int(os.environ.get("FUZZ_SEED", default))


def slow_count() -> int:
    return int(os.environ.get("FUZZ_COUNT", 20_000))


def scalar(rng: random.Random) -> Any:
    """A random JSON-or-dataframe scalar."""
    kind = rng.randrange(10)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice((True, False))
    if kind == 2:
        return rng.choice((0, 1, -1, 3, 2 ** 70, -(2 ** 63)))
    if kind == 3:
        return rng.choice((0.0, 1.5, -2.5, float("nan"), float("inf"), float("-inf"), 1e308))
    if kind in (4, 5):
        return rng.choice(TEXTS)
    if kind == 6:
        return rng.choice(ITEMS)
    if kind == 7:
        return rng.choice(REPLIES)
    if kind == 8:
        text = rng.choice(ITEMS)
        at = rng.randrange(len(text) + 1)
        return text[:at] + rng.choice(TEXTS) + text[at + rng.randrange(5):]
    return "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(12)))


def value(rng: random.Random, depth: int = 0) -> Any:
    """A random value: mostly scalars, sometimes a list or dict of values (nested)."""
    kind = rng.randrange(8)
    if kind == 0 and depth < 4:
        return [value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 1 and depth < 4:
        return {rng.choice(("role", "content", "text", "type", "x", "output")):
                value(rng, depth + 1) for _ in range(rng.randrange(4))}
    return scalar(rng)


def messages(rng: random.Random, text: Any) -> Any:
    """``text`` as a chat message list, a templated string, or itself."""
    kind = rng.randrange(4)
    if kind == 0:
        return [{"role": "system", "content": "Be brief."}, {"role": "user", "content": text}]
    if kind == 1 and isinstance(text, str):
        return f"<|im_start|>user\n{text}<|im_end|>\n<|im_start|>assistant\n"
    if kind == 2:
        return [{"role": "assistant", "content": text}]
    return text
