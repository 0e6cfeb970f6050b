"""Identification of P(y | do(x)) by the ID algorithm, with its certificate either way.

The graph (``CalmGraph``) stands for a causal model whose hidden confounders are its
bidirected edges.  ``identify`` runs Shpitser & Pearl's ID algorithm (2006) on vertex
bitmasks (the project's mixed-graph core, ``oracle.mixed_graph``: ``reach`` over parent
and spouse masks) with ``G`` the current induced subgraph:

1. ``x = ∅``: Σ_{V∖y} P(V) — identified;
2. drop every vertex that is not an ancestor of ``y`` (P marginalises them away);
3. add to ``x`` every ``w`` that is not an ancestor of ``y`` once the edges into ``x``
   are cut (intervening on it changes nothing);
4. if ``G∖x`` has several districts S₁…S_k, P(y|do(x)) = Σ_{V∖(y∪x)} Π Q[Sᵢ], each
   Q[Sᵢ] = P(Sᵢ | do(V∖Sᵢ)) identified in turn;
5. if ``G`` is one district: **fail** — ``G`` and the district S of ``G∖x`` contain a
   *hedge* (two C-forests F ⊃ F′ rooted in ``y``, F meeting ``x``, F′ not), the
   certificate of non-identifiability;
6. if S is a district of ``G``: Q[S] = Π_{v∈S} P(v | v's predecessors) in a topological
   order — identified;
7. otherwise S lies in a larger district S′ of ``G``: recurse into G[S′] with the
   distribution Q[S′].

The identifying expression is written in Tian's c-factor notation: ``Q[S]`` the factor of
the vertex set S (Π_{v∈S} P(v | its predecessors) at line 6; at line 7 the distribution
the recursion continues from), ``Σ_{W}`` a sum over W, ``F↾A`` the factor F summed down
to the ancestral set A (line 2), ``[…] […]`` a product of districts' factors.  The hedge
is built from the failing call's graph: a forest of one directed edge per vertex towards
``y``, F′'s edges inside S first.
The checker (``oracle.calm.check_graph``) verifies the hedge's two C-forests and checks
an identified answer by Tian & Pearl's c-component identification instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.calm.model import CalmGraph, Hedge, Verdict
from causal_oracle.oracle.graph import bits


class _Fail(Exception):
    def __init__(self, keep: int, x: int, y: int, s: int) -> None:
        super().__init__("hedge")
        self.keep, self.x, self.y, self.s = keep, x, y, s


@dataclass(frozen=True, slots=True)
class _G:
    """The graph's masks, shared by every call of one run."""

    g: CalmGraph
    full: int

    def ancestors(self, target: int, keep: int, cut: int = 0) -> int:
        """An(target) inclusive in G[keep], edges into ``cut`` removed."""
        return self.g.ancestors_of(target, keep, cut)

    def districts(self, keep: int) -> list[int]:
        return self.g.districts(keep)

    def names(self, mask: int) -> str:
        return "{" + ", ".join(self.g.named(mask)) + "}"


def _sum(g: _G, over: int, body: str) -> str:
    return f"Σ_{g.names(over)} {body}" if over else body


def _id(g: _G, y: int, x: int, keep: int, factor: str) -> str:
    """P(y | do(x)) in G[keep] from the c-factor ``factor`` (its distribution), as text;
    raises ``_Fail`` at line 5."""
    checkpoint()
    if not x:  # line 1
        return _sum(g, keep & ~y, factor)
    an = g.ancestors(y, keep)
    if an != keep:  # line 2
        return _id(g, y, x & an, an, f"{factor}↾{g.names(an)}")
    w = keep & ~x & ~g.ancestors(y, keep, cut=x)
    if w:  # line 3
        return _id(g, y, x | w, keep, factor)
    parts = g.districts(keep & ~x)
    if len(parts) > 1:  # line 4
        inner = " ".join(f"[{_id(g, s, keep & ~s, keep, factor)}]" for s in parts)
        return _sum(g, keep & ~(y | x), inner)
    s = parts[0]
    whole = g.districts(keep)
    if len(whole) == 1:  # line 5
        raise _Fail(keep, x, y, s)
    if s in whole:  # line 6
        return _sum(g, s & ~y, f"Q[{g.names(s)}]")
    bigger = next(d for d in whole if d & s == s)  # line 7
    return _id(g, y, x & bigger, bigger, f"Q[{g.names(bigger)}]")


def _hedge(g: _G, fail: _Fail) -> Hedge:
    """The hedge inside the failing call's graph: F = G[keep], F′ = S, rooted in y."""
    parents = g.g.dag.parents
    edges: list[tuple[int, int]] = []
    placed = fail.y & fail.keep
    for region in (fail.s, fail.keep):  # F′'s vertices first, inside S; then the rest
        frontier = placed
        while frontier:
            checkpoint()
            nxt = 0
            for child in bits(frontier):
                for parent in bits(parents[child] & region & ~placed & ~nxt):
                    edges.append((parent, child))
                    nxt |= 1 << parent
            placed |= nxt
            frontier = nxt
    names = g.g.names
    return Hedge(frozenset(g.g.named(fail.keep)), frozenset(g.g.named(fail.s)),
                 frozenset(g.g.named(fail.y & fail.keep)),
                 tuple(sorted((names[a], names[b]) for a, b in edges)))


def identify(graph: CalmGraph, treatment: str, outcome: str) -> Verdict:
    """Whether P(outcome | do(treatment)) is identified in ``graph``, with the identifying
    expression or a hedge.  Treatment = outcome is identified trivially and flagged
    degenerate."""
    if treatment == outcome:
        return Verdict(True, expression=f"P({outcome} | do({treatment})) = "
                       f"[{outcome} = {treatment}]", degenerate=True)
    g = _G(graph, (1 << len(graph.names)) - 1)
    x, y = graph.mask((treatment,)), graph.mask((outcome,))
    try:
        body = _id(g, y, x, g.full, "P(V)")
    except _Fail as fail:
        return Verdict(False, hedge=_hedge(g, fail))
    return Verdict(True, expression=f"P({outcome} | do({treatment})) = {body}")


__all__ = ["identify"]
