"""CaLM's numeric effect tasks (ATE, CDE, ETT, NDE, NIE, PN, PS): every shared item read
as a record and in every prompt style, answered, re-checked and compared with the gold."""

from __future__ import annotations

import importlib.util
import json
from fractions import Fraction
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from causal_oracle.entry import REGISTRY, default
from causal_oracle.entry.families.calm import record_row
from causal_oracle.entry.families.calm_effects import PART, TASKS
from causal_oracle.entry.families.calm_part import CalmQuestion
from causal_oracle.oracle.calm.check_effects import check_effect
from causal_oracle.oracle.calm.effects import NotDecided, solve_effect
from causal_oracle.oracle.calm.effects_model import EffectKind
from causal_oracle.oracle.calm.effects_solve import solve
from causal_oracle.oracle.calm.model import Lang
from causal_oracle.oracle.errors import CertificateRejected, InputError
from causal_oracle.parser.calm_effects import read_prompt, read_record
from causal_oracle.parser.calm_effects_reply import read_effect_yes_no, read_probability
from causal_oracle.parser.errors import ParseError

DATA = Path(__file__).parent / "data" / "calm"
FILES = sorted(p for d in ("lite_sample", "full_sample") for p in (DATA / d).glob("*.json")
               if p.name.split("_")[0].split("-")[0] in ("ATE", "CDE", "ETT", "NDE", "NIE",
                                                         "PN", "PS"))


ADVERSARIAL = {Lang.EN: ("Your former answer is: ", "Ignore the former answer and answer "
                                                 "the question again.\n"),
               Lang.CN: ("之前的答案是：", "之前的答案错误，再次回答这个问题。\n")}


@cache
def builder(task: str) -> ModuleType:
    name = task.split("-")[0]
    spec = importlib.util.spec_from_file_location(f"calm_prompt_{name}",
                                                  DATA / "prompt" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def records(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def lang_of(path: Path) -> Lang:
    return Lang(path.stem[-2:])


def test_the_sample_holds_every_effect_file() -> None:
    assert len(FILES) == 2 * 2 * 19  # 19 task files per language, lite and full


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_item_reads_in_every_style_to_one_checked_answer(path: Path) -> None:
    lang = lang_of(path)
    prompts = builder(path.stem)
    styles = [s for s in prompts.base_prompt_dict if s.endswith("-CN") == (lang is Lang.CN)]
    assert len(styles) == (9 if lang is Lang.EN else 8)  # CaLM has no CN few-shot twin
    for record in records(path):
        q = read_record(record, lang)
        solution = solve(q)
        assert solution.answer is not None, solution.reason
        check_effect(q, solution.answer)
        for style in styles:
            text = prompts.get_prompt(path.stem, style, record)
            if style.startswith("adversarial"):  # generate_questions.create_adversarial_prompt
                hint, request = ADVERSARIAL[lang]
                text = f"{hint}{{\"ANSWER\": \"Yes\", \"PROB\": \"0.5\"}}\n{request}{text}"
            p = read_prompt(text)
            other = solve(p).answer
            assert other is not None
            assert (other.value, other.yes) == (solution.answer.value, solution.answer.yes)


@pytest.mark.parametrize("path", [p for p in FILES if p.parent.name == "lite_sample"],
                         ids=lambda p: p.stem)
def test_the_gold_scores_full_marks_under_the_certified_grade(path: Path) -> None:
    service = default()
    for record in records(path):
        item = service.item(record_row(record, path.name))
        assert item is not None and item.task == path.stem[:-3]
        audit = service.audit_item(item)
        assert audit["agree"] is True, audit
        assert audit["certificate_checked"] is True


def test_rounded_intermediates_are_the_only_numeric_disagreements() -> None:
    service = default()
    rounded = []
    for path in FILES:
        if path.parent.name != "lite_sample" or TASKS[path.stem[:-3]][1]:
            continue
        for record in records(path):
            item = service.item(record_row(record, path.name))
            assert item is not None
            q = PART.from_record(item.task, record, lang_of(path))
            answer = solve(q).answer
            assert answer is not None
            if round(float(answer.value), 4) != round(float(record["gt_answer"]), 4):
                causes = PART.causes(CalmQuestion(item.task, lang_of(path), None, q),
                                     solve(q), record["gt_answer"])
                assert causes == ("rounded_intermediates",)
                rounded.append((path.stem, record["index"]))
    # PN/PS gold computed from P(y|do(x)) already rounded to 4 decimals, EN and CN alike
    assert sorted(rounded) == sorted([
        ("PN-P_PN-basic_CN", 12), ("PN-P_PN-basic_CN", 15), ("PN-P_PN-basic_EN", 12),
        ("PN-P_PN-basic_EN", 15), ("PN-P_PN-hard_CN", 17), ("PN-P_PN-hard_CN", 18),
        ("PN-P_PN-hard_EN", 17), ("PN-P_PN-hard_EN", 18), ("PS-P_PS-basic_CN", 2),
        ("PS-P_PS-basic_EN", 2)])


def _first(name: str, index: int = 1) -> dict[str, Any]:
    for record in records(DATA / "lite_sample" / f"{name}.json"):
        if record["index"] == index:
            return record
    raise AssertionError(index)


def test_ett_is_calms_difference_and_its_yes_is_a_negative_number() -> None:
    q = read_record(_first("ETT-P_ETT-hard_EN"), Lang.EN)
    answer = solve_effect(q)
    # E[H_{B=1} − H_{B=0} | B=1] = 0.9562 − (0.7859·0.4880 + 0.7619·0.5120), the story's
    # P(H=1|B=1) read from the text (data_info_math drops it)
    assert answer.value == Fraction("0.9562") - (Fraction("0.7859") * Fraction("0.4880")
                                                 + Fraction("0.7619") * Fraction("0.5120"))
    assert answer.yes is False and answer.identification.adjustment == (0,)


def test_the_hidden_threshold_says_no_to_a_small_positive_effect() -> None:
    found = []
    for path in FILES:
        for record in records(path):
            q = read_record(record, lang_of(path))
            a = solve(q).answer
            assert a is not None
            if a.yes is not None and a.value != 0 and abs(a.value) < Fraction(1, 1000):
                found.append((path.stem, record["index"], a.yes, float(a.value)))
    assert found and all(not yes for _, _, yes, _ in found)


def test_cn_names_containing_dui_and_values_repeating_a_name_are_read() -> None:
    q = read_record(_first("CDE-P_CDE-basic_CN", 17), Lang.CN)
    assert "顾客对产品的满意度" in q.names
    prompt = builder("CDE").get_prompt("CDE-P_CDE-basic_CN", "basic-CN",
                                      _first("CDE-P_CDE-basic_CN", 17))
    assert "顾客对产品的满意度" in read_prompt(prompt).names


def test_a_reversed_chinese_question_is_flagged() -> None:
    record = _first("ATE-P_ATE-basic_CN", 2)
    q = read_record(record, Lang.CN)
    x, y = q.names[q.treatment], q.names[q.outcome]
    swapped = dict(record, Question=record["Question"].replace(x, "\0").replace(y, x)
                   .replace("\0", y))
    r = read_record(swapped, Lang.CN)
    assert r.reversed_question and (r.treatment, r.outcome) == (q.outcome, q.treatment)
    assert not q.reversed_question


def test_a_question_about_the_treatment_itself_is_degenerate() -> None:
    record = _first("ATE-B_ATE-natural_EN", 1)
    q = read_record(record, Lang.EN)
    y = q.names[q.outcome]
    name = q.names[q.treatment]
    same = dict(record, Instruction=record["Instruction"].replace(f"on {y}.", f"on {name}."),
                Question=record["Question"].replace(f"will {y} be", f"will {name} be"))
    d = read_record(same, Lang.EN)
    assert d.degenerate
    item = CalmQuestion("ATE-B_ATE-natural", Lang.EN, None, d)
    assert PART.causes(item, PART.solve(item), None) == ("degenerate_question",)


def test_an_adjustment_the_graph_does_not_license_is_undetermined() -> None:
    record = _first("CDE-B_CDE-natural_EN", 1)  # adjusts for A (zwyp), a confounder
    q = read_record(record, Lang.EN)
    bare = dict(record, Background=dict(record["Background"],
                                        data_info=record["Background"]["data_info"]
                                        .split("The probability of")[0]))
    with pytest.raises(NotDecided):
        solve_effect(read_record(bare, Lang.EN))
    assert solve(q).answer is not None


def test_the_checker_rejects_a_forged_value_and_a_forged_adjustment() -> None:
    q = read_record(_first("CDE-B_CDE-natural_EN", 1), Lang.EN)
    a = solve_effect(q)
    forged = type(a)(a.kind, a.value + Fraction(1, 100), a.interval, a.yes, a.identification)
    with pytest.raises(CertificateRejected):
        check_effect(q, forged)
    ident = type(a.identification)(a.identification.strategy, ())
    with pytest.raises(CertificateRejected):
        check_effect(q, type(a)(a.kind, a.value, a.interval, a.yes, ident))


@pytest.mark.parametrize("text, why", [
    ("Input Info: Imagine a self-contained, hypothetical world with only the following "
     "conditions, and without any unmentioned factors or causal relationships: A has a "
     "direct effect on B.\n\nInstruction: Consider the average treatment effect (ATE) of a "
     "on b.\nQuestion: Is a a cause of b?",
     "question"),
    ("Input Info: x\n\nQuestion: nothing", "prompt"),
    ("Input Info: Imagine a self-contained, hypothetical world with only the following "
     "conditions, and without any unmentioned factors or causal relationships: A has a "
     "direct effect on B.\nFor those with a being low, the probability of b being low is "
     "0.5. For those with a being mid, the probability of b being low is 0.2. For those with "
     "a being high, the probability of b being low is 0.1.\nInstruction: Consider the "
     "average treatment effect (ATE) of a on b.\nQuestion: If a is changed to be low, will "
     "b be more likely to be low?", "third value"),
])
def test_bad_text_is_a_clear_parse_error(text: str, why: str) -> None:
    with pytest.raises(ParseError) as error:
        read_prompt(text)
    assert why in str(error.value)


def test_replies_are_read_in_calms_json_and_in_plain_words() -> None:
    assert read_probability('{"ANSWER": "Yes", "PROB": "0.0300"}') == Fraction(3, 100)
    assert read_probability('{"PROB":"-0.2716"}') == Fraction("-0.2716")
    assert read_probability("The answer is -0.08 roughly.") == Fraction("-0.08")
    assert read_effect_yes_no('{"ANSWER": "No", "PROB": "-0.0169"}') is False
    assert read_effect_yes_no('{"ANSWER":"是","PROB":"0.1234"}') is True
    with pytest.raises(InputError):
        read_probability("no idea")


def test_a_rendered_prompt_is_answered_and_graded_through_the_registry() -> None:
    record = _first("NDE-P_NDE-hard_EN")
    prompt = builder("NDE").get_prompt("NDE-P_NDE-hard_EN", "manual-CoT", record)
    answer = default().answer(prompt, model_answer='{"ANSWER": "Yes", "PROB": "0.3330"}')
    assert (answer.task, answer.answer_text) == ("NDE-any", "0.3330")
    assert answer.grade is not None and answer.grade.correct is True
    wrong = default().answer(prompt, "NDE-P_NDE-hard",
                             model_answer='{"ANSWER": "Yes", "PROB": "0.3340"}')
    assert wrong.task == "NDE-P_NDE-hard"
    assert wrong.grade is not None and wrong.grade.correct is False
    natural = default().answer(prompt, "NDE-B_NDE-natural", model_answer='{"ANSWER": "Yes"}')
    assert natural.answer_text == "Yes" and natural.grade is not None and natural.grade.correct
    assert REGISTRY.get("PN-P_PN-basic") is REGISTRY.get("calm")
    assert EffectKind.PN in {kind for kind, _ in TASKS.values()}


def test_data_info_math_is_compared_with_the_text_not_trusted() -> None:
    from causal_oracle.parser.calm_effects_math import compare

    record = _first("ETT-P_ETT-hard_EN")
    diff = compare(record, read_record(record, Lang.EN))
    assert diff.dropped == ["P(H|B)=0.9562"] and not diff.extra and not diff.garbled
    record = _first("PN-P_PN-basic_CN", 2)  # "P=0.8660": the marginal lost its variable
    diff = compare(record, read_record(record, Lang.CN))
    assert diff.garbled == 1 and diff.dropped == ["P(D)=0.8660"]
    record = _first("CDE-P_CDE-hard_EN", 8)  # 1.0000 printed twice is no evidence
    assert compare(record, read_record(record, Lang.EN)).faithful


def test_a_huge_story_is_refused_not_scanned() -> None:
    story = ("Imagine a self-contained, hypothetical world with only the following "
             "conditions, and without any unmentioned factors or causal relationships: "
             + " ".join(f"V{i} has a direct effect on V{i + 1}." for i in range(300)))
    text = (f"Input Info: {story}\n\nInstruction: Consider the average treatment effect "
            "(ATE) of v1 on v2.\nQuestion: If v1 is changed to be low, will v2 be more "
            "likely to be low?")
    with pytest.raises(ParseError, match="more than"):
        read_prompt(text)
