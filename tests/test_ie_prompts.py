"""Intervention-effect prompts: every upstream template, rendered, parsed and answered."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import audit_row

from causal_oracle import answer, grade
from causal_oracle.entry.families.ie_templates import read_templates, render_ie_prompt
from causal_oracle.oracle.tasks.check import check_answer
from causal_oracle.oracle.tasks.intervention import intervention_effect
from causal_oracle.oracle.tasks.model import IEKind
from causal_oracle.parser.errors import ParseError
from causal_oracle.parser.ie import parse_ie

DATA = Path(__file__).parent / "data" / "ie"
TEMPLATES = [row for path in sorted(DATA.glob("*/*.csv")) for row in read_templates(path)]
KNOWN_WRONG = {("obs/prompts_obs_cause_3.csv", "6")}  # "does T3 cause T1?" with T3 -> T1


def test_all_template_files_are_read() -> None:
    assert len(list(DATA.glob("*/*.csv"))) == 39
    assert len(TEMPLATES) == 200


@pytest.mark.parametrize("seed", range(3))
def test_every_template_row_agrees_with_its_label_except_the_known_wrong_one(seed: int) -> None:
    rng = random.Random(seed)
    disagree = set()
    for row in TEMPLATES:
        item = render_ie_prompt(row, rng)
        out = audit_row(item)
        assert out["certificate_checked"] and "error" not in out, (item, out)
        if not out["agree"]:
            disagree.add((row["source"], row["row"]))
    assert disagree == KNOWN_WRONG


def test_the_known_wrong_row_is_a_duplicate_question_with_the_opposite_label() -> None:
    rows = read_templates(DATA / "obs" / "prompts_obs_cause_3.csv")
    assert rows[-1]["question"] == rows[-2]["question"]
    assert (rows[-2]["label"], rows[-1]["label"]) == ("yes", "no")
    item = render_ie_prompt(rows[-1], random.Random(0), names=["A", "B", "C"])
    assert answer(item["prompt"]).answer["answer"] == "yes"


def test_given_names_and_values_with_spaces() -> None:
    row = read_templates(DATA / "inter" / "prompts_inter_change_0.csv")[0]
    item = render_ie_prompt(row, random.Random(0), names=["Altitude", "Temperature"],
                            values=["1 km", "10 C"])
    q = parse_ie(item["prompt"])
    assert q.graph.names == ("Altitude", "Temperature")
    assert q.interventions[0].value == "1 km"
    assert "cause a change Temperature" in item["prompt"]  # upstream's missing "in"


def test_two_interventions_in_order_and_kappa() -> None:
    text = ("I'm going to describe a causal graphical directed acyclic model. There are three "
            "variables: K, Q and D. K causes Q. Q causes D.  These are all the causal "
            "relationships in the graph. Suppose we perform the perfect intervention, "
            "do(Q=q). Then, on this intervened causal model, we perform the perfect "
            "intervention, do(K = k). \nIn this final intervened causal graphical model, "
            "does K cause a change in D?")
    q = parse_ie(text)
    assert [q.graph.names[i.node] for i in q.interventions] == ["Q", "K"]
    a = intervention_effect(q)
    check_answer("IE", q, a)
    assert (a.yes, a.holds_before, a.kappa) == (False, True, 1)


def test_renamed_operator_must_be_the_defined_one() -> None:
    rows = read_templates(DATA / "sub" / "prompts_sub_cause_3.csv")
    item = render_ie_prompt(rows[0], random.Random(0), operator="vbtx")
    assert parse_ie(item["prompt"]).operator == "vbtx"
    with pytest.raises(ParseError, match="operator"):
        parse_ie(item["prompt"].replace("perform the perfect intervention, vbtx(",
                                        "perform the perfect intervention, do("))


def test_edge_and_path_questions() -> None:
    base = ("I'm going to describe a causal graphical model. There are two variables: A, B "
            "and C. A causes B. B causes C. These are all the causal relationships in the "
            "graph. \nIn this causal graphical model, ")
    edge = parse_ie(base + "is there an edge from A to C?")
    path = parse_ie(base + "is there a path going from A to C?")
    assert edge.kind is IEKind.EDGE and path.kind is IEKind.PATH
    assert not intervention_effect(edge).yes and intervention_effect(path).yes


def test_undeclared_variable_is_located() -> None:
    text = ("I'm going to describe a causal graphical model. There are two variables: A and "
            "B. A causes Z. These are all the causal relationships in the graph. \nIn this "
            "causal graphical model, does A cause B?")
    with pytest.raises(ParseError) as info:
        parse_ie(text)
    assert (info.value.line, info.value.column) == (1, text.index("Z") + 1)


def test_grade_yes_no_forms() -> None:
    row = read_templates(DATA / "obs" / "prompts_obs_cause_0.csv")[0]
    prompt = render_ie_prompt(row, random.Random(0))["prompt"]
    assert grade(prompt, "<answer>Yes</answer>").correct is True
    assert grade(prompt, "Answer: no").correct is False
    out = grade(prompt, "perhaps")
    assert out.correct is False and not out.readable and out.normalised == "UNREADABLE"
