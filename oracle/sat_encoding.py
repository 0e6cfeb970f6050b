"""The Markov equivalence class as a SAT problem (python-sat).

Variables, numbered by arithmetic (no name pool), for ``m`` skeleton edges over ``n``
nodes:

* ``1 … m``: for the ``i``-th skeleton edge ``a < b`` in sorted order, true iff the edge
  points ``a → b``;
* ``m + 1 + u·n + v`` for ordered pairs ``(u, v)``: a transitive over-approximation of
  reachability ("anc").

Constraint families, one function each:

* **colliders** — each collider triple ``x → m ← y`` fixes two orientations;
* **non-colliders** — each other unshielded triple forbids ``x → m ← y``;
* **acyclicity** — ``edge(u,v) → anc(u,v)``, ``anc(u,v) ∧ anc(v,w) → anc(u,w)``,
  ``¬anc(u,u)``: any cycle would force some ``anc(u,u)``.

``class_encoding`` builds these clauses once per premise (remembered in the current
memory, ``oracle.memo``): the member enumeration here and the labelling solver of
``oracle.sat_labels`` start from the same clause list, which they load into their own
solvers and extend (blocking clauses; relation indicators queried under assumptions).

Every model, projected onto the edge variables, is one member of the class: a DAG
with the premise's skeleton and exactly its v-structures.  Members are enumerated
with blocking clauses over the edge literals.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pysat.solvers import Solver

from causal_oracle.oracle.errors import BudgetExceeded
from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.memo import memoised
from causal_oracle.oracle.structure import Structure


@dataclass(frozen=True)
class ClassEncoding:
    """The class constraints of one premise: ``edges`` (sorted; edge ``i`` is variable
    ``i + 1``), ``top`` (the largest variable used) and the ``clauses``."""

    n: int
    edges: tuple[tuple[int, int], ...]
    top: int
    clauses: tuple[tuple[int, ...], ...]

    def arc(self, tail: int, head: int) -> int:
        """The literal meaning ``tail → head`` for a skeleton edge."""
        if tail < head:
            return self.edges.index((tail, head)) + 1
        return -(self.edges.index((head, tail)) + 1)

    def decode(self, model: set[int]) -> Dag:
        """The member a model describes."""
        return Dag.from_edges(self.n, [(a, b) if i + 1 in model else (b, a)
                                       for i, (a, b) in enumerate(self.edges)])


def class_encoding(structure: Structure) -> ClassEncoding:
    """The class constraints of ``structure``, built once per premise."""
    triples = tuple((t.x, t.middle, t.y, t.collider) for t in structure.triples)
    return _encoding(structure.n, structure.adjacent, triples)


@memoised(limit=64)
def _encoding(n: int, adjacent: frozenset[tuple[int, int]],
              triples: tuple[tuple[int, int, int, bool], ...]) -> ClassEncoding:
    edges = tuple(sorted(adjacent))
    var = {edge: i + 1 for i, edge in enumerate(edges)}

    def arc(tail: int, head: int) -> int:
        return var[(tail, head)] if tail < head else -var[(head, tail)]

    clauses: list[tuple[int, ...]] = []
    for x, middle, y, collider in triples:  # colliders and non-colliders
        into_x, into_y = arc(x, middle), arc(y, middle)
        if collider:
            clauses += [(into_x,), (into_y,)]
        else:
            clauses.append((-into_x, -into_y))
    base = len(edges) + 1  # anc(u, v) is base + u*n + v
    for a, b in edges:  # acyclicity
        clauses.append((-arc(a, b), base + a * n + b))
        clauses.append((-arc(b, a), base + b * n + a))
    for u in range(n):
        clauses.append((-(base + u * n + u),))
        for v in range(n):
            if v == u:
                continue
            uv = -(base + u * n + v)
            vn = base + v * n
            un = base + u * n
            clauses += [(uv, -(vn + w), un + w) for w in range(n) if w != v]
    return ClassEncoding(n, edges, base + n * n - 1, tuple(clauses))


def enumerate_members(structure: Structure, limit: int = 100_000) -> Iterator[Dag]:
    """Every DAG with the structure's skeleton and exactly its v-structures."""
    encoding = class_encoding(structure)
    dir_vars = list(range(1, len(encoding.edges) + 1))
    count = 0
    with Solver(name="cadical153", bootstrap_with=encoding.clauses) as solver:
        if not dir_vars:
            if solver.solve():
                yield Dag.from_edges(structure.n, [])
            return
        while solver.solve():
            model = set(solver.get_model() or [])
            yield encoding.decode(model)
            count += 1
            if count >= limit:
                raise BudgetExceeded(f"the equivalence class has more than {limit} members")
            solver.add_clause([-v if v in model else v for v in dir_vars])
