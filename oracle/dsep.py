"""d-separation on bitmask DAGs: one Bayes-ball walk, with an optional witness path.

A *path* between ``x`` and ``y`` is a sequence of distinct nodes, each joined to
the next by an edge in either direction.  A node ``m`` inside a path is a
*collider* when both edges point into it (``u → m ← v``) and a *non-collider*
otherwise (a chain ``u → m → v`` or a fork ``u ← m → v``).  A path is *blocked*
by a set ``Z`` when it contains

* a non-collider in ``Z``, or
* a collider ``m`` such that neither ``m`` nor any descendant of ``m`` is in ``Z``
  (that is, ``m`` is not in ``An(Z)``, the inclusive ancestors of ``Z``, see
  ``oracle.graph``);

otherwise it is *open* (or *active*) given ``Z``.  ``x`` and ``y`` are
*d-separated* by ``Z`` when every path between them is blocked; in a DAG that is
faithful to a distribution this is exactly conditional independence
``x ⊥ y | Z``.  For example ``u ← n → v`` is blocked by ``{n}`` and open given
∅, while ``u → c ← v`` is open given ``{c}`` (or a descendant of ``c``) and
blocked given ∅.

The walk (Shachter 1998, "Bayes-Ball"; Koller & Friedman 2009, Algorithm 3.1;
Geiger, Verma & Pearl 1990) searches states ``(v, ↑)`` "entered from a child"
and ``(v, ↓)`` "entered from a parent", starting from ``(x, ↑)``:

* from ``(v, ↑)`` with ``v ∉ Z``: on to every parent ``(p, ↑)`` and child ``(c, ↓)``;
* from ``(v, ↓)`` with ``v ∉ Z``: on to every child ``(c, ↓)``;
* from ``(v, ↓)`` with ``v ∈ An(Z)``: back up to every parent ``(p, ↑)`` (an
  opened collider).

Each step of the walk keeps the rules above, so the walk enumerates exactly the
*open walks* from ``x`` (like open paths, but nodes may repeat), and a node is
reached iff an open path reaches it.  ``bayes_ball`` runs it on whole frontiers
of states at once (a few integer operations per layer: this is the form the
2^(n-2) separation checks of ``independence_set``/``separations`` use), and on
request records each state's predecessor, breadth first.

From a walk to a witness path: an open walk ``W`` that visits ``v`` at positions
``i < j`` can be cut to ``W[:i] + W[j:]`` and stays open.  Only the new joint at
``v`` changes: if ``v ∈ Z`` both visits were colliders, so the joint is a
collider in ``Z``; if ``v ∈ An(Z) ∖ Z`` any joint is allowed; if ``v ∉ An(Z)``
both visits were non-colliders, and a collider joint would need the walk to
leave ``v`` along an out-edge and come back along another out-edge, turning
round at a collider below ``v`` — one in ``An(Z)``, making ``v ∈ An(Z)``.
Erasing loops in order therefore turns the recorded walk into a simple open
path (``open_path``).

Every separation at once: ``separating_sets`` runs the same walk for every start
``x`` and every conditioning set ``Z`` together, *bit-sliced*: a state's integer has
one bit per (x, Z) — ``n · 2^n`` bits — and a frontier step is a handful of integer
operations per edge for all of them, where the walks one by one cost ``n · 2^(n-1)``
searches.  Its masks are what a premise is compared with (``oracle.equivalence``).

Functions: ``bayes_ball`` (the walk), ``reachable``, ``d_separated``,
``open_path`` (a witness that the separation fails), ``blocked_paths`` (why it
holds: the paths between the two, each cut at its first blocking node),
``independence_set`` and ``separations`` (every ``(x, y, Z)`` the DAG d-separates),
``separating_sets`` (the same, as one mask of sets per pair).
"""

from __future__ import annotations

from collections.abc import Iterator

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.graph import Dag, bits, reach, reach_from

#: the most variables ``separating_sets`` takes (n · 2^n bits per state: 12 → 48 Ki bits)
SLICED_LIMIT = 12
UP, DOWN = 0, 1  # a state's direction: entered from a child (moving up) / from a parent
State = tuple[int, int]


def bayes_ball(dag: Dag, x: int, given: int, kids: tuple[int, ...] | None = None,
               previous: dict[State, State | None] | None = None,
               opened: int | None = None, until: int = 0) -> tuple[int, int]:
    """The states an open walk from ``x`` reaches given ``given`` (a bitmask).

    Returns ``(up, down)``: the nodes entered from a child, and those entered from
    a parent; ``x`` counts as entered from a child (the start state).  When
    ``previous`` is a dict it receives every reached state's predecessor state
    (the start maps to ``None``), breadth first, so each recorded walk is a
    shortest one.  ``kids`` saves recomputing ``dag.children()`` in hot loops, and
    ``opened`` (``An(given)``, which ``reach`` gives) a look-up in the memory for a
    caller that walks once per ``given``.  With ``until`` the walk stops once it has
    reached a node of that mask (what it returns then holds that node, but not
    necessarily every node an open walk reaches): for a caller that asks only whether.

    >>> g = Dag.from_edges(3, [(0, 1), (2, 1)])  # 0 → 1 ← 2
    >>> bayes_ball(g, 0, 0), bayes_ball(g, 0, 0b010)
    ((1, 2), (5, 2))
    """
    kids = kids if kids is not None else dag.children()
    parents = dag.parents
    if opened is None:  # An(given): colliders that let the walk turn up
        opened = reach_from(parents, given)
    if previous is not None:
        previous[(x, UP)] = None
    seen_up = front_up = 1 << x
    seen_down = front_down = 0
    while front_up or front_down:
        go_up = front_up & ~given | front_down & opened
        go_down = (front_up | front_down) & ~given
        new_up = new_down = 0
        if previous is None:  # the hot path: set bits peeled inline, no generator
            while go_up:
                low = go_up & -go_up
                new_up |= parents[low.bit_length() - 1]
                go_up ^= low
            while go_down:
                low = go_down & -go_down
                new_down |= kids[low.bit_length() - 1]
                go_down ^= low
        else:  # the same, ascending, recording each new state's predecessor
            while go_up:
                low = go_up & -go_up
                go_up ^= low
                v = low.bit_length() - 1
                source = (v, UP) if (front_up & ~given) & low else (v, DOWN)
                fresh = parents[v] & ~seen_up & ~new_up
                while fresh:
                    w = fresh & -fresh
                    fresh ^= w
                    previous[(w.bit_length() - 1, UP)] = source
                new_up |= parents[v]
            while go_down:
                low = go_down & -go_down
                go_down ^= low
                v = low.bit_length() - 1
                source = (v, UP) if front_up & low else (v, DOWN)
                fresh = kids[v] & ~seen_down & ~new_down
                while fresh:
                    w = fresh & -fresh
                    fresh ^= w
                    previous[(w.bit_length() - 1, DOWN)] = source
                new_down |= kids[v]
        front_up = new_up & ~seen_up
        front_down = new_down & ~seen_down
        seen_up |= front_up
        seen_down |= front_down
        if (front_up | front_down) & until:
            break
    return seen_up, seen_down


def reachable(dag: Dag, x: int, given: int, kids: tuple[int, ...] | None = None) -> int:
    """Bitmask of the nodes other than ``x`` joined to ``x`` by a path ``given`` leaves open."""
    up, down = bayes_ball(dag, x, given, kids)
    return (up | down) & ~(1 << x)


def d_separated(dag: Dag, x: int, y: int, given: int) -> bool:
    """Whether ``given`` (a bitmask, excluding x and y) d-separates ``x`` and ``y``.

    >>> g = Dag.from_edges(3, [(1, 0), (1, 2)])  # 0 ← 1 → 2
    >>> d_separated(g, 0, 2, 0), d_separated(g, 0, 2, 0b010)
    (False, True)
    """
    up, down = bayes_ball(dag, x, given)
    return not (up | down) >> y & 1


def open_path(dag: Dag, x: int, y: int, given: int) -> list[int] | None:
    """A simple path from ``x`` to ``y`` (``x ≠ y``) that ``given`` leaves open, or ``None``.

    The walk's recorded route to ``y`` with its loops erased (module docstring).

    >>> g = Dag.from_edges(4, [(0, 1), (2, 1), (1, 3)])  # 0 → 1 ← 2, 1 → 3
    >>> open_path(g, 0, 2, 0) is None, open_path(g, 0, 2, 0b1000)
    (True, [0, 1, 2])
    """
    previous: dict[State, State | None] = {}
    up, down = bayes_ball(dag, x, given, previous=previous)
    state: State | None
    if up >> y & 1:
        state = (y, UP)
    elif down >> y & 1:
        state = (y, DOWN)
    else:
        return None
    walk = []
    while state is not None:
        walk.append(state[0])
        state = previous[state]
    return _erase_loops(walk[::-1])


def _erase_loops(walk: list[int]) -> list[int]:
    """``walk`` with every closed sub-walk cut out, in order (chronological loop erasure)."""
    path: list[int] = []
    on_path: set[int] = set()
    for v in walk:
        if v in on_path:
            while path[-1] != v:
                on_path.discard(path.pop())
        else:
            path.append(v)
            on_path.add(v)
    return path


#: the start of a path from ``x`` (see ``blocked_paths``) and the node that blocks it
Cut = tuple[tuple[int, ...], int]


def blocked_paths(dag: Dag, x: int, y: int, given: int, limit: int = 4
                  ) -> tuple[list[Cut], bool]:
    """Why ``given`` d-separates ``x`` and ``y``, path by path.  Returns ``(cuts, more)``.

    Each cut ``(prefix, blocker)`` covers the paths from ``x`` to ``y`` whose first
    blocking node is ``blocker`` — a non-collider in ``given``, or a collider that is
    not in ``An(given)`` — and which begin with ``prefix``: it ends at ``blocker``
    when every way on from there is blocked, else at the one next node (or at ``y``:
    then it is the whole path).  Only prefixes that a simple path to ``y`` continues
    are searched, depth first from ``x`` in index order, so the cuts cover every
    blocked path, and ``[]`` means no path joins ``x`` and ``y``.  Paths that
    ``given`` leaves open have no cut (there are none when ``x`` and ``y`` are
    d-separated).  At most ``limit`` cuts are returned; ``more`` says another
    exists.  Each search step leads towards ``y``, and when ``x`` and ``y`` are
    d-separated every branch ends in a cut, so the search pops at most about
    ``(limit + 1) * n`` prefixes; ``checkpoint()`` bounds it otherwise.

    >>> g = Dag.from_edges(4, [(0, 1), (1, 2), (0, 3), (2, 3)])  # 0 → 1 → 2, 0 → 3 ← 2
    >>> blocked_paths(g, 0, 2, 0b0010)
    ([((0, 1, 2), 1), ((0, 3, 2), 3)], False)
    >>> g = Dag.from_edges(4, [(1, 0), (1, 2), (1, 3), (3, 2)])  # 0 ← 1 → 2, 1 → 3 → 2
    >>> blocked_paths(g, 0, 2, 0b0010)  # 1 blocks both ways on: one cut
    ([((0, 1), 1)], False)
    >>> blocked_paths(Dag.from_edges(3, [(0, 1)]), 0, 2, 0)
    ([], False)
    """
    parents, kids = dag.parents, dag.children()
    nbrs = tuple(p | k for p, k in zip(parents, kids, strict=True))
    opened = reach_from(parents, given)  # An(given): the colliders that do not block
    cuts: list[Cut] = []
    stack: list[tuple[int, ...]] = [(x,)]
    while stack:
        checkpoint()
        path = stack.pop()
        used = 0
        for v in path:
            used |= 1 << v
        last = path[-1]
        # the next nodes through which a simple path goes on to y
        ways = [w for w in bits(nbrs[last] & ~used)
                if w == y or reach(nbrs, 1 << w, used) >> y & 1]
        blocked = []
        if len(path) > 1:
            u = path[-2]
            for w in ways:
                if parents[last] >> u & 1 and parents[last] >> w & 1:  # a collider
                    if not opened >> last & 1:
                        blocked.append(w)
                elif given >> last & 1:
                    blocked.append(w)
        if blocked and blocked == ways and ways != [y]:
            found = [(path, last)]
        else:
            found = [((*path, w), last) for w in blocked]
        for cut in found:
            if len(cuts) == limit:
                return cuts, True
            cuts.append(cut)
        stack.extend(reversed([(*path, w) for w in ways if w not in blocked and w != y]))
    return cuts, False


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


def in_set_masks(n: int) -> list[int]:
    """Per node v, the ``2^n``-bit mask whose bit Z is set iff v ∈ Z (Z read as a
    bitmask): runs of 2^v zeros and 2^v ones, written as one division."""
    width = 1 << n
    full = (1 << width) - 1
    return [full // ((1 << (2 << v)) - 1) * (((1 << (1 << v)) - 1) << (1 << v))
            for v in range(n)]


def separating_sets(dag: Dag) -> dict[tuple[int, int], int]:
    """For every pair ``x < y`` that some set d-separates, the mask of those sets: bit Z
    is set iff Z (a bitmask without x and y) d-separates x and y.  ``n ≤ SLICED_LIMIT``.

    The Bayes-ball walk (module docstring) from every ``(x, ↑)`` for every ``Z`` at
    once: bit ``k · 2^n + Z`` of ``up[v]`` (``down[v]``) says that the walk from the
    k-th start x given Z enters v from a child (a parent); the starts are the nodes
    with a non-adjacent partner after them (a complete graph has none: nothing to
    walk).  Sweeps in topological order (moves down) and back (moves up) repeat until
    nothing changes: the least fixpoint, the states an open walk reaches.

    >>> separating_sets(Dag.from_edges(3, [(0, 1), (1, 2)]))  # 0 → 1 → 2: only Z = {1}
    {(0, 2): 4}
    """
    n = dag.n
    if n > SLICED_LIMIT:
        raise ValueError(f"separating_sets takes at most {SLICED_LIMIT} variables")
    width = 1 << n
    full = (1 << width) - 1
    parents, kids = dag.parents, dag.children()
    # the starts x that some y > x is not adjacent to (no other pair can be separated)
    starts = [x for x in range(n)
              if ((1 << n) - 1) & ~((2 << x) - 1) & ~parents[x] & ~kids[x]]
    if not starts:
        return {}
    order = dag.topological_order()
    if order is None:
        raise ValueError("separating_sets needs an acyclic graph")
    every = (1 << (len(starts) * width)) - 1
    spread = every // full  # bit k · 2^n for each start k: copies a Z-mask into each block
    member = in_set_masks(n)
    outside = [every & ~(m * spread) for m in member]  # v ∉ Z
    inside = [m * spread for m in member]
    # v ∈ An(Z): v or one of its descendants is in Z (a collider there lets the walk turn)
    opened = []
    for v in range(n):
        mask = inside[v]
        for w in bits(dag.descendants(v)):
            mask |= inside[w]
        opened.append(mask)
    up = [0] * n
    for k, x in enumerate(starts):  # the start states (x, ↑)
        up[x] |= full << (k * width)
    down = [0] * n
    downward = [(c, list(bits(parents[c]))) for c in order if parents[c]]
    upward = [(p, list(bits(kids[p]))) for p in reversed(order) if kids[p]]
    changed = True
    while changed:
        checkpoint()
        changed = False
        for c, ps in downward:  # (p, ↑) or (p, ↓) with p ∉ Z → (c, ↓)
            got = down[c]
            for p in ps:
                got |= (up[p] | down[p]) & outside[p]
            if got != down[c]:
                down[c] = got
                changed = True
        for p, cs in upward:  # (c, ↑) with c ∉ Z, or (c, ↓) with c ∈ An(Z) → (p, ↑)
            got = up[p]
            for c in cs:
                got |= up[c] & outside[c] | down[c] & opened[c]
            if got != up[p]:
                up[p] = got
                changed = True
    out = {}
    for k, x in enumerate(starts):
        for y in range(x + 1, n):
            reached = (up[y] | down[y]) >> (k * width)
            sets = ~reached & full & ~member[x] & ~member[y]
            if sets:
                out[(x, y)] = sets
    return out
