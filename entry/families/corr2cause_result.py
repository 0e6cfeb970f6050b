"""A labelled Corr2Cause item: the question, the verified result, and how a reply is judged.

A question (``Corr2CauseQuestion``) is a parsed ``Premise`` and ``Hypothesis`` read under
a semantics ``Profile`` (DESIGN.md §3.1).  ``solve`` analyses the premise's Markov
equivalence class (``oracle.equivalence``) and labels the hypothesis (``oracle.labels``);
``check`` has the independent checker (``oracle.check``) re-verify the certificate, or
raises ``CertificateRejected``.  The result (``VerifyResult``) is what ``verify``
returns: the class, the verdict and the checker's result, with the reason in one line
and the explanation as text, JSON or DOT.  ``judge_reply`` grades a read reply: a
3-class word against the relation, a yes/no form against the binary label.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from causal_oracle.entry.limits import Limits
from causal_oracle.entry.registry import Judgement
from causal_oracle.oracle.check import CheckResult, check
from causal_oracle.oracle.equivalence import ClassAnalysis, analyse
from causal_oracle.oracle.errors import BudgetExceeded, CertificateRejected
from causal_oracle.oracle.explain import (
    dag_text,
    explain_dot,
    explain_json,
    explain_text,
    reason_line,
)
from causal_oracle.oracle.labels import Verdict, label
from causal_oracle.oracle.outcome import Outcome
from causal_oracle.oracle.relations import Profile
from causal_oracle.oracle.statements import Hypothesis, Premise
from causal_oracle.oracle.tasks.model import RelationClaim

RELATIONS = ("entailment", "neutral", "contradiction")


class Corr2CauseQuestion(NamedTuple):
    premise: Premise
    hypothesis: Hypothesis
    profile: Profile = Profile.CORR2CAUSE


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """A labelled Corr2Cause item: the class, the verdict and the checker's result."""

    premise: Premise
    hypothesis: Hypothesis
    analysis: ClassAnalysis
    verdict: Verdict
    check: CheckResult
    profile: Profile

    @property
    def label(self) -> int | None:
        """The binary label: 1 iff entailment; None when the premise is inconsistent."""
        return self.verdict.label

    @property
    def relation(self) -> str:
        """``entailment``, ``neutral``, ``contradiction`` or ``inconsistent``."""
        return self.verdict.relation

    @property
    def class_size(self) -> int:
        """The number of DAGs in the Markov equivalence class (0 when inconsistent)."""
        return self.verdict.class_size

    @property
    def holds_in(self) -> int | None:
        """In how many members of the class the hypothesis holds (None: too many to list)."""
        return self.verdict.holds_in

    @property
    def ambiguous(self) -> bool:
        """True when the binary label differs between semantics profiles."""
        return self.verdict.ambiguous

    def reason(self) -> str:
        """One line saying why the label is what it is."""
        v, cert = self.verdict, self.verdict.certificate
        if v.relation == Outcome.INCONSISTENT:
            return self.analysis.conflicts[0].message
        return reason_line(self.premise, v.relation, v.class_size, v.holds_in,
                           cert.witnesses[0],
                           [dag_text(self.premise, m) for m in cert.members[:2]])

    def summary(self) -> dict[str, object]:
        v = self.verdict
        return {
            "label": v.label,
            "relation": v.relation,
            "class_size": v.class_size,
            "holds_in": v.holds_in,
            "ambiguous": v.ambiguous,
            "labels_by_profile": v.labels_by_profile,
            "profile": self.profile.value,
            "certificate_checked": self.check.ok,
            "reason": self.reason(),
        }

    def explain(self, fmt: str = "text") -> str:
        if fmt == "json":
            return json.dumps(explain_json(self.analysis, self.hypothesis, self.verdict,
                                           self.check.ok), indent=2, ensure_ascii=False)
        if fmt == "dot":
            return explain_dot(self.analysis, self.verdict, self.hypothesis)
        return explain_text(self.analysis, self.hypothesis, self.verdict, self.profile)


_UNCHECKED = CheckResult(False, "not checked yet")


def check_limits(premise: Premise, limits: Limits) -> None:
    """``BudgetExceeded`` when ``premise`` has more variables or statements than allowed."""
    if premise.n > limits.variables:
        raise BudgetExceeded(f"the premise has {premise.n} variables; the limit is "
                             f"{limits.variables}")
    statements = len(premise.correlations) + len(premise.independences)
    if statements > limits.statements:
        raise BudgetExceeded(f"the premise has {statements:,} statements; the limit is "
                             f"{limits.statements:,}")


def judge_reply(result: VerifyResult, claim: Any) -> Judgement:
    """Grade a read reply: a 3-class word against the relation, yes/no against the label."""
    if isinstance(claim, RelationClaim):
        normalised, expected = claim.relation, result.relation
    else:
        normalised = "yes" if claim.yes else "no"
        expected = None if result.label is None else ("yes" if result.label else "no")
    if result.relation == Outcome.INCONSISTENT:
        return Judgement(None, normalised,
                         "the premise is inconsistent: no DAG fits it, so no answer is",
                         gradable=False)
    return Judgement(normalised == expected, normalised,
                     f"read as {normalised!r}; the oracle's answer is {expected!r}",
                     expected=expected)


def expected_reply(result: VerifyResult) -> str | None:
    """The oracle's yes/no answer (None: the premise is inconsistent)."""
    if result.relation == Outcome.INCONSISTENT:
        return None
    return "yes" if result.label else "no"


def solve(question: Corr2CauseQuestion) -> VerifyResult:
    """The premise's class and the hypothesis's verdict, not yet checked."""
    premise, hypothesis, profile = question
    analysis = analyse(premise)
    return VerifyResult(premise, hypothesis, analysis, label(analysis, hypothesis, profile),
                        _UNCHECKED, profile)


def check_solution(question: Corr2CauseQuestion, solution: VerifyResult) -> VerifyResult:
    """``solution`` re-verified by the independent checker (``CertificateRejected`` when
    it disagrees)."""
    result = check(question.premise, question.hypothesis, solution.verdict.certificate)
    if not result.ok:
        raise CertificateRejected(f"the checker rejected the certificate: {result.reason}")
    return replace(solution, check=result)


__all__ = ["RELATIONS", "Corr2CauseQuestion", "VerifyResult", "check_limits",
           "check_solution", "expected_reply", "judge_reply", "solve"]
