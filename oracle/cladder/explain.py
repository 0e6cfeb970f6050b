"""CLadder answers in plain words: the formula, the numbers substituted, the conclusion.

The explanation follows the derivation: the graph, what the question asks, how the
stated numbers identify it (or why they do not), the formula with the printed values
substituted and the exact range over the printed intervals, the benchmark's rule, and
the answer.

>>> from causal_oracle.oracle.cladder.model import *
>>> from causal_oracle.oracle.cladder.solve import solve
>>> g = Graph.build(["x", "y"], [("x", "y")])
>>> st = (Stated(((1, 1),), ((0, 0),), Interval.percent("26")),
...       Stated(((1, 1),), ((0, 1),), Interval.percent("85")))
>>> q = CladderQuestion(g, (Reading(st, Query(QueryType.ATE, (1, 1), (0, 1))),))
>>> print(explain(q, solve(q)).splitlines()[-1])
Answer: yes.
"""

from __future__ import annotations

from fractions import Fraction

from causal_oracle.oracle.cladder.model import CladderQuestion, Graph, QueryType, Reading
from causal_oracle.oracle.cladder.solve import (
    BOTH_VALID,
    CONTRADICTING_PREMISE,
    CladderSolution,
    Finding,
    Outcome,
)

_WORDING = {QueryType.MARGINAL: ("more likely", "less likely"),
            QueryType.CORRELATION: ("larger", "smaller"),
            QueryType.EXP_AWAY: ("increase", "decrease"),
            QueryType.ATE: ("increase", "decrease"),
            QueryType.ETT: ("more likely", "less likely"),
            QueryType.NDE: ("positively", "negatively"),
            QueryType.NIE: ("positively", "negatively"),
            QueryType.COLLIDER_BIAS: ("affects", "does not affect")}


def _number(value: Fraction) -> str:
    return f"{float(value):.4f}".rstrip("0").rstrip(".") if value else "0"


def _graph(graph: Graph) -> str:
    edges = ", ".join(f"{graph.names[a]} → {graph.names[b]}" for a, b in graph.edges())
    hidden = [n for n, seen in zip(graph.names, graph.observed, strict=True) if not seen]
    return f"Graph: {edges}" + (f"; unobserved: {', '.join(hidden)}." if hidden else ".")


def _statement(graph: Graph, reading: Reading, i: int) -> str:
    s = reading.statements[i]
    event = ", ".join(graph.lit(e) for e in s.event)
    given = ", ".join(graph.lit(g) for g in s.given)
    if s.kind.value == "correlation":
        return f"corr({event} | {given}) = {s.value.text}"
    return f"P({event}{' | ' + given if given else ''}) = {s.value.text}%"


def _estimand_words(graph: Graph, reading: Reading, finding: Finding) -> list[str]:
    q = reading.query
    lines = [f"Question (rung {q.kind.rung}, {q.kind.value}): {finding.quantity}."]
    if finding.partial is not None:
        return lines + _partial_words(finding)
    if finding.reason is not None and finding.reason.value == "not identifiable":
        lines.append(f"Not identifiable from the text: {finding.why}.")
        return lines
    step = finding.strategy
    if finding.adjustment:
        step += " for {" + ", ".join(graph.names[v] for v in finding.adjustment) + "}"
    elif step == "backdoor adjustment":
        step = "no open backdoor path (adjustment by the empty set)"
    lines.append(f"Identification: {step}: {finding.formula}.")
    used = sorted({i for i, _ in (finding.lower.at if finding.lower else ())})
    if used:
        lines.append("Stated: " + "; ".join(f"[{i + 1}] {_statement(graph, reading, i)}"
                                            for i in used) + ".")
    assert finding.lower is not None and finding.upper is not None
    lo, hi = finding.lower.value, finding.upper.value
    what = "Its sign is that of" if finding.sign_only else "Value"
    if lo == hi:
        lines.append(f"{what}: {_number(lo)} exactly.")
    else:
        lines.append(f"{what}: between {_number(lo)} and {_number(hi)} over the printed "
                     "intervals (each printed p% is [p − 0.5, p + 0.5]%; bounds exact).")
    words = _WORDING.get(q.kind, ("yes", "no"))
    asked = words[0] if q.polarity else words[1]
    if finding.rule is not None:
        lines.append(f"Rule: {finding.rule.text} (asked: \"{asked}\").")
    if finding.reason is not None:
        probe = "" if finding.probe is None else f" (e.g. at {_number(finding.probe)})"
        lines.append(f"The answer changes inside the intervals{probe}: undetermined "
                     "(rounding).")
    return lines


def _partial_words(finding: Finding) -> list[str]:
    p = finding.partial
    assert p is not None
    lines = [f"Not point-identified: {finding.why.split('; ')[0]}.",
             f"Bounds over every model consistent with the text ({p.method.value}): "
             f"between {_number(p.lower)} and {_number(p.upper)} (exact rationals); models "
             f"within the printed intervals reach {_number(p.low.value)} and "
             f"{_number(p.high.value)}, models reproducing the printed numbers "
             f"{_number(p.exact_low.value)} and {_number(p.exact_high.value)}."]
    if finding.rule is not None:
        lines.append(f"Rule: {finding.rule.text}.")
    if finding.reason is not None:
        lines.append(f"Two models consistent with the text answer differently: undetermined "
                     f"({finding.reason.value}).")
    return lines


def _backadj_words(graph: Graph, reading: Reading, finding: Finding) -> list[str]:
    q = reading.query
    lines = []
    for number, (chosen, ok, path) in enumerate(zip(q.methods, finding.valid,
                                                    finding.open_paths, strict=True), 1):
        names = ", ".join(graph.names[v] for v in chosen) or "nothing (no adjustment)"
        if ok:
            lines.append(f"Method {number} adjusts for {names}: valid (blocks every backdoor "
                         "path, contains no descendant of the cause).")
        elif path:
            shown = " – ".join(graph.names[v] for v in path)
            lines.append(f"Method {number} adjusts for {names}: invalid, the backdoor path "
                         f"{shown} stays open.")
        else:
            lines.append(f"Method {number} adjusts for {names}: invalid, it contains a "
                         "descendant of the cause.")
    if BOTH_VALID in finding.flags:
        lines.append("Both methods are valid, so neither is more correct than the other.")
    return lines


def _det_words(graph: Graph, reading: Reading, finding: Finding) -> list[str]:
    q = reading.query
    assert q.counterfactual is not None and q.premise is not None
    lines = []
    for m in reading.mechanisms:
        inputs = f" {m.connective.value} ".join(graph.lit(i) for i in m.inputs)
        lines.append(f"Mechanism: {graph.lit(m.target)} exactly when {inputs}.")
    if reading.evidence:
        lines.append("Observed: " + ", ".join(graph.lit(e) for e in reading.evidence) + ".")
    x = q.counterfactual[0]
    if CONTRADICTING_PREMISE in finding.flags:
        lines.append(f"The premise \"instead of {graph.lit(q.premise)}\" contradicts the "
                     f"evidence: it gives {graph.names[x]}={finding.factual[x]}.")
    world = ", ".join(f"{n}={v}" for n, v in zip(graph.names, finding.counterfactual,
                                                  strict=True) if v is not None)
    lines.append(f"With {graph.lit(q.counterfactual)} and the rest by the mechanisms: "
                 f"{world}.")
    return lines


def explain(question: CladderQuestion, solution: CladderSolution) -> str:
    """The derivation of ``solution`` in words (module docstring)."""
    graph = question.graph
    lines = [_graph(graph)]
    if len(question.readings) > 1:
        lines.append(f"The text reads in {len(question.readings)} ways (the story vocabulary "
                     f"gives {', '.join(repr(p) for p in question.ambiguous)} more than one "
                     "meaning); each is answered.")
    for n, (reading, finding) in enumerate(zip(question.readings, solution.findings,
                                               strict=True), 1):
        if len(question.readings) > 1:
            lines.append(f"Reading {n}: {finding.outcome.value}.")
        kind = reading.query.kind
        if kind is QueryType.BACKADJ:
            lines.extend(_backadj_words(graph, reading, finding))
        elif kind is QueryType.DET_COUNTERFACTUAL:
            lines.extend(_det_words(graph, reading, finding))
        else:
            lines.extend(_estimand_words(graph, reading, finding))
    if solution.outcome is Outcome.UNDETERMINED:
        assert solution.reason is not None
        lines.append(f"Answer: undetermined ({solution.reason.value})"
                     + (f": {solution.detail}." if solution.detail else "."))
    else:
        lines.append(f"Answer: {solution.outcome.value}.")
    return "\n".join(lines)


__all__ = ["explain"]
