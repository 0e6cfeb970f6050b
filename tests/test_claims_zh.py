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

ABCDEF = ("A", "B", "C", "D", "E", "F")

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
    # 条件独立 without its condition: independence given nothing (as the English reader
    # reads "A and B are conditionally independent"); with it, given it
    assert [(c.kind.value, c.variables, c.polarity, c.given) for c in read_claims(
        "A与B条件独立。A和B不是条件独立的。A和B在给定C的条件下条件独立。", ABCDE)] == [
        ("independence", (0, 1), True, ()), ("independence", (0, 1), False, ()),
        ("independence", (0, 1), True, (2,))]
    assert _read("A与B可能条件独立。A与B条件独立吗？A与B条件上独立。") == []


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
        assert result.family in ("calm", "corr2cause")  # one Chinese reply to Corr2Cause
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


def _full(text: str, names: tuple[str, ...] = ABCDE, **more: object) -> list[tuple[object, ...]]:
    return [(c.kind.value, c.variables, c.polarity, c.given, text[slice(*c.span)])
            for c in read_chinese(text, names, **more)]  # type: ignore[arg-type]


def test_any_node_is_each_other_variable() -> None:
    """"任何节点" ranges over the item's other variables: one claim each, at one span."""
    assert _full("E没有导致任何节点。") == [
        ("cause", (4, v), False, (), "E没有导致任何节点") for v in (0, 1, 2, 3)]
    assert _full("没有节点导致A，任何节点都不是B的父节点。") == [
        *(("cause", (v, 0), False, (), "没有节点导致A") for v in (1, 2, 3, 4)),
        *(("edge", (v, 1), False, (), "任何节点都不是B的父节点") for v in (0, 2, 3, 4))]
    assert _full("A没有父节点。E不是任何节点的祖先节点。所有节点都是A的后代。") == [
        *(("edge", (v, 0), False, (), "A没有父节点") for v in (1, 2, 3, 4)),
        *(("cause", (4, v), False, (), "E不是任何节点的祖先节点") for v in (0, 1, 2, 3)),
        *(("cause", (0, v), True, (), "所有节点都是A的后代") for v in (1, 2, 3, 4))]
    assert [c[:3] for c in _full("A与任何节点都不相邻。", ("A", "B"))] == [
        ("adjacent", (0, 1), False)]
    # hedged, asked, "not all" (which no claim of one variable says), a bare 节点 with
    # no 没有 before it: no claim
    assert _full("E可能没有导致任何节点。E是否导致任何节点？并非所有节点都导致A。"
                 "E没有导致所有节点。节点导致A。A有父节点。") == []


def test_any_node_in_a_checked_reply() -> None:
    """A false "any node" claim is false in the place where it fails, with the witness."""
    prompt = ("给定如下因果图：A导致E, A导致D, A导致F, B导致D, B导致F, C导致E, 以及D导致E。\n"
              "问题：E是F的祖先节点吗？\n答案（是或否？）：")
    r = co.check_reasoning(prompt, "D没有子节点。E没有导致任何节点。")
    false = [c for c in r.claims if c.verdict.value == "false"]
    assert [(c.text, c.why) for c in false] == [("D没有子节点", false[0].why)]
    assert "the edge is D→E" in false[0].why
    assert {c.verdict.value for c in r.claims if c.text == "E没有导致任何节点"} == {"true"}


def test_d_separation() -> None:
    assert _full("A和B被C d-分离。给定C，A和B是d-分离的。A和B d分离。C d-分离了A和B。") == [
        ("d_separation", (0, 1), True, (2,), "A和B被C d-分离"),
        ("d_separation", (0, 1), True, (2,), "给定C，A和B是d-分离的"),
        ("d_separation", (0, 1), True, (), "A和B d分离"),
        ("d_separation", (0, 1), True, (2,), "C d-分离了A和B")]
    assert _full("A和B没有被{C, D}d-分离。A和B不是d-分离的。A和B是d-连通的。") == [
        ("d_separation", (0, 1), False, (2, 3), "A和B没有被{C, D}d-分离"),
        ("d_separation", (0, 1), False, (), "A和B不是d-分离的"),
        ("d_separation", (0, 1), False, (), "A和B是d-连通的")]
    # hedged or asked; "分离" without d; "D分离" where D is a variable is no d-word
    assert _full("A和B可能被C d-分离。A和B是d-分离的吗？A和B被C分离。A和B被D分离。") == []


def test_probabilities_in_words() -> None:
    assert _full("当A为1时，B=1的概率为0.5。在A为0的条件下，B为1的概率是0.43。") == [
        ("number", (), True, (), "当A为1时，B=1的概率为0.5"),
        ("number", (), True, (), "在A为0的条件下，B为1的概率是0.43")]
    claims = read_chinese("A为1时B为0的概率为0.2。非A且B的概率是30%。B的概率是0.3。", ABCDE)
    assert [(c.quantity.event, c.quantity.given, c.number) for c in claims
            if c.quantity is not None] == [(((1, 0),), ((0, 1),), 0.2),
                                           (((0, 0), (1, 1)), (), 0.3), (((1, 1),), (), 0.3)]
    # value words only with the item's own values ("低" is A's value 0 where it says so)
    words = "在A为低的条件下，B为高的概率是0.43。"
    assert _full(words) == []
    got = read_chinese(words, ABCDE, values={0: ("低", "高"), 1: ("高", "低")})
    assert [(c.quantity.event, c.quantity.given) for c in got if c.quantity] == [
        (((1, 0),), ((0, 0),))]
    # "当" joins the clause after it only as a condition ("当…时"), not "当然，…"
    assert _read("当然，A导致B。当前，A导致B。") == [("cause", (0, 1), True)] * 2
    # hedged; a value no variable has; the variable in its own condition
    assert _full("如果A为1，B为1的概率可能是0.5。A为2时B为1的概率为0.3。"
                 "当A为1时，A为1的概率为1。") == []


def test_json_final_answer() -> None:
    assert _full('因此答案为{"ANSWER":"是","PROB":"0.2076"}。{"answer": "否"}') == [
        ("answer", (), True, (), '答案为{"ANSWER":"是","PROB":"0.2076"}'),
        ("answer", (), False, (), '{"answer": "否"}')]
    # asked, hedged, a key that is no answer's
    assert _full('答案是{"ANSWER":"是"}吗？答案可能是{"ANSWER":"否"}。{"PROB":"是"}') == []


def test_class_size() -> None:
    got = read_chinese("等价类中有3个图。马尔可夫等价类的大小为2。等价类由4个DAG组成。", ABCDE)
    assert [(c.kind.value, c.number) for c in got] == [
        ("class_size", 3.0), ("class_size", 2.0), ("class_size", 4.0)]
    assert _full("等价类可能有3个图。等价类有几个图？等价类中有很多图。") == []
    prompt = ("Premise: Suppose there is a closed system of 3 variables, A, B and C. All the "
              "statistical relations among these 3 variables are as follows: A correlates with "
              "B. A correlates with C. B correlates with C. However, B and C are independent "
              "given A.\nHypothesis: A directly causes B.")
    r = co.check_reasoning(prompt, "等价类中有3个图。马尔可夫等价类的大小为1。")
    assert [(c.verdict.value, c.why) for c in r.claims] == [
        ("true", "the class has 3 member(s)"), ("false", "the class has 3 member(s)")]


def test_new_forms_leave_the_old_ones_alone() -> None:
    """Near misses: a sentence of an older form reads as before."""
    assert _read("A为B的原因。A是B的父节点。B的子节点是C和D。A和B之间没有相关性。") == [
        ("cause", (0, 1), True), ("edge", (0, 1), True), ("edge", (1, 2), True),
        ("edge", (1, 3), True), ("correlation", (0, 1), False)]
