"""The Markov equivalence class as a SAT problem (python-sat).

Variables, numbered by arithmetic (no name pool), for ``m`` skeleton edges over ``n``
nodes:

* ``1 … m``: for the ``i``-th skeleton edge ``a < b`` in sorted order, true iff the edge
  points ``a → b``;
* ``m + 1 + u·n + v`` for ordered pairs ``(u, v)``: a transitive over-approximation of
  reachability ("anc"), when the skeleton is not chordal.

Constraint families:

* **colliders** — each collider triple ``x → m ← y`` fixes two orientations;
* **non-colliders** — each other unshielded triple forbids ``x → m ← y``;
* **acyclicity**, on a chordal skeleton (every cycle of four or more nodes has a chord:
  complete premises, trees, most dense ones) — no directed triangle: two clauses per
  triangle, no other variable.  A shortest directed cycle of length ≥ 4 would have a
  chord, and either orientation of the chord closes a shorter directed cycle, so an
  orientation without directed triangles is acyclic.  On any other skeleton —
  ``edge(u,v) → anc(u,v)``, ``anc(u,v) ∧ anc(v,w) → anc(u,w)``, ``¬anc(u,u)``: any
  cycle would force some ``anc(u,u)``.  (A complete 12-variable premise: 440 clauses
  instead of 1,596.)

``class_encoding`` builds these clauses once per premise (remembered in the current
memory, ``oracle.memo``): the member enumeration here and the labelling solver of
``oracle.sat_labels`` start from the same clause list, which they load into their own
solvers and extend (blocking clauses; relation indicators queried under assumptions).

Every model, projected onto the edge variables, is one member of the class: a DAG
with the premise's skeleton and exactly its v-structures.  Members are enumerated
with blocking clauses over the edge literals.

Loading is most of the work for a large premise (hundreds of clauses, and SAT calls of
microseconds): ``loaded_solver`` hands the clauses to CaDiCaL through python-sat's own
C call, one call per clause, without the Python method around it that python-sat's
``bootstrap_with`` goes through (which costs more than the clause); the solver and its
clauses, in order, are the same either way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import pysolvers  # type: ignore[import-not-found]  # python-sat's C module
from pysat.solvers import Solver

from causal_oracle.oracle.errors import BudgetExceeded
from causal_oracle.oracle.graph import Dag, bits
from causal_oracle.oracle.memo import current, keep, memoised
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
    neighbours = [0] * n
    for a, b in edges:
        neighbours[a] |= 1 << b
        neighbours[b] |= 1 << a
    if _chordal(neighbours):  # acyclicity: no directed triangle
        for a, b in edges:
            common = neighbours[a] & neighbours[b] & -(1 << (b + 1))  # a < b < c
            for c in bits(common):
                clauses.append((-arc(a, b), -arc(b, c), -arc(c, a)))
                clauses.append((-arc(b, a), -arc(c, b), -arc(a, c)))
        return ClassEncoding(n, edges, len(edges), tuple(clauses))
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


def _chordal(neighbours: list[int]) -> bool:
    """Whether the graph (neighbour bitmasks) is chordal: maximum cardinality search,
    then Tarjan & Yannakakis's test that its order is a perfect elimination order (the
    earlier neighbours of each node, less the latest of them, are neighbours of that
    latest one)."""
    n = len(neighbours)
    weight = [0] * n
    visited = 0
    earlier = [0] * n
    position = [0] * n
    for step in range(n):
        v = max((u for u in range(n) if not visited >> u & 1), key=weight.__getitem__)
        earlier[v] = neighbours[v] & visited
        position[v] = step
        visited |= 1 << v
        for u in bits(neighbours[v] & ~visited):
            weight[u] += 1
    for v in range(n):
        if earlier[v]:
            latest = max(bits(earlier[v]), key=position.__getitem__)
            if earlier[v] & ~(1 << latest) & ~earlier[latest]:
                return False
    return True


_ADD_CLAUSE: Callable[[object, Iterable[int]], bool] | None = getattr(
    pysolvers, "cadical153_add_cl", None)


def clause_adder(solver: Solver) -> Callable[[Iterable[int]], object]:
    """A function adding one clause to ``solver`` (a CaDiCaL 1.5.3 solver of python-sat):
    its C call bound to the solver's handle where python-sat exposes both, else
    ``solver.add_clause``.  Unsatisfiability is read from ``solve``, never from adding."""
    handle = getattr(getattr(solver, "solver", None), "cadical", None)
    add = _ADD_CLAUSE
    if add is None or handle is None:
        return solver.add_clause  # type: ignore[no-any-return]
    return lambda clause: add(handle, clause)


def loaded_solver(clauses: Iterable[Iterable[int]]) -> Solver:
    """A CaDiCaL solver (python-sat) holding ``clauses``, added in order."""
    solver = Solver(name="cadical153")
    handle = getattr(solver.solver, "cadical", None)
    add = _ADD_CLAUSE
    if add is None or handle is None:
        solver.append_formula(clauses)
    else:
        for clause in clauses:
            add(handle, clause)
    return solver


def enumerate_members(structure: Structure, limit: int = 100_000) -> Iterator[Dag]:
    """Every DAG with the structure's skeleton and exactly its v-structures.

    A caller that stops after the first member (a class too large to list: it needs one
    member, and the labelling solver of ``oracle.sat_labels`` answers the rest) leaves
    the solver with the class clauses alone, which is what that solver starts from: it
    is kept in the current memory as a spare for ``spare_solver`` to take, so a large
    premise loads its clauses once, not twice.
    """
    encoding = class_encoding(structure)
    dir_vars = list(range(1, len(encoding.edges) + 1))
    count = 0
    solver = loaded_solver(encoding.clauses)
    untouched = False  # only the class clauses, and no blocking clause yet
    try:
        if not dir_vars:
            if solver.solve():
                yield Dag.from_edges(structure.n, [])
            return
        while solver.solve():
            model = set(solver.get_model() or [])
            untouched = count == 0
            yield encoding.decode(model)
            untouched = False
            count += 1
            if count >= limit:
                raise BudgetExceeded(f"the equivalence class has more than {limit} members")
            solver.add_clause([-v if v in model else v for v in dir_vars])
    finally:
        if untouched and current() is not None:
            keep(_SPARES, _key(structure), solver, _SPARES_KEPT)
        else:
            solver.delete()


_SPARES = "causal_oracle.oracle.sat_encoding.spares"
_SPARES_KEPT = 16


def _key(structure: Structure) -> tuple[object, ...]:
    return (structure.n, structure.adjacent,
            tuple((t.x, t.middle, t.y, t.collider) for t in structure.triples))


def spare_solver(structure: Structure) -> Solver | None:
    """A solver holding exactly the class clauses of ``structure`` (in order), left by a
    member enumeration stopped after its first member, or None; taken out of the memory,
    so it is the caller's alone (it then adds clauses of its own)."""
    memory = current()
    if memory is None:
        return None
    return memory.map(_SPARES).pop(_key(structure), None)  # type: ignore[no-any-return]
