"""Sharp bounds of natural direct and indirect effects in CLadder's arrowhead graph.

The graph: X → M → Y, X → Y, U → M, U → Y, U unobserved; the text states P(U),
P(M | X, U) and P(Y | X, M), never P(Y | X, M, U).  With U the only confounder and
independent mechanisms,

    NDE = Σ_u P(u) Σ_m P(m | X=0, u) [a(1, m, u) − a(0, m, u)],
    NIE = Σ_u P(u) Σ_m [P(m | X=1, u) − P(m | X=0, u)] a(0, m, u),

with a(x, m, u) = P(Y=1 | x, m, u) unknown in [0, 1] and tied to the text only by
P(Y=1 | x, m) = Σ_u ω_u a(x, m, u), ω_u = P(u | x, m) ∝ P(u) P(m | x, u).  Each
(x, m) owns its two unknowns, so for fixed upstream numbers (P(U), P(M | X, U)) the
quantity is a sum of *independent* linear programs in two variables:

    extremise  c_0 a_0 + c_1 a_1  over  a ∈ [0, 1]²,  lo ≤ (1 − ω) a_0 + ω a_1 ≤ hi

(ω = ω_1, [lo, hi] the printed interval of P(Y=1 | x, m)), solved exactly by
enumerating the vertices of the feasible polygon (``polygon_extreme``).

The upstream numbers range over their own box.  On a cell of that box the
coefficients c_u lie in intervals and ω in [ω_lo, ω_hi] (ω grows with P(U=1) and
P(m | x, U=1), falls with P(m | x, U=0)); since a ≥ 0 the largest objective takes
each c_u at its top, and the feasible set over all ω in the interval is the union of
four polygons (the constraint value is linear in ω, so some ω fits iff
min(f_ωlo, f_ωhi) ≤ hi and max(f_ωlo, f_ωhi) ≥ lo).  That relaxation encloses the
quantity on the cell.  Two things keep it tight: a program whose objective is a
multiple k of its own weights (the NDE's X=0 term) is exactly k · P(m | x) ·
P(Y=1 | x, m), a multilinear polynomial bounded at its vertices; and an upstream number
that enters only objectives (P(M | X=0, U) for the NDE, P(M | X=1, U) for the NIE)
enters them affinely, so the largest (smallest) value is convex (concave) in it and is
taken at its two ends exactly rather than relaxed.

``mediation_bounds`` first solves the exact programs at the printed numbers (the
witnesses that reproduce them), then at the corners of the upstream box, then splits
the cell whose relaxation lies furthest from the best value found inside (an exact
program at each new cell's centre), halving its widest ω-number, until no breakpoint of
the rule lies in the outer range, or witnesses lie strictly on both sides of every one
inside it, or the two ranges meet within ``TOLERANCE``, or ``MAX_CELLS`` cells; the
outer range is the relaxation over the final partition, the inner range is attained by
the witness models.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.cladder.bounds import Poly, poly_bounds
from causal_oracle.oracle.cladder.model import Graph, Query, QueryType, Stated
from causal_oracle.oracle.cladder.partial import (
    Cell,
    Method,
    PartialBounds,
    Witness,
    box_of,
    cpt_key,
    printed_point,
)
from causal_oracle.oracle.cladder.stated import Table

#: most cells of the upstream box's partition
MAX_CELLS = 96
#: the refinement stops once the inner and outer ranges are this close at both ends
TOLERANCE = Fraction(1, 10000)

Box = dict[int, tuple[Fraction, Fraction]]
Vec = tuple[Fraction, Fraction]


def polygon_extreme(c: Vec, omegas: Sequence[Fraction], lo: Fraction, hi: Fraction,
                    largest: bool) -> tuple[Fraction, Vec]:
    """The extreme of c·a over a ∈ [0, 1]² with lo ≤ (1 − ω) a_0 + ω a_1 ≤ hi for some
    ω in [min(omegas), max(omegas)] (one ω: a single polygon), and a point attaining it.

    Every vertex (two boundary lines meeting inside all half-planes) is screened in
    floating point; those within 10⁻⁹ of the best are recomputed exactly and checked
    exactly, so the result is exact."""
    ends = sorted(set(omegas))
    pairs = [(ends[0], ends[0])] if len(ends) == 1 else list(itertools.product(ends, ends))
    sign = 1 if largest else -1
    candidates: list[tuple[float, tuple[tuple[Fraction, ...], ...]]] = []
    for wi, wj in pairs:
        planes = _planes(wi, wj, lo, hi)
        fplanes = [(float(a), float(b), float(r)) for a, b, r in planes]
        for (p, q) in itertools.combinations(range(6), 2):
            a1, b1, r1 = fplanes[p]
            a2, b2, r2 = fplanes[q]
            det = a1 * b2 - b1 * a2
            if abs(det) < 1e-15:
                continue
            x0, x1 = (r1 * b2 - b1 * r2) / det, (a1 * r2 - r1 * a2) / det
            if all(a * x0 + b * x1 <= r + 1e-9 for a, b, r in fplanes):
                candidates.append((sign * (float(c[0]) * x0 + float(c[1]) * x1),
                                   (planes[p], planes[q], *planes)))
    top = max(v for v, _ in candidates)
    best: tuple[Fraction, Vec] | None = None
    for v, (l1, l2, *planes) in candidates:
        if v < top - 1e-9:
            continue
        det = l1[0] * l2[1] - l1[1] * l2[0]
        if not det:
            continue
        a = ((l1[2] * l2[1] - l1[1] * l2[2]) / det, (l1[0] * l2[2] - l1[2] * l2[0]) / det)
        if all(n0 * a[0] + n1 * a[1] <= r for n0, n1, r in planes):
            value = c[0] * a[0] + c[1] * a[1]
            if best is None or sign * value > sign * best[0]:
                best = (value, a)
    assert best is not None  # a = (lo, lo) is always feasible
    return best


def _planes(wi: Fraction, wj: Fraction, lo: Fraction, hi: Fraction
            ) -> list[tuple[Fraction, Fraction, Fraction]]:
    """Half-planes n·a ≤ r: the unit box, f_wi(a) ≤ hi and f_wj(a) ≥ lo."""
    one, zero = Fraction(1), Fraction(0)
    return [(one, zero, one), (-one, zero, zero), (zero, one, one), (zero, -one, zero),
            (1 - wi, wi, hi), (wj - 1, -wj, -lo)]


@dataclass(frozen=True)
class _Part:
    """One (x, m) program: its objective's coefficients per value of U (polynomials
    in the upstream numbers), ω's ingredients, and P(Y=1 | x, m)'s interval."""

    x: int
    m: int
    coefficients: tuple[Poly, Poly]
    pu1: Poly
    pm: tuple[Poly, Poly]  # P(M=m | X=x, U=u) for u = 0, 1
    q: Poly
    #: k when the objective is k times ω's weights: the value is then exactly
    #: k · P(m | x) · P(Y=1 | x, m) (``total``), no program needed
    direct: Fraction | None = None

    @property
    def total(self) -> Poly:
        weights = (Poly.const(1) - self.pu1) * self.pm[0] + self.pu1 * self.pm[1]
        return (weights * self.q).scale(self.direct or 0)

    def shape(self) -> set[int]:
        """The upstream numbers ω depends on (none for a direct part)."""
        if self.direct is not None:
            return set()
        return self.pu1.symbols() | self.pm[0].symbols() | self.pm[1].symbols()


def _omega(part: _Part, point: Mapping[int, Fraction]) -> Fraction | None:
    """P(U=1 | x, m) at a point (None: P(x, m) is 0, the constraint is empty)."""
    a, b1, b0 = part.pu1.value(point), part.pm[1].value(point), part.pm[0].value(point)
    den = a * b1 + (1 - a) * b0
    return a * b1 / den if den else None


def _span(poly: Poly, box: Box) -> tuple[Fraction, Fraction]:
    """Exact range of a small multilinear polynomial over a box: its vertices (a
    multilinear function is extreme at one), evaluated exactly; at most a few symbols."""
    symbols = sorted(poly.symbols())
    if len(symbols) > 6:
        low, high = poly_bounds(poly, {s: box[s] for s in symbols})
        return low.value, high.value
    values = [poly.value({s: box[s][k] for s, k in zip(symbols, corner, strict=True)})
              for corner in itertools.product((0, 1), repeat=len(symbols))
              if all(box[s][0] != box[s][1] or k == 0
                     for s, k in zip(symbols, corner, strict=True))]
    return min(values), max(values)


def _relaxed(parts: Sequence[_Part], cell: Box, qbox: Box, fixed: Sequence[int]
             ) -> tuple[Fraction, Fraction]:
    """The relaxation's (lower, upper) on a cell of the upstream box.  The numbers in
    ``fixed`` enter only the objectives, affinely: the largest (smallest) value is
    convex (concave) in each of them, so they are taken at their ends, exactly."""
    lower: Fraction | None = None
    upper: Fraction | None = None
    for corner in itertools.product((0, 1), repeat=len(fixed)):
        sub = {**cell, **{s: (cell[s][k], cell[s][k]) for s, k in zip(fixed, corner,
                                                                      strict=True)}}
        low = high = Fraction(0)
        for part in parts:
            if part.direct is not None:
                a, b = _span(part.total, {**sub, **qbox})
                low, high = low + a, high + b
                continue
            c = [_span(poly, sub) for poly in part.coefficients]
            omegas, lo_q, hi_q = _omegas(part, sub, qbox)
            low += polygon_extreme((c[0][0], c[1][0]), omegas, lo_q, hi_q, False)[0]
            high += polygon_extreme((c[0][1], c[1][1]), omegas, lo_q, hi_q, True)[0]
        lower = low if lower is None else min(lower, low)
        upper = high if upper is None else max(upper, high)
    assert lower is not None and upper is not None
    return lower, upper


def _omegas(part: _Part, cell: Box, qbox: Box
            ) -> tuple[list[Fraction], Fraction, Fraction]:
    """ω's range on the cell (it grows with P(U=1) and P(m | x, U=1), falls with
    P(m | x, U=0)) and P(Y=1 | x, m)'s interval; where P(x, m) may vanish the stated
    number need not constrain: any ω, any value."""
    a_lo, a_hi = _span(part.pu1, cell)
    b1, b0 = _span(part.pm[1], cell), _span(part.pm[0], cell)
    lo_q, hi_q = _span(part.q, qbox)
    weights = part.pu1 * part.pm[1] + (Poly.const(1) - part.pu1) * part.pm[0]
    if _span(weights, cell)[0] <= 0:
        return [Fraction(0), Fraction(1)], Fraction(0), Fraction(1)
    return ([a_lo * b1[0] / (a_lo * b1[0] + (1 - a_lo) * b0[1]),
             a_hi * b1[1] / (a_hi * b1[1] + (1 - a_hi) * b0[0])], lo_q, hi_q)


def _exact(parts: Sequence[_Part], point: Mapping[int, Fraction], qbox: Box, largest: bool
           ) -> tuple[Fraction, dict[tuple[int, int], Vec]]:
    """The exact extreme at fixed upstream numbers, with the unknowns attaining it."""
    total, chosen = Fraction(0), {}
    for part in parts:
        if part.direct is not None:
            fixed = {s: (point[s], point[s]) for s in part.total.symbols() if s not in qbox}
            low, high = poly_bounds(part.total, {**fixed, **qbox})
            best = high if largest else low
            qv = part.q.value({**point, **dict(best.at)})
            total += best.value
            chosen[(part.x, part.m)] = (qv, qv)
            continue
        c = (part.coefficients[0].value(point), part.coefficients[1].value(point))
        lo_q, hi_q = _span(part.q, qbox)
        w = _omega(part, point)
        if w is None:
            value, a = polygon_extreme(c, [Fraction(0), Fraction(1)], Fraction(0),
                                       Fraction(1), largest)
        else:
            value, a = polygon_extreme(c, [w], lo_q, hi_q, largest)
        total += value
        chosen[(part.x, part.m)] = a
    return total, chosen


def _setup(graph: Graph, statements: tuple[Stated, ...], q: Query
           ) -> tuple[int, int, int, int, list[_Part], Table] | None:
    assert q.treatment is not None
    x, y = q.treatment[0], q.outcome[0]
    if graph.n != 4 or len(q.mediators) != 1 or q.outcome[1] != 1:
        return None
    (m,) = q.mediators
    hidden = [v for v in range(4) if not graph.observed[v]]
    if hidden == [] or len(hidden) != 1 or hidden[0] in (x, y, m):
        return None
    u = hidden[0]
    expected = [0] * 4
    for child, ps in ((m, (x, u)), (y, (x, m, u))):
        for p in ps:
            expected[child] |= 1 << p
    if graph.parents != tuple(expected):
        return None
    shapes = {(y, frozenset({x, m})), (m, frozenset({x, u})), (u, frozenset()),
              (x, frozenset())}
    for s in statements:
        if s.kind.value != "probability" or len(s.event) != 1 or \
                (s.event[0][0], frozenset(v for v, _ in s.given)) not in shapes:
            return None
    table = Table(statements)
    pu1 = table.p(u, 1)
    pm = {(xv, uv, mv): table.p(m, mv, {x: xv, u: uv}) for xv in (0, 1) for uv in (0, 1)
          for mv in (0, 1)}
    py = {(xv, mv): table.p(y, 1, {x: xv, m: mv}) for xv in (0, 1) for mv in (0, 1)}
    if pu1 is None or None in pm.values() or None in py.values():
        return None
    pu = (Poly.const(1) - pu1, pu1)
    parts = []
    for xh, mh in itertools.product((0, 1), (0, 1)):
        def pmv(xv: int, uv: int, mh: int = mh) -> Poly:
            found = pm[(xv, uv, mh)]
            assert found is not None
            return found
        direct = None
        if q.kind is QueryType.NDE:
            sign = 1 if xh == 1 else -1
            coef = tuple((pu[uv] * pmv(0, uv)).scale(sign) for uv in (0, 1))
            direct = None if xh == 1 else Fraction(-1)
        elif xh == 0:
            coef = tuple(pu[uv] * (pmv(1, uv) - pmv(0, uv)) for uv in (0, 1))
        else:
            continue
        qpoly = py[(xh, mh)]
        assert qpoly is not None
        parts.append(_Part(xh, mh, (coef[0], coef[1]), pu1, (pmv(xh, 0), pmv(xh, 1)), qpoly,
                           direct))
    return x, m, u, y, parts, table


def mediation_bounds(graph: Graph, statements: tuple[Stated, ...], q: Query,
                     breaks: Sequence[Fraction] = ()) -> PartialBounds | None:
    """Outer and inner ranges of the NDE / NIE over every model consistent with the text
    (module docstring); None unless the question is the arrowhead's.  ``breaks``: the
    rule's breakpoints; refinement stops once no breakpoint lies in the outer range or
    witnesses lie strictly on both sides of each one inside it."""
    found = _setup(graph, statements, q)
    if found is None:
        return None
    x, m, u, y, parts, table = found
    box, exact = box_of(statements), printed_point(statements)
    upstream = sorted({s for p in parts for poly in (*p.coefficients, p.pu1, *p.pm)
                       for s in poly.symbols()})
    shape = sorted(set().union(*(p.shape() for p in parts)))
    fixed = [s for s in upstream if s not in shape]
    qbox = {s: box[s] for p in parts for s in p.q.symbols()}
    exact_q = {s: (exact[s], exact[s]) for s in qbox}

    def model(point: Mapping[int, Fraction], chosen: Mapping[tuple[int, int], Vec],
              value: Fraction) -> Witness:
        full = {**exact, **point}
        for part in parts:  # the stated P(Y | x, m) the chosen unknowns reproduce
            w = _omega(part, full)
            if w is not None and part.direct is None:
                a = chosen[(part.x, part.m)]
                (s,) = part.q.symbols()
                target = (1 - w) * a[0] + w * a[1]
                full[s] = target if part.q == Poly.symbol(s) else 1 - target

        def p(v: int, val: int, given: dict[int, int]) -> Fraction:
            poly = table.p(v, val, given)
            assert poly is not None
            return poly.value(full)

        px = table.p(x, 1)
        cpts = {(x, ()): Fraction(1, 2) if px is None else px.value(full),
                (u, ()): p(u, 1, {})}
        for xv, uv in itertools.product((0, 1), (0, 1)):
            cpts[cpt_key(graph, m, {x: xv, u: uv})] = p(m, 1, {x: xv, u: uv})
        for xv, mv in itertools.product((0, 1), (0, 1)):
            qv = p(y, 1, {x: xv, m: mv})
            a = chosen.get((xv, mv), (qv, qv))
            for uv in (0, 1):
                cpts[cpt_key(graph, y, {x: xv, m: mv, u: uv})] = a[uv]
        return Witness(value, tuple(sorted(cpts.items())))

    def inner(point: Mapping[int, Fraction], largest: bool, qb: Box) -> Witness:
        value, chosen = _exact(parts, point, qb, largest)
        return model(point, chosen, value)

    e_lo, e_hi = inner(exact, False, exact_q), inner(exact, True, exact_q)
    low, high = e_lo, e_hi
    whole = {s: box[s] for s in upstream}
    cells = [(whole, *_relaxed(parts, whole, qbox, fixed))]

    def settled() -> bool:
        lower, upper = min(c[1] for c in cells), max(c[2] for c in cells)
        if max(low.value - lower, upper - high.value) <= TOLERANCE:
            return True
        return all(low.value < b < high.value for b in breaks if lower <= b <= upper)

    corners = iter(itertools.product((0, 1), repeat=len(upstream)))
    for _ in range(MAX_CELLS + (1 << len(upstream))):
        checkpoint()
        if settled():
            break
        corner = next(corners, None)
        if corner is not None:  # the box's corners first: the extremes are often there
            point = {s: box[s][k] for s, k in zip(upstream, corner, strict=True)}
        else:
            if len(cells) >= MAX_CELLS:
                break
            lowest = min(range(len(cells)), key=lambda k: cells[k][1])
            highest = max(range(len(cells)), key=lambda k: cells[k][2])
            gap_lo = low.value - cells[lowest][1]
            k = lowest if gap_lo >= cells[highest][2] - high.value else highest
            cell = cells.pop(k)[0]
            s = max(shape, key=lambda t: cell[t][1] - cell[t][0])
            mid = (cell[s][0] + cell[s][1]) / 2
            halves = [{**cell, s: (cell[s][0], mid)}, {**cell, s: (mid, cell[s][1])}]
            cells += [(h, *_relaxed(parts, h, qbox, fixed)) for h in halves]
            point = {t: (b[0] + b[1]) / 2 for t, b in cell.items()}
        found_lo, found_hi = inner(point, False, qbox), inner(point, True, qbox)
        low = found_lo if found_lo.value < low.value else low
        high = found_hi if found_hi.value > high.value else high
    lower = min(c[1] for c in cells)
    upper = max(c[2] for c in cells)
    shown = tuple(Cell(tuple((s, b[0], b[1]) for s, b in sorted(c[0].items())), c[1], c[2])
                  for c in cells)
    return PartialBounds(Method.MEDIATION, lower, upper, low, high, e_lo, e_hi,
                         roles=(m, u), cells=shown)


__all__ = ["MAX_CELLS", "TOLERANCE", "mediation_bounds", "polygon_extreme"]
