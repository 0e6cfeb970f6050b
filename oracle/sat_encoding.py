"""The Markov equivalence class as a SAT problem (python-sat).

Variables (named with an ``IDPool``):

* ``("dir", a, b)`` for each skeleton edge ``a < b``: true iff the edge points ``a → b``;
* ``("anc", u, v)`` for ordered pairs: a transitive over-approximation of reachability.

Constraint families, one function each:

* **colliders** — each collider triple ``x → m ← y`` fixes two orientations;
* **non-colliders** — each other unshielded triple forbids ``x → m ← y``;
* **acyclicity** — ``edge(u,v) → anc(u,v)``, ``anc(u,v) ∧ anc(v,w) → anc(u,w)``,
  ``¬anc(u,u)``: any cycle would force some ``anc(u,u)``;
* **extra** — optional clauses over ``dir`` literals (e.g. "the relation fails").

Every model, projected onto the ``dir`` variables, is one member of the class:
a DAG with the premise's skeleton and exactly its v-structures.  Members are
enumerated with blocking clauses over the ``dir`` literals.
"""

from __future__ import annotations

from collections.abc import Iterator

from pysat.formula import CNF, IDPool
from pysat.solvers import Solver

from causal_oracle.oracle.errors import BudgetExceeded
from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.structure import Structure


def orientation_literal(pool: IDPool, tail: int, head: int) -> int:
    """The literal meaning ``tail → head`` for a skeleton edge."""
    a, b = min(tail, head), max(tail, head)
    lit = pool.id(("dir", a, b))
    return lit if tail == a else -lit


def _collider_clauses(structure: Structure, pool: IDPool) -> list[list[int]]:
    clauses = []
    for t in structure.triples:
        into_x = orientation_literal(pool, t.x, t.middle)
        into_y = orientation_literal(pool, t.y, t.middle)
        if t.collider:
            clauses += [[into_x], [into_y]]
        else:
            clauses.append([-into_x, -into_y])
    return clauses


def _acyclicity_clauses(structure: Structure, pool: IDPool) -> list[list[int]]:
    n = structure.n
    clauses = []
    for a, b in structure.adjacent:
        clauses.append([-orientation_literal(pool, a, b), pool.id(("anc", a, b))])
        clauses.append([-orientation_literal(pool, b, a), pool.id(("anc", b, a))])
    for u in range(n):
        clauses.append([-pool.id(("anc", u, u))])
        for v in range(n):
            if v == u:
                continue
            for w in range(n):
                if w == v:
                    continue
                clauses.append([-pool.id(("anc", u, v)), -pool.id(("anc", v, w)),
                                pool.id(("anc", u, w))])
    return clauses


def encode(structure: Structure) -> tuple[CNF, IDPool]:
    pool = IDPool()
    for a, b in sorted(structure.adjacent):
        pool.id(("dir", a, b))
    cnf = CNF()
    cnf.extend(_collider_clauses(structure, pool))
    cnf.extend(_acyclicity_clauses(structure, pool))
    return cnf, pool


def _decode(structure: Structure, pool: IDPool, model: set[int]) -> Dag:
    edges = []
    for a, b in structure.adjacent:
        edges.append((a, b) if pool.id(("dir", a, b)) in model else (b, a))
    return Dag.from_edges(structure.n, edges)


def enumerate_members(structure: Structure, limit: int = 100_000) -> Iterator[Dag]:
    """Every DAG with the structure's skeleton and exactly its v-structures."""
    cnf, pool = encode(structure)
    dir_vars = [pool.id(("dir", a, b)) for a, b in sorted(structure.adjacent)]
    count = 0
    with Solver(name="cadical153", bootstrap_with=cnf.clauses) as solver:
        if not dir_vars:
            if solver.solve():
                yield Dag.from_edges(structure.n, [])
            return
        while solver.solve():
            model = set(solver.get_model() or [])
            yield _decode(structure, pool, model)
            count += 1
            if count >= limit:
                raise BudgetExceeded(f"the equivalence class has more than {limit} members")
            solver.add_clause([-v if v in model else v for v in dir_vars])
