"""``causal_cibench``: procedural CI-Bench items — determinism, certified answers, measured
knobs, the upstream text byte for byte.

Through Reasoning Gym's own factory when it is installed, else standalone with the same
interface; the upstream rows in ``tests/data/cibench_render_rows.jsonl`` are real items of
the upstream generator (``data/cibench/items_sample.jsonl``).
"""

from __future__ import annotations

import doctest
import importlib
import json
import random
import re
import statistics
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from causal_oracle.entry import UNREADABLE, InputError, default
from causal_oracle.entry.families.cibench_generator import CIBenchKnobs, draw
from causal_oracle.entry.families.cibench_system import graph_prompt, rules_prompt, tiers_of
from causal_oracle.environments.cibench import (
    CIBENCH_NAME,
    CIBenchConfig,
    CIBenchDataset,
    register,
)
from causal_oracle.parser.cibench import parse_cibench

ROWS = Path(__file__).parent / "data" / "cibench_render_rows.jsonl"
SPECIFIC = re.compile(r"[a-z]{5}[a-j]{3}")
BIO = re.compile(r"[a-z]{5}[a-j]{3} [a-z]+")
BIO_EVENT = re.compile(r"[a-z]+ of [a-z]{5}[a-j]{3} [a-z]+")


def _happened(value: bool) -> str:
    return "happened" if value else "not happen"


def wrong_answer(entry: dict[str, Any]) -> str:
    """A wrong reply built from the item's structure (not a constant)."""
    meta = entry["metadata"]
    truth, task = meta["truth"], meta["task"]
    if task == "CP":
        paths = truth["causal_paths"]
        if paths:  # a path removed
            return "\n".join(" -> ".join(p) for p in paths[1:]) or "None"
        # a path added: with no causal path at all, cause -> effect is not one
        return f"{truth['causes'][0]} -> {truth['effects'][0]}"
    if task == "BA":  # a set that fails the backdoor criterion
        if truth["backdoor_adjustment_needed"]:
            return "None"  # the empty set leaves a backdoor path open
        return truth["effects"][0]  # an effect is never allowed in the set
    values = list(truth["values"])  # FI / CI: the first query flipped
    values[0] = not values[0]
    return "\n".join(f"{q}, {_happened(v)}" for q, v in zip(truth["queries"], values,
                                                               strict=True))


def label_of(difficulty: dict[str, Any]) -> bool:
    """The label ``balanced`` balances: a path exists (CP), adjustment is needed (BA), the
    first queried event happened (FI, CI)."""
    task = difficulty["task"]
    if task == "CP":
        return bool(difficulty["has_path"])
    if task == "BA":
        return bool(difficulty["adjustment_needed"])
    return bool(difficulty["query_values"][0])


def check_round_trip(meta: dict[str, Any]) -> None:
    """The prompt parses with the project's parser into the graph that was drawn."""
    names = meta["node_names"]
    drawn = {(names[a], names[b]) for a, b in meta["adjacency"]}
    tier = tiers_of(meta["graph_shape"])
    assert sum(meta["graph_shape"]) == len(names) == meta["difficulty"]["num_nodes"]
    assert all(tier[a] < tier[b] for a, b in meta["adjacency"])
    question = parse_cibench(meta["item"], meta["task"])
    if meta["task"] in ("CP", "BA"):
        graph = question.graph  # type: ignore[union-attr]
        parsed = {(graph.names[a], graph.names[b]) for a, b in graph.edges}
        assert [graph.names[c] for c in question.causes] == meta["truth"]["causes"]  # type: ignore[union-attr]
        assert [graph.names[e] for e in question.effects] == meta["truth"]["effects"]  # type: ignore[union-attr]
    else:
        scm = question.scm  # type: ignore[union-attr]
        parsed = {(scm.names[a], scm.names[b]) for a, b in scm.graph.edges}
        assert [scm.names[q] for q in question.queries] == meta["truth"]["queries"]  # type: ignore[union-attr]
        assert [scm.names[o.node] for o in question.observed] == \
            meta["truth"]["observed_roots"]  # type: ignore[union-attr]
        assert len(scm.rules) == meta["difficulty"]["num_rules"]
    assert parsed == drawn


@pytest.mark.parametrize("module", ["causal_oracle.entry.families.cibench_generator",
                                    "causal_oracle.environments.cibench"])
def test_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0


def test_reasoning_gym_factory_is_deterministic_and_certified() -> None:
    rg = pytest.importorskip("reasoning_gym")
    register()
    first = rg.create_dataset(CIBENCH_NAME, size=48, seed=1)
    items = list(first)
    assert items == list(rg.create_dataset(CIBENCH_NAME, size=48, seed=1)) and len(items) == 48
    assert items != list(rg.create_dataset(CIBENCH_NAME, size=48, seed=2))
    assert {e["metadata"]["task"] for e in items} == {"CP", "BA", "FI", "CI"}
    assert [first.score_answer(e["answer"], e) for e in items] == [1.0] * 48
    assert [first.score_answer(wrong_answer(e), e) for e in items] == [0.0] * 48
    service = default()
    for e in items:
        meta = e["metadata"]
        for reply in ("-> ->", ""):
            assert first.score_answer(reply, e) == 0.0
        assert service.grade(meta["item"], "-> ->", meta["task"]).normalised == UNREADABLE
        # the gold is the oracle's answer, re-derived from the item's text alone
        assert e["answer"] == service.answer(meta["item"], meta["task"]).answer_text
        assert e["question"] == meta["item"]
    score = rg.get_score_answer_fn(CIBENCH_NAME)
    assert score(items[5]["answer"], items[5]) == 1.0


def test_the_curriculum_moves_the_measured_knobs() -> None:
    pytest.importorskip("reasoning_gym")
    from reasoning_gym.factory import create_curriculum

    register()
    curriculum = create_curriculum(CIBENCH_NAME)

    def measured() -> tuple[float, float, float, float]:
        config = curriculum.generate_configuration({"size": 40, "seed": 3})
        d = [e["metadata"]["difficulty"] for e in CIBenchDataset(config)]
        return (statistics.mean(x["num_nodes"] for x in d),
                statistics.mean(x["edge_density"] for x in d),
                statistics.mean(x["max_tier_size"] for x in d),
                statistics.mean(x["num_interventions"] for x in d if x["task"] == "CI"))

    easy = measured()
    for attribute in ("num_nodes", "edge_density", "tier_size", "interventions"):
        while curriculum.increment_attr_level(attribute):
            pass
    hard = measured()
    assert hard[0] > easy[0] + 3 and hard[1] > easy[1] + 0.1
    assert hard[2] > easy[2] + 0.5 and hard[3] > easy[3] + 0.5


@pytest.mark.parametrize("knobs", [
    dict(tasks=("CP",), name_types=("bio",), min_nodes=8, max_nodes=10, min_density=0.3,
         max_density=0.6, min_paths=2, max_paths=6),
    dict(tasks=("BA",), name_types=("specific",), min_nodes=9, max_nodes=12, max_tier_size=3,
         adjustment_needed=True, min_adjustment_size=2, max_adjustment_size=3),
    dict(tasks=("FI",), name_types=("bio",), min_nodes=6, max_nodes=8, min_rules=6,
         max_rules=9),
    dict(tasks=("CI",), name_types=("specific",), min_nodes=6, max_nodes=9, max_tier_size=2,
         min_interventions=2, max_interventions=3, min_rules=4, max_rules=12),
])
def test_knobs_are_met_exactly(knobs: dict[str, Any]) -> None:
    config = CIBenchConfig(size=15, seed=11, **knobs)
    data = CIBenchDataset(config)
    for entry in data:
        meta = entry["metadata"]
        d = meta["difficulty"]
        assert meta["task"] == d["task"] in config.tasks
        assert meta["name_type"] in config.name_types
        assert config.min_nodes <= d["num_nodes"] <= config.max_nodes
        assert config.min_density <= d["edge_density"] <= config.max_density
        assert max(meta["graph_shape"]) == d["max_tier_size"] <= config.max_tier_size
        pattern = SPECIFIC if meta["name_type"] == "specific" else \
            (BIO if meta["task"] in ("CP", "BA") else BIO_EVENT)
        assert all(pattern.fullmatch(n) for n in meta["node_names"])
        if d["task"] == "CP":
            assert config.min_paths <= d["num_paths"] <= config.max_paths
            assert d["num_paths"] == len(meta["truth"]["causal_paths"])
        if d["task"] == "BA":
            assert d["adjustment_needed"] is True
            assert config.min_adjustment_size <= d["adjustment_size"] \
                <= config.max_adjustment_size
            size = len(meta["truth"]["a_minimal_valid_set"])
            assert size == d["adjustment_size"]
            grade = default().grade(meta["item"], ", ".join(meta["truth"]["a_minimal_valid_set"]),
                                    "BA")
            assert grade.correct
        if d["task"] in ("FI", "CI"):
            assert config.min_rules <= d["num_rules"] <= config.max_rules
        if d["task"] == "CI":
            assert config.min_interventions <= d["num_interventions"] \
                <= config.max_interventions
            assert d["num_interventions"] == len(meta["truth"]["whatif"])
        check_round_trip(meta)
        assert data.score_answer(entry["answer"], entry) == 1.0


@pytest.mark.parametrize("task", ["CP", "BA", "FI", "CI"])
def test_balanced_labels_come_out_balanced(task: str) -> None:
    data = CIBenchDataset(CIBenchConfig(size=60, seed=4, tasks=(task,), balanced=True,
                                        max_nodes=9))
    labels = [label_of(e["metadata"]["difficulty"]) for e in data]
    assert 0.35 <= sum(labels) / len(labels) <= 0.65
    if task in ("FI", "CI"):  # the further queries too, near enough
        values = [v for e in data for v in e["metadata"]["difficulty"]["query_values"]]
        assert 0.35 <= sum(values) / len(values) <= 0.65


def test_balanced_follows_a_knob_that_fixes_the_label() -> None:
    data = CIBenchDataset(CIBenchConfig(size=10, seed=2, tasks=("BA",), balanced=True,
                                        adjustment_needed=False))
    assert {e["metadata"]["difficulty"]["adjustment_needed"] for e in data} == {False}
    assert {e["answer"] for e in data} == {"None"}


@pytest.mark.parametrize("bad", [
    dict(tasks=()), dict(tasks=("XX",)), dict(name_types=("greek",)),
    dict(min_nodes=2), dict(min_nodes=9, max_nodes=8), dict(max_nodes=99),
    dict(max_tier_size=0), dict(min_density=0.7, max_density=0.5), dict(max_density=0.0),
    dict(min_paths=3, max_paths=2), dict(min_adjustment_size=4, max_adjustment_size=1),
    dict(adjustment_needed=False, min_adjustment_size=1), dict(min_rules=0),
    dict(min_interventions=0), dict(max_interventions=9), dict(size=-1),
])
def test_bad_knobs_raise_input_error(bad: dict[str, Any]) -> None:
    with pytest.raises(InputError):
        CIBenchDataset(CIBenchConfig(**bad))
    if "size" not in bad:  # the generator refuses them too, before drawing anything
        with pytest.raises(InputError):
            draw(CIBenchKnobs(**bad), random.Random(0), default())


def test_unmeetable_knobs_say_which() -> None:
    knobs = CIBenchKnobs(tasks=("CP",), min_nodes=5, max_nodes=5, max_tier_size=1,
                         min_paths=40)
    with pytest.raises(InputError, match="min_paths=40"):
        draw(knobs, random.Random(0), default())
    rg = pytest.importorskip("reasoning_gym")
    register()
    with pytest.raises(InputError):
        rg.create_dataset(CIBENCH_NAME, size=3, seed=1, min_nodes=1)


def test_every_prompt_parses_into_the_drawn_graph() -> None:
    for seed, name_type in ((1, "specific"), (2, "bio")):
        data = CIBenchDataset(CIBenchConfig(size=24, seed=seed, name_types=(name_type,),
                                            min_nodes=5, max_nodes=18))
        for entry in data:
            check_round_trip(entry["metadata"])


def _upstream_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("row", _upstream_rows(), ids=lambda r: f"{r['task']}-{r['uid']}")
def test_the_renderer_writes_upstream_prompts_byte_for_byte(row: dict[str, Any]) -> None:
    """Rebuilt from the row's node_names, adjacency, task and truth (FI/CI rules — random
    upstream, not in the row — read from its prompt and put in the generator's order)."""
    names = row["node_names"]
    index = {n.casefold(): i for i, n in enumerate(names)}
    edges = [(a, b) for a, b in row["adjacency"]]
    truth = row["truth"]
    tier = tiers_of(row["graph_shape"])
    assert all(tier[a] < tier[b] for a, b in edges)
    if row["task"] in ("CP", "BA"):
        text = graph_prompt(names, edges, [index[c] for c in truth["causes"]],
                            [index[e] for e in truth["effects"]], row["task"], row["name_type"])
    else:
        scm = parse_cibench(row["prompt"], row["task"]).scm  # type: ignore[union-attr]
        rules = sorted((index[scm.names[r.head].casefold()],
                        tuple(sorted((index[scm.names[lit.node].casefold()], lit.value)
                                     for lit in r.body))) for r in scm.rules)
        assert {(v, head) for head, body in rules for v, _ in body} == set(edges)
        whatif = [(index[w], v) for w, v in zip(truth.get("whatif", []),
                                                truth.get("whatif_values", []), strict=True)]
        text = rules_prompt(names, rules, [index[o] for o in truth["observed_roots"]],
                            [index[q] for q in truth["queries"]], row["task"], whatif)
        roots = [n for i, n in enumerate(names) if all(b != i for _, b in edges)]
        assert truth["observed_roots"] == roots  # upstream observes every root
    assert text == row["prompt"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 32), task=st.sampled_from(["CP", "BA", "FI", "CI"]),
       balanced=st.booleans(), nodes=st.integers(3, 14))
def test_any_seed_gives_a_parsable_certified_item(seed: int, task: str, balanced: bool,
                                                  nodes: int) -> None:
    knobs = CIBenchKnobs(tasks=(task,), min_nodes=nodes, max_nodes=nodes, min_density=0.1,
                         max_density=0.9, balanced=balanced)
    item = draw(knobs, random.Random(seed), default())
    assert item == draw(knobs, random.Random(seed), default())
    meta = {k: v for k, v in item.items() if k not in ("question", "answer")}
    check_round_trip(meta)
    service = default()
    assert service.grade(item["item"], item["answer"], task).correct is True
    assert service.grade(item["item"], wrong_answer({"metadata": meta}), task).correct is False
