"""Identification of P(y | do(x)) in an ADMG by the ID algorithm (Shpitser & Pearl 2006).

The ADMG stands for a causal model with hidden confounders (each bidirected edge
``A<->B`` a hidden common cause).  ``identifiable`` follows the algorithm's lines and
answers only whether it succeeds (it never builds the formula):

1. no intervention: identified;
2. drop every node that is not an ancestor of Y;
3. add to X the nodes that are not ancestors of Y once the edges into X are cut
   (intervening on them changes nothing);
4. if G without X splits into several districts, identify each district's factor;
5. if G is one district, fail — this is a *hedge*;
6. if the district S of G∖X is a district of G, its factor is identified;
7. otherwise recurse into the district S′ of G that contains S.

It runs on the graph's bitmasks (``oracle.mixed_graph``), each call on the sub-graph
induced by a vertex mask.  Tian & Pearl's criterion for a single treatment (no
bidirected path from X to one of its children in the ancestors of Y) is a special
case; the checker uses the hedge criterion instead (``oracle.clear.check``).

>>> from causal_oracle.oracle.clear.model import GraphKind, MixedGraph
>>> bow = MixedGraph.build(GraphKind.ADMG, "XY", directed=[("X", "Y")], bidirected=[("X", "Y")])
>>> identifiable(bow, {"X"}, {"Y"})
False
"""

from __future__ import annotations

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.clear.model import MixedGraph


def identifiable(g: MixedGraph, x: set[str], y: set[str]) -> bool:
    """Whether P(y | do(x)) is identified from P(V) in the ADMG ``g``."""
    return _identifiable(g, g.mask(x), g.mask(y), g.full)


def _identifiable(g: MixedGraph, x: int, y: int, keep: int) -> bool:
    """The algorithm's lines in the sub-graph G[keep] (bitmasks of ``g``'s vertices)."""
    checkpoint()
    if not x:
        return True
    an = g.ancestors_of(y, keep)
    if an != keep:
        return _identifiable(g, x & an, y, an)
    w = keep & ~x & ~g.ancestors_of(y, keep, cut=x)
    if w:
        return _identifiable(g, x | w, y, keep)
    parts = g.districts(keep & ~x)
    if len(parts) > 1:
        return all(_identifiable(g, keep & ~s, s, keep) for s in parts)
    s = parts[0]
    whole = g.districts(keep)
    if len(whole) == 1:
        return False
    if s in whole:
        return True
    bigger = next(d for d in whole if d & s == s)
    return _identifiable(g, x & bigger, y, bigger)
