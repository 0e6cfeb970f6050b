"""The grammar reads every shared premise and hypothesis, and rejects bad text with a position."""

from __future__ import annotations

import csv

import pytest
from conftest import DATA, load_rows
from hypothesis import given, settings
from hypothesis import strategies as st

from causal_oracle.oracle.statements import RelationKind, SurfaceForm
from causal_oracle.parser import ParseError, parse_hypothesis, parse_item, parse_premise

FILES = ["n2", "n3", "n4", "n4_fromZ", "n4_paraph", "n5_sample", "n6_sample"]
PROPERTY_KIND = {
    "parent": RelationKind.DIRECT_CAUSE, "child": RelationKind.DIRECT_CAUSE,
    "non-parent ancestor": RelationKind.INDIRECT_CAUSE,
    "non-child descendant": RelationKind.INDIRECT_CAUSE,
    "has_collider": RelationKind.COMMON_EFFECT, "has_confounder": RelationKind.COMMON_CAUSE,
}


@pytest.mark.parametrize("name", FILES)
def test_every_shared_item_parses(name: str) -> None:
    for row in load_rows(name):
        premise = parse_premise(row["premise"])
        assert premise.n == row["num_nodes"]
        hypothesis = parse_hypothesis(row["hypothesis"])
        assert hypothesis.kind is PROPERTY_KIND[row["property"]]
        assert {hypothesis.first, hypothesis.second} <= set(premise.variables)


def test_published_layout_parses() -> None:
    with (DATA / "hf_layout_sample.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 320
    for row in rows:
        premise, hypothesis = parse_item(row["input"])
        assert premise.text.startswith("Suppose there is a closed system")
        assert hypothesis.first in premise.variables


PREMISE = ("Suppose there is a closed system of 3 variables, Rain, Sprinkler and Wet. All the "
           "statistical relations among these 3 variables are as follows: Rain correlates with "
           "Wet. Sprinkler correlates with Wet. However, Rain is independent of Sprinkler.")


def test_multi_letter_names_and_statement_contents() -> None:
    premise = parse_premise(PREMISE)
    assert premise.variables == ("Rain", "Sprinkler", "Wet")
    assert [(c.x, c.y) for c in premise.correlations] == [(0, 2), (1, 2)]
    assert premise.independence_keys() == frozenset({(0, 1, 0)})


def test_conditioning_sets_become_bitmasks() -> None:
    text = ("Suppose there is a closed system of 4 variables, A, B, C and D. All the statistical "
            "relations among these 4 variables are as follows: A correlates with B. However, "
            "C and A are independent given B and D.")
    (statement,) = parse_premise(text).independences
    assert statement.key == (0, 2, 0b1010)
    assert statement.span is not None and statement.span.column > 1


@pytest.mark.parametrize(("text", "kind", "form"), [
    ("A directly causes B.", RelationKind.DIRECT_CAUSE, SurfaceForm.DIRECTLY_CAUSES),
    ("A directly affects B.", RelationKind.DIRECT_CAUSE, SurfaceForm.DIRECTLY_AFFECTS),
    ("A causes something else which causes B.", RelationKind.INDIRECT_CAUSE,
     SurfaceForm.CAUSES_SOMETHING_ELSE),
    ("A is a cause for B, but not a direct one.", RelationKind.INDIRECT_CAUSE,
     SurfaceForm.CAUSE_NOT_DIRECT),
    ("A influences B through some mediator(s).", RelationKind.INDIRECT_CAUSE,
     SurfaceForm.THROUGH_MEDIATORS),
    ("There exists at least one collider (i.e., common effect) of A and B.",
     RelationKind.COMMON_EFFECT, SurfaceForm.COLLIDER_EXISTS),
    ("A and B together cause some other variable(s).", RelationKind.COMMON_EFFECT,
     SurfaceForm.TOGETHER_CAUSE),
    ("There exists at least one confounder (i.e., common cause) of A and B.",
     RelationKind.COMMON_CAUSE, SurfaceForm.CONFOUNDER_EXISTS),
    ("Some variable(s) cause(s) both A and B.", RelationKind.COMMON_CAUSE,
     SurfaceForm.CAUSE_BOTH),
])
def test_every_hypothesis_template(text: str, kind: RelationKind, form: SurfaceForm) -> None:
    h = parse_hypothesis(text)
    assert (h.kind, h.form, h.first, h.second) == (kind, form, "A", "B")


def test_garbage_reports_line_column_and_expected_tokens() -> None:
    with pytest.raises(ParseError) as info:
        parse_premise("Suppose there is the open system")
    error = info.value
    assert (error.line, error.column) == (1, 18)
    assert "'a'" in error.expected, error.expected
    assert "line 1, column 18" in error.describe()


def test_error_on_second_line_of_published_layout() -> None:
    text = PREMISE.replace("Rain", "A").replace("Sprinkler", "B").replace("Wet", "C")
    with pytest.raises(ParseError) as info:
        parse_item(f"Premise: {text}\nHypothesis: A directly causes.")
    assert info.value.line == 2
    assert "a variable name" in info.value.expected


@pytest.mark.parametrize(("text", "message"), [
    (PREMISE.replace("Rain is independent of Sprinkler", "Rain is independent of Snow"),
     "'Snow' is not one of the declared variables"),
    (PREMISE.replace("of 3 variables, Rain", "of 4 variables, Rain"), "declares 4 variables"),
    (PREMISE.replace("Rain is independent of Sprinkler", "Rain is independent of Rain"),
     "relates 'Rain' to itself"),
    (PREMISE.replace("Rain, Sprinkler and Wet", "Rain, Rain and Wet"), "declared twice"),
])
def test_semantic_errors_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_premise(text)
    assert message in str(info.value)
    assert info.value.line == 1 and info.value.column is not None


def test_empty_statement_list_is_a_premise() -> None:
    text = ("Suppose there is a closed system of 2 variables, A and B. All the statistical "
            "relations among these 2 variables are as follows:")
    assert parse_premise(text).independences == ()


def _full_parse(text: str) -> object:
    from causal_oracle.parser.corr2cause_grammar import parse_with

    try:
        return parse_with(text, "premise", "premise")
    except ParseError:
        return None


@pytest.mark.parametrize("name", ["n3", "n4_fromZ", "n6_sample"])
def test_sentence_cached_fast_path_equals_the_full_grammar(name: str) -> None:
    from causal_oracle.parser.corr2cause_fast import parse_premise_fast

    for text in sorted({row["premise"] for row in load_rows(name)})[:200]:
        fast = parse_premise_fast(text)
        assert fast is not None
        full = _full_parse(text)
        assert fast == full
        assert [s.span for s in fast.independences] == [s.span for s in full.independences]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_fast_path_never_accepts_what_the_grammar_rejects(data: st.DataObject) -> None:
    from causal_oracle.parser.corr2cause_fast import parse_premise_fast

    text = data.draw(st.sampled_from(_MUTATION_BASES))
    sentences = text.split(". ")
    op = data.draw(st.sampled_from(["drop", "swap", "dup", "however", "char", "newline"]))
    i = data.draw(st.integers(0, len(sentences) - 1))
    j = data.draw(st.integers(0, len(sentences) - 1))
    if op == "drop":
        del sentences[i]
    elif op == "swap":
        sentences[i], sentences[j] = sentences[j], sentences[i]
    elif op == "dup":
        sentences.insert(i, sentences[j])
    elif op == "however":
        sentences[i] = "However, " + sentences[i]
    mutated = ". ".join(sentences)
    if op == "char":
        k = data.draw(st.integers(0, len(mutated) - 1))
        mutated = mutated[:k] + data.draw(st.sampled_from([".", ",", ":", "x", " ", ""])) + \
            mutated[k + 1:]
    elif op == "newline":
        k = data.draw(st.integers(0, len(mutated) - 1))
        mutated = mutated[:k] + "\n" + mutated[k:]
    fast = parse_premise_fast(mutated)
    if fast is not None:
        full = _full_parse(mutated)
        assert full == fast
        assert [s.span for s in fast.independences] == [s.span for s in full.independences]


_MUTATION_BASES = sorted({row["premise"] for row in load_rows("n4")})
