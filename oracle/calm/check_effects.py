"""The independent checker of CaLM effect answers: path enumeration and counterfactual
worlds, sharing no code with the solver (``effects``, ``tian_pearl``).

The solver reads the graph with bitmask reachability and Bayes-ball d-separation and
evaluates each formula in two number systems; this checker lists every simple path of
the graph (the graphs are small; more than ``PATH_LIMIT`` paths is a rejection, never a
guess), decides blocking path by path, and recomputes the value from the stated numbers
in its own way:

* an interventional mean P(y | do(t)) by the truncated factorisation over the
  adjustment set, summed over the set's assignments;
* NDE and NIE through the nested counterfactual E[Y_{x₁, M_{x₂}}] — Σ_c P(c) Σ_m
  P(m | x₂, c) P(y | x₁, m, c) — as NDE = E[Y_{x, M_{x′}}] − E[Y_{x′, M_{x′}}] and
  NIE = E[Y_{x′, M_x}] − E[Y_{x′, M_{x′}}];
* ETT as P(y | a) − Σ_z P(y | b, z) P(z | a), PN/PS by the Tian–Pearl formulas.

Any difference — a set that does not meet its criterion, a structural zero that is not
one, another value, a yes/no against CaLM's rule, an interval that misses the value —
raises ``CertificateRejected``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Protocol

from causal_oracle.oracle.budget import paced
from causal_oracle.oracle.calm.effects_model import Bound, EffectKind, EffectQuestion, Lit
from causal_oracle.oracle.errors import CertificateRejected

PATH_LIMIT = 20000
THRESHOLD = Fraction(1, 1000)


class _Sets(Protocol):
    strategy: str
    adjustment: tuple[int, ...]
    mediators: tuple[int, ...]


class _Interval(Protocol):
    lo: Fraction
    hi: Fraction


class Certificate(Protocol):
    """What the checker reads of an answer."""

    value: Fraction
    interval: _Interval
    yes: bool | None
    identification: _Sets


class _Graph:
    def __init__(self, q: EffectQuestion) -> None:
        self.n = q.n
        self.edges = set(q.edges)
        self.kids: list[list[int]] = [[] for _ in range(q.n)]
        self.pars: list[list[int]] = [[] for _ in range(q.n)]
        for a, b in q.edges:
            self.kids[a].append(b)
            self.pars[b].append(a)

    def directed_paths(self, a: int, b: int) -> list[list[int]]:
        out: list[list[int]] = []
        stack = [[a]]
        while stack:
            paced()
            path = stack.pop()
            for k in self.kids[path[-1]]:
                if k == b:
                    out.append([*path, k])
                elif k not in path:
                    stack.append([*path, k])
            if len(out) + len(stack) > PATH_LIMIT:
                raise CertificateRejected("too many paths to check")
        return out

    def below(self, a: int) -> set[int]:
        return {p[-1] for b in range(self.n) for p in self.directed_paths(a, b)}

    def open_path(self, a: int, b: int, given: set[int], cut_out_of: set[int]) -> list[int] | None:
        """A path a … b that ``given`` leaves open in the graph without the edges out of
        ``cut_out_of`` (None: every path is blocked)."""
        def adjacent(u: int) -> list[int]:
            nb = [k for k in self.kids[u] if u not in cut_out_of]
            nb += [p for p in self.pars[u] if p not in cut_out_of]
            return nb

        def arrow(u: int, v: int) -> bool:  # u → v present after the cut
            return (u, v) in self.edges and u not in cut_out_of

        ancestors_of_given = set(given)
        for g in given:
            ancestors_of_given |= {p[0] for u in range(self.n) for p in self.directed_paths(u, g)}
        stack = [[a]]
        seen = 0
        while stack:
            paced()
            path = stack.pop()
            seen += 1
            if seen > PATH_LIMIT:
                raise CertificateRejected("too many paths to check")
            for v in adjacent(path[-1]):
                if v in path:
                    continue
                new = [*path, v]
                if len(new) >= 3:
                    u, w, z = new[-3], new[-2], new[-1]
                    collider = arrow(u, w) and arrow(z, w)
                    if collider and w not in ancestors_of_given:
                        continue
                    if not collider and w in given:
                        continue
                if v == b:
                    return new
                stack.append(new)
        return None


def _values(q: EffectQuestion) -> dict[tuple[tuple[Lit, ...], tuple[Lit, ...]], Fraction]:
    return {(s.event, s.given): s.value for s in q.stated}


def _prob(table: dict[tuple[tuple[Lit, ...], tuple[Lit, ...]], Fraction],
          event: tuple[Lit, ...], given: tuple[Lit, ...]) -> Fraction:
    ev, gv = tuple(sorted(event)), tuple(sorted(given))
    if not ev:
        return Fraction(1)
    if (ev, gv) in table:
        return table[(ev, gv)]
    if len(ev) == 1 and (((ev[0][0], 1 - ev[0][1]),), gv) in table:
        return 1 - table[(((ev[0][0], 1 - ev[0][1]),), gv)]
    if len(ev) > 1:
        first = ev[:1]
        return _prob(table, first, gv) * _prob(table, ev[1:], gv + first)
    raise CertificateRejected(f"the certificate uses an unstated number P({ev} | {gv})")


def _worlds(variables: tuple[int, ...]) -> list[tuple[Lit, ...]]:
    worlds = []
    for code in range(1 << len(variables)):
        worlds.append(tuple((v, code >> i & 1) for i, v in enumerate(variables)))
    return worlds


def check_effect(q: EffectQuestion, cert: Certificate) -> None:
    """Re-derive ``cert`` for ``q``; raise ``CertificateRejected`` on any disagreement."""
    g = _Graph(q)
    x, y = q.treatment, q.outcome
    sets = cert.identification
    if not cert.interval.lo <= cert.value <= cert.interval.hi:
        raise CertificateRejected("the interval misses the value")
    value = _recompute(q, g, sets, x, y)
    if value != cert.value:
        raise CertificateRejected(f"value {cert.value} but the checker finds {value}")
    if q.kind in (EffectKind.PN, EffectKind.PS):
        if cert.yes is not None:
            raise CertificateRejected("a bound has no yes/no")
        return
    yes = value < -THRESHOLD if q.kind is EffectKind.ETT else value >= THRESHOLD
    if cert.yes is not yes:
        raise CertificateRejected(f"CaLM's rule says {'yes' if yes else 'no'}")


def _recompute(q: EffectQuestion, g: _Graph, sets: _Sets, x: int, y: int) -> Fraction:
    kind = q.kind
    if x == y:
        if kind in (EffectKind.PN, EffectKind.PS):
            raise CertificateRejected("a bound for a variable on itself")
        return Fraction(0)
    paths = g.directed_paths(x, y)
    if kind in (EffectKind.ATE, EffectKind.ETT) and not paths:
        return Fraction(0)
    if kind in (EffectKind.CDE, EffectKind.NDE) and (x, y) not in g.edges:
        return Fraction(0)
    if kind is EffectKind.NIE and not any(len(p) >= 3 for p in paths):
        return Fraction(0)
    table = _values(q)
    z = sets.adjustment
    below_x = g.below(x)
    if kind in (EffectKind.NDE, EffectKind.NIE):
        return _mediation(q, g, table, sets, below_x)
    treated = (x, *tuple(v for v, _ in q.held))
    below_t: set[int] = set()
    for t in treated:
        below_t |= g.below(t)
    if set(z) & (below_t | set(treated) | {y}):
        raise CertificateRejected("the adjustment set contains a descendant of the treatment")
    for t in treated:
        if g.open_path(t, y, set(z), set(treated)) is not None:
            raise CertificateRejected("the adjustment set leaves a backdoor path open")

    def do(xval: int, yval: int) -> Fraction:
        return sum((_prob(table, ((y, yval),), ((x, xval), *q.held, *w))
                    * _prob(table, w, ()) for w in _worlds(z)), Fraction(0))

    if kind is EffectKind.ATE:
        return do(q.x, q.y) - do(1 - q.x, q.y)
    if kind is EffectKind.CDE:
        return do(q.x, q.y) - do(1 - q.x, q.y)
    assert q.base is not None
    if kind is EffectKind.ETT:
        a, b = (x, q.base), (x, q.x)
        counter = sum((_prob(table, ((y, q.y),), (b, *w)) * _prob(table, w, (a,))
                       for w in _worlds(z)), Fraction(0))
        try:
            factual = _prob(table, ((y, q.y),), (a,))
        except CertificateRejected:
            factual = sum((_prob(table, ((y, q.y),), (a, *w)) * _prob(table, w, (a,))
                           for w in _worlds(z)), Fraction(0))
        return factual - counter
    assert q.factual_y is not None and q.bound is not None
    joint = _prob(table, ((x, q.base), (y, q.factual_y)), ())
    if joint <= 0:
        raise CertificateRejected("a bound divided by a zero probability")
    if q.bound is Bound.LOWER:
        try:
            p_y = _prob(table, ((y, q.factual_y),), ())
        except CertificateRejected:
            p_y = (_prob(table, ((x, 0), (y, q.factual_y)), ())
                   + _prob(table, ((x, 1), (y, q.factual_y)), ()))
        return max(Fraction(0), (p_y - do(q.x, q.factual_y)) / joint)
    return min(Fraction(1), (do(q.x, q.y) - _prob(table, ((x, q.x), (y, q.y)), ())) / joint)


def _mediation(q: EffectQuestion, g: _Graph, table: dict[tuple[tuple[Lit, ...], tuple[Lit, ...]],
               Fraction], sets: _Sets, below_x: set[int]) -> Fraction:
    x, y = q.treatment, q.outcome
    m, c = sets.mediators, sets.adjustment
    if not set(m) <= below_x or set(c) & (below_x | {x, y}):
        raise CertificateRejected("mediators must descend from the treatment, covariates not")
    for p in g.directed_paths(x, y):
        if len(p) >= 3 and not set(p[1:-1]) & set(m):
            raise CertificateRejected(f"the directed path {p} avoids the mediators")
    for target in (y, *m):
        if g.open_path(x, target, set(c), {x}) is not None:
            raise CertificateRejected("the covariates leave a backdoor path of the treatment open")
    for v in m:
        if g.open_path(v, y, {*c, x}, set(m)) is not None:
            raise CertificateRejected("a backdoor path from a mediator to the outcome is open")

    def nested(x1: int, x2: int) -> Fraction:
        total = Fraction(0)
        for wc in _worlds(c):
            inner = Fraction(0)
            for wm in _worlds(m):
                paced()
                inner += (_prob(table, wm, ((x, x2), *wc))
                          * _prob(table, ((y, q.y),), ((x, x1), *wm, *wc)))
            total += _prob(table, wc, ()) * inner
        return total

    if q.kind is EffectKind.NDE:
        return nested(q.x, 1 - q.x) - nested(1 - q.x, 1 - q.x)
    return nested(1 - q.x, q.x) - nested(1 - q.x, 1 - q.x)
