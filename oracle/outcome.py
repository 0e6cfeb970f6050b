"""The outcome of labelling a hypothesis: one of four words, defined once.

For a consistent premise with equivalence class 𝓜 and a relation R
(DESIGN.md 3.1):

* ``entailment`` — R holds in every member of 𝓜;
* ``contradiction`` — R holds in no member;
* ``neutral`` — R holds in some members and fails in others;
* ``inconsistent`` — no DAG reproduces the premise, so there is no label.

``Outcome`` is a ``StrEnum``: each member *is* its word (``Outcome.NEUTRAL ==
"neutral"``, JSON and gRPC carry the word, and its ``repr`` is the word's), so
results, reports, certificates and the independent checker — which reads
certificates as data and compares words — see exactly the strings they always
did.

>>> Outcome("neutral") is Outcome.NEUTRAL, f"{Outcome.ENTAILMENT}", Outcome.NEUTRAL
(True, 'entailment', 'neutral')
"""

from __future__ import annotations

from enum import StrEnum


class Outcome(StrEnum):
    """The 3-class label of a hypothesis, or ``inconsistent`` for a premise no DAG fits."""

    ENTAILMENT = "entailment"
    NEUTRAL = "neutral"
    CONTRADICTION = "contradiction"
    INCONSISTENT = "inconsistent"

    def __repr__(self) -> str:
        return repr(self.value)

    @classmethod
    def of_count(cls, holds_in: int, size: int) -> Outcome:
        """The outcome when R holds in ``holds_in`` of ``size`` (≥ 1) members."""
        if holds_in == size:
            return cls.ENTAILMENT
        return cls.CONTRADICTION if holds_in == 0 else cls.NEUTRAL
