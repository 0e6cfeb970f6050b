"""Answer a CLadder question exactly: yes, no, or undetermined with its reason.

For each reading of the text (``model.Reading``; one unless a phrase has two meanings)
the solver

1. identifies the query from the graph and the stated numbers (``identify``): an
   ``Estimand`` or ``NotIdentifiable``;
2. bounds the estimand exactly over the box of printed values (``bounds``);
3. applies the benchmark's rule (``decide``) to the whole interval of values: **yes** or
   **no** when the answer is the same at every point of the box, **undetermined** with
   reason ``rounding`` when it changes inside the box (the certificate gives two
   points with different answers), or ``not identifiable`` when the stated quantities
   do not determine the query.

A query that is not point-identified is then bounded over every model consistent
with the text (``bound``: ETT under confounding, IV effects, the arrowhead's natural
effects; ``partial``, ``mediation``) and decided when the rule gives one answer over
the whole range; otherwise it is undetermined with two witness models whose answers
differ: ``not identifiable`` when both reproduce the printed numbers exactly,
``rounding`` when they need the printed intervals.

``backadj`` is decided from the graph alone: each method's set is checked against the
backdoor criterion; when both are valid the question's preference is not "more
correct" (answer "no", flagged ``both_methods_valid``).  A deterministic counterfactual
is evaluated from the stated mechanisms with the observed values held fixed and the
treatment set to its new value; a premise "instead of X=a" that the evidence
contradicts (it gives X its new value already) is flagged ``contradicting_premise``.

A question whose readings disagree is undetermined (``not identifiable``: the text does
not say which reading is meant).

>>> from causal_oracle.oracle.cladder.model import *
>>> g = Graph.build(["x", "y"], [("x", "y")])
>>> pct = Interval.percent
>>> st = (Stated(((1, 1),), ((0, 0),), pct("26")), Stated(((1, 1),), ((0, 1),), pct("85")))
>>> s = solve(CladderQuestion(g, (Reading(st, Query(QueryType.ATE, (1, 1), (0, 1))),)))
>>> s.outcome.value, s.findings[0].lower.value, s.findings[0].upper.value
('yes', Fraction(29, 50), Fraction(3, 5))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.cladder.bounds import Extreme, joint_bounds, poly_bounds
from causal_oracle.oracle.cladder.criteria import backdoor_path, backdoor_valid
from causal_oracle.oracle.cladder.decide import Rule, answer, breakpoints, decide, witness
from causal_oracle.oracle.cladder.identify import Estimand, NotIdentifiable, identify
from causal_oracle.oracle.cladder.mediation import mediation_bounds
from causal_oracle.oracle.cladder.model import (
    CladderQuestion,
    Connective,
    Graph,
    Lit,
    Mechanism,
    Query,
    QueryType,
    Reading,
    Stated,
)
from causal_oracle.oracle.cladder.partial import PartialBounds, ett_bounds, iv_bounds
from causal_oracle.oracle.errors import InputError
from causal_oracle.oracle.memo import memoised

BOTH_VALID = "both_methods_valid"
NEITHER_VALID = "neither_method_valid"
CONTRADICTING_PREMISE = "contradicting_premise"
AMBIGUOUS_TEXT = "ambiguous_text"
#: the outer bounds straddle the rule's breakpoint but no two witness models were found
BOUNDS_INCONCLUSIVE = "bounds_inconclusive"


class Outcome(StrEnum):
    YES = "yes"
    NO = "no"
    UNDETERMINED = "undetermined"

    @classmethod
    def of(cls, yes: bool) -> Outcome:
        return cls.YES if yes else cls.NO


class Reason(StrEnum):
    ROUNDING = "rounding"
    NOT_IDENTIFIABLE = "not identifiable"


_RULES = {QueryType.CORRELATION: Rule.THRESHOLD, QueryType.ATE: Rule.THRESHOLD,
          QueryType.ETT: Rule.THRESHOLD, QueryType.NDE: Rule.THRESHOLD,
          QueryType.NIE: Rule.THRESHOLD, QueryType.EXP_AWAY: Rule.SIGN,
          QueryType.MARGINAL: Rule.MARGINAL, QueryType.COLLIDER_BIAS: Rule.EFFECT}


@dataclass(frozen=True)
class Finding:
    """One reading's answer and its certificate.

    Estimand questions: ``quantity`` (what the rule looks at), ``strategy`` and
    ``formula`` (the identification step), ``lower``/``upper`` (exact bounds over the
    box with the points attaining them), ``rule`` and the question's ``polarity``
    (``named``: the value a marginal question names first), and for ``rounding`` a value
    ``probe`` between the bounds whose answer differs from the answer at ``lower``.
    ``backadj``: ``valid`` per method and an open backdoor path for each invalid one.
    Deterministic counterfactuals: ``factual`` and ``counterfactual`` values of every
    variable (None: not determined).
    """

    outcome: Outcome
    reason: Reason | None
    kind: QueryType
    quantity: str = ""
    strategy: str = ""
    formula: str = ""
    adjustment: tuple[int, ...] = ()
    rule: Rule | None = None
    polarity: bool = True
    named: int = 1
    sign_only: bool = False
    lower: Extreme | None = None
    upper: Extreme | None = None
    probe: Fraction | None = None
    why: str = ""
    valid: tuple[bool, ...] = ()
    open_paths: tuple[tuple[int, ...], ...] = ()
    factual: tuple[int | None, ...] = ()
    counterfactual: tuple[int | None, ...] = ()
    flags: tuple[str, ...] = ()
    partial: PartialBounds | None = None


@dataclass(frozen=True)
class CladderSolution:
    """The answer to a question: decided (``yes``/``no``) or ``undetermined`` with its
    ``reason``; one ``Finding`` per reading; ``flags`` from every reading."""

    outcome: Outcome
    reason: Reason | None
    findings: tuple[Finding, ...]
    flags: tuple[str, ...] = ()
    detail: str = ""
    checked: bool = field(default=False, compare=False)


# ---- estimand questions ------------------------------------------------------------------
@memoised(limit=8192)
def _identified(graph: Graph, statements: tuple[Stated, ...], query: Query
                ) -> tuple[Estimand | NotIdentifiable, Extreme | None, Extreme | None]:
    """Identification and exact bounds; the question's wording (polarity) plays no part,
    so the two wordings of one question share them."""
    found = identify(graph, statements, query)
    if isinstance(found, NotIdentifiable):
        return found, None, None
    low, high = _bounds(found, statements)
    return found, low, high


def _estimand_finding(graph: Graph, reading: Reading) -> Finding:
    query = reading.query
    unworded = query if query.polarity else replace(query, polarity=True)
    found, low, high = _identified(graph, reading.statements, unworded)
    rule = _RULES[query.kind]
    polarity = query.polarity
    named = query.outcome[1]
    if isinstance(found, NotIdentifiable):
        partial = _partial(graph, reading.statements, unworded)
        if partial is not None:
            return _partial_finding(found, partial, query, rule)
        return Finding(Outcome.UNDETERMINED, Reason.NOT_IDENTIFIABLE, query.kind,
                       found.quantity, why=found.why, rule=rule, polarity=polarity,
                       named=named)
    assert low is not None and high is not None
    base = dict(kind=query.kind, quantity=found.quantity, strategy=found.strategy.value,
                formula=found.formula, adjustment=found.adjustment, rule=rule,
                polarity=polarity, named=named, sign_only=found.sign_only, lower=low,
                upper=high)
    verdict = decide(rule, polarity, low.value, high.value, named)
    if verdict is None:
        pair = witness(rule, polarity, low.value, high.value, named)
        assert pair is not None
        return Finding(Outcome.UNDETERMINED, Reason.ROUNDING, probe=pair[1],
                       why="the answer changes inside the printed intervals",
                       **base)  # type: ignore[arg-type]
    return Finding(Outcome.of(verdict), None, **base)  # type: ignore[arg-type]


def bound(graph: Graph, statements: tuple[Stated, ...], query: Query,
          breaks: Sequence[Fraction] = ()) -> PartialBounds | None:
    """The range of a query that is not point-identified over every model consistent
    with the text, for the graphs ``partial`` and ``mediation`` know (ETT under
    confounding, IV, the arrowhead's natural effects); None for any other.  ``breaks``:
    the rule's breakpoints, where the arrowhead's refinement may stop early."""
    if query.kind is QueryType.ETT:
        return ett_bounds(graph, statements, query)
    if query.kind is QueryType.ATE:
        return iv_bounds(graph, statements, query)
    if query.kind in (QueryType.NDE, QueryType.NIE):
        return mediation_bounds(graph, statements, query, breaks)
    return None


@memoised(limit=8192)
def _partial(graph: Graph, statements: tuple[Stated, ...], query: Query
             ) -> PartialBounds | None:
    return bound(graph, statements, query, breakpoints(_RULES[query.kind]))


def _partial_finding(found: NotIdentifiable, partial: PartialBounds, query: Query,
                     rule: Rule) -> Finding:
    """Decide a query that is not point-identified by its range over every model
    consistent with the text (``partial``): decided when the rule gives one answer over
    the whole outer range; else undetermined, ``not identifiable`` when two models that
    reproduce the printed numbers exactly answer differently, ``rounding`` when two
    models within the printed intervals do."""
    polarity = query.polarity
    base = dict(kind=query.kind, quantity=found.quantity,
                strategy=f"sharp bounds: {partial.method.value}",
                formula=f"[{partial.lower}, {partial.upper}] over every model consistent "
                        "with the text", rule=rule, polarity=polarity, named=1,
                lower=Extreme(partial.lower, ()), upper=Extreme(partial.upper, ()),
                partial=partial)
    verdict = decide(rule, polarity, partial.lower, partial.upper)
    if verdict is not None:
        return Finding(Outcome.of(verdict), None, why=found.why,
                       **base)  # type: ignore[arg-type]

    def differ(a: Fraction, b: Fraction) -> bool:
        return answer(rule, polarity, a) != answer(rule, polarity, b)

    if differ(partial.exact_low.value, partial.exact_high.value):
        return Finding(Outcome.UNDETERMINED, Reason.NOT_IDENTIFIABLE,
                       why=f"{found.why}; models reproducing the printed numbers give "
                           f"{partial.exact_low.value} and {partial.exact_high.value}, "
                           "with different answers", **base)  # type: ignore[arg-type]
    if differ(partial.low.value, partial.high.value):
        return Finding(Outcome.UNDETERMINED, Reason.ROUNDING, probe=partial.high.value,
                       why=f"models within the printed intervals give {partial.low.value} "
                           f"and {partial.high.value}, with different answers",
                       **base)  # type: ignore[arg-type]
    return Finding(Outcome.UNDETERMINED, Reason.NOT_IDENTIFIABLE, flags=(BOUNDS_INCONCLUSIVE,),
                   why=f"{found.why}; the bounds [{partial.lower}, {partial.upper}] straddle "
                       "the rule's breakpoint", **base)  # type: ignore[arg-type]


def _bounds(estimand: Estimand, statements: tuple[Stated, ...]) -> tuple[Extreme, Extreme]:
    box = {i: (statements[i].value.lo, statements[i].value.hi) for i in estimand.symbols()}
    if estimand.poly is not None:
        return poly_bounds(estimand.poly, box)
    assert estimand.joint is not None
    low, high = joint_bounds(estimand.joint, box)
    if estimand.sign < 0:
        low, high = Extreme(-high.value, high.at), Extreme(-low.value, low.at)
    return low, high


# ---- backdoor adjustment sets ----------------------------------------------------------
def _backadj_finding(graph: Graph, reading: Reading) -> Finding:
    query = reading.query
    assert query.treatment is not None
    x, y = query.treatment[0], query.outcome[0]
    sets = query.methods
    valid = tuple(backdoor_valid(graph, x, y, s) for s in sets)
    paths = tuple(tuple(backdoor_path(graph, x, y, s) or ()) if not ok else ()
                  for s, ok in zip(sets, valid, strict=True))
    first = query.first_method - 1
    other = 1 - first
    flags: tuple[str, ...] = ()
    if valid[first] and valid[other]:
        flags = (BOTH_VALID,)
    elif not valid[first] and not valid[other]:
        flags = (NEITHER_VALID,)
    yes = valid[first] and not valid[other]
    names = [", ".join(graph.names[v] for v in s) or "no variable" for s in sets]
    return Finding(Outcome.of(yes), None, query.kind,
                   quantity=f"is Method {first + 1} ({names[first]}) a valid adjustment set "
                            f"and Method {other + 1} ({names[other]}) not?",
                   strategy="backdoor criterion", valid=valid, open_paths=paths, flags=flags)


# ---- deterministic counterfactuals -----------------------------------------------------------
def _holds(lit: Lit, values: Sequence[int | None]) -> bool | None:
    v = values[lit[0]]
    return None if v is None else v == lit[1]


def _combine(connective: Connective, parts: Sequence[bool | None]) -> bool | None:
    if connective is Connective.AND:
        if any(p is False for p in parts):
            return False
        return True if all(p is True for p in parts) else None
    if any(p is True for p in parts):
        return True
    return False if all(p is False for p in parts) else None


def evaluate(graph: Graph, mechanisms: Sequence[Mechanism], evidence: Sequence[Lit],
             do: dict[int, int]) -> tuple[int | None, ...]:
    """Every variable's value from the mechanisms (three-valued: None = not determined),
    with the evidence on variables no mechanism sets and ``do`` forcing values."""
    by_target: dict[int, Mechanism] = {}
    for m in mechanisms:
        if m.target[0] in by_target:
            raise InputError(f"two mechanisms set {graph.names[m.target[0]]}")
        by_target[m.target[0]] = m
    values: list[int | None] = [None] * graph.n
    for v, val in evidence:
        if v not in by_target:
            values[v] = val
    for v, val in do.items():
        values[v] = val
    for _ in range(graph.n):  # a DAG settles in at most n rounds
        changed = False
        for v, m in by_target.items():
            if v in do:
                continue
            holds = _combine(m.connective, [_holds(lit, values) for lit in m.inputs])
            new = None if holds is None else (m.target[1] if holds else 1 - m.target[1])
            if new != values[v]:
                values[v] = new
                changed = True
        if not changed:
            break
    return tuple(values)


def _det_finding(graph: Graph, reading: Reading) -> Finding:
    query = reading.query
    assert query.counterfactual is not None and query.premise is not None
    x, new = query.counterfactual
    y, wanted = query.outcome
    factual = evaluate(graph, reading.mechanisms, reading.evidence, {})
    for v, val in reading.evidence:
        if factual[v] is not None and factual[v] != val:
            raise InputError(f"the observation {graph.names[v]}={val} contradicts the stated "
                             "mechanisms")
    world = evaluate(graph, reading.mechanisms, reading.evidence, {x: new})
    flags: tuple[str, ...] = ()
    if factual[x] is not None and factual[x] != query.premise[1]:
        flags = (CONTRADICTING_PREMISE,)
    quantity = (f"{graph.names[y]} if {graph.names[x]}={new} (instead of "
                f"{graph.names[x]}={query.premise[1]})")
    if world[y] is None:
        return Finding(Outcome.UNDETERMINED, Reason.NOT_IDENTIFIABLE, query.kind, quantity,
                       strategy="stated mechanisms", why="the mechanisms and observations do "
                       f"not determine {graph.names[y]}", factual=factual,
                       counterfactual=world, flags=flags)
    return Finding(Outcome.of(world[y] == wanted), None, query.kind, quantity,
                   strategy="stated mechanisms", factual=factual, counterfactual=world,
                   flags=flags)


# ---- the question ------------------------------------------------------------------------
def solve_reading(graph: Graph, reading: Reading) -> Finding:
    kind = reading.query.kind
    if kind is QueryType.BACKADJ:
        return _backadj_finding(graph, reading)
    if kind is QueryType.DET_COUNTERFACTUAL:
        return _det_finding(graph, reading)
    return _estimand_finding(graph, reading)


def solve(question: CladderQuestion) -> CladderSolution:
    """The certified-to-be answer of ``question`` (module docstring); the independent
    checker (``oracle.cladder.check``) re-derives it."""
    findings = []
    for reading in question.readings:
        checkpoint()
        findings.append(solve_reading(question.graph, reading))
    flags = tuple(dict.fromkeys(f for finding in findings for f in finding.flags))
    if len(question.readings) > 1:
        flags = (*flags, AMBIGUOUS_TEXT)
    outcomes = {f.outcome for f in findings}
    if outcomes == {Outcome.YES} or outcomes == {Outcome.NO}:
        return CladderSolution(outcomes.pop(), None, tuple(findings), flags)
    reasons = [f.reason for f in findings if f.reason is not None]
    if not reasons:
        words = ", ".join(repr(p) for p in question.ambiguous) or "its phrases"
        return CladderSolution(Outcome.UNDETERMINED, Reason.NOT_IDENTIFIABLE, tuple(findings),
                               flags, f"the text reads in {len(findings)} ways ({words} "
                               "name more than one value) with different answers")
    reason = Reason.NOT_IDENTIFIABLE if Reason.NOT_IDENTIFIABLE in reasons else Reason.ROUNDING
    detail = next(f.why for f in findings if f.reason is reason)
    return CladderSolution(Outcome.UNDETERMINED, reason, tuple(findings), flags, detail)


__all__ = ["AMBIGUOUS_TEXT", "BOTH_VALID", "BOUNDS_INCONCLUSIVE", "CONTRADICTING_PREMISE",
           "NEITHER_VALID", "CladderSolution", "Finding", "Outcome", "Reason", "bound",
           "evaluate", "solve", "solve_reading"]
