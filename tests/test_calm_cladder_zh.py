"""CaLM's Chinese CLadder records (BAS-B, CB-B, CORR-B, EAE-B, CR-B ``_CN.json``): every
shared record is read by the Chinese reader; decided answers are re-checked and agree with
the Lite gold (or carry the cause that explains the difference); phrases that do not bind
are undetermined with the phrase named; a Chinese item built from an English item's
structure answers as the English one.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from causal_oracle.entry.families.calm_cladder import KINDS, PART, CladderFormal
from causal_oracle.entry.families.calm_part import REVERSED, CalmQuestion
from causal_oracle.oracle.calm.model import Lang
from causal_oracle.oracle.cladder.model import CladderQuestion, Lit, QueryType, StatedKind
from causal_oracle.oracle.cladder.solve import solve
from causal_oracle.oracle.errors import InputError
from causal_oracle.parser.calm_cladder_zh import GRAPH_SHAPE, read_zh
from causal_oracle.parser.calm_cladder_zh_names import NAMES_UNBOUND, Binder, Unbound
from causal_oracle.parser.errors import ParseError

DATA = Path(__file__).parent / "data" / "calm_cladder"
INTRO = "设想一个只有以下条件，而没有其他因素或因果关系的假设世界："


def records(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def files(lang: str) -> list[Path]:
    return sorted(p for folder in ("lite_sample", "full_sample")
                  for p in (DATA / folder).glob(f"*_{lang}.json")
                  if p.stem.rsplit("_", 1)[0] in KINDS)


def answer(task: str, record: dict[str, Any]) -> tuple[CalmQuestion, Any]:
    formal = PART.from_record(task, record, Lang.CN)
    question = CalmQuestion(task, Lang.CN, None, formal)
    solution = PART.solve(question)
    return question, PART.check(question, solution)  # the certificate, re-checked


@pytest.mark.parametrize("path", files("CN"), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_chinese_record_is_read_and_decided_answers_agree_with_gold(path: Path) -> None:
    task = path.stem.rsplit("_", 1)[0]
    counts: Counter[str] = Counter()
    for record in records(path):
        question, solution = answer(task, record)
        gold = PART.gold(task, record)
        verdict = PART.judge_gold(question, solution, gold)
        causes = PART.causes(question, solution, gold)
        if solution.solution is None:
            assert solution.missing in (NAMES_UNBOUND, GRAPH_SHAPE), record["index"]
            assert solution.detail and causes == (solution.missing,)
            assert PART.render(question, solution).text == f"undetermined ({solution.missing})"
            counts["unbound"] += 1
        elif solution.decided is None:
            counts["undetermined"] += 1
        elif verdict.agree is False:
            assert REVERSED in causes, (record["index"], record["question"])
            counts["disagree"] += 1
        else:
            counts["decided"] += 1
    assert sum(counts.values()) == len(records(path))
    if path.parent.name == "lite_sample":
        assert counts["decided"] >= 6  # the nonsense-story template items bind and are answered
        assert counts["disagree"] == 0, counts  # no Chinese question in the sample reverses


def test_the_chinese_counts_over_the_shared_files() -> None:
    """The measured counts docs/families/calm.md gives (read 150, none refused)."""
    total: Counter[str] = Counter()
    for path in files("CN"):
        task = path.stem.rsplit("_", 1)[0]
        for record in records(path):
            _, solution = answer(task, record)
            total[solution.missing or ("decided" if solution.decided is not None
                                       else "undetermined")] += 1
    assert sum(total.values()) == 150
    assert total["decided"] == 83 and total["undetermined"] == 8, total
    assert total[NAMES_UNBOUND] == 57 and total[GRAPH_SHAPE] == 2, total


def test_a_phrase_that_does_not_bind_is_named_with_its_candidates() -> None:
    record = records(DATA / "full_sample" / "CORR-B_correlation_CN.json")[2]  # 队长下令处决囚犯
    _, solution = answer("CORR-B_correlation", record)
    assert solution.solution is None and solution.missing == NAMES_UNBOUND
    assert "队长下令处决囚犯" in solution.detail and "'队长', '囚犯'" in solution.detail
    assert "names_unbound" in PART.explain(CalmQuestion("CORR-B_correlation", Lang.CN, None,
                                                        CladderFormal(None)), solution)


def test_binding_rules() -> None:
    b = Binder(("拥有兄弟", "接种疫苗的反应", "天花的存活率", "得天花"))
    assert b.variable("有兄弟", "x") == 0  # contained in the name
    assert b.variable("得天花的人", "x") == 3  # contains the name
    with pytest.raises(Unbound, match="candidates: '天花的存活率', '得天花'"):
        b.variable("天花", "x")  # contained in two names
    v = Binder(("经理", "员工"))
    for p in ("经理签署终止信函", "经理未签署终止信函", "员工被解雇"):
        v.lit(p)
    v.settle()
    assert v.lit("经理未签署终止信函") == (0, 0) and v.lit("经理签署终止信函") == (0, 1)
    w = Binder(("性别", "录取"))
    for p in ("男性性别", "女性性别"):
        w.lit(p)
    with pytest.raises(Unbound, match="neither negates the other"):
        w.settle()


def test_a_reversed_translation_that_disagrees_with_gold_is_flagged() -> None:
    record = records(DATA / "lite_sample" / "CORR-B_correlation_CN.json")[0]
    assert record["meta"]["polarity"] is True
    reversed_record = {**record, "question": record["question"].replace("变大", "变小")}
    question, solution = answer("CORR-B_correlation", reversed_record)
    assert question.formal.reversed_question
    assert PART.judge_gold(question, solution, 1).agree is False
    assert REVERSED in PART.causes(question, solution, 1)
    same, same_solution = answer("CORR-B_correlation", record)
    assert REVERSED not in PART.causes(same, same_solution, 1)


@pytest.mark.parametrize("field, text, where", [
    ("question", "当观察到rixq时，xevu的几率会很大吗？", "question"),
    ("given_info", "rixq的总体概率是78%。非rixq且xevu的可能是7%。", "given information"),
    ("background", "设想一个世界：Rixq 对 xevu 有直接影响。", "background"),
])
def test_a_malformed_record_is_a_parse_error_saying_where(field: str, text: str,
                                                          where: str) -> None:
    record = {**records(DATA / "lite_sample" / "CORR-B_correlation_CN.json")[0], field: text}
    with pytest.raises(ParseError, match=f"the {where} is not in CaLM's Chinese") as error:
        PART.from_record("CORR-B_correlation", record, Lang.CN)
    assert error.value.column is not None and error.value.column >= 1


def test_a_record_of_another_task_is_refused() -> None:
    record = records(DATA / "lite_sample" / "CORR-B_correlation_CN.json")[0]
    with pytest.raises(InputError, match="correlation question"):
        PART.from_record("EAE-B_exp-away", record, Lang.CN)


# ---- a Chinese item built from an English item's structure ---------------------------------
def _value(q: CladderQuestion, lit: Lit) -> str:
    name = q.graph.names[lit[0]]
    return name if lit[1] else "非" + name


def _stratum(q: CladderQuestion, lits: tuple[Lit, ...]) -> str:
    return "且".join(_value(q, lit) for lit in lits)


def chinese(q: CladderQuestion) -> tuple[str, str, str]:
    """The Chinese template's background, given information and question for ``q``."""
    g, r = q.graph, q.readings[0]
    name = g.names
    background = INTRO + "".join(
        f"{name[v]}直接影响{'和'.join(name[c] for c in g.children_of(v))}。"
        for v in range(g.n) if g.children_of(v)) + "".join(
        f"{name[v]}是未观察到的。" for v in range(g.n) if not g.observed[v])
    given = []
    for s in r.statements:
        number = s.value.text
        if s.kind is StatedKind.CORRELATION:
            given.append(f"对于那些{_stratum(q, s.given)}的人来说，{_value(q, s.event[0])}和"
                         f"{_value(q, s.event[1])}之间的相关系数为{number}。")
        elif s.given:
            given.append(f"对于那些{_stratum(q, s.given)}的人来说，{_value(q, s.event[0])}的概率"
                         f"为{number}%。")
        elif len(s.event) == 1:
            given.append(f"{_value(q, s.event[0])}的总体概率是{number}%。")
        else:
            given.append(f"{_stratum(q, s.event)}的概率是{number}%。")
    for m in r.mechanisms:
        join = "和" if m.connective.value == "and" else "或"
        given.append(f"我们知道{join.join(_value(q, i) for i in m.inputs)}导致"
                     f"{_value(q, m.target)}。")
    given.extend(f"我们观察到某个人是{_value(q, e)}。" for e in r.evidence)
    query = r.query
    for number, chosen in enumerate(query.methods, 1):
        listed = "和".join(name[v] for v in chosen)
        given.append(f"方法{number}：根据{listed}，我们逐个研究这种关联。" if chosen
                     else f"方法{number}：我们直接研究一般情况下这种关联。")
    y = _value(q, query.outcome)
    if query.kind is QueryType.BACKADJ:
        assert query.treatment is not None
        text = (f"要了解{name[query.treatment[0]]}如何影响{name[query.outcome[0]]}，使用方法"
                f"{query.first_method}比方法{3 - query.first_method}更准确吗？")
    elif query.kind is QueryType.CORRELATION:
        assert query.treatment is not None
        text = (f"当观察到{_value(q, query.treatment)}时，{y}的几率会"
                f"{'变大' if query.polarity else '变小'}吗？")
    elif query.kind is QueryType.EXP_AWAY:
        assert query.treatment is not None and query.condition is not None
        text = (f"如果我们观察那些{_value(q, query.condition)}的人，当他们"
                f"{_value(q, query.treatment)}时，{y}的几率会"
                f"{'增加' if query.polarity else '降低'}吗？")
    elif query.kind is QueryType.COLLIDER_BIAS:
        assert query.treatment is not None and query.condition is not None
        text = (f"如果我们观察那些{_value(q, query.condition)}的人，这是否意味着"
                f"{_value(q, query.treatment)}{'会影响' if query.polarity else '不会影响'}{y}？")
    else:
        assert query.counterfactual is not None and query.premise is not None
        text = (f"如果一个人{_value(q, query.counterfactual)}而不是{_value(q, query.premise)}，"
                f"那么他会是{y}吗？")
    return background, "".join(given), text


def _plain(q: CladderQuestion) -> bool:
    """Names the Chinese template can carry (no punctuation of its own, none a joining
    word, no name inside another)."""
    names = q.graph.names
    return all(not set(n) & set("，。；？,;?:：和且或非") for n in names) and not any(
        a != b and a.replace(" ", "") in b.replace(" ", "") for a in names for b in names)


@pytest.mark.parametrize("path", files("EN"), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_chinese_item_built_from_an_english_one_answers_the_same(path: Path) -> None:
    task = path.stem.rsplit("_", 1)[0]
    compared = 0
    for record in records(path):
        english = PART.from_record(task, record, Lang.EN).question
        if english is None or len(english.readings) != 1 or not _plain(english):
            continue
        zh = read_zh(*chinese(english))
        assert zh.question is not None, (record["index"], zh.detail)
        assert solve(zh.question).outcome is solve(english).outcome, record["index"]
        compared += 1
    assert compared >= len(records(path)) // 2


def test_an_empty_field_and_the_doctests() -> None:
    import doctest

    from causal_oracle.parser import (
        calm_cladder_zh,
        calm_cladder_zh_grammar,
        calm_cladder_zh_names,
    )

    record = records(DATA / "lite_sample" / "CB-B_collider-bias_CN.json")[0]
    with pytest.raises(ParseError, match="no sentence"):
        PART.from_record("CB-B_collider-bias", {**record, "given_info": "。"}, Lang.CN)
    for module in (calm_cladder_zh, calm_cladder_zh_grammar, calm_cladder_zh_names):
        result = doctest.testmod(module)
        assert result.attempted >= 1 and result.failed == 0


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(0, 10_000), st.integers(0, 10_000), st.sampled_from(
    ("background", "given_info", "question")),
    st.text(alphabet="和且或非不是的人，。；？%0123456789.-rixqzuph导致概率", max_size=10))
def test_a_damaged_chinese_record_is_read_or_refused_never_crashes(
        pick: int, at: int, field: str, noise: str) -> None:
    """Any shared Chinese record with template words or noise spliced into a field: an
    answer whose certificate checks, an undetermined reading, or an ``InputError``."""
    paths = files("CN")
    path = paths[pick % len(paths)]
    task = path.stem.rsplit("_", 1)[0]
    record = records(path)[at % 10]
    text = str(record[field])
    where = at % (len(text) + 1)
    damaged = {**record, field: text[:where] + noise + text[where + len(noise) // 2:]}
    with contextlib.suppress(InputError):
        answer(task, damaged)


@pytest.mark.parametrize("path", files("CN"), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_chinese_prompt_that_carries_its_graph_reads_as_its_record(path: Path) -> None:
    """CaLM's own prompt drops the graph (undetermined); a prompt whose input information
    opens with the background is read like the record."""
    from causal_oracle.entry.families.calm import FAMILY
    from causal_oracle.entry.registry import Options

    task = path.stem.rsplit("_", 1)[0]
    for record in records(path):
        plain = FAMILY.parse(PART.prompt(task, record, Lang.CN), Options())
        assert plain.formal.missing == "graph_missing_from_prompt"
        text = PART.prompt(task, {**record, "given_info": record["background"]
                                  + record["given_info"]}, Lang.CN)
        carried = FAMILY.parse(text, Options()).formal
        expected = PART.from_record(task, record, Lang.CN)
        assert (carried.question, carried.missing) == (expected.question, expected.missing)


def test_strata_joined_by_any_template_word_read_alike() -> None:
    record = records(DATA / "lite_sample" / "EAE-B_exp-away_CN.json")[0]  # gold yes
    template = read_zh(record["background"], record["given_info"], record["question"])
    joined = (record["given_info"].replace("既不是yomx也不是gwet", "非yomx并且非gwet")
              .replace("不是yomx而是gwet", "非yomx并且gwet")
              .replace("是yomx但不是gwet", "yomx并且非gwet")
              .replace("既是yomx又是gwet", "yomx并且gwet"))
    assert joined.count("并且") == 4
    other = read_zh(record["background"], joined, record["question"])
    assert template.question is not None and other.question == template.question
    assert solve(other.question).outcome.value == "yes"


def test_a_translation_that_swaps_backadjs_methods_is_flagged() -> None:
    record = records(DATA / "lite_sample" / "BAS-B_backadj_CN.json")[0]  # gold yes
    swapped = {**record, "given_info": record["given_info"].replace("方法1", "方法#")
               .replace("方法2", "方法1").replace("方法#", "方法2")}
    question, solution = answer("BAS-B_backadj", swapped)
    assert question.formal.reversed_question and solution.decided is False
    assert REVERSED in PART.causes(question, solution, PART.gold("BAS-B_backadj", record))
    kept, kept_solution = answer("BAS-B_backadj", record)
    assert not kept.formal.reversed_question and kept_solution.decided is True
