"""What the checker derives for one reading: which identification holds, and the value.

The checker decides identification by graph criteria on networkx objects, never by the
solver's code: a backdoor set Z (no descendant of X, d-separates X and Y once X's
outgoing edges are cut: ``is_backdoor``), a frontdoor mediator M, unconfounded
mediation, or d-separation of X and Y (the effect is then zero without numbers).  For
each criterion that holds it builds the value's causal model (``check.models``): a
backdoor set Z as the root of Z → X → Y, a frontdoor mediator with a latent copy of X
confounding X and Y, the mediation model X → M → Y for natural direct and indirect
effects.  ``derive`` returns every valid identification (``Derived``), or the reason
none applies.

Two kinds of question are bounded without a model: a correlation question stated by
joint probabilities (the ratio of joints, by evaluating every feasible corner of the box
cut by coherence at every candidate P(X): ``joint_extremes``), and an explaining-away
question (a plain difference of two stated numbers: ``difference_extremes``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from fractions import Fraction

import networkx as nx

from causal_oracle.oracle.cladder.check.models import (
    Model,
    Numbers,
    Term,
    Value,
)
from causal_oracle.oracle.cladder.model import (
    Graph,
    Lit,
    QueryType,
    Reading,
    StatedKind,
)
from causal_oracle.oracle.errors import CertificateRejected
from causal_oracle.oracle.memo import keep, memoised, recall

_HALF = Fraction(1, 2)


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
def is_backdoor(graph: Graph, x: int, y: int, z: tuple[int, ...]) -> bool:
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



# ---- the checker's identification ---------------------------------------------------------
@dataclass(frozen=True)
class Derived:
    """The checker's own reading of one query: how, and the value's model (None: zero)."""

    how: str
    adjustment: tuple[int, ...]
    value: Value | None


def _zero(how: str) -> Derived:
    return Derived(how, (), None)


def _effect_models(graph: Graph, g: nx.DiGraph, nums: Numbers, x: int, y: int, yv: int,
                   posterior: int | None, a: int, b: int) -> list[Derived]:
    """Models giving P(Y_a=y | ·) − P(Y_b=y | ·): interventional (``posterior`` None)
    or among units with X=``posterior`` (effect on the treated)."""
    found: list[Derived] = []
    others = [v for v in range(len(graph.names))
              if v not in (x, y) and v not in nx.descendants(g, x)]
    for size in range(min(len(others), 3) + 1):
        for z in itertools.combinations(others, size):
            if not is_backdoor(graph, x, y, z):
                continue
            model = Model()
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

            def contrast(m: Model, s: int) -> int:
                return m.run(s, {x: a})[y] - m.run(s, {x: b})[y]

            found.append(Derived("backdoor adjustment", tuple(z),
                                 Value(model, contrast, ("backdoor", len(z), a, b))))
    for m_ in range(len(graph.names)):
        if not _frontdoor(graph, x, y, m_):
            continue
        model = Model()
        u = ("latent", x)
        if posterior is None:
            ok = model.add(u, (), lambda cfg: nums.p(x, 1, {}))
        else:  # among units with X=posterior the latent copy of X is that value
            ok = model.add(u, (), lambda cfg: Term(const=Fraction(posterior)))
        model.copy(x, u)
        ok = ok and model.add(m_, (x,), lambda cfg, m_=m_: nums.p(m_, 1, {x: cfg[0]}))

        def outcome(cfg: tuple[int, ...], m_: int = m_) -> Term | None:
            if posterior is not None and cfg[0] != posterior:
                # never drawn: among the treated the latent copy of X is ``posterior``,
                # so P(Y | X=1−posterior, M) need not be stated
                return Term(const=Fraction(0))
            return nums.p(y, yv, {x: cfg[0], m_: cfg[1]})

        ok = ok and model.add(y, (u, m_), outcome)
        if not ok:
            continue

        def through(mdl: Model, s: int, m_: int = m_) -> int:
            return mdl.run(s, {x: a})[y] - mdl.run(s, {x: b})[y]

        found.append(Derived("frontdoor adjustment", (m_,),
                             Value(model, through, ("frontdoor", a, b))))
    return found


_DERIVED = "causal_oracle.oracle.cladder.check.derived"


def derive(graph: Graph, reading: Reading) -> list[Derived] | str:
    """Every identification the checker finds (a list), or why there is none (str);
    remembered per question without its wording (two wordings share it)."""
    q = reading.query
    key = (graph, reading.statements, q if q.polarity else replace(q, polarity=True))
    found = recall(_DERIVED, key)
    if found is None:
        found = _derive_new(graph, reading)
        keep(_DERIVED, key, found, 8192)
    return found  # type: ignore[no-any-return]


def _derive_new(graph: Graph, reading: Reading) -> list[Derived] | str:
    g = _digraph(graph)
    nums = Numbers(reading)
    q = reading.query
    kind = q.kind
    if kind is QueryType.MARGINAL:
        y = q.outcome[0]
        out = []
        direct = nums.p(y, 1, {})
        if direct is not None:
            model = Model()
            model.add(y, (), lambda cfg: direct)
            out.append(Derived("stated", (), Value(model, lambda m, s: m.run(s, {})[y],
                                                   ("stated",))))
        for w in range(len(graph.names)):
            if w == y:
                continue
            model = Model()
            if model.add(w, (), lambda cfg, w=w: nums.p(w, 1, {})) and model.add(
                    y, (w,), lambda cfg, w=w: nums.p(y, 1, {w: cfg[0]})):
                out.append(Derived("total probability", (w,),
                                   Value(model, lambda m, s: m.run(s, {})[y],
                                         ("total probability",))))
        return out or "no P(Y) and no P(W), P(Y | W)"
    if kind is QueryType.CORRELATION:
        assert q.treatment is not None
        (y, yv), (x, xv) = q.outcome, q.treatment
        if _separated(graph, None, x, y, ()):
            return [_zero("independent by the graph")]
        model = Model()
        model.add(x, (), lambda cfg: Term(const=_HALF))
        if model.add(y, (x,), lambda cfg: nums.p(y, yv, {x: cfg[0]})):
            def diff(m: Model, s: int) -> int:
                v = m.run(s, {})
                return int(v[x] == xv and v[y] == 1) - int(v[x] != xv and v[y] == 1)

            return [Derived("difference of conditionals", (),
                            Value(model, diff, ("conditionals", xv), Fraction(2)))]
        if nums.p(x, 1, {}) is not None and any(
                nums.joint((x, 1), (y, b)) is not None and nums.joint((x, 0), (y, b)) is not None
                for b in (0, 1)):
            return [Derived("ratio of joint probabilities", (), None)]
        return "neither P(Y | X) for both values of X nor P(X) with P(X, Y) for both"
    if kind is QueryType.EXP_AWAY:
        assert q.treatment is not None and q.condition is not None
        (y, yv), (x, xv), (c, cv) = q.outcome, q.treatment, q.condition
        if nums.p(y, yv, {x: xv, c: cv}) is None or nums.p(y, yv, {x: 1 - xv, c: cv}) is None:
            return "P(Y | X, C) is not stated for both values of X"
        return [Derived("difference of conditionals", (), None)]
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


def _mediation(graph: Graph, g: nx.DiGraph, nums: Numbers, reading: Reading
               ) -> list[Derived] | str:
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
    if not (is_backdoor(graph, x, y, ()) and _separated(graph, x, x, m, ()) and
            _separated(graph, m, m, y, (x,))):
        return "confounded mediator"
    model = Model()
    ok = model.add(m, (x,), lambda cfg: nums.p(m, 1, {x: cfg[0]})) and model.add(
        y, (x, m), lambda cfg: nums.p(y, 1, {x: cfg[0], m: cfg[1]}))
    if not ok:
        return "not stated"

    def nested(mdl: Model, s: int) -> int:
        m0, m1 = mdl.run(s, {x: 0})[m], mdl.run(s, {x: 1})[m]
        if q.kind is QueryType.NDE:
            return mdl.run(s, {x: 1, m: m0})[y] - mdl.run(s, {x: 0, m: m0})[y]
        return mdl.run(s, {x: 0, m: m1})[y] - mdl.run(s, {x: 0, m: m0})[y]

    return [Derived("mediation formula", (m,), Value(model, nested, ("mediation", q.kind)))]


# ---- joint-probability ratios and plain differences ------------------------------------------
@memoised(limit=8192)
def joint_extremes(reading: Reading) -> tuple[Fraction, Fraction, int] | None:
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
def difference_extremes(reading: Reading) -> tuple[Fraction, Fraction] | None:
    """exp_away: bounds of P(y | x, c) − P(y | x′, c) (two distinct stated numbers)."""
    q = reading.query
    assert q.treatment is not None and q.condition is not None
    (y, yv), (x, xv), (c, cv) = q.outcome, q.treatment, q.condition
    nums = Numbers(reading)
    first, second = nums.p(y, yv, {x: xv, c: cv}), nums.p(y, yv, {x: 1 - xv, c: cv})
    if first is None or second is None or first.index == second.index:
        return None

    def span(t: Term) -> tuple[Fraction, Fraction]:
        lo, hi = nums.box[t.index]
        return (1 - hi, 1 - lo) if t.complement else (lo, hi)

    (a_lo, a_hi), (b_lo, b_hi) = span(first), span(second)
    return a_lo - b_hi, a_hi - b_lo


def unworded(reading: Reading) -> Reading:
    """The reading with the question's wording made affirmative (values do not depend
    on it; two wordings share what is remembered)."""
    q = reading.query
    return reading if q.polarity else replace(reading, query=replace(q, polarity=True))


