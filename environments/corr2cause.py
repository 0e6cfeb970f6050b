"""``causal_corr2cause``: Corr2Cause items from random DAGs, with measured difficulty.

Each item is drawn by the Corr2Cause family's generator
(``entry.families.corr2cause_generator``, found through the registry by the dataset's
name): a seeded random DAG written as the
upstream premise of its Markov equivalence class, one upstream hypothesis, the
oracle's certified answer.  Every difficulty knob — variables, edge density, class
size band, relation mix, 2- or 3-class targets, whether a structural reason exists,
balanced labels — is a measured quantity, recorded per item in
``metadata["difficulty"]``.  Replies are graded as every certified dataset grades
them (``environments.base``); for 3-class datasets only a relation word is an answer.

    >>> data = Corr2CauseDataset(Corr2CauseConfig(size=3, seed=5, balanced=True))
    >>> entry = data[0]
    >>> data.score_answer(entry["answer"], entry), entry == data[0]
    (1.0, True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from causal_oracle.entry import REGISTRY, default
from causal_oracle.entry.audit_summary import RELATIONS
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

DATASET_NAME = "causal_corr2cause"
#: the Corr2Cause family's generator, found by the dataset's name (``Registry.generator``)
GENERATOR = REGISTRY.generator(DATASET_NAME)


@configuration
@dataclass
class Corr2CauseConfig(SeedAndSize, GENERATOR.knobs):  # type: ignore[misc,name-defined]
    """The dataset's knobs (the generator's: ``Knobs``, labels balanced on request), its
    seed and size."""


class Corr2CauseDataset(CertifiedDataset):
    """Corr2Cause items from random DAGs; ``self[idx]`` depends on ``seed + idx`` only."""

    name = DATASET_NAME

    def probe(self) -> None:
        GENERATOR.probe(self.config, default())

    def draw(self, rng: random.Random) -> dict[str, Any]:
        return GENERATOR.draw(self.config, rng, default())

    def accepts(self, normalised: str, entry: dict[str, Any]) -> bool:
        three_class = entry["metadata"]["difficulty"]["three_class"]
        return not three_class or normalised in RELATIONS


if HAVE_REASONING_GYM:
    class Corr2CauseCurriculum(BaseCurriculum):  # type: ignore[misc]
        """Levels of the measured knobs: variables, edge density, class size band,
        3-class targets."""

        def __init__(self) -> None:
            super().__init__(Corr2CauseCurriculum.__name__, Corr2CauseConfig)
            self._define_attributes(
                RangeAttributeDefinition(
                    name="num_nodes", levels=[3, 4, 5, 6, 7],
                    description="number of variables", lower_field_name="min_nodes",
                    upper_field_name="max_nodes", ensure_interval=True),
                RangeAttributeDefinition(
                    name="edge_density", levels=[0.2, 0.4, 0.6, 0.8, 1.0],
                    description="edges / possible edges", lower_field_name="min_density",
                    upper_field_name="max_density", ensure_interval=True),
                ScalarAttributeDefinition(
                    name="three_class", levels=[False, True], field_name="three_class",
                    description="entailment / neutral / contradiction instead of yes / no"),
            )
else:  # pragma: no cover - without reasoning-gym there is no curriculum machinery
    Corr2CauseCurriculum = None  # type: ignore[assignment,misc]


def register() -> bool:
    """Register the dataset (and its curriculum) with Reasoning Gym; False without it
    (or when already registered)."""
    return register_dataset(DATASET_NAME, Corr2CauseDataset, Corr2CauseConfig,
                            Corr2CauseCurriculum)


__all__ = ["DATASET_NAME", "Corr2CauseConfig", "Corr2CauseCurriculum",
           "Corr2CauseDataset", "register"]
