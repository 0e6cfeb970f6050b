"""The in-process engine: text → parser → oracle → checker, with content caches.

This is the one place where the pipeline of DESIGN.md is composed; the CLI (and
later the gRPC server) call it and never reason themselves.  Every result it
returns carries the checker's verdict on its certificate; a certificate the
checker rejects is reported as an internal error, never as an answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

from causal_oracle.oracle.certificate import Certificate
from causal_oracle.oracle.check import CheckResult, check
from causal_oracle.oracle.equivalence import ClassAnalysis, analyse
from causal_oracle.oracle.errors import OracleError
from causal_oracle.oracle.explain import (
    dag_text,
    explain_dot,
    explain_json,
    explain_text,
    path_text,
)
from causal_oracle.oracle.labels import Verdict, label
from causal_oracle.oracle.relations import Profile
from causal_oracle.oracle.statements import Hypothesis, Premise
from causal_oracle.oracle.tasks.model import RelationClaim
from causal_oracle.parser import parse_hypothesis, parse_item, parse_premise
from causal_oracle.parser.errors import ParseError
from causal_oracle.parser.task_answers import parse_corr2cause_answer

#: the per-member profiles ``verify`` takes (``compelled`` labels Corr2Cause++ files by the
#: CPDAG's directed edges: ``oracle.compelled``, applied by the audit)
PROFILES = tuple(p.value for p in Profile if p is not Profile.COMPELLED)


class CertificateRejected(OracleError):
    """The independent checker rejected a certificate: a bug, never shown as an answer."""


@dataclass(frozen=True, slots=True)
class VerifyResult:
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
    def holds_in(self) -> int:
        """In how many members of the class the hypothesis holds."""
        return self.verdict.holds_in

    @property
    def ambiguous(self) -> bool:
        """True when the binary label differs between semantics profiles."""
        return self.verdict.ambiguous

    def reason(self) -> str:
        """One line saying why the label is what it is."""
        v, cert = self.verdict, self.verdict.certificate
        if v.relation == "inconsistent":
            return self.analysis.conflicts[0].message

        def witness(w: tuple[tuple[int, ...], ...]) -> str:
            return " and ".join(path_text(self.premise, p) for p in w)

        if v.relation == "neutral":
            w = cert.witnesses[0]
            assert w is not None
            return (f"holds in {v.holds_in} of {v.class_size} members, e.g. "
                    f"{dag_text(self.premise, cert.members[0])} (via {witness(w)}), but not in "
                    f"{dag_text(self.premise, cert.members[1])}")
        if v.relation == "entailment":
            w = cert.witnesses[0]
            assert w is not None
            return (f"holds in all {v.class_size} member(s) of the class, e.g. via "
                    f"{witness(w)} in {dag_text(self.premise, cert.members[0])}")
        return (f"holds in none of the {v.class_size} member(s) of the class, e.g. not in "
                f"{dag_text(self.premise, cert.members[0])}")

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
            return explain_dot(self.analysis, self.verdict)
        return explain_text(self.analysis, self.hypothesis, self.verdict, self.profile)


@lru_cache(maxsize=8192)
def premise_of(text: str) -> Premise:
    return parse_premise(text)


@lru_cache(maxsize=4096)
def hypothesis_of(text: str) -> Hypothesis:
    return parse_hypothesis(text)


@lru_cache(maxsize=200_000)
def _checked(premise: Premise, hypothesis: Hypothesis, certificate: Certificate) -> CheckResult:
    return check(premise, hypothesis, certificate)


def verify_objects(premise: Premise, hypothesis: Hypothesis,
                   profile: str | Profile = Profile.CORR2CAUSE) -> VerifyResult:
    prof = profile if isinstance(profile, Profile) else Profile(profile)
    analysis = analyse(premise)
    verdict = label(analysis, hypothesis, prof)
    result = _checked(premise, hypothesis, verdict.certificate)
    if not result.ok:
        raise CertificateRejected(f"the checker rejected the certificate: {result.reason}")
    return VerifyResult(premise, hypothesis, analysis, verdict, result, prof)


def verify(premise: str, hypothesis: str,
           profile: str | Profile = Profile.CORR2CAUSE) -> VerifyResult:
    """Label a Corr2Cause hypothesis against a premise; raises ``InputError`` on bad text."""
    return verify_objects(premise_of(premise.strip()), hypothesis_of(hypothesis.strip()),
                          profile)


def verify_input(text: str, profile: str | Profile = Profile.CORR2CAUSE) -> VerifyResult:
    """Like ``verify`` for the published layout ``"Premise: …\\nHypothesis: …"``."""
    premise, hypothesis = parse_item(text)
    return verify_objects(premise, hypothesis, profile)


UNREADABLE = "UNREADABLE"


def grade_answer(result: VerifyResult, text: str) -> dict[str, object]:
    """Grade a model's answer to a verified Corr2Cause item.

    Returns ``{"correct", "normalised", "expected", "reason", "gradable"}``.  A
    3-class word is graded against the 3-class relation, a yes/no form against the
    binary label.  ``correct`` is None when the answer cannot be read
    (``normalised`` is then ``"UNREADABLE"``) or when the premise is inconsistent
    (``gradable`` False: no answer is right).
    """
    try:
        claim = parse_corr2cause_answer(text)
    except ParseError as error:
        return {"correct": None, "normalised": UNREADABLE, "expected": None,
                "reason": error.describe(), "gradable": True}
    if isinstance(claim, RelationClaim):
        normalised, expected = claim.relation, result.relation
    else:
        normalised = "yes" if claim.yes else "no"
        expected = None if result.label is None else ("yes" if result.label else "no")
    if result.relation == "inconsistent":
        return {"correct": None, "normalised": normalised, "expected": None,
                "reason": "the premise is inconsistent: no DAG fits it, so no answer is",
                "gradable": False}
    return {"correct": normalised == expected, "normalised": normalised, "expected": expected,
            "reason": f"read as {normalised!r}; the oracle's answer is {expected!r}",
            "gradable": True}
