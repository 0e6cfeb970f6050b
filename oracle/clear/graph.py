"""Graph primitives on CLEAR's mixed graphs: relations, typed paths, m-separation.

A *path* is a walk with no repeated node; each step names one edge of the graph
(``->``, ``<-``, ``<->`` or ``-``).  On a path a node is a *collider* when both of
its edges have an arrowhead at it (``->v<-``, ``->v<->``, ``<->v<-``, ``<->v<->``).
Given a set Z, a path is *blocked* when some non-collider on it lies in Z, or some
collider has neither itself nor a descendant in Z.  X and Y are *m-separated* by Z
(d-separated on DAGs) when every path between them is blocked; ``m_separated``
decides this without listing paths, by a reachability search over (node, whether
the path arrived with an arrowhead) states — the "Bayes ball".

The districts (c-components) are the connected components of the bidirected
edges.  Every loop over paths checks the cooperative budget.

The graph is the project's one mixed-graph type (``oracle.mixed_graph``); these
functions speak CLEAR's names (a name the graph lacks has no edge) and ask the type's
bitmask queries.

>>> from causal_oracle.oracle.clear.model import GraphKind, MixedGraph
>>> g = MixedGraph.build(GraphKind.DAG, "ABC", directed=[("A", "C"), ("B", "C")])
>>> m_separated(g, {"A"}, {"B"}, set()), m_separated(g, {"A"}, {"B"}, {"C"})
(True, False)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.clear.model import Mark, MixedGraph, Walk
from causal_oracle.oracle.graph import bits


def _mask(g: MixedGraph, names: Iterable[str]) -> int:
    """The vertices of ``names`` the graph has."""
    out = 0
    for v in names:
        i = g.find(v)
        if i is not None:
            out |= 1 << i
    return out


def _names(g: MixedGraph, mask: int) -> set[str]:
    return set(g.named(mask))


def parents(g: MixedGraph, v: str) -> set[str]:
    i = g.find(v)
    return set() if i is None else _names(g, g.dag.parents[i])


def children(g: MixedGraph, v: str) -> set[str]:
    i = g.find(v)
    return set() if i is None else _names(g, g.kids[i])


def spouses(g: MixedGraph, v: str) -> set[str]:
    i = g.find(v)
    return set() if i is None else _names(g, g.spouses[i])


def ancestors(g: MixedGraph, nodes: Iterable[str]) -> set[str]:
    """Proper ancestors of a node set (those with a directed path of length ≥ 1)."""
    return _names(g, g.ancestors(_mask(g, nodes)))


def descendants(g: MixedGraph, nodes: Iterable[str]) -> set[str]:
    return _names(g, g.descendants(_mask(g, nodes)))


def steps(g: MixedGraph, v: str) -> Iterator[tuple[Mark, str]]:
    """Every edge at ``v`` as (mark read from v, other end)."""
    i = g.find(v)
    if i is None:
        return
    names = g.names
    for mark, mask in ((Mark.RIGHT, g.kids[i]), (Mark.LEFT, g.dag.parents[i]),
                       (Mark.BI, g.spouses[i]), (Mark.UNDIRECTED, g.neighbours[i])):
        for w in bits(mask):
            yield mark, names[w]


def arrow_at_end(mark: Mark) -> bool:
    """Whether the edge ``u mark v`` has an arrowhead at v."""
    return mark in (Mark.RIGHT, Mark.BI)


def arrow_at_start(mark: Mark) -> bool:
    """Whether the edge ``u mark v`` has an arrowhead at u."""
    return mark in (Mark.LEFT, Mark.BI)


def simple_paths(g: MixedGraph, x: str, y: str, *, directed_only: bool = False
                 ) -> Iterator[Walk]:
    """All paths from x to y (edge-typed, no repeated node), depth first."""
    nodes = [x]
    marks: list[Mark] = []

    def extend(v: str) -> Iterator[Walk]:
        checkpoint()
        for mark, w in sorted(steps(g, v), key=lambda s: (s[1], s[0].value)):
            if w in nodes or (directed_only and mark is not Mark.RIGHT):
                continue
            nodes.append(w)
            marks.append(mark)
            if w == y:
                yield Walk(tuple(nodes), tuple(marks))
            else:
                yield from extend(w)
            nodes.pop()
            marks.pop()

    if x != y:
        yield from extend(x)


def is_path(g: MixedGraph, walk: Walk) -> bool:
    """Every step is an edge of g and no node repeats."""
    return len(set(walk.nodes)) == len(walk.nodes) and all(
        g.has_edge(a, m, b) for a, m, b in zip(walk.nodes, walk.marks, walk.nodes[1:],
                                               strict=False))


def colliders(walk: Walk) -> list[bool]:
    """For each interior node of the walk, whether it is a collider on it."""
    return [arrow_at_end(walk.marks[i - 1]) and arrow_at_start(walk.marks[i])
            for i in range(1, len(walk.nodes) - 1)]


def blocked(g: MixedGraph, walk: Walk, z: set[str] | frozenset[str]) -> bool:
    """Whether Z blocks the path (see the module docstring)."""
    zm = _mask(g, z)
    for v, is_collider in zip(walk.nodes[1:-1], colliders(walk), strict=True):
        if is_collider:
            if v not in z and not (g.descendants(_mask(g, (v,))) & zm):
                return True
        elif v in z:
            return True
    return False


def m_separated(g: MixedGraph, xs: set[str], ys: set[str], z: set[str] | frozenset[str]
                ) -> bool:
    """Whether every path from xs to ys is blocked by z (Bayes-ball reachability over
    (node, whether the path arrived with an arrowhead at it) states)."""
    x, y, zm = _mask(g, xs), _mask(g, ys), _mask(g, z)
    opened = zm | g.ancestors(zm)  # colliders in here do not block
    kids, ups = g.kids, g.dag.parents
    seen = [0, 0]  # per arrival (without, with an arrowhead): the nodes seen so
    stack = [(v, False) for v in bits(x)]
    while stack:
        checkpoint()
        v, head = stack.pop()
        bit = 1 << v
        if seen[head] & bit:
            continue
        seen[head] |= bit
        if y & bit:
            return False
        # leaving by an edge with an arrowhead at v (<-, <->) makes v a collider when
        # the path arrived with one; the path's first node neither blocks nor opens
        first = bool(x & bit)
        pass_tail = first or not zm & bit
        pass_head = first or (bool(opened & bit) if head else not zm & bit)
        if pass_tail:
            stack.extend((w, True) for w in bits(kids[v]))
            stack.extend((w, False) for w in bits(g.neighbours[v]))
        if pass_head:
            stack.extend((w, False) for w in bits(ups[v]))
            stack.extend((w, True) for w in bits(g.spouses[v]))
    return True


def districts(g: MixedGraph, nodes: Iterable[str] | None = None) -> list[frozenset[str]]:
    """The c-components of g (restricted to ``nodes``): bidirected connectivity."""
    keep = g.full if nodes is None else _mask(g, nodes)
    return [frozenset(g.named(c)) for c in g.districts(keep)]


def subgraph(g: MixedGraph, keep: Iterable[str]) -> MixedGraph:
    """The induced subgraph on ``keep``."""
    return replace(g.induced(_mask(g, keep)), edge_order=())


def cut_incoming(g: MixedGraph, xs: set[str]) -> MixedGraph:
    """G with the edges into xs removed (directed into, and bidirected at, xs)."""
    return replace(g.cut_into(_mask(g, xs)), edge_order=())


def cut_outgoing(g: MixedGraph, xs: set[str]) -> MixedGraph:
    """G with the directed edges out of xs removed."""
    return replace(g.cut_out_of(_mask(g, xs)), edge_order=())


def is_acyclic(g: MixedGraph) -> bool:
    return g.is_acyclic()
