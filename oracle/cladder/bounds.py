"""Exact bounds of a CLadder estimand over the box of printed values.

Each number a CLadder text prints stands for an interval (``model.Interval``); the
stated quantities together range over the *box*, the product of their intervals.  An
identified estimand is a function of the stated quantities, and a question is decided
only when the benchmark's rule gives the same answer at every point of the box, so what
is needed is the estimand's exact minimum and maximum over the box.

Two forms cover every estimand the identification step builds (``identify``):

* a **multilinear polynomial** in the stated numbers (``Poly``): sums of products in
  which no number appears twice — total probability, backdoor and frontdoor adjustment,
  the mediation formulas, ETT by adjustment.  A multilinear function is affine in each
  coordinate, so its minimum and maximum over a box are attained at vertices
  (fix all coordinates but one: an affine function of one variable is extreme at an
  end; repeat coordinate by coordinate).  ``poly_bounds`` evaluates every vertex in
  floating point (numpy), then re-evaluates in exact rationals each vertex within
  10⁻⁹ of the floating minimum (maximum) and returns the exact extreme with its vertex.
  The float error of these short sums of products of numbers in [0, 1] is below
  10⁻¹², so the true extreme is always among the re-evaluated vertices.
* the **ratio of joint probabilities** a correlation question states (``Joint``):
  P(Y=b | X=1) − P(Y=b | X=0) = j₁/t − j₀/(1 − t) with t = P(X=1), jₐ = P(X=a, Y=b).
  The box is cut by coherence (jₐ ≤ P(X=a)).  For fixed t the difference is largest
  at j₁ = min(hi₁, t), j₀ = lo₀, and both terms fall as t grows, so the maximum is at
  the smallest feasible t; symmetrically the minimum is at the largest feasible t
  (``joint_bounds``).

>>> p = Poly.symbol(0) * Poly.symbol(1) + (Poly.const(1) - Poly.symbol(0)) * Poly.symbol(2)
>>> p.is_multilinear(), sorted(p.symbols())
(True, [0, 1, 2])
>>> from fractions import Fraction as F
>>> box = {0: (F(1, 2), F(1, 2)), 1: (F(1, 5), F(3, 10)), 2: (F(0), F(1, 10))}
>>> low, high = poly_bounds(p, box)
>>> low.value, high.value, dict(high.at)
(Fraction(1, 10), Fraction(1, 5), {0: Fraction(1, 2), 1: Fraction(3, 10), 2: Fraction(1, 10)})
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from causal_oracle.oracle.errors import BudgetExceeded, InputError

if TYPE_CHECKING:
    import numpy as np

#: at most this many stated numbers in one estimand (2^k vertices are evaluated)
MAX_SYMBOLS = 16
_SLACK = 1e-9

Monomial = tuple[int, ...]
Box = Mapping[int, tuple[Fraction, Fraction]]


class Poly:
    """A polynomial with rational coefficients in the stated numbers (by index)."""

    __slots__ = ("terms",)

    def __init__(self, terms: Mapping[Monomial, Fraction]) -> None:
        self.terms: dict[Monomial, Fraction] = {m: c for m, c in terms.items() if c}

    @classmethod
    def symbol(cls, index: int) -> Poly:
        return cls({(index,): Fraction(1)})

    @classmethod
    def const(cls, value: Fraction | int) -> Poly:
        return cls({(): Fraction(value)})

    def __add__(self, other: Poly) -> Poly:
        out = dict(self.terms)
        for m, c in other.terms.items():
            out[m] = out.get(m, Fraction(0)) + c
        return Poly(out)

    def __neg__(self) -> Poly:
        return Poly({m: -c for m, c in self.terms.items()})

    def __sub__(self, other: Poly) -> Poly:
        return self + (-other)

    def __mul__(self, other: Poly) -> Poly:
        out: dict[Monomial, Fraction] = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in other.terms.items():
                m = tuple(sorted(m1 + m2))
                out[m] = out.get(m, Fraction(0)) + c1 * c2
        return Poly(out)

    def scale(self, factor: Fraction | int) -> Poly:
        return Poly({m: c * factor for m, c in self.terms.items()})

    def symbols(self) -> set[int]:
        return {s for m in self.terms for s in m}

    def is_multilinear(self) -> bool:
        return all(len(set(m)) == len(m) for m in self.terms)

    def value(self, point: Mapping[int, Fraction]) -> Fraction:
        """The exact value at ``point`` (stated number index → value)."""
        total = Fraction(0)
        for m, c in self.terms.items():
            term = c
            for s in m:
                term *= point[s]
            total += term
        return total

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Poly) and self.terms == other.terms

    def __hash__(self) -> int:
        return hash(frozenset(self.terms.items()))

    def __repr__(self) -> str:
        return f"Poly({self.terms!r})"


def sum_of(polys: Iterable[Poly]) -> Poly:
    out = Poly.const(0)
    for p in polys:
        out = out + p
    return out


@dataclass(frozen=True, slots=True)
class Extreme:
    """An exact extreme value and the point of the box where it is attained."""

    value: Fraction
    at: tuple[tuple[int, Fraction], ...]


def _vertices(symbols: list[int], box: Box) -> np.ndarray:
    """Float coordinates of every vertex, shape (len(symbols), 2^k)."""
    import numpy as np  # loaded with the first bound, not with the CLadder family

    k = len(symbols)
    corners = (np.arange(1 << k)[None, :] >> np.arange(k)[:, None]) & 1
    lo = np.array([float(box[s][0]) for s in symbols])[:, None]
    hi = np.array([float(box[s][1]) for s in symbols])[:, None]
    out: np.ndarray = np.where(corners == 1, hi, lo)
    return out


def poly_bounds(poly: Poly, box: Box) -> tuple[Extreme, Extreme]:
    """Exact (minimum, maximum) of a multilinear ``poly`` over ``box`` (module docstring)."""
    if not poly.is_multilinear():
        raise ValueError("poly_bounds needs a multilinear polynomial")
    symbols = sorted(poly.symbols())
    if len(symbols) > MAX_SYMBOLS:
        raise BudgetExceeded(f"an estimand of {len(symbols)} stated numbers; the limit is "
                             f"{MAX_SYMBOLS}")
    if not symbols:
        value = poly.value({})
        return Extreme(value, ()), Extreme(value, ())
    import numpy as np

    coords = _vertices(symbols, box)
    row = {s: i for i, s in enumerate(symbols)}
    values = np.zeros(coords.shape[1])
    for m, c in poly.terms.items():
        term = np.full(coords.shape[1], float(c))
        for s in m:
            term = term * coords[row[s]]
        values = values + term
    k = len(symbols)

    def exact(col: int) -> tuple[Fraction, tuple[tuple[int, Fraction], ...]]:
        point = {s: box[s][1] if col >> i & 1 else box[s][0] for i, s in enumerate(symbols)}
        return poly.value(point), tuple(sorted(point.items()))

    def extreme(best: float, pick: str) -> Extreme:
        near = np.nonzero(np.abs(values - best) <= _SLACK)[0]
        found = [exact(int(col)) for col in near[: 1 << k]]
        value, at = min(found) if pick == "min" else max(found)
        return Extreme(value, at)

    return extreme(float(values.min()), "min"), extreme(float(values.max()), "max")


@dataclass(frozen=True, slots=True)
class Joint:
    """d = P(Y=b | X=1) − P(Y=b | X=0) from P(X=1) (``marginal``, or 1 − it when the text
    states P(X=0): ``complement``) and the joints P(X=1, Y=b), P(X=0, Y=b)."""

    marginal: int
    joint1: int
    joint0: int
    complement: bool = False


def joint_bounds(form: Joint, box: Box) -> tuple[Extreme, Extreme]:
    """Exact (minimum, maximum) of ``form`` over the coherent part of ``box``."""
    m_lo, m_hi = box[form.marginal]
    t_lo, t_hi = (1 - m_hi, 1 - m_lo) if form.complement else (m_lo, m_hi)
    lo1, hi1 = box[form.joint1]
    lo0, hi0 = box[form.joint0]
    low_t, high_t = max(t_lo, lo1), min(t_hi, 1 - lo0)
    if low_t > high_t:
        raise InputError("the stated probabilities contradict each other: no P(X=1) in "
                         "its interval leaves room for both joint probabilities")

    def ratio(num: Fraction, den: Fraction) -> Fraction:
        return min(Fraction(1), num / den) if den > 0 else Fraction(1 if num > 0 else 0)

    def point(t: Fraction, j1: Fraction, j0: Fraction) -> tuple[tuple[int, Fraction], ...]:
        marginal = 1 - t if form.complement else t
        return tuple(sorted({form.marginal: marginal, form.joint1: j1,
                             form.joint0: j0}.items()))

    high = ratio(hi1, low_t) - ratio(lo0, 1 - low_t)
    low = ratio(lo1, high_t) - ratio(hi0, 1 - high_t)
    return (Extreme(low, point(high_t, lo1, min(hi0, 1 - high_t))),
            Extreme(high, point(low_t, min(hi1, low_t), lo0)))


__all__ = ["MAX_SYMBOLS", "Box", "Extreme", "Joint", "Poly", "joint_bounds", "poly_bounds",
           "sum_of"]
