"""The independent checker of CaLM's graph answers (shares no code with the solvers).

It reads the question's graph as name → set dictionaries (``CalmGraph.directed_edges()`` /
``bidirected_edges()``) and re-derives each answer by other means than the solvers:

* ancestry by a depth-first walk over parent sets; a "yes" must come with a directed
  path whose every edge is in the graph;
* d-separation by the moral graph of the ancestral set (Lauritzen's criterion), where
  the solvers use Bayes-ball on bitmasks;
* backdoor, front-door and instrument validity written from the definitions again, for
  every option and every reading the solver reports;
* a non-identified effect by its **hedge**: F ⊃ F′ must both be C-forests (one district
  through bidirected edges; one chosen directed edge per non-root vertex, all leading to
  the roots R), F meets the treatment, F′ does not, R ⊆ An(Y) once the edges into the
  treatment are cut (Shpitser & Pearl 2006, Theorem 4);
* an identified effect by Tian & Pearl's c-component identification (2002; complete,
  Huang & Valtorta 2006), a different algorithm from the solver's ID recursion.

``check(question, solution)`` returns None when the solution stands, else why not.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from causal_oracle.oracle.calm.model import (
    CalmGraph,
    Choice,
    Criterion,
    Hedge,
    Identify,
    Picked,
    Reading,
    Relation,
    RelationKind,
    Verdict,
)

Adj = dict[str, set[str]]


def _adjacency(g: CalmGraph) -> tuple[Adj, Adj, Adj]:
    names = g.names
    parents: Adj = {v: set() for v in names}
    children: Adj = {v: set() for v in names}
    spouses: Adj = {v: set() for v in names}
    for i, v in enumerate(names):  # the formal object's masks read bit by bit
        up, bi = g.dag.parents[i], g.spouses[i]
        for j, w in enumerate(names):
            if up >> j & 1:
                parents[v].add(w)
                children[w].add(v)
            if bi >> j & 1:
                spouses[v].add(w)
    return parents, children, spouses


def _closure(start: Iterable[str], step: Adj, within: set[str] | None = None) -> set[str]:
    """``start`` and everything reached by steps (inside ``within`` when given)."""
    seen = set(start)
    stack = list(seen)
    while stack:
        v = stack.pop()
        for w in step[v]:
            if w not in seen and (within is None or w in within):
                seen.add(w)
                stack.append(w)
    return seen


def _d_separated(parents: Adj, xs: set[str], ys: set[str], zs: set[str]) -> bool:
    """Lauritzen: moralise G[An(xs ∪ ys ∪ zs)], drop zs, test connectivity."""
    keep = _closure(xs | ys | zs, parents)
    nbr: Adj = {v: set() for v in keep}
    for v in keep:
        ps = parents[v] & keep
        for p in ps:
            nbr[v].add(p)
            nbr[p].add(v)
        for a, b in combinations(sorted(ps), 2):
            nbr[a].add(b)
            nbr[b].add(a)
    reached = _closure(xs - zs, nbr, keep - zs)
    return not (reached & ys)


def _cut_out(parents: Adj, xs: set[str]) -> Adj:
    return {v: {p for p in ps if p not in xs} for v, ps in parents.items()}


# ---- relations ----------------------------------------------------------------------
def _check_relation(q: Relation, v: Verdict) -> str | None:
    parents, children, _ = _adjacency(q.graph)
    if q.kind is RelationKind.PARENT:
        truth = q.first in parents[q.second]
    else:
        truth = q.first != q.second and q.first in _closure(parents[q.second], parents)
    if v.answer != truth:
        return f"the answer is {truth}, not {v.answer}"
    if truth:
        path = v.path
        if len(path) < 2 or path[0] != q.first or path[-1] != q.second:
            return "the path does not join the two vertices"
        if any(b not in children[a] for a, b in zip(path, path[1:], strict=False)):
            return "the path uses an edge the graph does not have"
        if q.kind is RelationKind.PARENT and len(path) != 2:
            return "a parent is one edge away"
    return None


# ---- identification ------------------------------------------------------------------
def _one_district(nodes: frozenset[str], spouses: Adj) -> bool:
    if not nodes:
        return False
    return _closure({min(nodes)}, spouses, set(nodes)) == set(nodes)


def _c_forest(nodes: frozenset[str], roots: frozenset[str], child: dict[str, str],
              spouses: Adj) -> str | None:
    if not roots or not roots <= nodes:
        return "its roots are not inside it"
    for v in nodes - roots:
        seen = {v}
        while v not in roots:  # each step strictly follows a chosen edge
            v = child.get(v, "")
            if v not in nodes or v in seen:
                return "a vertex does not lead to the roots inside it"
            seen.add(v)
    if not _one_district(nodes, spouses):
        return "it is not one district"
    return None


def _check_hedge(q: Identify, h: Hedge) -> str | None:
    parents, children, spouses = _adjacency(q.graph)
    child: dict[str, str] = {}
    for a, b in h.edges:
        if b not in children.get(a, set()) or a in child:
            return f"the forest edge {a}->{b} is not an edge, or {a} has two"
        child[a] = b
    if not (h.inner < h.forest) or q.treatment not in h.forest or q.treatment in h.inner:
        return "F′ ⊂ F, with the treatment in F and not in F′, fails"
    if any(r in child for r in h.roots) or set(child) != set(h.forest - h.roots):
        return "the forest's edges do not match its roots"
    for nodes, name in ((h.forest, "F"), (h.inner, "F′")):
        why = _c_forest(nodes, h.roots, child, spouses)
        if why:
            return f"{name} is no C-forest: {why}"
    cut = {v: (set() if v == q.treatment else ps) for v, ps in parents.items()}
    if not h.roots <= _closure({q.outcome}, cut):
        return "a root is not an ancestor of the outcome once the treatment is cut"
    return None


def _districts(nodes: set[str], spouses: Adj) -> list[set[str]]:
    """The districts (bidirected components) of G[nodes]."""
    left, out = set(nodes), []
    while left:
        district = _closure({min(left)}, spouses, nodes)
        left -= district
        out.append(district)
    return out


def tian_pearl(g: CalmGraph, x: str, y: str) -> bool:
    """Tian & Pearl (2002), as made complete by Huang & Valtorta (2006): with D the
    ancestors of y in G without x, P(y|do(x)) is identified iff every district C of G[D]
    has Q[C] identified from the district S of G that holds it — ``Identify(C, T)``:
    A = An(C) inside G[T]; A = C: identified; A = T: not; else recurse into the district
    of G[A] that holds C.  (Their earlier single-treatment test — no bidirected path from
    x to a child of x inside G[An(y)] — is only sufficient: in A→B→C→D with A↔C, A↔D the
    effect of C on D is identified although C↔A↔D joins C to its child.)"""
    parents, _children, spouses = _adjacency(g)
    ancestors = _closure({y}, parents, set(g.names) - {x})
    for district in _districts(ancestors, spouses):
        inside = _closure(district, spouses)
        while True:  # T shrinks strictly at every step
            above = _closure(district, parents, inside)
            if above == district:
                break
            if above == inside:
                return False
            inside = next(d for d in _districts(above, spouses) if district <= d)
    return True


def _check_identify(q: Identify, v: Verdict) -> str | None:
    if q.treatment == q.outcome:
        return None if v.degenerate and v.answer else "a degenerate question must be flagged"
    if v.answer:
        return None if tian_pearl(q.graph, q.treatment, q.outcome) else \
            "Tian and Pearl's identification finds a district whose factor is not identified"
    if v.hedge is None:
        return "a non-identified effect needs a hedge"
    return _check_hedge(q, v.hedge)


# ---- choices ---------------------------------------------------------------------------
class _Graph:
    """The question's graph read once per check: parent, child and spouse sets, and the
    descendants of each vertex asked about."""

    def __init__(self, g: CalmGraph, literal: bool = False) -> None:
        self.parents, self.children, self.spouses = _adjacency(g)
        self.literal = literal
        self._below: dict[str, set[str]] = {}

    def descendants(self, v: str) -> set[str]:
        if v not in self._below:
            self._below[v] = _closure({v}, self.children)
        return self._below[v]


def _backdoor_ok(g: _Graph, x: str, y: str, z: frozenset[str], hidden: frozenset[str]
                 ) -> bool:
    if z & hidden or x in z or y in z or z & g.descendants(x):
        return False
    if g.literal or x not in g.descendants(y):
        return _d_separated(_cut_out(g.parents, {x}), {x}, {y}, set(z))
    return not _undirected_open_path(g, x, y, z)


def _undirected_open_path(g: _Graph, x: str, y: str, z: frozenset[str]) -> bool:
    """An open simple path x ← … y other than a directed path y → … → x, by listing
    every simple path from x's parents (recursively, a blocked prefix cut short)."""
    opened = _closure(z, g.parents)

    def walk(path: list[str]) -> bool:
        v = path[-1]
        for w in sorted((g.parents[v] | g.children[v]) - set(path)):
            if len(path) >= 2:  # v is interior: is it open on this path?
                prev = path[-2]
                collider = v in g.children[prev] and v in g.children[w]
                if (collider and v not in opened) or (not collider and v in z):
                    continue
            if w == y:
                full = [*path, w]
                directed = all(b in g.children[a] for a, b in zip(full[1:], full, strict=False))
                if not directed:
                    return True
                continue
            if walk([*path, w]):
                return True
        return False

    return any(walk([x, p]) if p != y else False for p in sorted(g.parents[x]))


def _maximal_overall(g: _Graph, x: str, y: str, z: frozenset[str],
                     hidden: frozenset[str]) -> bool:
    """No valid W ⊋ z: for each extra vertex v, the largest candidate containing z ∪ {v}
    is R ∩ An(x, y, z, v) in the graph without x's outgoing edges (a d-separator between
    bounds exists iff that one is; van der Zander et al. 2019); by enumeration when the
    outcome causes the treatment (CaLM's reading is not d-separation there)."""
    room = set(g.parents) - g.descendants(x) - {y} - hidden
    extra = sorted(room - z)
    if not g.literal and x in g.descendants(y):
        return not any(_backdoor_ok(g, x, y, z | set(more), hidden)
                       for size in range(1, len(extra) + 1)
                       for more in combinations(extra, size))
    cut = _cut_out(g.parents, {x})
    return not any(
        _backdoor_ok(g, x, y, frozenset(_closure({x, y} | z | {v}, cut) & room), hidden)
        for v in extra)


def _option_ok(q: Choice, g: _Graph, z: frozenset[str], hidden: frozenset[str],
               reading: Reading | None) -> bool:
    parents = g.parents
    x, y, c = q.treatment, q.outcome, q.criterion
    if c is Criterion.FRONTDOOR:
        if z & hidden or x in z or y in z:
            return False
        blocked = {v: (set() if v in z else ws) for v, ws in g.children.items()}
        return (y not in _closure(g.children[x] - z, blocked) and
                _d_separated(_cut_out(parents, {x}), {x}, set(z), set()) and
                _d_separated(_cut_out(parents, set(z)), set(z), {y}, {x}))
    if c is Criterion.INSTRUMENT:
        if not z or x in z or y in z:
            return False
        if reading is Reading.PEARL_INSTRUMENT:
            linked = not _d_separated(parents, set(z), {x}, set())
        else:
            linked = z <= parents[x]
        return linked and _d_separated(_cut_out(parents, {x}), set(z), {y}, set())
    if not _backdoor_ok(g, x, y, z, hidden):
        return False
    if c is Criterion.BACKDOOR_MIN:
        return not any(_backdoor_ok(g, x, y, frozenset(s), hidden)
                       for size in range(len(z)) for s in combinations(sorted(z), size))
    if c is Criterion.BACKDOOR_MAX and reading is Reading.MAXIMAL_OVERALL:
        return _maximal_overall(g, x, y, z, hidden)
    return True


def _valid(q: Choice, g: _Graph, hidden: frozenset[str], reading: Reading | None
           ) -> tuple[int, ...]:
    ok = [_option_ok(q, g, z, hidden, reading) for z in q.options]
    if q.criterion is Criterion.BACKDOOR_MAX and reading is not Reading.MAXIMAL_OVERALL:
        ok = [k and not any(o and z < w for o, w in zip(ok, q.options, strict=True))
              for k, z in zip(ok, q.options, strict=True)]
    return tuple(i + 1 for i, k in enumerate(ok) if k)


def _check_choice(q: Choice, p: Picked) -> str | None:
    if q.treatment == q.outcome:
        return None if p.degenerate and not p.valid else "a degenerate question must be flagged"
    g = _Graph(q.graph)
    mine = _valid(q, g, q.hidden, None)
    literal = _Graph(q.graph, literal=True)
    if mine != p.valid:
        return f"the valid options are {mine}, not {p.valid}"
    for reading, valid in p.readings:
        hidden = frozenset() if reading is Reading.A_OBSERVED else q.hidden
        if reading is Reading.LITERAL_BACKDOOR:
            other = _valid(q, literal, hidden, None)
        else:
            other = _valid(q, g, hidden, None if reading is Reading.A_OBSERVED else reading)
        if other != valid:
            return f"in the reading '{reading.value}' the valid options are {other}, not {valid}"
    return None


def check(question: Relation | Identify | Choice, solution: Verdict | Picked) -> str | None:
    """None when ``solution`` answers ``question`` rightly, else why it does not."""
    if isinstance(question, Relation) and isinstance(solution, Verdict):
        return _check_relation(question, solution)
    if isinstance(question, Identify) and isinstance(solution, Verdict):
        return _check_identify(question, solution)
    if isinstance(question, Choice) and isinstance(solution, Picked):
        return _check_choice(question, solution)
    return f"a {type(solution).__name__} does not answer a {type(question).__name__}"


__all__ = ["check", "tian_pearl"]
