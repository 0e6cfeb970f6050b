"""Procedural environments: determinism, certified answers, measured difficulty knobs.

Through Reasoning Gym's own factory when it is installed (the ``rl`` extra; CI installs
it), else standalone with the same interface.
"""

from __future__ import annotations

import doctest
import importlib
import statistics
from collections import Counter

import pytest

from causal_oracle.entry import InputError, default
from causal_oracle.entry.families.corr2cause_generator_keys import ItemKeys
from causal_oracle.environments import Corr2CauseConfig, Corr2CauseDataset

FLIP = {"Yes": "No", "No": "Yes", "entailment": "contradiction",
        "contradiction": "neutral", "neutral": "entailment"}


@pytest.mark.parametrize("module", ["causal_oracle.environments",
                                    "causal_oracle.environments.corr2cause",
                                    "causal_oracle.environments.base",
                                    "causal_oracle.environments.cibench",
                                    "causal_oracle.entry.families.corr2cause_generator",
                                    "causal_oracle.entry.families.corr2cause_generator_keys",
                                    "causal_oracle.entry.families.cibench_generator",
                                    "causal_oracle.entry.families.cibench_system",
                                    "causal_oracle.environments.graph",
                                    "causal_oracle.entry.families.clear_generator",
                                    "causal_oracle.entry.families.clear_generator_draw",
                                    "causal_oracle.entry.families.clear_generator_knobs",
                                    "causal_oracle.entry.families.clear_wording"])
def test_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0


def test_reasoning_gym_factory_is_deterministic_and_certified() -> None:
    rg = pytest.importorskip("reasoning_gym")
    import causal_oracle.environments  # noqa: F401  (registers the dataset)

    first = rg.create_dataset("causal_corr2cause", size=100, seed=1)
    again = rg.create_dataset("causal_corr2cause", size=100, seed=1)
    items = list(first)
    assert items == list(again) and len(items) == 100
    assert items != list(rg.create_dataset("causal_corr2cause", size=100, seed=2))
    assert [first.score_answer(e["answer"], e) for e in items] == [1.0] * 100
    assert [first.score_answer(FLIP[e["answer"]], e) for e in items] == [0.0] * 100
    assert first.score_answer("I am not sure.", items[0]) == 0.0
    score = rg.get_score_answer_fn("causal_corr2cause")
    assert score(items[3]["answer"], items[3]) == 1.0
    for e in items[:20]:  # the answer is the oracle's, re-derived from the item's text
        label = default().verify(e["metadata"]["premise"], e["metadata"]["hypothesis"]).label
        assert e["answer"] == ("Yes" if label else "No")


def test_a_reasoning_weight_pays_true_claims_through_score_answer() -> None:
    rg = pytest.importorskip("reasoning_gym")
    import causal_oracle.environments  # noqa: F401  (registers the dataset)

    knobs = {"size": 4, "seed": 5, "min_nodes": 3, "max_nodes": 3}
    plain = rg.create_dataset("causal_corr2cause", **knobs)
    weighted = rg.create_dataset("causal_corr2cause", reasoning_weight=0.5, **knobs)
    for e in plain:
        gold = e["answer"]
        both = f"A and B are adjacent. A and B are not adjacent. The answer is {gold}."
        assert plain.score_answer(both, e) == 1.0  # off by default: unchanged
        assert weighted.score_answer(both, e) == 1.25  # one true claim of two
        assert weighted.reasoning_score(both, e) == (0.5, None)
        assert weighted.score_answer(f"The answer is {gold}.", e) == 1.0  # no claim
        assert weighted.score_answer(f"The answer is {FLIP[gold]}.", e) == 0.0
    with pytest.raises(InputError, match="reasoning_weight"):
        rg.create_dataset("causal_corr2cause", reasoning_weight="high", **knobs)


def test_the_curriculum_moves_the_measured_knobs() -> None:
    pytest.importorskip("reasoning_gym")
    from reasoning_gym.factory import create_curriculum

    import causal_oracle.environments  # noqa: F401

    curriculum = create_curriculum("causal_corr2cause")

    def measured() -> tuple[float, float, set[bool]]:
        config = curriculum.generate_configuration({"size": 40, "seed": 3})
        data = Corr2CauseDataset(config)
        d = [e["metadata"]["difficulty"] for e in data]
        return (statistics.mean(x["num_nodes"] for x in d),
                statistics.mean(x["edge_density"] for x in d),
                {x["three_class"] for x in d})

    easy = measured()
    for attribute in ("num_nodes", "edge_density", "three_class"):
        while curriculum.increment_attr_level(attribute):
            pass
    hard = measured()
    assert hard[0] > easy[0] + 1 and hard[1] > easy[1] and hard[2] == {True}


def test_knobs_are_met_exactly() -> None:
    config = Corr2CauseConfig(size=30, seed=11, min_nodes=5, max_nodes=6, min_density=0.3,
                              max_density=0.6, min_class_size=2, max_class_size=12,
                              relations=("has_collider", "has_confounder"),
                              three_class=True, structural_reason=True)
    items = list(Corr2CauseDataset(config))
    for e in items:
        d = e["metadata"]["difficulty"]
        assert 5 <= d["num_nodes"] <= 6 and 0.3 <= d["edge_density"] <= 0.6
        assert 2 <= d["class_size"] <= 12 and d["structural_reason"]
        assert e["metadata"]["property"] in ("has_collider", "has_confounder")
        assert e["answer"] in ("entailment", "neutral", "contradiction")
    data = Corr2CauseDataset(config)
    assert all(data.score_answer(e["answer"], e) == 1.0 for e in items)
    assert all(data.score_answer("Yes", e) == 0.0 for e in items)  # 3-class: a relation word


def test_labels_are_balanced_per_relation_on_request() -> None:
    balanced = list(Corr2CauseDataset(Corr2CauseConfig(size=240, seed=0, min_nodes=4,
                                                       max_nodes=4, balanced=True)))
    by_relation = Counter((e["metadata"]["property"], e["answer"]) for e in balanced)
    for prop in {p for p, _ in by_relation}:
        yes, no = by_relation[(prop, "Yes")], by_relation[(prop, "No")]
        assert min(yes, no) >= 0.5 * max(yes, no), (prop, yes, no)
    natural = list(Corr2CauseDataset(Corr2CauseConfig(size=240, seed=0, min_nodes=4,
                                                      max_nodes=4, balanced=False)))
    assert Counter(e["answer"] for e in natural)["No"] > 0.75 * 240


def test_items_carry_their_renaming_invariant_key() -> None:
    data = Corr2CauseDataset(Corr2CauseConfig(size=10, seed=4, rename=True))
    keys = ItemKeys(default())
    for e in data:
        m = e["metadata"]
        assert m["key"] == keys.key(m["premise"], m["hypothesis"])


def test_every_catalogued_dataset_feeds_the_trainer_rewards() -> None:
    """A generated item's question is a prompt the reward adapters read by its own text:
    its certified answer earns 1, a non-answer 0 (TRL's call shape)."""
    from causal_oracle.environments import CATALOGUE, create
    from causal_oracle.rewards import trl_reward

    assert {"causal_corr2cause", "causal_cibench", "causal_graph"} <= set(CATALOGUE)
    for name in sorted(CATALOGUE):
        items = list(create(name, size=4, seed=3))
        prompts = [e["question"] for e in items]
        assert trl_reward(prompts, [e["answer"] for e in items]) == [1.0] * 4, name
        assert trl_reward(prompts, ["I do not know."] * 4) == [0.0] * 4, name


def test_the_datasets_reach_their_generators_through_the_registry() -> None:
    """Each family-generated dataset finds its generator by name (``Registry.generator``):
    the configuration extends the generator's knobs, an unknown name is an error naming
    the ones offered, and a family offering none is passed over."""
    from causal_oracle.entry import REGISTRY, InputError
    from causal_oracle.environments import calm, cibench, corr2cause, graph, ladder

    for module, name in ((graph, graph.GRAPH_NAME), (ladder, ladder.LADDER_NAME),
                         (cibench, cibench.CIBENCH_NAME), (calm, calm.CALM_NAME),
                         (corr2cause, corr2cause.DATASET_NAME)):
        generator = REGISTRY.generator(name)
        assert generator is module.GENERATOR and generator.dataset == name
        config = next(v for k, v in vars(module).items() if k.endswith("Config"))
        assert issubclass(config, generator.knobs)
    offered = [g.dataset for f in REGISTRY for g in f.generators()]
    assert sorted(offered) == ["calm_graph", "causal_cibench", "causal_corr2cause",
                               "causal_graph", "causal_ladder"]
    with pytest.raises(InputError, match="causal_graph"):
        REGISTRY.generator("causal_nothing")
