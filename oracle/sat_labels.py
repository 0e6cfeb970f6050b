"""Labels by satisfiability: does a relation hold in *some* member? fail in some?

Listing the Markov equivalence class is exponential (a complete 12-variable
premise has 12! = 479,001,600 members), but a 3-class label needs only two yes/no
questions about the class 𝓜 and a relation R:

* is ``∃ G ∈ 𝓜 : R(G)`` satisfiable?  (no → **contradiction**)
* is ``∃ G ∈ 𝓜 : ¬R(G)`` satisfiable? (no → **entailment**)
* both → **neutral**, and the two models are the two members of its certificate.

``ClassSolver`` holds one incremental SAT solver per premise, loaded with the class
constraints that ``oracle.sat_encoding.class_encoding`` builds once per premise
(orientation variable per skeleton edge, colliders, non-colliders, acyclicity).  Each
relation gets one *indicator* literal ``r`` defined by clauses ``r ↔ R`` the first time
it is asked about; the two questions are then ``solve(assumptions=[r])`` and
``solve(assumptions=[-r])``, so nothing is ever re-encoded or retracted.

Reachability is encoded exactly, not over-approximated.  For a source ``s`` and a
set of nodes to avoid, one variable ``x_v`` per node says "``v`` is reachable from
``s`` by a directed path of length ≥ 1 whose nodes avoid the set", defined by

    x_v ↔ ⋁_u ( (u = s ∨ x_u) ∧ u → v )

Such recursive definitions can have spurious self-supporting solutions on a graph
with a cycle (``x_a ← x_b ← x_a``), but every member is acyclic: along a
topological order each ``x_v`` is determined by its predecessors, so the
definition has exactly one solution, the true reachability.

Relations (``oracle.relations`` for their meaning under each profile):

* direct cause: the orientation literal ``p → q``;
* indirect cause: ``q`` reachable from ``p`` with the first edge ``p → q`` banned
  (a path of length ≥ 2); strict "a cause but not a direct one": ``q`` reachable
  and ``¬(p → q)``;
* collider (common effect): some ``c ∉ {p, q}`` with ``c`` reachable from ``p`` and
  from ``q`` — avoiding ``q`` and ``p`` respectively under corr2cause (then the two
  paths can be cut to share only ``c``), unrestricted under loose; a common child
  under strict;
* confounder: the same along parents.
"""

from __future__ import annotations

from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.relations import Profile
from causal_oracle.oracle.sat_encoding import (
    class_encoding,
    clause_adder,
    loaded_solver,
    spare_solver,
)
from causal_oracle.oracle.statements import RelationKind, SurfaceForm
from causal_oracle.oracle.structure import Structure

RelationKey = tuple[RelationKind, bool, Profile, int, int]


class ClassSolver:
    """One incremental SAT solver over the members of one premise's class."""

    def __init__(self, structure: Structure) -> None:
        encoding = class_encoding(structure)  # built once per premise, shared
        self.n = structure.n
        self.edges = list(encoding.edges)
        self._dir: dict[tuple[int, int], int] = {e: i + 1 for i, e in enumerate(self.edges)}
        self._nbrs = [0] * self.n
        for a, b in self.edges:
            self._nbrs[a] |= 1 << b
            self._nbrs[b] |= 1 << a
        self._next = encoding.top
        # the class clauses, loaded once per premise: by the member enumeration that found
        # the class too large to list (its spare solver), or here
        self._solver = spare_solver(structure) or loaded_solver(encoding.clauses)
        self._add = clause_adder(self._solver)
        self._true = self._new()
        self._add([self._true])
        self._reach: dict[tuple[int, bool, int, int], list[int]] = {}
        self._relations: dict[RelationKey, int] = {}

    # ------------------------------------------------------------ basics
    def _new(self) -> int:
        self._next += 1
        return self._next

    def close(self) -> None:
        self._solver.delete()

    def arc(self, tail: int, head: int) -> int:
        """The literal "``tail → head``" (the pair must be adjacent)."""
        if tail < head:
            return self._dir[(tail, head)]
        return -self._dir[(head, tail)]

    def _and(self, lits: list[int]) -> int:
        out = self._new()
        for lit in lits:
            self._add([-out, lit])
        self._add([out] + [-lit for lit in lits])
        return out

    def _or(self, lits: list[int]) -> int:
        if not lits:
            return -self._true
        out = self._new()
        self._add([-out, *lits])
        for lit in lits:
            self._add([out, -lit])
        return out

    # ------------------------------------------------------ reachability
    def reach(self, source: int, downward: bool, avoid: int = -1,
              direct_banned: int = -1) -> list[int]:
        """Literals ``x_v``: ``v`` reachable from ``source`` (≥ 1 step, along children when
        ``downward`` else parents) without entering ``avoid``; with ``direct_banned`` ≥ 0,
        the single step ``source → direct_banned`` does not count as a path."""
        key = (source, downward, avoid, direct_banned)
        cached = self._reach.get(key)
        if cached is not None:
            return cached
        n = self.n
        x = [self._new() for _ in range(n)]
        add = self._add
        for v in range(n):
            if v in (source, avoid):
                add([-x[v]])
                continue
            terms = []
            for u in range(n):
                if u == avoid or not self._nbrs[v] >> u & 1:
                    continue
                step = self.arc(u, v) if downward else self.arc(v, u)
                if u == source:
                    if v != direct_banned:
                        terms.append(step)
                else:
                    terms.append(self._and([x[u], step]))
            add([-x[v], *terms])
            for t in terms:
                add([x[v], -t])
        self._reach[key] = x
        return x

    # ---------------------------------------------------------- relations
    def relation(self, kind: RelationKind, form: SurfaceForm, p: int, q: int,
                 profile: Profile) -> int:
        """The indicator literal of the relation (encoded on first use, then reused)."""
        literal = (kind is RelationKind.INDIRECT_CAUSE and profile is Profile.STRICT
                   and form is SurfaceForm.CAUSE_NOT_DIRECT)
        if kind in (RelationKind.DIRECT_CAUSE, RelationKind.INDIRECT_CAUSE):
            profile = Profile.STRICT if literal else Profile.CORR2CAUSE
        key = (kind, literal, profile, p, q)
        found = self._relations.get(key)
        if found is None:
            found = self._encode(kind, literal, profile, p, q)
            self._relations[key] = found
        return found

    def _encode(self, kind: RelationKind, literal: bool, profile: Profile, p: int,
                q: int) -> int:
        adjacent = bool(self._nbrs[p] >> q & 1)
        edge = self.arc(p, q) if adjacent else -self._true
        if kind is RelationKind.DIRECT_CAUSE:
            return edge
        if kind is RelationKind.INDIRECT_CAUSE:
            if literal:
                return self._and([-edge, self.reach(p, True)[q]])
            return self.reach(p, True, direct_banned=q)[q]
        downward = kind is RelationKind.COMMON_EFFECT
        others = [c for c in range(self.n) if c not in (p, q)]
        if profile is Profile.STRICT:
            terms = []
            for c in others:
                if self._nbrs[c] >> p & 1 and self._nbrs[c] >> q & 1:
                    pc = self.arc(p, c) if downward else self.arc(c, p)
                    qc = self.arc(q, c) if downward else self.arc(c, q)
                    terms.append(self._and([pc, qc]))
            return self._or(terms)
        if profile is Profile.LOOSE:
            from_p, from_q = self.reach(p, downward), self.reach(q, downward)
        else:
            from_p, from_q = self.reach(p, downward, avoid=q), self.reach(q, downward, avoid=p)
        return self._or([self._and([from_p[c], from_q[c]]) for c in others])

    # ------------------------------------------------------------ queries
    def member(self, assume: list[int] | None = None) -> Dag | None:
        """A member satisfying ``assume`` (indicator literals), or ``None``."""
        if not self._solver.solve(assumptions=assume or []):
            return None
        model = self._solver.get_model() or []
        m = len(self.edges)
        if m and (len(model) < m or abs(model[m - 1]) != m):
            true = {lit for lit in model if lit > 0}  # not python-sat's usual layout
            model = [i + 1 if i + 1 in true else -(i + 1) for i in range(m)]
        parents = [0] * self.n  # model[i] is the literal of edge variable i + 1
        for (a, b), lit in zip(self.edges, model, strict=False):
            if lit > 0:
                parents[b] |= 1 << a
            else:
                parents[a] |= 1 << b
        return Dag(self.n, tuple(parents))

    def decide(self, kind: RelationKind, form: SurfaceForm, p: int, q: int,
               profile: Profile) -> tuple[Dag | None, Dag | None]:
        """(a member where the relation holds, a member where it fails); ``None`` = none."""
        r = self.relation(kind, form, p, q, profile)
        return self.member([r]), self.member([-r])
