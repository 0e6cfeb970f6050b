"""``causal_oracle.inspect``: the Inspect (``inspect_ai``) scorer and task factory.

This file lives in ``plugins/``, which the package adds to its ``__path__``: the
repository root *is* the package, and a root-level ``inspect.py`` would shadow the
standard library's ``inspect`` for anything run from the checkout.  ``plugins/`` is
never on ``sys.path`` itself.  The implementation is
``causal_oracle.clients.inspect_scorer``::

    from causal_oracle.inspect import local_model, oracle_scorer, oracle_task
"""

from causal_oracle.clients.inspect_scorer import (
    cibench_ba,
    cibench_ci,
    cibench_cp,
    cibench_fi,
    corr2cause,
    corr2cause_3class,
    ie,
    local_model,
    oracle_scorer,
    oracle_task,
    samples,
)

__all__ = ["cibench_ba", "cibench_ci", "cibench_cp", "cibench_fi", "corr2cause",
           "corr2cause_3class", "ie", "local_model", "oracle_scorer", "oracle_task", "samples"]
