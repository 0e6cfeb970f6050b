"""Independent checker for CP, BA, FI, CI and IE certificates.

The solvers in ``oracle.tasks`` work on bitmasks with their own path search,
their own d-separation ("Bayes ball") and their own rule evaluation.  This
module re-derives every claim with *different* code — networkx graphs,
``networkx.all_simple_paths``, ``networkx.is_d_separator`` and a recursive
evaluator — and shares nothing with the solvers except the plain fields of
the question objects (names, edges, rules).  An answer whose certificate is
rejected raises ``CertificateRejected``; the service never returns such an
answer.

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

from collections.abc import Iterable
from itertools import combinations, pairwise
from typing import Any

import networkx as nx

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.errors import CertificateRejected


def _digraph(names: Iterable[str], edges: Iterable[tuple[int, int]]) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(range(len(tuple(names))))
    g.add_edges_from(edges)
    if not nx.is_directed_acyclic_graph(g):
        raise CertificateRejected("the graph is not acyclic")
    return g


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise CertificateRejected(message)


def _members(mask: int) -> set[int]:
    return {i for i in range(mask.bit_length()) if mask >> i & 1}


# ---- CP ---------------------------------------------------------------------------

def _check_paths(question: Any, answer: Any) -> None:
    g = _digraph(question.graph.names, question.graph.edges)
    expected: list[tuple[int, ...]] = []
    for c in question.causes:
        for e in question.effects:
            if c != e:
                for p in nx.all_simple_paths(g, c, e):
                    checkpoint()
                    expected.append(tuple(p))
    got = [tuple(p) for p in answer.paths]
    _require(len(got) == len(set(got)), "a path is listed twice")
    _require(set(got) == set(expected),
             f"paths differ: missing {set(expected) - set(got)}, extra {set(got) - set(expected)}")


# ---- BA ---------------------------------------------------------------------------

def backdoor_valid(question: Any, z: set[int]) -> bool:
    """The backdoor criterion, recomputed with networkx."""
    g = _digraph(question.graph.names, question.graph.edges)
    ends = set(question.causes) | set(question.effects)
    for c in question.causes:
        if z & (nx.descendants(g, c) | {c} | ends):
            return False
        cut = g.copy()
        cut.remove_edges_from(list(g.out_edges(c)))
        for e in question.effects:
            if not nx.is_d_separator(cut, {c}, {e}, z):
                return False
    return True


def _check_backdoor(question: Any, answer: Any) -> None:
    _require(answer.needed == (not backdoor_valid(question, set())),
             "the decision whether adjustment is needed is wrong")
    if not answer.minimal_sets:  # "no valid set exists": confirm by exhaustion
        g = _digraph(question.graph.names, question.graph.edges)
        banned = set(question.causes) | set(question.effects)
        for c in question.causes:
            banned |= nx.descendants(g, c)
        allowed = [v for v in g.nodes if v not in banned]
        _require(len(allowed) <= 16, "too many variables to confirm that no valid set exists")
        for r in range(len(allowed) + 1):
            for combo in combinations(allowed, r):
                checkpoint()
                _require(not backdoor_valid(question, set(combo)),
                         f"set {sorted(combo)} is valid but no valid set was returned")
    for mask in answer.minimal_sets:
        z = _members(mask)
        _require(backdoor_valid(question, z), f"set {sorted(z)} is not valid")
        for v in z:
            _require(not backdoor_valid(question, z - {v}), f"set {sorted(z)} is not minimal")
    parents: set[int] = set()
    g = _digraph(question.graph.names, question.graph.edges)
    for c in question.causes:
        parents |= set(g.predecessors(c))
    parents -= set(question.causes) | set(question.effects)
    _require(_members(answer.parents_set) == parents, "the parents set is wrong")
    _require(answer.parents_set_valid == backdoor_valid(question, parents),
             "the verdict on the parents set is wrong")


def _trail_open(g: nx.DiGraph, trail: tuple[int, ...], z: set[int]) -> bool:
    anc_z = set(z)
    for v in z:
        anc_z |= nx.ancestors(g, v)
    for a, b in pairwise(trail):
        if not (g.has_edge(a, b) or g.has_edge(b, a)):
            return False
    for i in range(1, len(trail) - 1):
        a, v, b = trail[i - 1], trail[i], trail[i + 1]
        collider = g.has_edge(a, v) and g.has_edge(b, v)
        if collider and v not in anc_z:
            return False
        if not collider and v in z:
            return False
    return True


def check_set_verdict(question: Any, z_mask: int, verdict: Any) -> None:
    """Confirm the solver's verdict on a proposed adjustment set ``z_mask``."""
    z = _members(z_mask)
    valid = backdoor_valid(question, z)
    _require(verdict.valid == valid, f"verdict on {sorted(z)} should be valid={valid}")
    if valid:
        return
    g = _digraph(question.graph.names, question.graph.edges)
    c, e = verdict.cause, verdict.effect
    if verdict.forbidden is not None:
        v = verdict.forbidden
        _require(v in z, "the forbidden member is not in the set")
        ends = set(question.causes) | set(question.effects)
        _require(v in ends or v in nx.descendants(g, c), "the member is not forbidden")
        return
    trail = tuple(verdict.trail)
    _require(len(trail) >= 2 and trail[0] == c and trail[-1] == e, "trail has wrong ends")
    _require(g.has_edge(trail[1], c), "the trail does not start with an edge into the cause")
    cut = g.copy()
    cut.remove_edges_from(list(g.out_edges(c)))
    _require(_trail_open(cut, trail, z), "the trail is not open given the set")


# ---- FI / CI ------------------------------------------------------------------------

def _check_values(question: Any, answer: Any, whatif: tuple[Any, ...]) -> None:
    scm = question.scm
    heads: dict[int, list[Any]] = {}
    for rule in scm.rules:
        heads.setdefault(rule.head, []).append(rule)
    forced = {lit.node: lit.value for lit in whatif}
    observed = {lit.node: lit.value for lit in question.observed}
    memo: dict[int, bool] = {}

    def value(node: int, depth: int = 0) -> bool:
        _require(depth <= len(scm.names), "the rules are cyclic")
        if node not in memo:
            if node in forced:
                memo[node] = forced[node]
            elif node in heads:
                memo[node] = any(all(value(lit.node, depth + 1) == lit.value
                                     for lit in rule.body) for rule in heads[node])
            elif node in observed:
                memo[node] = observed[node]
            else:
                memo[node] = bool(scm.bound >> node & 1)
        return memo[node]

    steps = {step.node for step in answer.trace}
    _require(steps == set(range(len(scm.names))), "the trace does not cover every event")
    for step in answer.trace:
        _require(value(step.node) == step.value,
                 f"trace step for {scm.names[step.node]!r} has the wrong value")
    _require([q for q, _ in answer.values] == list(question.queries), "queries differ")
    for node, v in answer.values:
        _require(value(node) == v, f"the value of {scm.names[node]!r} is wrong")


# ---- IE ------------------------------------------------------------------------------

def _check_intervention(question: Any, answer: Any) -> None:
    g = _digraph(question.graph.names, question.graph.edges)
    h = g.copy()
    for step in question.interventions:
        h.remove_edges_from(list(h.in_edges(step.node)))
    a, b = question.source, question.target
    edge = question.kind.value == "edge"

    def holds(graph: nx.DiGraph) -> bool:
        if edge:
            return graph.has_edge(a, b)
        return a != b and nx.has_path(graph, a, b)

    after, before = holds(h), holds(g)
    _require(answer.yes == after, "the answer is wrong")
    _require(answer.holds_before == before, "the relation before intervening is wrong")
    _require(answer.kappa == int(before) - int(after), "kappa is wrong")
    if after:
        w = tuple(answer.witness)
        _require(len(w) >= 2 and w[0] == a and w[-1] == b, "witness has wrong ends")
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
