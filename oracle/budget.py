"""Cooperative budgets: every solver, enumeration and path loop checks the clock.

A *budget* is a deadline (and, optionally, a cap on the work units a loop may
spend) that the caller sets around one computation.  Loops do not take it as a
parameter: they call ``checkpoint()``, which looks up the budget in force in the
current context (a ``contextvars.ContextVar``, so threads and asyncio tasks each
see their own) and raises ``BudgetExceeded`` once it is spent.  Nothing is
interrupted from outside — no signals — so the error is raised in the loop's own
frame, where it cannot be swallowed by a GC callback or a ``finally`` block of a
library.

    >>> with budget(seconds=5.0):
    ...     for _ in range(1000):
    ...         checkpoint()
    >>> with budget(seconds=0.0):
    ...     checkpoint()
    Traceback (most recent call last):
    ...
    causal_oracle.oracle.errors.BudgetExceeded: the time budget of 0 s was exceeded

A loop whose steps are cheap (a parser's tokens and statements) looks at the clock only
every ``PACE`` steps: ``paced()`` is a ``checkpoint`` that counts, and ``Pace`` is a
counter of its own for one loop.

``remaining()`` gives the seconds left (None without a budget) so that external
solvers can be told: python-sat's ``solve_limited`` with ``interrupt`` on a timer,
z3's ``timeout`` parameter.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from causal_oracle.oracle.errors import BudgetExceeded


@dataclass(frozen=True, slots=True)
class Budget:
    """A deadline on ``time.monotonic()``; ``seconds`` is what the caller granted."""

    deadline: float
    seconds: float

    def exceeded(self) -> bool:
        return time.monotonic() > self.deadline


_CURRENT: ContextVar[Budget | None] = ContextVar("causal_oracle_budget", default=None)


@contextlib.contextmanager
def budget(seconds: float | None) -> Iterator[Budget | None]:
    """Run the block under a time budget of ``seconds`` (None: no budget).

    A nested budget never extends an outer one: the earlier deadline wins.
    """
    if seconds is None:
        yield _CURRENT.get()
        return
    outer = _CURRENT.get()
    mine = Budget(time.monotonic() + max(0.0, seconds), seconds)
    if outer is not None and outer.deadline < mine.deadline:
        mine = outer
    token = _CURRENT.set(mine)
    try:
        yield mine
    finally:
        _CURRENT.reset(token)


def checkpoint() -> None:
    """Raise ``BudgetExceeded`` if the budget in force is spent; cheap otherwise."""
    current = _CURRENT.get()
    if current is not None and time.monotonic() > current.deadline:
        raise BudgetExceeded(f"the time budget of {current.seconds:g} s was exceeded")


#: how many steps of a hot loop pass between two looks at the clock
PACE = 512
_STEPS = itertools.count()  # next() on it is atomic: threads may share it


def paced() -> None:
    """``checkpoint()`` every ``PACE`` calls (counted across the process): for steps
    too cheap to look at the clock each time, e.g. one per token or statement."""
    if not next(_STEPS) % PACE:
        checkpoint()


class Pace:
    """A loop's own step counter: ``step()`` is ``checkpoint()`` every ``every`` steps.

    >>> pace = Pace(every=2)
    >>> with budget(seconds=0.0):
    ...     pace.step()  # the first step does not look
    ...     pace.step()
    Traceback (most recent call last):
    ...
    causal_oracle.oracle.errors.BudgetExceeded: the time budget of 0 s was exceeded
    """

    __slots__ = ("every", "left")

    def __init__(self, every: int = PACE) -> None:
        self.every = every
        self.left = every

    def step(self) -> None:
        self.left -= 1
        if self.left <= 0:
            self.left = self.every
            checkpoint()


def remaining() -> float | None:
    """Seconds left in the budget in force (never negative), or None without one."""
    current = _CURRENT.get()
    if current is None:
        return None
    return max(0.0, current.deadline - time.monotonic())
