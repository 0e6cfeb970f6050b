"""The claim reader: clauses, name binding, templates, negation, hedges, bounds."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lark.exceptions import LarkError, VisitError

from causal_oracle.oracle.reasoning.facts import dag_facts
from causal_oracle.oracle.reasoning.model import ClaimKind, Quantity, Relation
from causal_oracle.oracle.reasoning.verdicts import check_claims, contradictions
from causal_oracle.parser import claims as claims_module
from causal_oracle.parser.claims import _parse_words, _parser, read_claims, untagged
from causal_oracle.parser.claims_lalr import _empty_rules
from causal_oracle.parser.claims_templates import NotAClaim
from causal_oracle.parser.claims_text import (
    END,
    KIND,
    MAX_SENTENCES,
    RAW,
    START,
    TEXT,
    Kind,
    clauses,
    sentences,
)

ABC = ("A", "B", "C")
#: one word of the scan's token pattern
_WORD_ALONE = re.compile(r"[^\W\d]\w*(?:['’-][^\W\d_]\w*)*")
K = ClaimKind


def read(text: str, names: tuple[str, ...] = ABC) -> list[tuple[str, tuple[int, ...], bool]]:
    return [(c.kind.value, c.variables, c.polarity) for c in read_claims(text, names)]


@pytest.mark.parametrize(("text", "expected"), [
    ("A is independent of B.", [("independence", (0, 1), True)]),
    ("A and B are not independent given C.", [("independence", (0, 1), False)]),
    ("A and B are dependent.", [("independence", (0, 1), False)]),
    ("A correlates with C.", [("correlation", (0, 2), True)]),
    ("A is uncorrelated with C.", [("correlation", (0, 2), False)]),
    ("A and B are d-separated by C.", [("d_separation", (0, 1), True)]),
    ("A -> B <- C.", [("edge", (0, 1), True), ("edge", (2, 1), True)]),
    ("A → B", [("edge", (0, 1), True)]),
    ("A directly causes B.", [("edge", (0, 1), True)]),
    ("A causes B directly.", [("edge", (0, 1), True)]),
    ("A is not a direct cause of B.", [("edge", (0, 1), False)]),
    ("B is a child of A.", [("edge", (0, 1), True)]),
    ("A is a parent of B.", [("edge", (0, 1), True)]),
    ("There is no edge between A and C.", [("adjacent", (0, 2), False)]),
    ("A and C are non-adjacent.", [("adjacent", (0, 2), False)]),
    ("A is the cause of C.", [("cause", (0, 2), True)]),
    ("A isn't the cause of B.", [("cause", (0, 1), False)]),
    ("A does not cause B.", [("cause", (0, 1), False)]),
    ("C is caused by A.", [("cause", (0, 2), True)]),
    ("C is a descendant of A.", [("cause", (0, 2), True)]),
    ("A is an ancestor of C.", [("cause", (0, 2), True)]),
    ("There is a directed path from A to C.", [("cause", (0, 2), True)]),
    ("A and B cause C.", [("cause", (0, 2), True), ("cause", (1, 2), True)]),
    ("A causes C indirectly.", [("indirect_cause", (0, 2), True)]),
    ("A causes C through B.", [("mediator", (1, 0, 2), True)]),
    ("B is a mediator between A and C.", [("mediator", (1, 0, 2), True)]),
    ("C is a collider between A and B.", [("collider", (2, 0, 1), True)]),
    ("B—A—C is not a collider.", [("collider", (0, 1, 2), False)]),
    ("A and B have a common effect.", [("common_effect", (0, 1), True)]),
    ("C is a common cause of A and B.", [("confounder", (2, 0, 1), True)]),
    ("A and B do not have a common cause.", [("confounder", (0, 1), False)]),
    ("The path A -> C <- B is blocked.", [("path_blocked", (0, 2, 1), True)]),
    ("The path A - C - B is open given C.", [("path_blocked", (0, 2, 1), False)]),
    ("{C} is a valid adjustment set for the effect of A on B.",
     [("adjustment_set", (0, 1), True)]),
    ("We should adjust for C.", [("adjustment_set", (), True)]),
    ("The direction of the edge between A and C is not determined.",
     [("compelled", (0, 2), False)]),
    ("The edge between A and C can be oriented either way.", [("compelled", (0, 2), False)]),
    ("The Markov equivalence class has 3 members.", [("class_size", (), True)]),
    ("Answer: No", [("answer", (), False)]),
    ("So the answer is yes.", [("answer", (), True)]),
])
def test_templates(text: str, expected: list[tuple[str, tuple[int, ...], bool]]) -> None:
    assert read(text) == expected


@pytest.mark.parametrize("text", [
    "If A is the cause of C, then A must be the cause of B.",
    "A might cause B.", "Suppose A causes B.", "A may be independent of B.",
    "Assume that A is a parent of B.", "Perhaps A causes C.",
    "Is A a cause of C?", "A is a dependent variable.", "Let us think step by step.",
    "A causes B or C causes B.", "a causes b.",
])
def test_no_claim_is_guessed(text: str) -> None:
    """Hedges, questions, prose and the article "a" make no claim."""
    assert read(text) == []


def test_names_are_bound_as_models_write_them() -> None:
    names = ("smoking", "lung cancer", "tar")
    assert read("Smoking causes lung cancer.", names) == [("cause", (0, 1), True)]
    assert read("The variable 'tar' is a mediator between smoking and lung cancer.",
                names) == [("mediator", (2, 0, 1), True)]
    assert read("Node 'a' directly causes node B.") == [("edge", (0, 1), True)]
    assert read("Smoking causes cancer.", names) == []  # "cancer" is not a declared name


def test_spans_quote_the_claim() -> None:
    text = "No. Step 4: A is the cause of C. In other words, A is not the cause of C, but " \
           "rather B is the cause of A."
    claims = read_claims(text, ABC)
    assert [text[c.span[0]:c.span[1]] for c in claims] == [
        "No", "A is the cause of C", "A is not the cause of C", "B is the cause of A"]


def test_numbers() -> None:
    names = ("X", "Y")
    (c,) = read_claims("P(Y=1 | X=0) = 0.26", names)
    assert c.kind is K.NUMBER and c.number == 0.26 and c.decimals == 2
    assert c.quantity == Quantity("P", ((1, 1),), ((0, 0),))
    (c,) = read_claims("The ATE is -0.08.", names)
    assert c.quantity == Quantity("ate") and c.number == -0.08
    (c,) = read_claims("P(Y=1|X=1) is greater than P(Y=1|X=0).", names)
    assert c.kind is K.COMPARISON and c.relation is Relation.GREATER
    assert c.other == Quantity("P", ((1, 1),), ((0, 0),))
    (c,) = read_claims("The probability is 43%", names) or [None]
    assert c is None


def test_the_reader_is_bounded_and_linear() -> None:
    many = "A causes B. " * (MAX_SENTENCES * 3)
    assert len(read_claims(many, ABC)) == MAX_SENTENCES
    long = "A causes B " + "and so on " * 10_000 + "."
    assert read_claims(long, ABC) == []
    small = "Step 1: A is the cause of C. We think hard about it. " * 50
    start = time.perf_counter()
    read_claims(small, ABC)
    one = time.perf_counter() - start
    start = time.perf_counter()
    read_claims(small * 20, ABC)
    assert time.perf_counter() - start < 60 * one + 0.5  # loose: linear, not quadratic


def test_clauses_drop_leads_and_split_at_connectives() -> None:
    words = [c.words for c in clauses("Therefore, A causes B, but C causes B.", ABC)]
    assert words == [["V0", "causes", "V1"], ["V2", "causes", "V1"]]


WORDS = ["A", "B", "C", "a", "'A'", "node", "is", "not", "are", "and", "the", "cause", "causes",
         "of", "independent", "given", "collider", "between", "->", "<-", "--", ",", ".", ":",
         "P(", "B=1", "|", ")", "=", "0.4", "-0.2", "43%", "{", "}", "path", "blocked", "answer",
         "yes", "no", "if", "then", "through", "mediator", "common", "effect", "there", "edge",
         "from", "to", "directly", "Let", "X", "adjust", "we", "should", "for", "class", "has",
         "3", "members", "direction", "determined", "\n", "?", "ATE", "greater", "than"]


@given(st.lists(st.sampled_from(WORDS), max_size=60), st.text(max_size=80))
@settings(max_examples=300, deadline=None)
def test_any_text_is_read_without_error(words: list[str], noise: str) -> None:
    """Whatever a reply holds, reading and checking it never raises, and every claim's
    span lies inside the reply and names declared variables only."""
    text = " ".join(words) + noise
    facts = dag_facts(ABC, [(0, 2), (1, 2)], query=(0, 2), answer=True)
    claims = read_claims(text, ABC)
    for claim in claims:
        assert 0 <= claim.span[0] < claim.span[1] <= len(text)
        assert all(0 <= v < len(ABC) for v in (*claim.variables, *claim.given))
    check_claims(facts, claims, text)
    contradictions(claims, ABC)


@given(st.lists(st.sampled_from(WORDS), max_size=30))
@settings(max_examples=300, deadline=None)
def test_the_templates_automaton_parses_as_lark_does(words: list[str]) -> None:
    """The reader drives the templates' LALR table itself (no lexer thread, no
    exception per failed clause); on every clause, and each of its prefixes (as the
    conjunct splitter tries them), it gives what Lark's own parser gives."""
    parser = _parser()[0]
    for clause in clauses(" ".join(words), ABC):
        for end in range(1, len(clause.words) + 1):
            prefix = tuple(clause.words[:end])
            try:
                expected = tuple(tuple(g) for g in parser.parse(list(prefix)))  # type: ignore[arg-type]
            except (LarkError, NotAClaim, VisitError):
                expected = None
            assert _parse_words.__wrapped__(prefix) == expected


@given(st.lists(st.sampled_from(WORDS), max_size=30))
@settings(max_examples=200, deadline=None)
def test_a_clause_no_template_opens_is_left_out_as_the_automaton_would(words: list[str]
                                                                       ) -> None:
    """The first-word test leaves out exactly the clauses whose first word the
    automaton rejects at once: the clauses kept are the others, in order, unchanged."""
    automaton = claims_module._automaton()
    assert automaton is not None
    text = " ".join(words)
    every = clauses(text, ABC)
    kept = clauses(text, ABC, opens=automaton.opens)
    assert [(c.words, c.start, c.end) for c in kept] == \
        [(c.words, c.start, c.end) for c in every if automaton.opens(c.words[0])]
    for clause in every:
        if not automaton.opens(clause.words[0]):
            assert automaton.run(tuple(clause.words)) is None


@given(st.text(alphabet="aB xY  .,-'’1(=)\tΣİ", max_size=60))
@settings(max_examples=300, deadline=None)
def test_a_run_of_words_is_cut_into_the_words_one_match_each_would_give(text: str) -> None:
    """The scan takes a run of space-separated words in one match: each word token is
    still the reply's characters at its span (lower-cased), one word of the token
    pattern alone, and the tokens follow each other without overlap."""
    for sentence in sentences(text):
        for tok in sentence:
            if tok[KIND] is Kind.WORD:
                assert tok[RAW] == text[tok[START]:tok[END]]
                assert tok[TEXT] == tok[RAW].lower().replace("’", "'")
                assert _WORD_ALONE.fullmatch(tok[RAW]) and " " not in tok[RAW]
        assert all(a[END] <= b[START] for a, b in zip(sentence, sentence[1:], strict=False))


def test_inlined_rules_that_keep_no_child_are_found_from_the_grammar() -> None:
    """The automaton splices nothing from an inlined rule none of whose alternatives
    keeps a child (``_be``; ``_equals``, one of whose alternatives is ``_be``), and
    still splices the ones that keep variables (``_of_pair``, ``_for_effect``)."""
    inner = _parser()[0].parser.parser.parser
    empty = _empty_rules(inner.callbacks)
    assert {"_be", "_equals", "_adv", "_do"} <= empty
    assert not {"_of_pair", "_for_effect", "_direction"} & empty
    assert all(name.startswith("_") for name in empty)


def test_the_automaton_reads_every_template_family() -> None:
    """Claims of many templates go through the automaton (not only rejections)."""
    text = ("A and B are not independent given C. A -> B <- C. The class has 3 members. "
            "P(C=1 | A=1) = 0.4. The ATE is greater than 0. {C} is an adjustment set for "
            "the effect of A on B. Answer: yes")
    kinds = {c.kind for c in read_claims(text, ABC)}
    assert kinds == {K.INDEPENDENCE, K.EDGE, K.CLASS_SIZE, K.NUMBER, K.COMPARISON,
                     K.ADJUSTMENT_SET, K.ANSWER}


def test_a_claim_said_again_keeps_its_verdict_and_its_own_span() -> None:
    """Verdicts are remembered per item: the same claim at two places (or in another
    reply to the item) gets the one verdict, each occurrence its own span and words."""
    facts = dag_facts(ABC, [(0, 2), (1, 2)], query=(0, 2), answer=True)
    text = "A causes C. B is not a parent of C. So A causes C."
    first = check_claims(facts, read_claims(text, ABC), text)
    assert [c.verdict.value for c in first] == ["true", "false", "true"]
    assert first[0].claim.span != first[2].claim.span
    assert [c.text for c in first] == ["A causes C", "B is not a parent of C", "A causes C"]
    again = check_claims(facts, read_claims("C is caused by A.", ABC), "C is caused by A.")
    assert again[0].verdict is first[0].verdict and again[0].why == first[0].why


def test_without_the_automaton_lark_parses(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Lark that keeps its parse table elsewhere: the reader falls back on
    ``Lark.parse`` and reads the same claims."""
    text = "A causes B and B causes C. A is not a collider. P(C=1 | A=1) = 0.4. Answer: no"
    expected = read_claims(text, ABC)  # no service memory in use: every clause is parsed
    monkeypatch.setattr(claims_module, "_automaton", lambda: None)
    assert read_claims(text, ABC) == expected and len(expected) == 5


def test_reasoning_inside_think_blocks_is_read_with_spans_into_the_reply() -> None:
    for reply in ("<think>A causes B. B is a collider.</think>Answer: Yes",
                  "<think>A causes B. B is a collider", "A causes B. B is a collider.</think>",
                  "<thinking>A causes B.\nB is a collider.</thinking>\n\nyes"):
        claims = read_claims(reply, ABC)
        texts = [reply[slice(*c.span)] for c in claims]
        assert texts[:2] == ["A causes B", "B is a collider"], reply
    assert untagged("x<think>y</think>z") == "x\n      y\n       z"
