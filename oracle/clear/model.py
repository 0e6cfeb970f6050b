"""Formal objects for CLEAR questions: mixed graphs, walks and questions.

CLEAR ("Can Language Models Really Understand Causal Graphs?") describes small
graphs of four kinds — DAGs, ADMGs (directed plus bidirected edges ``A<->B``),
directed graphs that may have cycles, and undirected graphs — and asks twenty kinds
of question about them.  A *walk* is a sequence of nodes with the mark of each
edge between consecutive nodes (``A->B<-C<->D``); it names specific edges, so
``I<-Q`` and ``I<->Q`` are different paths in an ADMG with both edges.

A question is its ``Task`` (one of the twenty), its ``QType`` (find all, find one,
how many, yes/no, multiple choice, existence), a ``variant`` (which relation,
"minimal", "shortest", …), the named nodes, the subject it asks about (a walk,
a node set, an ordering, a second graph) and, for multiple choice, the options.

>>> g = MixedGraph.build(GraphKind.DAG, ["A", "B"], directed=[("A", "B")])
>>> g.has_edge("A", Mark.RIGHT, "B"), g.has_edge("B", Mark.RIGHT, "A")
(True, False)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field

from causal_oracle.oracle.mixed_graph import MixedGraph as Graph
from causal_oracle.oracle.mixed_graph import edge_masks


class GraphKind(enum.Enum):
    DAG = "DAG"
    ADMG = "ADMG"
    DG = "directed graph"
    UG = "undirected graph"


class Mark(enum.Enum):
    """The edge between two consecutive nodes of a walk, read left to right."""

    RIGHT = "->"
    LEFT = "<-"
    BI = "<->"
    UNDIRECTED = "-"


class Task(enum.Enum):
    NODE = "node"
    EDGE = "edge"
    TWO_NODE = "2_node_relation"
    THREE_NODE = "3_node_relation"
    PATH = "path"
    DIRECTED_PATH = "directed_path"
    CYCLE = "cycle"
    TOPOLOGICAL = "topological"
    BLOCKED_PATH = "blocked_path"
    D_SEPARATION = "d-separation"
    MARKOV_BLANKET = "markov_blanket"
    MARKOV_EQUIVALENT = "markov_equivalent"
    BACKDOOR_PATH = "backdoor_path"
    BACKDOOR_SET = "backdoor_adjustment_set"
    FRONTDOOR_SET = "frontdoor_adjustment_set"
    C_COMPONENT = "c-component"
    C_TREE = "c-tree"
    C_FOREST = "c-forest"
    ROOT_SET = "maximal_root_set"
    IDENTIFICATION = "identification"


class QType(enum.Enum):
    FA = "FA"  # find all
    FO = "FO"  # find one (any valid answer is correct)
    HM = "HM"  # how many
    YN = "YN"  # yes / no
    MC = "MC"  # multiple choice
    EX = "EX"  # existence


@dataclass(frozen=True, slots=True)
class Walk:
    nodes: tuple[str, ...]
    marks: tuple[Mark, ...]

    def __str__(self) -> str:
        out = [self.nodes[0]]
        for mark, node in zip(self.marks, self.nodes[1:], strict=True):
            out += [mark.value, node]
        return "".join(out)


def edge_key(a: str, mark: Mark, b: str) -> tuple[str, str, str]:
    """A canonical key for one edge: ``(tail, "->", head)`` or the sorted pair."""
    if mark is Mark.RIGHT:
        return (a, "->", b)
    if mark is Mark.LEFT:
        return (b, "->", a)
    lo, hi = sorted((a, b))
    return (lo, mark.value, hi)


@dataclass(frozen=True)
class MixedGraph(Graph):
    """A CLEAR graph: the one mixed-graph type (``oracle.mixed_graph``: names in the order
    the text lists them, directed edges acyclic or not, bidirected and undirected ones as
    bitmasks) with the ``kind`` the text names.  ``nodes`` are its names; ``directed``,
    ``bidirected`` and ``undirected`` its edges as sets of names."""

    kind: GraphKind
    edge_order: tuple[tuple[str, str, str], ...] = field(default=(), compare=False)

    @classmethod
    def build(cls, kind: GraphKind, nodes: Iterable[str], *,  # type: ignore[override]
              directed: Iterable[tuple[str, str]] = (),
              bidirected: Iterable[tuple[str, str]] = (),
              undirected: Iterable[tuple[str, str]] = ()) -> MixedGraph:
        d = list(directed)
        b = list(bidirected)
        u = list(undirected)
        order = tuple([edge_key(x, Mark.RIGHT, y) for x, y in d]
                      + [edge_key(x, Mark.BI, y) for x, y in b]
                      + [edge_key(x, Mark.UNDIRECTED, y) for x, y in u])
        names = tuple(nodes)
        return cls(names, *edge_masks(names, d, b, u), kind, order)

    @property
    def nodes(self) -> tuple[str, ...]:
        return self.names

    def has_edge(self, a: str, mark: Mark, b: str) -> bool:
        i, j = self.find(a), self.find(b)
        if i is None or j is None:
            return False
        if mark is Mark.RIGHT:
            return bool(self.dag.parents[j] >> i & 1)
        if mark is Mark.LEFT:
            return bool(self.dag.parents[i] >> j & 1)
        return bool((self.spouses if mark is Mark.BI else self.neighbours)[i] >> j & 1)

    def edge_keys(self) -> frozenset[tuple[str, str, str]]:
        return frozenset(self.edge_order) if self.edge_order else frozenset(
            [(a, "->", b) for a, b in self.directed]
            + [(*sorted(e)[:1], "<->", *sorted(e)[1:]) for e in self.bidirected]
            + [(*sorted(e)[:1], "-", *sorted(e)[1:]) for e in self.undirected])


Value = object  # Walk | frozenset[str] | tuple[str, ...] (ordering or triple) | MixedGraph


@dataclass(frozen=True)
class Question:
    """One CLEAR question about ``graph``.

    ``names`` are the nodes the question names (the node of a relation, the
    endpoints of a path, treatment and outcome); ``subject`` is what a yes/no
    question asks about; ``options`` are ``(letter, value)`` pairs."""

    graph: MixedGraph
    task: Task
    qtype: QType
    variant: str = ""
    names: tuple[str, ...] = ()
    subject: Value | None = None
    options: tuple[tuple[str, Value], ...] = ()
