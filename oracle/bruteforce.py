"""Brute-force reference: every DAG on n ≤ 5 nodes, filtered by definition.

A DAG is consistent with a closed-world premise iff its complete set of
d-separations equals the listed independencies.  This module checks exactly that
for every labelled DAG (543 on 4 nodes, 29,281 on 5), with no skeleton or
collider reasoning, and is used only in tests to validate the encodings.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from itertools import permutations

from causal_oracle.oracle.dsep import independence_set
from causal_oracle.oracle.graph import Dag


@lru_cache(maxsize=8)
def all_dags(n: int) -> tuple[Dag, ...]:
    """All labelled DAGs on ``n`` nodes (each is consistent with some total order)."""
    if n > 5:
        raise ValueError("brute force is limited to n ≤ 5")
    found: set[tuple[int, ...]] = set()
    pairs_by_order = []
    for order in permutations(range(n)):
        pairs_by_order.append([(order[i], order[j]) for i in range(n) for j in range(i + 1, n)])
    for pairs in pairs_by_order:
        for subset in range(1 << len(pairs)):
            parents = [0] * n
            for k, (t, h) in enumerate(pairs):
                if subset >> k & 1:
                    parents[h] |= 1 << t
            found.add(tuple(parents))
    return tuple(Dag(n, p) for p in sorted(found))


@lru_cache(maxsize=8)
def _signatures(n: int) -> dict[frozenset[tuple[int, int, int]], tuple[Dag, ...]]:
    table: dict[frozenset[tuple[int, int, int]], list[Dag]] = {}
    for dag in all_dags(n):
        table.setdefault(independence_set(dag), []).append(dag)
    return {k: tuple(v) for k, v in table.items()}


def consistent_dags(n: int, independencies: frozenset[tuple[int, int, int]]) -> Iterator[Dag]:
    """Every DAG on ``n`` nodes whose d-separations are exactly ``independencies``."""
    yield from _signatures(n).get(independencies, ())
