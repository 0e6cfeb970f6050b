"""Checking the reasoning of a reply: verdicts, witnesses, the corpus, the surfaces."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reasoning_measure import Tally, measure
from reasoning_render import KINDS, digraphs, sentence, truth

import causal_oracle as co
from causal_oracle.clients.cli import main
from causal_oracle.entry import REGISTRY
from causal_oracle.oracle.reasoning.facts import dag_facts
from causal_oracle.oracle.reasoning.model import Facts
from causal_oracle.oracle.reasoning.verdicts import check_claims, contradictions
from causal_oracle.parser.claims import read_claims

DATA = Path(__file__).parent / "data"
C2C = ("Premise: Suppose there is a closed system of 3 variables, A, B and C. All the "
       "statistical relations among these 3 variables are as follows: ")
COLLIDER = C2C + ("A correlates with C. B correlates with C. However, A is independent of B."
                  "\nHypothesis: A directly causes C.")
CHAIN = C2C + ("A correlates with B. A correlates with C. B correlates with C. However, A and "
               "C are independent given B.\nHypothesis: A directly causes B.")


@pytest.fixture(scope="module", autouse=True)
def _cladder_models() -> None:
    REGISTRY.load_resource("cladder-models", DATA / "cladder" / "test-model-meta.json")


def _records(name: str) -> list[dict[str, Any]]:
    lines = (DATA / "reasoning" / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _tally(records: list[dict[str, Any]]) -> Tally:
    tally = Tally()
    for r in records:
        measure(r["reply"], r["claims"], co.check_reasoning(r["prompt"], r["reply"]), tally)
    return tally


def test_the_smollm_reply_of_the_issue() -> None:
    reply = ("No. Step 1: A is a dependent variable. Step 4: A is the cause of C. A is not "
             "directly causing C. If A is the cause of C, then A must be the cause of B. "
             "However, A is not the cause of B. In other words, A is not the cause of C, but "
             "rather B is the cause of A.")
    r = co.check_reasoning(COLLIDER, reply)
    got = [(c.text, c.verdict.value) for c in r.claims]
    assert got == [("No", "false"), ("A is the cause of C", "true"),
                   ("A is not directly causing C", "false"),
                   ("A is not the cause of B", "true"), ("A is not the cause of C", "false"),
                   ("B is the cause of A", "false")]
    assert r.claims[2].why.startswith("the edge is A→C")
    assert "no directed path from B to A" in r.claims[5].why
    assert {(c.first, c.second) for c in r.contradictions} == {(1, 4)}
    assert not r.final.correct and not r.lucky and r.score == pytest.approx(2 / 5)


def test_a_claim_the_class_leaves_open_gets_no_verdict() -> None:
    r = co.check_reasoning(CHAIN, "A directly causes B. B -> C. A causes C. "
                                  "A and C are independent given B.")
    verdicts = [c.verdict.value for c in r.claims]
    assert verdicts == ["not_decidable"] * 3 + ["true"]
    assert "holds in 1 of 3 members" in r.claims[0].why
    assert r.checkable == 1 and r.score == 1.0


def test_witnesses_of_false_claims() -> None:
    r = co.check_reasoning(CHAIN, "A and C are independent. B is a collider between A and C. "
                                  "The Markov equivalence class has 2 members. The direction "
                                  "of the edge between A and B is determined.")
    assert [c.verdict.value for c in r.claims] == ["false"] * 4
    assert r.claims[0].why.startswith("the path A")
    assert "open given nothing" in r.claims[0].why
    assert "the class has 3 member(s)" in r.claims[2].why
    assert "members differ" in r.claims[3].why


def test_lucky_and_unsupported() -> None:
    lucky = co.check_reasoning(COLLIDER, "C causes A. Answer: Yes")
    assert lucky.final.correct and lucky.lucky and not lucky.unsupported
    bare = co.check_reasoning(COLLIDER, "I am quite sure. Answer: Yes")
    assert bare.final.correct and bare.unsupported and bare.score is None
    silent = co.check_reasoning(COLLIDER, "Yes")
    assert [c.claim.kind.value for c in silent.claims] == ["answer"]


def test_numbers_are_checked_with_their_rounding() -> None:
    prompt = json.loads((DATA / "reasoning" / "chains.jsonl").read_text().splitlines()[9])[
        "prompt"]
    r = co.check_reasoning(prompt, "P(Y=1 | X=0) = 0.26. P(Y=1 | X=0) = 0.3. "
                                   "P(Y=1 | X=0) = 0.31. The ATE is 0.59. P(Y=1) = 0.5.")
    assert [c.verdict.value for c in r.claims] == ["true", "true", "false", "true",
                                                   "not_decidable"]
    assert "tolerance ±0.005" in r.claims[2].why and "0.26" in r.claims[2].why


def test_an_inconsistent_premise_decides_no_structural_claim() -> None:
    prompt = C2C + ("A correlates with B. However, A is independent of B.\n"
                    "Hypothesis: A directly causes B.")
    r = co.check_reasoning(prompt, "A causes B. A and B are independent.")
    assert {c.verdict.value for c in r.claims} == {"not_decidable"}
    assert "inconsistent" in r.claims[0].why


def test_hand_written_chains() -> None:
    """Precision ≥ 0.95 and recall ≥ 0.8 of the hand-annotated claims; every claim read
    that matches an annotation has the annotated verdict."""
    tally = _tally(_records("chains.jsonl"))
    assert tally.precision >= 0.95, tally.spurious
    assert tally.recall >= 0.8, tally.misses
    assert tally.wrong == []
    assert tally.false_caught == tally.false_planted > 0


def test_perturbation_corpus() -> None:
    """Every planted false claim is found false with a witness; every claim the class
    leaves open is not decidable; every true claim true — for every family."""
    records = _records("perturbed.jsonl")
    assert {r["family"] for r in records} == {"corr2cause", "corr2cause++", "clear",
                                              "cibench", "ie", "cladder"}
    tally = _tally(records)
    assert tally.wrong == [] and tally.misses == [] and tally.spurious == []
    assert tally.false_caught == tally.false_planted > 100


def test_smollm_replies() -> None:
    records = _records("smollm2.jsonl")
    assert len(records) >= 8
    tally = _tally(records)
    assert tally.precision >= 0.95, tally.spurious
    assert tally.recall >= 0.8, tally.misses
    assert tally.wrong == []


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 6), st.integers(0, 2**30), st.sampled_from(sorted(KINDS)))
def test_rendered_claims_read_back_and_check(n: int, seed: int, kind: str) -> None:
    """A claim about a random DAG, rendered true (or false) in a random paraphrase, is
    read back as one claim and checked true (or false, with a witness)."""
    rng = random.Random(seed)
    names = tuple("ABCDEF"[:n])
    edges = [(a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < 0.45]
    order = list(range(n))
    rng.shuffle(order)
    edges = [(order[a], order[b]) for a, b in edges]
    facts = dag_facts(names, edges)
    v = tuple(rng.sample(names, KINDS[kind][2]))
    cond = tuple(rng.sample([x for x in names if x not in v], rng.choice((0, 1)))) \
        if kind == "independence" else ()
    holds = truth(digraphs(names, [edges]), kind, v, cond) == "true"
    for positive, expected in ((holds, "true"), (not holds, "false")):
        text = sentence(kind, v, positive, rng, cond, style=rng.choice((0, 1, 2)))
        claims = read_claims(text, names)
        assert len(claims) == 1, text
        (checked,) = check_claims(facts, claims, text)
        assert checked.verdict.value == expected, (text, edges, checked.why)
        assert checked.why


def test_contradictions_need_no_graph() -> None:
    names = ("A", "B", "C")
    claims = read_claims("A -> B. B causes A. A and C are correlated. A is independent "
                         "of C. C causes B. C does not cause B.", names)
    pairs = {(c.first, c.second) for c in contradictions(claims, names)}
    assert pairs == {(0, 1), (2, 3), (4, 5)}


def test_a_family_without_the_hook_is_unsupported() -> None:
    family = REGISTRY.get("corr2cause")
    original = type(family).reasoning_facts
    try:
        type(family).reasoning_facts = lambda self, q, s: None  # type: ignore[method-assign]
        r = co.check_reasoning(COLLIDER, "A causes C. Answer: Yes")
    finally:
        type(family).reasoning_facts = original  # type: ignore[method-assign]
    assert not r.supported and r.claims == () and r.final.correct


def test_facts_of_every_family() -> None:
    for record in _records("perturbed.jsonl")[::20]:
        r = co.check_reasoning(record["prompt"], record["reply"])
        assert r.supported and r.family == record["family"] and r.claims
    facts = Facts(("A",))
    assert facts.graphs == () and facts.answer is None


def test_cli(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    reply = tmp_path / "reply.txt"
    reply.write_text("C causes A.\nAnswer: Yes", encoding="utf-8")
    assert main(["check-reasoning", "--prompt", COLLIDER, "--reply-file", str(reply),
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["lucky"] is True and out["counts"] == {"true": 1, "false": 1,
                                                      "not_decidable": 0}
    assert out["claims"][0]["span"] == [0, 10] and out["claims"][0]["verdict"] == "false"
    assert main(["check-reasoning", "--prompt", COLLIDER, "--reply", "A causes C"]) == 0
    text = capsys.readouterr().out
    assert "'A causes C': true" in text and "final answer: UNREADABLE" in text
    assert main(["check-reasoning", "--prompt", COLLIDER]) == 2
    assert "give one of --reply" in capsys.readouterr().err


def test_what_a_family_cannot_decide_gets_no_verdict() -> None:
    """A CLEAR graph that is not a DAG: structural claims are not decidable; the answer
    still is."""
    prompt = ("Given an ADMG (acyclic directed mixed graph) with nodes C, I, E, O, directed "
              "edges E->O, I->E, C->O, C->E, C->I and bi-directed edges E<->O.\n"
              "Is node C one of ancestors of node O?")
    r = co.check_reasoning(prompt, "C causes O. Answer: Yes")
    assert [c.verdict.value for c in r.claims] == ["not_decidable", "true"]
    assert "DAGs only" in r.claims[0].why


def test_intervention_effects_are_judged_in_the_intervened_graph() -> None:
    prompt = json.loads((DATA / "reasoning" / "chains.jsonl").read_text().splitlines()[8])[
        "prompt"]
    r = co.check_reasoning(prompt, "Clouds does not cause wet grass. Rain causes clouds. "
                                   "Clouds directly causes wet grass.")
    assert [c.verdict.value for c in r.claims] == ["true", "true", "false"]


def test_adjustment_instrument_identifiability() -> None:
    """CI-Bench BA: krbxdaaa confounds terckaab → btxllaad; the query is that pair."""
    prompt = json.loads((DATA / "reasoning" / "chains.jsonl").read_text().splitlines()[6])[
        "prompt"]
    r = co.check_reasoning(prompt, (
        "We should adjust for appfoaae. {krbxdaaa} is a valid adjustment set for the effect "
        "of terckaab on btxllaad. Krbxdaaa is an instrument for terckaab on btxllaad. The "
        "effect of terckaab on btxllaad is identifiable. There is no backdoor path from "
        "krbxdaaa to btxllaad. Krbxdaaa and btxllaad are d-separated by terckaab."))
    got = [(c.claim.kind.value, c.verdict.value) for c in r.claims]
    assert got == [("adjustment_set", "false"), ("adjustment_set", "true"),
                   ("instrument", "false"), ("identifiable", "true"),
                   ("backdoor_path", "true"), ("d_separation", "false")]
    assert "is a descendant of terckaab" in r.claims[0].why
    assert r.claims[5].why.startswith("the path krbxdaaa → btxllaad is open")


def test_front_door_sets() -> None:
    names = ("X", "M", "Y", "U")
    facts = dag_facts(names, [(0, 1), (1, 2), (3, 0), (3, 2)], query=(0, 2))
    text = ("{M} satisfies the front-door criterion for the effect of X on Y. {U} is a valid "
            "front-door set. {M} is a valid adjustment set.")
    got = [(c.claim.kind.value, c.verdict.value)
           for c in check_claims(facts, read_claims(text, names), text)]
    assert got == [("frontdoor_set", "true"), ("frontdoor_set", "false"),
                   ("adjustment_set", "false")]
