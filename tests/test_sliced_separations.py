"""Every separation at once: the solver's bit-sliced Bayes-ball (``dsep.separating_sets``)
and the checker's bit-sliced moral graphs (``check_graphs.moral_separations``) agree with
the one-by-one tests on random DAGs; a premise that differs from its DAG in one statement
is still caught by both sides, with the conflicts the one-by-one path reports; and the
checker's class by covered-edge reversals is the brute-force class."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from causal_oracle.oracle import check_graphs, equivalence
from causal_oracle.oracle.bruteforce import all_dags
from causal_oracle.oracle.check_graphs import (
    Moral,
    equivalent_dags,
    fits_premise,
    moral_separations,
    whole_class,
)
from causal_oracle.oracle.dsep import d_separated, independence_set, separating_sets
from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.statements import Independence, Premise


def _random_dag(rng: random.Random, n: int) -> Dag:
    order = list(range(n))
    rng.shuffle(order)
    density = rng.random()
    return Dag.from_edges(n, [(order[i], order[j]) for i in range(n) for j in range(i + 1, n)
                              if rng.random() < density])


def _one_by_one(dag: Dag, separated: object) -> dict[tuple[int, int], int]:
    out: dict[tuple[int, int], int] = {}
    for x, y in combinations(range(dag.n), 2):
        for given in range(1 << dag.n):
            if not given >> x & 1 and not given >> y & 1 and separated(x, y, given):  # type: ignore[operator]
                out[(x, y)] = out.get((x, y), 0) | 1 << given
    return out


def test_separating_sets_are_the_walks_one_by_one() -> None:
    rng = random.Random(7)
    for _ in range(400):
        dag = _random_dag(rng, rng.randint(1, 7))
        want = _one_by_one(dag, lambda x, y, z, d=dag: d_separated(d, x, y, z))
        assert separating_sets(dag) == want


def test_moral_separations_are_the_moral_tests_one_by_one() -> None:
    rng = random.Random(8)
    for _ in range(400):
        dag = _random_dag(rng, rng.randint(1, 7))
        moral = Moral(dag.n, dag.parents)
        assert moral_separations(dag.n, dag.parents) == _one_by_one(dag, moral.separated)


def _variants(rng: random.Random, dag: Dag) -> list[frozenset[tuple[int, int, int]]]:
    """The DAG's separations, and listings one statement off (missing, extra, a set with
    an end in it)."""
    full = independence_set(dag)
    n = dag.n
    out = [full, full | {(0, n - 1, 0)}, full | {(0, n - 1, 1 << (n - 1))}]
    if full:
        out += [full - {rng.choice(sorted(full))}, full - {max(full)}]
    x, y = sorted(rng.sample(range(n), 2))
    out.append(full ^ {(x, y, rng.randrange(1 << n) & ~(1 << x) & ~(1 << y))})
    return [frozenset(k) for k in out]


def test_fits_premise_is_exact_on_listings_one_statement_off(monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """Exact on well-formed listings, and the same answers (reasons included) as the
    tests one by one on every listing."""
    rng = random.Random(9)
    cases = []
    for _ in range(300):
        dag = _random_dag(rng, rng.randint(2, 7))
        edges = tuple(dag.edges())
        for keys in _variants(rng, dag):
            why = fits_premise(dag.n, edges, keys)
            if all(not g >> x & 1 and not g >> y & 1 for x, y, g in keys):
                assert (why == "") == (keys == independence_set(dag)), (dag, sorted(keys))
            cases.append((dag.n, edges, keys, why))
    monkeypatch.setattr(check_graphs, "SLICED_LIMIT", 0)
    for n, edges, keys, why in cases:
        assert fits_premise(n, edges, keys) == why


def test_faithfulness_conflicts_equal_the_walks_one_by_one(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """The sliced comparison only confirms a faithful premise: every other premise gets
    the conflicts the walk reports, the same with the sliced test switched off."""
    rng = random.Random(10)
    cases = []
    for _ in range(200):
        dag = _random_dag(rng, rng.randint(2, 6))
        names = tuple("ABCDEFG"[:dag.n])
        for keys in _variants(rng, dag):
            premise = Premise(names, (), tuple(Independence(*k) for k in sorted(keys)))
            cases.append((premise, dag, equivalence._faithfulness_conflicts(premise, dag)))
    monkeypatch.setattr(equivalence, "SLICED_LIMIT", 0)
    faithful = 0
    for premise, dag, sliced in cases:
        assert equivalence._faithfulness_conflicts(premise, dag) == sliced
        faithful += not sliced
    assert 100 < faithful < len(cases)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_covered_edge_reversals_reach_exactly_the_class(n: int) -> None:
    by_separations: dict[frozenset[tuple[int, int, int]], set[tuple[int, ...]]] = {}
    for dag in all_dags(n):
        by_separations.setdefault(independence_set(dag), set()).add(dag.parents)
    for members in by_separations.values():
        for parents in members:
            assert equivalent_dags(parents) == members


def test_a_listing_with_a_member_twice_is_not_the_class() -> None:
    chain = Dag.from_edges(3, [(0, 1), (1, 2)])  # its class: the chains and the fork
    keys = independence_set(chain)
    members = tuple(tuple(Dag(3, p).edges()) for p in sorted(equivalent_dags(chain.parents)))
    assert whole_class(3, members, keys) == ""
    twice = (members[0], members[0], members[1])
    assert whole_class(3, twice, keys) != ""
    assert whole_class(3, members[:2], keys) != ""
    assert whole_class(3, (*members, ((0, 1), (2, 1))), keys) != ""  # a collider too
