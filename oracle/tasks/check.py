"""Independent checker for CP, BA, FI, CI and IE certificates.

The solvers in ``oracle.tasks`` work on the graph core (``oracle.graph.Dag``) with
their own path search, d-separation by the Bayes-ball walk (``oracle.dsep``) and their
own rule evaluation.  This module re-derives every claim with *different* code and
shares nothing with the solvers except the plain fields of the question objects
(names, edges, rules): its own adjacency (``_Adjacency``: parent and child bitmasks read
once per question from the edge list, acyclicity by peeling parentless layers), depth-first
path listing, d-separation by the moralised ancestral graph (Lauritzen, Dawid, Larsen &
Leimer 1990: ``Z`` separates ``x`` and ``y`` iff no path joins them in the moral graph
of ``An({x, y} ∪ Z)`` once ``Z`` is removed — a different criterion from the solvers'
walk) and a recursive evaluator.  An answer whose certificate is rejected raises
``CertificateRejected``; the service never returns such an answer.

What is checked:

* CP — the answer's paths are exactly the simple directed paths between each
  (cause, effect) pair, without duplicates.
* BA — "adjustment needed" iff the empty set fails the backdoor criterion; each
  returned minimal set satisfies it and loses it when any member is dropped;
  the parents set and its verdict are recomputed.  (That *all* minimal sets are
  listed is cross-checked by brute force in the property tests.)
* BA verdicts on a proposed set — valid sets are re-judged; a rejection's open
  trail is checked to be a backdoor trail open given the set, and a forbidden
  member to be a descendant of the cause (or a cause or effect).
* FI / CI — every event of the trace is re-evaluated recursively from the
  rules, the observations and the what-if interventions.
* IE — the answer, the relation before the interventions, κ and the witness.

Public functions: ``check_answer``, ``check_set_verdict``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations, pairwise
from typing import Any

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.errors import CertificateRejected
from causal_oracle.oracle.memo import memoised


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise CertificateRejected(message)


def _members(mask: int) -> set[int]:
    out = set()
    while mask:
        low = mask & -mask
        out.add(low.bit_length() - 1)
        mask ^= low
    return out


def _mask(nodes: Any) -> int:
    out = 0
    for v in nodes:
        out |= 1 << v
    return out


def _drop(rows: list[int], mirror: list[int], nodes: int) -> None:
    """Remove, in place, every edge of ``rows`` at the nodes of ``nodes`` from both sides:
    each node's row is emptied and the node's bit cleared in ``mirror``'s row of every
    node that row named (``rows`` children and ``mirror`` parents, or the reverse)."""
    while nodes:
        low = nodes & -nodes
        nodes ^= low
        u = low.bit_length() - 1
        peers, rows[u] = rows[u], 0
        while peers:
            w = peers & -peers
            peers ^= w
            mirror[w.bit_length() - 1] &= ~low


@dataclass(slots=True, eq=False)
class _Adjacency:
    """The checker's own reading of a graph: ``parents[v]`` and ``children[v]`` bitmasks."""

    parents: tuple[int, ...]
    children: tuple[int, ...]
    _memo: dict[tuple[str, int], Any] = field(default_factory=dict, compare=False, repr=False)

    def descendants(self, v: int) -> int:
        """``v`` and its descendants (bitmask), read once per node."""
        key = ("descendants", v)
        if key not in self._memo:
            self._memo[key] = self.reach(1 << v, self.children)
        return self._memo[key]  # type: ignore[no-any-return]

    def backdoor_graph(self, v: int) -> _Adjacency:
        """The graph without the edges out of ``v``, built once per node."""
        key = ("backdoor", v)
        if key not in self._memo:
            self._memo[key] = self.cut(out_of=1 << v)
        return self._memo[key]  # type: ignore[no-any-return]

    def has_edge(self, a: int, b: int) -> bool:
        return bool(self.parents[b] >> a & 1)

    def reach(self, start: int, step: tuple[int, ...], blocked: int = 0) -> int:
        """Every node reachable from the nodes of ``start`` along ``step`` (``children``
        for descendants, ``parents`` for ancestors), ``start`` included, never entering
        ``blocked``."""
        seen = frontier = start
        while frontier:
            low = frontier & -frontier
            frontier ^= low
            new = step[low.bit_length() - 1] & ~seen & ~blocked
            seen |= new
            frontier |= new
        return seen

    def cut(self, out_of: int = 0, into: int = 0) -> _Adjacency:
        """The graph without the edges leaving the nodes of ``out_of`` and without the
        edges entering the nodes of ``into``."""
        parents, children = list(self.parents), list(self.children)
        _drop(children, parents, out_of)  # each edge u → w out of the set
        _drop(parents, children, into)  # each edge p → v into the set
        return _Adjacency(tuple(parents), tuple(children))

    def separated(self, x: int, ys: int, z: int) -> bool:
        """``z`` d-separates ``x`` from every node of ``ys`` (bitmasks): none of them is
        joined to ``x`` in the moral graph of the ancestors of ``{x} ∪ ys ∪ z`` once ``z``
        is removed (for sets as for single nodes, Lauritzen et al. 1990).  The moral
        graph is explored from ``x`` only as far as the search goes: a node's neighbours
        there are its parents, its children in the ancestral set, and their other
        parents."""
        parents, children = self.parents, self.children
        ancestral = self.reach((1 << x) | ys | z, parents)
        allowed = ancestral & ~z
        seen = frontier = 1 << x
        while frontier:
            low = frontier & -frontier
            frontier ^= low
            u = low.bit_length() - 1
            kids = children[u] & ancestral
            near = parents[u] | kids
            while kids:
                w = kids & -kids
                kids ^= w
                near |= parents[w.bit_length() - 1]
            new = near & allowed & ~seen
            if new & ys:
                return False
            seen |= new
            frontier |= new
        return True


@memoised(limit=64)  # in the service's memory: the graphs of recent questions
def _adjacency(n: int, edges: frozenset[tuple[int, int]]) -> _Adjacency:
    """The adjacency of a question's graph, read once per graph; rejects a cycle (peeling
    off, layer by layer, the nodes with no parent left: a cycle leaves some unpeeled)."""
    parents = [0] * n
    children = [0] * n
    for a, b in edges:
        parents[b] |= 1 << a
        children[a] |= 1 << b
    left = (1 << n) - 1
    while left:
        layer = 0
        rest = left
        while rest:
            low = rest & -rest
            rest ^= low
            if not parents[low.bit_length() - 1] & left:
                layer |= low
        if not layer:
            raise CertificateRejected("the graph is not acyclic")
        left &= ~layer
    return _Adjacency(tuple(parents), tuple(children))


def _graph_of(question: Any) -> _Adjacency:
    return _adjacency(len(question.graph.names), frozenset(question.graph.edges))


# ---- CP ---------------------------------------------------------------------------

def _simple_paths(g: _Adjacency, source: int, target: int) -> list[tuple[int, ...]]:
    """Every directed path from ``source`` to ``target`` (depth first, explicit stack)."""
    out: list[tuple[int, ...]] = []
    stack: list[tuple[int, ...]] = [(source,)]
    while stack:
        path = stack.pop()
        checkpoint()
        if path[-1] == target:
            out.append(path)
            continue
        for w in _members(g.children[path[-1]]):
            if w not in path:
                stack.append((*path, w))
    return out


def _check_paths(question: Any, answer: Any) -> None:
    g = _graph_of(question)
    expected: list[tuple[int, ...]] = []
    for c in question.causes:
        for e in question.effects:
            if c != e:
                expected.extend(_simple_paths(g, c, e))
    got = [tuple(p) for p in answer.paths]
    _require(len(got) == len(set(got)), "a path is listed twice")
    _require(set(got) == set(expected),
             f"paths differ: missing {set(expected) - set(got)}, extra {set(got) - set(expected)}")


# ---- BA ---------------------------------------------------------------------------

def _validator(question: Any, g: _Adjacency) -> Callable[[int], bool]:
    """The backdoor criterion as a function of the set ``z`` (a bitmask), with what does
    not depend on ``z`` read once: per cause, the nodes a valid set must avoid and the
    graph without the cause's outgoing edges."""
    effects = _mask(question.effects)
    ends = _mask(question.causes) | effects
    per_cause = [(c, g.descendants(c) | ends, g.backdoor_graph(c)) for c in question.causes]

    def valid(z: int) -> bool:
        for c, banned, cut in per_cause:
            if z & banned:
                return False
            if effects and not cut.separated(c, effects, z):
                return False
        return True

    return valid


def backdoor_valid(question: Any, z: set[int]) -> bool:
    """The backdoor criterion, recomputed on the checker's own adjacency."""
    return _validator(question, _graph_of(question))(_mask(z))


def _check_backdoor(question: Any, answer: Any) -> None:
    g = _graph_of(question)
    valid = _validator(question, g)
    _require(answer.needed == (not valid(0)),
             "the decision whether adjustment is needed is wrong")
    if not answer.minimal_sets:  # "no valid set exists": confirm by exhaustion
        banned = _mask(question.causes) | _mask(question.effects)
        for c in question.causes:
            banned |= g.descendants(c)
        allowed = [v for v in range(len(g.parents)) if not banned >> v & 1]
        _require(len(allowed) <= 16, "too many variables to confirm that no valid set exists")
        for r in range(len(allowed) + 1):
            for combo in combinations(allowed, r):
                checkpoint()
                _require(not valid(_mask(combo)),
                         f"set {sorted(combo)} is valid but no valid set was returned")
    for mask in answer.minimal_sets:  # a message is formatted only to reject
        z = _members(mask)
        if not valid(mask):
            raise CertificateRejected(f"set {sorted(z)} is not valid")
        for v in z:
            if valid(mask & ~(1 << v)):
                raise CertificateRejected(f"set {sorted(z)} is not minimal")
    parents = 0
    for c in question.causes:
        parents |= g.parents[c]
    parents &= ~(_mask(question.causes) | _mask(question.effects))
    _require(answer.parents_set == parents, "the parents set is wrong")
    _require(answer.parents_set_valid == valid(parents),
             "the verdict on the parents set is wrong")


def _trail_open(g: _Adjacency, trail: tuple[int, ...], z: int) -> bool:
    anc_z = g.reach(z, g.parents)
    for a, b in pairwise(trail):
        if not (g.has_edge(a, b) or g.has_edge(b, a)):
            return False
    for i in range(1, len(trail) - 1):
        a, v, b = trail[i - 1], trail[i], trail[i + 1]
        collider = g.has_edge(a, v) and g.has_edge(b, v)
        if collider and not anc_z >> v & 1:
            return False
        if not collider and z >> v & 1:
            return False
    return True


def check_set_verdict(question: Any, z_mask: int, verdict: Any) -> None:
    """Confirm the solver's verdict on a proposed adjustment set ``z_mask``."""
    g = _graph_of(question)
    z = _members(z_mask)
    valid = _validator(question, g)(z_mask)
    _require(verdict.valid == valid, f"verdict on {sorted(z)} should be valid={valid}")
    if valid:
        return
    c, e = verdict.cause, verdict.effect
    n = len(g.parents)
    if verdict.forbidden is not None:
        v = verdict.forbidden
        _require(v in z, "the forbidden member is not in the set")
        ends = _mask(question.causes) | _mask(question.effects)
        _require(bool((ends | g.descendants(c)) >> v & 1),
                 "the member is not forbidden")
        return
    trail = tuple(verdict.trail)
    _require(len(trail) >= 2 and trail[0] == c and trail[-1] == e, "trail has wrong ends")
    _require(all(isinstance(v, int) and 0 <= v < n for v in trail),
             "the trail names a node the graph lacks")
    _require(g.has_edge(trail[1], c), "the trail does not start with an edge into the cause")
    _require(_trail_open(g.backdoor_graph(c), trail, z_mask),
             "the trail is not open given the set")


# ---- FI / CI ------------------------------------------------------------------------

def _check_values(question: Any, answer: Any, whatif: tuple[Any, ...]) -> None:
    scm = question.scm
    heads: dict[int, list[Any]] = {}
    for rule in scm.rules:
        heads.setdefault(rule.head, []).append(rule)
    forced = {lit.node: lit.value for lit in whatif}
    observed = {lit.node: lit.value for lit in question.observed}
    memo: dict[int, bool] = {}  # a node is memoised only once evaluated: a cycle recurses

    def value(node: int, depth: int = 0) -> bool:
        known = memo.get(node)
        if known is not None:
            return known
        _require(depth <= len(scm.names), "the rules are cyclic")
        if node in forced:
            known = forced[node]
        elif node in heads:
            known = False
            for rule in heads[node]:  # OR of the rules, AND within one; short-circuited
                for lit in rule.body:
                    if value(lit.node, depth + 1) != lit.value:
                        break
                else:
                    known = True
                    break
        elif node in observed:
            known = observed[node]
        else:
            known = bool(scm.bound >> node & 1)
        memo[node] = known
        return known

    steps = {step.node for step in answer.trace}
    _require(steps == set(range(len(scm.names))), "the trace does not cover every event")
    for step in answer.trace:
        if value(step.node) != step.value:
            raise CertificateRejected(f"trace step for {scm.names[step.node]!r} has the "
                                      "wrong value")
    _require([q for q, _ in answer.values] == list(question.queries), "queries differ")
    for node, v in answer.values:
        if value(node) != v:
            raise CertificateRejected(f"the value of {scm.names[node]!r} is wrong")


# ---- IE ------------------------------------------------------------------------------

def _check_intervention(question: Any, answer: Any) -> None:
    g = _graph_of(question)
    h = g.cut(into=_mask(step.node for step in question.interventions))
    a, b = question.source, question.target
    edge = question.kind.value == "edge"

    def holds(graph: _Adjacency) -> bool:
        if edge:
            return graph.has_edge(a, b)
        return a != b and bool(graph.reach(1 << a, graph.children) >> b & 1)

    after, before = holds(h), holds(g)
    _require(answer.yes == after, "the answer is wrong")
    _require(answer.holds_before == before, "the relation before intervening is wrong")
    _require(answer.kappa == int(before) - int(after), "kappa is wrong")
    if after:
        w = tuple(answer.witness)
        n = len(g.parents)
        _require(len(w) >= 2 and w[0] == a and w[-1] == b, "witness has wrong ends")
        _require(all(isinstance(v, int) and 0 <= v < n for v in w),
                 "the witness names a node the graph lacks")
        _require(all(h.has_edge(x, y) for x, y in pairwise(w)),
                 "witness is not a directed path of the intervened graph")


def check_answer(task: str, question: Any, answer: Any) -> None:
    """Re-verify ``answer`` to ``question`` (task CP, BA, FI, CI or IE); raise if rejected."""
    if task == "CP":
        _check_paths(question, answer)
    elif task == "BA":
        _check_backdoor(question, answer)
    elif task == "FI":
        _check_values(question, answer, ())
    elif task == "CI":
        _check_values(question, answer, tuple(question.whatif))
    elif task == "IE":
        _check_intervention(question, answer)
    else:
        raise CertificateRejected(f"unknown task {task!r}")
