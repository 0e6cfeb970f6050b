"""Structural claims decided in one DAG: does it hold here, and if not, why not.

Each claim kind about the graph is one predicate on a ``Dag`` (``holds``), read the
textbook way:

* independence and d-separation — ``x ⊥ y | Z`` iff ``Z`` d-separates them (the
  faithfulness reading every benchmark here uses); correlation is its negation;
* an edge ``x → y``; adjacency either way; ``x`` causes ``y`` iff a directed path
  ``x → … → y`` exists (ancestor); *indirectly* iff such a path has a node between;
* a collider ``x → c ← y``; a named common effect ``c`` is a descendant of both, a
  named confounder an ancestor of both; "x and y have a common effect / cause" asks
  for some third variable that is;
* a mediator ``m`` lies on a directed path ``x → … → m → … → y``;
* a path is blocked by ``Z`` iff one of its inner nodes is a non-collider in ``Z`` or a
  collider with neither itself nor a descendant in ``Z``;
* ``Z`` satisfies the backdoor criterion for ``x`` on ``y`` iff no node of ``Z`` is a
  descendant of ``x`` and ``Z`` d-separates ``x`` and ``y`` once ``x``'s outgoing
  edges are cut; an open backdoor path exists iff the empty set does not;
* ``M`` satisfies the front-door criterion iff it intercepts every directed path from
  ``x`` to ``y``, no backdoor path from ``x`` to ``M`` is open and ``x`` blocks every
  backdoor path from ``M`` to ``y`` (Pearl 2009, 3.3.2);
* ``z`` is an instrument for ``x`` on ``y`` iff ``z`` and ``x`` are d-connected and
  ``z ⊥ y`` once ``x``'s outgoing edges are cut.

``why`` says, for a claim that fails in a graph, what breaks it there: the reversed
edge, the open path, the missing directed path — the witness a false claim carries.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from causal_oracle.oracle.dsep import d_separated, open_path
from causal_oracle.oracle.graph import Dag, bits
from causal_oracle.oracle.reasoning.model import Claim, ClaimKind

K = ClaimKind
#: the kinds decided graph by graph (``holds``)
STRUCTURAL = frozenset({K.INDEPENDENCE, K.CORRELATION, K.D_SEPARATION, K.ADJACENT, K.EDGE,
                        K.CAUSE, K.INDIRECT_CAUSE, K.COLLIDER, K.COMMON_EFFECT,
                        K.CONFOUNDER, K.MEDIATOR, K.PATH_BLOCKED, K.BACKDOOR_PATH,
                        K.ADJUSTMENT_SET, K.FRONTDOOR_SET, K.INSTRUMENT})


def mask(nodes: Sequence[int]) -> int:
    out = 0
    for v in nodes:
        out |= 1 << v
    return out


def dag_text(names: Sequence[str], dag: Dag) -> str:
    """A DAG as its edges: "A→B, B→C" ("no edges")."""
    return ", ".join(f"{names[a]}→{names[b]}" for a, b in dag.edges()) or "no edges"


def cut_outgoing(dag: Dag, x: int) -> Dag:
    """``dag`` without the edges out of ``x`` (the backdoor graph)."""
    return Dag(dag.n, tuple(p & ~(1 << x) for p in dag.parents))


def directed_path(dag: Dag, x: int, y: int) -> list[int] | None:
    """A shortest directed path ``x → … → y`` (None: there is none)."""
    kids = dag.children()
    previous = {x: -1}
    queue = deque([x])
    while queue:
        u = queue.popleft()
        for w in bits(kids[u]):
            if w not in previous:
                previous[w] = u
                if w == y:
                    path = [y]
                    while previous[path[-1]] != -1:
                        path.append(previous[path[-1]])
                    return path[::-1]
                queue.append(w)
    return None


def _collider(dag: Dag, a: int, c: int, b: int) -> bool:
    return dag.has_edge(a, c) and dag.has_edge(b, c)


def _path_blocker(dag: Dag, nodes: Sequence[int], given: int) -> int | None:
    """The first inner node of the path that ``given`` blocks it at (None: open)."""
    closed = dag.ancestors_of(given)
    for a, c, b in zip(nodes, nodes[1:], nodes[2:], strict=False):
        if _collider(dag, a, c, b):
            if not closed >> c & 1:
                return c
        elif given >> c & 1:
            return c
    return None


def _adjustable(dag: Dag, x: int, y: int, given: int) -> bool:
    return not (dag.descendants(x) & given) and d_separated(cut_outgoing(dag, x), x, y,
                                                           given & ~(1 << x | 1 << y))


def _front_door(dag: Dag, x: int, y: int, given: int) -> bool:
    """Pearl's front-door criterion for ``given`` (a set M): M intercepts every directed
    path from x to y, no backdoor path from x to M is open, and x blocks every backdoor
    path from M to y."""
    if not given or given >> x & 1 or given >> y & 1:
        return False
    if dag.descendants(x, avoid=given) >> y & 1:
        return False
    cut_x = cut_outgoing(dag, x)
    if any(not d_separated(cut_x, x, m, 0) for m in bits(given)):
        return False
    cut_m = Dag(dag.n, tuple(p & ~given for p in dag.parents))
    return all(d_separated(cut_m, m, y, 1 << x) for m in bits(given))


def holds(dag: Dag, claim: Claim, query: tuple[int, int] | None = None) -> bool:
    """Whether the positive form of ``claim`` holds in ``dag`` (polarity aside)."""
    v, given = claim.variables, mask(claim.given)
    kind = claim.kind
    if kind in (K.INDEPENDENCE, K.D_SEPARATION, K.CORRELATION):
        x, y = v
        separated = d_separated(dag, x, y, given & ~(1 << x | 1 << y))
        return separated if kind is not K.CORRELATION else not separated
    if kind is K.ADJACENT:
        return dag.has_edge(v[0], v[1]) or dag.has_edge(v[1], v[0])
    if kind is K.EDGE:
        return dag.has_edge(v[0], v[1])
    if kind is K.CAUSE:
        return bool(dag.descendants(v[0]) >> v[1] & 1)
    if kind is K.INDIRECT_CAUSE:
        x, y = v
        return any(dag.descendants(c) >> y & 1 for c in bits(dag.children()[x] & ~(1 << y)))
    if kind is K.COLLIDER:
        if len(v) == 1:  # a collider on some path: two parents
            return dag.parents[v[0]].bit_count() >= 2
        return _collider(dag, v[1], v[0], v[2])
    if kind is K.MEDIATOR:
        m, x, y = v
        return bool(dag.descendants(x) >> m & 1 and dag.descendants(m) >> y & 1)
    if kind in (K.COMMON_EFFECT, K.CONFOUNDER):
        near = dag.descendants if kind is K.COMMON_EFFECT else dag.ancestors
        if len(v) == 3:
            return bool(near(v[1]) >> v[0] & 1 and near(v[2]) >> v[0] & 1)
        return bool(near(v[0]) & near(v[1]) & ~(1 << v[0] | 1 << v[1]))
    if kind is K.PATH_BLOCKED:
        return _path_blocker(dag, v, given) is not None
    x, y = v[:2] if len(v) >= 2 else (query or (0, 0))
    if kind is K.BACKDOOR_PATH:
        return not d_separated(cut_outgoing(dag, x), x, y, 0)
    if kind is K.ADJUSTMENT_SET:
        return _adjustable(dag, x, y, given)
    if kind is K.FRONTDOOR_SET:
        return _front_door(dag, x, y, given)
    if kind is K.INSTRUMENT:
        z = v[0]
        x, y = (v[1], v[2]) if len(v) == 3 else (v[1], query[1]) if len(v) == 2 and query \
            else (query or (0, 0))
        return (not d_separated(dag, z, x, 0)
                and d_separated(cut_outgoing(dag, x), z, y, 0))
    raise ValueError(f"{kind} is not decided graph by graph")


def needs_query(claim: Claim) -> bool:
    """Whether ``claim`` names no treatment and outcome and needs the item's."""
    return (claim.kind in (K.BACKDOOR_PATH, K.ADJUSTMENT_SET, K.FRONTDOOR_SET)
            and len(claim.variables) < 2) \
        or (claim.kind is K.INSTRUMENT and len(claim.variables) < 3)


def why(names: Sequence[str], dag: Dag, claim: Claim, positive: bool,
        query: tuple[int, int] | None = None) -> str:
    """Why ``claim``'s positive form is ``positive`` in ``dag`` (the witness of a false
    claim of the other polarity), in words."""
    n, v, given = names, claim.variables, mask(claim.given)
    kind = claim.kind
    z_text = ", ".join(n[i] for i in claim.given) or "nothing"
    if kind in (K.INDEPENDENCE, K.D_SEPARATION, K.CORRELATION):
        x, y = v
        separated = positive if kind is not K.CORRELATION else not positive
        if separated:
            return f"every path between {n[x]} and {n[y]} is blocked given {z_text}"
        path = open_path(dag, x, y, given & ~(1 << x | 1 << y)) or [x, y]
        return f"the path {arrowed(n, dag, path)} is open given {z_text}"
    if kind in (K.EDGE, K.ADJACENT):
        x, y = v
        if kind is K.ADJACENT and positive:
            return f"{n[x]} and {n[y]} are adjacent"
        if dag.has_edge(x, y):
            return f"the edge is {n[x]}→{n[y]}"
        if dag.has_edge(y, x):
            return f"the edge is {n[y]}→{n[x]}"
        return f"{n[x]} and {n[y]} are not adjacent"
    if kind in (K.CAUSE, K.INDIRECT_CAUSE):
        x, y = v
        path = directed_path(dag, x, y)
        if path is None:
            return f"there is no directed path from {n[x]} to {n[y]}"
        return f"there is the directed path {arrowed(n, dag, path)}"
    if kind is K.PATH_BLOCKED:
        for a, b in zip(v, v[1:], strict=False):
            if not (dag.has_edge(a, b) or dag.has_edge(b, a)):
                return f"{n[a]} and {n[b]} are not adjacent, so there is no such path"
        at = _path_blocker(dag, v, given)
        if at is None:
            return f"the path {arrowed(n, dag, v)} is open given {z_text}"
        return f"the path {arrowed(n, dag, v)} is blocked at {n[at]} given {z_text}"
    if kind in (K.BACKDOOR_PATH, K.ADJUSTMENT_SET) and (len(v) >= 2 or query):
        x, y = v[:2] if len(v) >= 2 else query  # type: ignore[misc]
        below = dag.descendants(x) & given
        if kind is K.ADJUSTMENT_SET and below:
            return f"{n[next(bits(below))]} is a descendant of {n[x]}"
        path = open_path(cut_outgoing(dag, x), x, y, given & ~(1 << x | 1 << y))
        if path is not None:
            return f"the backdoor path {arrowed(n, dag, path)} is open given {z_text}"
        return f"every backdoor path from {n[x]} to {n[y]} is blocked given {z_text}"
    if kind is K.COLLIDER and len(v) == 1:
        parents = [n[p] for p in bits(dag.parents[v[0]])]
        return f"the parents of {n[v[0]]} are {', '.join(parents) or 'none'}"
    if kind is K.COLLIDER:
        c, x, y = v
        edges = [f"{n[a]}→{n[b]}" for a, b in ((x, c), (c, x), (y, c), (c, y))
                 if dag.has_edge(a, b)]
        return f"the edges at {n[c]} are {', '.join(edges) or 'none'}"
    if kind in (K.MEDIATOR, K.COMMON_EFFECT, K.CONFOUNDER) and len(v) == 3:
        m, x, y = v
        pairs = ((x, m), (m, y)) if kind is K.MEDIATOR else ((x, m), (y, m)) \
            if kind is K.COMMON_EFFECT else ((m, x), (m, y))
        for a, b in pairs:
            path = directed_path(dag, a, b)
            if (path is None) == positive or path is None:
                return f"there is no directed path from {n[a]} to {n[b]}" if path is None \
                    else f"there is the directed path {arrowed(n, dag, path)}"
        return "there are the directed paths " + " and ".join(
            arrowed(n, dag, directed_path(dag, a, b) or [a, b]) for a, b in pairs)
    if kind in (K.COMMON_EFFECT, K.CONFOUNDER) and len(v) == 2:
        x, y = v
        near = dag.descendants if kind is K.COMMON_EFFECT else dag.ancestors
        shared = near(x) & near(y) & ~(1 << x | 1 << y)
        word = "descendant" if kind is K.COMMON_EFFECT else "ancestor"
        if not shared:
            return f"{n[x]} and {n[y]} have no common {word}"
        return f"{n[next(bits(shared))]} is a common {word} of {n[x]} and {n[y]}"
    return ("it holds" if positive else "it does not hold") + f" in {dag_text(n, dag)}"


def arrowed(names: Sequence[str], dag: Dag, path: Sequence[int]) -> str:
    """A path with each edge's direction: "A → B ← C"."""
    out = names[path[0]]
    for a, b in zip(path, path[1:], strict=False):
        mark = "→" if dag.has_edge(a, b) else "←" if dag.has_edge(b, a) else "·"
        out += f" {mark} {names[b]}"
    return out


__all__ = ["STRUCTURAL", "arrowed", "cut_outgoing", "dag_text", "directed_path", "holds",
           "mask", "needs_query", "why"]
