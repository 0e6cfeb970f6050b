"""A premise's rows as columns: labels, gold and outcome of the whole group at once.

An audit reads a dataset in runs of consecutive rows that share a premise (the
upstream Corr2Cause files list a premise's items together).  Such a group is one
premise and columns — hypotheses, gold labels, gold relations — and this module
answers it with array operations where ``label_fast_many`` makes a Python object per
row:

* the hypotheses' ``GroupPlan`` — per row the ordinal of the reading its relation has
  under the profile, its pair, the checker's name of the relation, the readings of
  every member profile (for ``ambiguous``) and its relation kind — is made once per
  list of hypothesis texts and kept (a dataset asks the same list of every premise
  on the same variables);
* the solver's relation table and the checker's own (``corr2cause_bulk.class_tables``:
  the tables ``label_fast_many`` reads) give every row's ``holds_in`` by indexing, and
  a row is answered only where the checker's count is the solver's;
* ``GroupLabels.outcomes`` codes gold and 3-class gold as integers and decides every
  row at once: it agrees (gold is the label, and the gold relation, when there is
  one, the derived one), it agrees but the profiles read it differently
  (``ambiguous``), or it is left to the full path.

``GroupLabels.verdict(j)`` is row ``j``'s ``FastVerdict`` — the very verdict
``label_fast_many`` gives it (the tests compare them) — made only for a row a record
is built for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import numpy as np

from causal_oracle.entry.families.corr2cause_bulk import (
    ClassTables,
    FastVerdict,
    Host,
    class_tables,
    plan_of,
)
from causal_oracle.entry.gold import binary_gold
from causal_oracle.oracle.outcome import Outcome
from causal_oracle.oracle.relations import Profile
from causal_oracle.oracle.statements import RelationKind

#: the 3-class relations by code (``GroupLabels.relation``)
_RELATIONS = (Outcome.ENTAILMENT, Outcome.NEUTRAL, Outcome.CONTRADICTION)
_RELATION_CODE = {r.value: i for i, r in enumerate(_RELATIONS)}
#: group plans kept per service (a dataset has few distinct lists of hypotheses)
PLANS_KEPT = 256

Key = tuple[tuple[str, ...], tuple[str, ...], Profile]


class GroupPlan(NamedTuple):
    """A list of hypothesis texts as table look-ups on given variables (module
    docstring); rows with no plan (unreadable, unknown or equal variables) have
    ``valid`` False and look up pair (0, 0), which is never used."""

    valid: np.ndarray  # bool, per row
    reading: np.ndarray  # per row: index into ``used`` of its reading under the profile
    alternatives: np.ndarray  # (readings, rows): its member profiles' readings, padded
    p: np.ndarray
    q: np.ndarray
    checker: np.ndarray  # per row: index into ``names``
    names: tuple[str, ...]  # the checker's relation names
    used: tuple[int, ...]  # the reading ordinals looked up
    kinds: tuple[RelationKind | None, ...]  # per row
    kind_code: np.ndarray  # per row: index into ``kind_list``
    kind_list: tuple[RelationKind, ...]


class _Caches(Protocol):
    groups: dict[Key, GroupPlan]


class ColumnHost(Host, Protocol):
    """``corr2cause_bulk.Host`` whose caches also keep group plans."""

    @property
    def caches(self) -> Any: ...


@dataclass(frozen=True, slots=True)
class Outcomes:
    """Every row's outcome: ``agree`` rows (counted), ``ambiguous`` ones (recorded);
    any other row takes the full path.  ``with_relation`` marks rows with a 3-class
    gold relation."""

    agree: np.ndarray
    ambiguous: np.ndarray
    with_relation: np.ndarray


@dataclass(frozen=True, slots=True)
class GroupLabels:
    """Every row's table label (``answered`` where the tables give one)."""

    plan: GroupPlan
    n: int
    size: int
    answered: np.ndarray
    holds: np.ndarray
    entailed: np.ndarray
    relation: np.ndarray  # codes into ``_RELATIONS``
    ambiguous: np.ndarray

    def verdict(self, j: int) -> FastVerdict:
        """Row ``j``'s verdict, as ``label_fast_many`` gives it (an answered row)."""
        kind = self.plan.kinds[j]
        assert kind is not None and self.answered[j]
        return FastVerdict(_RELATIONS[int(self.relation[j])], int(self.entailed[j]),
                           int(self.holds[j]), self.size, bool(self.ambiguous[j]), kind,
                           self.n)

    def outcomes(self, golds: Sequence[Any], relations: Sequence[Any]) -> Outcomes:
        """The rows' outcomes against their gold labels (read as ``binary_gold``
        reads them) and gold relations (a 3-class one, or anything else: none)."""
        gold = np.fromiter((_gold_code(g) for g in golds), dtype=np.int8, count=len(golds))
        code = np.fromiter((_RELATION_CODE.get(r, -1) if type(r) is str else -1
                            for r in relations), dtype=np.int8, count=len(relations))
        with_relation = code >= 0
        right = self.answered & (gold == self.entailed) & (~with_relation |
                                                          (code == self.relation))
        return Outcomes(right & ~self.ambiguous, right & self.ambiguous, with_relation)

    def kind_counts(self, rows: np.ndarray) -> dict[str, int]:
        """How many of ``rows`` (a mask) have each relation kind, by its value."""
        counts = np.bincount(self.plan.kind_code[rows], minlength=len(self.plan.kind_list))
        return {kind._value_: int(c) for kind, c in zip(self.plan.kind_list, counts,
                                                         strict=True) if c}


def _gold_code(value: object) -> int:
    gold = binary_gold(value)
    return -1 if gold is None else gold


def label_columns(service: ColumnHost, premise: str, hypotheses: Sequence[str],
                  profile: Profile) -> GroupLabels | None:
    """Every row's label read off the premise's tables, the checker's count confirming
    the solver's (None: no row has one; ``label_fast_many`` says when)."""
    found = class_tables(service, premise, len(hypotheses), profile)
    if found is None:
        return None
    prem, tables = found
    plan = _group_plan(service, tuple(hypotheses), prem.variables, tables, profile)
    if plan is None:
        return None
    solver, checker = tables.solver, tables.checker
    size = solver.size
    counts = np.array([solver.counts_at(o) for o in plan.used])
    checks = np.array([checker.counts(name) for name in plan.names])
    p, q = plan.p, plan.q
    holds = counts[plan.reading, p, q]
    answered = plan.valid & (checks[plan.checker, p, q] == holds)
    entailed = holds == size
    relation = np.where(entailed, 0, np.where(holds > 0, 1, 2))
    readings = counts[plan.alternatives, p, q] == size  # entailed under each reading
    ambiguous = (readings != readings[0]).any(axis=0)
    return GroupLabels(plan, prem.n, size, answered, holds, entailed, relation, ambiguous)


def _group_plan(service: ColumnHost, texts: tuple[str, ...], variables: tuple[str, ...],
                tables: ClassTables, profile: Profile) -> GroupPlan | None:
    """The group plan of ``texts`` on ``variables`` (kept; None: no row has a plan)."""
    groups: dict[Key, GroupPlan] = service.caches.groups
    key = (texts, variables, profile)
    found = groups.get(key)
    if found is not None:
        return found
    index = tables.index
    rows = []
    for text in texts:
        plan = plan_of(service, text, profile)
        p = q = None
        if plan is not None:
            p, q = index.get(plan.first), index.get(plan.second)
        rows.append(None if plan is None or p is None or q is None or p == q
                    else (plan, p, q))
    if not any(rows):
        return None
    used: dict[int, int] = {}
    names: dict[str, int] = {}
    kinds: dict[RelationKind, int] = {}
    depth = max(len(r[0].readings) for r in rows if r is not None)
    reading, alternatives, pq, checker, kind_code = [], [], [], [], []
    for row in rows:
        if row is None:
            reading.append(0)
            alternatives.append([0] * depth)
            pq.append((0, 0))
            checker.append(0)
            kind_code.append(0)
            continue
        plan, p, q = row
        reading.append(used.setdefault(plan.reading, len(used)))
        own = [used.setdefault(r, len(used)) for r in plan.readings]
        alternatives.append(own + [own[0]] * (depth - len(own)))
        pq.append((p, q))
        checker.append(names.setdefault(plan.checker, len(names)))
        kind_code.append(kinds.setdefault(plan.kind, len(kinds)))
    pairs = np.array(pq, dtype=np.intp).reshape(len(rows), 2)
    out = GroupPlan(np.array([r is not None for r in rows]), np.array(reading, dtype=np.intp),
                    np.array(alternatives, dtype=np.intp).T.copy(), pairs[:, 0].copy(),
                    pairs[:, 1].copy(), np.array(checker, dtype=np.intp), tuple(names),
                    tuple(used), tuple(None if r is None else r[0].kind for r in rows),
                    np.array(kind_code, dtype=np.intp), tuple(kinds))
    if len(groups) >= PLANS_KEPT:
        groups.clear()
    groups[key] = out
    return out


__all__ = ["PLANS_KEPT", "GroupLabels", "GroupPlan", "Outcomes", "label_columns"]
