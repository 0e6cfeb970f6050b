"""Bulk Corr2Cause labels: the items of one premise read off its relation tables.

An audit hands the family each run of consecutive rows that share a premise
(``corr2cause_audit``; ``Service.label_fast_many`` for other bulk callers).  For a
listed class, the solver's relation table (``oracle.relation_table``: every reading ×
member × ordered pair) gives each item's verdict and ``holds_in`` by look-up, and the
checker's own table (``oracle.check_table``, built from the class it re-derives
itself) must give the same count, or the item is left to ``Service.verify`` (which
builds and checks the full certificate).  A hypothesis text becomes a plan (its pair,
the ordinal of its reading under the profile, the readings of every member profile for
``ambiguous``, the checker's relation name) once; both plans and tables live in the
family's memory in each service (``corr2cause_memory``).

``verify_fast_many`` is the same look-up for the gRPC server's batches: each label
with what a Verify response shows besides (the label under every profile, read off
the same table, and the one-line reason, with a witness found in one member), so
that a batch of a premise's items costs one class derivation and a look-up per item
and answers exactly what ``Service.verify`` would.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple, Protocol

from causal_oracle.entry.caches import LRU
from causal_oracle.oracle.check_table import ClassCheck, relation_name
from causal_oracle.oracle.equivalence import analyse
from causal_oracle.oracle.errors import BudgetExceeded, OracleError
from causal_oracle.oracle.explain import dag_text, reason_line
from causal_oracle.oracle.outcome import Outcome
from causal_oracle.oracle.relation_table import ORDINAL, READINGS, RelationTable, table_of
from causal_oracle.oracle.relations import Profile, Reading, reading, witness_reading
from causal_oracle.oracle.statements import Hypothesis, Premise, RelationKind, SurfaceForm

TABLES_KEPT = 64
#: the profiles whose binary labels decide ``ambiguous`` (``labels.label``)
_MEMBER_PROFILES = tuple(p for p in Profile if p is not Profile.COMPELLED)
_MEMBER_NAMES = tuple(p.value for p in _MEMBER_PROFILES)


@cache
def _readings(kind: RelationKind, form: SurfaceForm) -> frozenset[Reading]:
    """The distinct readings of a hypothesis over the member profiles."""
    return frozenset(reading(kind, form, profile) for profile in _MEMBER_PROFILES)


@dataclass(frozen=True, slots=True)
class ClassTables:
    """One premise's class with the solver's relation table and the checker's own."""

    solver: RelationTable
    checker: ClassCheck
    #: variable name → index
    index: dict[str, int]
    #: the members as sorted edge lists (``ClassAnalysis.member_edges``)
    edges: tuple[tuple[tuple[int, int], ...], ...] = ()
    #: the class CPDAG's edges by name, directed and undirected (for certificates)
    cpdag: tuple[list[list[str]], list[list[str]]] = ([], [])


class Plan(NamedTuple):
    """A hypothesis as table look-ups: its pair, its reading under the profile, the
    readings of every member profile (for ``ambiguous``), and the checker's name."""

    first: str
    second: str
    kind: RelationKind
    reading: int
    readings: tuple[int, ...]
    checker: str
    profile: Profile
    form: SurfaceForm
    #: the reading's ordinal under each member profile (``Profile`` order, no ``compelled``)
    by_profile: tuple[int, ...]


_NO_PLAN = object()


class FastVerdict(NamedTuple):
    """An item's label read off its premise's relation tables (``Service.label_fast_many``).

    The fields mean what ``VerifyResult``'s do; every one was confirmed by the
    checker's own table (same class, same count).  No certificate is built.
    """

    relation: str
    label: int
    holds_in: int
    class_size: int
    ambiguous: bool
    kind: RelationKind
    num_nodes: int


class _Caches(Protocol):
    """The part of the family's caches bulk labelling reads and fills."""

    size: int
    tables: LRU[Premise, ClassTables | bool]
    plans: dict[str, Plan]


class Host(Protocol):
    """What bulk labelling needs of the family's memory in a service
    (``corr2cause_memory.Corr2CauseMemory`` is one): its parsed premises and
    hypotheses, its caches, and the service's budget-and-memory scope.  A protocol, so
    that this module does not import the memory that imports it."""

    @property
    def caches(self) -> _Caches: ...

    def premise_of(self, text: str) -> Premise: ...

    def hypothesis_of(self, text: str) -> Hypothesis: ...

    def scope(self) -> AbstractContextManager[None]: ...


def label_fast_many(service: Host, premise: str, hypotheses: Sequence[str],
                    profile: Profile = Profile.CORR2CAUSE) -> list[FastVerdict | None]:
    """``verify`` for bulk callers: labels read off the premise's relation tables.

    The solver's table (``oracle.relation_table``) gives each verdict and
    ``holds_in``; the checker's own table (``oracle.check_table``), built from the
    class it re-derives itself, must give the same, or the item is left to
    ``verify``.  An item's entry is None — the caller then calls ``verify``, which
    builds and checks the certificate or raises the error — when it is not an
    easy one: unreadable or over a limit, an inconsistent premise, a class too
    large to list or to tabulate, the same variable twice, the ``compelled``
    profile, or tables that disagree.  Tables pay from a premise's second item
    on: a lone item of a premise not seen before is also left to ``verify``.
    Tables are kept for the most recent premises only, so items should come
    grouped by premise, as datasets list them.
    """
    return _labels(service, premise, hypotheses, profile)[0]


#: what ``_labels`` found besides the verdicts: the parsed premise, its tables, and per
#: item the plan and pair looked up (None where the verdict is None)
Found = tuple[Premise, "ClassTables", list[tuple[Plan, int, int] | None]]


def _labels(service: Host, premise: str, hypotheses: Sequence[str], profile: Profile
            ) -> tuple[list[FastVerdict | None], Found | None]:
    """``label_fast_many``'s verdicts, and what it looked up (None: no verdict at all)."""
    none: list[FastVerdict | None] = [None] * len(hypotheses)
    found = class_tables(service, premise, len(hypotheses), profile)
    if found is None:
        return none, None
    prem, tables = found
    index = tables.index
    solver, checker = tables.solver, tables.checker
    size = solver.size
    out = none
    looked: list[tuple[Plan, int, int] | None] = [None] * len(hypotheses)
    plans = service.caches.plans
    outcomes = (Outcome.ENTAILMENT, Outcome.NEUTRAL, Outcome.CONTRADICTION)
    for i, text in enumerate(hypotheses):
        plan = plans.get(text, _NO_PLAN)
        if plan is _NO_PLAN or plan.profile is not profile:  # type: ignore[union-attr]
            plan = _plan(service, text, profile)
        if plan is None:
            continue
        p, q = index.get(plan.first), index.get(plan.second)
        if p is None or q is None or p == q:
            continue
        holds_in = solver.counts_at(plan.reading)[p][q]
        if checker.count(plan.checker, p, q) != holds_in:
            continue
        relation = outcomes[0 if holds_in == size else 1 if holds_in else 2]
        ambiguous = False
        if len(plan.readings) > 1:  # the profiles read it differently: do labels differ?
            entailed = solver.counts_at(plan.readings[0])[p][q] == size
            ambiguous = any((solver.counts_at(r)[p][q] == size) != entailed
                            for r in plan.readings[1:])
        out[i] = FastVerdict(relation, int(relation is Outcome.ENTAILMENT), holds_in, size,
                             ambiguous, plan.kind, prem.n)
        looked[i] = (plan, p, q)
    return out, (prem, tables, looked)

def class_tables(service: Host, premise: str, items: int, profile: Profile
                 ) -> tuple[Premise, ClassTables] | None:
    """The parsed premise and its class's tables for ``items`` items of it under
    ``profile``; None when its items must take ``verify`` (the cases
    ``label_fast_many`` lists: no tables, a lone first item, ``compelled``)."""
    if profile is Profile.COMPELLED or not items:
        return None
    try:
        prem = service.premise_of(premise.strip())
    except OracleError:
        return None
    tables = service.caches.tables.get(prem)
    if tables is None and items == 1:  # a lone first item: no table yet
        service.caches.tables.put(prem, True)
        return None
    if tables is None or tables is True:
        try:
            tables = _tables(service, prem)
        except BudgetExceeded:  # this call's budget, not the premise's: try again later
            return None
        except OracleError:
            tables = False
        service.caches.tables.put(prem, tables)
    if tables is False:
        return None
    assert isinstance(tables, ClassTables)
    return prem, tables


class FastResult(NamedTuple):
    """A ``FastVerdict`` with what a Verify response shows besides: ``summary()`` is
    ``VerifyResult.summary()`` of the same item (``verify_fast_many``)."""

    verdict: FastVerdict
    profile: Profile
    labels_by_profile: dict[str, int | None]
    reason: str
    variables: tuple[str, ...]
    #: the hypothesis's surface form and pair, the class CPDAG's edges by name
    form: SurfaceForm
    pair: tuple[str, str]
    cpdag: tuple[list[list[str]], list[list[str]]]

    def certificate(self) -> dict[str, object]:
        """The certificate's summary as ``Certificate.to_json(variables)`` gives it (no
        members, witnesses or conflict: ``Verify`` leaves them out of a summary)."""
        v = self.verdict
        return {"verdict": v.relation, "profile": self.profile.value,
                "relation": v.kind.value, "form": self.form.value, "pair": list(self.pair),
                "class_size": v.class_size, "cpdag_directed": self.cpdag[0],
                "cpdag_undirected": self.cpdag[1]}

    def summary(self) -> dict[str, object]:
        v = self.verdict
        return {"label": v.label, "relation": v.relation, "class_size": v.class_size,
                "holds_in": v.holds_in, "ambiguous": v.ambiguous,
                "labels_by_profile": self.labels_by_profile, "profile": self.profile.value,
                "certificate_checked": True, "reason": self.reason}


def verify_fast_many(service: Host, premise: str, hypotheses: Sequence[str],
                     profile: Profile = Profile.CORR2CAUSE) -> list[FastResult | None]:
    """``label_fast_many`` with each label's Verify summary (None where ``verify`` must
    decide, as there): the labels under every member profile from the same solver
    table, and the reason's witness found in the one member the reason shows (the
    first member for entailment, the first where the relation holds for neutral: the
    members ``oracle.labels.label``'s certificate lists first)."""
    verdicts, found = _labels(service, premise, hypotheses, profile)
    out: list[FastResult | None] = [None] * len(hypotheses)
    if found is None:
        return out
    prem, tables, looked = found
    solver, edges = tables.solver, tables.edges
    size, variables, members = solver.size, prem.variables, solver.members
    counts_at = solver.counts_at
    texts: dict[int, str] = {}  # member → dag_text, for this call

    def text(m: int) -> str:
        found = texts.get(m)
        if found is None:
            found = texts[m] = dag_text(prem, edges[m])
        return found

    with service.scope():  # the members' child masks are remembered there
        for i, verdict in enumerate(verdicts):
            if verdict is None:
                continue
            plan, p, q = looked[i]  # type: ignore[misc]
            by_profile: dict[str, int | None] = {
                name: int(counts_at(o)[p][q] == size)
                for name, o in zip(_MEMBER_NAMES, plan.by_profile, strict=True)}
            relation = verdict.relation
            if relation == Outcome.CONTRADICTION:
                witnessed, shown = None, (text(0),)
            elif relation == Outcome.ENTAILMENT:
                witnessed = witness_reading(members[0], READINGS[plan.reading], p, q)
                shown = (text(0),)
            else:
                column = solver.column(READINGS[plan.reading], p, q)
                yes = column.index(True)
                witnessed = witness_reading(members[yes], READINGS[plan.reading], p, q)
                shown = (text(yes), text(column.index(False)))
            out[i] = FastResult(verdict, profile, by_profile,
                                reason_line(prem, relation, size, verdict.holds_in, witnessed,
                                            shown),
                                variables, plan.form, (plan.first, plan.second), tables.cpdag)
    return out


def plan_of(service: Host, text: str, profile: Profile) -> Plan | None:
    """What a hypothesis asks of the tables under ``profile`` (None: unreadable), from
    the plans kept by text when there is one."""
    plan = service.caches.plans.get(text, _NO_PLAN)
    if plan is _NO_PLAN or plan.profile is not profile:  # type: ignore[union-attr]
        return _plan(service, text, profile)
    return plan  # type: ignore[return-value]


def _plan(service: Host, text: str, profile: Profile) -> Plan | None:
    """What a hypothesis asks of the tables under ``profile`` (None: unreadable;
    kept by text, for the last profile asked)."""
    plans = service.caches.plans
    try:
        hyp = service.hypothesis_of(text.strip())
    except OracleError:
        plan = None
    else:
        kind, form = hyp.kind, hyp.form
        plan = Plan(hyp.first, hyp.second, kind, ORDINAL[reading(kind, form, profile)],
                     tuple(sorted(ORDINAL[r] for r in _readings(kind, form))),
                     relation_name(kind.value, form.value, profile.value), profile, form,
                     tuple(ORDINAL[reading(kind, form, m)] for m in _MEMBER_PROFILES))
    if len(plans) >= service.caches.size:
        plans.clear()
    if plan is not None:  # unreadable texts are asked again (``hypothesis_of`` caches)
        plans[text] = plan
    return plan

def _tables(service: Host, premise: Premise) -> ClassTables | bool:
    """Both tables of a consistent, listed, small enough class; False otherwise."""
    with service.scope():
        analysis = analyse(premise)
        if not analysis.listed:
            return False
        solver = table_of(analysis)
        if not solver.dense:
            return False
        checker = ClassCheck.verify(premise, analysis.member_edges)
    if isinstance(checker, str) or checker.size != solver.size:
        return False  # the full path re-checks and reports it
    names = premise.variables
    return ClassTables(solver, checker, {name: i for i, name in enumerate(names)},
                       analysis.member_edges,
                       ([[names[a], names[b]] for a, b in analysis.cpdag_directed],
                        [[names[a], names[b]] for a, b in analysis.cpdag_undirected]))


__all__ = ["TABLES_KEPT", "ClassTables", "FastResult", "FastVerdict", "Plan", "class_tables",
           "label_fast_many", "plan_of", "verify_fast_many"]
