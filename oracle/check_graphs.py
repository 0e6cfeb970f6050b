"""The Corr2Cause checker's own DAGs: d-separation by moralisation and the whole class.

The checker (``oracle.check``) shares no code with the solvers, so it keeps its own
graph primitives here, each chosen to differ from the solvers' method:

* a DAG is a tuple of edges; ``parent_masks`` turns it into one bit mask of parents per
  node, ``acyclic`` peels sources, ``reach`` is a plain bounded search;
* d-separation is **Lauritzen's moralisation criterion** (``Moral``): X and Y are
  d-separated by Z iff Z separates them in the moral graph of the ancestral set of
  X ∪ Y ∪ Z — not the solvers' Bayes-ball walk;
* ``fits_premise`` asks whether a DAG's d-separations are *exactly* the premise's listed
  independencies (the closed world, faithfulness); on up to ``SLICED_LIMIT`` variables
  ``moral_separations`` first answers for every pair and conditioning set at once, the
  moral graphs' connectivity *bit-sliced* (one bit per (pair, set) in each integer);
* the Markov equivalence class is enumerated by **covered-edge reversals** from one
  member (``equivalent_dags``, Chickering 1995; ``markov_class`` as edge lists), not by
  the solvers' orientation search over a CPDAG or their SAT encoding; ``class_from``
  remembers the class of a premise once established, and ``whole_class`` says whether a
  listing is all of it.

>>> markov = markov_class(3, ((0, 1), (1, 2)))  # the chain 0 → 1 → 2
>>> sorted(markov)
[((0, 1), (1, 2)), ((1, 0), (1, 2)), ((1, 0), (2, 1))]
>>> fits_premise(3, ((0, 1), (1, 2)), frozenset({(0, 2, 1 << 1)}))
''
"""

from __future__ import annotations

from collections.abc import Sequence

from causal_oracle.oracle.memo import keep, memoised, recall

Edges = tuple[tuple[int, int], ...]
#: the most variables ``moral_separations`` takes (pairs · 2^n bits per node)
SLICED_LIMIT = 10


# ---------------------------------------------------------------- graph basics
def parent_masks(n: int, edges: Edges) -> tuple[int, ...]:
    parents = [0] * n
    for t, h in edges:
        parents[h] |= 1 << t
    return tuple(parents)


def acyclic(n: int, parents: tuple[int, ...]) -> bool:
    order_found = 0
    for _ in range(n):
        progressed = False
        for v in range(n):
            if not order_found >> v & 1 and parents[v] & ~order_found == 0:
                order_found |= 1 << v
                progressed = True
        if not progressed:
            break
    return order_found == (1 << n) - 1


def reach(start: int, step: Sequence[int], blocked: int = 0) -> int:
    """Nodes reachable from ``start`` by ≥ 1 steps never entering ``blocked``."""
    seen, frontier = 0, step[start] & ~blocked
    while frontier:
        seen |= frontier
        nxt = 0
        m = frontier
        while m:
            low = m & -m
            nxt |= step[low.bit_length() - 1]
            m ^= low
        frontier = nxt & ~seen & ~blocked
    return seen


# ------------------------------------------------------ d-separation (moral graph)
class Moral:
    """d-separation queries on one DAG, by the moralisation criterion.

    x ⊥ y | Z iff x and y are disconnected in the moral graph of the ancestral set
    of {x, y} ∪ Z once Z is removed (Lauritzen et al. 1990).
    """

    def __init__(self, n: int, parents: tuple[int, ...]) -> None:
        self.n = n
        self.parents = parents
        self._moral: dict[int, tuple[int, ...]] = {}

    def _ancestral(self, mask: int) -> int:
        seen = frontier = mask
        parents = self.parents
        while frontier:
            nxt = 0
            while frontier:
                low = frontier & -frontier
                nxt |= parents[low.bit_length() - 1]
                frontier ^= low
            frontier = nxt & ~seen
            seen |= frontier
        return seen

    def _moral_graph(self, ancestral: int) -> tuple[int, ...]:
        graph = self._moral.get(ancestral)
        if graph is None:
            nbrs = [0] * self.n
            for v in range(self.n):
                if not ancestral >> v & 1:
                    continue
                ps = self.parents[v] & ancestral
                nbrs[v] |= ps
                for p in range(self.n):
                    if ps >> p & 1:
                        nbrs[p] |= (1 << v) | (ps & ~(1 << p))
            graph = tuple(nbrs)
            self._moral[ancestral] = graph
        return graph

    def separated(self, x: int, y: int, given: int) -> bool:
        graph = self._moral_graph(self._ancestral((1 << x) | (1 << y) | given))
        return not reach(x, graph, given) >> y & 1


def set_bits(n: int) -> list[int]:
    """Per node v the ``2^n``-bit mask with bit Z set iff v ∈ Z: 2^v zeros then 2^v
    ones, repeated (built by doubling)."""
    out = []
    for v in range(n):
        run = 1 << v
        mask = ((1 << run) - 1) << run  # one period: 2^v zeros, then 2^v ones
        period = 2 * run
        while period < 1 << n:
            mask |= mask << period
            period *= 2
        out.append(mask)
    return out


def moral_separations(n: int, parents: tuple[int, ...]) -> dict[tuple[int, int], int]:
    """For every non-adjacent pair ``x < y`` that some set separates, the mask of the sets
    Z (x, y ∉ Z; bit Z) that separate them by the moralisation criterion (``Moral``).

    All pairs and sets at once: node v's integer has one ``2^n``-bit block per pair,
    bit Z of a block standing for "the ancestral set of {x, y} ∪ Z" — v is in it when
    it is an ancestor of x or y (the whole block) or of a node of Z.  A moral edge is
    there for a (pair, Z) exactly when the child it comes from (the edge's head, or the
    common child of married parents) is in that ancestral set; x's component once Z is
    removed grows along such edges until nothing changes.  ``acyclic`` parents only.
    """
    full = (1 << (1 << n)) - 1
    kids = [0] * n
    for h in range(n):
        for t in range(n):
            if parents[h] >> t & 1:
                kids[t] |= 1 << h
    pairs = [(x, y) for x in range(n) for y in range(x + 1, n)
             if not (parents[x] >> y & 1 or parents[y] >> x & 1)]
    if not pairs:
        return {}
    width = 1 << n
    blocks = len(pairs)
    copies = ((1 << (blocks * width)) - 1) // full  # bit k · 2^n for every pair k
    in_z = [m * copies for m in set_bits(n)]
    below = [reach(v, kids) | 1 << v for v in range(n)]  # v and its descendants
    kept = []  # v in An({x, y} ∪ Z)
    for v in range(n):
        mask = 0
        for w in range(n):
            if below[v] >> w & 1:
                mask |= in_z[w]
        for k, (x, y) in enumerate(pairs):
            if below[v] >> x & 1 or below[v] >> y & 1:
                mask |= full << (k * width)
        kept.append(mask)
    links: dict[tuple[int, int], int] = {}  # moral edge u — w: where it is present
    for c in range(n):
        ps = [p for p in range(n) if parents[c] >> p & 1]
        for i, p in enumerate(ps):
            links[(p, c)] = links.get((p, c), 0) | kept[c]
            for q in ps[i + 1:]:
                links[(p, q)] = links.get((p, q), 0) | kept[c]
    steps = [(u, w, m) for (a, b), m in links.items() for u, w in ((a, b), (b, a))]
    free = [~m for m in in_z]
    seen = [0] * n
    for k, (x, _) in enumerate(pairs):
        seen[x] |= full << (k * width)
    grown = True
    while grown:
        grown = False
        for u, w, m in steps:
            more = seen[u] & free[u] & m & ~seen[w]
            if more:
                seen[w] |= more
                grown = True
    out = {}
    for k, (x, y) in enumerate(pairs):
        sets = ~(seen[y] >> (k * width)) & full & ~in_z[x] & ~in_z[y]
        if sets:
            out[(x, y)] = sets
    return out


@memoised(scale=2)
def fits_premise(n: int, edges: Edges, listed: frozenset[tuple[int, int, int]]) -> str:
    """"" if the DAG's d-separations are exactly ``listed``; else why not (the first
    disagreement, pair by pair and set by set; ``moral_separations`` answers the
    usual case, a DAG that fits, first)."""
    parents = parent_masks(n, edges)
    if not acyclic(n, parents):
        return "a member is not acyclic"
    if n <= SLICED_LIMIT:  # as many separations as listed, and every listed one there
        found = moral_separations(n, parents)
        if sum(sets.bit_count() for sets in found.values()) == len(listed) and all(
                given >= 0 and found.get((x, y), 0) >> given & 1 for x, y, given in listed):
            return ""
    moral = Moral(n, parents)
    for x in range(n):
        for y in range(x + 1, n):
            if parents[x] >> y & 1 or parents[y] >> x & 1:
                # adjacent nodes are never d-separated (the edge is an open path)
                if any(k[0] == x and k[1] == y for k in listed):
                    return (f"member {list(edges)} joins {x} and {y}, which the premise "
                            f"separates")
                continue
            others = ((1 << n) - 1) & ~(1 << x) & ~(1 << y)
            given = 0
            while True:  # every subset of the other nodes
                if moral.separated(x, y, given) != ((x, y, given) in listed):
                    return (f"member {list(edges)} disagrees with the premise on "
                            f"({x}, {y} | {given:#b})")
                given = (given - others) & others
                if not given:
                    break
    return ""


def v_structures(n: int, parents: tuple[int, ...],
                 adjacent: set[tuple[int, int]]) -> set[tuple[int, int, int]]:
    """Triples ``(a, c, b)``, ``a < b``, with ``a → c ← b`` and ``(a, b)`` not in ``adjacent``."""
    found = set()
    for c in range(n):
        ps = [p for p in range(n) if parents[c] >> p & 1]
        for i, a in enumerate(ps):
            for b in ps[i + 1:]:
                if (a, b) not in adjacent:
                    found.add((a, c, b))
    return found


# ------------------------------------------------------------ equivalence class
def as_parents(n: int, edges: Edges) -> tuple[int, ...] | None:
    """``parent_masks`` of a listed member, or None when an edge is out of range, a
    loop or repeated (such a listing is no DAG of the class)."""
    parents = [0] * n
    for t, h in edges:
        if not (0 <= t < n and 0 <= h < n) or t == h or parents[h] >> t & 1:
            return None
        parents[h] |= 1 << t
    return tuple(parents)


def edges_of(n: int, parents: tuple[int, ...]) -> Edges:
    """The sorted edges of parent masks (``parent_masks`` undone)."""
    return tuple((t, h) for t in range(n) for h in range(n) if parents[h] >> t & 1)


@memoised(limit=16384)
def equivalent_dags(parents: tuple[int, ...]) -> frozenset[tuple[int, ...]]:
    """Every DAG Markov equivalent to the acyclic ``parents``, as parent masks.

    An edge ``t → h`` is *covered* when ``Pa(h) = Pa(t) ∪ {t}``; reversing a covered
    edge keeps the graph acyclic and Markov equivalent, and any two equivalent DAGs are
    joined by a sequence of covered-edge reversals (Chickering 1995, "A transformational
    characterization of equivalent Bayesian network structures", Lemma 1 and Theorem 2).
    So the class is what a search over covered-edge reversals reaches from one member.
    """
    found = {parents}
    todo = [parents]
    while todo:
        dag = todo.pop()
        for h, above in enumerate(dag):
            rest = above
            while rest:
                low = rest & -rest
                rest ^= low
                t = low.bit_length() - 1
                if dag[t] | low == above:  # t → h is covered: reverse it
                    turned = list(dag)
                    turned[h], turned[t] = dag[t], dag[t] | 1 << h
                    other = tuple(turned)
                    if other not in found:
                        found.add(other)
                        todo.append(other)
    return frozenset(found)


def markov_class(n: int, edges: Edges) -> frozenset[Edges]:
    """Every DAG with the skeleton and v-structures of the acyclic ``edges`` (Verma &
    Pearl 1990: the DAGs Markov equivalent to it), by covered-edge reversals."""
    return frozenset(edges_of(n, p) for p in equivalent_dags(parent_masks(n, edges)))


#: the store of classes the checker has established, by (n, listed separations)
_VERIFIED = "causal_oracle.oracle.check.verified_classes"


def class_from(n: int, member: Edges, listed: frozenset[tuple[int, int, int]]
               ) -> tuple[frozenset[tuple[int, ...]] | None, str]:
    """The set of DAGs whose d-separations are exactly ``listed`` (as parent masks:
    ``as_parents`` turns a listed member into one), found from one of them.

    ``member`` must fit the premise exactly; the class is then the DAGs Markov
    equivalent to it.  The class is unique, so once established it is remembered for
    the premise and later members are checked by membership.
    """
    key = (n, listed)
    known = recall(_VERIFIED, key)
    if known is not None:
        return known, ""
    why = fits_premise(n, member, listed)
    if why:
        return None, why
    found = equivalent_dags(parent_masks(n, member))
    keep(_VERIFIED, key, found, 16384)
    return found, ""


def whole_class(n: int, members: tuple[Edges, ...],
                listed: frozenset[tuple[int, int, int]]) -> str:
    """"" if ``members`` are exactly the DAGs whose d-separations are ``listed``, each
    once."""
    found, why = class_from(n, members[0], listed)
    if found is None:
        return why
    given = {as_parents(n, m) for m in members}
    if len(given) != len(members) or given != found:
        return "the listed members are not exactly the class"
    return ""


@memoised(scale=2)
def parent_masks_cached(n: int, edges: Edges) -> tuple[int, ...]:
    return parent_masks(n, edges)


