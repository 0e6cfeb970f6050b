"""``causal_ladder``: CLadder-style questions, seeded, answered by the oracle from their text.

Through Reasoning Gym's factory when it is installed (the ``rl`` extra), else standalone
with the same interface.  Rung-1 answers and one-term effects are re-derived here from the
printed percentages (read with this file's own regular expression, not the project's
parser).
"""

from __future__ import annotations

import doctest
import importlib
import random
import re
import statistics
from collections import Counter
from typing import Any

import pytest

from causal_oracle.entry import InputError, default
from causal_oracle.entry.families.cladder_generator import (
    FIXED_LABEL,
    GRAPHS,
    NO_MARGIN,
    QUERY_TYPES,
    RUNGS,
    LadderKnobs,
    draw,
)
from causal_oracle.environments import CATALOGUE, create
from causal_oracle.environments.ladder import LADDER_NAME, LadderConfig, LadderDataset

FLIP = {"yes": "no", "no": "yes"}
PERCENT = re.compile(r"(\d+)%")


@pytest.fixture(scope="module")
def rg() -> Any:
    return pytest.importorskip("reasoning_gym")


@pytest.fixture(scope="module")
def items() -> list[dict[str, Any]]:
    return list(LadderDataset(LadderConfig(size=200, seed=1)))


@pytest.mark.parametrize("module", ["causal_oracle.entry.families.cladder_wording",
                                    "causal_oracle.entry.families.cladder_generator",
                                    "causal_oracle.environments.ladder"])
def test_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0


def test_reasoning_gym_factory_is_deterministic_and_certified(rg: Any) -> None:
    first = rg.create_dataset(LADDER_NAME, size=200, seed=1)
    entries = list(first)
    assert entries == list(rg.create_dataset(LADDER_NAME, size=200, seed=1))
    other = list(rg.create_dataset(LADDER_NAME, size=50, seed=2))
    assert sum(a["question"] != b["question"] for a, b in zip(entries, other, strict=False)) > 40
    assert [first.score_answer(e["answer"], e) for e in entries] == [1.0] * 200
    assert [first.score_answer(FLIP[e["answer"]], e) for e in entries] == [0.0] * 200
    assert first.score_answer("I am not sure.", entries[0]) == 0.0
    assert first.score_answer(None, entries[0]) == 0.0


def test_the_answer_is_the_oracles_for_the_text(items: list[dict[str, Any]]) -> None:
    anti = list(LadderDataset(LadderConfig(size=30, seed=8, stories=("anticommonsense",))))
    for e in items[:60] + anti:
        meta = e["metadata"]
        assert e["question"] == f"{meta['item']}\nAnswer yes or no."
        answer = default().answer(meta["item"])
        assert answer.task == "CLadder" and answer.answer_text == e["answer"]
        assert answer.answer["query_type"] == meta["difficulty"]["query_type"]


def _effect(e: dict[str, Any]) -> float:
    """The quantity asked, from the printed percentages (rung 1, and one-term effects)."""
    d = e["metadata"]["difficulty"]
    p = [int(x) / 100 for x in PERCENT.findall(e["metadata"]["item"])]
    if d["query_type"] == "marginal":  # P(X), P(Y | X=0), P(Y | X=1)
        return p[0] * p[2] + (1 - p[0]) * p[1] - 0.5
    if d["query_type"] == "correlation":  # P(X), P(X=0, Y), P(X=1, Y)
        return p[2] / p[0] - p[1] / (1 - p[0])
    return p[1] - p[0]  # P(Y | X=0), P(Y | X=1)


def test_answers_match_the_printed_numbers(items: list[dict[str, Any]]) -> None:
    checked = 0
    for e in items:
        d = e["metadata"]["difficulty"]
        one_term = d["query_type"] in ("ate", "ett") and d["graph"] in (
            "chain", "fork", "mediation", "diamond", "arrowhead")
        if d["query_type"] == "collider_bias":  # X never causes Y in a collision graph
            assert e["answer"] == ("no" if d["polarity"] == "positive" else "yes")
            continue
        if d["query_type"] not in ("marginal", "correlation") and not one_term:
            continue
        if d["margin"] < 0.02:
            continue  # rounding decides; the oracle's interval is the judge there
        value = _effect(e)
        if d["query_type"] == "ett":
            value = -value  # "if X had not …": the effect of going back to X = 0
        positive = d["polarity"] == "positive"
        assert e["answer"] == ("yes" if (value > 0) == positive else "no"), e["question"]
        checked += 1
    assert checked > 40


def _literal(text: str) -> tuple[str, bool]:
    """A nonsense story's literal: "zory" / "not zory" / "an individual is (not) zory"."""
    for lead in ("an individual is ", "the individual is "):
        text = text.removeprefix(lead)
    return (text[4:], False) if text.startswith("not ") else (text, True)


def _det_answer(item: str) -> str:
    """A nonsense deterministic counterfactual, evaluated with this file's own reading."""
    given = item.split("We know that ", 1)[1]
    laws, _, rest = given.partition(" We observed ")
    observed, _, asked = rest.partition(" Would ") if rest else ("", "", "")
    if not asked:
        laws, _, asked = laws.partition(" Would ")
    values: dict[str, bool] = {}
    for part in observed.rstrip(".").split(" and ") if observed else []:
        name, value = _literal(part.strip())
        values[name] = value
    outcome, _, change = asked.rstrip("?").partition(" if ")
    new, _, _ = change.partition(" instead of ")
    cause, value = _literal(new)
    values[cause] = value
    rules = [law.strip().rstrip(".") for law in laws.split(". ") if law.strip()]
    for _ in rules:  # in order of the graph: each law once all its causes are known
        for law in rules:
            causes, _, effect = law.partition(" causes ")
            joiner = " and " if " and " in causes else " or "
            literals = [_literal(c) for c in causes.split(joiner)]
            name, polarity = _literal(effect)
            if name in values:  # known: observed, the changed cause, or set already
                continue
            if all(n in values for n, _ in literals):
                held = [values[n] == v for n, v in literals]
                fired = all(held) if joiner == " and " else any(held)
                values[name] = fired == polarity
    name, polarity = _literal(outcome)
    return "yes" if values[name] == polarity else "no"


def test_deterministic_counterfactuals_follow_the_stated_mechanisms() -> None:
    data = LadderDataset(LadderConfig(size=60, seed=4, query_types=("det-counterfactual",),
                                      stories=("nonsense",)))
    for e in data:
        assert e["answer"] == _det_answer(e["metadata"]["item"]), e["question"]


def test_every_rung_query_type_and_graph_is_drawn(items: list[dict[str, Any]]) -> None:
    d = [e["metadata"]["difficulty"] for e in items]
    assert {x["rung"] for x in d} == {1, 2, 3}
    assert {x["query_type"] for x in d} == set(QUERY_TYPES)
    assert {x["graph"] for x in d} == set(GRAPHS)
    assert {x["nonsense"] for x in d} == {True, False}
    labels = Counter(e["answer"] for e in items)
    assert abs(labels["yes"] - labels["no"]) <= 30, labels
    for x in d:
        assert x["rung"] == RUNGS[x["query_type"]]


def test_knobs_change_the_measured_quantities() -> None:
    def measured(**knobs: Any) -> list[dict[str, Any]]:
        return [e["metadata"]["difficulty"] for e in LadderDataset(LadderConfig(
            size=40, seed=3, **knobs))]

    narrow = measured(max_margin=0.05)
    wide = measured(min_margin=0.3)
    # questions the graph decides have no margin (None): only min_margin 0 admits them
    assert all(x["margin"] <= 0.05 for x in narrow if x["margin"] is not None)
    assert all(x["query_type"] in NO_MARGIN or (x["query_type"], x["graph"]) in FIXED_LABEL
               for x in narrow if x["margin"] is None)
    assert all(x["margin"] >= 0.3 and x["query_type"] not in NO_MARGIN for x in wide)
    assert statistics.mean(x["margin"] for x in wide) > \
        statistics.mean(x["margin"] for x in narrow if x["margin"] is not None) + 0.25
    assert {x["rung"] for x in measured(min_rung=3)} == {3}
    assert {x["graph"] for x in measured(graphs=("fork", "chain"))} == {"fork", "chain"}
    assert {x["query_type"] for x in measured(query_types=("ate", "nie"))} == {"ate", "nie"}
    assert not any(x["nonsense"] for x in measured(stories=("commonsense",)))
    assert all(x["nonsense"] for x in measured(stories=("nonsense",)))
    anti = measured(stories=("anticommonsense",))
    assert all(x["anticommonsense"] and not x["nonsense"] for x in anti)
    assert len({x["anticommonsense"] for x in anti}) > 5
    assert not any(x["anticommonsense"] for x in measured())  # not drawn unless asked
    unbalanced = [e["answer"] for e in LadderDataset(LadderConfig(
        size=40, seed=3, query_types=("correlation",), graphs=("collision",),
        balanced=False))]
    assert set(unbalanced) == {"no"}  # a collider's causes are independent


def test_bad_and_infeasible_knobs_fail_at_creation(rg: Any) -> None:
    bad: list[dict[str, Any]] = [
        {"query_types": ("counterfactual",)}, {"graphs": ("tree",)}, {"min_rung": 0},
        {"min_rung": 3, "max_rung": 2}, {"min_margin": 0.5, "max_margin": 0.2},
        {"stories": ("fairy tale",)}, {"query_types": ()},
        {"query_types": ("nde",), "graphs": ("fork",)},  # nde is asked of mediation only
        {"query_types": ("ate",), "max_rung": 1},
        # a collider's causes never correlate: no 'yes' for a balanced dataset
        {"query_types": ("correlation",), "graphs": ("collision",), "balanced": True},
        {"min_margin": 0.99},  # no effect of a drawn model is that far from its decision point
    ]
    for knobs in bad:
        with pytest.raises(InputError):
            create(LADDER_NAME, **knobs)
        with pytest.raises(InputError):
            rg.create_dataset(LADDER_NAME, **knobs)
    with pytest.raises(InputError, match=r"unknown knob .rungs.*known: min_rung, max_rung"):
        create(LADDER_NAME, rungs=2)
    with pytest.raises(InputError, match="graphs must be among"):
        LadderConfig(graphs=("tree",))
    assert LADDER_NAME in CATALOGUE


def test_draw_is_pure_in_its_seed() -> None:
    knobs = LadderKnobs(query_types=("nde", "backadj"))
    assert draw(knobs, random.Random(11), default()) == draw(knobs, random.Random(11), default())


def test_the_curriculum_moves_the_measured_knobs(rg: Any) -> None:
    from reasoning_gym.factory import create_curriculum

    curriculum = create_curriculum(LADDER_NAME)

    def measured() -> list[dict[str, Any]]:
        config = curriculum.generate_configuration({"size": 40, "seed": 3})
        return [e["metadata"]["difficulty"] for e in LadderDataset(config)]

    easy = measured()
    for attribute in curriculum.attributes:
        while curriculum.increment_attr_level(attribute):
            pass
    hard = measured()
    assert {x["rung"] for x in easy} < {x["rung"] for x in hard} == {1, 2, 3}
    assert len({x["graph"] for x in hard}) > len({x["graph"] for x in easy})
    assert not any(x["nonsense"] for x in easy) and any(x["nonsense"] for x in hard)
    assert any(x["anticommonsense"] for x in hard)
    assert max(x["margin"] or 0 for x in hard) <= 0.05 < max(x["margin"] or 0 for x in easy)
