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

>>> from causal_oracle.oracle.clear.model import GraphKind, MixedGraph
>>> g = MixedGraph.build(GraphKind.DAG, "ABC", directed=[("A", "C"), ("B", "C")])
>>> m_separated(g, {"A"}, {"B"}, set()), m_separated(g, {"A"}, {"B"}, {"C"})
(True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.clear.model import Mark, MixedGraph, Walk


def parents(g: MixedGraph, v: str) -> set[str]:
    return {a for a, b in g.directed if b == v}


def children(g: MixedGraph, v: str) -> set[str]:
    return {b for a, b in g.directed if a == v}


def spouses(g: MixedGraph, v: str) -> set[str]:
    return {w for e in g.bidirected if v in e for w in e if w != v}


def _reach(g: MixedGraph, nodes: Iterable[str],
           step: Callable[[MixedGraph, str], Iterable[str]]) -> set[str]:
    """Nodes reached from ``nodes`` by one or more ``step``s (``nodes`` only if on a cycle)."""
    out: set[str] = set()
    stack = [w for v in nodes for w in step(g, v)]
    while stack:
        v = stack.pop()
        if v not in out:
            out.add(v)
            stack.extend(step(g, v))
    return out


def ancestors(g: MixedGraph, nodes: Iterable[str]) -> set[str]:
    """Proper ancestors of a node set (those with a directed path of length ≥ 1)."""
    return _reach(g, nodes, parents)


def descendants(g: MixedGraph, nodes: Iterable[str]) -> set[str]:
    return _reach(g, nodes, children)


def steps(g: MixedGraph, v: str) -> Iterator[tuple[Mark, str]]:
    """Every edge at ``v`` as (mark read from v, other end)."""
    for a, b in g.directed:
        if a == v:
            yield Mark.RIGHT, b
        if b == v:
            yield Mark.LEFT, a
    for e in g.bidirected:
        if v in e:
            yield Mark.BI, next(w for w in e if w != v)
    for e in g.undirected:
        if v in e:
            yield Mark.UNDIRECTED, next(w for w in e if w != v)


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
    for v, is_collider in zip(walk.nodes[1:-1], colliders(walk), strict=True):
        if is_collider:
            if v not in z and not (descendants(g, [v]) & set(z)):
                return True
        elif v in z:
            return True
    return False


def m_separated(g: MixedGraph, xs: set[str], ys: set[str], z: set[str] | frozenset[str]
                ) -> bool:
    """Whether every path from xs to ys is blocked by z (Bayes-ball reachability)."""
    z = set(z)
    opened = z | ancestors(g, z)  # colliders in here do not block
    # state: (node, arrived with an arrowhead at node)
    seen: set[tuple[str, bool]] = set()
    stack = [(x, False) for x in xs]
    while stack:
        checkpoint()
        v, head = stack.pop()
        if (v, head) in seen:
            continue
        seen.add((v, head))
        if v in ys:
            return False
        for mark, w in steps(g, v):
            leaves_with_head = arrow_at_start(mark)
            if v not in xs:  # the path's first node neither blocks nor opens
                collider = head and leaves_with_head
                if collider and v not in opened:
                    continue
                if not collider and v in z:
                    continue
            stack.append((w, arrow_at_end(mark)))
    return True


def districts(g: MixedGraph, nodes: Iterable[str] | None = None) -> list[frozenset[str]]:
    """The c-components of g (restricted to ``nodes``): bidirected connectivity."""
    left = set(g.nodes if nodes is None else nodes)
    out = []
    for v in [n for n in g.nodes if n in left]:
        if v not in left:
            continue
        comp = {v}
        stack = [v]
        left.discard(v)
        while stack:
            u = stack.pop()
            for w in spouses(g, u):
                if w in left:
                    left.discard(w)
                    comp.add(w)
                    stack.append(w)
        out.append(frozenset(comp))
    return out


def subgraph(g: MixedGraph, keep: Iterable[str]) -> MixedGraph:
    """The induced subgraph on ``keep``."""
    k = set(keep)
    return MixedGraph(g.kind, tuple(v for v in g.nodes if v in k),
                      frozenset(e for e in g.directed if set(e) <= k),
                      frozenset(e for e in g.bidirected if e <= k),
                      frozenset(e for e in g.undirected if e <= k))


def cut_incoming(g: MixedGraph, xs: set[str]) -> MixedGraph:
    """G with the edges into xs removed (directed into, and bidirected at, xs)."""
    return MixedGraph(g.kind, g.nodes, frozenset(e for e in g.directed if e[1] not in xs),
                      frozenset(e for e in g.bidirected if not (e & xs)), g.undirected)


def cut_outgoing(g: MixedGraph, xs: set[str]) -> MixedGraph:
    """G with the directed edges out of xs removed."""
    return MixedGraph(g.kind, g.nodes, frozenset(e for e in g.directed if e[0] not in xs),
                      g.bidirected, g.undirected)


def is_acyclic(g: MixedGraph) -> bool:
    indeg = {v: 0 for v in g.nodes}
    for _, b in g.directed:
        indeg[b] += 1
    queue = [v for v, d in indeg.items() if d == 0]
    seen = 0
    while queue:
        v = queue.pop()
        seen += 1
        for w in children(g, v):
            indeg[w] -= 1
            if indeg[w] == 0:
                queue.append(w)
    return seen == len(g.nodes)
