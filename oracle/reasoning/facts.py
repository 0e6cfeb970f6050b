"""The facts of a Markov equivalence class, and of one DAG, for the reasoning checker.

Families hand the generic checker (``oracle.reasoning.verdicts``) a ``Facts`` record
through their ``reasoning_facts`` hook; most build it with one of these:

* ``class_facts`` — a closed-world premise's class (Corr2Cause, Corr2Cause++): every
  member listed, so a claim is true when it holds in all, false in none, not decidable
  otherwise; an inconsistent premise or a class too large to list has no graphs, and
  every structural claim about it is not decidable (``Facts.no_graph`` says why);
* ``dag_facts`` — one graph (CLEAR's DAGs, CI-Bench, IE, CLadder).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from causal_oracle.oracle.equivalence import ClassAnalysis
from causal_oracle.oracle.graph import Dag
from causal_oracle.oracle.reasoning.model import Facts, Quantity, Value


def class_facts(analysis: ClassAnalysis, answer: bool | None) -> Facts:
    """The facts of a premise's Markov equivalence class (``answer``: the certified
    yes/no, None when no answer is right)."""
    names = analysis.premise.variables
    if not analysis.consistent:
        return Facts(names, no_graph="no DAG fits the premise (it is inconsistent)",
                     answer=answer)
    if not analysis.listed:
        return Facts(names, no_graph=f"the class has {analysis.size:,} members, too many to "
                                     "check claims in each", answer=answer)
    return Facts(names, tuple(analysis.members), answer=answer, is_class=True)


def dag_facts(names: Iterable[str], edges: Iterable[tuple[int, int]], *,
              hidden: int = 0, query: tuple[int, int] | None = None,
              numbers: Mapping[Quantity, Value] | None = None,
              answer: bool | None = None, aliases: Mapping[str, int] | None = None,
              unnumbered: str = "") -> Facts:
    """The facts of one DAG over ``names`` (``edges``: (parent, child) indices)."""
    names = tuple(names)
    dag = Dag.from_edges(len(names), edges)
    return Facts(names, (dag,), hidden=hidden, query=query, numbers=dict(numbers or {}),
                 answer=answer, aliases=dict(aliases or {}), unnumbered=unnumbered)


__all__ = ["class_facts", "dag_facts"]
