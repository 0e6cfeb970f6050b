"""One ``Oracle`` protocol (``entry.oracle_protocol``): the in-process service and the gRPC
client implement it, and give the same answers through it.

Every method of the protocol is called on both — the ``Service`` and a ``RemoteOracle``
talking to a server started here — and the results compared; the surfaces that take an
``Oracle`` (the audit's verifier, ``eval``'s scorers, the CLI) are typed against it.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_type_hints

import pytest
from test_grpc_service import ServerThread

from causal_oracle.clients import answer_cli, audit, grade_file, row_audit
from causal_oracle.clients.evaluate import scoring
from causal_oracle.clients.remote import OracleClient
from causal_oracle.clients.remote_oracle import RemoteOracle
from causal_oracle.entry import InputError, Limits, Service
from causal_oracle.entry.oracle_protocol import Oracle
from causal_oracle.rewards.scoring import RewardConfig, Sample, Verifier

ROOT = Path(__file__).resolve().parents[1]

PREMISE = ("Suppose there is a closed system of 3 variables, A, B and C. All the statistical "
           "relations among these 3 variables are as follows: A correlates with C. B "
           "correlates with C. However, A is independent of B.")
HYPOTHESIS = "A directly causes C."
QUESTION = f"Premise: {PREMISE}\nHypothesis: {HYPOTHESIS}"


@pytest.fixture(scope="module")
def remote() -> Iterator[RemoteOracle]:
    thread = ServerThread(workers=1, grace=1.0)
    thread.start()
    try:
        with OracleClient(thread.target, timeout=60) as client:
            yield RemoteOracle(client)
    finally:
        thread.stop(grace=1.0)


def _oracles(remote: RemoteOracle) -> list[Oracle]:
    return [Service(Limits(budget_s=30.0)), remote]


def test_both_implement_the_protocol(remote: RemoteOracle) -> None:
    for oracle in _oracles(remote):
        assert isinstance(oracle, Oracle), type(oracle).__name__
    assert not isinstance(object(), Oracle)


def test_verify_and_verify_input_agree(remote: RemoteOracle) -> None:
    local, far = _oracles(remote)
    for oracle_results in ([o.verify(PREMISE, HYPOTHESIS) for o in (local, far)],
                           [o.verify_input(QUESTION, "loose") for o in (local, far)]):
        a, b = (r.verdict for r in oracle_results)
        assert (a.relation, a.label, a.class_size, a.holds_in, a.ambiguous) == \
            (b.relation, b.label, b.class_size, b.holds_in, b.ambiguous)
        assert a.relation == "entailment" and a.label == 1
        assert oracle_results[0].reason() == oracle_results[1].reason()
        assert oracle_results[0].summary()["label"] == oracle_results[1].summary()["label"]


def test_answer_and_grade_agree(remote: RemoteOracle) -> None:
    local, far = _oracles(remote)
    answers = [o.answer(QUESTION, model_answer="Yes.") for o in (local, far)]
    assert answers[0].answer_text == answers[1].answer_text == "yes"
    assert answers[0].answer == answers[1].answer
    assert [a.grade.correct for a in answers if a.grade] == [True, True]
    grades = [o.grade(QUESTION, "No, it does not.") for o in (local, far)]
    assert [(g.correct, g.normalised, g.readable) for g in grades] == [(False, "no", True)] * 2


def test_a_remote_result_names_its_family(remote: RemoteOracle) -> None:
    """The wire carries the task; the client reads the family off it, as the service
    names it."""
    local, far = _oracles(remote)
    answers = [o.answer(QUESTION, model_answer="Yes.") for o in (local, far)]
    assert answers[0].family == answers[1].family == "corr2cause"
    assert [a.grade.family for a in answers if a.grade] == ["corr2cause"] * 2


def test_the_remote_answer_refuses_another_profile(remote: RemoteOracle) -> None:
    with pytest.raises(InputError, match="profile"):
        remote.answer(QUESTION, profile="strict")
    with pytest.raises(InputError, match="profile"):
        remote.grade(QUESTION, "Yes", profile="loose")


def _mentions_oracle(function: Any) -> bool:
    hints = get_type_hints(function, vars(inspect.getmodule(function)))
    return any("Oracle" in str(hint) for hint in hints.values())


def test_the_surfaces_take_an_oracle() -> None:
    """The audit's verifier, the CLI's answer and the eval scorers are typed against the
    protocol, not a concrete service or client."""
    assert _mentions_oracle(row_audit.audit_row)
    assert _mentions_oracle(audit.run_audit)
    assert _mentions_oracle(answer_cli._answer)
    assert _mentions_oracle(grade_file.grade_file) and _mentions_oracle(grade_file.grade_row)
    assert _mentions_oracle(Verifier.__init__)
    assert "Oracle" in str(get_type_hints(scoring._OracleScorer)["oracle"])


def test_grade_file_grades_the_same_through_either_oracle(remote: RemoteOracle) -> None:
    """``grade FILE``'s engine takes an ``Oracle``: the rows are read in this process
    (the registry), the replies graded by the oracle given."""
    path = ROOT / "examples" / "ie_sample.jsonl"
    local = grade_file.grade_file(path, reply_column="label").to_json()
    far = grade_file.grade_file(path, reply_column="label", service=remote).to_json()
    assert local["summary"]["items"] > 0 and local["summary"]["correct"] > 0
    assert (local["summary"], local["by_family"], local["by_task"]) == \
        (far["summary"], far["by_family"], far["by_task"])
    assert local["records"] == far["records"]


def test_the_reward_verifier_scores_the_same_through_either_oracle(
        remote: RemoteOracle) -> None:
    prompt = QUESTION + "\nIs the hypothesis necessarily true given the premise?"
    config = RewardConfig(workers=0)
    for reply in ("Yes.", "No.", "Perhaps."):
        local = Verifier(config).score(Sample(prompt, reply))
        far = Verifier(config, oracle=remote).score(Sample(prompt, reply))
        assert (local.reward, local.status, local.family) == \
            (far.reward, far.status, far.family)
    assert Verifier(config, oracle=remote).score(Sample("What is 2 + 2?", "4")).status == \
        "no_question"
