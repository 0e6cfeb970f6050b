"""One entry point for every CaLM effect question: the answer or why there is none.

``solve`` dispatches ATE/CDE/ETT/NDE/NIE to ``effects.solve_effect`` and PN/PS to
``tian_pearl.solve_bound``; a question the stated numbers or the graph do not decide
(``effects.NotDecided``) gets ``answer=None`` and the reason — undetermined, never
guessed.
"""

from __future__ import annotations

from dataclasses import dataclass

from causal_oracle.oracle.calm.effects import EffectAnswer, NotDecided, solve_effect
from causal_oracle.oracle.calm.effects_model import EffectKind, EffectQuestion
from causal_oracle.oracle.calm.tian_pearl import solve_bound


@dataclass(frozen=True, slots=True)
class EffectSolution:
    """The certified answer (None: undetermined, ``reason`` says why)."""

    answer: EffectAnswer | None
    reason: str = ""


def solve(q: EffectQuestion) -> EffectSolution:
    try:
        if q.kind in (EffectKind.PN, EffectKind.PS):
            return EffectSolution(solve_bound(q))
        return EffectSolution(solve_effect(q))
    except NotDecided as undecided:
        return EffectSolution(None, undecided.reason)
