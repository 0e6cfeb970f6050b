"""The CI-Bench recogniser (``parser.cibench_lines``) against the grammar it stands in for.

Every prompt must give the same question (or the same error) whether or not the
recogniser reads it: on every shared item, on generated items, and on thousands of
token-level mutations of them (keywords in names, glued articles, missing or doubled
punctuation, other cases), where the recogniser must either agree or step aside.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from lark.common import ParserConf
from lark.grammar import NonTerminal
from lark.parsers.grammar_analysis import GrammarAnalyzer

from causal_oracle.parser import cibench
from causal_oracle.parser.cibench_lines import _TOKEN, FOLLOW_NAME, KEYWORDS, recognise
from causal_oracle.parser.errors import ParseError
from causal_oracle.parser.grammar import load_grammar

ROOT = Path(__file__).resolve().parent.parent
FILES = [ROOT / "tests" / "data" / "cibench" / "items_sample.jsonl",
         ROOT / "examples" / "cibench_sample.jsonl",
         Path("/work/shared/data/cibench/items_sample.jsonl")]
WORD = re.compile(r"[a-z0-9][a-z0-9'’_\-]*", re.IGNORECASE)


def _prompts() -> list[str]:
    out: list[str] = []
    for path in FILES:
        if path.exists():
            out += [json.loads(line)["prompt"] for line in path.open(encoding="utf-8")
                    if json.loads(line).get("task") in ("CP", "BA", "FI", "CI")]
    return out


PROMPTS = _prompts()


def _outcome(read, text: str) -> object:  # type: ignore[no-untyped-def]
    try:
        return read(text)
    except ParseError as error:
        return ("error", str(error))


def _same(text: str) -> None:
    fast = _outcome(cibench.parse_cibench, text)
    slow = _outcome(cibench.parse_with_grammar, text)
    assert fast == slow, text[:300]


def test_keywords_are_the_grammars_word_literals() -> None:
    parser = load_grammar(cibench._GRAMMAR, "prompt")
    literals = {t.pattern.value.casefold() for t in parser.terminals
                if t.pattern.type == "str" and WORD.fullmatch(t.pattern.value)}
    assert literals == set(KEYWORDS)


def test_the_token_pattern_is_the_grammars_word_without_the_case_flag() -> None:
    """``_TOKEN`` spells the grammar's case-blind ``WORD`` out: the same characters start
    and continue a word, over every code point."""
    start, rest = re.compile(r"[a-z0-9]", re.I), re.compile(r"[a-z0-9'’_\-]", re.I)
    for code in range(0x110000):
        c = chr(code)
        assert bool(_TOKEN.fullmatch(c)) == bool(start.fullmatch(c) or c in ".,:?"), hex(code)
        assert bool(_TOKEN.fullmatch("a" + c)) == bool(rest.fullmatch(c)), hex(code)


def test_follow_name_is_what_the_grammar_lets_follow_a_word_of_a_name() -> None:
    """``name: WORD+`` is a helper rule that Lark shares with the intro's ``WORD*``: what
    may follow the helper is what the lexer may take as a keyword inside a name."""
    parser = load_grammar(cibench._GRAMMAR, "prompt")
    (helper,) = {r.expansion[0] for r in parser.rules if r.origin == NonTerminal("name")}
    follow = GrammarAnalyzer(ParserConf(parser.rules, {}, ["prompt"])).FOLLOW[helper]
    patterns = {t.name: t.pattern.value for t in parser.terminals}
    words = {patterns[t.name].casefold() for t in follow
             if t.name in patterns and WORD.fullmatch(patterns[t.name])}
    assert words == set(FOLLOW_NAME)


def test_every_shared_item_is_recognised_and_reads_as_the_grammar_reads_it() -> None:
    assert len(PROMPTS) >= 440
    for text in PROMPTS:
        assert recognise(text) is not None, text[:200]
        assert cibench.parse_cibench(text) == cibench.parse_with_grammar(text)


def test_generated_items_read_as_the_grammar_reads_them() -> None:
    from causal_oracle.entry import default
    from causal_oracle.entry.families.cibench_generator import CIBenchKnobs, draw
    rng = random.Random(7)
    for task in ("CP", "BA", "FI", "CI"):
        for name_type in ("specific", "bio"):
            for _ in range(3):
                item = draw(CIBenchKnobs(tasks=(task,), name_types=(name_type,)), rng,
                            default())
                text = item["item"]
                assert recognise(text) is not None, text[:200]
                assert cibench.parse_cibench(text) == cibench.parse_with_grammar(text)


_TOKENS = re.compile(r"[a-z0-9][a-z0-9'’_\-]*|[.,:?]|\s+|.", re.IGNORECASE)
_INSERTS = (*sorted(KEYWORDS), "The", "THE", "thes", "Has", "Study", "study", ",", ".", "?",
            ":", "and", "(", "x", "thex", "Of", "ſtudy", "didn’t", "the the", "\u00a0")


def _mutate(text: str, rng: random.Random) -> str:
    tokens = _TOKENS.findall(text)
    words = [i for i, t in enumerate(tokens) if not t.isspace()]
    for _ in range(rng.randint(1, 2)):
        i = rng.choice(words)
        action = rng.randrange(4)
        if action == 0:
            tokens[i] = rng.choice(_INSERTS)
        elif action == 1:
            tokens[i] = ""
        elif action == 2:
            tokens[i] = f"{tokens[i]} {rng.choice(_INSERTS)}"
        else:
            tokens[i] = tokens[i].upper() if rng.random() < 0.5 else tokens[i].capitalize()
    return "".join(tokens)


@pytest.mark.parametrize("seed", range(4))
def test_mutated_prompts_read_as_the_grammar_reads_them(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(150):
        _same(_mutate(rng.choice(PROMPTS), rng))


@pytest.mark.parametrize("text", [
    # a keyword inside a name where the grammar takes it as a word
    "A has a causal effect on effect a.\nQuestion:\nWe want to estimate the causal effect "
    "of thea on theeffect a.\nBased on the information above, please identify all the "
    "causal paths between them.",
    # names starting with a keyword, a glued list, a question without queries
    "The of x happens if the b happens.\nQuestion:\nWe have observed the b happened.\n"
    "What about the?",
    "The x happens if the b happens.\nQuestion:\nWe have observed the b didn’t happen.\n"
    "What the x would be if the b happened?",
    "A has a causal effect on b, c and d.\nQuestion:\nWe want to estimate the causal effect "
    "of thes a and b on thec.\nBased on the information above, please provide a set of "
    "factors that can block all backdoor paths between them.",
    "A has a causal effect on b, c.\nQuestion:\nWe want to estimate the causal effect "
    "of thea on theb.\nBased on the information above, please identify all the causal "
    "paths between them.",
    "A has a causal effect on a.\nQuestion:\nWe want to estimate the causal effect "
    "of thea on theb.\nBased on the information above, please identify all the causal "
    "paths between them.",
])
def test_corner_cases_read_as_the_grammar_reads_them(text: str) -> None:
    _same(text)


def test_an_error_found_after_recognising_keeps_its_place() -> None:
    text = ("X has a causal effect on y.\nY has a causal effect on x.\nQuestion:\nWe want to "
            "estimate the causal effect of thex on they.\nBased on the information above, "
            "please identify all the causal paths between them.")
    assert recognise(text) is not None
    with pytest.raises(ParseError) as caught:
        cibench.parse_cibench(text)
    assert caught.value.line is not None and "cycle" in str(caught.value)
