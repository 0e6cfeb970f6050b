"""One solver per CLEAR task: the set of right answers, and validity of one answer.

Every task reduces to a *universe* of candidate answers and a *validity* test
(DESIGN.md §3.5):

* find all (FA): the exact set of valid items; how many (HM): its size;
  existence (EX): whether it is non-empty;
* yes/no (YN): validity of the item the question names;
* multiple choice (MC): validity of each option (the letters of the valid ones);
* find one (FO): **any** valid item is right, so the solver gives one example and
  ``fo_valid`` decides a proposed answer.

Items are canonical: node names, edge keys ``(tail, "->", head)`` / sorted pairs,
3-node structures as node sets, paths as ``Walk``, orders as tuples, node sets as
frozensets, partitions as sets of frozensets, a DAG as ``MixedGraph``.

Textbook definitions used (DESIGN.md §3.5 has the wording):

* fork ``a<-m->b``, chain ``a->m->b``, v-structure ``a->m<-b``, each with a and b
  non-adjacent; ancestors and descendants are proper;
* path: no repeated node, every step an edge (an ADMG's ``A<->B`` is its own edge);
  directed path: every step ``->``; cycle: a closed directed walk, no repeated node
  but its ends;
* blocked path, d-/m-separation: see ``graph``; "minimal" means no proper subset works;
* backdoor path from X to Y: a path whose first edge has an arrowhead at X;
  backdoor set Z for (X, Y): no descendant of X, and Z blocks every backdoor path;
* frontdoor set Z: Z intercepts every directed path X⇝Y, every backdoor path from X
  to Z is blocked by ∅, and every backdoor path from Z to Y is blocked by {X};
  "minimal"/"maximal": no proper subset/superset is valid;
* Markov blanket (DAG): parents, children and the children's other parents;
* Markov equivalence: same skeleton and same v-structures ("find another graph":
  a member of the class other than the given graph; ``equivalence``);
* c-component: one district; maximal root set: the nodes without children;
  C-forest: one district and every node has at most one child; C-tree: a C-forest
  with one root;
* identification: the ID algorithm (``identify``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import combinations, permutations
from typing import Any

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.clear import graph as G
from causal_oracle.oracle.clear.equivalence import equivalent_dags, markov_equivalent
from causal_oracle.oracle.clear.identify import identifiable
from causal_oracle.oracle.clear.model import (
    Mark,
    MixedGraph,
    QType,
    Question,
    Task,
    Walk,
    edge_key,
)
from causal_oracle.oracle.errors import InputError
from causal_oracle.oracle.memo import memoised


@dataclass(frozen=True)
class Solution:
    """The oracle's answer: ``value`` (FA set, HM count, YN/EX bool, MC valid letters,
    FO one example), ``all_valid`` (FO: every valid answer) and ``reason`` in words."""

    question: Question
    value: Any
    all_valid: frozenset[Any] | None
    reason: str


def _subsets(items: list[str]) -> Iterator[frozenset[str]]:
    for k in range(len(items) + 1):
        for combo in combinations(items, k):
            checkpoint()
            yield frozenset(combo)


def _others(g: MixedGraph, *exclude: str) -> list[str]:
    return [v for v in g.nodes if v not in exclude]


# ---------------------------------------------------------------- validity
def _three(g: MixedGraph, nodes: frozenset[str], structure: str) -> bool:
    if len(nodes) != 3:
        return False
    for m in nodes:
        a, b = sorted(nodes - {m})
        if _adjacent(g, a, b):
            continue
        if structure == "fork" and (m, a) in g.directed and (m, b) in g.directed:
            return True
        if structure == "v-structure" and (a, m) in g.directed and (b, m) in g.directed:
            return True
        if structure == "chain" and (((a, m) in g.directed and (m, b) in g.directed)
                                     or ((b, m) in g.directed and (m, a) in g.directed)):
            return True
    return False


def _adjacent(g: MixedGraph, a: str, b: str) -> bool:
    return ((a, b) in g.directed or (b, a) in g.directed
            or frozenset((a, b)) in g.bidirected or frozenset((a, b)) in g.undirected)


def is_cycle(g: MixedGraph, walk: Walk) -> bool:
    n = walk.nodes
    if len(n) < 3 or n[0] != n[-1] or len(set(n[:-1])) != len(n) - 1:
        return False
    if all(m is Mark.RIGHT for m in walk.marks) or all(m is Mark.LEFT for m in walk.marks):
        return all(g.has_edge(a, m, b) for a, m, b in zip(n, walk.marks, n[1:], strict=False))
    return False


def cycle_key(walk: Walk) -> tuple[str, ...]:
    """A directed cycle as its node sequence in edge direction, rotated to start small."""
    seq = list(walk.nodes[:-1])
    if walk.marks and walk.marks[0] is Mark.LEFT:
        seq.reverse()
    i = seq.index(min(seq))
    return tuple(seq[i:] + seq[:i])


def is_topological(g: MixedGraph, order: tuple[str, ...]) -> bool:
    if sorted(order) != sorted(g.nodes):
        return False
    pos = {v: i for i, v in enumerate(order)}
    return all(pos[a] < pos[b] for a, b in g.directed)


def backdoor_paths(g: MixedGraph, x: str, y: str) -> list[Walk]:
    return [p for p in G.simple_paths(g, x, y) if G.arrow_at_start(p.marks[0])]


def valid_backdoor(g: MixedGraph, x: str, y: str, z: frozenset[str]) -> bool:
    if x in z or y in z or z & G.descendants(g, [x]):
        return False
    return G.m_separated(G.cut_outgoing(g, {x}), {x}, {y}, z)


def valid_frontdoor(g: MixedGraph, x: str, y: str, z: frozenset[str]) -> bool:
    if x in z or y in z or not set(z) <= set(g.nodes):
        return False
    for p in G.simple_paths(g, x, y, directed_only=True):
        if not set(p.nodes[1:-1]) & z:
            return False
    cut = G.cut_outgoing(g, {x})
    for v in z:
        if not G.m_separated(cut, {x}, {v}, set()):
            return False
    return all(G.m_separated(G.cut_outgoing(g, {v}), {v}, {y}, {x}) for v in z)


def markov_blanket(g: MixedGraph, v: str) -> frozenset[str]:
    if g.bidirected:
        raise InputError("the Markov blanket task is defined here for DAGs only")
    kids = G.children(g, v)
    co = {p for c in kids for p in G.parents(g, c)}
    return frozenset((G.parents(g, v) | kids | co) - {v})


def is_c_forest(g: MixedGraph) -> bool:
    return len(G.districts(g)) == 1 and all(len(G.children(g, v)) <= 1 for v in g.nodes)


def root_set(g: MixedGraph) -> frozenset[str]:
    return frozenset(v for v in g.nodes if not G.children(g, v))


def _relation(g: MixedGraph, variant: str, v: str) -> set[str]:
    return {"parents": G.parents, "children": G.children,
            "ancestors": lambda gg, n: G.ancestors(gg, [n]),
            "descendants": lambda gg, n: G.descendants(gg, [n])}[variant](g, v)


def _minimal(valid: set[frozenset[str]]) -> set[frozenset[str]]:
    return {s for s in valid if not any(t < s for t in valid)}


def _maximal(valid: set[frozenset[str]]) -> set[frozenset[str]]:
    return {s for s in valid if not any(t > s for t in valid)}


# ---------------------------------------------------------------- the universe per task
@memoised(limit=64)
def valid_items(q: Question) -> frozenset[Any]:
    """Every valid answer item of the question's find-all / find-one form."""
    g, t, v = q.graph, q.task, q.variant
    if t is Task.NODE:
        return frozenset(g.nodes)
    if t is Task.EDGE:
        return g.edge_keys()
    if t is Task.TWO_NODE:
        return frozenset(_relation(g, v, q.names[-1]))
    if t is Task.THREE_NODE:
        return frozenset(frozenset(c) for c in combinations(g.nodes, 3)
                         if _three(g, frozenset(c), v))
    if t in (Task.PATH, Task.DIRECTED_PATH, Task.BACKDOOR_PATH):
        x, y = q.names
        paths = (backdoor_paths(g, x, y) if t is Task.BACKDOOR_PATH else
                 list(G.simple_paths(g, x, y, directed_only=t is Task.DIRECTED_PATH)))
        if v in ("shortest", "longest") and paths:
            best = (min if v == "shortest" else max)(len(p.nodes) for p in paths)
            paths = [p for p in paths if len(p.nodes) == best]
        return frozenset(paths)
    if t is Task.CYCLE:
        return frozenset(_cycles(g))
    if t is Task.TOPOLOGICAL:
        return frozenset(o for o in _orders(g))
    if t is Task.BLOCKED_PATH:
        walk = q.subject[0] if isinstance(q.subject, tuple) else q.subject
        assert isinstance(walk, Walk)
        ok = {z for z in _subsets(_others(g, walk.nodes[0], walk.nodes[-1]))
              if G.blocked(g, walk, z)}
        return frozenset(_minimal(ok) if v == "minimal" else ok)
    if t is Task.D_SEPARATION:
        x, y = q.names
        ok = {z for z in _subsets(_others(g, x, y)) if G.m_separated(g, {x}, {y}, z)}
        return frozenset(_minimal(ok) if v == "minimal" else ok)
    if t is Task.MARKOV_BLANKET:
        return frozenset([markov_blanket(g, q.names[0])])
    if t in (Task.BACKDOOR_SET, Task.FRONTDOOR_SET):
        x, y = q.names
        test = valid_backdoor if t is Task.BACKDOOR_SET else valid_frontdoor
        ok = {z for z in _subsets(_others(g, x, y)) if test(g, x, y, z)}
        if v == "minimal":
            ok = _minimal(ok)
        elif v == "maximal":
            ok = _maximal(ok)
        return frozenset(ok)
    if t is Task.C_COMPONENT:
        return frozenset(G.districts(g))
    if t is Task.ROOT_SET:
        return frozenset([root_set(g)])
    if t is Task.MARKOV_EQUIVALENT:
        return frozenset(equivalent_dags(g))
    raise InputError(f"task {t.value} has no find-all form")


def _cycles(g: MixedGraph) -> Iterator[tuple[str, ...]]:
    for start in g.nodes:
        for p in _directed_walks_back(g, start):
            key = cycle_key(p)
            if key[0] == start:
                yield key


def _directed_walks_back(g: MixedGraph, start: str) -> Iterator[Walk]:
    for mid in sorted(G.children(g, start)):
        if mid == start:
            continue
        for p in G.simple_paths(g, mid, start, directed_only=True):
            yield Walk((start, *p.nodes), (Mark.RIGHT, *p.marks))


def _orders(g: MixedGraph) -> Iterator[tuple[str, ...]]:
    for order in permutations(g.nodes):
        checkpoint()
        if is_topological(g, order):
            yield order


def _one_order(g: MixedGraph) -> tuple[str, ...] | None:
    order: list[str] = []
    left = list(g.nodes)
    while left:
        ready = [v for v in left if not (G.parents(g, v) & set(left))]
        if not ready:
            return None
        order.append(ready[0])
        left.remove(ready[0])
    return tuple(order)


# ---------------------------------------------------------------- one item
def item_valid(q: Question, item: Any) -> bool:
    """Whether ``item`` (canonical, see the module docstring) is a valid answer item."""
    g, t, v = q.graph, q.task, q.variant
    if t is Task.NODE:
        return item in g.nodes
    if t is Task.EDGE:
        return item in g.edge_keys()
    if t is Task.TWO_NODE:
        return item in _relation(g, v, q.names[-1])
    if t is Task.THREE_NODE:
        return isinstance(item, frozenset) and _three(g, item, v)
    if t in (Task.PATH, Task.DIRECTED_PATH, Task.BACKDOOR_PATH):
        if not isinstance(item, Walk) or item.nodes[0] != q.names[0] or (
                item.nodes[-1] != q.names[1]) or not G.is_path(g, item):
            return False
        if t is Task.DIRECTED_PATH and any(m is not Mark.RIGHT for m in item.marks):
            return False
        if t is Task.BACKDOOR_PATH and not G.arrow_at_start(item.marks[0]):
            return False
        if v in ("shortest", "longest"):
            return item in valid_items(q)
        return True
    if t is Task.CYCLE:
        return isinstance(item, Walk) and is_cycle(g, item)
    if t is Task.TOPOLOGICAL:
        return isinstance(item, tuple) and is_topological(g, item)
    if t in (Task.BLOCKED_PATH, Task.D_SEPARATION, Task.BACKDOOR_SET, Task.FRONTDOOR_SET,
             Task.MARKOV_BLANKET, Task.ROOT_SET):
        return isinstance(item, frozenset) and item in valid_items(q)
    if t is Task.C_COMPONENT:
        return item in valid_items(q)
    if t is Task.MARKOV_EQUIVALENT:  # "another graph": a different member of the class
        return (isinstance(item, MixedGraph) and markov_equivalent(g, item)
                and item.directed != g.directed)
    raise InputError(f"task {t.value} has no items")


def why_invalid(q: Question, item: Any) -> str:
    """A reason ``item`` is not a valid answer (its counter-evidence), in words."""
    g, t = q.graph, q.task
    if isinstance(item, Walk) and t in (Task.PATH, Task.DIRECTED_PATH, Task.BACKDOOR_PATH,
                                        Task.CYCLE):
        for a, m, b in zip(item.nodes, item.marks, item.nodes[1:], strict=False):
            if not g.has_edge(a, m, b):
                return f"{a}{m.value}{b} is not an edge of the graph"
        if len(set(item.nodes[:-1])) != len(item.nodes) - 1 or (
                t is not Task.CYCLE and item.nodes[-1] in item.nodes[:-1]):
            return "a node repeats"
    if isinstance(item, frozenset) and t in (Task.D_SEPARATION, Task.BACKDOOR_SET,
                                            Task.BLOCKED_PATH):
        if t is Task.BLOCKED_PATH:
            walk = q.subject[0] if isinstance(q.subject, tuple) else q.subject
            return f"{walk} stays open given {sorted(item)}"
        x, y = q.names
        bad = item & G.descendants(g, [x]) if t is Task.BACKDOOR_SET else set()
        if bad:
            return f"{sorted(bad)} are descendants of {x}"
        paths = backdoor_paths(g, x, y) if t is Task.BACKDOOR_SET else G.simple_paths(g, x, y)
        for p in paths:
            if not G.blocked(g, p, item):
                return f"the path {p} is open given {sorted(item)}"
    if isinstance(item, frozenset) and q.variant in ("minimal", "maximal"):
        for other in valid_items(replace(q, variant="")):
            if (other < item) if q.variant == "minimal" else (other > item):
                return f"{sorted(other)} is valid too and {'smaller' if other < item else 'larger'}"
    return "it does not meet the definition (DESIGN.md §3.5)"


def _yes_no(q: Question) -> bool:
    g, t = q.graph, q.task
    if t is Task.C_COMPONENT:
        return len(G.districts(g)) == 1
    if t is Task.C_FOREST:
        return is_c_forest(g)
    if t is Task.C_TREE:
        return is_c_forest(g) and len(root_set(g)) == 1
    if t is Task.IDENTIFICATION:
        return identifiable(g, {q.names[0]}, {q.names[1]})
    if t is Task.TWO_NODE:
        return q.names[0] in _relation(g, q.variant, q.names[1])
    if t is Task.BLOCKED_PATH:
        walk, z = q.subject  # type: ignore[misc]
        return G.blocked(g, walk, z)
    if t is Task.D_SEPARATION:
        x, y = q.names
        return G.m_separated(g, {x}, {y}, set(q.subject))  # type: ignore[arg-type]
    if t is Task.MARKOV_EQUIVALENT:
        return markov_equivalent(g, q.subject)  # type: ignore[arg-type]
    return item_valid(q, canonical(q, q.subject))


def canonical(q: Question, value: Any) -> Any:
    """A parsed value as the task's canonical item (a walk that names one edge becomes
    an edge key, a one-node walk a name, a cycle walk stays a walk)."""
    t = q.task
    if t is Task.EDGE and isinstance(value, Walk) and len(value.marks) == 1:
        return edge_key(value.nodes[0], value.marks[0], value.nodes[1])
    if t in (Task.NODE, Task.TWO_NODE) and isinstance(value, Walk) and not value.marks:
        return value.nodes[0]
    if t is Task.THREE_NODE and isinstance(value, tuple):
        return frozenset(value)
    if t is Task.TOPOLOGICAL and isinstance(value, Walk) and not value.marks:
        return value.nodes
    return value


def option_valid(q: Question, value: Any) -> bool:
    """Validity of one multiple-choice option (``not`` questions: the option is *not*
    an item)."""
    valid = item_valid(q, canonical(q, value))
    return not valid if q.variant == "not" else valid


def solve(q: Question) -> Solution:
    """The certified-to-be answer of ``q`` (the checker re-derives it independently)."""
    if q.qtype is QType.MC:
        letters = frozenset(letter for letter, value in q.options if option_valid(q, value))
        return Solution(q, letters, None, f"valid options: {', '.join(sorted(letters)) or 'none'}")
    if q.qtype is QType.YN:
        yes = _yes_no(q)
        return Solution(q, yes, None, ("yes" if yes else "no") + _why(q))
    if q.task is Task.C_COMPONENT and q.qtype is QType.HM:
        items = valid_items(q)
        return Solution(q, len(items), None, f"{len(items)} districts")
    if q.task is Task.ROOT_SET and q.qtype is QType.HM:
        roots = root_set(q.graph)
        return Solution(q, len(roots), None, f"root set {sorted(roots)}")
    if q.task is Task.ROOT_SET and q.qtype is QType.FA:
        return Solution(q, root_set(q.graph), None, "the nodes without children")
    if q.task is Task.TOPOLOGICAL:  # orders are too many to list: give one (Kahn)
        order = _one_order(q.graph)
        return Solution(q, order, None, "an order that puts every parent first"
                        if order else "the graph has a cycle: no order")
    items = valid_items(q)
    if q.qtype is QType.FA:
        return Solution(q, items, None, f"{len(items)} items")
    if q.qtype is QType.HM:
        return Solution(q, len(items), None, f"{len(items)} items")
    if q.qtype is QType.EX:
        return Solution(q, bool(items), None, f"{len(items)} items")
    example = min(items, key=_sort_key) if items else None
    return Solution(q, example, items, f"{len(items)} valid answers")


def _why(q: Question) -> str:
    """The facts a yes/no answer rests on, for the ADMG structure questions."""
    g = q.graph
    if q.task in (Task.C_COMPONENT, Task.C_TREE, Task.C_FOREST):
        many = [v for v in g.nodes if len(G.children(g, v)) > 1]
        return (f": districts {[sorted(d) for d in G.districts(g)]}; nodes with more than "
                f"one child {many}; nodes without children {sorted(root_set(g))}")
    if q.task is Task.IDENTIFICATION:
        return ": the ID algorithm " + ("succeeds" if _yes_no(q) else "meets a hedge")
    return ""


def item_text(item: Any) -> str:
    """``item`` written with every set sorted, so equal items always read the same
    (``str`` of a frozenset follows its iteration order, which varies with
    ``PYTHONHASHSEED``; ``sorted`` orders sets of sets by inclusion only)."""
    if isinstance(item, MixedGraph):
        return item_text((tuple(sorted(item.directed)), item.bidirected, item.undirected))
    if isinstance(item, frozenset | set):
        return "{" + ", ".join(sorted(item_text(x) for x in item)) + "}"
    if isinstance(item, tuple | list):
        return "(" + ", ".join(item_text(x) for x in item) + ")"
    return str(item)


def _sort_key(item: Any) -> tuple[int, str]:
    """A total order on answer items that is the same in every process."""
    if isinstance(item, Walk):
        return (len(item.nodes), str(item))
    if isinstance(item, MixedGraph):
        return (len(item.directed), item_text(item))
    if isinstance(item, frozenset | tuple):
        return (len(item), item_text(item))
    return (0, str(item))
