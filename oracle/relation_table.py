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
* ``DISJOINT_EFFECT[p, q]``: a C reached from P avoiding Q and from Q avoiding P.
  When Q is no ancestor of P, that is a U ∈ {P} ∪ D(P) outside {Q} ∪ D(Q) with a
  child in D(Q) (the node before the first one of D(Q) on the path from P); when Q is
  an ancestor of P, the same with P and Q swapped — one AND of bit-mask rows per
  pair, no closure per avoided node (``_disjoint_effect``).  ``DISJOINT_CAUSE`` is
  the same on the reversed graph (``Aᵀ``, ``Dᵀ``).

All nine arrays are built at once, stacked as ``(M, 9, n, n)``, and counted with one
sum over the members.

These are the same properties that ``relations.holds_reading`` decides for one DAG
and one pair; the tests compare the two on every pair, reading and member of
random classes.  Above ``DENSE_LIMIT`` (``M·n⁴``) the two ``DISJOINT`` readings are
evaluated per member by ``holds_reading`` instead.

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
    count = np.count_nonzero(reach)
    while True:  # squaring only adds: the same count is the same relation
        reach |= np.matmul(reach, reach)
        grown = np.count_nonzero(reach)
        if grown == count:
            return reach
        count = grown


def _disjoint_effect(a: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``DISJOINT_EFFECT`` of every member and pair from the adjacency ``a`` and the
    descendants ``d`` (the closure of ``a``), without a closure per avoided node.

    When Q is no ancestor of P, a path from Q never meets P, so the reading asks for a
    C ∈ D(Q) reached from P avoiding Q.  The first node of such a path that lies in
    D(Q) has a predecessor U in {P} ∪ D(P) outside {Q} ∪ D(Q) with a child in D(Q);
    conversely any such U is reached from P without passing Q (else U ∈ D(Q) ∪ {Q}),
    and its child in D(Q) is a C.  So the reading is ``∃U: U ∈ {P} ∪ D(P), U ∉ {Q} ∪
    D(Q), U has a child in D(Q)``; when Q is an ancestor of P the same holds with P
    and Q swapped (the reading is symmetric, and P is then no ancestor of Q)."""
    n = a.shape[-1]
    # rows as bit masks (bit u of row[m, x]; n ≤ 64): the "∃U" is one AND per pair
    weights = (1 << np.arange(n, dtype=np.uint64)).astype(np.min_scalar_type((1 << n) - 1))
    reflexive = np.matmul(d | np.eye(n, dtype=bool), weights)
    # feeds[m, q]: the nodes with a child in D(q)
    feeds = np.matmul(np.matmul(d, a.transpose(0, 2, 1)), weights)
    found = (reflexive[:, :, None] & ~reflexive[:, None, :] & feeds[:, None, :]) != 0
    # found[m, p, q] is the reading wherever q is no ancestor of p
    return np.where(d.transpose(0, 2, 1), found.transpose(0, 2, 1), found)


class RelationTable:
    """Every reading's truth in every member of one class, for every ordered pair.

    ``members`` are DAGs on the same ``n`` variables.  Each reading's array is built
    on first use; ``count`` and ``column`` read it.
    """

    def __init__(self, n: int, members: Sequence[Dag]) -> None:
        self.n = n
        self.members = tuple(members)
        self.size = len(self.members)
        # A[m, t, h]: bit t of parents[m][h]
        if n <= 8:  # one byte per mask: unpacked along a new axis
            masks = np.array([d.parents for d in self.members], dtype=np.uint8)
            self._a = np.unpackbits(masks.reshape(self.size, 1, n), axis=1, count=n,
                                    bitorder="little").astype(bool)
        else:
            parents = np.array([d.parents for d in self.members], dtype=np.int64).reshape(
                self.size, n)
            shifts = np.arange(n, dtype=np.int64)
            self._a = ((parents[:, None, :] >> shifts[None, :, None]) & 1).astype(bool)
        self._d: np.ndarray | None = None
        self._all: np.ndarray | None = None
        self._truth: dict[Reading, np.ndarray] = {}
        self._counts: list[list[list[int]] | None] = [None] * len(READINGS)

    @property
    def dense(self) -> bool:
        """Whether the DISJOINT readings are built as arrays (small enough classes)."""
        return self.size * self.n ** 4 <= DENSE_LIMIT and self.n <= 64

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
        if r is Reading.EDGE:
            return self._a
        if self.dense or r not in (Reading.DISJOINT_EFFECT, Reading.DISJOINT_CAUSE):
            return self._stack()[:, ORDINAL[r]]
        return self._by_member(r)

    def _stack(self) -> np.ndarray:
        """Every reading's array at once, as ``(M, 9, n, n)`` in ``READINGS`` order: a
        handful of array operations for the nine, and one sum for all their counts."""
        if self._all is not None:
            return self._all
        a, d = self._a, self._descendants()
        size, n = self.size, self.n
        at, dt = a.transpose(0, 2, 1), d.transpose(0, 2, 1)
        out = np.empty((size, len(READINGS), n, n), dtype=bool)
        out[:, 0] = a
        np.matmul(a, d, out=out[:, 1])
        np.logical_and(d, ~a, out=out[:, 2])
        np.matmul(a, at, out=out[:, 3])
        np.matmul(at, a, out=out[:, 4])
        np.matmul(d, dt, out=out[:, 5])
        np.matmul(dt, d, out=out[:, 6])
        if self.dense:
            # DISJOINT_EFFECT on the graph, DISJOINT_CAUSE on the reversed one, at once
            both = _disjoint_effect(np.concatenate((a, at)), np.concatenate((d, dt)))
            out[:, 7], out[:, 8] = both[:size], both[size:]
        else:
            out[:, 7:] = False  # not used: ``_build`` evaluates them per member
        nodes = np.arange(n)
        out[:, 3:, nodes, nodes] = False
        self._all = out
        return out

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
            if self.dense:  # all nine from the one stacked array, summed as bytes
                total = np.uint16 if self.size < 1 << 16 else np.int64
                self._counts = self._stack().view(np.uint8).sum(axis=0, dtype=total).tolist()
                return self._counts[ordinal]  # type: ignore[return-value]
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
