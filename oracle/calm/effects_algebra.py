"""The two number systems a CaLM effect is computed in: exact rationals and intervals.

Every formula of ``effects`` is written once, over a ``Table`` that hands out stated
probabilities, and run twice: over ``Fraction`` (the printed numbers taken as exact:
the answer) and over ``Iv`` (each printed number as the interval of half a unit of its
fourth decimal either side, clipped to [0, 1]: a sound enclosure of every value the
quantity can take over the box of numbers that print the same).  Interval arithmetic
is sound for +, −, ×, ÷ by an interval that excludes zero, max and min; it may be wider
than the exact range when a number occurs twice (P(z) and 1 − P(z)), never narrower.

>>> a, b = Iv.printed(Fraction(1, 2)), Iv.point(Fraction(1, 4))
>>> (a - b).lo, (a - b).hi
(Fraction(4999, 20000), Fraction(5001, 20000))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Union

from causal_oracle.oracle.calm.effects_model import HALF_UNIT

Number = Union[Fraction, "Iv"]


@dataclass(frozen=True, slots=True)
class Iv:
    """A closed interval [lo, hi] of rationals."""

    lo: Fraction
    hi: Fraction

    @classmethod
    def point(cls, value: Fraction | int) -> Iv:
        return cls(Fraction(value), Fraction(value))

    @classmethod
    def printed(cls, value: Fraction) -> Iv:
        """The probabilities that print as ``value`` to four decimals."""
        return cls(max(Fraction(0), value - HALF_UNIT), min(Fraction(1), value + HALF_UNIT))

    def _lift(self, other: object) -> Iv:
        if isinstance(other, Iv):
            return other
        if isinstance(other, int | Fraction):
            return Iv.point(other)
        raise TypeError(f"cannot combine an interval with {type(other).__name__}")

    def __add__(self, other: object) -> Iv:
        o = self._lift(other)
        return Iv(self.lo + o.lo, self.hi + o.hi)

    __radd__ = __add__

    def __neg__(self) -> Iv:
        return Iv(-self.hi, -self.lo)

    def __sub__(self, other: object) -> Iv:
        return self + (-self._lift(other))

    def __rsub__(self, other: object) -> Iv:
        return self._lift(other) - self

    def __mul__(self, other: object) -> Iv:
        o = self._lift(other)
        ends = (self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi)
        return Iv(min(ends), max(ends))

    __rmul__ = __mul__

    def __truediv__(self, other: object) -> Iv:
        o = self._lift(other)
        if o.lo <= 0 <= o.hi:
            raise ZeroDivisionError("interval divisor contains zero")
        return self * Iv(1 / o.hi, 1 / o.lo)

    def contains(self, value: Fraction) -> bool:
        return self.lo <= value <= self.hi


def clamp_max(a: Number, floor: int) -> Number:
    """max{floor, a} in either number system."""
    if isinstance(a, Iv):
        return Iv(max(a.lo, Fraction(floor)), max(a.hi, Fraction(floor)))
    return max(a, Fraction(floor))


def clamp_min(a: Number, ceiling: int) -> Number:
    """min{ceiling, a} in either number system."""
    if isinstance(a, Iv):
        return Iv(min(a.lo, Fraction(ceiling)), min(a.hi, Fraction(ceiling)))
    return min(a, Fraction(ceiling))
