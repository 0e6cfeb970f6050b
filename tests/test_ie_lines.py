"""The intervention-effect recogniser (``parser.ie_lines``) against the grammar it stands in for.

Every prompt gives the same question (or the same error) whether or not the recogniser
reads it: every template row rendered with letters, with multi-word names and values,
the templates as-is (placeholders), and thousands of token-level mutations of them.
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

from causal_oracle.entry.families.ie_templates import read_templates, render_ie_prompt
from causal_oracle.parser import ie
from causal_oracle.parser.errors import ParseError
from causal_oracle.parser.grammar import load_grammar
from causal_oracle.parser.ie_lines import FOLLOW_NAME, KEYWORDS, recognise

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "ie"
TEMPLATES = [row for path in sorted(DATA.glob("*/*.csv")) for row in read_templates(path)]


def _prompts() -> list[str]:
    rng = random.Random(0)
    out = [render_ie_prompt(t, rng)["prompt"] for t in TEMPLATES]
    out += [render_ie_prompt(t, rng, names=["Altitude", "Air Temperature", "Snow"][:3],
                             values=["1 km", "10 C", "x"])["prompt"] for t in TEMPLATES[:60]]
    sample = ROOT / "examples" / "ie_sample.jsonl"
    out += [json.loads(line)["prompt"] for line in sample.open(encoding="utf-8")]
    return out


PROMPTS = _prompts()


def _outcome(read, text: str) -> object:  # type: ignore[no-untyped-def]
    try:
        return read(text)
    except ParseError as error:
        return ("error", str(error))


def _same(text: str) -> None:
    assert _outcome(ie.parse_ie, text) == _outcome(ie.parse_with_grammar, text), text[:300]


def test_keywords_are_the_grammars_literals() -> None:
    parser = load_grammar(ie._GRAMMAR, "item")
    assert {t.pattern.value for t in parser.terminals if t.pattern.type == "str"} == KEYWORDS


def test_follow_name_is_what_the_grammar_lets_follow_a_word_of_a_name() -> None:
    parser = load_grammar(ie._GRAMMAR, "item")
    (helper,) = {r.expansion[0] for r in parser.rules if r.origin == NonTerminal("name")}
    follow = GrammarAnalyzer(ParserConf(parser.rules, {}, ["item"])).FOLLOW[helper]
    patterns = {t.name: t.pattern for t in parser.terminals}
    assert {patterns[t.name].value for t in follow if patterns[t.name].type == "str"} == \
        set(FOLLOW_NAME)


def test_every_rendered_template_is_recognised_and_reads_as_the_grammar_reads_it() -> None:
    for text in PROMPTS:
        assert recognise(text) is not None, text[:300]
        assert ie.parse_ie(text) == ie.parse_with_grammar(text)


def test_the_templates_as_is_read_as_the_grammar_reads_them() -> None:
    for row in TEMPLATES:
        _same(f"{row['prompt']}. \n{row['question']}")


_TOKENS = re.compile(r"I'm|<variable>|<value>|<(?:v?T[0-9]+|do)>|[A-Za-z0-9_][A-Za-z0-9_\-]*"
                     r"|[',().=:?]|\s+|.")
_INSERTS = (*sorted(KEYWORDS), "X", "Y Z", "(", ")", "=", "( ", " )", "I", "'m", "<T1>",
            "\u00a0", "do", "Causes", "the the", "a b")


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
            tokens[i] = tokens[i].upper() if rng.random() < 0.5 else tokens[i].lower()
    return "".join(tokens)


@pytest.mark.parametrize("seed", range(4))
def test_mutated_prompts_read_as_the_grammar_reads_them(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(150):
        _same(_mutate(rng.choice(PROMPTS), rng))


def test_an_error_found_after_recognising_keeps_its_place() -> None:
    text = ("I'm going to describe a causal graphical model. There are two variables: X and "
            "Y. X causes Y. Y causes X. These are all the causal relationships in the graph. "
            "\nIn this causal graphical model, does X cause Y?")
    assert recognise(text) is not None
    with pytest.raises(ParseError) as caught:
        ie.parse_ie(text)
    assert caught.value.line is not None
