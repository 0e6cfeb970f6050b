"""The checker's own solver: questions about a whole class, asked of z3.

Part of the independent checker (``oracle.check``): it shares no code with the
solver side (``oracle.sat_encoding``, ``oracle.sat_labels``, which use python-sat
with a transitive-closure acyclicity encoding).  Here the class of DAGs with a
given skeleton and exactly a given set of v-structures is written in z3 with a
*ranking* encoding of acyclicity: an integer per node, and every edge must go up
in rank — a directed graph is acyclic iff such a ranking (a topological order)
exists.

Relations are written as z3 formulas over the orientation Booleans.  Reachability
from ``s`` avoiding a set is a Boolean per node with
``reach(v) = ⋁_u (u = s ∨ reach(u)) ∧ u → v``; since every model is acyclic
(ranks), the equations have one solution, the true reachability.

``orientation_exists`` answers "is the class non-empty?"; ``refuted`` answers
"does some member make the relation hold (``want=True``) / fail (``want=False``)?"
An entailment is certified by ``refuted(..., want=False)`` being unsatisfiable, a
contradiction by ``refuted(..., want=True)`` being unsatisfiable.
"""

from __future__ import annotations

import z3

Skeleton = list[tuple[int, int]]


class _Class:
    def __init__(self, n: int, skeleton: Skeleton, vstructs: set[tuple[int, int, int]]) -> None:
        self.n = n
        self.adj = {(a, b) for a, b in skeleton} | {(b, a) for a, b in skeleton}
        self.d = {(a, b): z3.Bool(f"o_{a}_{b}") for a, b in skeleton}
        rank = [z3.Int(f"rank_{v}") for v in range(n)]
        self.s = z3.Solver()
        for a, b in skeleton:
            self.s.add(z3.If(self.d[(a, b)], rank[a] < rank[b], rank[b] < rank[a]))
        for c in range(n):
            for a in range(n):
                for b in range(a + 1, n):
                    if (a, c) in self.adj and (b, c) in self.adj and (a, b) not in self.adj:
                        into = z3.And(self.arrow(a, c), self.arrow(b, c))
                        self.s.add(into if (a, c, b) in vstructs else z3.Not(into))

    def arrow(self, t: int, h: int) -> z3.BoolRef:
        if (t, h) not in self.adj:
            return z3.BoolVal(False)
        return self.d[(t, h)] if (t, h) in self.d else z3.Not(self.d[(h, t)])

    def reach(self, src: int, down: bool, avoid: int, tag: str,
              no_direct_to: int = -1) -> list[z3.BoolRef]:
        r = [z3.Bool(f"{tag}_{v}") for v in range(self.n)]
        for v in range(self.n):
            if v in (src, avoid):
                self.s.add(z3.Not(r[v]))
                continue
            ways = []
            for u in range(self.n):
                if u == avoid or (u, v) not in self.adj:
                    continue
                step = self.arrow(u, v) if down else self.arrow(v, u)
                if u == src:
                    if v != no_direct_to:
                        ways.append(step)
                else:
                    ways.append(z3.And(r[u], step))
            self.s.add(r[v] == z3.Or(ways) if ways else z3.Not(r[v]))
        return r

    def relation(self, kind: str, literal: bool, profile: str, p: int, q: int) -> z3.BoolRef:
        if kind == "direct_cause":
            return self.arrow(p, q)
        if kind == "indirect_cause":
            if literal:
                return z3.And(z3.Not(self.arrow(p, q)), self.reach(p, True, -1, "lit")[q])
            return self.reach(p, True, -1, "ind", no_direct_to=q)[q]
        down = kind == "common_effect"
        third = [c for c in range(self.n) if c not in (p, q)]
        if profile == "strict":
            if down:
                return z3.Or([z3.And(self.arrow(p, c), self.arrow(q, c)) for c in third] or
                             [z3.BoolVal(False)])
            return z3.Or([z3.And(self.arrow(c, p), self.arrow(c, q)) for c in third] or
                         [z3.BoolVal(False)])
        if profile == "loose":
            rp, rq = self.reach(p, down, -1, "lp"), self.reach(q, down, -1, "lq")
        else:
            rp, rq = self.reach(p, down, q, "cp"), self.reach(q, down, p, "cq")
        return z3.Or([z3.And(rp[c], rq[c]) for c in third] or [z3.BoolVal(False)])


def orientation_exists(n: int, skeleton: Skeleton, vstructs: set[tuple[int, int, int]]) -> bool:
    """Whether some acyclic orientation of ``skeleton`` has exactly ``vstructs``."""
    return _Class(n, skeleton, vstructs).s.check() == z3.sat


def refuted(n: int, skeleton: Skeleton, vstructs: set[tuple[int, int, int]], kind: str,
            form_is_not_direct: bool, profile: str, p: int, q: int, want: bool) -> bool:
    """Whether some member of the class makes the relation ``want`` (True: hold, False: fail)."""
    cls = _Class(n, skeleton, vstructs)
    literal = kind == "indirect_cause" and profile == "strict" and form_is_not_direct
    r = cls.relation(kind, literal, profile, p, q)
    cls.s.add(r if want else z3.Not(r))
    return cls.s.check() == z3.sat
