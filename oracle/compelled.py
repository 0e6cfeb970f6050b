"""The ``compelled`` semantics profile: read a hypothesis in the CPDAG's directed edges.

Corr2Cause++ (DESIGN.md §3.1) labels an item by one graph, not by the class: the
graph of the *compelled* edges — those with the same orientation in every member of
the Markov equivalence class (the directed edges of the CPDAG).  In that graph the
relations are read strictly:

* "P directly affects Q." — P is a parent of Q;
* "P is directly affected by Q." — P is a child of Q;
* "P influences Q through some mediator(s) but not directly." — P is an ancestor
  and not a parent of Q;
* "… collider (i.e., a common child) of P and Q." — a common child;
* "… confounder (i.e., a common parent) of P and Q." — a common parent.

A relation that holds in the compelled graph holds in every member (members contain
those edges), but not conversely: "A and C have a common parent" can hold in every
member through parents that differ between members while no compelled edge shows
it.  Such items are labelled 0 here and 1 by ``corr2cause``/``strict`` — the audit
reports them as ambiguous.

``label`` gives the label with its witness and the compelled edges; ``check``
re-derives both independently: the edges from the members' edge lists (or Meek's
rules when the class was not listed), the relation with networkx.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from causal_oracle.oracle.equivalence import ClassAnalysis
from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.labels import resolve_pair
from causal_oracle.oracle.relations import Profile, Witness, witness
from causal_oracle.oracle.statements import Hypothesis, RelationKind

if TYPE_CHECKING:
    import networkx as nx


@dataclass(frozen=True)
class CompelledVerdict:
    label: int
    edges: tuple[tuple[int, int], ...]  # the compelled (CPDAG-directed) edges
    witness: Witness | None  # the relation's witness in the compelled graph


def compelled_edges(analysis: ClassAnalysis) -> tuple[tuple[int, int], ...]:
    """The directed edges of the class's CPDAG (one orientation in every member)."""
    return tuple(sorted(analysis.cpdag_directed))


def label(analysis: ClassAnalysis, hypothesis: Hypothesis) -> CompelledVerdict:
    """Label ``hypothesis`` under ``compelled`` (the premise must be consistent)."""
    p, q = resolve_pair(analysis, hypothesis)
    edges = compelled_edges(analysis)
    dag = Dag.from_edges(analysis.premise.n, edges)
    w = witness(dag, hypothesis.kind, hypothesis.form, p, q, Profile.COMPELLED)
    return CompelledVerdict(int(w is not None), edges, w)


def _literal(g: nx.DiGraph, kind: RelationKind, p: int, q: int) -> bool:
    if kind is RelationKind.DIRECT_CAUSE:
        return bool(g.has_edge(p, q))
    if kind is RelationKind.INDIRECT_CAUSE:
        import networkx as nx

        return bool(nx.has_path(g, p, q)) and not g.has_edge(p, q)
    if kind is RelationKind.COMMON_EFFECT:
        return bool(set(g.successors(p)) & set(g.successors(q)))
    return bool(set(g.predecessors(p)) & set(g.predecessors(q)))


def check(analysis: ClassAnalysis, hypothesis: Hypothesis,
          verdict: CompelledVerdict) -> tuple[bool, str]:
    """Re-derive the compelled edges and the label; (ok, why)."""
    if analysis.member_edges:
        common = set(analysis.member_edges[0])
        for edges in analysis.member_edges[1:]:
            common &= set(edges)
        source = "the members' common orientations"
    elif analysis.cpdag is not None:
        common = set(analysis.cpdag.directed)
        source = "Meek's rules"
    else:
        return False, "the class is empty: no compelled edges"
    if common != set(verdict.edges):
        return False, f"compelled edges differ from {source}"
    if analysis.cpdag is not None and set(analysis.cpdag.directed) != common:
        return False, "Meek's rules and the members disagree on the compelled edges"
    names = analysis.premise.variables
    p, q = names.index(hypothesis.first), names.index(hypothesis.second)
    import networkx as nx  # the checker's library, loaded when a label is first checked

    g = nx.DiGraph(list(common))
    g.add_nodes_from(range(len(names)))
    mine = int(_literal(g, hypothesis.kind, p, q))
    return mine == verdict.label, f"checker's compelled label {mine} (edges from {source})"
