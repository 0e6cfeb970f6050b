"""The class encoding's two acyclicity forms, and the solver a large premise loads once.

``oracle.sat_encoding`` forbids directed triangles on a chordal skeleton and uses the
transitive "anc" variables elsewhere; both must give exactly the acyclic orientations
with the premise's v-structures (brute force here), and the chordality test must be
right (networkx's here).  A member enumeration stopped after its first member leaves its
solver for the labelling solver, which must then answer as a fresh one does.
"""

from __future__ import annotations

import itertools
import random

import networkx as nx

from causal_oracle.entry import Service
from causal_oracle.oracle.bruteforce import consistent_dags
from causal_oracle.oracle.dsep import independence_set
from causal_oracle.oracle.equivalence import analyse
from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.memo import Memory, using
from causal_oracle.oracle.sat_encoding import (
    _chordal,
    class_encoding,
    enumerate_members,
    spare_solver,
)
from causal_oracle.oracle.statements import Independence, Premise
from causal_oracle.oracle.structure import derive_structure


def _neighbours(n: int, edges: list[tuple[int, int]]) -> list[int]:
    out = [0] * n
    for a, b in edges:
        out[a] |= 1 << b
        out[b] |= 1 << a
    return out


def test_chordality_agrees_with_networkx() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        n = rng.randint(1, 9)
        graph = nx.gnp_random_graph(n, rng.random(), seed=rng.randrange(10**9))
        assert _chordal(_neighbours(n, list(graph.edges()))) == nx.is_chordal(graph)


def _premise(dag: Dag) -> Premise:
    names = tuple(f"X{i}" for i in range(dag.n))
    return Premise(names, (), tuple(Independence(*k) for k in sorted(independence_set(dag))))


def test_both_acyclicity_forms_give_exactly_the_class() -> None:
    rng = random.Random(3)
    seen = {True: 0, False: 0}
    for _ in range(200):
        n = rng.randint(2, 5)
        order = list(range(n))
        rng.shuffle(order)
        p = rng.choice([0.3, 0.5, 0.8])
        dag = Dag.from_edges(n, [(order[i], order[j]) for i, j in
                                 itertools.combinations(range(n), 2) if rng.random() < p])
        structure = derive_structure(_premise(dag))
        chordal = _chordal(_neighbours(n, sorted(structure.adjacent)))
        seen[chordal] += 1
        encoding = class_encoding(structure)
        assert (encoding.top == len(encoding.edges)) == chordal  # no "anc" variables
        members = {m.parents for m in enumerate_members(structure)}
        assert members == {d.parents for d in consistent_dags(n, frozenset(independence_set(dag)))}
    assert min(seen.values()) >= 10  # both forms were exercised


def _complete(n: int) -> str:
    names = [f"V{i}" for i in range(n)]
    return (f"Suppose there is a closed system of {n} variables, {', '.join(names[:-1])} and "
            f"{names[-1]}. All the statistical relations among these {n} variables are as "
            "follows: " + " ".join(f"{a} correlates with {b}." for a, b in
                                   itertools.combinations(names, 2)))


def test_a_large_class_loads_its_clauses_once_and_labels_as_before() -> None:
    service = Service()
    fresh = Service()
    premise = _complete(8)  # 8! members: too many to list
    with using(Memory(64)):
        structure = analyse(service.pairs().premise_of(premise)).structure
        assert spare_solver(structure) is not None  # left by the enumeration
        assert spare_solver(structure) is None  # taken once
    for hypothesis in ("V0 directly causes V1.", "V2 causes something else which causes V5.",
                       "There exists at least one collider (i.e., common effect) of V1 and V3."):
        got = service.verify(premise, hypothesis)
        assert got.check.ok
        fresh.clear_caches()
        want = fresh.verify(premise, hypothesis)
        assert (got.relation, got.label, got.class_size) == \
            (want.relation, want.label, want.class_size)
