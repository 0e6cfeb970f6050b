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
    """Apply colliders then R1–R4 to a fixpoint."""
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

    changed = bool(directed)  # every rule needs a directed edge to start from
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
