"""The relation table of a listed equivalence class: every reading, member and pair.

For a class with members ``G_1 … G_M`` on ``n`` variables and a ``Reading`` r
(``oracle.relations``), the table is the boolean array ``T_r[m, p, q]`` = "r holds
for the ordered pair (p, q) in G_m".  Once the table exists, labelling an item is a
look-up: with ``k = Σ_m T_r[m, p, q]`` the hypothesis is entailed (``k = M``),
contradicted (``k = 0``) or neutral, and ``k`` is its ``holds_in``.  An audit asks
90 questions of every n = 6 premise, so the table is built once per premise and
the items cost nothing more.

The table is computed with array operations on the members' adjacency matrices
``A[m, t, h]`` (``t → h``):

* the strict descendant relation ``D`` is the transitive closure of ``A``
  (repeated boolean squaring);
* ``EDGE = A``; ``MEDIATED = A·D``; ``ANCESTOR_NOT_PARENT = D ∧ ¬A``;
* ``COMMON_CHILD = A·Aᵀ``, ``COMMON_PARENT = Aᵀ·A``, ``COMMON_DESCENDANT = D·Dᵀ``,
  ``COMMON_ANCESTOR = Dᵀ·D`` (boolean products; the diagonal is cleared);
* ``DISJOINT_EFFECT[p, q] = ∃c: D⁻q[p, c] ∧ D⁻p[q, c]`` where ``D⁻v`` is the closure
  of the graph without node v (a path from P avoiding Q and one from Q avoiding P,
  cut at their first common node, share only it); ``DISJOINT_CAUSE`` likewise on
  the reversed paths.

These are the same properties that ``relations.holds_reading`` decides for one DAG
and one pair; the tests compare the two on every pair, reading and member of
random classes.  The four-index array behind the two ``DISJOINT`` readings has
``M·n³`` entries, so above ``DENSE_LIMIT`` those readings are evaluated per member
by ``holds_reading`` instead.

>>> from causal_oracle.oracle.graph import Dag
>>> chain = Dag.from_edges(3, [(0, 1), (1, 2)])
>>> fork = Dag.from_edges(3, [(1, 0), (1, 2)])
>>> t = RelationTable(3, (chain, fork))
>>> t.count(Reading.EDGE, 0, 1), t.count(Reading.MEDIATED, 0, 2), t.column(Reading.EDGE, 1, 0)
(1, 1, [False, True])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from causal_oracle.oracle.equivalence import ClassAnalysis
from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.memo import keep, recall
from causal_oracle.oracle.relations import (
    Profile,
    Reading,
    holds_reading,
    reading,
)
from causal_oracle.oracle.statements import RelationKind, SurfaceForm

#: the largest ``members × n⁴`` for which the DISJOINT readings are built as arrays
DENSE_LIMIT = 20_000_000
#: every reading by position (``RelationTable.counts_at`` takes the position)
READINGS = tuple(Reading)
ORDINAL = {r: i for i, r in enumerate(READINGS)}


def _closure(adjacency: np.ndarray) -> np.ndarray:
    """Strict reachability (paths of length ≥ 1) along the last two axes."""
    reach = adjacency.copy()
    while True:
        grown = reach | np.matmul(reach, reach)
        if np.array_equal(grown, reach):
            return reach
        reach = grown


def _clear_diagonal(table: np.ndarray) -> np.ndarray:
    n = table.shape[-1]
    table[..., np.arange(n), np.arange(n)] = False
    return table


class RelationTable:
    """Every reading's truth in every member of one class, for every ordered pair.

    ``members`` are DAGs on the same ``n`` variables.  Each reading's array is built
    on first use; ``count`` and ``column`` read it.
    """

    def __init__(self, n: int, members: Sequence[Dag]) -> None:
        self.n = n
        self.members = tuple(members)
        self.size = len(self.members)
        parents = np.array([d.parents for d in self.members], dtype=np.int64).reshape(
            self.size, n)
        shifts = np.arange(n, dtype=np.int64)
        # A[m, t, h]: bit t of parents[m][h]
        self._a = ((parents[:, None, :] >> shifts[None, :, None]) & 1).astype(bool)
        self._d: np.ndarray | None = None
        self._truth: dict[Reading, np.ndarray] = {}
        self._counts: list[list[list[int]] | None] = [None] * len(READINGS)

    @property
    def dense(self) -> bool:
        """Whether the DISJOINT readings are built as arrays (small enough classes)."""
        return self.size * self.n ** 4 <= DENSE_LIMIT

    def _descendants(self) -> np.ndarray:
        if self._d is None:
            self._d = _closure(self._a)
        return self._d

    def truth(self, r: Reading) -> np.ndarray:
        """``T_r`` as an ``(M, n, n)`` boolean array (see the module docstring)."""
        table = self._truth.get(r)
        if table is None:
            table = self._build(r)
            self._truth[r] = table
        return table

    def _build(self, r: Reading) -> np.ndarray:
        a = self._a
        if r is Reading.EDGE:
            return a
        d = self._descendants()
        at, dt = a.transpose(0, 2, 1), d.transpose(0, 2, 1)
        if r is Reading.MEDIATED:
            return np.matmul(a, d)
        if r is Reading.ANCESTOR_NOT_PARENT:
            return d & ~a
        if r is Reading.COMMON_CHILD:
            return _clear_diagonal(np.matmul(a, at))
        if r is Reading.COMMON_PARENT:
            return _clear_diagonal(np.matmul(at, a))
        if r is Reading.COMMON_DESCENDANT:
            return _clear_diagonal(np.matmul(d, dt))
        if r is Reading.COMMON_ANCESTOR:
            return _clear_diagonal(np.matmul(dt, d))
        if not self.dense:
            return self._by_member(r)
        n = self.n
        # without[m, v] = the graph of member m with node v's edges removed
        without = np.repeat(a[:, None], n, axis=1)
        nodes = np.arange(n)
        without[:, nodes, nodes, :] = False
        without[:, nodes, :, nodes] = False
        e = _closure(without)  # e[m, v, x, y]: x ⇝ y avoiding v
        # both DISJOINT readings from the one closure (the costly part; not kept), each
        # "∃c" an AND of the c-axis packed into bytes
        # DISJOINT_EFFECT: ∃c: e[m, q, p, c] ∧ e[m, p, q, c]
        ahead = np.packbits(e, axis=3)  # [m, v, x, byte of y]
        effect = (ahead.transpose(0, 2, 1, 3) & ahead).any(axis=3)
        # DISJOINT_CAUSE: ∃c: e[m, q, c, p] ∧ e[m, p, c, q]
        behind = np.packbits(e, axis=2)  # [m, v, byte of x, y]
        cause = (behind.transpose(0, 3, 1, 2) & behind.transpose(0, 1, 3, 2)).any(axis=3)
        if r is Reading.DISJOINT_EFFECT:
            self._truth.setdefault(Reading.DISJOINT_CAUSE, cause)
            return effect
        self._truth.setdefault(Reading.DISJOINT_EFFECT, effect)
        return cause

    def _by_member(self, r: Reading) -> np.ndarray:
        n = self.n
        out = np.zeros((self.size, n, n), dtype=bool)
        for m, dag in enumerate(self.members):
            for p in range(n):
                for q in range(n):
                    if p != q:
                        out[m, p, q] = holds_reading(dag, r, p, q)
        return out

    def counts(self, r: Reading) -> list[list[int]]:
        """``counts(r)[p][q]``: in how many members ``r`` holds for (p, q)."""
        return self.counts_at(ORDINAL[r])

    def counts_at(self, ordinal: int) -> list[list[int]]:
        """``counts(READINGS[ordinal])`` (the bulk look-up's form: no enum hashing)."""
        found = self._counts[ordinal]
        if found is None:
            found = self.truth(READINGS[ordinal]).sum(axis=0).tolist()
            self._counts[ordinal] = found
        return found

    def count(self, r: Reading, p: int, q: int) -> int:
        """In how many members ``r`` holds for (p, q)."""
        if p == q:  # the arrays leave the diagonal empty; the definition decides
            return sum(self.column(r, p, q))
        return self.counts(r)[p][q]

    def column(self, r: Reading, p: int, q: int) -> list[bool]:
        """Per member, whether ``r`` holds for (p, q)."""
        if p == q or (r in (Reading.DISJOINT_EFFECT, Reading.DISJOINT_CAUSE)
                      and not self.dense and r not in self._truth):
            return [holds_reading(dag, r, p, q) for dag in self.members]
        return self.truth(r)[:, p, q].tolist()


_KEPT = 64
_TABLES = "causal_oracle.oracle.relation_table.tables"


def table_of(analysis: ClassAnalysis) -> RelationTable:
    """The relation table of a listed class, kept for the most recent premises (labels,
    the causes of a finding and bulk look-ups all read the same one)."""
    key = analysis.premise
    table = recall(_TABLES, key)
    if table is None:
        table = RelationTable(analysis.premise.n, analysis.members)
        keep(_TABLES, key, table, _KEPT)
    return table  # type: ignore[no-any-return]


def holds_in_members(dags: Sequence[Dag], kind: RelationKind, form: SurfaceForm, p: int,
                     q: int, profile: Profile = Profile.CORR2CAUSE) -> list[bool]:
    """``[holds(d, kind, form, p, q, profile) for d in dags]`` (one class's column)."""
    if not dags:
        return []
    return RelationTable(dags[0].n, dags).column(reading(kind, form, profile), p, q)
