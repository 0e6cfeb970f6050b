"""``equivalence._first_unlisted`` is ``dsep.separations`` stopped at the first
separation a premise does not list: the same key first, the same listed ones before
it, on random DAGs against their full separation set, with one left out, and with
one too many."""

from __future__ import annotations

import random

from causal_oracle.oracle.dsep import independence_set, separations
from causal_oracle.oracle.equivalence import _first_unlisted
from causal_oracle.oracle.graph import Dag


def _walk(dag: Dag, keys: frozenset[tuple[int, int, int]]
          ) -> tuple[tuple[int, int, int] | None, set[tuple[int, int, int]]]:
    reached = set()
    for key in separations(dag):
        if key not in keys:
            return key, reached
        reached.add(key)
    return None, reached


def test_the_walk_stops_where_separations_would() -> None:
    rng = random.Random(31)
    cases = 0
    for _ in range(300):
        n = rng.randint(2, 6)
        order = list(range(n))
        rng.shuffle(order)
        density = rng.random()
        dag = Dag.from_edges(n, [(order[i], order[j]) for i in range(n)
                                 for j in range(i + 1, n) if rng.random() < density])
        full = independence_set(dag)
        variants = [full, full | {(0, n - 1, 0)}]
        if full:
            variants += [full - {rng.choice(sorted(full))}, full - {min(full)}]
        for keys in variants:
            assert _first_unlisted(dag, frozenset(keys)) == _walk(dag, frozenset(keys))
            cases += 1
    assert cases > 600
