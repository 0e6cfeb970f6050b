"""The consistent extensions of a CPDAG: every member of a small class, listed.

A *consistent extension* of a CPDAG is a DAG with its skeleton, its directed
edges and its v-structures and no other.  The extensions of the CPDAG of a
Markov equivalence class are exactly the class's members (Meek 1995; Andersson,
Madigan & Perlman 1997), so a class that is small enough to list is listed by
orienting the CPDAG's undirected edges one at a time, depth first, and pruning
an orientation ``t → h`` that

* makes a v-structure ``p → h ← t`` with ``p`` and ``t`` non-adjacent (every
  v-structure of the class is already directed in the CPDAG), or
* closes a directed cycle (``h`` already reaches ``t``).

Every completed orientation is then a member, and every member is found once.
On a graph whose directed part is *not* a CPDAG (an inconsistent premise whose
forced colliders clash) the search may find nothing; the caller then asks the
SAT encoding, which decides and explains that case.  The search calls
``checkpoint()`` at every step, so a time budget bounds it, and stops after
``limit`` members.  ``listed_extensions`` is the same search collecting at most a given
number of members, each with its sorted edge list, into a list (no generator per
level: the listing of small classes, ``oracle.equivalence``, asks for all of them at
once, ordered by their edges).

>>> sorted(len(d.edges()) for d in extensions(3, [], [(0, 1), (1, 2)]))
[2, 2, 2]
>>> [edges for edges, _ in listed_extensions(3, [], [(0, 1), (1, 2)], 2)]
[((0, 1), (1, 2)), ((1, 0), (1, 2))]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from operator import itemgetter

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.errors import BudgetExceeded
from causal_oracle.oracle.graph import Dag, reach

#: a DAG's edges ``(tail, head)``, sorted
Edges = tuple[tuple[int, int], ...]


def _start(n: int, directed: Iterable[tuple[int, int]],
           undirected: Iterable[tuple[int, int]]
           ) -> tuple[list[int], list[int], list[int], list[tuple[int, int]]]:
    """The search's state: parent, child and adjacency masks of the directed edges (the
    undirected ones adjacent too) and the undirected edges to place, in order."""
    parents = [0] * n
    children = [0] * n
    adjacent = [0] * n
    for tail, head in directed:
        parents[head] |= 1 << tail
        children[tail] |= 1 << head
        adjacent[tail] |= 1 << head
        adjacent[head] |= 1 << tail
    todo = sorted((min(a, b), max(a, b)) for a, b in undirected)
    for a, b in todo:
        adjacent[a] |= 1 << b
        adjacent[b] |= 1 << a
    return parents, children, adjacent, todo


def _allowed(parents: list[int], children: list[int], adjacent: list[int], tail: int,
             head: int) -> bool:
    """Whether ``tail → head`` adds no new v-structure at head and no cycle (head must
    not reach tail)."""
    return not (parents[head] & ~adjacent[tail] & ~(1 << tail)
                or reach(children, children[head]) >> tail & 1)


def extensions(n: int, directed: Iterable[tuple[int, int]],
               undirected: Iterable[tuple[int, int]], limit: int = 100_000) -> Iterator[Dag]:
    """Every DAG that orients ``undirected`` without a new v-structure or a cycle."""
    parents, children, adjacent, todo = _start(n, directed, undirected)
    found = 0

    def place(i: int) -> Iterator[Dag]:
        nonlocal found
        checkpoint()
        if i == len(todo):
            found += 1
            if found > limit:
                raise BudgetExceeded(f"the equivalence class has more than {limit} members")
            yield Dag(n, tuple(parents))
            return
        a, b = todo[i]
        for tail, head in ((a, b), (b, a)):
            if _allowed(parents, children, adjacent, tail, head):
                parents[head] |= 1 << tail
                children[tail] |= 1 << head
                yield from place(i + 1)
                parents[head] &= ~(1 << tail)
                children[tail] &= ~(1 << head)

    yield from place(0)


def listed_extensions(n: int, directed: Iterable[tuple[int, int]],
                      undirected: Iterable[tuple[int, int]], most: int
                      ) -> list[tuple[Edges, Dag]]:
    """The first ``most`` DAGs that ``extensions`` yields, each with its sorted edge
    list, in the order of those lists (the class's listing order,
    ``oracle.equivalence``).  A completed orientation's edges are the directed edges
    and the orientations placed, sorted once; where the two could overlap (a
    malformed graph: an edge both directed and undirected, or directed both ways)
    they are read off the parent masks instead."""
    directed = tuple(directed)
    parents, children, adjacent, todo = _start(n, directed, undirected)
    pairs = {(min(t, h), max(t, h)) for t, h in directed}
    plain = len(pairs) == len(directed) and pairs.isdisjoint(todo) and len(set(todo)) == len(todo)
    fixed = sorted(directed)
    placed: list[tuple[int, int]] = []
    found: list[tuple[Edges, Dag]] = []
    last = len(todo)

    def place(i: int) -> bool:
        """Place edges i…; False once ``most`` members are found."""
        checkpoint()
        if i == last:
            dag = Dag(n, tuple(parents))
            if plain:
                edges = fixed + placed
                edges.sort()
            else:
                edges = dag.edges()  # read off the parent masks, sorted
            found.append((tuple(edges), dag))
            return len(found) < most
        a, b = todo[i]
        for tail, head in ((a, b), (b, a)):
            # no new v-structure at head, no cycle (head must not reach tail)
            if parents[head] & ~adjacent[tail] & ~(1 << tail) \
                    or reach(children, children[head]) >> tail & 1:
                continue
            parents[head] |= 1 << tail
            children[tail] |= 1 << head
            placed.append((tail, head))
            going = place(i + 1)
            placed.pop()
            parents[head] &= ~(1 << tail)
            children[tail] &= ~(1 << head)
            if not going:
                return False
        return True

    if most > 0:
        place(0)
    found.sort(key=itemgetter(0))
    return found
