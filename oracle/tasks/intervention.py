"""Intervention effects (IE): causal questions after perfect interventions.

A *perfect intervention* ``do(V = v)`` sets ``V`` to ``v`` and deletes every
edge into ``V``, leaving the rest of the graph unchanged.  Several interventions
are applied in the order stated; the result is the intervened graph ``G^V``.

The questions about an ordered pair (A, B):

* "does A cause B?", "does A cause a change (in) B?", "is there a (directed)
  path going from A to B?" — yes iff a directed path ``A ⇝ B`` exists in ``G^V``;
* "is there an edge from A to B?" — yes iff ``A → B`` is an edge of ``G^V``.

Example: in ``K → Q → D``, ``do(Q = q)`` deletes ``K → Q``, so K no longer
causes Q (nor D), while Q still causes D.

The *intervention effect* of the question is ``κ = C(G) − C(G^V)`` where
``C(H)`` is 1 if the relation holds in ``H`` and 0 otherwise: κ = 1 exactly when
the intervention destroyed the relation (deleting edges can never create one).
The certificate is a witness path (or edge) in ``G^V`` for "yes"; for "no" the
checker re-runs its own search.

Public functions: ``intervened_graph``, ``intervention_effect``.
"""

from __future__ import annotations

from causal_oracle.oracle.tasks.model import (
    IEKind,
    InterventionAnswer,
    InterventionQuestion,
    TaskGraph,
)
from causal_oracle.oracle.tasks.paths import paths_between


def intervened_graph(question: InterventionQuestion) -> TaskGraph:
    """``G^V``: the edges into each intervened variable deleted, in order."""
    graph = question.graph
    for step in question.interventions:
        graph = graph.without_edges_into(step.node)
    return graph


def _relation(graph: TaskGraph, kind: IEKind, a: int, b: int) -> tuple[int, ...] | None:
    if kind is IEKind.EDGE:
        return (a, b) if (a, b) in graph.edges else None
    found = paths_between(graph, a, b)
    return min(found, key=len) if found else None


def intervention_effect(question: InterventionQuestion) -> InterventionAnswer:
    """Answer the question in ``G^V`` and compute κ = C(G) − C(G^V).

    >>> from causal_oracle.oracle.tasks.model import Intervention
    >>> g = TaskGraph(("K", "Q", "D"), frozenset({(0, 1), (1, 2)}))
    >>> a = intervention_effect(InterventionQuestion(g, (Intervention(1, "q"),),
    ...                                              IEKind.CAUSE, 0, 2))
    >>> a.yes, a.holds_before, a.kappa
    (False, True, 1)
    """
    after = _relation(intervened_graph(question), question.kind, question.source,
                      question.target)
    before = _relation(question.graph, question.kind, question.source, question.target)
    yes = after is not None
    return InterventionAnswer(yes, before is not None, int(before is not None) - int(yes),
                              after or ())
