"""SAT, z3, brute force and the checker's own enumeration agree on the equivalence class."""

from __future__ import annotations

import random

import pytest
from conftest import load_rows
from hypothesis import given, settings
from hypothesis import strategies as st

from causal_oracle.oracle.bruteforce import all_dags, consistent_dags
from causal_oracle.oracle.check_graphs import markov_class
from causal_oracle.oracle.dsep import d_separated, independence_set
from causal_oracle.oracle.equivalence import analyse, class_cpdag
from causal_oracle.oracle.extensions import listed_extensions
from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.meek import orient
from causal_oracle.oracle.sat_encoding import enumerate_members
from causal_oracle.oracle.statements import Independence, Premise
from causal_oracle.oracle.structure import derive_structure
from causal_oracle.oracle.z3_encoding import enumerate_members_z3
from causal_oracle.parser import parse_premise


def premise_of(dag: Dag) -> Premise:
    names = tuple("ABCDEFGH"[: dag.n])
    return Premise(names, (), tuple(Independence(*k) for k in sorted(independence_set(dag))))


def _keys(dags: object) -> set[tuple[int, ...]]:
    return {d.parents for d in dags}  # type: ignore[attr-defined]


def _distinct_premises(names: list[str]) -> list[Premise]:
    seen: dict[str, Premise] = {}
    for name in names:
        for row in load_rows(name):
            if row["premise"] not in seen:
                seen[row["premise"]] = parse_premise(row["premise"])
    return list(seen.values())


@pytest.mark.parametrize("premise", _distinct_premises(["n2", "n3", "n4"]),
                         ids=lambda p: f"n{p.n}")
def test_three_backends_agree_n_le_4(premise: Premise) -> None:
    structure = derive_structure(premise)
    sat = _keys(enumerate_members(structure))
    z3_members = _keys(enumerate_members_z3(structure))
    brute = _keys(consistent_dags(premise.n, premise.independence_keys()))
    assert sat == z3_members == brute
    assert brute, "every n ≤ 4 upstream premise is consistent"
    assert _keys(analyse(premise).members) == brute


@pytest.mark.slow
def test_three_backends_agree_on_every_n5_premise() -> None:
    for premise in _distinct_premises(["n5_sample"]):
        structure = derive_structure(premise)
        brute = _keys(consistent_dags(5, premise.independence_keys()))
        assert _keys(enumerate_members(structure)) == brute
        assert _keys(enumerate_members_z3(structure)) == brute
        analysis = analyse(premise)
        assert _keys(analysis.members) == brute
        assert analysis.consistent == bool(brute)


def test_n5_sample_of_premises_against_brute_force() -> None:
    rng = random.Random(7)
    premises = rng.sample(_distinct_premises(["n5_sample"]), 6)
    for premise in premises:
        brute = _keys(consistent_dags(5, premise.independence_keys()))
        assert _keys(analyse(premise).members) == brute


@st.composite
def dags(draw: st.DrawFn, max_n: int = 6, min_n: int = 2) -> Dag:
    n = draw(st.integers(min_n, max_n))
    order = draw(st.permutations(range(n)))
    edges = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n)
             if draw(st.booleans())]
    return Dag.from_edges(n, edges)


@settings(max_examples=60, deadline=None)
@given(dags())
def test_class_of_a_faithful_premise_contains_its_dag(dag: Dag) -> None:
    analysis = analyse(premise_of(dag))
    assert analysis.consistent
    members = _keys(analysis.members)
    assert dag.parents in members
    # every member has the same d-separations; the checker's enumeration finds the same class
    assert all(independence_set(m) == independence_set(dag) for m in analysis.members)
    checker = {Dag.from_edges(dag.n, e).parents for e in markov_class(dag.n, tuple(dag.edges()))}
    assert checker == members
    z3_members = _keys(enumerate_members_z3(derive_structure(analysis.premise)))
    assert z3_members == members


@settings(max_examples=40, deadline=None)
@given(dags(max_n=4))
def test_class_equals_brute_force_for_small_dags(dag: Dag) -> None:
    brute = _keys(consistent_dags(dag.n, independence_set(dag)))
    assert _keys(analyse(premise_of(dag)).members) == brute


@settings(max_examples=60, deadline=None)
@given(dags())
def test_meek_rules_give_the_cpdag_of_the_class(dag: Dag) -> None:
    analysis = analyse(premise_of(dag))
    directed, undirected = class_cpdag(analysis.members)
    cpdag = orient(analysis.structure)
    assert cpdag.directed == directed
    assert cpdag.undirected == undirected


def test_dsep_agrees_with_networkx() -> None:
    import networkx as nx

    rng = random.Random(3)
    for dag in rng.sample(all_dags(4), 60):
        g = nx.DiGraph(dag.edges())
        g.add_nodes_from(range(dag.n))
        for x in range(4):
            for y in range(x + 1, 4):
                for mask in range(16):
                    if mask >> x & 1 or mask >> y & 1:
                        continue
                    z = {v for v in range(4) if mask >> v & 1}
                    assert d_separated(dag, x, y, mask) == nx.is_d_separator(g, {x}, {y}, z)


def _premise(text_statements: str, names: str = "A, B and C", n: int = 3) -> Premise:
    return parse_premise(f"Suppose there is a closed system of {n} variables, {names}. All the "
                         f"statistical relations among these {n} variables are as follows: "
                         f"{text_statements}")


def test_correlation_contradicting_an_independence_is_inconsistent() -> None:
    premise = _premise("A correlates with B. However, A is independent of B.", "A and B", 2)
    analysis = analyse(premise)
    assert not analysis.consistent
    assert analysis.conflicts[0].kind == "correlation"


def test_sepset_conflict_is_reported() -> None:
    # B is in one separating set of A, C and missing from another: no DAG does that
    premise = _premise("A correlates with B. B correlates with C. However, A is independent "
                       "of C. A and C are independent given B.")
    analysis = analyse(premise)
    assert not analysis.consistent
    assert analysis.conflicts[0].kind == "sepset"
    assert "either a collider" in analysis.conflicts[0].message


def test_missing_independence_is_reported() -> None:
    # chain skeleton A - B - C with B a non-collider, but A ⊥ C | B not listed
    premise = _premise("A correlates with B. A correlates with C. B correlates with C.")
    assert analyse(premise).consistent  # complete graph: fine
    premise = _premise("A correlates with B. B correlates with C. However, A is independent "
                       "of C.")
    analysis = analyse(premise)
    assert analysis.consistent and analysis.size == 1  # collider A → B ← C


def test_inconsistent_upstream_premises_name_the_statement() -> None:
    found = 0
    for premise in _distinct_premises(["n6_sample"]):
        analysis = analyse(premise)
        if analysis.consistent:
            continue
        found += 1
        conflict = analysis.conflicts[0]
        assert conflict.kind in ("unexplained_independence", "missing_independence")
        if conflict.kind == "unexplained_independence":
            assert conflict.statement is not None and conflict.path
    assert found >= 1


def test_listed_members_carry_their_own_sorted_edges() -> None:
    # Each listed member's edge list is its parent masks' edges, sorted — built from the
    # orientations placed on a well-formed graph, read off the masks on a malformed one
    # (an edge both directed and undirected).
    cases = [([], [(0, 1), (1, 2), (0, 2)]), ([(0, 1)], [(1, 2)]),
             ([(0, 1)], [(0, 1), (1, 2)]), ([(0, 2), (1, 2)], [(2, 3)])]
    for directed, undirected in cases:
        listed = listed_extensions(4, directed, undirected, 50)
        assert listed
        for edges, dag in listed:
            assert list(edges) == dag.edges()


def _structure_by_lists(premise: Premise) -> tuple[list[tuple[int, int, int, bool, object]],
                                                    list[tuple[int, int, int, object, object]]]:
    """Triples and sepset conflicts as the definition reads: per unshielded middle, the
    statements of the pair with it and without it, the first of each as witness."""
    n = premise.n
    sepsets: dict[tuple[int, int], list[Independence]] = {}
    for s in premise.independences:
        sepsets.setdefault((s.x, s.y), []).append(s)
    adj = [0] * n
    for x in range(n):
        for y in range(x + 1, n):
            if (x, y) not in sepsets:
                adj[x] |= 1 << y
                adj[y] |= 1 << x
    triples, conflicts = [], []
    for (x, y), statements in sorted(sepsets.items()):
        for m in range(n):
            if (adj[x] & adj[y]) >> m & 1:
                with_m = [s for s in statements if s.given >> m & 1]
                without_m = [s for s in statements if not s.given >> m & 1]
                if with_m and without_m:
                    conflicts.append((x, m, y, with_m[0], without_m[0]))
                elif without_m:
                    triples.append((x, m, y, True, without_m[0]))
                else:
                    triples.append((x, m, y, False, with_m[0]))
    return triples, conflicts


@settings(max_examples=150, deadline=None)
@given(st.integers(3, 7), st.integers(0, 2**32 - 1))
def test_structure_equals_the_per_middle_lists(n: int, seed: int) -> None:
    """``derive_structure`` (one pass over a pair's statements for the masks of middles in
    some and in every separating set) equals the per-middle lists, witnesses included,
    on random statement sets (consistent or not, in random order)."""
    rng = random.Random(seed)
    pairs = [(x, y) for x in range(n) for y in range(x + 1, n)]
    statements = []
    for x, y in rng.sample(pairs, rng.randint(0, len(pairs))):
        others = [v for v in range(n) if v not in (x, y)]
        for _ in range(rng.randint(1, 4)):
            given = sum(1 << v for v in others if rng.random() < 0.4)
            statements.append(Independence(x, y, given))
    rng.shuffle(statements)
    premise = Premise(tuple(f"V{i}" for i in range(n)), (), tuple(dict.fromkeys(statements)))
    structure = derive_structure(premise)
    triples, conflicts = _structure_by_lists(premise)
    assert [(t.x, t.middle, t.y, t.collider, t.witness) for t in structure.triples] == triples
    assert [(c.x, c.middle, c.y, c.with_middle, c.without_middle)
            for c in structure.conflicts] == conflicts
