"""How CLadder's sentences are read: a grammar for their shape, a vocabulary for their slots.

The grammar (``cladder.lark``, compiled once by ``grammar()``) knows only the *shape* of
each sentence — "X has a direct effect on Y.", "For those who are …, the probability of …
is p%." — and leaves every phrase it cannot know in advance as an open slot: a variable's
name, a value phrase ("ringing alarm"), a list of them joined by "and"/"or".  A slot is
read by a ``Reader`` holding one story variant's vocabulary (``parser.cladder_vocabulary``)
for the graph at hand:

* a single phrase must be one of that story's phrases for a variable of the graph; a
  phrase the story gives two meanings returns both (and is noted as ambiguous);
* a list is cut at its separators in every way whose parts all read (``partitions``):
  phrases may themselves contain "and", so "smoking and not exercising and tar" is tried
  at each " and "; exactly one way must read, and at most ``MAX_PARTS`` parts and
  ``MAX_READINGS`` ways are considered (the walk is bounded, whatever the text).

A slot that does not read raises ``Unreadable`` (the message and the token), turned into a
``ParseError`` placed in the whole prompt by ``unreadable_error``; Lark's own errors and
numbers out of range (``check_numbers``, ``parser.numbers``) are placed the same way.

>>> from causal_oracle.parser.cladder_vocabulary import vocabulary
>>> parts = partitions("a and b and c", (" and ",), lambda s: s if s in ("a", "b and c") else None)
>>> [[chunk for _, chunk, _ in way] for way in parts]
[['a', 'b and c']]
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput

from causal_oracle.oracle.cladder.model import (
    Lit,
)
from causal_oracle.oracle.errors import quote
from causal_oracle.parser.cladder_vocabulary import Variant
from causal_oracle.parser.errors import ParseError, from_lark
from causal_oracle.parser.grammar import BudgetedLexing, SemanticError, caret, terminal_patterns
from causal_oracle.parser.numbers import Kind, count, stated

_GRAMMAR = Path(__file__).with_name("cladder.lark")
TERMINAL_NAMES = {"CAUSE_NAME": "a variable's name", "NAME_LIST": "names", "EVENT": "an event",
          "CONDITION": "a condition", "PERCENT": "a percentage", "DECIMAL": "a number",
          "TAIL": "the rest of the question", "$END": "end of text"}
#: at most this many readings of one text (a phrase with two meanings doubles them)
MAX_READINGS = 64
#: at most this many "and"/"or"-separated parts in one slot
MAX_PARTS = 12

T = TypeVar("T")


@cache  # the compiled grammar: a constant
def grammar() -> Lark:
    return Lark(_GRAMMAR.read_text(encoding="utf-8"),
                start=["head", "question", "background", "sentence"],
                parser="lalr", propagate_positions=False, maybe_placeholders=False,
                postlex=BudgetedLexing())


def normalise(text: str) -> str:
    """Blanks collapsed to single spaces (the grammar's slots compare phrases this way)."""
    return " ".join(text.split())


# ---- reading errors ---------------------------------------------------------------------
class Unreadable(Exception):
    """A slot this variant's vocabulary cannot read (message, token)."""

    def __init__(self, message: str, token: Token, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.token = token
        self.offset = offset


def unreadable_error(text: str, problem: Unreadable) -> ParseError:
    pos = problem.token.start_pos + problem.offset if problem.token.start_pos is not None \
        else None
    column = None if pos is None else pos + 1
    return ParseError(f"cannot read the question: {problem.message}", line=1, column=column,
                      context=caret(text, pos), what="CLadder question")


# ---- splitting slots through the vocabulary --------------------------------------------
def partitions(text: str, separators: Sequence[str], accept: Callable[[str], T | None],
               ) -> list[list[tuple[str, str, T]]]:
    """Every way to cut ``text`` at ``separators`` into parts that ``accept`` reads: per
    part, the separator before it ("" for the first), its text and what ``accept``
    returned."""
    pieces: list[tuple[str, str]] = [("", text)]  # (separator before, piece)
    for sep in separators:
        nxt: list[tuple[str, str]] = []
        for before, piece in pieces:
            parts = piece.split(sep)
            nxt.append((before, parts[0]))
            nxt.extend((sep, p) for p in parts[1:])
        pieces = nxt
    if len(pieces) > MAX_PARTS:
        return []
    out: list[list[tuple[str, str, T]]] = []

    def walk(i: int, acc: list[tuple[str, str, T]]) -> None:
        if i == len(pieces):
            out.append(list(acc))
            return
        chunk = pieces[i][1]
        for j in range(i, len(pieces)):
            if j > i:
                chunk += pieces[j][0] + pieces[j][1]
            value = accept(chunk)
            if value is not None:
                acc.append((pieces[i][0], chunk, value))
                walk(j + 1, acc)
                acc.pop()
            if len(out) > MAX_READINGS:
                return

    walk(0, [])
    return out


@dataclass(frozen=True)
class Alternatives:
    """A resolved sentence: the statement(s) it can mean (one for an unambiguous one)."""

    options: tuple[Any, ...]


class Reader:
    """Reads slots with one story variant's vocabulary for a given graph."""

    def __init__(self, variant: Variant, nodes: dict[str, int]) -> None:
        self.variant = variant
        self.node_of_letter: dict[str, int] = {}
        for name, node in nodes.items():
            letter = variant.letter(name)
            if letter is not None:
                self.node_of_letter[letter] = node
        self.ambiguous: list[str] = []

    # -- single phrases
    def try_value(self, text: str) -> tuple[Lit, ...] | None:
        """Every (variable, value) the phrase may mean in this story; None if none."""
        found = tuple((self.node_of_letter[letter], value)
                      for letter, value in self.variant.values(text)
                      if letter in self.node_of_letter)
        return found or None

    def try_name(self, text: str) -> int | None:
        """The graph's node the name stands for in this story; None if none."""
        letter = self.variant.letter(text)
        return None if letter is None else self.node_of_letter.get(letter)

    def value(self, token: Token, what: str) -> tuple[Lit, ...]:
        found = self.try_value(str(token))
        if found is None:
            raise Unreadable(f"{quote_phrase(token)} is not a value of any variable of the "
                             f"graph in the story vocabulary ({what})", token)
        if len(found) > 1:
            self.ambiguous.append(normalise(str(token)))
        return found

    def name(self, token: Token | str, where: Token, what: str) -> int:
        node = self.try_name(str(token))
        if node is None:
            raise Unreadable(f"{quote_phrase(token)} is not the name of a variable of the graph "
                             f"({what})", where)
        return node

    # -- lists
    def values(self, token: Token, what: str, separators: Sequence[str] = (" and ",),
               ) -> list[tuple[str, str, tuple[Lit, ...]]]:
        ways = partitions(str(token), separators, self.try_value)
        if not ways:
            raise Unreadable(f"{quote_phrase(token)} is not a list of values of the graph's "
                             f"variables in the story vocabulary ({what})", token)
        if len(ways) > 1:
            raise Unreadable(f"{quote_phrase(token)} splits into values in more than one way "
                             f"({what})", token)
        for _, chunk, lits in ways[0]:
            if len(lits) > 1:
                self.ambiguous.append(normalise(chunk))
        return ways[0]

    def names(self, token: Token | str, where: Token, what: str) -> tuple[int, ...]:
        ways = partitions(str(token), (", and ", ", ", " and "), self.try_name)
        if len(ways) != 1:
            raise Unreadable(f"{quote_phrase(token)} is not a list of the graph's variables "
                             f"({what})", where)
        return tuple(node for _, _, node in ways[0])


def quote_phrase(token: Token | str) -> str:
    return quote(normalise(str(token)))


def one_of_each(choices: Sequence[tuple[Lit, ...]]) -> list[tuple[Lit, ...]]:
    """Every combination of one lit per position."""
    return [tuple(c) for c in itertools.product(*choices)]


def syntax_error(text: str, error: UnexpectedInput, offset: int, whole: str) -> ParseError:
    """Lark's error in a piece of ``whole`` that starts at ``offset``, placed in ``whole``."""
    local = from_lark(error, text, "CLadder question", terminal_patterns(grammar(), TERMINAL_NAMES))
    pos = offset + (local.column or 1) - 1
    return ParseError(local.message, line=1, column=pos + 1, context=caret(whole, pos),
                      expected=local.expected, what=local.what)


_NUMBERS = {"PERCENT": Kind.PERCENT, "DECIMAL": Kind.CORRELATION}


def check_numbers(tree: Tree) -> Tree:
    """``tree`` when every number in it is one a question may state (``parser.numbers``);
    ``SemanticError`` at the first that is not."""
    for token in tree.scan_values(lambda v: isinstance(v, Token)):
        if token.type in _NUMBERS:
            stated(token, _NUMBERS[token.type])
        elif token.type == "NUMBER":
            count(token, "a method's number")
    return tree


def number_error(text: str, error: SemanticError, offset: int) -> ParseError:
    """A number out of range in a piece of ``text`` that starts at ``offset``."""
    start = getattr(error.token, "start_pos", None)
    pos = None if start is None else offset + start
    return ParseError(f"invalid CLadder question: {error.message}", line=1,
                      column=None if pos is None else pos + 1, context=caret(text, pos),
                      what="CLadder question")


