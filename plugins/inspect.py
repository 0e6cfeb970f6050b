"""``causal_oracle.inspect``: the Inspect (``inspect_ai``) scorer and task factory.

This file lives in ``plugins/``, which the package adds to its ``__path__``: the
repository root *is* the package, and a root-level ``inspect.py`` would shadow the
standard library's ``inspect`` for anything run from the checkout.  ``plugins/`` is
never on ``sys.path`` itself.  The implementation is
``causal_oracle.clients.inspect_scorer``, whose registered ``@task`` of every harness
task (``REGISTERED``, from the family registry) are attributes here too::

    from causal_oracle.inspect import local_model, oracle_scorer, oracle_task
"""

from causal_oracle.clients.inspect_scorer import (
    REGISTERED,
    local_model,
    oracle_scorer,
    oracle_task,
    samples,
)

globals().update(REGISTERED)  # ``from causal_oracle.inspect import ie`` keeps working

__all__ = ["REGISTERED", "local_model", "oracle_scorer", "oracle_task", "samples",
           *REGISTERED]
