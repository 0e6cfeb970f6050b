"""Orientation rules: from skeleton + colliders to the CPDAG (Meek 1995).

Starting from the skeleton with every collider ``x → m ← y`` oriented, the four
Meek rules orient an undirected edge ``a — b`` as ``a → b`` when the other
direction would create a new v-structure or a cycle:

* **R1** ``c → a — b``, c and b non-adjacent: ``a → b`` (else ``c → a ← b`` is a new collider);
* **R2** ``a → c → b`` and ``a — b``: ``a → b`` (else a cycle ``a → c → b → a``);
* **R3** ``a — c → b``, ``a — d → b``, ``a — b``, c and d non-adjacent: ``a → b``;
* **R4** ``a — d → c → b``, ``a — b``, ``a — c``, d and b non-adjacent: ``a → b``.

Applied to a fixpoint they yield the CPDAG: an edge is directed iff every member
of the equivalence class orients it that way (Meek 1995, "Causal inference and
causal explanation with background knowledge"; Andersson et al. 1997).

``orient`` records why each edge got its direction, for the explanation.
"""

from __future__ import annotations

from dataclasses import dataclass

from causal_oracle.oracle.structure import Structure


@dataclass(frozen=True, slots=True)
class Orientation:
    """``tail → head`` was forced by ``rule`` (``"collider"``, ``"R1"``…``"R4"``) via ``via``."""

    tail: int
    head: int
    rule: str
    via: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Cpdag:
    n: int
    directed: frozenset[tuple[int, int]]
    undirected: frozenset[tuple[int, int]]  # (a, b) with a < b
    orientations: tuple[Orientation, ...]
    #: edges that two rules wanted in both directions (premise inconsistent)
    clashes: tuple[tuple[int, int], ...] = ()


def orient(structure: Structure) -> Cpdag:
    """Apply colliders then R1–R4 to a fixpoint.

    Sweeps over the ordered pairs (a, b) in index order, each rule tried in turn with
    the lowest-numbered node that fires it (bit masks per node: the adjacent nodes, the
    tails of directed edges into it and the heads of those out of it)."""
    n = structure.n
    adj = [0] * n
    for a, b in structure.adjacent:
        adj[a] |= 1 << b
        adj[b] |= 1 << a
    into = [0] * n  # into[v]: the c with c → v directed
    out = [0] * n  # out[v]: the c with v → c directed
    record: list[Orientation] = []
    clashes: list[tuple[int, int]] = []

    def put(tail: int, head: int, rule: str, via: tuple[int, ...]) -> bool:
        if into[head] >> tail & 1:
            return False
        if into[tail] >> head & 1:
            clashes.append((tail, head))
            return False
        into[head] |= 1 << tail
        out[tail] |= 1 << head
        record.append(Orientation(tail, head, rule, via))
        return True

    for t in structure.colliders:
        put(t.x, t.middle, "collider", (t.y,))
        put(t.y, t.middle, "collider", (t.x,))

    changed = bool(record)  # every rule needs a directed edge to start from
    while changed:
        changed = False
        for a in range(n):
            for b in range(n):
                bit = 1 << b
                if not adj[a] & bit or (into[a] | out[a]) & bit:
                    continue  # not an undirected edge a — b
                # R1 (c → a, c and b non-adjacent) or R2 (a → c → b), the first c either way
                r1 = into[a] & ~adj[b] & ~bit
                r2 = out[a] & into[b]
                if r1 | r2:
                    low = (r1 | r2) & -(r1 | r2)
                    changed |= put(a, b, "R1" if r1 & low else "R2", (low.bit_length() - 1,))
                    continue
                # R3: a — c → b and a — d → b with c and d non-adjacent (the first such pair)
                free = adj[a] & ~into[a] & ~out[a]  # a's undirected neighbours
                both = free & into[b]
                pair = None
                rest = both
                while rest and pair is None:
                    low = rest & -rest
                    rest ^= low
                    c = low.bit_length() - 1
                    others = rest & ~adj[c]
                    if others:
                        pair = (c, (others & -others).bit_length() - 1)
                if pair:
                    changed |= put(a, b, "R3", pair)
                    continue
                # R4: a — d → c → b with a — c and d, b non-adjacent (the first d, then c)
                rest = free & ~adj[b] & ~bit
                while rest:
                    low = rest & -rest
                    rest ^= low
                    d = low.bit_length() - 1
                    cs = out[d] & into[b] & adj[a]
                    if cs:
                        changed |= put(a, b, "R4", (d, (cs & -cs).bit_length() - 1))
                        break
    und = frozenset((a, b) for a, b in structure.adjacent
                    if not ((into[a] | out[a]) >> b & 1))
    directed = frozenset((t, h) for h in range(n) for t in range(n) if into[h] >> t & 1)
    return Cpdag(n, directed, und, tuple(record), tuple(clashes))
