"""``causal_ladder``: CLadder-style questions on all three rungs, from seeded models.

Each item is drawn by the CLadder family's generator (``entry.families.cladder_generator``,
found through the registry): a graph of CLadder's ten families
told by one of the benchmark's stories (or a nonsense story), a random Bernoulli model,
the given information CLadder states for the query type in CLadder's sentences, and the
question in CLadder's template — answered by the oracle from that text alone (an item
whose printed numbers do not decide the answer is redrawn).  The knobs are measured per
item in ``metadata["difficulty"]``: rung, query type, graph, the answer's margin from
the decision point, the story; labels are balanced by default.  Replies are graded as
every certified dataset grades them (``environments.base``).

    >>> data = LadderDataset(LadderConfig(size=3, seed=5, query_types=("ate",)))
    >>> entry = data[0]
    >>> data.score_answer(entry["answer"], entry), entry == data[0]
    (1.0, True)
    >>> entry["metadata"]["task"], entry["metadata"]["difficulty"]["rung"]
    ('CLadder', 2)
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

LADDER_NAME = "causal_ladder"
#: the CLadder family's generator, found by the dataset's name (``Registry.generator``)
GENERATOR = REGISTRY.generator(LADDER_NAME)


@configuration
@dataclass
class LadderConfig(SeedAndSize, GENERATOR.knobs):  # type: ignore[misc,name-defined]
    """The dataset's knobs (the generator's: ``LadderKnobs``), its seed and size."""


class LadderDataset(CertifiedDataset):
    """CLadder-style questions; ``self[idx]`` depends on ``seed + idx`` only."""

    name = LADDER_NAME

    def probe(self) -> None:
        GENERATOR.probe(self.config, default())

    def draw(self, rng: random.Random) -> dict[str, Any]:
        return GENERATOR.draw(self.config, rng, default())


if HAVE_REASONING_GYM:
    class LadderCurriculum(BaseCurriculum):  # type: ignore[misc]
        """Levels of the measured knobs: rungs (1 → 1–3), graphs (the three-node
        families → all ten), the margin from the decision point (wide → narrow) and the
        stories (commonsense → nonsense → anti-commonsense too)."""

        def __init__(self) -> None:
            super().__init__(LadderCurriculum.__name__, LadderConfig)
            self._define_attributes(
                RangeAttributeDefinition(
                    name="rung", levels=[1, 2, 3], description="rungs of the ladder asked",
                    lower_field_name="min_rung", upper_field_name="max_rung",
                    ensure_interval=False),
                ScalarAttributeDefinition(
                    name="graphs", field_name="graphs", description="the graph families",
                    levels=[("chain", "fork", "mediation", "confounding"),
                            ("chain", "fork", "mediation", "confounding", "collision",
                             "diamond"), GENERATOR.knobs.graphs]),
                ScalarAttributeDefinition(
                    name="max_margin", field_name="max_margin",
                    description="the largest distance of the answer from the decision point",
                    levels=[1.0, 0.3, 0.1, 0.05]),
                ScalarAttributeDefinition(
                    name="stories", field_name="stories", description="the stories told",
                    levels=[("commonsense",), ("commonsense", "nonsense"),
                            ("commonsense", "nonsense", "anticommonsense")]),
            )
else:  # pragma: no cover - without reasoning-gym there is no curriculum machinery
    LadderCurriculum = None  # type: ignore[assignment,misc]


def register() -> bool:
    """Register the dataset (and its curriculum) with Reasoning Gym; False without it
    (or when already registered)."""
    return register_dataset(LADDER_NAME, LadderDataset, LadderConfig, LadderCurriculum)


__all__ = ["LADDER_NAME", "LadderConfig", "LadderCurriculum", "LadderDataset", "register"]
