"""Markov equivalence of CLEAR's DAGs: the same skeleton and the same v-structures.

Two DAGs on the same nodes are Markov equivalent when they have the same skeleton (the
directed edges read without direction) and the same v-structures ``a -> m <- b`` with
a and b non-adjacent (Verma & Pearl 1990).  CLEAR asks whether two graphs are, and to
"find another graph" equivalent to the one given: ``equivalent_dags`` lists every DAG
that reverses some of its edges and stays equivalent, other than the graph itself.

Both work on the bitmasks of the one mixed-graph type (``oracle.mixed_graph``); graphs
that number their nodes differently (a reply's graph) are compared by name.

>>> from causal_oracle.oracle.clear.model import GraphKind, MixedGraph
>>> chain = MixedGraph.build(GraphKind.DAG, "ABC", directed=[("A", "B"), ("B", "C")])
>>> sorted(sorted(h.directed) for h in equivalent_dags(chain))
[[('B', 'A'), ('B', 'C')], [('B', 'A'), ('C', 'B')]]
"""

from __future__ import annotations

from collections.abc import Iterator

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.clear.model import GraphKind, MixedGraph
from causal_oracle.oracle.graph import Dag, bits


def skeleton(g: MixedGraph) -> frozenset[frozenset[str]]:
    return frozenset(frozenset(e) for e in g.directed)


def _v_structures_at(g: MixedGraph) -> frozenset[tuple[int, int, int]]:
    """``(a, m, b)`` for each ``a -> m <- b`` with a < b non-adjacent (vertex indices)."""
    out = set()
    adjacent = g.adjacency
    for m, ups in enumerate(g.dag.parents):
        ps = list(bits(ups))
        for i, a in enumerate(ps):
            for b in ps[i + 1:]:
                if not adjacent[a] >> b & 1:
                    out.add((a, m, b))
    return frozenset(out)


def v_structures(g: MixedGraph) -> frozenset[tuple[str, frozenset[str]]]:
    names = g.names
    return frozenset((names[m], frozenset((names[a], names[b])))
                     for a, m, b in _v_structures_at(g))


def markov_equivalent(g: MixedGraph, h: MixedGraph) -> bool:
    if set(g.nodes) != set(h.nodes) or any(h.spouses) or not h.is_acyclic():
        return False
    if g.names == h.names:  # the same vertex numbering: compare the masks
        return (all(p | k == q | j for p, k, q, j in zip(g.dag.parents, g.kids, h.dag.parents,
                                                          h.kids, strict=True))
                and _v_structures_at(g) == _v_structures_at(h))
    return skeleton(g) == skeleton(h) and v_structures(g) == v_structures(h)


def equivalent_dags(g: MixedGraph) -> Iterator[MixedGraph]:
    """Every DAG on g's nodes with g's edges, some reversed, that is Markov equivalent
    to g and differs from it (built on g's vertex numbering, as ``MixedGraph.build``
    would)."""
    edges = sorted(g.directed)
    ends = [(g.index(a), g.index(b)) for a, b in edges]
    n = len(g.names)
    none = (0,) * n
    for flips in range(1 << len(edges)):
        checkpoint()
        ups = [0] * n
        order = []
        for i, ((a, b), (ia, ib)) in enumerate(zip(edges, ends, strict=True)):
            if flips >> i & 1:
                ups[ia] |= 1 << ib
                order.append((b, "->", a))
            else:
                ups[ib] |= 1 << ia
                order.append((a, "->", b))
        h = MixedGraph(g.names, Dag(n, tuple(ups)), none, none, GraphKind.DAG, tuple(order))
        if h.dag.parents != g.dag.parents and markov_equivalent(g, h):
            yield h


__all__ = ["equivalent_dags", "markov_equivalent", "skeleton", "v_structures"]
