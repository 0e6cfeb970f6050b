"""Plain-words explanations of CP, BA, FI, CI and IE answers.

Each explanation is the derivation in the order a person would argue it:

* CP — the paths found, one per line, or why none exists;
* BA — which variables a set may not contain (descendants of the causes, the
  causes and effects), whether the empty set leaves a backdoor path open (and
  which), the minimal valid sets, and the parents of the causes;
* FI/CI — the evaluation trace, one event per line, with the rule that fired or
  the literal that falsified each rule, and the what-if interventions;
* IE — the edges deleted by each intervention, the witness path (or its
  absence), and κ = C(G) − C(G^V).

``verdict_reason`` turns a ``backdoor.SetVerdict`` into the sentence that
explains why a proposed adjustment set is rejected.

Public functions: ``explain``, ``verdict_reason``, ``format_path``, ``format_set``.
"""

from __future__ import annotations

from itertools import pairwise

from causal_oracle.oracle.tasks.backdoor import SetVerdict, check_set, forbidden_mask
from causal_oracle.oracle.tasks.intervention import intervened_graph
from causal_oracle.oracle.tasks.model import (
    Answer,
    BackdoorAnswer,
    BackdoorQuestion,
    CounterfactualQuestion,
    IEKind,
    InterventionAnswer,
    InterventionQuestion,
    PathsAnswer,
    PathsQuestion,
    Question,
    TaskGraph,
    ValuesAnswer,
    bits,
)


def format_path(graph: TaskGraph, path: tuple[int, ...]) -> str:
    """``a -> b -> c``."""
    return " -> ".join(graph.names[i] for i in path)


def format_set(names: tuple[str, ...]) -> str:
    """``{a, b}`` or ``∅``."""
    return "{" + ", ".join(names) + "}" if names else "∅ (no adjustment)"


def _trail(graph: TaskGraph, trail: tuple[int, ...]) -> str:
    out = graph.names[trail[0]]
    for a, b in pairwise(trail):
        out += (" -> " if (a, b) in graph.edges else " <- ") + graph.names[b]
    return out


def verdict_reason(question: BackdoorQuestion, z: int, verdict: SetVerdict) -> str:
    """Why the set ``z`` is (in)valid, in words."""
    g = question.graph
    shown = format_set(g.mask_names(z))
    if verdict.valid:
        return (f"{shown} satisfies the backdoor criterion for every cause-effect pair: it "
                "contains no descendant of a cause and blocks every backdoor path")
    assert verdict.cause is not None and verdict.effect is not None
    c, e = g.names[verdict.cause], g.names[verdict.effect]
    if verdict.forbidden is not None:
        v = g.names[verdict.forbidden]
        if verdict.forbidden in (*question.causes, *question.effects):
            return f"{shown} is invalid: it contains {v}, which is a cause or an effect"
        return (f"{shown} is invalid: it contains {v}, a descendant of the cause {c} "
                "(adjusting for it would block or bias the causal effect)")
    assert verdict.trail is not None
    return (f"{shown} is invalid: the backdoor path {_trail(g, verdict.trail)} from {c} to "
            f"{e} stays open given it")


def _paths(question: PathsQuestion, answer: PathsAnswer) -> str:
    g = question.graph
    lines = []
    for c in question.causes:
        for e in question.effects:
            found = [p for p in answer.paths if p[0] == c and p[-1] == e]
            if found:
                lines.append(f"{len(found)} directed path(s) lead from {g.names[c]} to "
                             f"{g.names[e]}:")
                lines.extend("  " + format_path(g, p) for p in found)
            else:
                lines.append(f"No directed path leads from {g.names[c]} to {g.names[e]}: "
                             f"{g.names[e]} is not a descendant of {g.names[c]}.")
    if not answer.paths:
        lines.append("Answer: None.")
    return "\n".join(lines)


def _backdoor(question: BackdoorQuestion, answer: BackdoorAnswer) -> str:
    g = question.graph
    forbidden = forbidden_mask(g, question.causes, ())
    lines = [f"A valid set may not contain {', '.join(g.mask_names(forbidden))} (the causes "
             "and their descendants) nor an effect."]
    if not answer.needed:  # the empty set is valid (the checker has confirmed it)
        lines.append("Every backdoor path is already blocked without adjustment "
                     "(each has a collider with no conditioned descendant), so no adjustment "
                     "is needed.")
    else:  # why not: the first open backdoor trail
        lines.append("Adjustment is needed: "
                     + verdict_reason(question, 0, check_set(question, 0)) + ".")
    sets = [format_set(g.mask_names(m)) for m in answer.minimal_sets]
    if sets:
        lines.append("Minimal valid set(s): " + "; ".join(sets) + ".")
    else:
        lines.append("No set satisfies the criterion for every pair (for example when an "
                     "effect causes a cause directly).")
    p = format_set(g.mask_names(answer.parents_set))
    lines.append(f"The parents of the causes, {p}, "
                 + ("form a valid set too." if answer.parents_set_valid else
                    "do not form a valid set."))
    return "\n".join(lines)


def _values(question: object, answer: ValuesAnswer) -> str:
    scm = question.scm  # type: ignore[attr-defined]
    lines = []
    if isinstance(question, CounterfactualQuestion):
        for lit in question.whatif:
            lines.append(f"What if: the {scm.names[lit.node]} "
                         f"{'happened' if lit.value else 'did not happen'}; its rules are "
                         "removed.")
    for step in answer.trace:
        word = "happened" if step.value else "did not happen"
        lines.append(f"The {scm.names[step.node]} {word}: {step.reason}.")
    lines.append("Answer: " + "; ".join(
        f"{scm.names[q]}, {'happened' if v else 'not happen'}" for q, v in answer.values))
    return "\n".join(lines)


def _intervention(question: InterventionQuestion, answer: InterventionAnswer) -> str:
    g = question.graph
    lines = []
    deleted_from = g
    for step in question.interventions:
        cut = sorted(e for e in deleted_from.edges if e[1] == step.node)
        removed = ", ".join(f"{g.names[a]} -> {g.names[b]}" for a, b in cut) or "none"
        lines.append(f"{question.operator}({g.names[step.node]}={step.value}) deletes the "
                     f"edges into {g.names[step.node]}: {removed}.")
        deleted_from = deleted_from.without_edges_into(step.node)
    h = intervened_graph(question)
    a, b = g.names[question.source], g.names[question.target]
    what = "edge" if question.kind is IEKind.EDGE else "directed path"
    graph_word = "intervened graph" if question.interventions else "graph"
    if answer.yes:
        lines.append(f"The {graph_word} has a {what} from {a} to {b}: "
                     f"{format_path(h, answer.witness)}. Answer: yes.")
    else:
        lines.append(f"The {graph_word} has no {what} from {a} to {b}. Answer: no.")
    before = "held" if answer.holds_before else "did not hold"
    lines.append(f"Before intervening the relation {before}; intervention effect "
                 f"κ = C(G) − C(G^V) = {answer.kappa}.")
    return "\n".join(lines)


def explain(question: Question, answer: Answer) -> str:
    """The derivation of ``answer`` in words."""
    if isinstance(answer, PathsAnswer):
        return _paths(question, answer)  # type: ignore[arg-type]
    if isinstance(answer, BackdoorAnswer):
        return _backdoor(question, answer)  # type: ignore[arg-type]
    if isinstance(answer, ValuesAnswer):
        return _values(question, answer)
    return _intervention(question, answer)  # type: ignore[arg-type]


__all__ = ["bits", "explain", "format_path", "format_set", "verdict_reason"]
