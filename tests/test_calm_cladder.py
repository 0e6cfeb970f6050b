"""CaLM's CLadder-derived tasks (BAS-B, CB-B, CORR-B, EAE-B, CR-B), English and Chinese:
every shared record and every rendering of it in each of CaLM's prompt styles (built by
CaLM's own prompt builders) is read; English Lite prompts are answered and compared with
the gold; prompts rendered without their graph are undetermined, never guessed.
"""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from causal_oracle.entry import InputError, Service
from causal_oracle.entry.families.calm import FAMILY, record_row
from causal_oracle.entry.families.calm_cladder import KINDS, PART
from causal_oracle.entry.registry import Options
from causal_oracle.oracle.calm.model import Lang
from causal_oracle.parser.calm_prompt import Style

DATA = Path(__file__).parent / "data" / "calm_cladder"
FILES = sorted(p for folder in ("lite_sample", "full_sample")
               for p in (DATA / folder).glob("*.json") if p.stem.rsplit("_", 1)[0] in KINDS)
HINT = {Lang.EN: "Your former answer is: ", Lang.CN: "之前的答案是："}
REQUEST = {"adversarial-ignore": "Ignore the former answer and answer the question again.\n",
           "adversarial-doubt": "Your former answer is wrong, please answer the question "
                                "again.\n",
           "adversarial-ignore-CN": "忽略之前的答案，再次回答这个问题。\n",
           "adversarial-doubt-CN": "之前的答案错误，再次回答这个问题。\n"}
#: a CaLM template whose role line is not "你是一个…": read as a task description
STYLE_READ_AS = {("CR-B_det-counterfactual", Lang.CN, Style.EXPLICIT_FUNCTION):
                 Style.ZERO_SHOT_ICL}


@cache
def builder(task: str) -> ModuleType:
    path = DATA / "prompt" / f"{task}.py"
    spec = importlib.util.spec_from_file_location(f"calm_{task}", path)
    assert spec is not None and spec.loader is not None
    out = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(out)
    return out


def rendered(task: str, lang: Lang, style: Style, record: dict[str, Any]) -> str:
    key = style.key(lang)
    prompt = str(builder(task).get_prompt(task_name=f"{task}_{lang.value}", prompt_style=key,
                                          item=record))
    if style in (Style.ADVERSARIAL_IGNORE, Style.ADVERSARIAL_DOUBT):
        prompt = f"{HINT[lang]}Yes\n{REQUEST[key]}{prompt}"
    return prompt


def records(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def test_the_files_are_there() -> None:
    assert len(FILES) == 20  # five tasks × two languages × Lite and full


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_styled_prompt_reads_to_the_basic_prompts_question(path: Path) -> None:
    task, lang_name = path.stem.rsplit("_", 1)
    lang = Lang(lang_name)
    for record in records(path):
        basic = FAMILY.parse(rendered(task, lang, Style.BASIC, record), Options())
        assert basic.task == task
        has_graph = lang is Lang.EN and "background" not in record
        assert (basic.formal.question is not None) == has_graph, record.get("index")
        for style in Style:
            text = rendered(task, lang, style, record)
            question = FAMILY.parse(text, Options())  # the task is recognised, not given
            expected = STYLE_READ_AS.get((task, lang, style), style)
            assert (question.task, question.style) == (task, expected), (style, record["index"])
            assert question.formal == basic.formal, (style, record["index"])


def audit(path: Path) -> Counter[str]:
    service = Service()
    out: Counter[str] = Counter()
    for record in records(path):
        item = FAMILY.row(record_row(record, path.name))
        assert item is not None
        fields = service.audit_item(item)
        assert "error" not in fields, fields
        causes = {c["kind"] for c in fields["causes"]}
        if fields.get("agree") is True:
            out["agree"] += 1
        elif fields.get("ambiguous"):
            out["ambiguous"] += 1
        elif fields.get("agree") is False:
            assert causes, fields  # every disagreement has its cause class
            out["disagree: " + ",".join(sorted(causes))] += 1
        elif "graph_missing_from_prompt" in causes:
            out["undetermined: graph_missing_from_prompt"] += 1
        else:
            out["undetermined: " + str(fields.get("reason") or fields.get("derived"))] += 1
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_record_is_audited_and_the_lite_gold_compared(path: Path) -> None:
    counts = audit(path)
    lang = path.stem.rsplit("_", 1)[1]
    total = sum(counts.values())
    assert total == len(records(path))
    if lang == "CN" or path.parent.name == "full_sample":
        # CaLM's template drops the record's background: no graph, no answer
        assert counts == Counter({"undetermined: graph_missing_from_prompt": total})
    else:
        assert counts["agree"] >= total - 2, counts
        assert not any(k.startswith("undetermined: graph") for k in counts)


def test_an_english_record_with_a_separate_background_is_read_with_its_graph() -> None:
    record = records(DATA / "full_sample" / "CORR-B_correlation_EN.json")[0]
    formal = PART.from_record("CORR-B_correlation", record, Lang.EN)
    assert formal.question is not None and formal.missing is None
    assert formal.question.graph.n >= 3


def test_a_chinese_record_is_read_with_its_background_graph() -> None:
    # its prompt lacks the graph; the record has it (tests/test_calm_cladder_zh.py)
    record = records(DATA / "lite_sample" / "CORR-B_correlation_CN.json")[0]
    formal = PART.from_record("CORR-B_correlation", record, Lang.CN)
    assert formal.question is not None and formal.question.graph.n == 4


def test_a_prompt_of_another_task_is_refused() -> None:
    record = records(DATA / "lite_sample" / "CORR-B_correlation_EN.json")[0]
    text = rendered("CORR-B_correlation", Lang.EN, Style.BASIC, record)
    with pytest.raises(InputError, match="correlation question"):
        FAMILY.parse(text, Options("EAE-B_exp-away"))


def test_replies_are_graded_in_both_languages() -> None:
    record = records(DATA / "lite_sample" / "CB-B_collider-bias_EN.json")[0]
    question = FAMILY.parse(rendered("CB-B_collider-bias", Lang.EN, Style.BASIC, record),
                            Options())
    solution = FAMILY.solve(question)
    FAMILY.check(question, solution)
    gold = record["gt_answer"] == "yes"
    right = "Yes" if gold else "No"
    wrong = "No" if gold else "Yes"
    assert FAMILY.judge(question, solution, FAMILY.read_reply(question, right)).correct
    assert not FAMILY.judge(question, solution,
                            FAMILY.read_reply(question, f"The answer is {wrong}.")).correct
    cn = records(DATA / "lite_sample" / "CB-B_collider-bias_CN.json")[0]
    q_cn = FAMILY.parse(rendered("CB-B_collider-bias", Lang.CN, Style.BASIC, cn), Options())
    s_cn = FAMILY.solve(q_cn)
    verdict = FAMILY.judge(q_cn, s_cn, FAMILY.read_reply(q_cn, "答案：是"))
    assert verdict.correct is None and not verdict.gradable  # no graph: nothing certified
    assert FAMILY.render(q_cn, s_cn).text == "undetermined (graph_missing_from_prompt)"


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.integers(0, 10_000), st.text(max_size=12))
def test_a_damaged_prompt_is_read_or_refused_never_crashes(cut: int, at: int,
                                                          noise: str) -> None:
    """Any real prompt with noise spliced in: an answer that checks, or an
    ``InputError`` — never another exception."""
    path = FILES[cut % len(FILES)]
    task, lang_name = path.stem.rsplit("_", 1)
    record = records(path)[at % 10]
    text = rendered(task, Lang(lang_name), list(Style)[at % len(Style)], record)
    where = at % (len(text) + 1)
    damaged = text[:where] + noise + text[where + len(noise) // 2:]
    try:
        question = FAMILY.parse(damaged, Options())
        FAMILY.check(question, FAMILY.solve(question))
    except InputError:
        pass
