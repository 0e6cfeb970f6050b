"""Independent checker for CLadder answers (shares no code with ``oracle.cladder``).

The solver identifies each query by formulas (adjustment, frontdoor, mediation
formulas, total probability) written as polynomials in the stated numbers, bounds them
over the box of printed values and applies the benchmark's rule.  This module re-derives
every answer another way:

* graph criteria on networkx objects (``networkx.is_d_separator``, ``has_path``):
  backdoor sets, frontdoor mediators, unconfounded mediation, d-separation of X and Y;
* values by **enumerating a causal model**: for each identification it builds a small
  binary structural model whose mechanisms are the stated probabilities (a backdoor
  set Z as the root of Z → X → Y, a frontdoor mediator M with a latent copy U of X
  confounding X and Y, the mediation model X → M → Y, …), gives every variable one
  independent response bit per configuration of its parents (the potential outcomes),
  and computes the query — an interventional contrast, an effect on the treated, a
  nested counterfactual E[Y(1, M(0))] — by summing over all response bits.  Each stated
  number drives one response bit, so the value is multilinear in the stated numbers and
  the box's extremes lie at its vertices: the checker evaluates every vertex (floating
  point, all vertices at once), re-evaluates the candidates exactly in integers, and
  requires the solver's bounds to be exactly these, attained at the solver's points;
* the ratio of joint probabilities (correlation questions) by evaluating every feasible
  corner of the box cut by coherence (jₐ ≤ P(X=a)) at every candidate value of P(X);
* its own reading of the benchmark's yes/no rules, and brute force over all assignments
  for deterministic counterfactuals.

``check(question, solution)`` returns None when the answer is confirmed and raises
``CertificateRejected`` saying what differs.

>>> from dataclasses import replace
>>> from causal_oracle.oracle.cladder.model import *
>>> from causal_oracle.oracle.cladder.solve import Outcome, solve
>>> g = Graph.build(["x", "y"], [("x", "y")])
>>> st = (Stated(((1, 1),), ((0, 0),), Interval.percent("26")),
...       Stated(((1, 1),), ((0, 1),), Interval.percent("85")))
>>> q = CladderQuestion(g, (Reading(st, Query(QueryType.ATE, (1, 1), (0, 1))),))
>>> s = solve(q)
>>> check(q, s) is None
True
>>> check(q, replace(s, outcome=Outcome.NO))
Traceback (most recent call last):
...
causal_oracle.oracle.errors.CertificateRejected: the readings give yes, the solution says no
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import lcm
from typing import Any

import networkx as nx
import numpy as np

from causal_oracle.oracle.cladder.model import (
    CladderQuestion,
    Graph,
    Lit,
    QueryType,
    Reading,
    StatedKind,
)
from causal_oracle.oracle.errors import CertificateRejected
from causal_oracle.oracle.memo import keep, memoised, recall

_HALF = Fraction(1, 2)
_CUT = Fraction(1, 200)  # the generator's 0.005


# ---- graphs ----------------------------------------------------------------------------------
@memoised(limit=1024)
def _digraph(graph: Graph) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(range(len(graph.names)))
    for child, mask in enumerate(graph.parents):
        for parent in range(len(graph.names)):
            if mask >> parent & 1:
                g.add_edge(parent, child)
    return g


@memoised(limit=4096)
def _cut(graph: Graph, v: int) -> nx.DiGraph:
    """The graph without ``v``'s outgoing edges."""
    g = _digraph(graph)
    h = g.copy()
    h.remove_edges_from(list(g.out_edges(v)))
    return h


@memoised(limit=65536)
def _separated(graph: Graph, cut: int | None, a: int, b: int, z: tuple[int, ...]) -> bool:
    """d-separation of a and b by z, in the graph (``cut``: without that node's outgoing
    edges)."""
    g = _digraph(graph) if cut is None else _cut(graph, cut)
    return bool(nx.is_d_separator(g, {a}, {b}, set(z)))


@memoised(limit=65536)
def _backdoor(graph: Graph, x: int, y: int, z: tuple[int, ...]) -> bool:
    if x in z or y in z or set(z) & nx.descendants(_digraph(graph), x):
        return False
    return _separated(graph, x, x, y, z)


@memoised(limit=65536)
def _frontdoor(graph: Graph, x: int, y: int, m: int) -> bool:
    g = _digraph(graph)
    if m in (x, y) or not nx.has_path(g, x, m):
        return False
    without = g.copy()
    without.remove_node(m)
    if nx.has_path(without, x, y):
        return False
    return _separated(graph, x, x, m, ()) and _separated(graph, m, m, y, (x,))


# ---- the stated numbers -----------------------------------------------------------------------
@dataclass(frozen=True)
class _Term:
    """A response bit's probability: a stated number (or its complement) or a constant."""

    index: int = -1
    complement: bool = False
    const: Fraction = Fraction(0)

    def value(self, point: Mapping[int, Fraction]) -> Fraction:
        if self.index < 0:
            return self.const
        p = point[self.index]
        return 1 - p if self.complement else p


class _Numbers:
    def __init__(self, reading: Reading) -> None:
        self.box = {i: (s.value.lo, s.value.hi) for i, s in enumerate(reading.statements)}
        self.index: dict[tuple[frozenset[Lit], frozenset[Lit]], int] = {}
        for i, s in enumerate(reading.statements):
            if s.kind is StatedKind.PROBABILITY:
                self.index.setdefault((frozenset(s.event), frozenset(s.given)), i)

    def joint(self, a: Lit, b: Lit) -> int | None:
        """The index of the stated P(a, b), or None."""
        return self.index.get((frozenset({a, b}), frozenset()))

    def p(self, v: int, value: int, given: Mapping[int, int]) -> _Term | None:
        cond = frozenset(given.items())
        for val, flip in ((value, False), (1 - value, True)):
            i = self.index.get((frozenset({(v, val)}), cond))
            if i is not None:
                return _Term(i, flip)
        return None


# ---- local causal models, enumerated ----------------------------------------------------------
@dataclass
class _Model:
    """Variables in order; each either copies another, or reads one response bit per
    configuration of its parents; ``bits`` are the bits' probabilities."""

    order: list[Any] = field(default_factory=list)
    parents: dict[Any, tuple[Any, ...]] = field(default_factory=dict)
    copies: dict[Any, Any] = field(default_factory=dict)
    table: dict[Any, dict[tuple[int, ...], int]] = field(default_factory=dict)
    bits: list[_Term] = field(default_factory=list)

    def add(self, v: Any, parents: Sequence[Any],
            prob: Callable[[tuple[int, ...]], _Term | None]) -> bool:
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


Contribution = Callable[[_Model, int], int]


@dataclass(frozen=True)
class _Value:
    """``scale`` × Σ_states contribution(state) × P(state), in a model; ``signature``
    names the model's structure and the contrast (the contributions depend on nothing
    else, so they are computed once per signature)."""

    model: _Model
    contribution: Contribution
    signature: Any
    scale: Fraction = Fraction(1)


_CONTRIBUTIONS = "causal_oracle.oracle.cladder.check.contributions"


def _contributions(value: _Value) -> tuple[int, ...]:
    found = recall(_CONTRIBUTIONS, value.signature)
    if found is None:
        found = tuple(value.contribution(value.model, s)
                      for s in range(1 << len(value.model.bits)))
        keep(_CONTRIBUTIONS, value.signature, found, 4096)
    return found  # type: ignore[no-any-return]


def _exact(value: _Value, point: Mapping[int, Fraction]) -> Fraction:
    """The value at ``point``, in integers over a common denominator."""
    probs = [t.value(point) for t in value.model.bits]
    common = lcm(*(p.denominator for p in probs)) if probs else 1
    weights = [1]
    for p in probs:  # state bit b is the b-th lowest: each new bit doubles the list
        n = p.numerator * (common // p.denominator)
        weights = [w * (common - n) for w in weights] + [w * n for w in weights]
    total = sum(c * w for c, w in zip(_contributions(value), weights, strict=True) if c)
    return Fraction(total, common ** len(probs)) * value.scale


def _extremes(value: _Value, box: Mapping[int, tuple[Fraction, Fraction]]
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
        return _exact(value, point)

    lows = [exact_at(int(r)) for r in np.nonzero(floats <= floats.min() + 1e-9)[0]]
    highs = [exact_at(int(r)) for r in np.nonzero(floats >= floats.max() - 1e-9)[0]]
    return min(lows), max(highs)


# ---- the checker's identification ---------------------------------------------------------
@dataclass(frozen=True)
class _Derived:
    """The checker's own reading of one query: how, and the value's model (None: zero)."""

    how: str
    adjustment: tuple[int, ...]
    value: _Value | None


def _zero(how: str) -> _Derived:
    return _Derived(how, (), None)


def _effect_models(graph: Graph, g: nx.DiGraph, nums: _Numbers, x: int, y: int, yv: int,
                   posterior: int | None, a: int, b: int) -> list[_Derived]:
    """Models giving P(Y_a=y | ·) − P(Y_b=y | ·): interventional (``posterior`` None)
    or among units with X=``posterior`` (effect on the treated)."""
    found: list[_Derived] = []
    others = [v for v in range(len(graph.names))
              if v not in (x, y) and v not in nx.descendants(g, x)]
    for size in range(min(len(others), 3) + 1):
        for z in itertools.combinations(others, size):
            if not _backdoor(graph, x, y, z):
                continue
            model = _Model()
            ok = True
            extra = {} if posterior is None else {x: posterior}
            for i, v in enumerate(z):
                earlier = z[:i]
                ok = ok and model.add(v, earlier, lambda cfg, v=v, e=earlier, w=extra: nums.p(
                    v, 1, {**dict(zip(e, cfg, strict=True)), **w}))
            ok = ok and model.add(y, (*z, x), lambda cfg, z=z: nums.p(
                y, yv, {**dict(zip(z, cfg[:-1], strict=True)), x: cfg[-1]}))
            if not ok:
                continue

            def contrast(m: _Model, s: int) -> int:
                return m.run(s, {x: a})[y] - m.run(s, {x: b})[y]

            found.append(_Derived("backdoor adjustment", tuple(z),
                                  _Value(model, contrast, ("backdoor", len(z), a, b))))
    for m_ in range(len(graph.names)):
        if not _frontdoor(graph, x, y, m_):
            continue
        model = _Model()
        u = ("latent", x)
        if posterior is None:
            ok = model.add(u, (), lambda cfg: nums.p(x, 1, {}))
        else:  # among units with X=posterior the latent copy of X is that value
            ok = model.add(u, (), lambda cfg: _Term(const=Fraction(posterior)))
        model.copy(x, u)
        ok = ok and model.add(m_, (x,), lambda cfg, m_=m_: nums.p(m_, 1, {x: cfg[0]}))

        def outcome(cfg: tuple[int, ...], m_: int = m_) -> _Term | None:
            if posterior is not None and cfg[0] != posterior:
                # never drawn: among the treated the latent copy of X is ``posterior``,
                # so P(Y | X=1−posterior, M) need not be stated
                return _Term(const=Fraction(0))
            return nums.p(y, yv, {x: cfg[0], m_: cfg[1]})

        ok = ok and model.add(y, (u, m_), outcome)
        if not ok:
            continue

        def through(mdl: _Model, s: int, m_: int = m_) -> int:
            return mdl.run(s, {x: a})[y] - mdl.run(s, {x: b})[y]

        found.append(_Derived("frontdoor adjustment", (m_,),
                              _Value(model, through, ("frontdoor", a, b))))
    return found


_DERIVED = "causal_oracle.oracle.cladder.check.derived"


def _derive(graph: Graph, reading: Reading) -> list[_Derived] | str:
    """Every identification the checker finds (a list), or why there is none (str);
    remembered per question without its wording (two wordings share it)."""
    q = reading.query
    key = (graph, reading.statements, q if q.polarity else replace(q, polarity=True))
    found = recall(_DERIVED, key)
    if found is None:
        found = _derive_new(graph, reading)
        keep(_DERIVED, key, found, 8192)
    return found  # type: ignore[no-any-return]


def _derive_new(graph: Graph, reading: Reading) -> list[_Derived] | str:
    g = _digraph(graph)
    nums = _Numbers(reading)
    q = reading.query
    kind = q.kind
    if kind is QueryType.MARGINAL:
        y = q.outcome[0]
        out = []
        direct = nums.p(y, 1, {})
        if direct is not None:
            model = _Model()
            model.add(y, (), lambda cfg: direct)
            out.append(_Derived("stated", (), _Value(model, lambda m, s: m.run(s, {})[y],
                                                     ("stated",))))
        for w in range(len(graph.names)):
            if w == y:
                continue
            model = _Model()
            if model.add(w, (), lambda cfg, w=w: nums.p(w, 1, {})) and model.add(
                    y, (w,), lambda cfg, w=w: nums.p(y, 1, {w: cfg[0]})):
                out.append(_Derived("total probability", (w,),
                                    _Value(model, lambda m, s: m.run(s, {})[y],
                                           ("total probability",))))
        return out or "no P(Y) and no P(W), P(Y | W)"
    if kind is QueryType.CORRELATION:
        assert q.treatment is not None
        (y, yv), (x, xv) = q.outcome, q.treatment
        if _separated(graph, None, x, y, ()):
            return [_zero("independent by the graph")]
        model = _Model()
        model.add(x, (), lambda cfg: _Term(const=_HALF))
        if model.add(y, (x,), lambda cfg: nums.p(y, yv, {x: cfg[0]})):
            def diff(m: _Model, s: int) -> int:
                v = m.run(s, {})
                return int(v[x] == xv and v[y] == 1) - int(v[x] != xv and v[y] == 1)

            return [_Derived("difference of conditionals", (),
                             _Value(model, diff, ("conditionals", xv), Fraction(2)))]
        if nums.p(x, 1, {}) is not None and any(
                nums.joint((x, 1), (y, b)) is not None and nums.joint((x, 0), (y, b)) is not None
                for b in (0, 1)):
            return [_Derived("ratio of joint probabilities", (), None)]
        return "neither P(Y | X) for both values of X nor P(X) with P(X, Y) for both"
    if kind is QueryType.EXP_AWAY:
        assert q.treatment is not None and q.condition is not None
        (y, yv), (x, xv), (c, cv) = q.outcome, q.treatment, q.condition
        if nums.p(y, yv, {x: xv, c: cv}) is None or nums.p(y, yv, {x: 1 - xv, c: cv}) is None:
            return "P(Y | X, C) is not stated for both values of X"
        return [_Derived("difference of conditionals", (), None)]
    if kind is QueryType.COLLIDER_BIAS:
        assert q.treatment is not None
        if not nx.has_path(g, q.treatment[0], q.outcome[0]):
            return [_zero("no causal path")]
        return "an ancestor"
    if kind is QueryType.ATE:
        assert q.treatment is not None
        (x, xv), (y, yv) = q.treatment, q.outcome
        if not nx.has_path(g, x, y):
            return [_zero("no causal path")]
        return _effect_models(graph, g, nums, x, y, yv, None, xv, 1 - xv) or "no formula"
    if kind is QueryType.ETT:
        assert q.treatment is not None and q.counterfactual is not None
        (x, a), (y, yv), b = q.treatment, q.outcome, q.counterfactual[1]
        if a == b:
            return [_zero("counterfactual equals the fact")]
        if not nx.has_path(g, x, y):
            return [_zero("no causal path")]
        return _effect_models(graph, g, nums, x, y, yv, a, b, a) or "no formula"
    if kind in (QueryType.NDE, QueryType.NIE):
        return _mediation(graph, g, nums, reading)
    raise CertificateRejected(f"checker: {kind} is not an estimand question")


def _mediation(graph: Graph, g: nx.DiGraph, nums: _Numbers, reading: Reading
               ) -> list[_Derived] | str:
    q = reading.query
    assert q.treatment is not None
    x, y = q.treatment[0], q.outcome[0]
    on_paths = sorted(v for v in nx.descendants(g, x) & nx.ancestors(g, y))
    if sorted(q.mediators) != on_paths:
        return "mediators"
    if not g.has_edge(x, y):
        if q.kind is QueryType.NDE:
            return [_zero("no causal path")]
        return _effect_models(graph, g, nums, x, y, 1, None, 1, 0) or "no formula"
    if len(on_paths) != 1:
        return "several mediators"
    (m,) = on_paths
    if not (_backdoor(graph, x, y, ()) and _separated(graph, x, x, m, ()) and
            _separated(graph, m, m, y, (x,))):
        return "confounded mediator"
    model = _Model()
    ok = model.add(m, (x,), lambda cfg: nums.p(m, 1, {x: cfg[0]})) and model.add(
        y, (x, m), lambda cfg: nums.p(y, 1, {x: cfg[0], m: cfg[1]}))
    if not ok:
        return "not stated"

    def nested(mdl: _Model, s: int) -> int:
        m0, m1 = mdl.run(s, {x: 0})[m], mdl.run(s, {x: 1})[m]
        if q.kind is QueryType.NDE:
            return mdl.run(s, {x: 1, m: m0})[y] - mdl.run(s, {x: 0, m: m0})[y]
        return mdl.run(s, {x: 0, m: m1})[y] - mdl.run(s, {x: 0, m: m0})[y]

    return [_Derived("mediation formula", (m,), _Value(model, nested, ("mediation", q.kind)))]


# ---- joint-probability ratios and plain differences ------------------------------------------
@memoised(limit=8192)
def _joint_extremes(reading: Reading) -> tuple[Fraction, Fraction, int] | None:
    """(min, max, sign) of P(Y=y | X=x) − P(Y=y | X=x′) from P(X) and joints, over every
    feasible corner at every candidate P(X=1)."""
    q = reading.query
    assert q.treatment is not None
    (y, yv), (x, xv) = q.outcome, q.treatment
    singles: dict[Lit, int] = {}
    joints: dict[frozenset[Lit], int] = {}
    for i, s in enumerate(reading.statements):
        if s.kind is StatedKind.PROBABILITY and not s.given:
            if len(s.event) == 1:
                singles[s.event[0]] = i
            else:
                joints[frozenset(s.event)] = i
    for b in (1, 0):
        i1, i0 = joints.get(frozenset({(x, 1), (y, b)})), joints.get(frozenset({(x, 0), (y, b)}))
        if i1 is None or i0 is None:
            continue
        st = reading.statements
        if (x, 1) in singles:
            t_lo, t_hi = st[singles[(x, 1)]].value.lo, st[singles[(x, 1)]].value.hi
        elif (x, 0) in singles:
            t_lo, t_hi = 1 - st[singles[(x, 0)]].value.hi, 1 - st[singles[(x, 0)]].value.lo
        else:
            continue
        j1 = (st[i1].value.lo, st[i1].value.hi)
        j0 = (st[i0].value.lo, st[i0].value.hi)
        ts = {t for t in (t_lo, t_hi, *j1, 1 - j0[0], 1 - j0[1]) if t_lo <= t <= t_hi}
        values = []
        for t in sorted(ts):
            for a1 in (j1[0], j1[1], t):
                for a0 in (j0[0], j0[1], 1 - t):
                    if j1[0] <= a1 <= min(j1[1], t) and j0[0] <= a0 <= min(j0[1], 1 - t):
                        c1 = a1 / t if t > 0 else Fraction(1 if a1 > 0 else 0)
                        c0 = a0 / (1 - t) if t < 1 else Fraction(1 if a0 > 0 else 0)
                        values.append(c1 - c0)
        if not values:
            return None
        sign = (1 if xv == 1 else -1) * (1 if yv == b else -1)
        if sign > 0:
            return min(values), max(values), sign
        return -max(values), -min(values), sign
    return None


@memoised(limit=8192)
def _difference_extremes(reading: Reading) -> tuple[Fraction, Fraction] | None:
    """exp_away: bounds of P(y | x, c) − P(y | x′, c) (two distinct stated numbers)."""
    q = reading.query
    assert q.treatment is not None and q.condition is not None
    (y, yv), (x, xv), (c, cv) = q.outcome, q.treatment, q.condition
    nums = _Numbers(reading)
    first, second = nums.p(y, yv, {x: xv, c: cv}), nums.p(y, yv, {x: 1 - xv, c: cv})
    if first is None or second is None or first.index == second.index:
        return None

    def span(t: _Term) -> tuple[Fraction, Fraction]:
        lo, hi = nums.box[t.index]
        return (1 - hi, 1 - lo) if t.complement else (lo, hi)

    (a_lo, a_hi), (b_lo, b_hi) = span(first), span(second)
    return a_lo - b_hi, a_hi - b_lo


def _unworded(reading: Reading) -> Reading:
    """The reading with the question's wording made affirmative (values do not depend
    on it; two wordings share what is remembered)."""
    q = reading.query
    return reading if q.polarity else replace(reading, query=replace(q, polarity=True))


# ---- rules -------------------------------------------------------------------------------------
def _says_yes(kind: QueryType, polarity: bool, v: Fraction, named: int) -> bool:
    if kind is QueryType.MARGINAL:
        if v == _HALF or v < _CUT:
            return False
        return (v > _HALF) is (polarity is (named == 1))
    if kind is QueryType.EXP_AWAY:
        return v != 0 and (v > 0) is polarity
    if kind is QueryType.COLLIDER_BIAS:
        return (v != 0) is polarity
    return not (-_CUT < v < _CUT) and (v > 0) is polarity


def _verdict(kind: QueryType, polarity: bool, lo: Fraction, hi: Fraction, named: int
             ) -> bool | None:
    marks = (-_CUT, Fraction(0), _CUT, _HALF)
    if not any(lo <= c <= hi for c in marks):
        return _says_yes(kind, polarity, lo, named)
    cuts = [lo, hi] + [c for c in marks if lo < c < hi]
    cuts.sort()
    probes = cuts + [(p + q) / 2 for p, q in itertools.pairwise(cuts)]
    seen = {_says_yes(kind, polarity, v, named) for v in probes}
    return seen.pop() if len(seen) == 1 else None


# ---- backdoor methods and deterministic counterfactuals ----------------------------------------
def _backadj(graph: Graph, reading: Reading) -> tuple[str, tuple[bool, ...]]:
    q = reading.query
    assert q.treatment is not None
    x, y = q.treatment[0], q.outcome[0]
    valid = tuple(_backdoor(graph, x, y, tuple(s)) for s in q.methods)
    first = q.first_method - 1
    return ("yes" if valid[first] and not valid[1 - first] else "no"), valid


def _det(graph: Graph, reading: Reading) -> tuple[str, bool]:
    """Brute force over every assignment: the outcome's values in all worlds consistent
    with the mechanisms (the treated variable's own mechanism dropped), the evidence and
    the new treatment value."""
    q = reading.query
    assert q.counterfactual is not None and q.premise is not None
    n = len(graph.names)
    x, new = q.counterfactual
    y, wanted = q.outcome
    set_by = {m.target[0]: m for m in reading.mechanisms}
    fixed = {v: val for v, val in reading.evidence if v not in set_by}

    def consistent(world: tuple[int, ...], skip: int | None) -> bool:
        for v, m in set_by.items():
            if v == skip:
                continue
            truth = [world[u] == val for u, val in m.inputs]
            holds = all(truth) if m.connective.value == "and" else any(truth)
            if world[v] != (m.target[1] if holds else 1 - m.target[1]):
                return False
        return all(world[v] == val for v, val in fixed.items())

    worlds = list(itertools.product((0, 1), repeat=n))
    outcomes = {w[y] for w in worlds if w[x] == new and consistent(w, x)}
    factual_x = {w[x] for w in worlds if consistent(w, None) and
                 all(w[v] == val for v, val in reading.evidence)}
    contradicting = factual_x == {new} and new != q.premise[1]
    if len(outcomes) != 1:
        return "undetermined", contradicting
    return ("yes" if outcomes.pop() == wanted else "no"), contradicting


# ---- the check ----------------------------------------------------------------------------------
_BOUNDS = "causal_oracle.oracle.cladder.check.bounds"
_ZERO = ("no causal path", "independent by the graph", "counterfactual equals the fact")


def _bounds_of(key: Any, value: _Value, reading: Reading) -> tuple[Fraction, Fraction]:
    """Exact (min, max) of ``value`` over the box, remembered by ``key``."""
    found = recall(_BOUNDS, key)
    if found is None:
        symbols = sorted({t.index for t in value.model.bits if t.index >= 0})
        box = {i: (reading.statements[i].value.lo, reading.statements[i].value.hi)
               for i in symbols}
        found = _extremes(value, box)
        keep(_BOUNDS, key, found, 8192)
    return found  # type: ignore[no-any-return]


def _choose(derived: list[_Derived], finding: Any) -> _Derived:
    """The checker's identification that matches the solver's step."""
    strategy, adjustment = str(finding.strategy), tuple(finding.adjustment)
    for d in derived:
        if d.value is None and d.how == strategy:
            return d
    for d in derived:
        if d.value is not None and d.adjustment == adjustment and (
                d.how == strategy or strategy == "indirect effect is the total effect"):
            return d
    raise CertificateRejected(f"the solver's step ({strategy} {adjustment}) is not one the "
                              f"checker finds valid ({[(d.how, d.adjustment) for d in derived]})")


def _estimand(graph: Graph, reading: Reading, finding: Any) -> None:
    q = reading.query
    kind = q.kind
    outcome, reason = str(finding.outcome), finding.reason
    derived = _derive(graph, reading)
    if isinstance(derived, str):
        if reason is None or str(reason) != "not identifiable":
            raise CertificateRejected(f"the checker finds no identification ({derived}) but "
                                      f"the solver answered {outcome}")
        return
    if reason is not None and str(reason) == "not identifiable":
        raise CertificateRejected(f"the checker identifies the query ({derived[0].how}) but "
                                  "the solver calls it not identifiable")
    mine = _choose(derived, finding)
    if kind is QueryType.CORRELATION and mine.how == "ratio of joint probabilities":
        joint = _joint_extremes(_unworded(reading))
        if joint is None:
            raise CertificateRejected("checker: no joint probabilities to compare")
        lo, hi = joint[0], joint[1]
    elif kind is QueryType.EXP_AWAY:
        diff = _difference_extremes(_unworded(reading))
        if diff is None:
            raise CertificateRejected("checker: P(Y | X, C) is not stated for both values")
        lo, hi = diff
    elif mine.value is None:
        lo = hi = Fraction(0)
    else:
        key = (mine.how, mine.adjustment, q if q.polarity else replace(q, polarity=True),
               reading.statements)
        lo, hi = _bounds_of(key, mine.value, reading)
        for extreme in (finding.lower, finding.upper):
            if extreme is None or not extreme.at:
                continue
            point = {i: lo for i, (lo, _) in _Numbers(reading).box.items()} | dict(extreme.at)
            if _exact(mine.value, point) != extreme.value:
                raise CertificateRejected("the solver's value at its extreme point is not "
                                          "what the checker's model gives there")
    if finding.lower is None or finding.upper is None:
        raise CertificateRejected("the solver gives no bounds")
    if (lo, hi) != (finding.lower.value, finding.upper.value):
        raise CertificateRejected(f"bounds differ: solver [{finding.lower.value}, "
                                  f"{finding.upper.value}], checker [{lo}, {hi}]")
    verdict = _verdict(kind, q.polarity, lo, hi, q.outcome[1])
    expected = "undetermined" if verdict is None else ("yes" if verdict else "no")
    if expected != outcome:
        raise CertificateRejected(f"the rule gives {expected} over [{lo}, {hi}], the solver "
                                  f"{outcome}")
    if verdict is None and (reason is None or str(reason) != "rounding"):
        raise CertificateRejected("an answer that changes inside the box is rounding")


def check_reading(graph: Graph, reading: Reading, finding: Any) -> None:
    """Raise ``CertificateRejected`` unless ``finding`` is this reading's answer."""
    kind = reading.query.kind
    if kind is QueryType.BACKADJ:
        answer, valid = _backadj(graph, reading)
        if answer != str(finding.outcome) or valid != tuple(finding.valid):
            raise CertificateRejected(f"backdoor sets: checker {valid} → {answer}, solver "
                                      f"{tuple(finding.valid)} → {finding.outcome}")
        return
    if kind is QueryType.DET_COUNTERFACTUAL:
        answer, contradicting = _det(graph, reading)
        if answer != str(finding.outcome):
            raise CertificateRejected(f"deterministic counterfactual: checker {answer}, solver "
                                      f"{finding.outcome}")
        if contradicting != ("contradicting_premise" in finding.flags):
            raise CertificateRejected("the checker and the solver disagree on whether the "
                                      "premise contradicts the evidence")
        return
    _estimand(graph, reading, finding)


def check(question: CladderQuestion, solution: Any) -> None:
    """Confirm ``solution`` (a ``CladderSolution``) for ``question`` or raise
    ``CertificateRejected``."""
    if len(solution.findings) != len(question.readings):
        raise CertificateRejected("one finding per reading expected")
    for reading, finding in zip(question.readings, solution.findings, strict=True):
        check_reading(question.graph, reading, finding)
    outcomes = {str(f.outcome) for f in solution.findings}
    if len(outcomes) == 1 and outcomes != {"undetermined"}:
        expected = outcomes.pop()
    else:
        expected = "undetermined"
    if str(solution.outcome) != expected:
        raise CertificateRejected(f"the readings give {expected}, the solution says "
                                  f"{solution.outcome}")


__all__ = ["check", "check_reading"]
