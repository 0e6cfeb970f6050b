"""``calm_graph``: CaLM-style graph questions from seeded random graphs, in CaLM's words.

Each item is drawn by the CaLM family's generator (``entry.families.calm_generator``,
found through the registry): a DAG over the letters A, B, … asked
one of CaLM's six graph question kinds — AR (does X cause Y), CA (ancestor / parent),
CEI (is the effect identified, with unobserved confounders at CaLM's densities), BAS
(minimal / maximal / any back-door set among three options), FAS (front-door set), IV
(instrument set) — written as a record in CaLM's own layout and rendered by the CaLM
family in CaLM's basic English prompt, then answered by the oracle from that text with
the exact CaLM task id.  Items whose answer is degenerate, ambiguous or depends on a
reading CaLM leaves open are redrawn.  ``metadata["difficulty"]`` records the kind, the
task, the graph's size and edges, CEI's confounders and the right option's size; labels
(the right option's place) are balanced by default.  The knobs are checked when the
dataset is made (every kind, task and label the knobs allow is drawn once), and replies
are graded as every certified dataset grades them (``environments.base``): CaLM's
answer forms in any common wording ("Yes", "Option 2", ``{"answer": "Yes"}``).

    >>> data = CalmDataset(CalmConfig(size=3, seed=5, kinds=("BAS",)))
    >>> entry = data[0]
    >>> data.score_answer(entry["answer"], entry), entry == data[0]
    (1.0, True)
    >>> entry["metadata"]["task"].startswith("BAS-C_"), entry["answer"].startswith("Option")
    (True, True)
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

CALM_NAME = "calm_graph"
#: the CaLM family's generator, found by the dataset's name (``Registry.generator``)
GENERATOR = REGISTRY.generator(CALM_NAME)


@configuration
@dataclass
class CalmConfig(SeedAndSize, GENERATOR.knobs):  # type: ignore[misc,name-defined]
    """The dataset's knobs (the generator's: ``CalmKnobs``), its seed and size."""


class CalmDataset(CertifiedDataset):
    """CaLM-style graph questions; ``self[idx]`` depends on ``seed + idx`` only."""

    name = CALM_NAME

    def probe(self) -> None:
        GENERATOR.probe(self.config, default())

    def draw(self, rng: random.Random) -> dict[str, Any]:
        return GENERATOR.draw(self.config, rng, default())


if HAVE_REASONING_GYM:
    class CalmCurriculum(BaseCurriculum):  # type: ignore[misc]
        """Levels of the measured knobs: graph size (5–6 → up to 14 vertices), edge
        density, and the kinds (relations → identification → the choice kinds)."""

        def __init__(self) -> None:
            super().__init__(CalmCurriculum.__name__, CalmConfig)
            self._define_attributes(
                RangeAttributeDefinition(
                    name="nodes", levels=[5, 6, 8, 10, 14], description="graph size",
                    lower_field_name="min_nodes", upper_field_name="max_nodes",
                    ensure_interval=True),
                ScalarAttributeDefinition(
                    name="edge_prob", field_name="edge_prob",
                    description="the probability of each forward edge",
                    levels=[0.3, 0.4, 0.5, 0.6]),
                ScalarAttributeDefinition(
                    name="kinds", field_name="kinds", description="the question kinds",
                    levels=[("AR", "CA"), ("AR", "CA", "CEI"),
                            ("AR", "CA", "CEI", "BAS", "FAS", "IV")]),
            )
else:  # pragma: no cover - without reasoning-gym there is no curriculum machinery
    CalmCurriculum = None  # type: ignore[assignment,misc]


def register() -> bool:
    """Register the dataset (and its curriculum) with Reasoning Gym; False without it
    (or when already registered)."""
    return register_dataset(CALM_NAME, CalmDataset, CalmConfig, CalmCurriculum)


__all__ = ["CALM_NAME", "CalmConfig", "CalmCurriculum", "CalmDataset", "register"]
