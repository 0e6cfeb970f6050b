"""Dataset configurations are checked when they are made (the contract issue's reproducer
``env_errors.py``, kept, and the Reasoning Gym findings of the rewards issue): a knob of
the wrong type is an ``InputError`` naming the knob, an unknown knob names the known
ones, and an infeasible combination fails at creation — not at the item that first asks
for it, mid-training."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from causal_oracle.entry import InputError
from causal_oracle.environments import (
    CATALOGUE,
    Corr2CauseConfig,
    Corr2CauseDataset,
    GraphConfig,
    create,
)

INFEASIBLE = dict(min_nodes=3, max_nodes=3, relations=("has_confounder",), three_class=True,
                  balanced=True)


@pytest.mark.parametrize("name, config, knob", [
    ("causal_cibench", {"max_nodes": "4"}, "max_nodes"),
    ("causal_graph", {"min_nodes": None}, "min_nodes"),
    ("causal_graph", {"max_answer_size": "4"}, "max_answer_size"),
    ("causal_cibench", {"seed": 0, "tasks": ("CI",), "max_interventions": 1.5},
     "max_interventions"),
    ("causal_corr2cause", {"min_density": float("nan")}, "min_density"),
    ("causal_corr2cause", {"min_density": "0.2"}, "min_density"),
    ("causal_corr2cause", {"three_class": 1}, "three_class"),
    ("causal_corr2cause", {"relations": ("parent", 3)}, "relations[1]"),
    ("causal_corr2cause", {"relations": None}, "relations"),
    ("causal_corr2cause", {"structural_reason": "yes"}, "structural_reason"),
    ("causal_corr2cause", {"seed": 1.5}, "seed"),
    ("causal_corr2cause", {"size": -1}, "size"),
    ("causal_corr2cause", {"size": True}, "size"),
    ("causal_graph", {"task_types": 7}, "task_types"),
    ("causal_graph", {"balanced": None}, "balanced"),
])
def test_a_knob_of_the_wrong_type_is_named(name: str, config: dict[str, Any], knob: str
                                           ) -> None:
    with pytest.raises(InputError, match=r"\b" + re.escape(knob)):
        create(name, **{"size": 3, **config})


def test_the_reproducer_configurations_are_refused_at_creation() -> None:
    for name, config in [("causal_cibench", {"max_nodes": "4"}),
                         ("causal_graph", {"min_nodes": None}),
                         ("causal_graph", {"max_answer_size": "4"}),
                         ("causal_cibench", {"seed": 0, "tasks": ("CI",),
                                             "max_interventions": 1.5})]:
        with pytest.raises(InputError):
            create(name, **{"size": 3, **config})


def test_an_unknown_knob_names_the_known_ones() -> None:
    for name, (_, config_class, _) in CATALOGUE.items():
        with pytest.raises(InputError, match=r"unknown knob 'min_node'.*known: ") as refused:
            create(name, min_node=3)
        known = str(refused.value).split("known: ")[1].split(", ")
        assert known == [f.name for f in dataclasses.fields(config_class)], name
        with pytest.raises(InputError, match="unknown knob"):
            config_class(nodes=3)


def test_an_infeasible_combination_fails_at_creation() -> None:
    with pytest.raises(InputError, match=r"has_confounder.*entailment"):
        create("causal_corr2cause", **INFEASIBLE)
    with pytest.raises(InputError):
        Corr2CauseDataset(Corr2CauseConfig(size=5, seed=1, **INFEASIBLE))
    with pytest.raises(InputError, match="CP"):  # 3 variables never give 40 causal paths
        create("causal_cibench", tasks=("CP",), min_nodes=3, max_nodes=3, min_paths=40)
    # the feasible neighbours are made, and their items drawn
    feasible = create("causal_corr2cause", size=3, seed=2,
                      **{**INFEASIBLE, "min_nodes": 5, "max_nodes": 5})
    assert [e["metadata"]["difficulty"]["num_nodes"] for e in feasible] == [5, 5, 5]


def test_reasoning_gym_refuses_at_create_dataset() -> None:
    rg = pytest.importorskip("reasoning_gym")
    with pytest.raises(InputError, match="known: "):
        rg.create_dataset("causal_corr2cause", size=3, seed=1, min_node=3)
    with pytest.raises(InputError, match="max_nodes"):
        rg.create_dataset("causal_graph", size=3, seed=1, max_nodes="6")
    with pytest.raises(InputError):
        rg.create_dataset("causal_corr2cause", size=3, seed=1, **INFEASIBLE)


def test_lists_and_single_names_are_normalised() -> None:
    config = GraphConfig(size=2, seed=3, task_types=["d-separation"], question_types="YN")
    assert config.task_types == ("d-separation",) and config.question_types == ("YN",)
    data = create("causal_corr2cause", size=2, seed=4, relations=["parent", "child"],
                  min_density=0, max_density=1)
    assert data.config.relations == ("parent", "child")
    assert isinstance(data.config.min_density, float)
    assert data[0] == create("causal_corr2cause", size=2, seed=4,
                             relations=("parent", "child"))[0]


def test_doctests_of_the_knobs_module() -> None:
    import doctest

    from causal_oracle.environments import knobs

    result = doctest.testmod(knobs)
    assert result.attempted and not result.failed
