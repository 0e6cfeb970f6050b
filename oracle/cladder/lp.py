"""Exact linear programming over the rationals: a small dense simplex with Bland's rule.

Sharp bounds of a causal quantity that the stated numbers do not point-identify are
often the optimum of a linear program: over the distribution q of *response types*
(which value each variable takes for each value of its parents), the stated
probabilities are linear constraints and an interventional contrast is a linear
objective (Balke & Pearl 1997).  The programs are tiny (a few dozen columns), so the
solver is the textbook one, in ``fractions.Fraction`` so that the bound and the verdict
it decides are exact:

* every row ``Σ_j a_j q_j (≤ | = | ≥) b`` gets a slack (``≤``, ``≥``) and an artificial
  variable; phase 1 minimises the artificials' sum (a positive optimum: infeasible),
  phase 2 the objective, with artificials barred from entering;
* Bland's rule (the lowest-indexed improving column enters, ties in the ratio test go to
  the lowest-indexed basic variable) makes the method terminate without cycling;
* the tableau carries B⁻¹ in the artificials' columns, so the optimal **dual** vector
  y = c_B B⁻¹ comes with the primal one.  y is a certificate anyone can check without
  the solver: yᵀA ≤ c column by column, y_r ≥ 0 on ``≥`` rows and ≤ 0 on ``≤`` rows,
  and then yᵀb is a lower bound of cᵀq over every feasible q (weak duality); at the
  optimum it equals cᵀq*.

>>> from fractions import Fraction as F
>>> r = minimise([F(1), F(2)], [Row((F(1), F(1)), Sense.GE, F(1)),
...                             Row((F(1), F(0)), Sense.LE, F(1, 3))])
>>> r.value, r.x, r.dual
(Fraction(5, 3), (Fraction(1, 3), Fraction(2, 3)), (Fraction(2, 1), Fraction(-1, 1)))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from causal_oracle.oracle.errors import BudgetExceeded, InputError

#: pivots allowed per phase (Bland's rule terminates; this bounds the work on any input)
MAX_PIVOTS = 5000


class Sense(StrEnum):
    LE = "<="
    EQ = "="
    GE = ">="


@dataclass(frozen=True, slots=True)
class Row:
    """One constraint ``Σ_j coefficients[j] · q_j (sense) rhs``."""

    coefficients: tuple[Fraction, ...]
    sense: Sense
    rhs: Fraction


@dataclass(frozen=True, slots=True)
class Optimum:
    """The exact optimum: ``value`` = cᵀx, the primal ``x`` and one dual per row."""

    value: Fraction
    x: tuple[Fraction, ...]
    dual: tuple[Fraction, ...]


class _Tableau:
    def __init__(self, c: Sequence[Fraction], rows: Sequence[Row]) -> None:
        n, m = len(c), len(rows)
        self.n, self.m = n, m
        slacks = [i for i, r in enumerate(rows) if r.sense is not Sense.EQ]
        self.width = n + len(slacks) + m  # originals, slacks, artificials
        self.art0 = n + len(slacks)
        self.flip: list[int] = []
        self.t: list[list[Fraction]] = []
        for i, r in enumerate(rows):
            if len(r.coefficients) != n:
                raise ValueError("a row's length differs from the objective's")
            row = list(r.coefficients) + [Fraction(0)] * (self.width - n) + [r.rhs]
            if r.sense is not Sense.EQ:
                row[n + slacks.index(i)] = Fraction(1 if r.sense is Sense.LE else -1)
            sign = -1 if r.rhs < 0 else 1
            if sign < 0:
                row = [-v for v in row]
            row[self.art0 + i] = Fraction(1)
            self.flip.append(sign)
            self.t.append(row)
        self.basis = [self.art0 + i for i in range(m)]

    def _pivot(self, r: int, col: int) -> None:
        t = self.t
        piv = t[r][col]
        t[r] = [v / piv for v in t[r]]
        for i in range(self.m):
            f = t[i][col]
            if i != r and f:
                ri = t[r]
                t[i] = [a - f * b for a, b in zip(t[i], ri, strict=True)]
        self.basis[r] = col

    def run(self, cost: Sequence[Fraction], allowed: int) -> None:
        """Minimise ``cost`` (one entry per column) over columns < ``allowed``."""
        for _ in range(MAX_PIVOTS):
            cb = [cost[b] for b in self.basis]
            enter = -1
            for j in range(allowed):
                if j in self.basis:
                    continue
                d = cost[j] - sum((cb[i] * self.t[i][j] for i in range(self.m)
                                   if self.t[i][j]), Fraction(0))
                if d < 0:
                    enter = j
                    break
            if enter < 0:
                return
            best: tuple[Fraction, int, int] | None = None
            for i in range(self.m):
                a = self.t[i][enter]
                if a > 0:
                    key = (self.t[i][-1] / a, self.basis[i], i)
                    if best is None or key < best:
                        best = key
            if best is None:
                raise InputError("the linear program is unbounded")
            self._pivot(best[2], enter)
        raise BudgetExceeded(f"the simplex method took more than {MAX_PIVOTS} pivots")


def minimise(c: Sequence[Fraction], rows: Sequence[Row]) -> Optimum:
    """The exact minimum of cᵀq over q ≥ 0 meeting ``rows``; ``InputError`` when no q
    does (the constraints contradict each other)."""
    tab = _Tableau(c, rows)
    width = tab.width
    phase1 = [Fraction(0)] * tab.art0 + [Fraction(1)] * tab.m
    tab.run(phase1, width)
    if any(tab.t[i][-1] and tab.basis[i] >= tab.art0 for i in range(tab.m)):
        raise InputError("the stated numbers admit no model (the linear program is "
                         "infeasible)")
    for i in range(tab.m):  # drive zero artificials out where a real column can enter
        if tab.basis[i] >= tab.art0:
            col = next((j for j in range(tab.art0) if tab.t[i][j] and j not in tab.basis),
                       None)
            if col is not None:
                tab._pivot(i, col)
    cost = list(c) + [Fraction(0)] * (width - tab.n)
    tab.run(cost, tab.art0)
    x = [Fraction(0)] * tab.n
    for i, b in enumerate(tab.basis):
        if b < tab.n:
            x[b] = tab.t[i][-1]
    cb = [cost[b] for b in tab.basis]
    dual = tuple(tab.flip[r] * sum((cb[i] * tab.t[i][tab.art0 + r] for i in range(tab.m)),
                                   Fraction(0)) for r in range(tab.m))
    value = sum((ci * xi for ci, xi in zip(c, x, strict=True)), Fraction(0))
    return Optimum(value, tuple(x), dual)


def maximise(c: Sequence[Fraction], rows: Sequence[Row]) -> Optimum:
    """The exact maximum of cᵀq; its ``dual`` certifies the minimum of −cᵀq."""
    found = minimise([-v for v in c], rows)
    return Optimum(-found.value, found.x, found.dual)


__all__ = ["MAX_PIVOTS", "Optimum", "Row", "Sense", "maximise", "minimise"]
