"""The checker's small causal models, enumerated: values as exact sums over response bits.

To re-derive a CLadder value without the solver's formulas, the checker builds a small
binary structural model (``Model``) whose mechanisms are the stated probabilities: every
variable either copies another or reads one independent *response bit* per
configuration of its parents, and each bit is 1 with a stated probability (``Term``: a
stated number, its complement, or a constant).  A query — an interventional contrast, an
effect on the treated, a nested counterfactual — is then a ``Value``: a sum, over all
2ⁿ settings of the bits, of the query's contribution in that setting times the
setting's probability.

Each stated number drives one bit, so a value is multilinear in the stated numbers and
its extremes over the box of printed intervals lie at the box's vertices.  ``extremes``
evaluates every vertex at once in floating point (numpy), then re-evaluates the
candidate minima and maxima exactly in integers (``exact``); the contributions depend
only on the model's structure and the contrast, and are remembered per ``signature``.

>>> from causal_oracle.oracle.cladder.model import Interval, Query, QueryType, Reading, Stated
>>> st = (Stated(((1, 1),), ((0, 0),), Interval.percent("26")),)
>>> nums = Numbers(Reading(st, Query(QueryType.ATE, (1, 1), (0, 1))))
>>> nums.p(1, 1, {0: 0}), nums.p(1, 0, {0: 0}).complement, nums.p(1, 1, {0: 1})
(Term(index=0, complement=False, const=Fraction(0, 1)), True, None)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm
from typing import Any

import numpy as np

from causal_oracle.oracle.cladder.model import (
    Lit,
    Reading,
    StatedKind,
)
from causal_oracle.oracle.errors import CertificateRejected
from causal_oracle.oracle.memo import keep, recall


# ---- the stated numbers -----------------------------------------------------------------------
@dataclass(frozen=True)
class Term:
    """A response bit's probability: a stated number (or its complement) or a constant."""

    index: int = -1
    complement: bool = False
    const: Fraction = Fraction(0)

    def value(self, point: Mapping[int, Fraction]) -> Fraction:
        if self.index < 0:
            return self.const
        p = point[self.index]
        return 1 - p if self.complement else p


class Numbers:
    def __init__(self, reading: Reading) -> None:
        self.box = {i: (s.value.lo, s.value.hi) for i, s in enumerate(reading.statements)}
        self.index: dict[tuple[frozenset[Lit], frozenset[Lit]], int] = {}
        for i, s in enumerate(reading.statements):
            if s.kind is StatedKind.PROBABILITY:
                self.index.setdefault((frozenset(s.event), frozenset(s.given)), i)

    def joint(self, a: Lit, b: Lit) -> int | None:
        """The index of the stated P(a, b), or None."""
        return self.index.get((frozenset({a, b}), frozenset()))

    def p(self, v: int, value: int, given: Mapping[int, int]) -> Term | None:
        cond = frozenset(given.items())
        for val, flip in ((value, False), (1 - value, True)):
            i = self.index.get((frozenset({(v, val)}), cond))
            if i is not None:
                return Term(i, flip)
        return None


# ---- local causal models, enumerated ----------------------------------------------------------
@dataclass
class Model:
    """Variables in order; each either copies another, or reads one response bit per
    configuration of its parents; ``bits`` are the bits' probabilities."""

    order: list[Any] = field(default_factory=list)
    parents: dict[Any, tuple[Any, ...]] = field(default_factory=dict)
    copies: dict[Any, Any] = field(default_factory=dict)
    table: dict[Any, dict[tuple[int, ...], int]] = field(default_factory=dict)
    bits: list[Term] = field(default_factory=list)

    def add(self, v: Any, parents: Sequence[Any],
            prob: Callable[[tuple[int, ...]], Term | None]) -> bool:
        self.order.append(v)
        self.parents[v] = tuple(parents)
        self.table[v] = {}
        for cfg in itertools.product((0, 1), repeat=len(parents)):
            term = prob(cfg)
            if term is None:
                return False
            self.table[v][cfg] = len(self.bits)
            self.bits.append(term)
        return True

    def copy(self, v: Any, source: Any) -> None:
        self.order.append(v)
        self.copies[v] = source

    def run(self, state: int, do: Mapping[Any, int]) -> dict[Any, int]:
        values: dict[Any, int] = dict(do)  # an intervened variable need not be modelled
        for v in self.order:
            if v in do:
                continue
            if v in self.copies:
                values[v] = values[self.copies[v]]
            else:
                cfg = tuple(values[p] for p in self.parents[v])
                values[v] = state >> self.table[v][cfg] & 1
        return values

    def single_use(self) -> bool:
        used = [t.index for t in self.bits if t.index >= 0]
        return len(used) == len(set(used))


Contribution = Callable[[Model, int], int]


@dataclass(frozen=True)
class Value:
    """``scale`` × Σ_states contribution(state) × P(state), in a model; ``signature``
    names the model's structure and the contrast (the contributions depend on nothing
    else, so they are computed once per signature)."""

    model: Model
    contribution: Contribution
    signature: Any
    scale: Fraction = Fraction(1)


_CONTRIBUTIONS = "causal_oracle.oracle.cladder.check.contributions"


def _contributions(value: Value) -> tuple[int, ...]:
    found = recall(_CONTRIBUTIONS, value.signature)
    if found is None:
        found = tuple(value.contribution(value.model, s)
                      for s in range(1 << len(value.model.bits)))
        keep(_CONTRIBUTIONS, value.signature, found, 4096)
    return found  # type: ignore[no-any-return]


def exact(value: Value, point: Mapping[int, Fraction]) -> Fraction:
    """The value at ``point``, in integers over a common denominator."""
    probs = [t.value(point) for t in value.model.bits]
    common = lcm(*(p.denominator for p in probs)) if probs else 1
    weights = [1]
    for p in probs:  # state bit b is the b-th lowest: each new bit doubles the list
        n = p.numerator * (common // p.denominator)
        weights = [w * (common - n) for w in weights] + [w * n for w in weights]
    total = sum(c * w for c, w in zip(_contributions(value), weights, strict=True) if c)
    return Fraction(total, common ** len(probs)) * value.scale


def extremes(value: Value, box: Mapping[int, tuple[Fraction, Fraction]]
             ) -> tuple[Fraction, Fraction]:
    """Exact (min, max) over the box's vertices (the value is multilinear)."""
    if not value.model.single_use():
        raise CertificateRejected("checker: a stated number drives two response bits")
    symbols = sorted({t.index for t in value.model.bits if t.index >= 0})
    k = len(symbols)
    grid = np.array(list(itertools.product((0, 1), repeat=k)), dtype=bool).reshape(-1, k)
    coords = {s: np.where(grid[:, j], float(box[s][1]), float(box[s][0]))
              for j, s in enumerate(symbols)}
    weights = np.ones((grid.shape[0], 1))
    for t in value.model.bits:
        p = np.full(grid.shape[0], float(t.const)) if t.index < 0 else \
            (1 - coords[t.index] if t.complement else coords[t.index])
        weights = np.concatenate([weights * (1 - p)[:, None], weights * p[:, None]], axis=1)
    floats = weights @ np.array(_contributions(value), dtype=float) * float(value.scale)

    def exact_at(row: int) -> Fraction:
        point = {s: box[s][1] if grid[row, j] else box[s][0] for j, s in enumerate(symbols)}
        return exact(value, point)

    lows = [exact_at(int(r)) for r in np.nonzero(floats <= floats.min() + 1e-9)[0]]
    highs = [exact_at(int(r)) for r in np.nonzero(floats >= floats.max() - 1e-9)[0]]
    return min(lows), max(highs)


