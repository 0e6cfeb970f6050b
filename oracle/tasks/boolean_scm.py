"""Factual (FI) and counterfactual (CI) inference in a boolean structural model.

Each non-root event is the OR of its rules, each rule the AND of its literals::

    The X happens if the A happens and the B not happen.   X ⇐ A ∧ ¬B
    The X happens if the C happens.                        X ⇐ C
                                                           X = (A ∧ ¬B) ∨ C

A root (an event with no rule) takes its observed value; a root declared
"bound to happen" happened; an unobserved root did not happen.

**FI** evaluates every event in topological order from the observed roots.
**CI** first intervenes on each what-if event — its rules are removed and its
value set as stated ("if the A didn't happen" ⇒ A = false) — and then evaluates
the same way with the same observed roots.  Since every root is observed (or
fixed), there is no uncertainty to abduct: the counterfactual world is the
factual one with the intervened equations replaced.

The certificate is the evaluation *trace*: for each event its value and why
(the observation, the intervention, the first rule that fires, or the literal
that falsifies each rule).  ``oracle.tasks.check`` re-evaluates it
independently.  Evaluation is plain boolean arithmetic on the parsed rules.

Public functions: ``evaluate``, ``factual``, ``counterfactual``.
"""

from __future__ import annotations

from causal_oracle.oracle.tasks.model import (
    BooleanSCM,
    CounterfactualQuestion,
    FactualQuestion,
    Literal,
    Rule,
    TraceStep,
    ValuesAnswer,
)


def _word(value: bool) -> str:
    return "happened" if value else "did not happen"


def evaluate(scm: BooleanSCM, observed: tuple[Literal, ...],
             whatif: tuple[Literal, ...] = ()) -> tuple[dict[int, bool], tuple[TraceStep, ...]]:
    """The value of every event and the trace, after the what-if interventions.

    >>> scm = BooleanSCM(("a", "x"), (Rule(1, (Literal(0, False),)),))
    >>> evaluate(scm, (Literal(0, True),))[0]
    {0: True, 1: False}
    """
    names = scm.names
    order = scm.graph.topological_order
    assert order is not None  # TaskGraph rejects cycles at construction
    fixed = {lit.node: lit.value for lit in whatif}
    seen = {lit.node: lit.value for lit in observed}
    values: dict[int, bool] = {}
    trace: list[TraceStep] = []
    by_head: dict[int, list[tuple[int, Rule]]] = {}  # each event's rules, in order
    for k, rule in enumerate(scm.rules):
        by_head.setdefault(rule.head, []).append((k, rule))
    for node in order:
        if node in fixed:
            value = fixed[node]
            trace.append(TraceStep(node, value, f"what-if: the {names[node]} is set to "
                                                f"'{_word(value)}' (its rules are removed)"))
        elif node not in by_head:  # a root
            if node in seen:
                value, reason = seen[node], "observed"
            elif scm.bound >> node & 1:
                value, reason = True, "bound to happen"
            else:
                value, reason = False, "a root that was not observed to happen"
            trace.append(TraceStep(node, value, reason))
        else:
            fired: int | None = None
            failures: list[str] = []
            for k, rule in by_head[node]:
                for bad in rule.body:  # the first literal that does not hold
                    if values[bad.node] != bad.value:
                        failures.append(f"rule {k + 1} fails: the {names[bad.node]} "
                                        f"{_word(values[bad.node])}")
                        break
                else:
                    fired = k
                    break
            value = fired is not None
            reason = (f"rule {fired + 1} fires ("
                      + " and ".join(f"the {names[lit.node]} {_word(lit.value)}"
                                     for lit in scm.rules[fired].body) + ")"
                      if fired is not None
                      else "no rule fires (" + "; ".join(failures) + ")")
            trace.append(TraceStep(node, value, reason, fired))
        values[node] = value
    return values, tuple(trace)


def factual(question: FactualQuestion) -> ValuesAnswer:
    """FI: the value of each query in the observed world."""
    values, trace = evaluate(question.scm, question.observed)
    return ValuesAnswer(tuple((q, values[q]) for q in question.queries), trace)


def counterfactual(question: CounterfactualQuestion) -> ValuesAnswer:
    """CI: the value of each query after intervening on the what-if events."""
    values, trace = evaluate(question.scm, question.observed, question.whatif)
    return ValuesAnswer(tuple((q, values[q]) for q in question.queries), trace)

