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

Both are one pass over the items (``_labels``) reading the tables as plain lists kept
with them (``Lookups``); the labels under the three member profiles index a table of
the eight possible answers (``_LABELS``), and a reason is made once per reading and
pair of a premise (every contradicted item of a premise has the same one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from functools import cache
from typing import Any, NamedTuple, Protocol

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
assert len(_MEMBER_NAMES) == 3  # ``_labels`` reads the three readings of a plan by name
#: the member profiles' labels and whether they differ (``ambiguous``), by the labels
#: as the bits of a number (the first profile's the highest)
_LABELS = tuple((tuple(zip(_MEMBER_NAMES, (code >> 2 & 1, code >> 1 & 1, code & 1),
                           strict=True)), 0 < code < 7) for code in range(8))
_OUTCOMES = (Outcome.ENTAILMENT, Outcome.NEUTRAL, Outcome.CONTRADICTION)
#: a verdict or result from its fields' tuple (a NamedTuple's ``__new__``, minus its frame)
_new = tuple.__new__


@cache
def _readings(kind: RelationKind, form: SurfaceForm) -> frozenset[Reading]:
    """The distinct readings of a hypothesis over the member profiles."""
    return frozenset(reading(kind, form, profile) for profile in _MEMBER_PROFILES)


class _Lazy(dict[Any, Any]):
    """A dict filled on first use of a key by ``fill(key)`` (a hit is a plain dict read)."""

    def __init__(self, fill: Callable[[Any], Any]) -> None:
        super().__init__()
        self.fill = fill

    def __missing__(self, key: Any) -> Any:
        value = self[key] = self.fill(key)
        return value


class Lookups:
    """What a premise's items read, as plain lists and strings, each made on first use
    and kept with the premise's tables: the solver's counts and truth arrays by reading
    ordinal (``RelationTable.counts_at``, ``truth``), the checker's by relation name
    (``ClassCheck.counts``), the members as ``dag_text`` writes them, and the reason of
    each (reading ordinal, pair) found (``(o·n + p)·n + q``: the same for every
    hypothesis with that reading of that pair)."""

    __slots__ = ("_edges", "checks", "counts", "none", "reasons", "texts", "truths")

    def __init__(self, solver: RelationTable, checker: ClassCheck,
                 edges: tuple[tuple[tuple[int, int], ...], ...]) -> None:
        self.counts: dict[int, list[list[int]]] = _Lazy(solver.counts_at)
        self.checks: dict[str, list[list[int]]] = _Lazy(checker.counts)
        self.truths: dict[int, Any] = _Lazy(lambda o: solver.truth(READINGS[o]))
        self.texts: dict[int, str] = {}
        self.reasons: dict[int, str] = {}
        self.none = ""  # the reason of every contradicted item
        self._edges = edges

    def text(self, premise: Premise, member: int) -> str:
        """Member ``member`` as ``dag_text`` writes it."""
        found = self.texts.get(member)
        if found is None:
            found = self.texts[member] = dag_text(premise, self._edges[member])
        return found


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
    #: the tables read as the bulk look-ups read them
    lookups: Lookups = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lookups", Lookups(self.solver, self.checker, self.edges))


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
    #: (first, second)
    pair: tuple[str, str]


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
    return _labels(service, premise, hypotheses, profile)


def _labels(service: Host, premise: str, hypotheses: Sequence[str], profile: Profile,
            full: bool = False) -> list[Any]:
    """``label_fast_many``'s verdicts, or (``full``) ``verify_fast_many``'s results: one
    pass over the items, each a look-up in the premise's tables read as plain lists
    (``Lookups``)."""
    out: list[Any] = [None] * len(hypotheses)
    found = class_tables(service, premise, len(hypotheses), profile)
    if found is None:
        return out
    prem, tables = found
    index, look, cpdag = tables.index, tables.lookups, tables.cpdag
    size, n, variables = tables.solver.size, prem.n, prem.variables
    counts, checks, reasons = look.counts, look.checks, look.reasons
    plans = service.caches.plans
    entailment, neutral, contradiction = _OUTCOMES
    with service.scope() if full else nullcontext():  # witnesses remember child masks
        for i, text in enumerate(hypotheses):
            plan = plans.get(text, _NO_PLAN)
            if plan is _NO_PLAN or plan.profile is not profile:  # type: ignore[union-attr]
                plan = _plan(service, text, profile)
                if plan is None:
                    continue
            a, b, kind, o, _, checker, _, form, (first, second, third), pair = plan
            p, q = index.get(a), index.get(b)
            if p is None or q is None or p == q:
                continue
            holds_in = counts[o][p][q]
            if checks[checker][p][q] != holds_in:
                continue
            labels, ambiguous = _LABELS[(counts[first][p][q] == size) << 2
                                        | (counts[second][p][q] == size) << 1
                                        | (counts[third][p][q] == size)]
            relation = entailment if holds_in == size else neutral if holds_in else contradiction
            verdict = _new(FastVerdict, (relation, int(relation is entailment), holds_in, size,
                                         ambiguous, kind, n))
            if not full:
                out[i] = verdict
                continue
            if relation is contradiction:  # the same reason for every one of a premise
                reason = look.none or _reason(prem, tables, relation, o, p, q, holds_in)
            else:
                key = (o * n + p) * n + q
                reason = reasons.get(key)
                if reason is None:
                    reason = reasons[key] = _reason(prem, tables, relation, o, p, q, holds_in)
            out[i] = _new(FastResult, (verdict, profile, labels, reason, variables, form, pair,
                                       cpdag))
    return out


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
    #: (profile name, label) of every member profile, in ``Profile`` order
    labels: tuple[tuple[str, int | None], ...]
    reason: str
    variables: tuple[str, ...]
    #: the hypothesis's surface form and pair, the class CPDAG's edges by name
    form: SurfaceForm
    pair: tuple[str, str]
    cpdag: tuple[list[list[str]], list[list[str]]]

    @property
    def labels_by_profile(self) -> dict[str, int | None]:
        """The label under every member profile, by the profile's name."""
        return dict(self.labels)

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
                "labels_by_profile": dict(self.labels), "profile": self.profile.value,
                "certificate_checked": True, "reason": self.reason}


def verify_fast_many(service: Host, premise: str, hypotheses: Sequence[str],
                     profile: Profile = Profile.CORR2CAUSE) -> list[FastResult | None]:
    """``label_fast_many`` with each label's Verify summary (None where ``verify`` must
    decide, as there): the labels under every member profile from the same solver
    table, and the reason's witness found in the one member the reason shows (the
    first member for entailment, the first where the relation holds for neutral: the
    members ``oracle.labels.label``'s certificate lists first)."""
    return _labels(service, premise, hypotheses, profile, full=True)


def _reason(prem: Premise, tables: ClassTables, relation: Outcome, o: int, p: int, q: int,
            holds_in: int) -> str:
    """The one-line reason of an item whose reading ``o`` holds for (p, q) in
    ``holds_in`` members (``oracle.explain.reason_line``)."""
    solver, look = tables.solver, tables.lookups
    if relation is _OUTCOMES[2]:  # the same for every contradicted item
        if not look.none:
            look.none = reason_line(prem, relation, solver.size, holds_in, None,
                                    (look.text(prem, 0),))
        return look.none
    r = READINGS[o]
    if relation is _OUTCOMES[0]:
        member, shown = 0, (look.text(prem, 0),)
    else:  # ``solver.column(r, p, q)``: the table is dense and p ≠ q
        column = look.truths[o][:, p, q].tolist()
        member = column.index(True)
        shown = (look.text(prem, member), look.text(prem, column.index(False)))
    witnessed = witness_reading(solver.members[member], r, p, q)
    return reason_line(prem, relation, solver.size, holds_in, witnessed, shown)


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
                     tuple(ORDINAL[reading(kind, form, m)] for m in _MEMBER_PROFILES),
                     (hyp.first, hyp.second))
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
