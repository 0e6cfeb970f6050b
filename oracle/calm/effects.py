"""CaLM's effect questions answered exactly: identification from the graph, then the
adjustment and mediation formulas over the stated numbers.

Only stated numbers are used (``Table``): P(v=a | g) is read as stated, or as
1 − P(v=¬a | g) when the other value is stated; a joint P(a, b | g) as stated or by the
chain rule from stated conditionals.  Which set to adjust for is read off the numbers
the text gives (the conditioning variables of the outcome's stated conditionals) and is
then *checked against the graph* — an item whose numbers only support a formula the
graph does not license is ``NotDecided``, never answered.

Identification, for treatment X, outcome Y (``oracle.graph``, ``oracle.dsep``):

* a set Z **adjusts** for interventions on a set T when no member of Z descends from T
  and Z d-separates every t ∈ T from Y once the edges out of T are cut (the backdoor
  criterion for sets, Pearl 2009, 3.3.1); then P(y | do(t)) = Σ_z P(y | t, z) P(z);
* **ATE**, **ETT**, **PN/PS**: zero (ATE/ETT) when X is no ancestor of Y — CaLM's step 1;
  otherwise by adjustment.  ETT = P(y | a) − Σ_z P(y | b, z) P(z | a) (Shpitser–Pearl);
* **CDE**: zero without an edge X → Y (CaLM's step 1); otherwise Z adjusts for
  T = {X} ∪ held;
* **NDE/NIE**: NDE zero without an edge X → Y, NIE zero without a directed path of ≥ 3
  vertices (CaLM's step 1).  Otherwise the stated conditionals of Y split into mediators
  M (descendants of X) and covariates C.  Pearl's mediation formula with covariates
  holds when M intercepts every directed path X ⇝ Y but the edge, C contains no
  descendant of X and adjusts for X (towards Y and M), and C ∪ {X} adjusts for M
  (towards Y).

CaLM's yes/no rule (found in every record's last reasoning step): "yes" when the effect
is positive — for ETT, when CaLM's number E[Y_a − Y_b | a] is negative — and "no" when
it is negative or within 0.001 of zero ("NIE=0.0003~=0 so the answer is No"); the
second is the hidden threshold ``NEAR_ZERO``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction

from causal_oracle.oracle.budget import checkpoint, paced
from causal_oracle.oracle.calm.effects_algebra import Iv, Number
from causal_oracle.oracle.calm.effects_model import EffectKind, EffectQuestion, Lit
from causal_oracle.oracle.dsep import d_separated
from causal_oracle.oracle.graph import Dag

#: CaLM answers "no" when |effect| is below this (its reasoning writes "~=0")
NEAR_ZERO = Fraction(1, 1000)


class NotDecided(Exception):
    """The stated numbers or the graph do not support an answer; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Missing(NotDecided):
    """A probability the formula needs is not stated."""


@dataclass(frozen=True, slots=True)
class Identification:
    """How the effect was identified: the strategy and the sets it uses."""

    strategy: str
    adjustment: tuple[int, ...] = ()
    mediators: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class EffectAnswer:
    """The exact value (printed numbers taken as exact), its enclosure over the box of
    printed values, and the yes/no CaLM's rule gives (None for PN/PS)."""

    kind: EffectKind
    value: Fraction
    interval: Iv
    yes: bool | None
    identification: Identification

    @property
    def near_zero(self) -> bool:
        return self.yes is not None and abs(self.value) < NEAR_ZERO

    @property
    def rule_straddles(self) -> bool:
        """Whether numbers that print the same could flip CaLM's yes/no (the enclosure
        reaches across 0 or ±0.001)."""
        if self.yes is None:
            return False
        lo, hi = self.interval.lo, self.interval.hi
        return any(lo < cut < hi for cut in (-NEAR_ZERO, Fraction(0), NEAR_ZERO))


class Table:
    """The stated numbers, in one number system (``exact`` or intervals)."""

    def __init__(self, q: EffectQuestion, exact: bool) -> None:
        self.exact = exact
        self.entries: dict[tuple[tuple[Lit, ...], tuple[Lit, ...]], Number] = {}
        for s in q.stated:
            self.entries[s.key] = s.value if exact else Iv.printed(s.value)

    def p(self, event: Iterable[Lit], given: Iterable[Lit] = ()) -> Number:
        ev, gv = tuple(sorted(event)), tuple(sorted(given))
        found = self.entries.get((ev, gv))
        if found is not None:
            return found
        if len(ev) == 1:
            (v, a), = ev
            other = self.entries.get((((v, 1 - a),), gv))
            if other is not None:
                return 1 - other
        elif len(ev) > 1:  # chain rule: P(a, rest | g) = P(a | g) P(rest | g, a)
            head, rest = ev[0], ev[1:]
            return self.p((head,), gv) * self.p(rest, (*gv, head))
        raise Missing(f"P({_show(ev)} | {_show(gv)}) is not stated")


def _show(lits: Iterable[Lit]) -> str:
    return ", ".join(f"v{v}={a}" for v, a in lits) or "∅"


def mask(nodes: Iterable[int]) -> int:
    out = 0
    for v in nodes:
        out |= 1 << v
    return out


def dag_of(q: EffectQuestion) -> Dag:
    return Dag.from_edges(q.n, q.edges)


def cut_out_of(dag: Dag, nodes: int) -> Dag:
    """The graph without the edges out of ``nodes``."""
    return Dag(dag.n, tuple(p & ~nodes for p in dag.parents))


def adjusts(dag: Dag, treated: Iterable[int], y: int, z: Iterable[int]) -> bool:
    """Whether ``z`` meets the backdoor criterion for interventions on ``treated``."""
    t, zm = mask(treated), mask(z)
    if zm & t or zm >> y & 1:
        return False
    below = 0
    for v in treated:
        below |= dag.descendants(v)
    if zm & below:
        return False
    cut = cut_out_of(dag, t)
    return all(d_separated(cut, v, y, zm) for v in treated)


def stated_sets(q: EffectQuestion, target: int, through: Iterable[int]) -> list[tuple[int, ...]]:
    """The conditioning sets (less ``through``) of the stated conditionals of ``target``
    that condition on every variable of ``through``, largest first."""
    need = set(through)
    found = set()
    for s in q.stated:
        paced()
        if len(s.event) == 1 and s.event[0][0] == target:
            given = {v for v, _ in s.given}
            if need <= given:
                found.add(tuple(sorted(given - need)))
    return sorted(found, key=lambda z: (-len(z), z))


def assignments(variables: tuple[int, ...]) -> list[tuple[Lit, ...]]:
    out: list[tuple[Lit, ...]] = [()]
    for v in variables:
        checkpoint()
        out = [(*a, (v, b)) for a in out for b in (0, 1)]
    return out


def adjusted(t: Table, y: Lit, treat: tuple[Lit, ...], z: tuple[int, ...],
             weight_given: tuple[Lit, ...] = ()) -> Number:
    """Σ_z P(y | treat, z) P(z | weight_given) (z = ∅: P(y | treat))."""
    total: Number = Fraction(0)
    for zs in assignments(z):
        paced()
        w = t.p(zs, weight_given) if zs else Fraction(1)
        total = total + t.p((y,), treat + zs) * w
    return total


def first_valid(q: EffectQuestion, dag: Dag, treated: tuple[int, ...], y: int,
                candidates: list[tuple[int, ...]], use: Callable[[tuple[int, ...]], Number]
                ) -> tuple[tuple[int, ...], Number]:
    """The first candidate set that adjusts and whose numbers are all stated."""
    if not candidates:
        raise NotDecided("no conditional probability of the outcome given the treatment "
                         "is stated")
    why = "no stated adjustment set meets the backdoor criterion"
    for z in candidates:
        checkpoint()
        if not adjusts(dag, treated, y, z):
            continue
        try:
            return z, use(z)
        except Missing as missing:
            why = missing.reason
    raise NotDecided(why)


def solve_effect(q: EffectQuestion) -> EffectAnswer:
    """The effect ``q`` asks for (ATE, CDE, ETT, NDE, NIE), exact and over the box."""
    if q.kind in (EffectKind.PN, EffectKind.PS):
        raise ValueError("PN/PS are bounds: use tian_pearl.solve_bound")
    exact, ident = _evaluate(q, Table(q, exact=True))
    box, _ = _evaluate(q, Table(q, exact=False))
    if not isinstance(box, Iv):  # a structural zero: no number was used
        box = Iv.point(box)
    assert isinstance(exact, Fraction)
    yes = (exact < -NEAR_ZERO) if q.kind is EffectKind.ETT else (exact >= NEAR_ZERO)
    return EffectAnswer(q.kind, exact, box, yes, ident)


def _evaluate(q: EffectQuestion, t: Table) -> tuple[Number, Identification]:
    dag = dag_of(q)
    x, y = q.treatment, q.outcome
    if x == y:
        return Fraction(0), Identification("treatment is the outcome: no directed path")
    xv, x0 = (x, q.x), (x, 1 - q.x)
    yv = (y, q.y)
    kind = q.kind
    if kind in (EffectKind.ATE, EffectKind.ETT) and not dag.descendants(x) >> y & 1:
        return Fraction(0), Identification("no directed path from treatment to outcome")
    if kind in (EffectKind.CDE, EffectKind.NDE) and not dag.has_edge(x, y):
        return Fraction(0), Identification("no edge from treatment to outcome")
    if kind is EffectKind.NIE:
        without_edge = Dag(dag.n, tuple(p & ~(1 << x) if i == y else p
                                        for i, p in enumerate(dag.parents)))
        if not without_edge.descendants(x) >> y & 1:
            return Fraction(0), Identification("no directed path of three or more vertices")
    if kind is EffectKind.ATE:
        z, value = first_valid(q, dag, (x,), y, stated_sets(q, y, (x,)),
                               lambda z: adjusted(t, yv, (xv,), z) - adjusted(t, yv, (x0,), z))
        return value, Identification("backdoor adjustment", z)
    if kind is EffectKind.CDE:
        held = tuple(v for v, _ in q.held)
        treated = (x, *held)
        z, value = first_valid(q, dag, treated, y, stated_sets(q, y, treated),
                               lambda z: adjusted(t, yv, (xv, *q.held), z)
                               - adjusted(t, yv, (x0, *q.held), z))
        return value, Identification("backdoor adjustment", z)
    if kind is EffectKind.ETT:
        assert q.base is not None
        a, b = (x, q.base), (x, q.x)

        def ett(z: tuple[int, ...]) -> Number:
            try:
                factual = t.p((yv,), (a,))
            except Missing:
                factual = adjusted(t, yv, (a,), z, (a,))
            return factual - adjusted(t, yv, (b,), z, (a,))

        z, value = first_valid(q, dag, (x,), y, stated_sets(q, y, (x,)), ett)
        return value, Identification("backdoor adjustment (effect on the treated)", z)
    return _mediation(q, t, dag)


def _mediation(q: EffectQuestion, t: Table, dag: Dag) -> tuple[Number, Identification]:
    x, y = q.treatment, q.outcome
    below = dag.descendants(x)
    why = "no stated conditional of the outcome given the treatment"
    for cond in stated_sets(q, y, (x,)):
        checkpoint()
        m = tuple(v for v in cond if below >> v & 1)
        c = tuple(v for v in cond if not below >> v & 1)
        if not _mediation_valid(dag, x, y, m, c):
            why = "no stated mediator and covariate sets meet the mediation conditions"
            continue
        try:
            return _mediation_value(q, t, m, c), Identification("mediation formula", c, m)
        except Missing as missing:
            why = missing.reason
    raise NotDecided(why)


def _mediation_valid(dag: Dag, x: int, y: int, m: tuple[int, ...], c: tuple[int, ...]) -> bool:
    no_edge = Dag(dag.n, tuple(p & ~(1 << x) if i == y else p for i, p in enumerate(dag.parents)))
    if no_edge.descendants(x, avoid=mask(m)) >> y & 1:
        return False  # a directed path X ⇝ Y avoids the mediators
    if not adjusts(dag, (x,), y, c) or not all(adjusts(dag, (x,), v, c) for v in m):
        return False
    return not m or adjusts_mediators(dag, m, y, (*c, x))


def adjusts_mediators(dag: Dag, m: tuple[int, ...], y: int, z: tuple[int, ...]) -> bool:
    """C ∪ {X} blocks every backdoor path from the mediators to Y (X may descend from
    nothing in M; members of z are allowed to be ancestors of M)."""
    cut = cut_out_of(dag, mask(m))
    return all(d_separated(cut, v, y, mask(z)) for v in m)


def _mediation_value(q: EffectQuestion, t: Table, m: tuple[int, ...],
                     c: tuple[int, ...]) -> Number:
    x, y = q.treatment, q.outcome
    xv, x0, yv = (x, q.x), (x, 1 - q.x), (y, q.y)
    total: Number = Fraction(0)
    for cs in assignments(c):
        pc = t.p(cs) if cs else Fraction(1)
        for ms in assignments(m):
            paced()
            if q.kind is EffectKind.NDE:
                term = ((t.p((yv,), (xv, *ms, *cs)) - t.p((yv,), (x0, *ms, *cs)))
                        * (t.p(ms, (x0, *cs)) if ms else Fraction(1)))
            else:
                term = t.p((yv,), (x0, *ms, *cs)) * (t.p(ms, (xv, *cs)) - t.p(ms, (x0, *cs)))
            total = total + term * pc
    return total
