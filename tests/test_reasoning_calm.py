"""CaLM's reasoning facts (graph and effect parts), and every registered family's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import causal_oracle as co
from causal_oracle.entry import REGISTRY
from causal_oracle.entry.families.calm import record_row

DATA = Path(__file__).parent / "data"
CEI = ("You will be presented with a causal graph in the following form: A causes B, and B "
       "causes C.\nThere exist unobserved confounders between: A and C.\nQuestion: Whether "
       "the causal effect of A on C is identified or not?\nAnswer (Yes or No ?):")


@pytest.fixture(scope="module", autouse=True)
def _cladder_models() -> None:
    REGISTRY.load_resource("cladder-models", DATA / "cladder" / "test-model-meta.json")


def _calm(file: str) -> tuple[str, str]:
    record = json.loads((DATA / "calm" / "lite_sample" / file).read_text(
        encoding="utf-8").splitlines()[0])
    item = REGISTRY.get("calm").row(record_row(record, file))
    assert item is not None
    return item.prompt, item.task


def test_a_bidirected_edge_is_a_hidden_common_cause() -> None:
    r = co.check_reasoning(CEI, "A and C have a common cause. A and C are independent given "
                                "B. A causes C. The effect of A on C is identifiable. "
                                "Answer: Yes")
    got = [(c.claim.kind.value, c.verdict.value) for c in r.claims]
    assert got == [("confounder", "true"), ("independence", "false"), ("cause", "true"),
                   ("identifiable", "not_decidable"), ("answer", "true")]
    assert "A ← U[A,C] → C is open given B" in r.claims[1].why
    assert r.family == "calm" and r.lucky and r.final.correct


def test_without_the_bidirected_edge_the_pair_is_separated() -> None:
    prompt = CEI.replace("A and C.", "A and B.")
    r = co.check_reasoning(prompt, "A and C are independent given B.")
    assert [c.verdict.value for c in r.claims] == ["true"]


def test_effect_numbers_and_the_natural_yes_no() -> None:
    prompt, task = _calm("ATE-P_ATE-basic_EN.json")
    r = co.check_reasoning(prompt, "The ATE is -0.0843. The ATE is 0.2. The ATE is positive.",
                           task)
    assert [c.verdict.value for c in r.claims] == ["true", "false", "false"]
    assert "ATE is between -0.0844 and -0.0842" in r.claims[1].why
    prompt, task = _calm("ATE-B_ATE-natural_EN.json")
    r = co.check_reasoning(prompt, "The ATE is 0. Answer: No", task)
    assert [c.verdict.value for c in r.claims] == ["true", "true"] and r.final.correct


def test_choice_tasks_have_no_yes_no_and_hide_a() -> None:
    prompt, task = _calm("BAS-C_max-BAS_EN.json")
    r = co.check_reasoning(prompt, "A causes G. G causes A. Answer: Yes. The effect of A on "
                                   "E is identifiable.", task)
    assert [c.verdict.value for c in r.claims] == ["true", "false", "not_decidable",
                                                   "not_decidable"]


def _samples() -> dict[str, tuple[str, str | None]]:
    out: dict[str, tuple[str, str | None]] = {}
    for line in (DATA / "reasoning" / "perturbed.jsonl").read_text(
            encoding="utf-8").splitlines():
        record = json.loads(line)
        out.setdefault(record["family"], (record["prompt"], None))
    out["calm"] = _calm("CA-B_FA_EN.json")
    return out


def test_every_registered_family_gives_reasoning_facts() -> None:
    samples = _samples()
    for family in REGISTRY:
        if not type(family).__module__.startswith("causal_oracle."):
            continue  # a test's own family
        assert family.name in samples, f"no sample item for {family.name}"
        prompt, task = samples[family.name]
        r = co.check_reasoning(prompt, "Answer: Yes", task)
        assert r.supported and r.family == family.name, family.name
        assert r.to_json()["claims"][0]["kind"] == "answer"


@pytest.mark.parametrize("file, reply", [
    ("ATE-P_ATE-basic_EN.json",
     "P(eons=0 | smku=0) = 0.8445. P(eons=0 | smku=1) = 0.1. The ATE is -0.0843."),
    ("ATE-P_ATE-basic_CN.json",
     "已知P(eons=0|smku=0)=0.8445，P(eons=0|smku=1)=0.1。所以ATE=-0.0843。"),
])
def test_a_probability_in_numerals_is_not_decided_where_values_are_words(
        file: str, reply: str) -> None:
    # The item says "smku being low/high" (低/高), never which value is 0: CaLM's own
    # chain of thought numbers them its way (its ATE example writes P(C=0|B=1) for 高), this
    # reading numbers them by first mention; a numeral claim is open either way, never
    # judged true or false.  The effect itself names no value and is checked.
    prompt, task = _calm(file)
    r = co.check_reasoning(prompt, reply, task)
    got = [(c.claim.kind.value, c.verdict.value) for c in r.claims]
    assert got == [("number", "not_decidable"), ("number", "not_decidable"),
                   ("number", "true")], got
    assert "values only in words" in r.claims[0].why and "0 or 1" in r.claims[1].why
