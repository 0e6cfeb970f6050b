"""Partial identification: sharp bounds of a CLadder quantity the text does not pin down.

When the stated numbers do not point-identify a rung-2/3 quantity (``identify`` returns
``NotIdentifiable``), the question may still be decided: the answer is fixed when the
quantity has the same verdict in *every* causal model on the stated graph that
reproduces every stated number (each within its printed interval).  This module
computes the quantity's range over those models for the three CLadder graphs where
identification fails, exactly in rationals:

* **ETT under confounding** (Z → X, Z → Y, X → Y, the text silent on P(X | Z)):
  ETT = Σ_z P(z | X=a) d_z with the stratum effects d_z = P(y | b, z) − P(y | a, z).
  Whatever P(X | Z) is, P(Z | X=a) is any distribution (a model with P(X=a | Z=z*) > 0
  only in one stratum puts all the treated there), so the range is [min_z d_z,
  max_z d_z] — over the box, min and max of each stratum's difference of two distinct
  stated numbers (``Method.MIXTURE``).
* **Instrumental variables** (Z → X → Y, U → X, U → Y, U unobserved): Balke & Pearl's
  response-type program.  A unit is a pair (r_x, r_y) of functions X = r_x(Z),
  Y = r_y(X) (16 types, U is the type); a model is a distribution q over types, Z
  independent of it.  Every stated P(E | Z=z, G) within [lo, hi] is two linear
  constraints lo·P(G | z) ≤ P(E, G | z) ≤ hi·P(G | z) on q, and the causal effect
  Σ_j q_j (r_y(x) − r_y(x′)) is linear: its sharp bounds over box and model are two
  exact linear programs (``lp``), each with its dual vector as a checkable certificate
  (``Method.RESPONSE``).
* **Natural effects in the arrowhead** (X → M → Y, X → Y, U → M, U → Y, U unobserved
  but P(U) and P(M | X, U) stated): with U the only confounder,
  NDE = Σ_u P(u) Σ_m P(m | 0, u) [P(y | 1, m, u) − P(y | 0, m, u)] and
  NIE = Σ_u P(u) Σ_m [P(m | 1, u) − P(m | 0, u)] P(y | 0, m, u).  The unstated
  a_{x,m,u} = P(Y=1 | x, m, u) are tied to the stated P(Y=1 | x, m) only through
  Σ_u P(u | x, m) a_{x,m,u}; so for fixed upstream numbers (P(U), P(M | X, U)) the
  quantity is a sum of independent two-variable linear programs, one per (x, m),
  solved exactly by enumerating the vertices of each feasible polygon
  (``mediation``).  Over the box the upstream numbers move too; the range is enclosed
  by a relaxation (each program's objective and weight over their intervals) on a
  partition of the upstream box, refined where the verdict is not yet fixed, and
  approached from inside by exact programs at the partition's points
  (``Method.MEDIATION``).

Each ``PartialBounds`` has an outer range [``lower``, ``upper``] that contains the
quantity in every model consistent with the text, and witness models: ``low``/``high``
(consistent with every stated interval, values the inner range) and ``exact_low`` /
``exact_high`` (reproducing the printed numbers exactly).  Two witnesses with different
verdicts show that the text does not decide the question.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from causal_oracle.oracle.cladder.bounds import Poly, poly_bounds
from causal_oracle.oracle.cladder.lp import Row, Sense, maximise, minimise
from causal_oracle.oracle.cladder.model import Graph, Lit, Query, Stated, StatedKind
from causal_oracle.oracle.cladder.stated import Table

Point = Mapping[int, Fraction]


class Method(StrEnum):
    MIXTURE = "mixture over the unstated P(Z | X)"
    RESPONSE = "linear programs over response types (Balke–Pearl)"
    MEDIATION = "linear programs over the unstated P(Y | X, M, U)"


@dataclass(frozen=True, slots=True)
class Witness:
    """A model on the question's graph and its value of the quantity.

    ``cpts``: a binary Bayesian network, ((variable, parent values in parent order),
    P(variable=1 | parents)); ``types``: a distribution over response types
    ((r_x, r_y), probability) for the instrumental-variable model."""

    value: Fraction
    cpts: tuple[tuple[tuple[int, tuple[int, ...]], Fraction], ...] = ()
    types: tuple[tuple[tuple[int, int], Fraction], ...] = ()


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell of a partition of the upstream box with the relaxation's bounds on it:
    ``box`` maps each upstream stated number to its sub-interval."""

    box: tuple[tuple[int, Fraction, Fraction], ...]
    lower: Fraction
    upper: Fraction


@dataclass(frozen=True, slots=True)
class PartialBounds:
    """The quantity's range over every model consistent with the text (module
    docstring).  ``roles``: the variables the method names (ETT: the stratifier; IV:
    instrument and latent; mediation: mediator and latent).  IV: ``rows`` names each
    linear constraint (statement index, side) and ``dual_low`` / ``dual_high`` certify
    ``lower`` and −``upper``.  Mediation: the ``cells`` of the upstream partition."""

    method: Method
    lower: Fraction
    upper: Fraction
    low: Witness
    high: Witness
    exact_low: Witness
    exact_high: Witness
    roles: tuple[int, ...] = ()
    rows: tuple[tuple[int, str], ...] = ()
    dual_low: tuple[Fraction, ...] = ()
    dual_high: tuple[Fraction, ...] = ()
    cells: tuple[Cell, ...] = ()


def cpt_key(graph: Graph, v: int, values: Mapping[int, int]) -> tuple[int, tuple[int, ...]]:
    """A witness CPT's key: the variable and its parents' values in index order."""
    return v, tuple(values[p] for p in graph.parents_of(v))


def printed(statement: Stated) -> Fraction:
    """The number as printed, taken exactly."""
    scale = 100 if statement.kind is StatedKind.PROBABILITY else 1
    try:
        value = Fraction(statement.value.text.strip()) / scale
    except (ValueError, ZeroDivisionError):
        value = (statement.value.lo + statement.value.hi) / 2
    if not statement.value.lo <= value <= statement.value.hi:
        value = (statement.value.lo + statement.value.hi) / 2
    return value


def printed_point(statements: Sequence[Stated]) -> dict[int, Fraction]:
    return {i: printed(s) for i, s in enumerate(statements)}


def box_of(statements: Sequence[Stated]) -> dict[int, tuple[Fraction, Fraction]]:
    return {i: (s.value.lo, s.value.hi) for i, s in enumerate(statements)}


def _only(statements: Sequence[Stated], allowed: Sequence[tuple[int, frozenset[int]]]
          ) -> bool:
    """Every statement is a probability of one variable given exactly the listed
    variables (event variable, given variables) — nothing else constrains the model."""
    shapes = set(allowed)
    for s in statements:
        if s.kind is not StatedKind.PROBABILITY or len(s.event) != 1:
            return False
        if (s.event[0][0], frozenset(v for v, _ in s.given)) not in shapes:
            return False
    return True


# ---- ETT: a mixture over the unstated P(Z | X) -------------------------------------------------
def ett_bounds(graph: Graph, statements: tuple[Stated, ...], q: Query) -> PartialBounds | None:
    assert q.treatment is not None and q.counterfactual is not None
    (x, a), (y, yv), b = q.treatment, q.outcome, q.counterfactual[1]
    if graph.n != 3 or a == b:
        return None
    (z,) = (v for v in range(3) if v not in (x, y))
    if graph.parents != _parents(3, {z: (), x: (z,), y: (x, z)}) or not graph.observed[z]:
        return None
    if not _only(statements, [(y, frozenset({x, z})), (z, frozenset()), (x, frozenset())]):
        return None
    if any(s.event[0][0] == x for s in statements):  # P(X) stated: weights not all free
        return None
    table = Table(statements)
    diffs: dict[int, Poly] = {}
    for zv in (0, 1):
        pb, pa = table.p(y, yv, {x: b, z: zv}), table.p(y, yv, {x: a, z: zv})
        if pb is None or pa is None:
            return None
        diffs[zv] = pb - pa
    box, exact = box_of(statements), printed_point(statements)
    ends = {zv: poly_bounds(d, box) for zv, d in diffs.items()}
    z_lo = min((0, 1), key=lambda zv: ends[zv][0].value)
    z_hi = max((0, 1), key=lambda zv: ends[zv][1].value)

    def witness(zs: int, at: Mapping[int, Fraction]) -> Witness:
        point = {**exact, **at}
        pz = table.p(z, 1)
        cpts: dict[tuple[int, tuple[int, ...]], Fraction] = {
            (z, ()): Fraction(1, 2) if pz is None else pz.value(point)}
        for zv in (0, 1):  # every unit with X=a lies in the stratum zs
            share = Fraction(1, 2) if zv == zs else Fraction(0)
            cpts[cpt_key(graph, x, {z: zv})] = share if a == 1 else 1 - share
            for xv in (0, 1):
                p = table.p(y, 1, {x: xv, z: zv})
                assert p is not None
                cpts[cpt_key(graph, y, {x: xv, z: zv})] = p.value(point)
        return Witness(diffs[zs].value(point), tuple(sorted(cpts.items())))

    low = witness(z_lo, dict(ends[z_lo][0].at))
    high = witness(z_hi, dict(ends[z_hi][1].at))
    at_printed = {zv: d.value(exact) for zv, d in diffs.items()}
    e_lo, e_hi = min(at_printed, key=at_printed.__getitem__), max(at_printed,
                                                                  key=at_printed.__getitem__)
    return PartialBounds(Method.MIXTURE, low.value, high.value, low, high,
                         witness(e_lo, {}), witness(e_hi, {}), roles=(z,))


def _parents(n: int, parents: Mapping[int, Sequence[int]]) -> tuple[int, ...]:
    out = [0] * n
    for v, ps in parents.items():
        for p in ps:
            out[v] |= 1 << p
    return tuple(out)


# ---- IV: Balke–Pearl's program over response types ------------------------------------------
def response_value(var: str, rx: int, ry: int, zv: int) -> int:
    """X = r_x(z) (bit z of r_x) and Y = r_y(X) (bit X of r_y) of a unit of type
    (r_x, r_y) with instrument value z."""
    xv = rx >> zv & 1
    return xv if var == "x" else ry >> xv & 1


def iv_bounds(graph: Graph, statements: tuple[Stated, ...], q: Query) -> PartialBounds | None:
    assert q.treatment is not None
    (x, xv), (y, yv) = q.treatment, q.outcome
    if graph.n != 4:
        return None
    hidden = [v for v in range(4) if not graph.observed[v]]
    if len(hidden) != 1:
        return None
    (u,) = hidden
    rest = [v for v in range(4) if v not in (x, y, u)]
    (z,) = rest
    if graph.parents != _parents(4, {u: (), z: (), x: (z, u), y: (x, u)}):
        return None
    role = {z: "z", x: "x", y: "y"}
    types = [(rx, ry) for rx in range(4) for ry in range(4)]

    def holds(lits: Sequence[Lit], t: tuple[int, int], zv: int) -> bool:
        values = {"z": zv, "x": response_value("x", *t, zv), "y": response_value("y", *t, zv)}
        return all(values[role[v]] == val for v, val in lits)

    rows: list[tuple[int, str]] = [(-1, "total")]
    parts: list[tuple[list[Fraction], list[Fraction]]] = []  # (P(E, G | z), P(G | z)) per type
    for i, s in enumerate(statements):
        if s.kind is not StatedKind.PROBABILITY or u in {v for v, _ in (*s.event, *s.given)}:
            return None
        zs = [val for v, val in s.given if v == z]
        if not zs:
            if {v for v, _ in (*s.event, *s.given)} == {z}:
                continue  # P(Z): the instrument's own distribution, free of the types
            return None
        given = [(v, val) for v, val in s.given if v != z]
        g = [Fraction(holds(given, t, zs[0])) for t in types]
        eg = [Fraction(holds([*s.event, *given], t, zs[0])) for t in types]
        rows += [(i, "lower"), (i, "upper")]
        parts += [(eg, g), (eg, g)]
    cost = [Fraction(int((ry >> xv & 1) == yv) - int((ry >> (1 - xv) & 1) == yv))
            for _, ry in types]

    def program(lo_of: Mapping[int, Fraction], hi_of: Mapping[int, Fraction]) -> list[Row]:
        out = [Row(tuple(Fraction(1) for _ in types), Sense.EQ, Fraction(1))]
        for (i, side), (eg, g) in zip(rows[1:], parts, strict=True):
            if side == "lower":
                coef = tuple(e - lo_of[i] * w for e, w in zip(eg, g, strict=True))
            else:
                coef = tuple(hi_of[i] * w - e for e, w in zip(eg, g, strict=True))
            out.append(Row(coef, Sense.GE, Fraction(0)))
        return out

    box, exact = box_of(statements), printed_point(statements)
    lp_rows = program({i: b[0] for i, b in box.items()}, {i: b[1] for i, b in box.items()})
    lo, hi = minimise(cost, lp_rows), maximise(cost, lp_rows)
    exact_rows = program(exact, exact)
    e_lo, e_hi = minimise(cost, exact_rows), maximise(cost, exact_rows)

    def witness(opt_x: Sequence[Fraction], value: Fraction) -> Witness:
        return Witness(value, types=tuple((t, p) for t, p in zip(types, opt_x, strict=True)
                                          if p))

    return PartialBounds(Method.RESPONSE, lo.value, hi.value, witness(lo.x, lo.value),
                         witness(hi.x, hi.value), witness(e_lo.x, e_lo.value),
                         witness(e_hi.x, e_hi.value), roles=(z, u), rows=tuple(rows),
                         dual_low=lo.dual, dual_high=hi.dual)


__all__ = ["Cell", "Method", "PartialBounds", "Witness", "box_of", "cpt_key", "ett_bounds",
           "iv_bounds", "printed",
           "printed_point", "response_value"]
