"""CI-Bench question text → formal objects: every shared item, the generator's quirks, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from causal_oracle.oracle.tasks.model import (
    BackdoorQuestion,
    CounterfactualQuestion,
    FactualQuestion,
    PathsQuestion,
)
from causal_oracle.parser.cibench import detect_task, parse_cibench
from causal_oracle.parser.errors import ParseError

DATA = Path(__file__).parent / "data" / "cibench" / "items_sample.jsonl"
ROWS = [json.loads(line) for line in DATA.open(encoding="utf-8")]

HEADER = ("The following text describes the assumed causal relationship between factors "
          "in a recent study:\n")
CP_TAIL = ("Based on the information above, please identify all the causal paths between "
           "them.\nYour answer should be plain text and should not contain other formats "
           "such as markdown.\nAnswer:\n")


def test_sample_has_100_items_per_task() -> None:
    assert sorted({r["task"] for r in ROWS}) == ["BA", "CI", "CP", "FI"]
    assert all(sum(r["task"] == t for r in ROWS) == 100 for t in ("CP", "BA", "FI", "CI"))


@pytest.mark.parametrize("row", ROWS, ids=[r["uid"] for r in ROWS])
def test_every_shared_item_parses_to_the_generator_structure(row: dict) -> None:
    q = parse_cibench(row["prompt"], row["task"])
    assert detect_task(row["prompt"]) == row["task"]
    names = row["node_names"]
    if row["task"] in ("CP", "BA"):
        g = q.graph
        assert set(g.names) <= set(names)
        edges = {(g.names[a], g.names[b]) for a, b in g.edges}
        assert edges == {(names[a], names[b]) for a, b in row["adjacency"]}
        assert [g.names[i] for i in q.causes] == row["truth"]["causes"]
        assert [g.names[i] for i in q.effects] == row["truth"]["effects"]
    else:
        scm = q.scm
        assert set(scm.names) <= set(names)
        assert [scm.names[i] for i in q.queries] == row["truth"]["queries"]
        observed = [scm.names[lit.node] for lit in q.observed]
        assert observed == row["truth"]["observed_roots"]
        edges = {(scm.names[a], scm.names[b]) for a, b in scm.graph.edges}
        assert edges <= {(names[a], names[b]) for a, b in row["adjacency"]}
        if row["task"] == "CI":
            assert [scm.names[lit.node] for lit in q.whatif] == row["truth"]["whatif"]
            assert [lit.value for lit in q.whatif] == row["truth"]["whatif_values"]


def test_glued_article_single_and_plural() -> None:
    text = (HEADER + "Sdemmaab organization has a causal effect on idpngaad extinction and x.\n"
            "Question:\nWe want to estimate the causal effect of thesdemmaab organization on "
            "theidpngaad extinction.\n" + CP_TAIL)
    q = parse_cibench(text)
    assert isinstance(q, PathsQuestion)
    assert q.graph.names[q.causes[0]] == "sdemmaab organization"
    text = (HEADER + "A1 has a causal effect on b1 and c1.\nQuestion:\nWe want to estimate the "
            "causal effect of thes a1 and b1 on thes c1.\n" + CP_TAIL)
    q = parse_cibench(text)
    assert [q.graph.names[i] for i in q.causes] == ["a1", "b1"]
    assert [q.graph.names[i] for i in q.effects] == ["c1"]


def test_unglued_article_and_isolated_cause() -> None:
    text = (HEADER + "Alpha has a causal effect on beta.\nQuestion:\nWe want to estimate the "
            "causal effect of the gamma on the beta.\n" + CP_TAIL)
    q = parse_cibench(text)
    assert q.graph.names == ("alpha", "beta", "gamma")
    assert q.causes == (2,) and not q.graph.parents[2] and not q.graph.children[2]


def test_backdoor_question_and_names_with_of() -> None:
    text = (HEADER + "Generation of x acid has a causal effect on stop of y cell.\nQuestion:\n"
            "We want to estimate the causal effect of thegeneration of x acid on thestop of "
            "y cell.\nBased on the information above, please provide a set of factors that "
            "can block all backdoor paths between them.")
    q = parse_cibench(text)
    assert isinstance(q, BackdoorQuestion)
    assert q.graph.names == ("generation of x acid", "stop of y cell")


SCM = ("The following text describes the assumed causal relationship between events in a "
       "recent study:\nThe x happens if the a happens and the b not happen.\n"
       "The x happens if the c happens.\nThe c is bound to happen.\nQuestion:\n"
       "We have observed the a happened and the b happened.\n")


def test_rules_or_lines_and_bound_roots() -> None:
    q = parse_cibench(SCM + "What about the x? \nYour answer should be plain text and should "
                      "not contain other formats such as markdown.\nAnswer:\n")
    assert isinstance(q, FactualQuestion)
    scm = q.scm
    assert len(scm.rules_for(scm.graph.index("x"))) == 2
    assert scm.bound == 1 << scm.graph.index("c")


def test_whatif_with_typographic_apostrophe_and_empty_query() -> None:
    q = parse_cibench(SCM + "What the  would be if the a didn’t happen and the c happened?")
    assert isinstance(q, CounterfactualQuestion)
    assert q.queries == ()
    assert [(q.scm.names[w.node], w.value) for w in q.whatif] == [("a", False), ("c", True)]


def test_grammar_error_has_line_column_and_expected() -> None:
    bad = SCM.replace("and the b not happen", "and the b maybe")
    with pytest.raises(ParseError) as info:
        parse_cibench(bad + "What about the x?")
    assert info.value.line == 2
    assert info.value.column is not None
    assert info.value.expected


def test_unknown_query_is_reported_where_it_is() -> None:
    with pytest.raises(ParseError) as info:
        parse_cibench(SCM + "What about the zzz?")
    assert "zzz" in info.value.message
    assert (info.value.line, info.value.column) == (7, 16)


def test_cycle_is_rejected() -> None:
    text = (HEADER + "A has a causal effect on b.\nB has a causal effect on a.\nQuestion:\n"
            "We want to estimate the causal effect of thea on theb.\n" + CP_TAIL)
    with pytest.raises(ParseError, match="cycle"):
        parse_cibench(text)


def test_wrong_task_is_rejected() -> None:
    with pytest.raises(ParseError, match="not BA"):
        parse_cibench(ROWS[0]["prompt"], "BA")
