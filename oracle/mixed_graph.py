"""Mixed graphs on bitmasks: the one type for graphs with directed, bidirected and undirected edges.

A *mixed graph* on the vertices ``names`` (bit ``i`` stands for ``names[i]``, in the
order the text wrote them) has three kinds of edge:

* directed ``a → b`` — held as a ``Dag`` (``oracle.graph``: parent bitmasks).  The
  directed part may have cycles (CLEAR's directed graphs); ``is_acyclic`` says whether
  it does not;
* bidirected ``a ↔ b`` — a hidden common cause; ``spouses[i]`` is the bitmask of the
  vertices joined to ``i`` by one;
* undirected ``a — b`` — ``neighbours[i]``.

The *districts* (c-components) are the connected components of the bidirected edges:
``districts(keep)`` lists them inside the vertex set ``keep``, each a bitmask, in the
order of their lowest vertex.  An ADMG is a mixed graph whose directed part is acyclic
and that has no undirected edge; a DAG also has no bidirected one.

Ancestors and descendants follow ``oracle.graph``: ``ancestors(mask)`` and
``descendants(mask)`` are **strict** (reached by a directed path of length ≥ 1, so a
vertex is its own ancestor only on a cycle); ``ancestors_of(mask, keep, cut)`` is
**inclusive** (An(mask)) in the sub-graph induced by ``keep`` with the directed edges
into ``cut`` removed — the form the ID algorithm asks for.  Every search is the one
reachability walk ``oracle.graph.reach``.

Names are for reading and writing: ``mask`` turns names into a bitmask, ``named`` a
bitmask back into names (in vertex order), and ``directed`` / ``bidirected`` /
``undirected`` are the edges as sets of names (``directed_edges`` and friends list them
in vertex order), built once per graph.

>>> g = MixedGraph.build("XMY", directed=[("X", "M"), ("M", "Y")], bidirected=[("X", "Y")])
>>> g.named(g.ancestors(g.mask("Y"))), g.named(g.descendants(g.mask("X")))
(('X', 'M'), ('M', 'Y'))
>>> [g.named(d) for d in g.districts()], g.is_acyclic()
([('X', 'Y'), ('M',)], True)
>>> g.induced(g.mask("XY")).bidirected_edges(), g.cut_into(g.mask("Y")).directed_edges()
([('X', 'Y')], [('X', 'M')])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cached_property

from causal_oracle.oracle.errors import InputError
from causal_oracle.oracle.graph import Dag, bits, reach


@dataclass(frozen=True)
class MixedGraph:
    """Vertices ``names`` (index = bit), directed edges as ``dag`` (acyclic or not),
    bidirected ones as ``spouses``, undirected ones as ``neighbours`` (a bitmask per
    vertex each)."""

    names: tuple[str, ...]
    dag: Dag
    spouses: tuple[int, ...]
    neighbours: tuple[int, ...]

    @classmethod
    def build(cls, names: Iterable[str], directed: Iterable[tuple[str, str]] = (),
              bidirected: Iterable[tuple[str, str]] = (),
              undirected: Iterable[tuple[str, str]] = ()) -> MixedGraph:
        """The graph on ``names`` (in order) with these edges (every endpoint a name)."""
        order = tuple(names)
        return cls(order, *edge_masks(order, directed, bidirected, undirected))

    # ---- names and bits -----------------------------------------------------------
    @cached_property
    def _index(self) -> dict[str, int]:
        return _first_index(self.names)

    @cached_property
    def full(self) -> int:
        """Every vertex."""
        return (1 << len(self.names)) - 1

    def find(self, name: str) -> int | None:
        """The vertex named ``name``, or None."""
        return self._index.get(name)

    def index(self, name: str) -> int:
        found = self._index.get(name)
        if found is None:
            raise InputError(f"{name[:200]!r} is not a vertex of the graph")
        return found

    def mask(self, names: Iterable[str]) -> int:
        index, out = self._index, 0
        for v in names:
            found = index.get(v)
            if found is None:
                raise InputError(f"{v[:200]!r} is not a vertex of the graph")
            out |= 1 << found
        return out

    def named(self, mask: int) -> tuple[str, ...]:
        """The names of the vertices in ``mask``, in vertex order."""
        return tuple(self.names[i] for i in bits(mask))

    def named_path(self, path: Iterable[int]) -> tuple[str, ...]:
        return tuple(self.names[i] for i in path)

    # ---- edges as names -----------------------------------------------------------
    def directed_edges(self) -> list[tuple[str, str]]:
        """Every ``(tail, head)``, in vertex order."""
        return [(self.names[t], self.names[h]) for t, h in self.dag.edges()]

    def bidirected_edges(self) -> list[tuple[str, str]]:
        """Every bidirected edge once, lower vertex first, in vertex order."""
        return _pairs(self.names, self.spouses)

    def undirected_edges(self) -> list[tuple[str, str]]:
        return _pairs(self.names, self.neighbours)

    @cached_property
    def directed(self) -> frozenset[tuple[str, str]]:
        return frozenset(self.directed_edges())

    @cached_property
    def bidirected(self) -> frozenset[frozenset[str]]:
        return frozenset(frozenset(e) for e in self.bidirected_edges())

    @cached_property
    def undirected(self) -> frozenset[frozenset[str]]:
        return frozenset(frozenset(e) for e in self.undirected_edges())

    # ---- queries on bitmasks ------------------------------------------------------
    @cached_property
    def kids(self) -> tuple[int, ...]:
        """The child bitmask of each vertex (built once per graph)."""
        return self.dag.children()

    @cached_property
    def adjacency(self) -> tuple[int, ...]:
        """The vertices joined to each vertex by an edge of any kind."""
        return tuple(p | k | s | u for p, k, s, u in zip(self.dag.parents, self.kids,
                                                          self.spouses, self.neighbours,
                                                          strict=True))

    def parents(self, mask: int) -> int:
        """The parents of the vertices of ``mask`` (together)."""
        return _union(self.dag.parents, mask)

    def children(self, mask: int) -> int:
        return _union(self.kids, mask)

    def adjacent(self, a: int, b: int) -> bool:
        """Whether some edge, of any kind, joins vertices ``a`` and ``b``."""
        return bool(self.adjacency[a] >> b & 1)

    def ancestors(self, mask: int) -> int:
        """Strict ancestors of ``mask``: the vertices with a directed path of length ≥ 1
        into it."""
        return reach(self.dag.parents, self.parents(mask))

    def descendants(self, mask: int) -> int:
        """Strict descendants of ``mask``."""
        return reach(self.kids, self.children(mask))

    def ancestors_of(self, mask: int, keep: int = -1, cut: int = 0) -> int:
        """An(``mask``) inclusive, inside the vertices ``keep``, with the directed edges
        into ``cut`` removed."""
        keep = self.full if keep < 0 else keep & self.full
        step = self.dag.parents
        if cut:
            step = tuple(0 if cut >> i & 1 else p for i, p in enumerate(step))
        return reach(step, mask & keep, self.full & ~keep)

    def districts(self, keep: int = -1) -> list[int]:
        """The districts (bidirected components) of the sub-graph on ``keep``, each a
        bitmask, ordered by their lowest vertex."""
        keep = self.full if keep < 0 else keep & self.full
        out = []
        left = keep
        while left:
            comp = reach(self.spouses, left & -left, self.full & ~keep)
            out.append(comp)
            left &= ~comp
        return out

    def is_acyclic(self) -> bool:
        """Whether the directed edges have no cycle."""
        return self.dag.is_acyclic()

    # ---- sub-graphs ---------------------------------------------------------------
    def induced(self, keep: int) -> MixedGraph:
        """The sub-graph induced by ``keep``, its vertices renumbered in the same order
        (the same type: a family's fields beside the graph's are kept)."""
        old = list(bits(keep & self.full))
        new = {v: i for i, v in enumerate(old)}

        def squeeze(masks: tuple[int, ...]) -> tuple[int, ...]:
            out = []
            for v in old:
                m = 0
                for w in bits(masks[v] & keep):
                    m |= 1 << new[w]
                out.append(m)
            return tuple(out)

        parents = squeeze(self.dag.parents)
        return replace(self, names=tuple(self.names[v] for v in old),
                       dag=Dag(len(old), parents), spouses=squeeze(self.spouses),
                       neighbours=squeeze(self.neighbours))

    def cut_into(self, mask: int) -> MixedGraph:
        """The graph with the edges into ``mask`` removed: directed edges into it and
        bidirected edges at it (G with X's incoming arrowheads cut)."""
        dag = Dag(self.dag.n, tuple(0 if mask >> i & 1 else p
                                     for i, p in enumerate(self.dag.parents)))
        spouses = tuple(0 if mask >> i & 1 else s & ~mask for i, s in enumerate(self.spouses))
        return replace(self, dag=dag, spouses=spouses)

    def cut_out_of(self, mask: int) -> MixedGraph:
        """The graph with the directed edges out of ``mask`` removed."""
        return replace(self, dag=Dag(self.dag.n, tuple(p & ~mask for p in self.dag.parents)))


def edge_masks(names: tuple[str, ...], directed: Iterable[tuple[str, str]],
               bidirected: Iterable[tuple[str, str]], undirected: Iterable[tuple[str, str]]
               ) -> tuple[Dag, tuple[int, ...], tuple[int, ...]]:
    """The masks of these edges on ``names`` (the first vertex of a repeated name)."""
    index = _first_index(names)
    n = len(names)
    parents, spouses, neighbours = [0] * n, [0] * n, [0] * n
    try:
        for a, b in directed:
            parents[index[b]] |= 1 << index[a]
        for masks, edges in ((spouses, bidirected), (neighbours, undirected)):
            for a, b in edges:
                i, j = index[a], index[b]
                masks[i] |= 1 << j
                masks[j] |= 1 << i
    except KeyError as missing:
        raise InputError(f"edge end {str(missing.args[0])[:200]!r} is not a vertex of the "
                         "graph") from None
    return Dag(n, tuple(parents)), tuple(spouses), tuple(neighbours)


def _first_index(names: tuple[str, ...]) -> dict[str, int]:
    index = dict(zip(names, range(len(names)), strict=True))
    if len(index) < len(names):  # a repeated name stands for its first vertex
        index = {}
        for i, v in enumerate(names):
            index.setdefault(v, i)
    return index


def _union(per_vertex: tuple[int, ...], mask: int) -> int:
    out = 0
    for v in bits(mask):
        out |= per_vertex[v]
    return out


def _pairs(names: tuple[str, ...], masks: tuple[int, ...]) -> list[tuple[str, str]]:
    return [(names[a], names[b]) for a in range(len(names)) for b in bits(masks[a]) if a < b]


__all__ = ["MixedGraph", "edge_masks"]
