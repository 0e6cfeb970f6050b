"""d-separation on bitmask DAGs, by the reachability ("Bayes-ball") algorithm.

A path between ``x`` and ``y`` is *blocked* by a set ``Z`` when it contains

* a chain ``u → m → v`` or a fork ``u ← m → v`` with ``m`` in ``Z``, or
* a collider ``u → m ← v`` where neither ``m`` nor any descendant of ``m`` is in ``Z``.

``x`` and ``y`` are *d-separated* by ``Z`` when every path between them is blocked;
in a DAG that is faithful to a distribution this is exactly conditional
independence ``x ⊥ y | Z``.  A walk is traced through states (node, direction of
arrival); a node is reachable from ``x`` given ``Z`` iff some open path reaches it
(Shachter 1998, "Bayes-Ball"; Koller & Friedman 2009, Algorithm 3.1).

Functions: ``d_separated``, ``open_path`` (a witness that the separation fails),
``independence_set`` (every ``(x, y, Z)`` that the DAG makes independent).
"""

from __future__ import annotations

from collections.abc import Iterator

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.graph import Dag, bits

_UP, _DOWN = 0, 1  # arrived from a child (moving up) / from a parent (moving down)


def _ancestral_closure(dag: Dag, mask: int) -> int:
    seen, frontier = mask, mask
    while frontier:
        nxt = 0
        for v in bits(frontier):
            nxt |= dag.parents[v]
        frontier = nxt & ~seen
        seen |= frontier
    return seen


def _reach(dag: Dag, x: int, given: int, kids: tuple[int, ...]
           ) -> dict[tuple[int, int], tuple[int, int] | None]:
    """Bayes-ball search from ``x``; maps each visited state to its predecessor."""
    anc_given = _ancestral_closure(dag, given)
    start = (x, _UP)
    previous: dict[tuple[int, int], tuple[int, int] | None] = {start: None}
    stack = [start]
    while stack:
        state = stack.pop()
        v, direction = state
        observed = bool(given >> v & 1)
        moves: list[tuple[int, int]] = []
        if direction == _UP and not observed:
            moves += [(p, _UP) for p in bits(dag.parents[v])]
            moves += [(c, _DOWN) for c in bits(kids[v])]
        elif direction == _DOWN:
            if not observed:
                moves += [(c, _DOWN) for c in bits(kids[v])]
            if anc_given >> v & 1:  # a collider that is, or has a descendant, in Z
                moves += [(p, _UP) for p in bits(dag.parents[v])]
        for nxt in moves:
            if nxt not in previous:
                previous[nxt] = state
                stack.append(nxt)
    return previous


def d_separated(dag: Dag, x: int, y: int, given: int) -> bool:
    """Whether ``given`` (a bitmask, excluding x and y) d-separates ``x`` and ``y``."""
    visited = _reach(dag, x, given, dag.children())
    return (y, _UP) not in visited and (y, _DOWN) not in visited


def open_path(dag: Dag, x: int, y: int, given: int) -> list[int] | None:
    """A simple path from ``x`` to ``y`` that ``given`` leaves open, or ``None``.

    Depth-first search over simple paths (exponential in the worst case, so meant
    for explanations on small graphs; ``d_separated`` answers the yes/no question).
    """
    if d_separated(dag, x, y, given):
        return None
    anc_given = _ancestral_closure(dag, given)
    kids = dag.children()
    path = [x]

    def extend(v: int) -> bool:
        for w in bits((dag.parents[v] | kids[v]) & ~_mask(path)):
            if len(path) >= 2:
                u = path[-2]
                collider = dag.has_edge(u, v) and dag.has_edge(w, v)
                if collider and not anc_given >> v & 1:
                    continue
                if not collider and given >> v & 1:
                    continue
            path.append(w)
            if w == y or extend(w):
                return True
            path.pop()
        return False

    return list(path) if extend(x) else None


def _mask(nodes: list[int]) -> int:
    m = 0
    for v in nodes:
        m |= 1 << v
    return m


def reachable(dag: Dag, x: int, given: int, kids: tuple[int, ...] | None = None) -> int:
    """Bitmask of the nodes joined to ``x`` by a path that ``given`` leaves open.

    The same Bayes-ball rules as ``_reach``, run on whole frontiers at once: ``up``
    holds nodes entered from a child, ``down`` nodes entered from a parent.
    """
    kids = kids if kids is not None else dag.children()
    anc_given = _ancestral_closure(dag, given)
    parents = dag.parents
    seen_up, seen_down = 1 << x, 0
    front_up, front_down = 1 << x, 0
    while front_up or front_down:
        pass_through = (front_up | front_down) & ~given  # non-colliders that are not observed
        bounce = front_down & anc_given  # colliders opened by Z
        new_up = new_down = 0
        for v in bits(front_up & ~given | bounce):
            new_up |= parents[v]
        for v in bits(pass_through):
            new_down |= kids[v]
        front_up = new_up & ~seen_up
        front_down = new_down & ~seen_down
        seen_up |= front_up
        seen_down |= front_down
    return (seen_up | seen_down) & ~(1 << x)


def independence_set(dag: Dag) -> frozenset[tuple[int, int, int]]:
    """Every ``(x, y, given)`` with ``x < y`` and ``given ⊆ V∖{x,y}`` that the DAG d-separates."""
    n = dag.n
    kids = dag.children()
    full = (1 << n) - 1
    out = set()
    for x in range(n):
        rest = full & ~(1 << x)
        given = 0
        while True:  # every subset of the other nodes
            open_to = reachable(dag, x, given, kids)
            for y in bits(rest & ~given & ~open_to):
                if y > x:
                    out.add((x, y, given))
            given = (given - rest) & rest
            if given == 0:
                break
    return frozenset(out)


def separations(dag: Dag) -> Iterator[tuple[int, int, int]]:
    """Every ``(x, y, given)`` the DAG d-separates, like ``independence_set`` but lazily
    and only for non-adjacent pairs (adjacent nodes are never separated), so a dense
    DAG on many nodes costs nothing and a sparse one can be stopped at the first
    surprise.  Calls ``checkpoint()`` so a budget bounds the 2^(n-2) subsets per pair."""
    n = dag.n
    kids = dag.children()
    full = (1 << n) - 1
    for x in range(n):
        far = full & ~(1 << x) & ~dag.parents[x] & ~kids[x] & ~((1 << (x + 1)) - 1)
        if not far:
            continue
        rest = full & ~(1 << x)
        given = 0
        while True:
            checkpoint()
            open_to = reachable(dag, x, given, kids)
            for y in bits(far & ~given & ~open_to):
                yield (x, y, given)
            given = (given - rest) & rest
            if given == 0:
                break
