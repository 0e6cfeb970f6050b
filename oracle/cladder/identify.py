"""Identification: each CLadder query as a function of the quantities the text states.

Given the graph and the stated numbers, ``identify`` returns an ``Estimand`` — the
quantity the decision rule looks at, as a multilinear polynomial (``bounds.Poly``) or a
ratio of joint probabilities (``bounds.Joint``) in the stated numbers — or
``NotIdentifiable`` saying what is missing.  Only stated numbers are used: a formula
that needs a probability the text does not give is not available, whatever the graph
allows.  The estimands, for treatment X (value x against x′), outcome Y (value y):

* ``marginal``: P(Y=1), stated or Σ_w P(W=w) P(Y=1 | W=w) (total probability);
* ``correlation``: P(Y=y | X=x) − P(Y=y | X=x′): zero when the graph d-separates X and
  Y (every path between them has a collider: the Markov condition makes them
  independent), else from stated conditionals or from P(X=1) and the joints
  P(X=a, Y=b) (``bounds.Joint``);
* ``exp_away``: in the stratum C=c, P(Y=y | X=x, C=c) − P(Y=y | C=c) =
  (1 − P(X=x | C=c)) · [P(Y=y | X=x, C=c) − P(Y=y | X=x′, C=c)]: the text does not
  state P(X | C), so only the sign is identified (that of the bracket);
* ``ate``: P(Y=y | do(X=x)) − P(Y=y | do(X=x′)): zero when X is no ancestor of Y; by
  backdoor adjustment Σ_z P(z) [P(y | x, z) − P(y | x′, z)] for a set Z that meets
  the backdoor criterion (no descendant of X; d-separates X and Y once X's outgoing
  edges are removed), Z = ∅ included; by frontdoor adjustment
  Σ_m [P(m | x) − P(m | x′)] Σ_u P(y | u, m) P(u) for a mediator M that intercepts
  every directed path X ⇝ Y, with no open backdoor path X–M and every backdoor path
  M–Y blocked by X (Pearl 2009, 3.3);
* ``ett``: "for units with X=a, would Y=y be more likely had X been b":
  P(Y_b=y | X=a) − P(Y=y | X=a) = Σ_z P(z | X=a) [P(y | b, z) − P(y | a, z)] for a
  backdoor set Z (Shpitser & Pearl 2009), or Σ_m P(y | a, m) [P(m | b) − P(m | a)]
  for a frontdoor mediator; zero when a = b or X is no ancestor of Y;
* ``nde``/``nie`` (X: 0 → 1, Y=1) through the named mediators M, which must be all
  the variables on X's directed paths to Y.  Without a direct edge X → Y the NDE is
  0 and the NIE is the total effect (``ate``).  With one mediator m and a direct edge,
  Pearl's mediation formulas NDE = Σ_m P(m | x₀) [P(y | x₁, m) − P(y | x₀, m)] and
  NIE = Σ_m P(y | x₀, m) [P(m | x₁) − P(m | x₀)] hold when X is unconfounded (no open
  backdoor path to Y or m) and every backdoor path m–Y is blocked by X; an
  unobserved confounder of m and Y (arrowhead) makes them not identifiable;
* ``collider_bias``: does X affect Y at all?  Zero effect when X is no ancestor of Y;
  the stated correlation in a stratum of the collider is collider bias, not an effect.

``backadj`` and the deterministic counterfactual are not estimands; ``solve`` decides
them from the graph (``criteria.backdoor_valid``) and the mechanisms.  The graph
criteria live in ``criteria``, the stated numbers' look-ups in ``stated``.

>>> from causal_oracle.oracle.cladder.model import Graph, Interval, Query, QueryType, Stated
>>> g = Graph.build(["z", "x", "y"], [("z", "x"), ("z", "y"), ("x", "y")])
>>> pct = Interval.percent
>>> st = (Stated(((0, 1),), (), pct("40")),) + tuple(
...     Stated(((2, 1),), ((0, z), (1, x)), pct(p))
...     for (z, x), p in zip([(0, 0), (0, 1), (1, 0), (1, 1)], ["10", "30", "50", "90"]))
>>> e = identify(g, st, Query(QueryType.ATE, (2, 1), (1, 1)))
>>> e.strategy.value, e.adjustment
('backdoor adjustment', (0,))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from causal_oracle.oracle.cladder.bounds import Joint, Poly, sum_of
from causal_oracle.oracle.cladder.criteria import (
    backdoor_path,
    backdoor_valid,
    candidate_sets,
    dag_of,
    frontdoor_valid,
    mediators,
)
from causal_oracle.oracle.cladder.model import Graph, Lit, Query, QueryType, Stated
from causal_oracle.oracle.cladder.stated import Table, distribution
from causal_oracle.oracle.dsep import d_separated


class Strategy(StrEnum):
    STATED = "stated"
    TOTAL_PROBABILITY = "total probability"
    CONDITIONALS = "difference of conditionals"
    JOINT_RATIO = "ratio of joint probabilities"
    NO_PATH = "no causal path"
    INDEPENDENT = "independent by the graph"
    SAME_VALUE = "counterfactual equals the fact"
    BACKDOOR = "backdoor adjustment"
    FRONTDOOR = "frontdoor adjustment"
    MEDIATION = "mediation formula"
    TOTAL_EFFECT = "indirect effect is the total effect"


@dataclass(frozen=True)
class Estimand:
    """The quantity the rule looks at, oriented so that "yes" to the affirmative wording
    means a positive value; ``poly`` or ``joint`` (times ``sign``) in the stated numbers.

    ``sign_only``: only the sign of the quantity is identified (``exp_away``: the value
    is a positive multiple of this one).  ``adjustment``: the backdoor set or the
    frontdoor / mediation variable."""

    quantity: str
    strategy: Strategy
    formula: str
    poly: Poly | None = None
    joint: Joint | None = None
    sign: int = 1
    sign_only: bool = False
    adjustment: tuple[int, ...] = ()

    def symbols(self) -> tuple[int, ...]:
        if self.poly is not None:
            return tuple(sorted(self.poly.symbols()))
        assert self.joint is not None
        return tuple(sorted({self.joint.marginal, self.joint.joint1, self.joint.joint0}))


@dataclass(frozen=True)
class NotIdentifiable:
    """Why the stated quantities do not determine the query."""

    quantity: str
    why: str



# ---- formulas ------------------------------------------------------------------------------
def _name(graph: Graph, lit: Lit) -> str:
    return f"{graph.names[lit[0]]}={lit[1]}"


def _flip(a: int, b: int) -> int:
    """+1 when the value b is 1, −1 otherwise (orienting a difference P(·|1) − P(·|0))."""
    return 1 if b == a else -1


def _adjusted(table: Table, x: int, y: int, yv: int, z: tuple[int, ...],
              weights: dict[tuple[int, ...], Poly], a: int, b: int) -> Poly | None:
    """Σ_z w(z) [P(y | X=a, z) − P(y | X=b, z)]."""
    terms = []
    for zv, w in weights.items():
        given = dict(zip(z, zv, strict=True))
        pa, pb = table.p(y, yv, {**given, x: a}), table.p(y, yv, {**given, x: b})
        if pa is None or pb is None:
            return None
        terms.append(w * (pa - pb))
    return sum_of(terms)


def _frontdoor_ate(table: Table, x: int, y: int, yv: int, m: int, a: int, b: int
                   ) -> Poly | None:
    """Σ_m [P(m | a) − P(m | b)] Σ_u P(y | u, m) P(u)."""
    px = {u: table.p(x, u) for u in (0, 1)}
    terms = []
    for mv in (0, 1):
        pma, pmb = table.p(m, mv, {x: a}), table.p(m, mv, {x: b})
        inner = []
        for u in (0, 1):
            pyu = table.p(y, yv, {x: u, m: mv})
            pu = px[u]
            if pyu is None or pu is None:
                return None
            inner.append(pyu * pu)
        if pma is None or pmb is None:
            return None
        terms.append((pma - pmb) * sum_of(inner))
    return sum_of(terms)


def identify(graph: Graph, statements: Sequence[Stated], query: Query
             ) -> Estimand | NotIdentifiable:
    """The estimand of ``query`` from the stated numbers (module docstring)."""
    table = Table(statements)
    kind = query.kind
    if kind is QueryType.MARGINAL:
        return _marginal(graph, table, query)
    if kind is QueryType.CORRELATION:
        return _correlation(graph, table, query)
    if kind is QueryType.EXP_AWAY:
        return _explaining_away(graph, table, query)
    if kind is QueryType.ATE:
        assert query.treatment is not None
        x, xv = query.treatment
        return _effect(graph, table, x, xv, query.outcome)
    if kind is QueryType.ETT:
        return _ett(graph, table, query)
    if kind in (QueryType.NDE, QueryType.NIE):
        return _mediation(graph, table, query)
    if kind is QueryType.COLLIDER_BIAS:
        assert query.treatment is not None
        x, y = query.treatment[0], query.outcome[0]
        quantity = f"the causal effect of {graph.names[x]} on {graph.names[y]}"
        if not graph.is_ancestor(x, y):
            return Estimand(quantity, Strategy.NO_PATH, "0 (no directed path from "
                            f"{graph.names[x]} to {graph.names[y]})", Poly.const(0))
        return NotIdentifiable(quantity, f"{graph.names[x]} is an ancestor of "
                               f"{graph.names[y]}; a correlation within one stratum does not "
                               "tell whether the effect is zero")
    raise ValueError(f"{kind} has no estimand")


def _marginal(graph: Graph, table: Table, q: Query) -> Estimand | NotIdentifiable:
    y = q.outcome[0]
    quantity = f"P({graph.names[y]}=1)"
    direct = table.p(y, 1)
    if direct is not None:
        return Estimand(quantity, Strategy.STATED, quantity, direct)
    for w in range(graph.n):
        if w == y:
            continue
        pw, p1, p0 = table.p(w, 1), table.p(y, 1, {w: 1}), table.p(y, 1, {w: 0})
        if pw is not None and p1 is not None and p0 is not None:
            wn, yn = graph.names[w], graph.names[y]
            formula = (f"P({wn}=1) P({yn}=1 | {wn}=1) + P({wn}=0) P({yn}=1 | {wn}=0)")
            return Estimand(quantity, Strategy.TOTAL_PROBABILITY, formula,
                            pw * p1 + (Poly.const(1) - pw) * p0, adjustment=(w,))
    return NotIdentifiable(quantity, "the text states neither P(Y) nor P(W) with P(Y | W) "
                           "for some variable W")


def _correlation(graph: Graph, table: Table, q: Query) -> Estimand | NotIdentifiable:
    assert q.treatment is not None
    (y, yv), (x, xv) = q.outcome, q.treatment
    yn, xn = graph.names[y], graph.names[x]
    quantity = f"P({yn}={yv} | {xn}={xv}) − P({yn}={yv} | {xn}={1 - xv})"
    if d_separated(dag_of(graph), x, y, 0):
        return Estimand(quantity, Strategy.INDEPENDENT, f"0 ({xn} and {yn} are d-separated: "
                        "no open path joins them)", Poly.const(0))
    p1, p0 = table.p(y, yv, {x: xv}), table.p(y, yv, {x: 1 - xv})
    if p1 is not None and p0 is not None:
        return Estimand(quantity, Strategy.CONDITIONALS, quantity, p1 - p0)
    for b in (1, 0):
        j1, j0 = table.joint((x, 1), (y, b)), table.joint((x, 0), (y, b))
        if j1 is None or j0 is None:
            continue
        marginal, complement = table.single(x, 1), False
        if marginal is None:
            marginal, complement = table.single(x, 0), True
        if marginal is None:
            continue
        sign = _flip(1, xv) * _flip(b, yv)
        formula = (f"P({xn}=1, {yn}={b}) / P({xn}=1) − P({xn}=0, {yn}={b}) / P({xn}=0)")
        return Estimand(quantity, Strategy.JOINT_RATIO, formula,
                        joint=Joint(marginal, j1, j0, complement), sign=sign)
    return NotIdentifiable(quantity, f"the text states neither P({yn} | {xn}) nor the joint "
                           f"probabilities with P({xn})")


def _explaining_away(graph: Graph, table: Table, q: Query) -> Estimand | NotIdentifiable:
    assert q.treatment is not None and q.condition is not None
    (y, yv), (x, xv), (c, cv) = q.outcome, q.treatment, q.condition
    yn, xn, cn = graph.names[y], graph.names[x], graph.names[c]
    quantity = f"P({yn}={yv} | {xn}={xv}, {cn}={cv}) − P({yn}={yv} | {cn}={cv})"
    p1 = table.p(y, yv, {x: xv, c: cv})
    p0 = table.p(y, yv, {x: 1 - xv, c: cv})
    if p1 is None or p0 is None:
        return NotIdentifiable(quantity, f"the text does not state P({yn} | {xn}, {cn}) for "
                               f"both values of {xn}")
    formula = (f"(1 − P({xn}={xv} | {cn}={cv})) · [P({yn}={yv} | {xn}={xv}, {cn}={cv}) − "
               f"P({yn}={yv} | {xn}={1 - xv}, {cn}={cv})]")
    return Estimand(quantity, Strategy.CONDITIONALS, formula, p1 - p0, sign_only=True)


def _first_backdoor(graph: Graph, table: Table, x: int, y: int, yv: int, given: dict[int, int],
                    treated: int, control: int, tried: list[str]
                    ) -> tuple[tuple[int, ...], Poly] | None:
    """The first valid backdoor set whose adjustment the stated numbers determine, with the
    adjusted difference P(Y=yv | do(X=treated)) − … (the set's weights conditioned on
    ``given``); the sets tried without enough numbers are added to ``tried``."""
    for z in candidate_sets(graph, x, y):
        if not backdoor_valid(graph, x, y, z):
            continue
        weights = distribution(table, z, given)
        poly = None if weights is None else _adjusted(table, x, y, yv, z, weights, treated,
                                                      control)
        if poly is not None:
            return z, poly
        tried.append("{" + ", ".join(graph.names[v] for v in z) + "}")
    return None


def _effect(graph: Graph, table: Table, x: int, xv: int, outcome: Lit
            ) -> Estimand | NotIdentifiable:
    """P(Y=y | do(X=xv)) − P(Y=y | do(X=1−xv))."""
    y, yv = outcome
    xn, yn = graph.names[x], graph.names[y]
    quantity = f"P({yn}={yv} | do({xn}={xv})) − P({yn}={yv} | do({xn}={1 - xv}))"
    if not graph.is_ancestor(x, y):
        return Estimand(quantity, Strategy.NO_PATH, "0", Poly.const(0))
    tried: list[str] = []
    found = _first_backdoor(graph, table, x, y, yv, {}, xv, 1 - xv, tried)
    if found is not None:
        z, poly = found
        names = ", ".join(graph.names[v] for v in z)
        if z:
            formula = (f"Σ P({names}) [P({yn}={yv} | {xn}={xv}, {names}) − "
                       f"P({yn}={yv} | {xn}={1 - xv}, {names})]")
        else:
            formula = f"P({yn}={yv} | {xn}={xv}) − P({yn}={yv} | {xn}={1 - xv})"
        return Estimand(quantity, Strategy.BACKDOOR, formula, poly, adjustment=z)
    for m in range(graph.n):
        if not frontdoor_valid(graph, x, y, m):
            continue
        poly = _frontdoor_ate(table, x, y, yv, m, xv, 1 - xv)
        mn = graph.names[m]
        if poly is None:
            tried.append(f"frontdoor through {mn}")
            continue
        formula = (f"Σ_{mn} [P({mn} | {xn}={xv}) − P({mn} | {xn}={1 - xv})] "
                   f"Σ_{xn}' P({yn}={yv} | {xn}', {mn}) P({xn}')")
        return Estimand(quantity, Strategy.FRONTDOOR, formula, poly, adjustment=(m,))
    valid = [z for z in candidate_sets(graph, x, y) if backdoor_valid(graph, x, y, z)]
    hidden = [graph.names[v] for v in range(graph.n) if not graph.observed[v]]
    if valid and all(any(not graph.observed[v] for v in z) for z in valid):
        why = (f"every set that blocks the backdoor paths from {xn} to {yn} contains an "
               f"unobserved variable ({', '.join(hidden)}), no mediator meets the frontdoor "
               "criterion, and the stated probabilities do not determine the effect")
    elif tried:
        why = ("the text does not state the probabilities that adjustment needs ("
               + ", ".join(tried) + ")")
    else:
        why = (f"no set of variables meets the backdoor criterion for {xn} → {yn} and no "
               "mediator meets the frontdoor criterion")
    return NotIdentifiable(quantity, why)


def _ett(graph: Graph, table: Table, q: Query) -> Estimand | NotIdentifiable:
    assert q.treatment is not None and q.counterfactual is not None
    (x, a), (y, yv) = q.treatment, q.outcome
    b = q.counterfactual[1]
    xn, yn = graph.names[x], graph.names[y]
    quantity = f"P({yn}_({xn}={b})={yv} | {xn}={a}) − P({yn}={yv} | {xn}={a})"
    if a == b:
        return Estimand(quantity, Strategy.SAME_VALUE, "0", Poly.const(0))
    if not graph.is_ancestor(x, y):
        return Estimand(quantity, Strategy.NO_PATH, "0", Poly.const(0))
    tried: list[str] = []
    found = _first_backdoor(graph, table, x, y, yv, {x: a}, b, a, tried)
    if found is not None:
        z, poly = found
        names = ", ".join(graph.names[v] for v in z)
        formula = (f"Σ P({names} | {xn}={a}) [P({yn}={yv} | {xn}={b}, {names}) − "
                   f"P({yn}={yv} | {xn}={a}, {names})]" if z else
                   f"P({yn}={yv} | {xn}={b}) − P({yn}={yv} | {xn}={a})")
        return Estimand(quantity, Strategy.BACKDOOR, formula, poly, adjustment=z)
    for m in range(graph.n):
        if not frontdoor_valid(graph, x, y, m):
            continue
        terms = []
        for mv in (0, 1):
            py, pmb, pma = (table.p(y, yv, {x: a, m: mv}), table.p(m, mv, {x: b}),
                            table.p(m, mv, {x: a}))
            if py is None or pmb is None or pma is None:
                break
            terms.append(py * (pmb - pma))
        mn = graph.names[m]
        if len(terms) < 2:
            tried.append(f"frontdoor through {mn}")
            continue
        formula = (f"Σ_{mn} P({yn}={yv} | {xn}={a}, {mn}) [P({mn} | {xn}={b}) − "
                   f"P({mn} | {xn}={a})]")
        return Estimand(quantity, Strategy.FRONTDOOR, formula, sum_of(terms), adjustment=(m,))
    why = ("the text does not state the probabilities that adjustment needs ("
           + ", ".join(tried) + ")") if tried else (
        f"no backdoor set and no frontdoor mediator identifies {xn}'s effect on {yn}")
    return NotIdentifiable(quantity, why)


def _mediation(graph: Graph, table: Table, q: Query) -> Estimand | NotIdentifiable:
    assert q.treatment is not None
    x, y = q.treatment[0], q.outcome[0]
    xn, yn = graph.names[x], graph.names[y]
    nde = q.kind is QueryType.NDE
    named = ", ".join(graph.names[v] for v in q.mediators)
    quantity = (f"NDE of {xn} on {yn} (mediators {named}) = E[{yn}_(1, M_0)] − E[{yn}_0]"
                if nde else
                f"NIE of {xn} on {yn} through {named} = E[{yn}_(0, M_1)] − E[{yn}_(0, M_0)]")
    paths = mediators(graph, x, y)
    if tuple(sorted(q.mediators)) != paths:
        shown = ", ".join(graph.names[v] for v in paths) or "none"
        return NotIdentifiable(quantity, f"the named mediators ({named}) are not the "
                               f"variables on {xn}'s causal paths to {yn} ({shown})")
    direct = bool(graph.parents[y] >> x & 1)
    if not direct:
        if nde:
            return Estimand(quantity, Strategy.NO_PATH, f"0 (every causal path from {xn} to "
                            f"{yn} goes through {named})", Poly.const(0))
        total = _effect(graph, table, x, 1, (y, 1))
        if isinstance(total, NotIdentifiable):
            return NotIdentifiable(quantity, f"it is the total effect, and {total.why}")
        return Estimand(quantity, Strategy.TOTAL_EFFECT,
                        f"the total effect, by {total.strategy.value}: {total.formula}",
                        total.poly, adjustment=total.adjustment)
    if len(paths) != 1:
        return NotIdentifiable(quantity, "a direct effect beside several mediators: no "
                               "mediation formula for them is implemented")
    (m,) = paths
    mn = graph.names[m]
    if not backdoor_valid(graph, x, y, ()) or not d_separated(dag_of(graph, x), x, m, 0):
        return NotIdentifiable(quantity, f"{xn} is confounded with {mn} or {yn}")
    if not d_separated(dag_of(graph, m), m, y, 1 << x):
        path = backdoor_path(graph, m, y, (x,)) or []
        shown = " – ".join(graph.names[v] for v in path)
        return NotIdentifiable(quantity, f"{mn} and {yn} share a confounder that is not "
                               f"controlled ({shown}), so the effect through {mn} cannot be "
                               "separated from the direct effect")
    terms = []
    for mv in (0, 1):
        pm0, pm1 = table.p(m, mv, {x: 0}), table.p(m, mv, {x: 1})
        py1, py0 = table.p(y, 1, {x: 1, m: mv}), table.p(y, 1, {x: 0, m: mv})
        if None in (pm0, pm1, py1, py0):
            return NotIdentifiable(quantity, f"the text does not state P({mn} | {xn}) and "
                                   f"P({yn} | {xn}, {mn})")
        assert pm0 is not None and pm1 is not None and py1 is not None and py0 is not None
        terms.append(pm0 * (py1 - py0) if nde else py0 * (pm1 - pm0))
    formula = (f"Σ_{mn} P({mn} | {xn}=0) [P({yn}=1 | {xn}=1, {mn}) − P({yn}=1 | {xn}=0, {mn})]"
               if nde else
               f"Σ_{mn} P({yn}=1 | {xn}=0, {mn}) [P({mn} | {xn}=1) − P({mn} | {xn}=0)]")
    return Estimand(quantity, Strategy.MEDIATION, formula, sum_of(terms), adjustment=(m,))


__all__ = ["Estimand", "NotIdentifiable", "Strategy", "Table", "backdoor_path",
           "backdoor_valid", "frontdoor_valid", "identify", "mediators"]

