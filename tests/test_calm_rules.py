"""CaLM's own scorer and ``parser.calm_rules`` give every reply the same score.

CaLM's scorer (``evaluation/`` of the shared CaLM data: its labeling and accuracy
modules, Apache-2.0) is imported here, in the test only, and run through its own
``compute_core_metrics`` one item at a time; the reimplementation must give the same
per-item score on every shared Lite record, English and Chinese, for gold-derived
replies in many styles, wrong replies, junk and Chinese replies — and the same label on
random replies built from the phrases both read.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from causal_oracle.oracle.errors import InputError
from causal_oracle.parser import calm_rules_phrases as ph
from causal_oracle.parser.calm_rules import (
    TASKS,
    CalmReading,
    calm_correct,
    calm_label,
    calm_task,
)
from causal_oracle.parser.calm_rules_json import quote_bare_words

HERE = Path(__file__).resolve().parent
#: CaLM's sample and its own scorer, copied into tests/data (Apache-2.0, LICENSE beside
#: them); the shared folder when a checkout lacks the copy
CALM = next((p for p in (HERE / "data" / "calm",
                         *(q / "shared" / "data" / "calm" for q in HERE.parents))
             if (p / "evaluation").is_dir()), None)
#: the CLadder-derived tasks' sample, kept in a folder of its own
CLADDER_LITE = HERE / "data" / "calm_cladder" / "lite_sample"
pytestmark = pytest.mark.skipif(
    CALM is None, reason="CaLM's own scorer (tests/data/calm/evaluation) is not in this "
                         "checkout")

STYLES = ("basic", "manual-CoT")


@pytest.fixture(scope="module")
def calm_scorer() -> Any:
    """CaLM's ``evaluation.core_metrics`` (a namespace package in the shared folder)."""
    assert CALM is not None
    sys.path.insert(0, str(CALM))
    try:
        return importlib.import_module("evaluation.core_metrics")
    finally:
        sys.path.remove(str(CALM))


def _records() -> Iterator[tuple[str, dict[str, Any]]]:
    if CALM is None:
        return
    folders = [CALM / "lite_sample"]
    if CLADDER_LITE.is_dir() and CALM.parent == CLADDER_LITE.parent.parent:
        folders.append(CLADDER_LITE)
    for path in sorted(p for folder in folders for p in folder.glob("*.json")):
        for line in path.read_text(encoding="utf-8").splitlines():
            yield path.stem, json.loads(line)


RECORDS = list(_records())


def _calm_score(scorer: Any, task: str, record: dict[str, Any], reply: str,
                style: str) -> bool:
    item = {**record, "model_response": reply}  # CaLM keeps the record beside the reply
    metrics, _ = scorer.compute_core_metrics([item], task, style, [record])
    return bool(metrics["Accuracy"] == 1)


def _calm_label(scorer: Any, task: str, record: dict[str, Any], reply: str,
                style: str) -> Any:
    _, get_pred, _ = scorer.initialize_core_metric_evaluation_components(task)
    return get_pred(reply, record, style, task.split("-")[0])


# ---- replies -------------------------------------------------------------------------------

YES = ("Answer (Yes or No ?): Yes", "yes", "Yes.", "The answer is yes.", "答案（是或否？）：是",
       "是的，会。", "After reasoning step by step, the answer is: Yes", '"yes"',
       "Therefore, yes", "答案是：是", "答案为“是”。", "有")
NO = ("Answer (Yes or No ?): No", "no", "No.", "The answer is no.", "答案（是或否？）：否",
      "否", "After reasoning step by step, the answer is: No", '"no"', "Thus, no",
      "答案是：否", "答案为“否”。", "无")
JUNK = ("", "   ", "I don't know.", "{}", "yes and no", "答案是:否 but the answer is yes",
        "option 1 or option 2", "{{{{", "}}}}", '{"answer": }', '{"prob": "x"}', "是否",
        "The answer (yes or no?) depends.", "否则是", "答案: 是 ... 答案: 否")


def _yes_no_replies(gold: int) -> list[str]:
    right, wrong = (YES, NO) if gold == 1 else (NO, YES)
    return [*right, *wrong, *JUNK]


def _option_replies(record: dict[str, Any], gold: int) -> list[str]:
    words = {1: ("一", "one"), 2: ("二", "two"), 3: ("三", "three")}
    out = []
    for n in (gold, gold % 3 + 1):
        cn, en = words[n]
        text = str(record.get(f"option{n}", ""))
        out += [f"Answer (option 1 or 2 or 3?): option {n}", f"option {n}", f"Option {en}.",
                f"The correct answer is option {n}", f"答案（选项一或选项二或选项三？）：选项{cn}",
                f"答案是选项{cn}", text, text[:-1], f"answer (option 1 or 2 or 3?): {text}",
                f"I think the correct option is {n}.", f"选择选项{cn}，因为正确答案是它",
                f"It is {n}", str(n)]
    return [*out, *JUNK, "option 1 option 2 option 3", "选项一 选项二 选项三"]


def _story_replies(gold: str) -> list[str]:
    gold_word = gold.strip()
    other = {"yes": "No", "no": "Yes", "是": "否", "否": "是"}[gold_word.lower()]
    out = []
    for word in (gold_word, other):
        out += [f'{{"answer": "{word}"}}', f"{{'answer': '{word}'}}", f'{{"ANSWER":"{word}"}}',
                f'Step by step... so {{"answer": {word}}}', f'{{{{"answer": "{word}"}}}}',
                f'{{"answer": “{word}”}}', f'prefix {{"reason": 1}} {{"answer": "{word}"}}',
                f'{{"answer":"{word}"', f"Answer: {word}", word]
    return [*out, *JUNK]


def _prob_replies(gold: float) -> list[str]:
    values = [f"{gold:.4f}", repr(gold), f"{gold:.6f}", f"{round(gold, 4)}", f"{gold + 0.01:.4f}",
              f"{gold:.2f}", "0", "0.0", "1"]
    out = []
    for v in values:
        out += [f'{{"ANSWER": "Yes", "PROB": "{v}"}}', f'{{"prob": {v}}}', f"{{'prob': '{v}'}}",
                f'Reasoning.\n{{"answer": "no", "prob": {v}}}', f'{{{{"PROB": "{v}"}}}}',
                f'{{"prob": {v}}}}}', f"{{prob: {v}}}", f'{{"prob": “{v}”}}',
                f"The probability is {v}."]
    return [*out, *JUNK, '{"prob": 1e400}', '{"prob": "nan"}', '{"prob": true}',
            '{"prob": [0.5]}', '{"prob": "  0.5 "}']


def _replies(task: str, record: dict[str, Any]) -> list[str]:
    reading = calm_task(task).reading
    gold = record["gt_answer"]
    if reading is CalmReading.YES_NO:
        return _yes_no_replies(gold if isinstance(gold, int) else int(gold == "yes"))
    if reading is CalmReading.OPTION:
        return _option_replies(record, int(gold))
    if reading is CalmReading.JSON_ANSWER:
        return _story_replies(gold)
    return _prob_replies(float(gold))


# ---- the comparison ------------------------------------------------------------------------

def test_the_sample_covers_every_reading_in_both_languages() -> None:
    seen = {(calm_task(task).reading, task[-2:]) for task, _ in RECORDS}
    assert seen == {(r, lang) for r in CalmReading for lang in ("EN", "CN")}
    assert {calm_task(task).key for task, _ in RECORDS} == {t.key for t in TASKS.values()}
    assert len({task for task, _ in RECORDS}) == 2 * len(TASKS)


@pytest.mark.parametrize("style", STYLES)
def test_every_reply_scores_as_calms_own_scorer_scores_it(calm_scorer: Any,
                                                          style: str) -> None:
    compared = right = 0
    mismatches = []
    for task, record in RECORDS:
        if style != "basic" and calm_task(task).reading in (CalmReading.YES_NO,
                                                            CalmReading.OPTION):
            continue  # only the JSON readings look at the prompt style
        for reply in _replies(task, record):
            theirs = _calm_score(calm_scorer, task, record, reply, style)
            ours = calm_correct(task, record, reply, style)
            compared += 1
            right += ours
            if ours != theirs:
                mismatches.append((task, record.get("index"), reply, theirs, ours))
    assert not mismatches, mismatches[:10]
    assert compared > 2000
    assert 0.1 < right / compared < 0.5  # right, wrong and unread replies all met


def test_gold_said_plainly_scores_right_on_every_record(calm_scorer: Any) -> None:
    """One gold-derived reply per record, as a model completes CaLM's basic prompt
    (which ends with the answer line, e.g. "Answer (Option 1 or Option 2 or Option 3
    ?):"), right by both."""
    for task, record in RECORDS:
        reading = calm_task(task).reading
        gold = record["gt_answer"]
        cn = task.endswith("_CN")
        if reading is CalmReading.YES_NO:
            yes = gold in (1, "yes")
            reply = ("是" if yes else "否") if cn else ("Yes" if yes else "No")
        elif reading is CalmReading.OPTION:
            reply = f"选项{'一二三'[int(gold) - 1]}" if cn else f"Option {gold}"
        elif reading is CalmReading.JSON_ANSWER:
            reply = f'{{"answer": "{gold}"}}'
        else:
            reply = f'{{"ANSWER": "Yes", "PROB": "{gold:.4f}"}}'
        assert calm_correct(task, record, reply), (task, record["index"], reply)
        assert _calm_score(calm_scorer, task, record, reply, "basic"), (task, reply)


def test_a_reply_that_repeats_the_answer_line_reads_as_option_1_as_in_calm(
        calm_scorer: Any) -> None:
    """CaLM finds "option 1" inside the repeated line "(option 1 or 2 or 3?)" first."""
    task, record = next((t, r) for t, r in RECORDS if t == "BAS-C_max-BAS_EN")
    reply = "Answer (option 1 or 2 or 3?): option 3"
    assert calm_label(calm_task(task), reply, record) == 1
    assert _calm_label(calm_scorer, task, record, reply, "basic") == 1


def test_a_zero_written_as_a_json_number_reads_as_no_answer_as_in_calm(
        calm_scorer: Any) -> None:
    """CaLM counts a ``prob`` only when it is truthy: 0 and 0.0 as numbers are unread."""
    task, record = next((t, r) for t, r in RECORDS
                        if calm_task(t).reading is CalmReading.JSON_PROB
                        and r["gt_answer"] == 0)
    for reply, expected in (('{"prob": 0}', False), ('{"prob": 0.0}', False),
                            ('{"prob": "0"}', True), ('{"prob": "0.0000"}', True)):
        assert calm_correct(task, record, reply) is expected
        assert _calm_score(calm_scorer, task, record, reply, "basic") is expected


# ---- random replies: labels, not only scores ------------------------------------------------

FRAGMENTS = sorted({*ph.YES_PHRASES[:60], *ph.NO_PHRASES[:60], *ph.CEI_YES_PHRASES[:12],
                    *ph.CLADDER_NO_PHRASES, *ph.OPTION_1_PHRASES[:20], *ph.OPTION_2_PHRASES[:20],
                    *ph.OPTION_3_PHRASES[:20], "yes", "no", "是", "否", "不是", "会导致",
                    "不会导致", "causes", "is an ancestor of", "is the parent of", "祖先节点",
                    "父节点", "正确答案", "选项一", "选项二", "选项三", "option 1", "option 2",
                    "answer (option 1 or 2 or 3?): ", "answer (yes or no?): ", "a, c", "b",
                    "{", "}", "{{", "}}}", '"answer":', '"prob":', "'prob':", "0.1234", "0",
                    ",", ":", " ", "\n", "“", "”", "yes_1", "答案（是或否？）：", "Yes", "NO"})
REPLY = st.lists(st.sampled_from(FRAGMENTS), max_size=8).map("".join)
LABEL_TASKS = ("AR-B_CaLM-AR_EN", "CA-B_FA_CN", "CA-B_FP_EN", "CEI-B_0.4-UC_EN",
               "CORR-B_correlation_CN", "BAS-C_min-BAS_EN", "IV-C_CaLM-IV_CN",
               "ATE-B_ATE-natural_EN", "NDE-P_NDE-hard_CN", "PS-P_PS-basic_EN")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reply=REPLY, which=st.integers(0, len(LABEL_TASKS) - 1),
       style=st.sampled_from(STYLES))
def test_random_replies_get_calms_label(calm_scorer: Any, reply: str, which: int,
                                        style: str) -> None:
    task = LABEL_TASKS[which]
    record = next(r for t, r in RECORDS if t == task)
    theirs = _calm_label(calm_scorer, task, record, reply, style)
    ours = calm_label(calm_task(task), reply, record, style)
    assert ours == theirs or (ours != ours and theirs != theirs), (reply, theirs, ours)


_CALM_QUOTES = re.compile(r'(?<=[:,])\s*([\w_]+)\s*(?=[,:\]})])')


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(':,]}{ \t\nab_1é是"\'.')), max_size=40))
def test_bare_words_are_quoted_as_calms_regex_quotes_them(text: str) -> None:
    assert quote_bare_words(text) == _CALM_QUOTES.sub(r' "\1" ', text)


def test_a_long_reply_is_read_in_linear_time() -> None:
    """A reply built to make a backtracking reader rescan (a long run of opening braces,
    colons before long words, yes/no phrase fragments) is read quickly all the same."""
    import time
    record = {"gt_answer": 0.5, "option1": "a", "option2": "b", "option3": "c"}
    nasty = ("{" * 20000 + ": " + "a" * 20000 + " , " * 5000 + "answer (yes or no" * 2000)
    start = time.perf_counter()
    for task in ("AR-B_CaLM-AR_EN", "BAS-C_min-BAS_EN", "ATE-P_ATE-basic_EN",
                 "ATE-B_ATE-natural_EN"):
        calm_correct(task, {**record, "gt_answer": 1 if task.startswith(("AR", "BAS"))
                            else "yes" if "natural" in task else 0.5}, nasty)
    assert time.perf_counter() - start < 5.0  # loose: a quadratic reader takes minutes


def test_bad_records_and_task_names_are_input_errors() -> None:
    with pytest.raises(InputError, match="not a formal CaLM task"):
        calm_task("ECI-B_CTB_EN")
    with pytest.raises(InputError, match="gt_answer"):
        calm_correct("AR-B_CaLM-AR_EN", {}, "yes")
    with pytest.raises(InputError, match="'yes' or 'no'"):
        calm_correct("CORR-B_correlation_EN", {"gt_answer": "maybe"}, "yes")
    with pytest.raises(InputError, match="option2"):
        calm_correct("FAS-C_FAS_EN", {"gt_answer": 1, "option1": "A", "option3": "B"}, "1")
    assert calm_task("calm_CEI-B_0.2-UC_CN").key == "CEI-B_0.2-UC"
