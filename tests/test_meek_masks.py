"""``meek.orient`` on bit masks records the same orientations — edge, rule and witness
nodes, in the same order — and the same clashes as the rules written out on sets of
edges (the form it had before, kept here as the reference), on random faithful premises,
on premises with statements left out, and on random marginal independencies (colliders
that clash)."""

from __future__ import annotations

import random

from causal_oracle.oracle.dsep import independence_set
from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.meek import Cpdag, Orientation, orient
from causal_oracle.oracle.statements import Independence, Premise
from causal_oracle.oracle.structure import Structure, derive_structure


def _reference(structure: Structure) -> Cpdag:
    """Colliders then R1–R4 to a fixpoint, on sets of edges."""
    n = structure.n
    adjacent = {(a, b) for a, b in structure.adjacent} | {(b, a) for a, b in structure.adjacent}
    directed: set[tuple[int, int]] = set()
    record: list[Orientation] = []
    clashes: list[tuple[int, int]] = []

    def adj(u: int, v: int) -> bool:
        return (u, v) in adjacent

    def undirected(u: int, v: int) -> bool:
        return adj(u, v) and (u, v) not in directed and (v, u) not in directed

    def put(tail: int, head: int, rule: str, via: tuple[int, ...]) -> bool:
        if (tail, head) in directed:
            return False
        if (head, tail) in directed:
            clashes.append((tail, head))
            return False
        directed.add((tail, head))
        record.append(Orientation(tail, head, rule, via))
        return True

    for t in structure.colliders:
        put(t.x, t.middle, "collider", (t.y,))
        put(t.y, t.middle, "collider", (t.x,))
    changed = bool(directed)
    while changed:
        changed = False
        for a in range(n):
            for b in range(n):
                if a == b or not undirected(a, b):
                    continue
                for c in range(n):
                    if (c, a) in directed and not adj(c, b) and c != b:
                        changed |= put(a, b, "R1", (c,))
                        break
                    if (a, c) in directed and (c, b) in directed:
                        changed |= put(a, b, "R2", (c,))
                        break
                if not undirected(a, b):
                    continue
                into_b = [c for c in range(n) if undirected(a, c) and (c, b) in directed]
                pair = next(((c, d) for i, c in enumerate(into_b) for d in into_b[i + 1:]
                             if not adj(c, d)), None)
                if pair:
                    changed |= put(a, b, "R3", pair)
                    continue
                for d in range(n):
                    if not undirected(a, d) or adj(d, b) or d == b:
                        continue
                    c = next((c for c in range(n) if (d, c) in directed and (c, b) in directed
                              and adj(a, c)), None)
                    if c is not None:
                        changed |= put(a, b, "R4", (d, c))
                        break
    und = frozenset((a, b) for a, b in structure.adjacent if undirected(a, b))
    return Cpdag(n, frozenset(directed), und, tuple(record), tuple(clashes))


def test_masks_orient_as_the_rules_on_sets() -> None:
    rng = random.Random(12)
    rules = set()
    clashed = 0
    for _ in range(1500):
        n = rng.randint(2, 8)
        order = list(range(n))
        rng.shuffle(order)
        density = rng.random()
        dag = Dag.from_edges(n, [(order[i], order[j]) for i in range(n)
                                 for j in range(i + 1, n) if rng.random() < density])
        keys = sorted(independence_set(dag))
        if keys and rng.random() < 0.5:
            keys = [k for k in keys if rng.random() < 0.8]
        if rng.random() < 0.3:  # pairs made marginally independent at random: colliders clash
            keys = [(x, y, 0) for x in range(n) for y in range(x + 1, n)
                    if rng.random() < 0.4]
        premise = Premise(tuple("ABCDEFGH"[:n]), (), tuple(Independence(*k) for k in keys))
        structure = derive_structure(premise)
        got, want = orient(structure), _reference(structure)
        assert got == want
        rules |= {o.rule for o in got.orientations}
        clashed += bool(got.clashes)
    assert rules == {"collider", "R1", "R2", "R3", "R4"} and clashed > 0
