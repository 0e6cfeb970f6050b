"""Drawing CLEAR's graphs at random, and writing them as CLEAR does.

- A "graph type" is how a graph is drawn and written, with CLEAR's names: ``DAG`` (a
  directed acyclic graph, ``A->B``), ``ADMG`` (an acyclic directed mixed graph: a DAG
  plus bidirected edges ``A<->B``, each standing for a hidden common cause),
  ``C-component`` (an ADMG whose bidirected edges join every node: one district),
  ``C-forest`` (a C-component in which every node has at most one child),
  ``C-tree`` (a C-forest with a single childless node), ``DG`` (a directed graph that
  may have cycles) and ``UG`` (an undirected graph, ``A-B``).  Node names are single
  capital letters drawn at random, listed and joined in random order, as CLEAR does.
- A "path" is a sequence of distinct nodes in which every step names one edge with its
  mark (``->``, ``<-``, ``<->``, ``-``); a "directed path" steps only along ``->``; a
  "backdoor path" from ``x`` starts with an arrowhead at ``x`` (``x<-…``, ``x<->…``).
- A node on a path is a "collider" when both of its edges point into it.  A node set
  ``z`` "blocks" a path when it holds a non-collider of the path, or when some collider
  has neither itself nor a descendant in ``z``; ``x`` and ``y`` are "d-separated" by
  ``z`` when ``z`` blocks every path between them (m-separation on ADMGs).

``draw_graph(kind, n, density, rng)`` draws one graph of a type with ``n`` nodes near
the density asked (adjacent node pairs / all node pairs), or None when the type cannot
have it; a ``Graph`` lists its nodes and edges in the order its description writes them
(``Graph.description``), and ``Graph.steps`` gives the edges at a node as a walk writes
them.  Graphs have at most ``MAX_NODES`` nodes and ``MAX_EDGES`` edges, as CLEAR's do,
and at most ``EDGE_CAPS[task]`` for the tasks whose oracle work grows fastest.

>>> import random
>>> g = draw_graph(GraphType.DAG, 4, 0.5, random.Random(1))
>>> g.nodes, g.edges, round(g.density, 3)
(('E', 'S', 'Z', 'Y'), 4, 0.667)
>>> g.steps("S")
[('->', 'E'), ('<-', 'Z')]
>>> g.description().split(" and directed edges ")[1]
'Y->E, Z->Y, Z->S, S->E.'
"""

from __future__ import annotations

import random
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from causal_oracle.entry.families.clear_wording import (
    ADMGS,
    GraphType,
)
from causal_oracle.oracle.clear.model import Task

MAX_NODES = 9  # CLEAR's graphs have 4 to 9 nodes
MAX_EDGES = 20  # and at most 20 edges: the oracle's checker lists paths and node sets
#: tighter caps where the oracle's work grows fastest (Markov equivalence: 2^edges
#: orientations; adjustment sets: every node set, path by path)
EDGE_CAPS: dict[Task, int] = {Task.MARKOV_EQUIVALENT: 12, Task.BACKDOOR_SET: 16,
                              Task.FRONTDOOR_SET: 16}
LETTERS = string.ascii_uppercase


# ---- graphs -------------------------------------------------------------------------------
Edge = tuple[str, str]


@dataclass(frozen=True)
class Graph:
    """A drawn graph: nodes and edges in the order the description lists them."""

    kind: GraphType
    nodes: tuple[str, ...]
    directed: tuple[Edge, ...] = ()
    bidirected: tuple[Edge, ...] = ()
    undirected: tuple[Edge, ...] = ()

    @property
    def edges(self) -> int:
        return len(self.directed) + len(self.bidirected) + len(self.undirected)

    @property
    def density(self) -> float:
        """Adjacent node pairs / all node pairs."""
        pairs = {frozenset(e) for e in (*self.directed, *self.bidirected, *self.undirected)}
        n = len(self.nodes)
        return len(pairs) / (n * (n - 1) / 2)

    def steps(self, v: str) -> list[tuple[str, str]]:
        """The edges at ``v`` as a walk writes them: (mark, other end)."""
        out = [("->", b) for a, b in self.directed if a == v]
        out += [("<-", a) for a, b in self.directed if b == v]
        out += [("<->", b if a == v else a) for a, b in self.bidirected if v in (a, b)]
        out += [("-", b if a == v else a) for a, b in self.undirected if v in (a, b)]
        return out

    def description(self) -> str:
        """The graph as CLEAR writes it."""
        nodes = ", ".join(self.nodes)

        def joined(edges: Sequence[Edge], mark: str) -> str:
            return ", ".join(f"{a}{mark}{b}" for a, b in edges)

        if self.kind is GraphType.DAG:
            return (f"Given a DAG (directed acyclic graph) with nodes {nodes} and directed "
                    f"edges {joined(self.directed, '->')}.")
        if self.kind is GraphType.DG:
            return f"Given a directed graph with nodes {nodes} and directed edges " \
                   f"{joined(self.directed, '->')}."
        if self.kind is GraphType.UG:
            return f"Given a undirected graph with nodes {nodes} and undirected edges " \
                   f"{joined(self.undirected, '-')}."
        return (f"Given an ADMG (acyclic directed mixed graph) with nodes {nodes}, directed "
                f"edges {joined(self.directed, '->')} and bi-directed edges "
                f"{joined(self.bidirected, '<->')}.")

    def as_data(self) -> dict[str, Any]:
        return {"type": self.kind.value, "nodes": list(self.nodes),
                "directed": [list(e) for e in self.directed],
                "bidirected": [list(e) for e in self.bidirected],
                "undirected": [list(e) for e in self.undirected]}


def _spanning_pairs(names: list[str], rng: random.Random) -> list[Edge]:
    """A random spanning tree's edges over ``names`` (each joins a node to an earlier one)."""
    spread = names[:]
    rng.shuffle(spread)
    return [(spread[k], rng.choice(spread[:k])) for k in range(1, len(spread))]


def draw_graph(kind: GraphType, n: int, density: float, rng: random.Random) -> Graph | None:
    """A random graph of ``kind`` on ``n`` random letters, each pair joined with probability
    about ``density``; None when it lacks an edge kind its description needs."""
    names = rng.sample(LETTERS, n)
    order = names[:]  # the topological order of the acyclic kinds
    rng.shuffle(order)
    pairs = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n)]
    directed: list[Edge] = []
    bidirected: list[Edge] = []
    undirected: list[Edge] = []
    if kind is GraphType.DAG:
        directed = [p for p in pairs if rng.random() < density]
    elif kind is GraphType.ADMG:
        for a, b in pairs:
            if rng.random() < density:
                r = rng.random()
                if r < 0.9:
                    (directed if r < 0.6 else bidirected).append((a, b))
                else:
                    directed.append((a, b))
                    bidirected.append((a, b))
    elif kind is GraphType.DG:
        for a, b in pairs:
            if rng.random() < density:
                r = rng.random()
                directed += [(a, b)] if r < 0.4 else [(b, a)] if r < 0.8 else [(a, b), (b, a)]
    elif kind is GraphType.UG:
        undirected = [p for p in pairs if rng.random() < density]
    else:  # one district: a spanning tree of bidirected edges, and a few more
        bidirected = _spanning_pairs(names, rng)
        joined = {frozenset(e) for e in bidirected}
        bidirected += [p for p in pairs
                       if frozenset(p) not in joined and rng.random() < density / 2]
        if kind is GraphType.C_COMPONENT:
            directed = [p for p in pairs if rng.random() < density]
        else:  # at most one child each; a C-tree: exactly one, but for its root
            directed = [(a, rng.choice(order[i + 1:])) for i, a in enumerate(order[:-1])
                        if kind is GraphType.C_TREE or rng.random() < density]
    needs_bi = kind in ADMGS
    if (kind is GraphType.UG and not undirected) or (kind is not GraphType.UG and not directed) \
            or (needs_bi and not bidirected):
        return None
    for edges in (directed, bidirected, undirected):
        rng.shuffle(edges)
    flip = [(b, a) if rng.random() < 0.5 else (a, b) for a, b in bidirected]
    swap = [(b, a) if rng.random() < 0.5 else (a, b) for a, b in undirected]
    return Graph(kind, tuple(names), tuple(directed), tuple(flip), tuple(swap))


