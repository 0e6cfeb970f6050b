"""Directed acyclic graphs on bitmasks: the one DAG type and the one reachability walk.

A DAG on nodes ``0..n-1`` is the tuple ``parents`` where bit ``j`` of
``parents[i]`` is set iff ``j → i`` is an edge.  Bitmasks make the operations
the oracle repeats millions of times — reachability, ancestral sets, checking a
path — a handful of integer operations.  Node names live with whoever owns them
(the premise, a task graph), not here.

Ancestors and descendants
-------------------------
``u`` is an *ancestor* of ``v``, and ``v`` a *descendant* of ``u``, when a
directed path ``u → … → v`` of length ≥ 1 exists.  In a DAG no node is its own
ancestor or descendant, so the per-node forms are **strict**:

* ``Dag.descendants(v)`` / ``Dag.ancestors(v)`` — the nodes strictly below
  (above) ``v``, optionally along paths whose nodes avoid a mask;

the set forms are **inclusive**, the way textbooks write De(X) and An(Z) in the
backdoor criterion and in d-separation ("a collider that is in Z or has a
descendant in Z" is one test: ``An(Z)``):

* ``Dag.descendants_of(mask)`` / ``Dag.ancestors_of(mask)`` — ``mask`` itself and
  everything below (above) it.

Every one of these is the one reachability walk ``reach_from`` (a frontier
search over successor masks: children for descendants, parents for ancestors).

>>> g = Dag.from_edges(3, [(0, 1), (1, 2)])
>>> g.has_edge(0, 1), g.descendants(0), g.descendants_of(0b001), g.is_acyclic()
(True, 6, 7, True)
>>> g.topological_order()
(0, 1, 2)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from causal_oracle.oracle.memo import memoised


def bits(mask: int) -> Iterator[int]:
    """Indices of the set bits of ``mask``, ascending."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


@dataclass(frozen=True, slots=True)
class Dag:
    """A directed graph as parent bitmasks (acyclic wherever the oracle builds one)."""

    n: int
    parents: tuple[int, ...]

    @classmethod
    def from_edges(cls, n: int, edges: Iterable[tuple[int, int]]) -> Dag:
        parents = [0] * n
        for tail, head in edges:
            parents[head] |= 1 << tail
        return cls(n, tuple(parents))

    def edges(self) -> list[tuple[int, int]]:
        """All edges ``(tail, head)``, sorted."""
        return list(_edges(self.parents))

    def has_edge(self, tail: int, head: int) -> bool:
        return bool(self.parents[head] >> tail & 1)

    def children(self) -> tuple[int, ...]:
        """Child bitmask per node (memoised by parent tuple: DAGs recur across queries)."""
        return children_of(self.parents)

    def descendants(self, node: int, avoid: int = 0) -> int:
        """Strict descendants of ``node``: the nodes a directed path of length ≥ 1 from
        ``node`` reaches without entering ``avoid`` (``node`` itself only on a cycle)."""
        kids = self.children()
        return reach_from(kids, kids[node] & ~avoid, avoid)

    def ancestors(self, node: int, avoid: int = 0) -> int:
        """Strict ancestors of ``node``: the nodes with a directed path of length ≥ 1 to
        ``node`` whose nodes avoid ``avoid``."""
        return reach_from(self.parents, self.parents[node] & ~avoid, avoid)

    def descendants_of(self, mask: int) -> int:
        """The nodes of ``mask`` and all their descendants (inclusive: De(mask))."""
        return reach_from(self.children(), mask)

    def ancestors_of(self, mask: int) -> int:
        """The nodes of ``mask`` and all their ancestors (inclusive: An(mask))."""
        return reach_from(self.parents, mask)

    def topological_order(self) -> tuple[int, ...] | None:
        """The nodes with every parent before its children (Kahn's algorithm, ready
        nodes first-in first-out from the lowest index); ``None`` if there is a cycle."""
        return _topological_order(self.parents)

    def is_acyclic(self) -> bool:
        return self.topological_order() is not None

    def skeleton(self) -> frozenset[tuple[int, int]]:
        return frozenset((min(t, h), max(t, h)) for t, h in self.edges())

    def v_structures(self) -> frozenset[tuple[int, int, int]]:
        """Triples ``(a, c, b)`` with ``a → c ← b``, ``a < b`` and a, b non-adjacent."""
        found = set()
        for c in range(self.n):
            ps = list(bits(self.parents[c]))
            for i, a in enumerate(ps):
                for b in ps[i + 1:]:
                    if not (self.has_edge(a, b) or self.has_edge(b, a)):
                        found.add((a, c, b))
        return frozenset(found)


def reach(step: Sequence[int], frontier: int, avoid: int = 0) -> int:
    """``frontier`` and every node reachable from it along ``step`` masks, avoiding ``avoid``.

    ``step`` is a per-node bitmask of successors: children for descendants, parents
    for ancestors.  This is the only graph search over successor masks in the
    oracle: ``reach_from`` memoises it for a DAG's fixed masks (the strict and
    inclusive ancestor/descendant forms above are its callers), and searches whose
    masks change as they go (``oracle.extensions``) call it directly.
    """
    seen = 0
    while frontier:
        seen |= frontier
        nxt = 0
        while frontier:
            low = frontier & -frontier
            nxt |= step[low.bit_length() - 1]
            frontier ^= low
        frontier = nxt & ~seen & ~avoid
    return seen


@memoised(scale=8)
def reach_from(step: tuple[int, ...], frontier: int, avoid: int = 0) -> int:
    """``reach``, memoised by the (immutable) successor masks of a DAG."""
    return reach(step, frontier, avoid)


@memoised(scale=2)
def _edges(parents: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    found = []
    for h, mask in enumerate(parents):
        while mask:
            low = mask & -mask
            found.append((low.bit_length() - 1, h))
            mask ^= low
    found.sort()
    return tuple(found)


@memoised(scale=2)
def children_of(parents: tuple[int, ...]) -> tuple[int, ...]:
    """Child bitmasks from parent bitmasks."""
    kids = [0] * len(parents)
    for h, mask in enumerate(parents):
        bit = 1 << h
        while mask:
            low = mask & -mask
            kids[low.bit_length() - 1] |= bit
            mask ^= low
    return tuple(kids)


@memoised(scale=2)
def _topological_order(parents: tuple[int, ...]) -> tuple[int, ...] | None:
    kids = children_of(parents)
    indegree = [mask.bit_count() for mask in parents]
    ready = deque(v for v, d in enumerate(indegree) if d == 0)
    order: list[int] = []
    while ready:
        v = ready.popleft()
        order.append(v)
        mask = kids[v]
        while mask:  # ascending, as ``bits``
            low = mask & -mask
            w = low.bit_length() - 1
            mask ^= low
            indegree[w] -= 1
            if indegree[w] == 0:
                ready.append(w)
    return tuple(order) if len(order) == len(parents) else None


def directed_path(dag: Dag, source: int, target: int, avoid: int = 0) -> list[int] | None:
    """A shortest directed path ``source → … → target`` whose inner nodes avoid ``avoid``."""
    return path_along(dag.children(), source, target, avoid)


def path_along(kids: Sequence[int], source: int, target: int, avoid: int = 0
               ) -> list[int] | None:
    """``directed_path`` on child masks: a breadth-first search that takes each level's
    nodes in the order they were found and each node's children in ascending order, so
    that a node's predecessor on the path is the first node of the level before that
    reaches it."""
    seen = 1 << source
    blocked = avoid & ~(1 << target)  # the target may be in ``avoid``: it is no inner node
    previous = [-1] * len(kids)  # each node's predecessor, once found
    frontier = [source]
    while frontier:
        found = []
        for v in frontier:
            fresh = kids[v] & ~seen & ~blocked
            if not fresh:
                continue
            if fresh >> target & 1:
                path = [target]
                while v != -1:
                    path.append(v)
                    v = previous[v]
                return path[::-1]
            seen |= fresh
            while fresh:
                low = fresh & -fresh
                w = low.bit_length() - 1
                previous[w] = v
                found.append(w)
                fresh ^= low
        frontier = found
    return None
