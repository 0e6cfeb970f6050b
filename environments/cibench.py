"""``causal_cibench``: CI-Bench items (CP, BA, FI, CI) from seeded tiered DAGs.

Each item is drawn by the CI-Bench family's generator (``entry.families.cibench_generator``,
found through the registry): a random tiered DAG (the upstream
generator's ``graph_shape``), upstream node names, for FI/CI boolean rules, the prompt
written byte for byte as upstream writes it, and the oracle's certified answer to
that text.  Every difficulty knob — tasks, name types, variables, tier size, edge
density, causal paths (CP), whether adjustment is needed and the smallest valid set
(BA), rule lines (FI/CI), what-if events (CI), balanced labels — is a measured
quantity, recorded per item in ``metadata["difficulty"]``; ``metadata["truth"]``
holds the upstream row's truth fields, derived by the oracle.  Replies are graded as
every certified dataset grades them (``environments.base``): a BA reply is right when
it is *any* set that satisfies the backdoor criterion.

    >>> data = CIBenchDataset(CIBenchConfig(size=4, seed=5, balanced=True))
    >>> entry = data[0]
    >>> data.score_answer(entry["answer"], entry), entry == data[0]
    (1.0, True)
    >>> entry["metadata"]["task"] in ("CP", "BA", "FI", "CI")
    True
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

CIBENCH_NAME = "causal_cibench"
#: the CI-Bench family's generator, found by the dataset's name (``Registry.generator``)
GENERATOR = REGISTRY.generator(CIBENCH_NAME)


@configuration
@dataclass
class CIBenchConfig(SeedAndSize, GENERATOR.knobs):  # type: ignore[misc,name-defined]
    """The dataset's knobs (the generator's: ``CIBenchKnobs``), its seed and size."""


class CIBenchDataset(CertifiedDataset):
    """CI-Bench items from tiered DAGs; ``self[idx]`` depends on ``seed + idx`` only."""

    name = CIBENCH_NAME

    def probe(self) -> None:
        GENERATOR.probe(self.config, default())

    def draw(self, rng: random.Random) -> dict[str, Any]:
        return GENERATOR.draw(self.config, rng, default())


if HAVE_REASONING_GYM:
    class CIBenchCurriculum(BaseCurriculum):  # type: ignore[misc]
        """Levels of the measured knobs: variables, edge density, tier size (causes,
        effects and queried events per item), what-if events."""

        def __init__(self) -> None:
            super().__init__(CIBenchCurriculum.__name__, CIBenchConfig)
            self._define_attributes(
                RangeAttributeDefinition(
                    name="num_nodes", levels=[5, 8, 12, 16, 20],
                    description="number of variables", lower_field_name="min_nodes",
                    upper_field_name="max_nodes", ensure_interval=True),
                RangeAttributeDefinition(
                    name="edge_density", levels=[0.2, 0.4, 0.6, 0.8, 1.0],
                    description="edges / pairs a tiered DAG may join",
                    lower_field_name="min_density", upper_field_name="max_density",
                    ensure_interval=True),
                ScalarAttributeDefinition(
                    name="tier_size", levels=[1, 2, 3], field_name="max_tier_size",
                    description="largest tier: causes, effects and queried events per item"),
                RangeAttributeDefinition(
                    name="interventions", levels=[1, 2, 3, 4],
                    description="what-if events of a counterfactual (CI) question",
                    lower_field_name="min_interventions",
                    upper_field_name="max_interventions", ensure_interval=True),
            )
else:  # pragma: no cover - without reasoning-gym there is no curriculum machinery
    CIBenchCurriculum = None  # type: ignore[assignment,misc]


def register() -> bool:
    """Register the dataset (and its curriculum) with Reasoning Gym; False without it
    (or when already registered)."""
    return register_dataset(CIBENCH_NAME, CIBenchDataset, CIBenchConfig, CIBenchCurriculum)


__all__ = ["CIBENCH_NAME", "CIBenchConfig", "CIBenchCurriculum", "CIBenchDataset", "register"]
