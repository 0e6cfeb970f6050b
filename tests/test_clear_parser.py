"""CLEAR text: every description, question form and answer form of the sample reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from causal_oracle.oracle.clear.model import GraphKind, Mark, QType, Task, Walk
from causal_oracle.parser.clear import parse_answer, parse_description, parse_item
from causal_oracle.parser.errors import ParseError

ROWS = [json.loads(line) for line in
        (Path(__file__).parent / "data" / "clear" / "items_subset.jsonl").open()]


def test_every_row_reads_with_its_task_and_type() -> None:
    seen = set()
    for row in ROWS:
        q = parse_item(row["description"], row["question"])
        assert (q.task.value, q.qtype.value) == (row["task_type"], row["question_type"])
        answers = row["answer"] if isinstance(row["answer"], list) else [row["answer"]]
        for text in answers:
            parse_answer(text)
        seen.add(q.task)
    assert seen == set(Task)


def test_admg_description() -> None:
    g = parse_description("Given an ADMG (acyclic directed mixed graph) with nodes I, Y, H, "
                          "directed edges I->H, Y->H and bi-directed edges H<->I.")
    assert g.kind is GraphKind.ADMG and g.nodes == ("I", "Y", "H")
    assert g.directed == {("I", "H"), ("Y", "H")} and g.bidirected == {frozenset("HI")}


def test_question_details() -> None:
    desc = "Given a DAG (directed acyclic graph) with nodes A, B, C and directed edges A->B, C->B."
    q = parse_item(desc, "Can path A->B<-C be blocked by nodeset {'B'}?")
    assert q.task is Task.BLOCKED_PATH and q.qtype is QType.YN
    walk, z = q.subject
    assert walk == Walk(("A", "B", "C"), (Mark.RIGHT, Mark.LEFT)) and z == {"B"}
    q = parse_item(desc, "Which of the following is NOT a node of this graph?\nA. A\nB. Q\n"
                         "C. B\nD. C")
    assert q.variant == "not" and [label for label, _ in q.options] == list("ABCD")
    q = parse_item(desc, "Find one minimal valid backdoor adjustment set for treatment A "
                         "and outcome B.")
    assert q.variant == "minimal" and q.names == ("A", "B")


@pytest.mark.parametrize("text, value", [
    ("Yes.", True), ("No.", False), ("3", 3), ("C", "C"), ("set()", frozenset()),
    ("{'J', 'C'}", frozenset("JC")), ("[{'V'}, {'R', 'Z'}]", [frozenset("V"), frozenset("RZ")]),
])
def test_answer_forms(text: str, value: object) -> None:
    assert parse_answer(text) == value


def test_answer_paths_and_orders() -> None:
    assert str(parse_answer("D<->N<-W->F")) == "D<->N<-W->F"
    assert [str(w) for w in parse_answer("['T<-K<-P', 'T<-K<-G<-P']")] == ["T<-K<-P",
                                                                          "T<-K<-G<-P"]
    assert [str(w) for w in parse_answer("Y, R, G, C")] == ["Y", "R", "G", "C"]
    dag = parse_answer("DAG with nodes Z, F and directed edges F->Z.")
    assert dag.directed == {("F", "Z")}


def test_errors_say_where() -> None:
    with pytest.raises(ParseError) as info:
        parse_description("Given a DAG (directed acyclic graph) with nodes A, B and "
                          "directed edges A=>B.")
    assert info.value.line == 1 and info.value.column is not None
    with pytest.raises(ParseError, match="not a node"):
        parse_description("Given a DAG (directed acyclic graph) with nodes A, B and "
                          "directed edges A->Q.")
    with pytest.raises(ParseError, match="not a node"):
        parse_item("Given a DAG (directed acyclic graph) with nodes A, B and directed edges "
                   "A->B.", "List all parents of node Q.")
    with pytest.raises(ParseError, match="path A->Q names 'Q', which is not a node"):
        parse_item("Given a DAG (directed acyclic graph) with nodes A, B and directed edges "
                   "A->B.", "Find the minimal nodeset that can block path A->Q.")


def test_forms_beyond_the_sample() -> None:
    g = parse_description("Given an ADMG (acyclic directed mixed graph) with nodes A, B, C and "
                          "bi-directed edges A<->B, B<->C.")
    assert not g.directed and len(g.bidirected) == 2
    q = parse_item("Given a DAG (directed acyclic graph) with nodes A, B, C and directed edges "
                   "A->B, B->C.", "Find the shortest path from A to C.")
    assert (q.task, q.qtype, q.variant) == (Task.PATH, QType.FO, "shortest")


def test_none_is_an_empty_answer_not_no() -> None:
    import causal_oracle as co

    d = "Given a DAG (directed acyclic graph) with nodes A, B, C and directed edges A->B, B->C.\n"
    assert co.grade(d + "List all parents of node A.", "None").correct is True
    assert co.grade(d + "List all parents of node B.", "None").correct is False
    assert co.grade(d + "Is node A one of parents of node B?", "No").correct is False
