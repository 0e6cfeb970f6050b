"""The regular-expression sentence path agrees with the grammar wherever it answers."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from causal_oracle.oracle.memo import Memory, using
from causal_oracle.parser import parse_premise
from causal_oracle.parser.corr2cause_fast import _quick_sentence, _sentence
from causal_oracle.parser.corr2cause_grammar import parse_with

WORDS = ["A", "B", "C", "X1", "long_name", "and", "given", "is", "of", "correlates", "with",
         "However", ",", ".", "are", "independent", "  ", "\n", "B2", "_z"]
TEMPLATES = ["{a} correlates with {b}.", "{a} is independent of {b}.",
             "However, {a} is independent of {b}.",
             "{a} and {b} are independent given {g}.",
             "However , {a}  and {b} are independent given {g} ."]


def _grammar(text: str) -> object:
    try:
        however, raw = _sentence(text)
    except Exception:  # the grammar rejects it
        return None
    return (however, raw.kind, tuple(map(str, raw.names)), tuple(map(str, raw.given)),
            raw.span)


def _agree(text: str) -> None:
    quick = _quick_sentence(text)
    if quick is not None:
        however, raw = quick
        assert (however, raw.kind, raw.names, raw.given, raw.span) == _grammar(text), text


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_quick_sentences_agree_with_the_grammar(seed: int) -> None:
    rng = random.Random(seed)
    names = ["A", "B", "C", "Dx", "e_1", "and", "given", "of", "Z9"]
    a, b = rng.sample(names, 2)
    gs = rng.sample(names, rng.randint(1, 4))
    g = gs[0] if len(gs) == 1 else ", ".join(gs[:-1]) + " and " + gs[-1]
    text = rng.choice(TEMPLATES).format(a=a, b=b, g=g)
    _agree(text)
    _agree(_mutated(rng, text, WORDS))


def _mutated(rng: random.Random, text: str, vocabulary: list[str]) -> str:
    """``text`` with one space-separated word dropped, doubled or replaced by a word of
    ``vocabulary``."""
    words = text.split(" ")
    i = rng.randrange(len(words))
    op = rng.randrange(3)
    if op == 0:
        del words[i]
    elif op == 1:
        words.insert(i, words[i])
    else:
        words[i] = rng.choice(vocabulary)
    return " ".join(words)


def _random_premise(rng: random.Random, names: list[str], sep: str = " ") -> str:
    """A premise over ``names``: random correlations, then (after "However," when there
    are correlations) random marginal and conditional independencies, ``sep`` between
    sentences."""
    n = len(names)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    corr = [f"{a} correlates with {b}." for a, b in pairs if rng.random() < 0.5]
    ind = []
    for a, b in pairs:
        rest = [v for v in names if v not in (a, b)]
        if rng.random() < 0.3:
            ind.append(f"{a} is independent of {b}.")
        if rest and rng.random() < 0.5:
            gs = rng.sample(rest, rng.randint(1, len(rest)))
            g = gs[0] if len(gs) == 1 else ", ".join(gs[:-1]) + " and " + gs[-1]
            ind.append(f"{a} and {b} are independent given {g}.")
    text = (f"Suppose there is a closed system of {n} variables, "
            f"{', '.join(names[:-1])} and {names[-1]}. All the statistical relations "
            f"among these {n} variables are as follows:" + sep + sep.join(corr))
    if ind:
        text += (sep + "However, " if corr else sep) + sep.join(ind)
    return text


def test_fast_premise_equals_the_full_grammar() -> None:
    rng = random.Random(3)
    for _ in range(30):
        n = rng.randint(2, 7)
        text = _random_premise(rng, [f"V{i}" for i in range(n)])
        fast = parse_premise(text)
        full = parse_with(text, "premise", "premise")
        assert fast.variables == full.variables  # type: ignore[attr-defined]
        assert fast.correlations == full.correlations  # type: ignore[attr-defined]
        assert fast.independences == full.independences  # type: ignore[attr-defined]
        assert [s.span for s in fast.independences] == \
            [s.span for s in full.independences]  # type: ignore[attr-defined]


def _outcome(parse: object, text: str) -> object:
    try:
        p = parse(text)  # type: ignore[operator]
    except Exception as error:  # the grammar's error: both paths must give it
        return type(error).__name__
    return (p.variables, p.correlations, p.independences,  # type: ignore[attr-defined]
            [s.span for s in p.correlations],  # type: ignore[attr-defined]
            [s.span for s in p.independences])  # type: ignore[attr-defined]


@settings(max_examples=600, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_premise_fast_paths_equal_the_grammar_on_mutated_premises(seed: int) -> None:
    """The one-scan statement reader (``_bulk_statements``) and the sentence-by-sentence
    path give exactly the grammar's premise — statements, spans, lines and columns — or
    leave the text to the grammar, also on premises with newlines, odd spacing, keyword
    names and broken sentences."""
    rng = random.Random(seed)
    n = rng.randint(2, 6)
    names = rng.sample(["A", "B", "C", "Dx", "e_1", "Z9", "V0", "and", "given"], n)
    sep = rng.choice([" ", " ", "  ", "\n", " \n "])
    text = _random_premise(rng, names, sep)
    if rng.random() < 0.5:
        text = _mutated(rng, text, WORDS + names)
    assert _outcome(parse_premise, text) == _outcome(
        lambda t: parse_with(t, "premise", "premise"), text)


def test_sentences_remembered_across_premises_give_the_grammars_premise() -> None:
    """In a service's memory the statement reader remembers what each sentence says
    under a head's names, and the spans of one-line premises, across premises: the
    premises stay exactly the grammar's (statements, spans, lines and columns) when
    earlier premises had other names, other positions, newlines or broken sentences."""
    rng = random.Random(11)
    grammar = lambda t: parse_with(t, "premise", "premise")  # noqa: E731
    with using(Memory(64)):
        for _ in range(300):
            names = rng.sample(["A", "B", "C", "Dx", "e_1"], rng.randint(2, 5))
            sep = rng.choice([" ", " ", "  ", "\n", " \n "])
            text = rng.choice(["", "", " "]) + _random_premise(rng, names, sep)
            if rng.random() < 0.3:
                text = _mutated(rng, text, WORDS + names)
            assert _outcome(parse_premise, text) == _outcome(grammar, text)
