"""causal-oracle-env: certified causal-reasoning questions for ``verifiers``, v0 and v1.

One package, both of verifiers' environment APIs (the Environments Hub layout:
``environments/causal_oracle_env/`` with this module, ``pyproject.toml`` and ``README.md``):

* **v0** (verifiers 0.2: ``vf.load_environment("causal-oracle-env", dataset=…)``) —
  ``load_environment``, a ``SingleTurnEnv`` (``causal_oracle.environments.verifiers_env``);
* **v1** (verifiers 0.4: ``--env.taskset.id causal-oracle-env``) — the ``Taskset``
  subclass ``CertifiedTaskset`` and its default harness ``CertifiedHarness``
  (``causal_oracle.environments.verifiers_taskset``), exported through ``__all__`` as
  verifiers' loader wants them and imported only when asked for, so the v0 loader never
  imports ``verifiers.v1``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from causal_oracle.environments.verifiers_env import load_environment

if TYPE_CHECKING:  # imported on first use (module ``__getattr__``): verifiers >= 0.4 only
    from causal_oracle.environments.verifiers_taskset import (
        CertifiedHarness,
        CertifiedTaskset,
    )

V1_NAMES = ("CertifiedTaskset", "CertifiedHarness", "CertifiedTasksetConfig")


def __getattr__(name: str) -> Any:
    if name in V1_NAMES:
        try:
            from causal_oracle.environments import verifiers_taskset
        except ImportError as error:  # verifiers 0.2: no v1 API
            raise AttributeError(f"{name} needs verifiers >= 0.4: {error}") from error
        return getattr(verifiers_taskset, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["CertifiedHarness", "CertifiedTaskset", "load_environment"]
