"""Skeleton and colliders implied by a closed-world list of independencies.

Under faithfulness (DESIGN.md 3.1) a DAG reproduces the premise exactly only if

* **adjacency**: ``x`` and ``y`` are adjacent iff no listed statement makes them
  independent given any set (a DAG separates non-adjacent nodes, e.g. by the
  parents of one of them, and never separates adjacent ones);
* **colliders**: for an *unshielded triple* ``x — m — y`` (x, y non-adjacent) the
  triple is a collider ``x → m ← y`` iff ``m`` lies in *no* separating set of x and
  y, and a non-collider iff ``m`` lies in *every* one.  A middle node that lies in
  some separating sets but not in others is impossible in any DAG: the premise is
  inconsistent (Spirtes, Glymour & Scheines 2000, the PC algorithm; Verma & Pearl
  1990 for the characterisation of Markov equivalence by skeleton + v-structures).

``derive_structure`` returns these facts with their provenance (the statement
that removes each edge, the statements that make each triple a collider or not),
which the explanation quotes.
"""

from __future__ import annotations

from dataclasses import dataclass

from causal_oracle.oracle.statements import Independence, Premise


@dataclass(frozen=True, slots=True)
class UnshieldedTriple:
    """``x — middle — y`` with x, y non-adjacent (``x < y``)."""

    x: int
    middle: int
    y: int
    collider: bool
    #: a statement separating x and y without ``middle`` (collider) or with it (non-collider)
    witness: Independence


@dataclass(frozen=True, slots=True)
class SepsetConflict:
    """``middle`` is in one separating set of (x, y) and missing from another."""

    x: int
    middle: int
    y: int
    with_middle: Independence
    without_middle: Independence


@dataclass(frozen=True, slots=True)
class Structure:
    n: int
    adjacent: frozenset[tuple[int, int]]
    #: for every non-adjacent pair, the first listed statement that separates it
    separated_by: dict[tuple[int, int], Independence]
    triples: tuple[UnshieldedTriple, ...]
    conflicts: tuple[SepsetConflict, ...]

    def neighbours(self, v: int) -> int:
        m = 0
        for a, b in self.adjacent:
            if a == v:
                m |= 1 << b
            elif b == v:
                m |= 1 << a
        return m

    @property
    def colliders(self) -> tuple[UnshieldedTriple, ...]:
        return tuple(t for t in self.triples if t.collider)


def derive_structure(premise: Premise) -> Structure:
    """Skeleton, unshielded triples and sepset conflicts of a premise."""
    n = premise.n
    sepsets: dict[tuple[int, int], list[Independence]] = {}
    for s in premise.independences:
        sepsets.setdefault((s.x, s.y), []).append(s)
    adjacent = frozenset((x, y) for x in range(n) for y in range(x + 1, n)
                         if (x, y) not in sepsets)
    adj = [0] * n
    for a, b in adjacent:
        adj[a] |= 1 << b
        adj[b] |= 1 << a
    triples: list[UnshieldedTriple] = []
    conflicts: list[SepsetConflict] = []
    for (x, y), statements in sorted(sepsets.items()):
        common = adj[x] & adj[y]
        if not common:
            continue
        # the middles in some separating set, and those in every one
        some, every = 0, -1
        for s in statements:
            some |= s.given
            every &= s.given
        for m in range(n):
            if not common >> m & 1:
                continue
            if not some >> m & 1:  # in none: a collider (the first statement shows it)
                triples.append(UnshieldedTriple(x, m, y, True, statements[0]))
            elif every >> m & 1:  # in every one: a non-collider
                triples.append(UnshieldedTriple(x, m, y, False, statements[0]))
            else:  # in some and not in others: the first of each
                with_m = next(s for s in statements if s.given >> m & 1)
                without_m = next(s for s in statements if not s.given >> m & 1)
                conflicts.append(SepsetConflict(x, m, y, with_m, without_m))
    return Structure(n, adjacent, {k: v[0] for k, v in sepsets.items()}, tuple(triples),
                     tuple(conflicts))
