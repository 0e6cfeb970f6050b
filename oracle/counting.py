"""Counting the members of a Markov equivalence class without listing them.

A CPDAG's undirected part splits into *chain components*, each a chordal graph;
the class size is the product over components of the number of acyclic
moral orientations (AMOs: orientations without cycles or new v-structures) of
each.  Clique-Picking (Wienöbst, Bannach & Liśkiewicz, "Polynomial-time
algorithms for counting and sampling Markov equivalent DAGs", AAAI 2021 / JAIR
2023) counts them in polynomial time by picking, for each maximal clique, the
orderings in which that clique comes first and recursing on the remainder.

We call the authors' Rust implementation (the ``cliquepicking`` package), which
takes the CPDAG as a list of arcs: a directed edge ``a → b`` once, an undirected
edge ``a — b`` as both ``(a, b)`` and ``(b, a)``.

>>> class_size(3, [], [(0, 1), (1, 2)])   # a chain a — b — c: 3 DAGs
3
>>> class_size(3, [(0, 2), (1, 2)], [])   # a collider: 1 DAG
1
"""

from __future__ import annotations

from collections.abc import Iterable

import cliquepicking


def class_size(n: int, directed: Iterable[tuple[int, int]],
               undirected: Iterable[tuple[int, int]]) -> int:
    """Number of DAGs represented by the CPDAG on ``n`` nodes (exact, arbitrary size)."""
    arcs = list(directed)
    for a, b in undirected:
        arcs += [(a, b), (b, a)]
    if not arcs:
        return 1
    return int(cliquepicking.mec_size(arcs))
