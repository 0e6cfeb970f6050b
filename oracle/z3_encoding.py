"""The Markov equivalence class in z3, with a *ranking* encoding of acyclicity.

The same constraint families as ``oracle.sat_encoding``, written independently
so that the two backends can be read side by side and cross-checked:

* a Boolean ``d_a_b`` per skeleton edge ``a < b`` (true iff ``a → b``);
* an integer rank per node; an edge ``u → v`` requires ``rank(u) < rank(v)`` —
  a graph is acyclic iff such a ranking exists (a topological order);
* colliders fix orientations, non-colliders forbid ``x → m ← y``.

Members are enumerated by blocking each found orientation.
"""

from __future__ import annotations

from collections.abc import Iterator

import z3

from causal_oracle.oracle.errors import BudgetExceeded
from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.structure import Structure


def enumerate_members_z3(structure: Structure, limit: int = 100_000) -> Iterator[Dag]:
    n = structure.n
    edges = sorted(structure.adjacent)
    direction = {e: z3.Bool(f"d_{e[0]}_{e[1]}") for e in edges}
    rank = [z3.Int(f"r_{v}") for v in range(n)]
    solver = z3.Solver()

    def points(tail: int, head: int) -> z3.BoolRef:
        a, b = min(tail, head), max(tail, head)
        return direction[(a, b)] if tail == a else z3.Not(direction[(a, b)])

    for a, b in edges:
        solver.add(z3.Implies(direction[(a, b)], rank[a] < rank[b]))
        solver.add(z3.Implies(z3.Not(direction[(a, b)]), rank[b] < rank[a]))
    for t in structure.triples:
        both_in = z3.And(points(t.x, t.middle), points(t.y, t.middle))
        solver.add(both_in if t.collider else z3.Not(both_in))
    count = 0
    while solver.check() == z3.sat:
        model = solver.model()
        chosen = {e: z3.is_true(model.eval(direction[e], model_completion=True)) for e in edges}
        yield Dag.from_edges(n, [(a, b) if chosen[(a, b)] else (b, a) for a, b in edges])
        count += 1
        if count >= limit:
            raise BudgetExceeded(f"the equivalence class has more than {limit} members")
        if not edges:
            return
        solver.add(z3.Or([direction[e] != z3.BoolVal(chosen[e]) for e in edges]))
