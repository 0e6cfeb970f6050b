"""Corr2Cause++: the premise dialect, the compelled profile, and the JSON-array audit."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

import causal_oracle as co
from causal_oracle.entry import default
from causal_oracle.entry.families.corr2causepp import audit_row
from causal_oracle.oracle import compelled
from causal_oracle.oracle.errors import InputError
from causal_oracle.oracle.statements import RelationKind, SurfaceForm
from causal_oracle.parser.corr2cause import parse_hypothesis, parse_item, parse_premise

SAMPLE = Path(__file__).parent / "data" / "corr2causepp" / "sample.json"
ITEMS = json.loads(SAMPLE.read_text())
COLLIDER = ("Suppose there is a closed system of 4 variables, A, B, C, and D, whose causal "
            "structure forms a directed acyclic graph and satisfies faithfulness. All the "
            "conditional independence relations are: A indep B; A indep D | C; "
            "A indep D | B, C; B indep D | C; B indep D | A, C.")


def test_dialect_premise_reads_as_the_same_objects() -> None:
    p = parse_premise(COLLIDER)
    assert p.variables == ("A", "B", "C", "D")
    assert [i.key for i in p.independences] == [(0, 1, 0), (0, 3, 4), (0, 3, 6), (1, 3, 4),
                                                (1, 3, 5)]
    two = parse_premise("Suppose there is a closed system of 2 variables, X and Y, whose causal "
                        "structure forms a directed acyclic graph and satisfies faithfulness. "
                        "All the conditional independence relations are: X indep Y.")
    assert two.variables == ("X", "Y")


@pytest.mark.parametrize("text, kind, first, second", [
    ("A directly affects C.", RelationKind.DIRECT_CAUSE, "A", "C"),
    (" C is directly affected by A.", RelationKind.DIRECT_CAUSE, "A", "C"),
    ("A influences D through some mediator(s) but not directly.",
     RelationKind.INDIRECT_CAUSE, "A", "D"),
    ("There exists at least one collider (i.e., a common child) of A and B.",
     RelationKind.COMMON_EFFECT, "A", "B"),
    ("There exists at least one confounder (i.e., a common parent) of A and B.",
     RelationKind.COMMON_CAUSE, "A", "B"),
])
def test_dialect_hypotheses(text: str, kind: RelationKind, first: str, second: str) -> None:
    h = parse_hypothesis(text.strip()) if text.startswith(" ") else parse_hypothesis(text)
    assert (h.kind, h.first, h.second) == (kind, first, second)
    _, h2 = parse_item(f"Premise:\n{COLLIDER}\n\nHypothesis:{text}")
    assert h2 == h


def test_compelled_labels_and_checker() -> None:
    result = default().verify_input(f"Premise:\n{COLLIDER}\n\nHypothesis: A influences D "
                                    "through some mediator(s) but not directly.")
    verdict = compelled.label(result.analysis, result.hypothesis)
    names = result.premise.variables
    assert {(names[a], names[b]) for a, b in verdict.edges} == {("A", "C"), ("B", "C"),
                                                                ("C", "D")}
    assert verdict.label == 1
    assert compelled.check(result.analysis, result.hypothesis, verdict)[0]
    assert not compelled.check(result.analysis, result.hypothesis,
                               replace(verdict, label=0))[0]
    assert not compelled.check(result.analysis, result.hypothesis,
                               replace(verdict, edges=verdict.edges[:-1]))[0]
    assert result.hypothesis.form is SurfaceForm.MEDIATORS_NOT_DIRECTLY


def test_compelled_is_not_a_per_member_verify_profile() -> None:
    with pytest.raises(InputError, match="compelled"):
        co.verify(f"Premise:\n{COLLIDER}\n\nHypothesis: A directly affects C.",
                  profile="compelled")


def test_audit_reproduces_the_labels_and_the_forced_edges() -> None:
    report = co.audit(SAMPLE).to_json()
    assert report["summary"]["items"] == len(ITEMS)
    s = report["summary"]
    # every item agrees but those the readings label differently, counted apart
    assert s["agree"] + s["ambiguous"] == len(ITEMS) and s["unreadable"] == 0
    assert report["forced_edges"]["checked"] == len(ITEMS)
    assert report["forced_edges"]["wrong"] == 0
    assert s["ambiguous"] >= 1
    assert all(a["derived_label"] == a["gold"] for a in report["ambiguous"])


def test_ambiguous_items_are_where_compelled_differs() -> None:
    ambiguous = [o for o in (audit_row(default(), item, item["label"]) for item in ITEMS)
                 if o["ambiguous"]]
    assert ambiguous
    for o in ambiguous:
        labels = o["labels_by_profile"]
        assert labels["compelled"] != labels["corr2cause"] or (
            labels["compelled"] != labels["strict"])


def test_wrong_gold_and_wrong_forced_edges_are_reported(tmp_path: Path) -> None:
    items = [dict(item) for item in ITEMS[:6]]
    items[0]["label"] = 1 - items[0]["label"]
    items[1]["forced_edges"] = [["W", "Z"]] + items[1]["forced_edges"]
    path = tmp_path / "pp.json"
    path.write_text(json.dumps(items))
    report = co.audit(path).to_json()
    assert report["summary"]["disagree"] == 1
    # one line holds every object, so rows are referenced by record number (1-based)
    assert report["source"]["unit"] == "record"
    assert report["disagreements"][0]["row"] == 1
    assert "compelled_edges" in report["disagreements"][0]["certificate"]
    assert report["forced_edges"]["wrong"] == 1
    assert report["forced_edges"]["wrong_rows"][0]["row"] == 2


def test_profile_compelled_asks_the_corr2causepp_family() -> None:
    """``--profile compelled`` (offered by answer/grade) is the Corr2Cause++ reading."""
    text = ("Premise: Suppose there is a closed system of 4 variables, A, B, C and D. All the "
            "statistical relations among these 4 variables are as follows: A correlates with "
            "C. A correlates with D. B correlates with C. B correlates with D. C correlates "
            "with D. However, A is independent of B. A and D are independent given C. A and D "
            "are independent given B and C. B and D are independent given C. B and D are "
            "independent given A and C.\nHypothesis: C directly causes D.")
    answered = default().answer(text, profile="compelled")
    assert answered.family == "corr2cause++"
    assert answered.answer["labels_by_profile"]["compelled"] == answered.answer["label"]
    assert default().answer(text).family == "corr2cause"
    assert default().grade(text, "Yes", profile="compelled").correct is (
        answered.answer["label"] == 1)
