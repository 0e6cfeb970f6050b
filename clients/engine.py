"""The in-process engine: thin wrappers over the entry layer (``oracle.service``).

Kept so that callers written against ``clients.engine`` (the CLI, audit, eval,
the library API) keep working: every function here delegates to the process's
``Service`` (``oracle.service.default()``), which owns the limits, the time
budget and the bounded caches.  Every result carries the checker's verdict on
its certificate; a certificate the checker rejects is an internal error
(``CertificateRejected``), never an answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from causal_oracle.oracle.relations import Profile
from causal_oracle.oracle.service import (
    UNREADABLE,
    CertificateRejected,
    FastVerdict,
    VerifyResult,
    default,
    grade_answer,
)
from causal_oracle.oracle.statements import Hypothesis, Premise

#: the per-member profiles ``verify`` takes (``compelled`` labels Corr2Cause++ files by the
#: CPDAG's directed edges: ``oracle.compelled``, applied by the audit)
PROFILES = tuple(p.value for p in Profile if p is not Profile.COMPELLED)


def premise_of(text: str) -> Premise:
    return default().premise_of(text)


def hypothesis_of(text: str) -> Hypothesis:
    return default().hypothesis_of(text)


def verify_objects(premise: Premise, hypothesis: Hypothesis,
                   profile: str | Profile = Profile.CORR2CAUSE) -> VerifyResult:
    return default().verify_objects(premise, hypothesis, profile)


def verify(premise: str, hypothesis: str,
           profile: str | Profile = Profile.CORR2CAUSE) -> VerifyResult:
    """Label a Corr2Cause hypothesis against a premise; raises ``InputError`` on bad text."""
    return default().verify(premise, hypothesis, profile)


def verify_input(text: str, profile: str | Profile = Profile.CORR2CAUSE) -> VerifyResult:
    """Like ``verify`` for the published layout ``"Premise: …\\nHypothesis: …"``."""
    return default().verify_input(text, profile)


def label_fast_many(premise: str, hypotheses: Sequence[str],
                    profile: Profile = Profile.CORR2CAUSE) -> list[FastVerdict | None]:
    """Labels of several hypotheses on one premise off its relation tables (None: verify)."""
    return default().label_fast_many(premise, hypotheses, profile)


def cache_clear() -> None:
    """Empty the default service's caches (for uncached measurements)."""
    default().caches.clear()


__all__ = ["PROFILES", "UNREADABLE", "CertificateRejected", "FastVerdict", "VerifyResult",
           "cache_clear", "grade_answer", "hypothesis_of", "label_fast_many", "premise_of",
           "verify", "verify_input", "verify_objects"]
