"""CaLM's graph tasks on its own shipped items: every record and every rendered prompt
(each of CaLM's prompt styles, English and Chinese, built by CaLM's own prompt builders,
``tests/data/calm/prompt``) is read, to the same question, and the lite gold is judged."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from dataclasses import replace
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from causal_oracle.entry import REGISTRY, default
from causal_oracle.entry.families.calm import record_row, split_task
from causal_oracle.entry.families.calm_graph import CEI, CEI_ANY, PART
from causal_oracle.entry.families.calm_part import CalmQuestion
from causal_oracle.entry.registry import Options
from causal_oracle.oracle.calm.model import (
    CalmGraph,
    Choice,
    Criterion,
    Identify,
    Lang,
    Relation,
)
from causal_oracle.oracle.errors import InputError
from causal_oracle.parser.calm_prompt import Style

DATA = Path(__file__).parent / "data" / "calm"
BUILDERS = {"AR-B_CaLM-AR": "AR-B_CaLM-AR", "CA-B_FA": "CA-B_FA", "CA-B_FP": "CA-B_FP",
            "BAS-C_min-BAS": "BAS-C_min-BAS", "BAS-C_max-BAS": "BAS-C_max-BAS",
            "BAS-C_mix-BAS": "BAS-C_mix-BAS", "FAS-C_FAS": "FAS-C_FAS",
            "IV-C_CaLM-IV": "IV-C_CaLM-IV", **dict.fromkeys(CEI, "CEI-B")}
#: the graph part's files (the sample folders also hold the other parts' tasks)
FILES = [path for folder in ("lite_sample", "full_sample")
         for path in sorted((DATA / folder).glob("*.json"))
         if path.stem.rsplit("_", 1)[0] in BUILDERS]
#: CaLM templates whose question is not their task's: CN one- and three-shot max-BAS ask
#: for the minimal set (the items' gold is for the maximal one)
ASKS_ANOTHER = {("BAS-C_max-BAS", Lang.CN, Style.ONE_SHOT_ICL),
                ("BAS-C_max-BAS", Lang.CN, Style.THREE_SHOT_ICL)}
#: CaLM's adversarial wrapper (generate_questions.create_adversarial_prompt), verbatim
HINT = {Lang.EN: "Your former answer is: ", Lang.CN: "之前的答案是："}
REQUEST = {"adversarial-ignore": "Ignore the former answer and answer the question again.\n",
           "adversarial-doubt": "Your former answer is wrong, please answer the question "
                                "again.\n",
           "adversarial-ignore-CN": "忽略之前的答案，再次回答这个问题。\n",
           "adversarial-doubt-CN": "之前的答案错误，再次回答这个问题。\n"}


@cache
def builder(module: str) -> ModuleType:
    path = DATA / "prompt" / f"{module}.py"
    spec = importlib.util.spec_from_file_location(f"calm_{module}", path)
    assert spec is not None and spec.loader is not None
    out = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(out)
    return out


def records(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def rendered(task: str, lang: Lang, style: Style, record: dict[str, Any],
             former: str) -> str:
    key = style.key(lang)
    prompt = str(builder(BUILDERS[task]).get_prompt(task_name=f"{task}_{lang.value}",
                                                    prompt_style=key, item=record))
    if style in (Style.ADVERSARIAL_IGNORE, Style.ADVERSARIAL_DOUBT):
        prompt = f"{HINT[lang]}{former}\n{REQUEST[key]}{prompt}"
    return prompt


def shape(graph: CalmGraph) -> tuple[frozenset[tuple[str, str]], frozenset[frozenset[str]]]:
    """A graph up to its vertex order (isolated vertices are not in a prompt's text)."""
    return (frozenset(graph.directed_edges()),
            frozenset(frozenset(e) for e in graph.bidirected_edges()))


def same(a: Relation | Identify | Choice, b: Relation | Identify | Choice) -> bool:
    fields = [f for f in a.__slots__ if f != "graph"]  # type: ignore[attr-defined]
    return type(a) is type(b) and shape(a.graph) == shape(b.graph) and all(
        getattr(a, f) == getattr(b, f) for f in fields)


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_record_and_every_styled_prompt_reads_to_the_same_question(path: Path) -> None:
    task, lang = split_task(path.stem)
    assert lang is not None
    family = REGISTRY.get("calm")
    unreadable: Counter[str] = Counter()
    for record in records(path):
        expected = PART.from_record(task, record, lang)
        former = rendered(task, lang, Style.BASIC, record, "")  # a reply repeating it all
        for style in Style:
            text = rendered(task, lang, style, record, former)
            try:
                question = family.parse(text, Options(task))
                guessed = family.parse(text, Options())
            except Exception as error:  # pragma: no cover - reported below
                unreadable[f"{style.value}: {error}"[:200]] += 1
                continue
            assert isinstance(question, CalmQuestion) and question.lang is lang
            assert question.style is style, (style, question.style)
            if (task, lang, style) in ASKS_ANOTHER:  # the template asks for the minimal set
                expected_here = replace(expected, criterion=Criterion.BACKDOOR_MIN)
                assert guessed.task == "BAS-C_min-BAS"
            else:
                expected_here = expected
                assert guessed.task == (CEI_ANY if task in CEI else task)
            assert same(question.formal, expected_here), (style, record.get("index"))
            assert same(guessed.formal, expected_here)
    assert not unreadable, unreadable.most_common(3)


def test_every_shared_item_is_answered_and_rechecked() -> None:
    """Records as rows, through the service (parse, solve, check) — none unreadable; every
    lite gold agrees, or the question is ambiguous (several valid options) in CaLM's own
    reading."""
    service = default()
    family = REGISTRY.get("calm")
    outcomes: Counter[str] = Counter()
    for path in FILES:
        for record in records(path):
            item = service.item(record_row(record, path.name))
            assert item is not None and item.family == "calm"
            fields = family.audit_fields(service, item, "corr2cause")
            assert "error" not in fields, fields["error"]
            assert fields["certificate_checked"]
            if item.gold is None:
                outcomes["no gold"] += 1
            elif fields.get("ambiguous"):
                outcomes["ambiguous"] += 1
                assert {c["kind"] for c in fields["causes"]} & {"several_valid_options",
                                                               "no_valid_option"}
            else:
                outcomes["agree" if fields["agree"] else "disagree"] += 1
    assert outcomes["disagree"] == 0 and outcomes["agree"] >= 470, outcomes
    assert outcomes["no gold"] == 240


def test_a_question_on_itself_is_flagged_degenerate() -> None:
    service = default()
    fp = next(r for r in records(DATA / "lite_sample" / "CA-B_FP_EN.json")
              if r["sampled_parent"] == r["attribution"])
    item = service.item(record_row(fp, "CA-B_FP_EN.json"))
    assert item is not None
    fields = REGISTRY.get("calm").audit_fields(service, item, "corr2cause")
    assert [c["kind"] for c in fields["causes"]] == ["degenerate_question"]
    assert fields["agree"] is True  # a vertex is not its own parent: CaLM's gold says No


def test_choice_with_treatment_equal_to_outcome_is_not_graded() -> None:
    edges = "A causes B, and B causes C"
    text = rendered("BAS-C_mix-BAS", Lang.EN, Style.BASIC,
                    {"edges": edges, "treatment": "B", "outcome": "B", "option1": "A",
                     "option2": "", "option3": "C"}, "")
    answer = default().answer(text, model_answer="Option 1")
    assert answer.answer_text.startswith("degenerate question")
    assert answer.grade is not None and answer.grade.gradable is False


def test_a_template_asking_another_question_is_answered_as_asked_and_flagged() -> None:
    record = records(DATA / "lite_sample" / "BAS-C_max-BAS_CN.json")[0]
    text = rendered("BAS-C_max-BAS", Lang.CN, Style.ONE_SHOT_ICL, record, "")
    family = REGISTRY.get("calm")
    question = family.parse(text, Options("BAS-C_max-BAS"))
    assert question.formal.criterion is Criterion.BACKDOOR_MIN
    solution = family.check(question, family.solve(question))
    assert "translation_reverses_question" in PART.causes(question, solution, None)


def test_hidden_vertex_a_decides_some_answers() -> None:
    """BAS-C min item 1 (EN): {A} and {C} both block D←C←A→E; with A unobserved (CaLM's
    CoT convention) only {C} does, as the gold says."""
    record = records(DATA / "lite_sample" / "BAS-C_min-BAS_EN.json")[0]
    question = CalmQuestion("BAS-C_min-BAS", Lang.EN, None,
                            PART.from_record("BAS-C_min-BAS", record, Lang.EN))
    picked = PART.solve(question)
    assert picked.valid == (record["gt_answer"],) == (2,)
    assert dict(picked.readings)[next(iter(dict(picked.readings)))] == (1, 2)
    assert "reading_a_observed" in PART.causes(question, picked, 2)


def test_a_non_identified_effect_carries_a_hedge_and_explains_it() -> None:
    text = rendered("CEI-B_0.2-UC", Lang.CN, Style.THREE_SHOT_ICL,
                    {"di_edges": "A导致B, 以及B导致C", "bi_edges": "A和B", "treatment": "A",
                     "outcome": "C"}, "")
    answer = default().answer(text, model_answer="否")
    assert answer.answer_text == "否" and answer.grade is not None and answer.grade.correct
    assert "hedge" in answer.explanation


def test_every_kind_is_drawn_and_explained_as_data() -> None:
    family = REGISTRY.get("calm")
    for name in ("CA-B_FA_EN", "CEI-B_0.8-UC_CN", "BAS-C_max-BAS_EN", "IV-C_CaLM-IV_CN"):
        record = records(DATA / "lite_sample" / f"{name}.json")[1]
        item = default().item(record_row(record, name))
        assert item is not None
        question, solution = default().solved(family, item.prompt, Options(item.task))
        dot = family.dot(question, solution)
        assert dot is not None and dot.startswith("digraph") and question.task in dot
        data = family.derivation(question, solution)
        assert json.loads(json.dumps(data)) == data
        assert family.explain(question, solution)


def test_with_several_valid_options_each_valid_one_is_graded_right() -> None:
    record = records(DATA / "lite_sample" / "BAS-C_max-BAS_EN.json")[11]  # item 12
    text = rendered("BAS-C_max-BAS", Lang.EN, Style.BASIC, record, "")
    grades = {k: default().answer(text, model_answer=f"Option {k}").grade for k in (1, 2, 3)}
    assert [g.correct for g in grades.values() if g is not None] == [True, False, True]
    assert "several options" in default().answer(text).answer_text


@pytest.mark.parametrize(("text", "why"), [
    ("You will be presented with a causal graph in the following form: A causes B, and B "
     "causes A.\nQuestion: Does A serve as the parent node of B?\nAnswer (Yes or No ?):",
     "form a cycle"),
    ("You will be presented with a causal graph in the following form: A causes B-1.\n"
     "Question: Does A serve as the parent node of B?\nAnswer (Yes or No ?):",
     "two vertex names"),
    ("给定如下因果图：A导致B。\n问题：对于上述因果图中的有序变量对 (A B)，工具变量是哪个？\n"
     "选项一：A\n选项二：B\n选项三：\n答案（选项一或选项二或选项三？）：", "ordered pair"),
    ("You will be presented with a causal graph in the following form: A causes B.\n"
     "Question: Which set of variables that satisfies the back-door criterion relative to "
     "an ordered pair of variables (A, B) in the above causal graph?\nOption 1: A\n",
     "Option 2"),
])
def test_a_malformed_item_says_where_and_why(text: str, why: str) -> None:
    with pytest.raises(InputError, match=why) as error:
        REGISTRY.get("calm").parse(text, Options())
    assert len(error.value.describe()) < 600


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 10_000), st.text(max_size=12))
def test_a_damaged_prompt_is_read_or_refused_never_crashes(cut: int, at: int,
                                                          noise: str) -> None:
    """Any slice of a real prompt with noise spliced in: an answer that checks, or an
    ``InputError`` — never another exception."""
    family = REGISTRY.get("calm")
    path = FILES[cut % len(FILES)]
    task, lang = split_task(path.stem)
    assert lang is not None
    record = records(path)[at % 10]
    style = list(Style)[at % len(Style)]
    text = rendered(task, lang, style, record, "Yes")
    where = at % (len(text) + 1)
    damaged = text[:where] + noise + text[where + len(noise) // 2:]
    try:
        question = family.parse(damaged, Options())
        family.check(question, family.solve(question))
    except InputError:
        pass
