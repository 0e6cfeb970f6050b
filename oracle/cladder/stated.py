"""The stated numbers of a CLadder question, as polynomials for the formulas.

Identification writes every estimand in the numbers the text states — never in a
probability it does not give.  A ``Table`` finds a stated P(V=v | given) by its event
and condition (or its complement 1 − P(V=1−v | given)) as a polynomial in the stated
numbers (``bounds.Poly``: symbol i is the i-th statement), and the joint probabilities
P(A, B) by index.  ``distribution`` builds P(vars = v | extra) for every v by the chain
rule, trying each order of the variables until one whose conditionals are all stated.

>>> from causal_oracle.oracle.cladder.model import Interval, Stated
>>> t = Table((Stated(((0, 1),), (), Interval.percent("40")),))
>>> t.p(0, 1) == Poly.symbol(0), t.p(0, 0) == Poly.const(1) - Poly.symbol(0), t.p(1, 1)
(True, True, None)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import permutations

from causal_oracle.oracle.cladder.bounds import Poly
from causal_oracle.oracle.cladder.model import Lit, Stated, StatedKind


class Table:
    """The stated probabilities by (event, condition), for look-ups."""

    def __init__(self, statements: Sequence[Stated]) -> None:
        self.statements = tuple(statements)
        self._single: dict[tuple[Lit, frozenset[Lit]], int] = {}
        self._joint: dict[frozenset[Lit], int] = {}
        for i, s in enumerate(statements):
            if s.kind is not StatedKind.PROBABILITY:
                continue
            if len(s.event) == 1:
                self._single.setdefault((s.event[0], frozenset(s.given)), i)
            elif len(s.event) == 2 and not s.given:
                self._joint.setdefault(frozenset(s.event), i)

    def p(self, var: int, value: int, given: Mapping[int, int] | None = None) -> Poly | None:
        """P(var=value | given) as a polynomial in the stated numbers, None if not stated."""
        cond = frozenset((given or {}).items())
        i = self._single.get(((var, value), cond))
        if i is not None:
            return Poly.symbol(i)
        i = self._single.get(((var, 1 - value), cond))
        if i is not None:
            return Poly.const(1) - Poly.symbol(i)
        return None

    def joint(self, a: Lit, b: Lit) -> int | None:
        return self._joint.get(frozenset((a, b)))

    def single(self, var: int, value: int) -> int | None:
        return self._single.get(((var, value), frozenset()))



def distribution(table: Table, vars_: Sequence[int], extra: Mapping[int, int]
                 ) -> dict[tuple[int, ...], Poly] | None:
    """P(vars_=v | extra) for every v, by the chain rule in some order of ``vars_`` whose
    conditionals the text states; None when no order works."""
    if not vars_:
        return {(): Poly.const(1)}
    for order in permutations(vars_):
        out: dict[tuple[int, ...], Poly] | None = {}
        for bits in range(1 << len(order)):
            values = {v: bits >> i & 1 for i, v in enumerate(order)}
            term = Poly.const(1)
            for i, v in enumerate(order):
                p = table.p(v, values[v], {**{u: values[u] for u in order[:i]}, **extra})
                if p is None:
                    out = None
                    break
                term = term * p
            if out is None:
                break
            out[tuple(values[v] for v in vars_)] = term
        if out is not None:
            return out
    return None


