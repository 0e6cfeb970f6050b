"""The CaLM family's skeleton: registration, dispatch to parts, rows, prompts, replies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from causal_oracle.entry import REGISTRY, default
from causal_oracle.entry.families.calm import PARTS, part_of, record_row, split_task
from causal_oracle.entry.families.calm_part import CalmPart, CalmQuestion
from causal_oracle.entry.registry import Options
from causal_oracle.oracle.calm.model import Lang
from causal_oracle.oracle.errors import InputError
from causal_oracle.parser.calm_prompt import Style, language_of, split_prompt
from causal_oracle.parser.calm_reply import read_option, read_yes_no

DATA = Path(__file__).parent / "data" / "calm"
CA = ("You will be presented with a causal graph in the following form: A causes B, and B "
      "causes C.\nQuestion: Does A serve as the ancestor node of C?\nAnswer (Yes or No ?):")


def _first(name: str) -> dict[str, Any]:
    with (DATA / "lite_sample" / f"{name}.json").open(encoding="utf-8") as handle:
        return dict(json.loads(handle.readline()))


def test_registered_first_with_every_part_task() -> None:
    family = REGISTRY.get("calm")
    assert REGISTRY.names()[0] == "calm"
    assert REGISTRY.get("CEI-B_0.2-UC") is family and REGISTRY.get("bas-c_min-bas") is family
    owned = [t for part in PARTS for t in part.tasks]
    assert len(owned) == len(set(owned)) == len(family.tasks)
    assert all(isinstance(p, CalmPart) for p in PARTS)


def test_a_prompt_is_detected_and_answered_end_to_end() -> None:
    answer = default().answer(CA, model_answer="答案：是")
    assert (answer.task, answer.answer_text) == ("CA-B_FA", "Yes")
    assert answer.grade is not None and answer.grade.correct is True


def test_other_families_texts_are_not_claimed() -> None:
    family = REGISTRY.get("calm")
    assert not family.detect("Given a DAG (directed acyclic graph) with nodes A, B and "
                             "directed edges A->B. Is there a directed path from A to B?")
    assert not family.detect("Premise: A correlates with B.\nHypothesis: A causes B.")


def test_a_record_row_is_claimed_with_its_task_language_and_gold() -> None:
    raw = record_row(_first("CEI-B_0.4-UC_CN"), "lite_sample/CEI-B_0.4-UC_CN.json")
    item = default().item(raw)
    assert item is not None and item.family == "calm"
    assert item.task == "CEI-B_0.4-UC" and item.key == "CEI-B_0.4-UC_CN:1"
    assert item.gold == raw["gt_answer"] and item.binary == raw["gt_answer"]
    assert item.prompt.startswith("给定如下因果图：")
    question, _ = default().solved(REGISTRY.get("calm"), item.prompt, Options(item.task))
    assert isinstance(question, CalmQuestion) and question.lang is Lang.CN
    assert question.style is Style.BASIC


def test_a_record_without_task_is_claimed_only_when_its_fields_say_which() -> None:
    family = REGISTRY.get("calm")
    assert family.row(_first("CA-B_FP_EN")) is not None  # its fields name the task
    assert family.row(_first("BAS-C_min-BAS_EN")) is None  # shared by the choice tasks
    assert family.row({"index": 1, "task": "CP"}) is None  # CI-Bench's task, not CaLM's


def test_task_names_and_parts() -> None:
    assert split_task("IV-C_CaLM-IV_EN") == ("IV-C_CaLM-IV", Lang.EN)
    assert split_task("CA-B_FA") == ("CA-B_FA", None)
    assert part_of("FAS-C_FAS").name == "graph"
    with pytest.raises(InputError, match="no CaLM part"):
        part_of("ECI-B_CTB")


def test_a_bad_gold_and_a_bad_record_say_why() -> None:
    family = REGISTRY.get("calm")
    with pytest.raises(InputError, match="gt_answer"):
        family.row({**_first("FAS-C_FAS_EN"), "task": "FAS-C_FAS_EN", "gt_answer": 7})
    with pytest.raises(InputError, match="edges"):
        family.row({"index": 1, "task": "FAS-C_FAS_EN", "treatment": "A"})


def test_the_full_set_has_no_gold_and_is_still_answered() -> None:
    with (DATA / "full_sample" / "CEI-B_0.4-UC_EN.json").open(encoding="utf-8") as handle:
        raw = record_row(json.loads(handle.readline()), "CEI-B_0.4-UC_EN.json")
    item = default().item(raw)
    assert item is not None and item.gold is None
    record = REGISTRY.get("calm").audit_fields(default(), item, "corr2cause")
    assert "error" not in record and record["derived"] in ("Yes", "No")


def test_prompt_wrapper_and_examples_are_separated() -> None:
    opener = ("Q:",)
    basic = split_prompt("Q: x?\nAnswer:", opener)
    assert (basic.style, basic.examples, basic.item) == (Style.BASIC, (), "Q: x?\nAnswer:")
    adv = split_prompt("Your former answer is: Q: no\nYour former answer is wrong, please "
                       "answer the question again.\nQ: y?\nAnswer:", opener)
    assert adv.style is Style.ADVERSARIAL_DOUBT and adv.item == "Q: y?\nAnswer:"
    cot = split_prompt("Q: z? Let's think step by step.\nAnswer:", opener)
    assert cot.style is Style.ZERO_SHOT_COT and cot.item == "Q: z?\nAnswer:"
    assert language_of("给定") is Lang.CN and language_of("Given") is Lang.EN


def test_a_prompt_without_the_item_is_a_parse_error() -> None:
    with pytest.raises(InputError, match="no item opening"):
        split_prompt("nothing here", ("Q:",))
    with pytest.raises(InputError, match="give the task"):
        REGISTRY.get("calm").parse("nothing CaLM here", Options())


@pytest.mark.parametrize(("reply", "value"), [
    ("Yes", True), ("No.", False), ("否", False), ("答案：是", True),
    ("因此答案为“否”。", False), ("Let me think.\nTherefore, the answer is Yes.", True),
    ('{"answer": "No"}', False), ("<think>yes?</think>No", False)])
def test_yes_no_replies_in_common_forms(reply: str, value: bool) -> None:
    assert read_yes_no(reply) is value


@pytest.mark.parametrize(("reply", "value"), [
    ("Option 2", 2), ("3", 3), ("选项一", 1), ("The answer is Option3.", 3),
    ('{"answer": "Option 1"}', 1), ("答案：选项三", 3)])
def test_option_replies_in_common_forms(reply: str, value: int) -> None:
    assert read_option(reply) == value


@pytest.mark.parametrize("reply", ["maybe", "Option 1 or Option 2", "Option 7", ""])
def test_unreadable_replies_say_why(reply: str) -> None:
    with pytest.raises(InputError, match="cannot parse CaLM answer"):
        read_option(reply) if reply.startswith("Option") else read_yes_no(reply)
