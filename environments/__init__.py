"""Procedural training environments: endless seeded causal questions with certified answers.

Importing this package registers its datasets with Reasoning Gym when ``reasoning-gym``
is installed (the ``rl`` extra): ``reasoning_gym.create_dataset("causal_corr2cause",
size=100, seed=1)`` then gives the same 100 items on every call, each with the oracle's
certified answer and its measured difficulty, and
``reasoning_gym.create_curriculum("causal_corr2cause")`` moves the measured knobs
(variables, edge density, 3-class targets).  Without Reasoning Gym the classes work
standalone with the same interface (``environments.base``).

    >>> from causal_oracle.environments import Corr2CauseConfig, Corr2CauseDataset
    >>> data = Corr2CauseDataset(Corr2CauseConfig(size=2, seed=1, min_nodes=4, max_nodes=4))
    >>> [e["metadata"]["difficulty"]["num_nodes"] for e in data]
    [4, 4]
"""

from causal_oracle.environments.base import CATALOGUE, HAVE_REASONING_GYM, CertifiedDataset, create
from causal_oracle.environments.corr2cause import (
    DATASET_NAME,
    Corr2CauseConfig,
    Corr2CauseCurriculum,
    Corr2CauseDataset,
    register,
)

register()

__all__ = ["CATALOGUE", "DATASET_NAME", "HAVE_REASONING_GYM", "CertifiedDataset",
           "Corr2CauseConfig", "Corr2CauseCurriculum", "Corr2CauseDataset", "create", "register"]
