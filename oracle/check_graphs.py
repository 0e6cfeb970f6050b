"""The Corr2Cause checker's own DAGs: d-separation by moralisation and the whole class.

The checker (``oracle.check``) shares no code with the solvers, so it keeps its own
graph primitives here, each chosen to differ from the solvers' method:

* a DAG is a tuple of edges; ``parent_masks`` turns it into one bit mask of parents per
  node, ``acyclic`` peels sources, ``reach`` is a plain bounded search;
* d-separation is **Lauritzen's moralisation criterion** (``Moral``): X and Y are
  d-separated by Z iff Z separates them in the moral graph of the ancestral set of
  X ∪ Y ∪ Z — not the solvers' Bayes-ball walk;
* ``fits_premise`` asks whether a DAG's d-separations are *exactly* the premise's listed
  independencies (the closed world, faithfulness);
* the Markov equivalence class is enumerated by **branching over edge orientations**
  (``markov_class``: the DAGs with the member's skeleton and v-structures, Verma & Pearl
  1990), not by the solvers' SAT encoding; ``class_from`` remembers the class of a
  premise once established, and ``whole_class`` says whether a listing is all of it.

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


@memoised(scale=2)
def fits_premise(n: int, edges: Edges, listed: frozenset[tuple[int, int, int]]) -> str:
    """"" if the DAG's d-separations are exactly ``listed``; else why not."""
    parents = parent_masks(n, edges)
    if not acyclic(n, parents):
        return "a member is not acyclic"
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
    return {(a, c, b) for c in range(n) for a in range(n) for b in range(a + 1, n)
            if parents[c] >> a & 1 and parents[c] >> b & 1 and (a, b) not in adjacent}


# ------------------------------------------------------------ equivalence class
@memoised(limit=16384)
def markov_class(n: int, edges: Edges) -> frozenset[Edges]:
    """Every DAG with the skeleton and v-structures of ``edges`` (by orientation search)."""
    parents = parent_masks(n, edges)
    adjacent = [0] * n
    for t, h in edges:
        adjacent[t] |= 1 << h
        adjacent[h] |= 1 << t
    skeleton = sorted((min(t, h), max(t, h)) for t, h in edges)
    vstructs = v_structures(n, parents, set(skeleton))
    found: set[Edges] = set()
    kids = [0] * n
    pars = [0] * n
    # the edges of a v-structure point into its middle in every member: place them first
    # (they come from one acyclic DAG, so they are acyclic and clash with nothing)
    for a, c, b in vstructs:
        for t in (a, b):
            kids[t] |= 1 << c
            pars[c] |= 1 << t
    skeleton = [(a, b) for a, b in skeleton if not (pars[b] >> a & 1 or pars[a] >> b & 1)]

    def allowed(t: int, h: int) -> bool:
        if reach(h, kids) >> t & 1:  # h already reaches t: a cycle
            return False
        loose = pars[h] & ~adjacent[t]  # parents of h not adjacent to t
        while loose:
            low = loose & -loose
            c = low.bit_length() - 1
            if (min(c, t), h, max(c, t)) not in vstructs:
                return False
            loose ^= low
        return True

    def place(i: int) -> None:
        if i == len(skeleton):
            # ``allowed`` admitted no v-structure outside ``vstructs``; all of them must be here
            if all(pars[c] >> a & 1 and pars[c] >> b & 1 for a, c, b in vstructs):
                found.add(tuple(sorted((t, h) for h in range(n) for t in range(n)
                                       if pars[h] >> t & 1)))
            return
        a, b = skeleton[i]
        for t, h in ((a, b), (b, a)):
            if allowed(t, h):
                kids[t] |= 1 << h
                pars[h] |= 1 << t
                place(i + 1)
                kids[t] &= ~(1 << h)
                pars[h] &= ~(1 << t)

    place(0)
    return frozenset(found)


#: the store of classes the checker has established, by (n, listed separations)
_VERIFIED = "causal_oracle.oracle.check.verified_classes"


def class_from(n: int, member: Edges, listed: frozenset[tuple[int, int, int]]
               ) -> tuple[frozenset[Edges] | None, str]:
    """The set of DAGs whose d-separations are exactly ``listed``, found from one of them.

    ``member`` must fit the premise exactly; the class is then the DAGs with its skeleton
    and v-structures.  The class is unique, so once established it is remembered for
    the premise and later members are checked by membership.
    """
    key = (n, listed)
    known = recall(_VERIFIED, key)
    if known is not None:
        return known, ""
    why = fits_premise(n, member, listed)
    if why:
        return None, why
    found = markov_class(n, member)
    keep(_VERIFIED, key, found, 16384)
    return found, ""


def whole_class(n: int, members: tuple[Edges, ...],
                listed: frozenset[tuple[int, int, int]]) -> str:
    """"" if ``members`` are exactly the DAGs whose d-separations are ``listed``."""
    found, why = class_from(n, members[0], listed)
    if found is None:
        return why
    if len(found) != len(members) or not found.issuperset(members):
        return "the listed members are not exactly the class"
    return ""


@memoised(scale=2)
def parent_masks_cached(n: int, edges: Edges) -> tuple[int, ...]:
    return parent_masks(n, edges)


