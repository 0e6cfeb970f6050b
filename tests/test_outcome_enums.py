"""Verdict words and conflict kinds are enums that still read as their words."""

from __future__ import annotations

import json
import pickle

from causal_oracle.oracle import labels
from causal_oracle.oracle.equivalence import ConflictKind, analyse
from causal_oracle.oracle.labels import label
from causal_oracle.oracle.outcome import Outcome
from causal_oracle.parser import parse_hypothesis, parse_premise


def test_label_constants_are_the_enum() -> None:
    assert labels.ENTAILMENT is Outcome.ENTAILMENT and labels.NEUTRAL is Outcome.NEUTRAL
    assert labels.CONTRADICTION is Outcome.CONTRADICTION
    assert labels.INCONSISTENT is Outcome.INCONSISTENT
    for member in (*Outcome, *ConflictKind):
        assert member == member.value and hash(member) == hash(member.value)
        assert json.dumps(member) == json.dumps(member.value) and f"{member}" == member.value
        assert repr(member) == repr(member.value)
        assert pickle.loads(pickle.dumps(member)) is member
    assert [Outcome.of_count(k, 3) for k in (0, 1, 3)] == ["contradiction", "neutral",
                                                           "entailment"]


def _premise(statements: str, names: str, n: int):  # type: ignore[no-untyped-def]
    return parse_premise(f"Suppose there is a closed system of {n} variables, {names}. All the "
                         f"statistical relations among these {n} variables are as follows: "
                         f"{statements}")


def test_verdicts_and_certificates_carry_the_words() -> None:
    premise = _premise("A correlates with B. B correlates with C. However, A is independent "
                       "of C.", "A, B and C", 3)
    verdict = label(analyse(premise), parse_hypothesis("A directly causes B."))
    assert verdict.relation is Outcome.ENTAILMENT
    text = json.dumps(verdict.certificate.to_json())
    assert '"verdict": "entailment"' in text
    bad = _premise("A correlates with B. However, A is independent of B.", "A and B", 2)
    analysis = analyse(bad)
    assert analysis.conflicts[0].kind is ConflictKind.CORRELATION
    verdict = label(analysis, parse_hypothesis("A directly causes B."))
    assert verdict.relation is Outcome.INCONSISTENT
    data = json.loads(json.dumps(verdict.certificate.to_json()))
    assert data["verdict"] == "inconsistent" and data["conflict"]["kind"] == "correlation"
    assert type(data["conflict"]["kind"]) is str
