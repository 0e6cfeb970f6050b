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
``CertificateRejected`` saying what differs.  The checker's parts: ``check.models`` (the
enumerated causal models and their exact extremes), ``check.derive`` (the graph criteria
and each reading's identifications) and this module (the benchmark's rules and the
comparison with the solver's finding).  None of them imports the solver's modules.

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
from dataclasses import replace
from fractions import Fraction
from typing import Any

from causal_oracle.oracle.cladder.check.derive import (
    Derived,
    derive,
    difference_extremes,
    is_backdoor,
    joint_extremes,
    unworded,
)
from causal_oracle.oracle.cladder.check.models import Numbers, Value, exact, extremes
from causal_oracle.oracle.cladder.check.partial import check_bound, check_witnesses
from causal_oracle.oracle.cladder.model import (
    CladderQuestion,
    Graph,
    QueryType,
    Reading,
)
from causal_oracle.oracle.errors import CertificateRejected
from causal_oracle.oracle.memo import keep, recall

_HALF = Fraction(1, 2)
_CUT = Fraction(1, 200)  # the generator's 0.005


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
    valid = tuple(is_backdoor(graph, x, y, tuple(s)) for s in q.methods)
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


def _bounds_of(key: Any, value: Value, reading: Reading) -> tuple[Fraction, Fraction]:
    """Exact (min, max) of ``value`` over the box, remembered by ``key``."""
    found = recall(_BOUNDS, key)
    if found is None:
        symbols = sorted({t.index for t in value.model.bits if t.index >= 0})
        box = {i: (reading.statements[i].value.lo, reading.statements[i].value.hi)
               for i in symbols}
        found = extremes(value, box)
        keep(_BOUNDS, key, found, 8192)
    return found  # type: ignore[no-any-return]


def _choose(derived: list[Derived], finding: Any) -> Derived:
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


def _partially_identified(graph: Graph, reading: Reading, finding: Any) -> None:
    """A query the solver bounds over every model consistent with the text: a decided
    answer needs the checker's own outer range to decide it; an undetermined one two
    witness models with different verdicts (``check.partial``)."""
    q = reading.query
    derived = derive(graph, reading)
    if not isinstance(derived, str):
        raise CertificateRejected(f"the checker identifies the query ({derived[0].how}) but "
                                  "the solver only bounds it")

    def says(v: Fraction) -> bool:
        return _says_yes(q.kind, q.polarity, v, q.outcome[1])

    outcome = str(finding.outcome)
    if outcome == "undetermined" and "bounds_inconclusive" not in finding.flags:
        check_witnesses(graph, reading, finding, says)
        return
    lo, hi = check_bound(graph, reading, finding)
    if (lo, hi) != (finding.lower.value, finding.upper.value):
        raise CertificateRejected(f"bounds differ: solver [{finding.lower.value}, "
                                  f"{finding.upper.value}], checker [{lo}, {hi}]")
    verdict = _verdict(q.kind, q.polarity, lo, hi, q.outcome[1])
    expected = "undetermined" if verdict is None else ("yes" if verdict else "no")
    if expected != outcome:
        raise CertificateRejected(f"the rule gives {expected} over [{lo}, {hi}], the solver "
                                  f"{outcome}")


def _estimand(graph: Graph, reading: Reading, finding: Any) -> None:
    q = reading.query
    if getattr(finding, "partial", None) is not None:
        _partially_identified(graph, reading, finding)
        return
    kind = q.kind
    outcome, reason = str(finding.outcome), finding.reason
    derived = derive(graph, reading)
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
        joint = joint_extremes(unworded(reading))
        if joint is None:
            raise CertificateRejected("checker: no joint probabilities to compare")
        lo, hi = joint[0], joint[1]
    elif kind is QueryType.EXP_AWAY:
        diff = difference_extremes(unworded(reading))
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
            point = {i: lo for i, (lo, _) in Numbers(reading).box.items()} | dict(extreme.at)
            if exact(mine.value, point) != extreme.value:
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

