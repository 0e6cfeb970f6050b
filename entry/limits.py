"""The limits of one request: text size, premise size, time budget, cache size.

One frozen ``Limits`` travels from the CLI's and the server's options to the service,
which refuses input over a limit before any work (``BudgetExceeded``, gRPC
``RESOURCE_EXHAUSTED``) and runs every solver and checker under the time budget.
The defaults are a server's (conservative: a request comes from anyone);
``Limits.in_process()`` is the library's and the CLI's, large enough for anything the
project's generator writes and for multi-megabyte premises (the time budget still
bounds the work).  ``--max-premise-bytes`` / ``--max-statements`` set either.

    >>> Limits().text_bytes, Limits.in_process().text_bytes
    (262144, 67108864)
    >>> Limits.in_process(budget_s=5.0).statements, Limits(budget_s=None).budget_s
    (1000000, None)
"""

from __future__ import annotations

from dataclasses import dataclass

from causal_oracle.oracle.equivalence import MAX_VARIABLES

DEFAULT_BUDGET_S = 60.0  # per item, in-process and in the server alike
REWARD_CAP_S = 5.0  # the hard cap per reward sample (rewards.pool): in-process and over HTTP
DEFAULT_CACHE_ITEMS = 32_768  # items kept per cache (here, and the server's response cache)
SERVER_TEXT_BYTES = 256 * 1024  # per text field of a request
SERVER_STATEMENTS = 4096  # per premise
IN_PROCESS_TEXT_BYTES = 64 * 1024 * 1024
IN_PROCESS_STATEMENTS = 1_000_000
#: items in one request of many: a gRPC VerifyBatch/AnswerBatch message, an HTTP reward
#: request (one limit for both surfaces, so neither imports the other)
MAX_BATCH_ITEMS = 65_536


@dataclass(frozen=True, slots=True)
class Limits:
    """Every limit of one request; ``budget_s`` None means no time budget."""

    text_bytes: int = SERVER_TEXT_BYTES
    statements: int = SERVER_STATEMENTS
    variables: int = MAX_VARIABLES
    budget_s: float | None = DEFAULT_BUDGET_S
    cache_items: int = DEFAULT_CACHE_ITEMS

    @classmethod
    def in_process(cls, **changes: float | int | None) -> Limits:
        """The library's and the CLI's limits (``changes`` override any field)."""
        base: dict[str, float | int | None] = {"text_bytes": IN_PROCESS_TEXT_BYTES,
                                               "statements": IN_PROCESS_STATEMENTS}
        return cls(**{**base, **changes})  # type: ignore[arg-type]


__all__ = ["DEFAULT_BUDGET_S", "DEFAULT_CACHE_ITEMS", "IN_PROCESS_STATEMENTS",
           "IN_PROCESS_TEXT_BYTES", "MAX_BATCH_ITEMS", "SERVER_STATEMENTS", "SERVER_TEXT_BYTES",
           "Limits"]
