"""Procedural training environments: endless seeded causal questions with certified answers.

Importing this package registers its datasets with Reasoning Gym when ``reasoning-gym``
is installed (the ``rl`` extra):

* ``causal_corr2cause`` — Corr2Cause items from random DAGs (``environments.corr2cause``);
* ``causal_cibench`` — CI-Bench items (causal paths, backdoor adjustment, factual and
  counterfactual inference) from tiered DAGs (``environments.cibench``);
* ``causal_graph`` — CLEAR-style graph questions (20 task types, 6 question types) from
  random graphs (``environments.graph``);
* ``causal_ladder`` — CLadder-style questions on rungs 1–3 from seeded models over
  CLadder's graph families, in its stories' words (``environments.ladder``);
* ``calm_graph`` — CaLM-style graph questions (AR, CA, CEI, BAS, FAS, IV) from seeded
  random graphs, in CaLM's English prompts (``environments.calm``).

``reasoning_gym.create_dataset("causal_corr2cause", size=100, seed=1)`` then gives the
same 100 items on every call, each with the oracle's certified answer and its measured
difficulty, and ``reasoning_gym.create_curriculum(name)`` moves the measured knobs.
Without Reasoning Gym the classes work standalone with the same interface
(``environments.base``: ``create(name, **config)``), and ``environments.verifiers_env``
turns any of them into a ``verifiers`` environment.

    >>> from causal_oracle.environments import Corr2CauseConfig, Corr2CauseDataset
    >>> data = Corr2CauseDataset(Corr2CauseConfig(size=2, seed=1, min_nodes=4, max_nodes=4))
    >>> [e["metadata"]["difficulty"]["num_nodes"] for e in data]
    [4, 4]
    >>> sorted(CATALOGUE)
    ['calm_graph', 'causal_cibench', 'causal_corr2cause', 'causal_graph', 'causal_ladder']
"""

from causal_oracle.environments.base import CATALOGUE, HAVE_REASONING_GYM, CertifiedDataset, create
from causal_oracle.environments.calm import CALM_NAME, CalmConfig, CalmCurriculum, CalmDataset
from causal_oracle.environments.calm import register as register_calm
from causal_oracle.environments.cibench import (
    CIBENCH_NAME,
    CIBenchConfig,
    CIBenchCurriculum,
    CIBenchDataset,
)
from causal_oracle.environments.cibench import register as register_cibench
from causal_oracle.environments.corr2cause import (
    DATASET_NAME,
    Corr2CauseConfig,
    Corr2CauseCurriculum,
    Corr2CauseDataset,
)
from causal_oracle.environments.corr2cause import register as register_corr2cause
from causal_oracle.environments.graph import (
    GRAPH_NAME,
    GraphConfig,
    GraphCurriculum,
    GraphDataset,
)
from causal_oracle.environments.graph import register as register_graph
from causal_oracle.environments.ladder import (
    LADDER_NAME,
    LadderConfig,
    LadderCurriculum,
    LadderDataset,
)
from causal_oracle.environments.ladder import register as register_ladder


def register() -> bool:
    """Register every dataset of this package with Reasoning Gym (a no-op for those already
    registered); False without Reasoning Gym."""
    done = [register_corr2cause(), register_cibench(), register_graph(), register_ladder(),
            register_calm()]
    return any(done)


register()

__all__ = [
    "CALM_NAME",
    "CATALOGUE",
    "CIBENCH_NAME",
    "DATASET_NAME",
    "GRAPH_NAME",
    "HAVE_REASONING_GYM",
    "LADDER_NAME",
    "CIBenchConfig",
    "CIBenchCurriculum",
    "CIBenchDataset",
    "CalmConfig",
    "CalmCurriculum",
    "CalmDataset",
    "CertifiedDataset",
    "Corr2CauseConfig",
    "Corr2CauseCurriculum",
    "Corr2CauseDataset",
    "GraphConfig",
    "GraphCurriculum",
    "GraphDataset",
    "LadderConfig",
    "LadderCurriculum",
    "LadderDataset",
    "create",
    "register",
]
