"""The graph criteria CLadder's identification uses: which adjustments the graph allows.

All are read off the graph alone (d-separation by the one Bayes-ball walk of
``oracle.dsep``), never off the numbers:

* a set Z meets the **backdoor criterion** for (X, Y) when no member is a descendant of
  X and Z d-separates X and Y once X's outgoing edges are cut (``backdoor_valid``;
  ``backdoor_path`` names a path Z leaves open).  ``candidate_sets`` lists the sets
  worth trying: non-descendants of X, at most ``MAX_ADJUST`` of them, smallest first;
* a single variable M meets the **frontdoor criterion** when it intercepts every
  directed path X ⇝ Y, no backdoor path X–M is open, and X blocks every backdoor path
  M–Y (Pearl 2009, 3.3: ``frontdoor_valid``);
* the **mediators** of X → Y are the variables on its directed paths (``mediators``).

>>> from causal_oracle.oracle.cladder.model import Graph
>>> g = Graph.build(["z", "x", "y"], [("z", "x"), ("z", "y"), ("x", "y")])
>>> backdoor_valid(g, 1, 2, ()), backdoor_valid(g, 1, 2, (0,)), backdoor_path(g, 1, 2, ())
(False, True, [1, 0, 2])
>>> list(candidate_sets(g, 1, 2))
[(), (0,)]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations

from causal_oracle.oracle.cladder.model import Graph
from causal_oracle.oracle.dsep import d_separated, open_path
from causal_oracle.oracle.graph import Dag

#: at most this many variables in an adjustment set
MAX_ADJUST = 3


def dag_of(graph: Graph, cut_out_of: int | None = None) -> Dag:
    parents = list(graph.parents)
    if cut_out_of is not None:
        parents = [p & ~(1 << cut_out_of) for p in parents]
    return Dag(graph.n, tuple(parents))


def _mask(nodes: Iterable[int]) -> int:
    out = 0
    for v in nodes:
        out |= 1 << v
    return out


def backdoor_valid(graph: Graph, x: int, y: int, z: Sequence[int]) -> bool:
    """Whether ``z`` meets the backdoor criterion for (x, y): no descendant of x, and it
    d-separates x and y once x's outgoing edges are removed."""
    if x in z or y in z or graph.descendants(x) & _mask(z):
        return False
    return d_separated(dag_of(graph, x), x, y, _mask(z))


def backdoor_path(graph: Graph, x: int, y: int, z: Sequence[int]) -> list[int] | None:
    """A backdoor path from x to y that ``z`` leaves open (None: all blocked)."""
    return open_path(dag_of(graph, x), x, y, _mask(z))


def frontdoor_valid(graph: Graph, x: int, y: int, m: int) -> bool:
    """Pearl's frontdoor criterion for a single mediator ``m``: m intercepts every
    directed path x ⇝ y, no backdoor path x–m is open, and x blocks every backdoor
    path m–y."""
    if m in (x, y) or not graph.is_ancestor(x, m):
        return False
    if dag_of(graph).descendants(x, avoid=1 << m) >> y & 1:  # a directed path avoids m
        return False
    return d_separated(dag_of(graph, x), x, m, 0) and d_separated(dag_of(graph, m), m, y, 1 << x)


def mediators(graph: Graph, x: int, y: int) -> tuple[int, ...]:
    """The variables on directed paths from x to y."""
    return tuple(v for v in range(graph.n)
                 if v not in (x, y) and graph.is_ancestor(x, v) and graph.is_ancestor(v, y))


def candidate_sets(graph: Graph, x: int, y: int) -> Iterable[tuple[int, ...]]:
    allowed = [v for v in range(graph.n)
               if v not in (x, y) and not graph.descendants(x) >> v & 1]
    for size in range(min(len(allowed), MAX_ADJUST) + 1):
        yield from combinations(allowed, size)

