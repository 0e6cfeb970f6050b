"""The checker's own relation table of a class: bulk labels re-derived independently.

An audit labels every item of a premise by looking it up in the solver's relation
table (``oracle.relation_table``).  This module is the checker's side of that
bargain.  Given the premise and the members the solver lists, ``ClassCheck``

1. confirms that the members are exactly the class: the first member's
   d-separations are the premise's independencies (``check._fits_premise``, the
   moralisation criterion) and the DAGs with its skeleton and v-structures
   (``check.class_from``, the checker's covered-edge reversals) are the listed
   members, no more and no fewer;
2. evaluates each relation in every member with its own definitions, written here
   from the relation's wording, on a transitive closure computed by Warshall's
   algorithm (not the solver's boolean squaring): a direct cause is an edge; an
   indirect cause a child of P from which Q is reached; "a cause but not a direct
   one" (read literally) an ancestor that is no parent; a collider/confounder a
   common child/parent (strict), a common descendant/ancestor (loose), or a node
   reached from P without passing Q and from Q without passing P (corr2cause: the
   graphs without each node closed by Warshall's algorithm on bit-mask rows, one
   integer of reached nodes per node, and a pair's two rows intersected; not the
   solver's argument about the first node of a path).

``ClassCheck.label`` then answers an item with the checker's verdict, which the
entry layer compares with the solver's.  Like the rest of the checker this
module reads relation kinds, forms and profiles as the strings certificates
carry, and imports nothing from the solvers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from causal_oracle.oracle.check_graphs import Edges, as_parents, class_from
from causal_oracle.oracle.statements import Premise

_STRICT_FORM = "is a cause for, but not a direct one"
_NOT_DIRECTLY_FORM = "influences through some mediator(s) but not directly"


def _warshall(adjacency: np.ndarray) -> np.ndarray:
    """Paths of length ≥ 1 along the last two axes (Warshall's algorithm)."""
    reach = adjacency.copy()
    n = reach.shape[-1]
    for k in range(n):
        reach |= reach[..., :, k:k + 1] & reach[..., k:k + 1, :]
    return reach


#: the most variables whose rows fit one unsigned integer each (the packed path)
PACKED_LIMIT = 64


def _row_type(n: int) -> np.dtype[np.unsignedinteger]:
    return np.dtype(np.min_scalar_type((1 << n) - 1))


def _warshall_rows(rows: np.ndarray, n: int) -> np.ndarray:
    """Warshall's algorithm on bit-mask rows (bit y of ``rows[..., x]``: x → y): row x
    takes in row k wherever it holds bit k."""
    rows = rows.copy()
    for k in range(n):
        holds = (rows >> k) & 1
        rows |= holds * rows[..., k:k + 1]
    return rows


def _unpack(rows: np.ndarray, n: int) -> np.ndarray:
    """Bit-mask rows (last axis x) as a boolean ``[..., x, y]`` array."""
    return ((rows[..., None] >> np.arange(n, dtype=rows.dtype)) & 1).astype(bool)


def _count(truth: np.ndarray) -> list[list[int]]:
    """In how many members each pair holds (``truth[m, p, q]``), summed as bytes."""
    total = np.uint16 if truth.shape[0] < 1 << 16 else np.int64
    return truth.view(np.uint8).sum(axis=0, dtype=total).tolist()  # type: ignore[no-any-return]


def _some(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``out[m, p, q] = ∃c: left[m, p, c] ∧ right[m, q, c]`` for c ∉ {p, q}."""
    out = (left[:, :, None, :] & right[:, None, :, :])
    n = out.shape[-1]
    nodes = np.arange(n)
    out[:, nodes, :, nodes] = False  # c = p
    out[:, :, nodes, nodes] = False  # c = q
    found = out.any(axis=3)
    found[:, nodes, nodes] = False
    return found


class ClassCheck:
    """The checker's verdicts for every item of one class (see the module docstring).

    Build with ``ClassCheck.verify(premise, members)``, which returns the reason
    the members are not the class instead of an object when they are not.
    """

    def __init__(self, n: int, members: Sequence[tuple[int, ...]]) -> None:
        """``members``: each DAG's parent masks (bit t of ``members[m][h]``: t → h)."""
        self.n = n
        self.size = len(members)
        # adjacency[m, t, h]: bit t of member m's parents of h
        if n <= 8:  # a byte per mask, its bits unpacked
            adjacency = np.unpackbits(np.array(members, dtype=np.uint8).reshape(self.size, 1, n),
                                      axis=1, count=n, bitorder="little").astype(bool)
        else:
            parents = np.array(members, dtype=np.int64).reshape(self.size, n)
            heads = np.arange(n, dtype=np.int64)
            adjacency = (parents[:, None, :] >> heads[None, :, None] & 1).astype(bool)
        self._edge = adjacency
        self._parents = members
        self._reached: np.ndarray | None = None
        self._rows: np.ndarray | None = None
        self._counts: dict[str, list[list[int]]] = {}

    @property
    def _reach(self) -> np.ndarray:
        """``reach[m, x, y]``: x ⇝ y in member m (the bit-mask rows' pass without a node
        cut, or Warshall's algorithm on the arrays above ``PACKED_LIMIT``)."""
        if self._reached is None:
            if self.n <= PACKED_LIMIT:
                self._reached = _unpack(self._closed_rows()[self.n, :self.size], self.n)
            else:
                self._reached = _warshall(self._edge)
        return self._reached

    @classmethod
    def verify(cls, premise: Premise, members: tuple[Edges, ...]) -> ClassCheck | str:
        if not members:
            return "no members"
        listed = premise.independence_keys()
        found, why = class_from(premise.n, tuple(sorted(members[0])), listed)
        if found is None:
            return why
        given = {as_parents(premise.n, m) for m in members}
        if len(given) != len(members) or given != found:
            return "the listed members are not exactly the class"
        return cls(premise.n, tuple(found))

    def _truth(self, name: str) -> np.ndarray:
        edge = self._edge
        if name == "edge":
            return edge
        if name.startswith("disjoint"):
            if self.n <= PACKED_LIMIT:
                return self._disjoint_packed(name)
            return self._disjoint_arrays(name)
        reach = self._reach
        edge_back, reach_back = edge.transpose(0, 2, 1), reach.transpose(0, 2, 1)
        if name == "indirect":  # P → C and C ⇝ Q for some C (≠ Q: no cycles)
            return np.matmul(edge, reach)
        if name == "ancestor_not_parent":
            return reach & ~edge
        if name == "common_child":
            return _some(edge, edge)
        if name == "common_parent":
            return _some(edge_back, edge_back)
        if name == "common_descendant":
            return _some(reach, reach)
        if name == "common_ancestor":
            return _some(reach_back, reach_back)
        raise ValueError(f"no relation named {name!r}")

    def _disjoint_arrays(self, name: str) -> np.ndarray:
        """Both disjoint relations from the n graphs without one node, closed as arrays."""
        n, edge = self.n, self._edge
        # avoid[v, m, x, y]: x ⇝ y in member m without passing v
        cut = np.repeat(edge[None], n, axis=0)
        nodes = np.arange(n)
        cut[nodes, :, nodes, :] = False  # no edge out of v
        cut[nodes, :, :, nodes] = False  # no edge into v
        avoid = _warshall(cut)
        # both disjoint relations from the one closure (the costly part; not kept)
        found = {}
        for which in ("disjoint_effect", "disjoint_cause"):
            if which == "disjoint_effect":  # ∃c: avoid[q, m, p, c] ∧ avoid[p, m, q, c]
                meet = avoid.transpose(2, 0, 1, 3) & avoid.transpose(0, 2, 1, 3)
            else:  # ∃c: avoid[q, m, c, p] ∧ avoid[p, m, c, q]
                meet = avoid.transpose(3, 0, 1, 2) & avoid.transpose(0, 3, 1, 2)
            truth = meet.any(axis=3).transpose(2, 0, 1)  # (m, p, q)
            truth[:, np.arange(n), np.arange(n)] = False
            found[which] = truth
        return self._keep_other(name, found)

    def _closed_rows(self) -> np.ndarray:
        """``rows[v, m, x]``, each node's row of reached nodes one integer: what x
        reaches in member m (the first ``size`` members) or what reaches x (the last
        ``size``: the same members reversed) without passing v, for v < n; for v = n
        with nothing cut (``_reach``)."""
        if self._rows is None:
            n, size = self.n, self.size
            kind = _row_type(n)
            bits = np.ones(n, dtype=kind) << np.arange(n, dtype=kind)
            down = np.matmul(self._edge, bits)  # children of each node, as rows
            up = np.array(self._parents, dtype=kind).reshape(size, n)
            cut = np.repeat(np.concatenate((down, up))[None], n + 1, axis=0)
            nodes = np.arange(n)
            cut[:n] &= ~bits[:, None, None]  # no edge into v
            cut[nodes, :, nodes] = 0  # no edge out of v
            self._rows = _warshall_rows(cut, n)
        return self._rows

    def _disjoint_packed(self, name: str) -> np.ndarray:
        """Both disjoint relations from the n graphs without one node (``_closed_rows``):
        a pair's relation holds where the row of P without Q and the row of Q without P
        share a node."""
        n, size = self.n, self.size
        away = self._closed_rows()[:n].transpose(1, 2, 0)  # [m, x, v]
        meet = (away & away.transpose(0, 2, 1)) != 0
        nodes = np.arange(n)
        meet[:, nodes, nodes] = False
        return self._keep_other(name, {"disjoint_effect": meet[:size],
                                       "disjoint_cause": meet[size:]})

    def _keep_other(self, name: str, found: dict[str, np.ndarray]) -> np.ndarray:
        mine = "disjoint_effect" if name == "disjoint_effect" else "disjoint_cause"
        other = "disjoint_cause" if mine == "disjoint_effect" else "disjoint_effect"
        self._counts.setdefault(other, _count(found[other]))
        return found[mine]

    def count(self, name: str, p: int, q: int) -> int:
        """In how many members the relation ``name`` (``relation_name``) holds for (p, q)."""
        counts = self._counts.get(name)  # the bulk look-up's path: one call per item
        if counts is None:
            counts = self.counts(name)
        return counts[p][q]

    def counts(self, name: str) -> list[list[int]]:
        """``count(name, p, q)`` of every pair, as ``counts(name)[p][q]``."""
        counts = self._counts.get(name)
        if counts is None:
            counts = _count(self._truth(name))
            self._counts[name] = counts
        return counts

    def label(self, kind: str, form: str, profile: str, p: int, q: int) -> tuple[str, int]:
        """(``entailment`` | ``neutral`` | ``contradiction``, members where it holds)."""
        k = self.count(relation_name(kind, form, profile), p, q)
        verdict = "entailment" if k == self.size else "contradiction" if k == 0 else "neutral"
        return verdict, k


def relation_name(kind: str, form: str, profile: str) -> str:
    """The checker's name for what a hypothesis claims under ``profile``."""
    strict = profile in ("strict", "compelled")
    if kind == "direct_cause":
        return "edge"
    if kind == "indirect_cause":
        literal = form == _NOT_DIRECTLY_FORM or (strict and form == _STRICT_FORM)
        return "ancestor_not_parent" if literal else "indirect"
    down = kind == "common_effect"
    if strict:
        return "common_child" if down else "common_parent"
    if profile == "loose":
        return "common_descendant" if down else "common_ancestor"
    return "disjoint_effect" if down else "disjoint_cause"
