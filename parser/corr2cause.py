"""Corr2Cause text → ``oracle.statements`` objects.

The grammar (``corr2cause.lark``) accepts the premise and hypothesis text exactly
as the upstream generator writes it, with any identifier as a variable name, and
the published ``"Premise: …\\nHypothesis: …"`` layout.  After parsing, the
transformer checks what a grammar cannot: the declared count matches the listed
variables, names are distinct and declared, and a statement never relates a
variable to itself.  Every failure is a ``ParseError`` with line and column.

The work is split by concept: ``parser.corr2cause_grammar`` (the grammar and the
transformer that checks names and counts) and ``parser.corr2cause_fast`` (the premise
read sentence by sentence, each distinct sentence once); this module is the way in.
"""

from __future__ import annotations

from causal_oracle.oracle.statements import Hypothesis, Premise
from causal_oracle.parser.corr2cause_fast import parse_premise_fast
from causal_oracle.parser.corr2cause_grammar import parse_with


def parse_premise(text: str) -> Premise:
    """Parse a Corr2Cause premise.

    >>> p = parse_premise("Suppose there is a closed system of 2 variables, A and B. "
    ...                   "All the statistical relations among these 2 variables are as "
    ...                   "follows: A is independent of B.")
    >>> p.variables, [s.key for s in p.independences]
    (('A', 'B'), [(0, 1, 0)])
    """
    premise = parse_premise_fast(text)
    if premise is not None:
        return premise
    premise = parse_with(text, "premise", "premise")
    assert isinstance(premise, Premise)
    return Premise(premise.variables, premise.correlations, premise.independences, text)


def parse_hypothesis(text: str) -> Hypothesis:
    """Parse a Corr2Cause hypothesis in any of the original or paraphrased templates.

    >>> parse_hypothesis("A influences B through some mediator(s).").kind.value
    'indirect_cause'
    """
    hypothesis = parse_with(text, "hypothesis", "hypothesis")
    assert isinstance(hypothesis, Hypothesis)
    return hypothesis


def parse_item(text: str) -> tuple[Premise, Hypothesis]:
    """Parse the published layout ``"Premise: …\\nHypothesis: …"``."""
    premise, hypothesis = parse_with(text, "item", "input")  # type: ignore[misc]
    start = text.find("Premise:") + len("Premise:")
    end = text.rfind("Hypothesis:")
    premise_text = text[start:end].strip()
    return Premise(premise.variables, premise.correlations, premise.independences,
                   premise_text), hypothesis


