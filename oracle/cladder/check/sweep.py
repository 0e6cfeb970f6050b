"""The checker's re-derivation of the arrowhead's outer range, by a sweep.

The solver encloses the natural direct or indirect effect in the arrowhead graph
(X → M → Y, X → Y, U → M, U → Y, U unobserved) on each cell of a partition of the
upstream numbers' box (P(U), P(M | X, U)), by two-variable linear programs whose
objective coefficients and constraint weight ω = P(U=1 | x, m) are taken over their
ranges on the cell.  This module recomputes the same relaxation independently:

* it checks that the cells tile the upstream box (inside it, pairwise disjoint
  interiors, volumes adding up to the box's);
* per cell, each coefficient's range by evaluating its product at every corner, ω's
  range from its monotonicity, and the objective-only numbers at their ends;
* each two-variable program by sweeping the first unknown a₀ over its breakpoints:
  for fixed a₀ the feasible a₁ is an interval (a₁ ≤ (hi − (1 − ω_i) a₀) / ω_i,
  a₁ ≥ (lo − (1 − ω_j) a₀) / ω_j, the unit box) and the objective is extreme at one
  end of it; the best value over a₀ is concave/convex piecewise linear, extreme at a
  breakpoint (the solver enumerates polygon vertices instead).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from causal_oracle.oracle.cladder.check.models import Numbers, Term
from causal_oracle.oracle.cladder.model import Graph, QueryType, Reading
from causal_oracle.oracle.errors import CertificateRejected

Box = Mapping[int, tuple[Fraction, Fraction]]
_INF = Fraction(10**9)


def _best(c: tuple[Fraction, Fraction], wi: Fraction, wj: Fraction, lo: Fraction,
          hi: Fraction, largest: bool) -> Fraction | None:
    """Extreme of c·a over a ∈ [0,1]², (1 − wi) a₀ + wi a₁ ≤ hi, (1 − wj) a₀ + wj a₁ ≥ lo."""
    sign = 1 if largest else -1

    def span(a0: Fraction) -> tuple[Fraction, Fraction]:
        top = (hi - (1 - wi) * a0) / wi if wi else (_INF if (1 - wi) * a0 <= hi else -_INF)
        bottom = (lo - (1 - wj) * a0) / wj if wj else (-_INF if (1 - wj) * a0 >= lo else _INF)
        return max(Fraction(0), bottom), min(Fraction(1), top)

    points = {Fraction(0), Fraction(1)}
    for w, r in ((wi, hi), (wj, lo)):
        if w != 1:
            points |= {(r - w * a1) / (1 - w) for a1 in (Fraction(0), Fraction(1))}
    det = (1 - wi) * wj - wi * (1 - wj)
    if det:
        points.add((hi * wj - wi * lo) / det)
    found: Fraction | None = None
    for a0 in points:
        if not 0 <= a0 <= 1:
            continue
        low, high = span(a0)
        if low > high:
            continue
        a1 = high if sign * c[1] >= 0 else low
        v = c[0] * a0 + c[1] * a1
        if found is None or sign * v > sign * found:
            found = v
    return found


def _union(c: tuple[Fraction, Fraction], omegas: Sequence[Fraction], lo: Fraction,
           hi: Fraction, largest: bool) -> Fraction:
    values = [v for wi in omegas for wj in omegas
              if (v := _best(c, wi, wj, lo, hi, largest)) is not None]
    if not values:
        raise CertificateRejected("checker: an empty feasible set in the arrowhead program")
    return max(values) if largest else min(values)


def _range(terms: Sequence[Term], box: Box, product: Any) -> tuple[Fraction, Fraction]:
    """Range of ``product`` of the terms' values over the box, by its corners."""
    spans = []
    for t in terms:
        if t.index < 0:
            spans.append((t.const, t.const))
            continue
        lo, hi = box[t.index]
        spans.append((1 - hi, 1 - lo) if t.complement else (lo, hi))
    values = [product(*corner) for corner in itertools.product(*spans)]
    return min(values), max(values)


def _tiles(cells: Sequence[Any], box: Box, upstream: set[int]) -> None:
    whole = Fraction(1)
    for s in upstream:
        whole *= box[s][1] - box[s][0]
    total = Fraction(0)
    boxes = []
    for cell in cells:
        b = {s: (lo, hi) for s, lo, hi in cell.box}
        if set(b) != upstream or any(not box[s][0] <= lo <= hi <= box[s][1]
                                     for s, (lo, hi) in b.items()):
            raise CertificateRejected("checker: a cell leaves the box of upstream numbers")
        volume = Fraction(1)
        for lo, hi in b.values():
            volume *= hi - lo
        total += volume
        boxes.append(b)
    if total != whole:
        raise CertificateRejected("checker: the cells do not cover the upstream box")
    for b1, b2 in itertools.combinations(boxes, 2):
        if all(b1[s][0] < b2[s][1] and b2[s][0] < b1[s][1] for s in upstream):
            raise CertificateRejected("checker: two cells overlap")


def arrowhead_range(graph: Graph, reading: Reading, p: Any) -> tuple[Fraction, Fraction]:
    q = reading.query
    assert q.treatment is not None
    x, y = q.treatment[0], q.outcome[0]
    if len(q.mediators) != 1:
        raise CertificateRejected("checker: the arrowhead has one mediator")
    (m,) = q.mediators
    hidden = [v for v in range(len(graph.names)) if not graph.observed[v]]
    edges = {(a, b) for b in range(len(graph.names)) for a in range(len(graph.names))
             if graph.parents[b] >> a & 1}
    if len(hidden) != 1 or len(graph.names) != 4 or edges != {
            (x, m), (hidden[0], m), (x, y), (m, y), (hidden[0], y)}:
        raise CertificateRejected("checker: not the arrowhead graph")
    (u,) = hidden
    nums = Numbers(reading)

    def need(t: Term | None) -> Term:
        if t is None:
            raise CertificateRejected("checker: a number the bound needs is not stated")
        return t

    pu1 = need(nums.p(u, 1, {}))
    pu = {0: Term(pu1.index, not pu1.complement), 1: pu1}
    pm = {(xv, uv, mv): need(nums.p(m, mv, {x: xv, u: uv}))
          for xv, uv, mv in itertools.product((0, 1), (0, 1), (0, 1))}
    py = {(xv, mv): need(nums.p(y, 1, {x: xv, m: mv})) for xv, mv in itertools.product((0, 1),
                                                                                      (0, 1))}
    nde = q.kind is QueryType.NDE
    shaped = 1 if nde else 0  # the X value of the programs' ω
    upstream = {pu1.index} | {t.index for t in pm.values()}
    fixed = sorted({pm[(1 - shaped, uv, 0)].index for uv in (0, 1)})
    _tiles(p.cells, nums.box, upstream)
    lower: Fraction | None = None
    upper: Fraction | None = None
    for cell in p.cells:
        cbox = {**nums.box, **{s: (lo, hi) for s, lo, hi in cell.box}}
        for corner in itertools.product((0, 1), repeat=len(fixed)):
            sub = {**cbox, **{s: (cbox[s][k], cbox[s][k]) for s, k in zip(fixed, corner,
                                                                          strict=True)}}
            low = high = Fraction(0)
            for mv in (0, 1):
                if nde:  # the X=0 term is exactly −P(m | X=0) P(Y=1 | X=0, m)
                    terms = [pu[1], pm[(0, 0, mv)], pm[(0, 1, mv)], py[(0, mv)]]
                    a, b = _range(terms, sub, lambda u1, m0, m1, qq: -((1 - u1) * m0 + u1 * m1)
                                  * qq)
                    low, high = low + a, high + b
                    coef = [_range([pu[uv], pm[(0, uv, mv)]], sub, lambda s, t: s * t)
                            for uv in (0, 1)]
                else:
                    coef = [_range([pu[uv], pm[(1, uv, mv)], pm[(0, uv, mv)]], sub,
                                   lambda s, t, r: s * (t - r)) for uv in (0, 1)]
                w = [pu[1], pm[(shaped, 1, mv)], pm[(shaped, 0, mv)]]
                weight = _range(w, sub, lambda s, t, r: s * t + (1 - s) * r)
                qlo, qhi = _range([py[(shaped, mv)]], sub, lambda s: s)
                if weight[0] <= 0:
                    omegas, qlo, qhi = [Fraction(0), Fraction(1)], Fraction(0), Fraction(1)
                else:
                    a_ = _range([pu[1]], sub, lambda s: s)
                    b1 = _range([pm[(shaped, 1, mv)]], sub, lambda s: s)
                    b0 = _range([pm[(shaped, 0, mv)]], sub, lambda s: s)
                    omegas = sorted({a_[0] * b1[0] / (a_[0] * b1[0] + (1 - a_[0]) * b0[1]),
                                     a_[1] * b1[1] / (a_[1] * b1[1] + (1 - a_[1]) * b0[0])})
                low += _union((coef[0][0], coef[1][0]), omegas, qlo, qhi, False)
                high += _union((coef[0][1], coef[1][1]), omegas, qlo, qhi, True)
            lower = low if lower is None else min(lower, low)
            upper = high if upper is None else max(upper, high)
    if lower is None or upper is None:
        raise CertificateRejected("checker: no cells")
    return lower, upper


__all__ = ["arrowhead_range"]
