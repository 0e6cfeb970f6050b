"""The Chinese claim reader: words bound and cut without spaces, templates, hedges, and
the Chinese hand-written chains of the corpus."""

from __future__ import annotations

import json
from pathlib import Path

from reasoning_measure import Tally, measure

import causal_oracle as co
from causal_oracle.entry import REGISTRY
from causal_oracle.parser.claims import read_claims
from causal_oracle.parser.claims_zh import MAX_SENTENCES, has_chinese, read_chinese

DATA = Path(__file__).parent / "data"
ABCDE = ("A", "B", "C", "D", "E")


def _read(text: str, names: tuple[str, ...] = ABCDE) -> list[tuple[str, tuple[int, ...], bool]]:
    return [(c.kind.value, c.variables, c.polarity) for c in read_claims(text, names)]


def test_edges_causes_and_their_negations() -> None:
    assert _read("A导致B。A直接影响B和C。A不是E的父节点。B是A的子节点。E是A的后代。") == [
        ("cause", (0, 1), True), ("edge", (0, 1), True), ("edge", (0, 2), True),
        ("edge", (0, 4), False), ("edge", (0, 1), True), ("cause", (0, 4), True)]
    assert _read("A并不导致B。A没有导致E。A对B没有影响。A对B有直接影响。C是E的祖先节点。") == [
        ("cause", (0, 1), False), ("cause", (0, 4), False), ("cause", (0, 1), False),
        ("edge", (0, 1), True), ("cause", (2, 4), True)]


def test_independence_with_a_condition_said_first_or_inside() -> None:
    claims = read_claims("给定C，A和B独立。A和B在给定C的条件下独立。A与B相关。A和B之间没有相关性。",
                         ABCDE)
    assert [(c.kind.value, c.variables, c.polarity, c.given) for c in claims] == [
        ("independence", (0, 1), True, (2,)), ("independence", (0, 1), True, (2,)),
        ("correlation", (0, 1), True, ()), ("correlation", (0, 1), False, ())]
    # "conditionally independent" without the condition says nothing checkable
    assert _read("A与B条件独立。") == []


def test_sets_identifiability_numbers_answers() -> None:
    claims = read_claims("对于(A, E)，{B, D}满足后门准则。A对E的因果效应不可识别。"
                         "P(C=0|B=1)=0.9874。ATE为-0.08。答案：否", ABCDE)
    got = [(c.kind.value, c.variables, c.polarity, c.given, c.number) for c in claims]
    assert got == [("adjustment_set", (0, 4), True, (1, 3), None),
                   ("identifiable", (0, 4), False, (), None),
                   ("number", (), True, (), 0.9874), ("number", (), True, (), -0.08),
                   ("answer", (), False, (), None)]


def test_hedges_questions_and_unknown_words_claim_nothing() -> None:
    assert _read("如果A导致B，那么A是B的祖先。A可能导致B。A导致B吗？G是否导致K？也许D导致E。") == []
    assert _read("A经常导致B。") == []  # a word in no template: skipped, never guessed


def test_names_bound_without_spaces_and_defined_by_the_reply() -> None:
    names = ("收入水平", "血压", "smku")
    assert _read("收入水平对血压有直接影响。Smku导致血压。", names) == [
        ("edge", (0, 1), True), ("cause", (2, 1), True)]
    assert _read("用B代表血压, C代表收入水平，B到C有一条或多条有向路径(例如B->C)。", names) == [
        ("cause", (1, 0), True)]
    assert _read("ATE为0.2。", ("A",)) == [("number", (), True)]  # "A" is not inside "ATE"


def test_spans_and_mixed_languages() -> None:
    text = "Step 1: A causes B.\n所以A是B的祖先节点。Answer: Yes"
    claims = read_claims(text, ABCDE)
    assert [text[slice(*c.span)] for c in claims] == ["A causes B", "A是B的祖先节点",
                                                      "Answer: Yes"]
    assert has_chinese(text) and not has_chinese("A causes B")


def test_bounded() -> None:
    assert len(read_chinese("A导致B。" * (MAX_SENTENCES + 50), ABCDE)) == MAX_SENTENCES
    assert read_chinese("A导致B，" * 400, ABCDE) == []  # one over-long sentence: skipped


def test_chinese_hand_written_chains() -> None:
    """Precision ≥ 0.95, recall ≥ 0.8 of the annotated claims of the Chinese chains for
    CaLM's graph and effect items; every planted false claim found false."""
    REGISTRY.load_resource("cladder-models", DATA / "cladder" / "test-model-meta.json")
    tally = Tally()
    lines = (DATA / "reasoning" / "chains_zh.jsonl").read_text(encoding="utf-8").splitlines()
    for line in lines:
        r = json.loads(line)
        result = co.check_reasoning(r["prompt"], r["reply"])
        assert result.family == "calm"
        measure(r["reply"], r["claims"], result, tally)
    assert tally.precision >= 0.95, tally.spurious
    assert tally.recall >= 0.8, tally.misses
    assert tally.wrong == []
    assert tally.false_caught == tally.false_planted >= 10


def test_a_chinese_reply_is_checked_with_witnesses() -> None:
    prompt = ("给定如下因果图：A导致B, 以及B导致C。\n在这些变量间存在着不可观察的混淆变量：A和C。\n"
              "问题：A对C的因果效应是否可以被识别？\n答案（是或否？）：")
    r = co.check_reasoning(prompt, "A导致B。给定B，A和C独立。C不是A的后代。答案：是")
    assert [(c.text, c.verdict.value) for c in r.claims] == [
        ("A导致B", "true"), ("给定B，A和C独立", "false"), ("C不是A的后代", "false"),
        ("答案：是", "true")]
    assert "A ← U[A,C] → C is open given B" in r.claims[1].why
    assert r.lucky and r.final.correct
