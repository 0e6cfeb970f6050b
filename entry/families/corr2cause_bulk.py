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
from causal_oracle.oracle.errors import OracleError
from causal_oracle.oracle.outcome import Outcome
from causal_oracle.oracle.relation_table import ORDINAL, RelationTable, table_of
from causal_oracle.oracle.relations import Profile, Reading, reading
from causal_oracle.oracle.statements import Hypothesis, Premise, RelationKind, SurfaceForm

TABLES_KEPT = 64
#: the profiles whose binary labels decide ``ambiguous`` (``labels.label``)
_MEMBER_PROFILES = tuple(p for p in Profile if p is not Profile.COMPELLED)


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
    none: list[FastVerdict | None] = [None] * len(hypotheses)
    if profile is Profile.COMPELLED or not hypotheses:
        return none
    try:
        prem = service.premise_of(premise.strip())
    except OracleError:
        return none
    tables = service.caches.tables.get(prem)
    if tables is None and len(hypotheses) == 1:  # a lone first item: no table yet
        service.caches.tables.put(prem, True)
        return none
    if tables is None or tables is True:
        try:
            tables = _tables(service, prem)
        except OracleError:
            tables = False
        service.caches.tables.put(prem, tables)
    if tables is False:
        return none
    assert isinstance(tables, ClassTables)
    index = tables.index
    solver, checker = tables.solver, tables.checker
    size = solver.size
    out = none
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
    return out

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
                     relation_name(kind.value, form.value, profile.value), profile)
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
    return ClassTables(solver, checker,
                       {name: i for i, name in enumerate(premise.variables)})


__all__ = ["TABLES_KEPT", "ClassTables", "FastVerdict", "label_fast_many"]
