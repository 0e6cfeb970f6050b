"""Library fuzz: mutated prompts of every registered family never raise anything but
``OracleError`` (a clean, explained error) — never a bare ``IndexError``, ``KeyError``,
``RecursionError`` or any other exception a user cannot act on.

The mutations are those of real benchmark text that breaks generators and parsers:
deleted, duplicated or swapped spans, a statement dropped from a premise (a closed
world that no longer fits its class), names swapped, Unicode whitespace, tags and
arrows spliced in.  The default run takes seconds; the ``slow`` run checks 20,000
prompts (``LIBRARY_FUZZ`` sets the number).
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from pathlib import Path

import pytest
from conftest import load_rows

import causal_oracle as co
from causal_oracle.entry import REGISTRY, Limits, OracleError, Service

TESTS = Path(__file__).resolve().parent
SPLICES = ("\u3000", "\u00a0", "\t", "\n", "<answer>", "</answer>", "→", " -> ", "**",
           "\ud800", ".", ",", " and ", " given ", "However, ", "Hypothesis:", "Premise:",
           "A", "Z9", "the", "0", "100%", "{", "'")


def _seeds() -> list[str]:
    c2c = load_rows("n4")[:40] + load_rows("n5_sample")[:20] + load_rows("n6_sample")[:10]
    out = [f"Premise: {r['premise']}\nHypothesis: {r['hypothesis']}" for r in c2c]
    out += [json.loads(line)["prompt"] for line in
            (TESTS / "data" / "cibench" / "items_sample.jsonl").open(encoding="utf-8")][:60]
    out += [json.loads(line)["prompt"] for line in
            (TESTS.parent / "examples" / "ie_sample.jsonl").open(encoding="utf-8")][:20]
    out += [f"{r['description']}\n{r['question']}" for r in
            (json.loads(line) for line in
             (TESTS / "data" / "clear" / "items_subset.jsonl").open(encoding="utf-8"))][:60]
    out += [r["query"] for r in
            json.loads((TESTS / "data" / "corr2causepp" / "sample.json").read_text())[:30]]
    return out


def _drop_statement(text: str, rng: random.Random) -> str:
    """A premise with one sentence of its statement list removed."""
    head, sep, rest = text.partition("follows:")
    if not sep:
        head, sep, rest = text.partition("relations are:")
    parts = rest.split(".") if "follows" in sep else rest.split(";")
    if len(parts) < 3:
        return text
    del parts[rng.randrange(len(parts) - 1)]
    return head + sep + ("." if "follows" in sep else ";").join(parts)


def mutate(text: str, rng: random.Random) -> str:
    """One to three random edits of ``text``."""
    for _ in range(rng.randint(1, 3)):
        n = len(text)
        i, j = sorted((rng.randrange(n + 1), rng.randrange(n + 1)))
        choice = rng.randrange(7)
        if choice == 0:
            text = text[:i] + text[j:]
        elif choice == 1:
            text = text[:j] + text[i:j] + text[j:]
        elif choice == 2:
            k = rng.randrange(n + 1)
            text = text[:k] + rng.choice(SPLICES) + text[k:]
        elif choice == 3:
            text = _drop_statement(text, rng)
        elif choice == 4 and n:
            a, b = sorted(rng.sample(range(n), 2)) if n > 1 else (0, 0)
            text = text[:a] + text[b:b + 8] + text[a + 8:b] + text[a:a + 8] + text[b + 8:]
        elif choice == 5:
            text = text.replace(" A ", " B ", 1).replace(" B ", " A ", 1)
        else:
            text = text.upper() if rng.random() < 0.1 else text.lower()
    return text


def _run(count: int, seed: int) -> Counter[str]:
    rng = random.Random(seed)
    seeds = _seeds()
    service = Service(Limits(budget_s=2.0, cache_items=2048))
    outcomes: Counter[str] = Counter()
    for k in range(count):
        prompt = mutate(rng.choice(seeds), rng)
        reply = mutate(rng.choice(("Yes", "No.", "Answer: entailment", "A -> B", "None",
                                   "{'A', 'B'}", "x, happened")), rng)
        task = rng.choice(REGISTRY.tasks())
        for verb, args in ((service.answer, (prompt,)), (service.grade, (prompt, reply)),
                           (service.answer, (prompt, task))):
            try:
                verb(*args)  # type: ignore[operator]
            except OracleError:
                outcomes["clean error"] += 1
            except Exception as error:  # the contract: this must never happen
                raise AssertionError(f"prompt {k} raised {type(error).__name__}: {error}\n"
                                     f"{prompt!r}") from error
            else:
                outcomes["answered"] += 1
    return outcomes


def test_mutated_prompts_get_answers_or_clean_errors() -> None:
    outcomes = _run(300, 1)
    assert outcomes["answered"] > 0 and outcomes["clean error"] > 0


@pytest.mark.slow
def test_twenty_thousand_mutated_prompts() -> None:
    """``FUZZ_SEED`` picks another seed (as the other surfaces' fuzzers take it)."""
    outcomes = _run(int(os.environ.get("LIBRARY_FUZZ", "20000")),
                    int(os.environ.get("FUZZ_SEED", "20261123")))
    print(dict(outcomes))
    assert sum(outcomes.values()) >= 3 * 20000 or "LIBRARY_FUZZ" in os.environ


def test_the_unfaithful_reproducer_is_a_clean_answer() -> None:
    premise = ("Suppose there is a closed system of 3 variables, A, B and C. All the "
               "statistical relations among these 3 variables are as follows: A is "
               "independent of B. A is independent of C. A and C are independent given B. "
               "B is independent of C. B and C are independent given A.")
    result = co.verify(premise, "A directly causes B.")
    assert result.relation == "inconsistent" and result.label is None
    assert result.reason()


def test_what_the_library_fuzz_found_in_clear() -> None:
    """A self-loop in a CLEAR graph is a clean parse error; a triple naming a node the
    graph lacks is no fork (the checker agreed with nothing before: NetworkXError)."""
    with pytest.raises(co.InputError, match="joins 'O' to itself"):
        co.answer("Given a DAG (directed acyclic graph) with nodes P, O, R, C and directed "
                  "edges O-O, P->R, R->C.\nAre there any v-structure of this graph?")
    answered = co.answer("Given an ADMG (acyclic directed mixed graph) with nodes C, I, E, O, "
                         "directed edges E->O, I->E, C->O, C->E, C->I and bi-directed edges "
                         "E<->O.\nDoes nodes {I, O, Cthe} form a fork in this graph?")
    assert answered.answer_text == "No." and answered.certificate_checked
