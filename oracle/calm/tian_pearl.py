"""Tian–Pearl bounds on the probabilities of causation, as CaLM's PN/PS items ask them.

For a binary treatment X and outcome Y, with P(y_x) = P(Y=y | do(X=x)) identified and
the observational joint known, Tian and Pearl (2000) give the sharp bounds

* PN = P(Y_{x′}=y′ | X=x, Y=y) (would Y have been y′ had X been x′, given x and y):
  max{0, [P(y) − P(y_{x′})] / P(x, y)} ≤ PN ≤ min{1, [P(y′_{x′}) − P(x′, y′)] / P(x, y)};
* PS = P(Y_x=y | X=x′, Y=y′) (would Y have been y had X been x, given x′ and y′):
  max{0, [P(y′) − P(y′_x)] / P(x′, y′)} ≤ PS ≤ min{1, [P(y_x) − P(x, y)] / P(x′, y′)}.

CaLM's questions name the factual pair (X=a, Y=b) and the counterfactual values
(a′, b′); PN and PS then read the same way: factual (a, b), counterfactual (a′, b′), so
lower = max{0, [P(Y=b) − P(Y=b | do(a′))] / P(a, b)} and
upper = min{1, [P(Y=b′ | do(a′)) − P(a′, b′)] / P(a, b)} — CaLM's reasoning steps write
exactly these (PS with its own letters).  P(Y=b | do(a′)) is the stated conditional
when X has no backdoor path to Y, or the backdoor adjustment over the stated covariate
(``effects.first_valid``); P(Y=b) is stated, or 1 − P(Y=b′).
"""

from __future__ import annotations

from fractions import Fraction

from causal_oracle.oracle.calm.effects import (
    EffectAnswer,
    Identification,
    Missing,
    NotDecided,
    Table,
    adjusted,
    dag_of,
    first_valid,
    stated_sets,
)
from causal_oracle.oracle.calm.effects_algebra import Iv, Number, clamp_max, clamp_min
from causal_oracle.oracle.calm.effects_model import Bound, EffectKind, EffectQuestion


def solve_bound(q: EffectQuestion) -> EffectAnswer:
    """The bound ``q`` asks for, exact and over the box of printed values."""
    if q.kind not in (EffectKind.PN, EffectKind.PS) or q.bound is None:
        raise ValueError("solve_bound answers PN/PS bound questions")
    exact, ident = _evaluate(q, Table(q, exact=True))
    box, _ = _evaluate(q, Table(q, exact=False))
    if not isinstance(box, Iv):  # a structural zero: no number was used
        box = Iv.point(box)
    assert isinstance(exact, Fraction)
    return EffectAnswer(q.kind, exact, box, None, ident)


def _evaluate(q: EffectQuestion, t: Table) -> tuple[Number, Identification]:
    if q.base is None or q.factual_y is None:
        raise NotDecided("the question does not name the factual values")
    x, y = q.treatment, q.outcome
    if x == y:
        raise NotDecided("treatment is the outcome")
    a, b = (x, q.base), (y, q.factual_y)
    a2, b2 = (x, q.x), (y, q.y)
    factual = t.p((a, b))
    denominator_ok = factual > 0 if isinstance(factual, Fraction) else factual.lo > 0
    if not denominator_ok:
        raise NotDecided("P(X=a, Y=b) may be zero: the bound is undefined")
    dag = dag_of(q)
    if q.bound is Bound.LOWER:
        z, do_b = first_valid(q, dag, (x,), y, stated_sets(q, y, (x,)),
                              lambda z: adjusted(t, b, (a2,), z))
        try:
            marginal = t.p((b,))
        except Missing:
            marginal = sum_over_x(t, b, x)
        return clamp_max((marginal - do_b) / factual, 0), Identification(
            "Tian–Pearl lower bound", z)
    z, do_b2 = first_valid(q, dag, (x,), y, stated_sets(q, y, (x,)),
                           lambda z: adjusted(t, b2, (a2,), z))
    return clamp_min((do_b2 - t.p((a2, b2))) / factual, 1), Identification(
        "Tian–Pearl upper bound", z)


def sum_over_x(t: Table, b: tuple[int, int], x: int) -> Number:
    """P(Y=b) = Σ_a P(X=a, Y=b) from the stated joints."""
    return t.p(((x, 0), b)) + t.p(((x, 1), b))
