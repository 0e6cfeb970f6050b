"""The checker's own verification of answers decided (or not) by partial identification.

The solver bounds a quantity the text does not point-identify over every model
consistent with the text (``oracle.cladder.partial``).  This module shares none of its
code; for a **decided** answer it re-establishes the bound that decides it:

* a mixture (ETT under confounding): the checker finds the backdoor variable Z by
  networkx, so that ETT = Σ_z P(z | X=a) d_z is a convex combination of the stratum
  effects d_z, and recomputes each d_z's range from the stated intervals;
* response types (IV): it builds the linear constraints itself, from its own
  enumeration of the 16 types, and verifies the solver's dual vectors (yᵀA ≤ c for
  every type, signs, and yᵀb equal to the claimed bound: weak duality makes the bound
  hold for every model);
* the arrowhead's natural effects: it checks that the solver's cells tile the upstream
  box and recomputes the relaxation on every cell by a sweep over the first unknown
  (not the solver's vertex enumeration), requiring the same outer range.

For an **undetermined** answer it evaluates both witness models itself — every stated
number from the model's joint distribution (within its interval; equal to the printed
value for ``not identifiable``), the quantity from the model — and requires their
verdicts to differ.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import networkx as nx

from causal_oracle.oracle.cladder.check.derive import is_backdoor
from causal_oracle.oracle.cladder.check.models import Numbers, Term
from causal_oracle.oracle.cladder.model import Graph, QueryType, Reading, StatedKind
from causal_oracle.oracle.errors import CertificateRejected

Verdict = Callable[[Fraction, Fraction], bool | None]
Interval = tuple[Fraction, Fraction]


def _printed(reading: Reading, i: int) -> Fraction:
    s = reading.statements[i]
    scale = 100 if s.kind is StatedKind.PROBABILITY else 1
    try:
        v = Fraction(s.value.text.strip()) / scale
    except (ValueError, ZeroDivisionError):
        v = (s.value.lo + s.value.hi) / 2
    return v if s.value.lo <= v <= s.value.hi else (s.value.lo + s.value.hi) / 2


def _span(t: Term, box: Mapping[int, Interval]) -> Interval:
    if t.index < 0:
        return t.const, t.const
    lo, hi = box[t.index]
    return (1 - hi, 1 - lo) if t.complement else (lo, hi)


def _need(t: Term | None) -> Term:
    if t is None:
        raise CertificateRejected("checker: a number the bound needs is not stated")
    return t


# ---- witness models ------------------------------------------------------------------------
def _net_joint(graph: Graph, cpts: Mapping[tuple[int, tuple[int, ...]], Fraction]
               ) -> dict[tuple[int, ...], Fraction]:
    n = len(graph.names)
    joint = {}
    for world in itertools.product((0, 1), repeat=n):
        p = Fraction(1)
        for v in range(n):
            parents = tuple(w for w in range(n) if graph.parents[v] >> w & 1)
            p1 = cpts[(v, tuple(world[w] for w in parents))]
            if not 0 <= p1 <= 1:
                raise CertificateRejected("checker: a witness probability lies outside [0, 1]")
            p *= p1 if world[v] else 1 - p1
        joint[world] = p
    return joint


def _stated_ok(reading: Reading, prob: Callable[[Sequence[tuple[int, int]],
                                                 Sequence[tuple[int, int]]], Fraction | None],
               exact: bool) -> None:
    for i, s in enumerate(reading.statements):
        got = prob(s.event, s.given)
        if got is None:  # the condition has probability 0: the number says nothing
            continue
        if exact and got != _printed(reading, i):
            raise CertificateRejected(f"checker: a witness gives statement {i + 1} the value "
                                      f"{got}, not the printed {s.value.text}")
        if not s.value.lo <= got <= s.value.hi:
            raise CertificateRejected(f"checker: a witness gives statement {i + 1} the value "
                                      f"{got}, outside its printed interval")


def _net_value(graph: Graph, reading: Reading, w: Any, exact: bool) -> Fraction:
    cpts = dict(w.cpts)
    joint = _net_joint(graph, cpts)

    def prob(event: Sequence[tuple[int, int]], given: Sequence[tuple[int, int]]
             ) -> Fraction | None:
        den = sum((p for world, p in joint.items() if all(world[v] == b for v, b in given)),
                  Fraction(0))
        if not den:
            return None
        num = sum((p for world, p in joint.items()
                   if all(world[v] == b for v, b in (*given, *event))), Fraction(0))
        return num / den

    _stated_ok(reading, prob, exact)
    q = reading.query
    assert q.treatment is not None
    par = {v: tuple(u for u in range(len(graph.names)) if graph.parents[v] >> u & 1)
           for v in range(len(graph.names))}

    def cpt(v: int, values: Mapping[int, int], value: int = 1) -> Fraction:
        p1 = cpts[(v, tuple(values[u] for u in par[v]))]
        return p1 if value else 1 - p1

    if q.kind is QueryType.ETT:
        assert q.counterfactual is not None
        (x, a), (y, yv), b = q.treatment, q.outcome, q.counterfactual[1]
        (z,) = par[x]
        pxa = prob([(x, a)], [])
        if not pxa:
            raise CertificateRejected("checker: the witness has no unit with the factual value")
        total = Fraction(0)
        for zv in (0, 1):
            pz = prob([(z, zv), (x, a)], [])
            assert pz is not None
            total += pz / pxa * (cpt(y, {x: b, z: zv}, yv) - cpt(y, {x: a, z: zv}, yv))
        return total
    x, y = q.treatment[0], q.outcome[0]
    (m,) = q.mediators
    (u,) = [v for v in par[m] if v != x]

    def nested(xy: int, xm: int) -> Fraction:  # E[Y_{xy, M_{xm}}]
        return sum((cpt(u, {}, uv) * cpt(m, {x: xm, u: uv}, mv) * cpt(y, {x: xy, m: mv, u: uv})
                    for uv in (0, 1) for mv in (0, 1)), Fraction(0))

    if q.kind is QueryType.NDE:
        return nested(1, 0) - nested(0, 0)
    return nested(0, 1) - nested(0, 0)


def _iv_roles(graph: Graph, x: int, y: int) -> tuple[int, int]:
    g = nx.DiGraph([(a, b) for b in range(len(graph.names)) for a in range(len(graph.names))
                    if graph.parents[b] >> a & 1])
    hidden = [v for v in range(len(graph.names)) if not graph.observed[v]]
    others = [v for v in range(len(graph.names)) if v not in (x, y, *hidden)]
    if len(hidden) != 1 or len(others) != 1 or len(graph.names) != 4:
        raise CertificateRejected("checker: not the instrumental-variable graph")
    (u,), (z,) = hidden, others
    want = {(z, x), (u, x), (u, y), (x, y)}
    if set(g.edges) != want:
        raise CertificateRejected("checker: not the instrumental-variable graph")
    return z, u


def _type_value(t: tuple[int, int], var: str, zv: int) -> int:
    rx, ry = t
    xv = (rx >> zv) & 1
    return xv if var == "x" else (ry >> xv) & 1


def _iv_value(graph: Graph, reading: Reading, w: Any, exact: bool) -> Fraction:
    q = reading.query
    assert q.treatment is not None
    (x, xv), (y, yv) = q.treatment, q.outcome
    z, _ = _iv_roles(graph, x, y)
    types = dict(w.types)
    if any(p < 0 for p in types.values()) or sum(types.values()) != 1:
        raise CertificateRejected("checker: the witness types are not a distribution")
    role = {z: "z", x: "x", y: "y"}

    def holds(t: tuple[int, int], zv: int, lits: Sequence[tuple[int, int]]) -> bool:
        return all((zv if role[v] == "z" else _type_value(t, role[v], zv)) == b
                   for v, b in lits)

    def prob(event: Sequence[tuple[int, int]], given: Sequence[tuple[int, int]]
             ) -> Fraction | None:
        zs = [b for v, b in given if v == z]
        if not zs:  # P(Z): any distribution of the instrument fits
            return None
        den = sum((p for t, p in types.items() if holds(t, zs[0], given)), Fraction(0))
        num = sum((p for t, p in types.items() if holds(t, zs[0], (*given, *event))),
                  Fraction(0))
        return num / den if den else None

    _stated_ok(reading, prob, exact)
    return sum((p * (int((t[1] >> xv & 1) == yv) - int((t[1] >> (1 - xv) & 1) == yv))
                for t, p in types.items()), Fraction(0))


def check_witnesses(graph: Graph, reading: Reading, finding: Any, says: Callable[[Fraction],
                                                                                 bool]) -> None:
    """An undetermined answer: two models consistent with the text, different verdicts."""
    p = finding.partial
    exact = str(finding.reason) == "not identifiable"
    pair = (p.exact_low, p.exact_high) if exact else (p.low, p.high)
    values = []
    for w in pair:
        value = (_iv_value if w.types else _net_value)(graph, reading, w, exact)
        if value != w.value:
            raise CertificateRejected(f"checker: a witness model's value is {value}, the "
                                      f"certificate says {w.value}")
        values.append(value)
    if says(values[0]) == says(values[1]):
        raise CertificateRejected("checker: the two witness models give the same answer")


# ---- decided answers: the bound itself --------------------------------------------------------
def _mixture(graph: Graph, reading: Reading) -> Interval:
    q = reading.query
    assert q.treatment is not None and q.counterfactual is not None
    (x, a), (y, yv), b = q.treatment, q.outcome, q.counterfactual[1]
    others = [v for v in range(len(graph.names)) if v not in (x, y)]
    if len(others) != 1 or not is_backdoor(graph, x, y, (others[0],)):
        raise CertificateRejected("checker: no single backdoor variable for the mixture")
    (z,) = others
    nums = Numbers(reading)
    ends = []
    for zv in (0, 1):
        pb = _span(_need(nums.p(y, yv, {x: b, z: zv})), nums.box)
        pa = _span(_need(nums.p(y, yv, {x: a, z: zv})), nums.box)
        ends.append((pb[0] - pa[1], pb[1] - pa[0]))
    return min(e[0] for e in ends), max(e[1] for e in ends)


def _response(graph: Graph, reading: Reading, p: Any) -> Interval:
    q = reading.query
    assert q.treatment is not None
    (x, xv), (y, yv) = q.treatment, q.outcome
    z, _ = _iv_roles(graph, x, y)
    types = [(rx, ry) for rx in range(4) for ry in range(4)]
    role = {z: "z", x: "x", y: "y"}
    columns: list[list[Fraction]] = [[Fraction(1)] for _ in types]
    for i, side in p.rows[1:]:
        s = reading.statements[i]
        zv = next(b for v, b in s.given if v == z)
        rest = [(v, b) for v, b in s.given if v != z]
        for col, t in zip(columns, types, strict=True):
            seen = {v: zv if role[v] == "z" else _type_value(t, role[v], zv) for v in role}
            g = int(all(seen[v] == b for v, b in rest))
            eg = int(all(seen[v] == b for v, b in (*rest, *s.event)))
            col.append(eg - s.value.lo * g if side == "lower" else s.value.hi * g - eg)
    used = {i for i, _ in p.rows[1:]}
    for i, s in enumerate(reading.statements):
        if i not in used and not (len(s.event) == 1 and not s.given and s.event[0][0] == z):
            raise CertificateRejected(f"checker: statement {i + 1} is missing from the program")
    cost = [Fraction(int((ry >> xv & 1) == yv) - int((ry >> (1 - xv) & 1) == yv))
            for _, ry in types]
    for dual, sign in ((p.dual_low, 1), (p.dual_high, -1)):
        if len(dual) != len(p.rows) or any(d < 0 for d in dual[1:]):
            raise CertificateRejected("checker: a dual vector has the wrong shape or sign")
        for col, c in zip(columns, cost, strict=True):
            if sum((d * a for d, a in zip(dual, col, strict=True)), Fraction(0)) > sign * c:
                raise CertificateRejected("checker: a dual vector is not feasible")
    return p.dual_low[0], -p.dual_high[0]


def check_bound(graph: Graph, reading: Reading, finding: Any) -> Interval:
    """The checker's own outer range of the quantity (it must equal the solver's)."""
    p = finding.partial
    method = str(p.method)
    if method.startswith("mixture"):
        return _mixture(graph, reading)
    if method.startswith("linear programs over response"):
        return _response(graph, reading, p)
    from causal_oracle.oracle.cladder.check.sweep import arrowhead_range

    return arrowhead_range(graph, reading, p)


__all__ = ["check_bound", "check_witnesses"]
