"""``causal_graph``: CLEAR-style graph questions from random graphs, with measured difficulty.

Each item is drawn by the CLEAR family's generator (``entry.families.clear_generator``,
found through the registry): a seeded random graph (DAG, ADMG,
C-component, C-forest, C-tree, directed or undirected graph) written as CLEAR writes
it, one question of CLEAR's twenty task types and six question types in CLEAR's own
words, and the oracle's certified answer.  Every difficulty knob — task, question and
graph types, nodes, edge density, the size of the answer, balanced yes/no labels — is
a measured quantity, recorded per item in ``metadata["difficulty"]``.  Replies are
graded as every certified dataset grades them (``environments.base``): by validity,
so any valid answer to a find-one question scores 1.0.

    >>> data = GraphDataset(GraphConfig(size=3, seed=5, task_types=("d-separation",),
    ...                                 question_types=("YN",), balanced=True))
    >>> entry = data[0]
    >>> data.score_answer(entry["answer"], entry), entry == data[0]
    (1.0, True)
    >>> entry["metadata"]["task"], entry["metadata"]["task_type"]
    ('CLEAR', 'd-separation')
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from causal_oracle.entry import REGISTRY, default
from causal_oracle.environments.base import (
    HAVE_REASONING_GYM,
    CertifiedDataset,
    SeedAndSize,
    configuration,
    register_dataset,
)

if HAVE_REASONING_GYM:
    from reasoning_gym.coaching import BaseCurriculum, RangeAttributeDefinition
    from reasoning_gym.coaching.attributes import ScalarAttributeDefinition

GRAPH_NAME = "causal_graph"
#: the CLEAR family's generator, found by the dataset's name (``Registry.generator``)
GENERATOR = REGISTRY.generator(GRAPH_NAME)


@configuration
@dataclass
class GraphConfig(SeedAndSize, GENERATOR.knobs):  # type: ignore[misc,name-defined]
    """The dataset's knobs (the generator's: ``GraphKnobs``), its seed and size."""


class GraphDataset(CertifiedDataset):
    """CLEAR-style graph questions; ``self[idx]`` depends on ``seed + idx`` only."""

    name = GRAPH_NAME

    def probe(self) -> None:
        GENERATOR.probe(self.config, default())

    def draw(self, rng: random.Random) -> dict[str, Any]:
        return GENERATOR.draw(self.config, rng, default())


if HAVE_REASONING_GYM:
    class GraphCurriculum(BaseCurriculum):  # type: ignore[misc]
        """Levels of the measured knobs: nodes, edge density, graph types, question
        types and the largest answer (find all / how many / find one)."""

        def __init__(self) -> None:
            super().__init__(GraphCurriculum.__name__, GraphConfig)
            self._define_attributes(
                RangeAttributeDefinition(
                    name="num_nodes", levels=[4, 5, 6, 7, 8, 9], description="number of nodes",
                    lower_field_name="min_nodes", upper_field_name="max_nodes",
                    ensure_interval=True),
                RangeAttributeDefinition(
                    name="edge_density", levels=[0.2, 0.35, 0.5, 0.65],
                    description="adjacent node pairs / all node pairs",
                    lower_field_name="min_density", upper_field_name="max_density",
                    ensure_interval=True),
                ScalarAttributeDefinition(
                    name="graph_types", field_name="graph_types",
                    description="the kinds of graph drawn",
                    levels=[("DAG",), ("DAG", "DG", "UG"), ("DAG", "DG", "UG", "ADMG"),
                            GENERATOR.knobs.graph_types]),
                ScalarAttributeDefinition(
                    name="question_types", field_name="question_types",
                    description="how the questions are asked",
                    levels=[("YN", "EX"), ("YN", "EX", "MC"), ("YN", "EX", "MC", "HM"),
                            ("YN", "EX", "MC", "HM", "FO", "FA")]),
                ScalarAttributeDefinition(
                    name="max_answer_size", field_name="max_answer_size",
                    description="the largest answer set or count (FA, HM, FO)",
                    levels=[3, 6, 12, 24]),
            )
else:  # pragma: no cover - without reasoning-gym there is no curriculum machinery
    GraphCurriculum = None  # type: ignore[assignment,misc]


def register() -> bool:
    """Register the dataset (and its curriculum) with Reasoning Gym; False without it
    (or when already registered)."""
    return register_dataset(GRAPH_NAME, GraphDataset, GraphConfig, GraphCurriculum)


__all__ = ["GRAPH_NAME", "GraphConfig", "GraphCurriculum", "GraphDataset", "register"]
