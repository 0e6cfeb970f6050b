"""CaLM's Chinese CLadder template: one grammar (``calm_cladder_zh.lark``) compiled twice,
and the text of a record's field → its parse tree, sentence by sentence.

Each sentence is read by one grammar compiled twice.  First LALR(1) (strict: the table has
no conflict) with ``_ForcedLexer``, which takes a token only where exactly one terminal of
the state matches: the slots end at fixed template words, so this reads nearly every
sentence, and a parse it completes is the sentence's only one.  Where two terminals match
(a slot that may swallow the next template word) it gives up, and Earley with every
reading kept decides; a sentence with two readings is a ``ParseError``:

>>> try:                                      # a joint probability, or a mechanism?
...     parse_field("而a导致b的概率是5%", "given", "given information")
... except ParseError as error:
...     "reads in two ways" in str(error)
True

A field is normalised first (no blanks, Latin letters case-folded, ASCII ``, : ; ?``
full-width); the given information is parsed one sentence at a time (no slot holds a 。
or ；), each distinct sentence once in a service's memory.  Text outside the template is a
``ParseError`` with its column and a caret.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from lark import Lark, Token, Tree
from lark.common import LexerConf
from lark.exceptions import LarkError, UnexpectedInput
from lark.lexer import Lexer

from causal_oracle.oracle.errors import quote
from causal_oracle.oracle.memo import memoised
from causal_oracle.parser.errors import ParseError
from causal_oracle.parser.grammar import caret

MAX_CHARS = 4000
_GRAMMAR = Path(__file__).with_name("calm_cladder_zh.lark")
_FULL_WIDTH = str.maketrans({",": "，", ":": "：", ";": "；", "?": "？"})


class _NotForced(Exception):
    """The fast path's lexer found no terminal, or two, where the LALR state reads one."""


class _ForcedLexer(Lexer):
    """A contextual lexer that yields a token only when exactly one of the terminals the
    LALR state accepts matches at that place (each terminal's own match, as Earley's
    dynamic lexer takes it); otherwise ``_NotForced``.  With a conflict-free LALR(1)
    table this makes a parse it completes the text's only parse: a second one would part
    from it at some token, where a second terminal of that state would match."""

    __future_interface__ = 1

    def __init__(self, conf: LexerConf) -> None:
        self.terminals = {t.name: re.compile(t.pattern.to_regexp(), conf.g_regex_flags)
                          for t in conf.terminals}

    def lex(self, lexer_state: Any, parser_state: Any) -> Iterator[Token]:
        text = lexer_state.text
        text = getattr(text, "text", text)  # lark passes a TextSlice of the whole text
        states = parser_state.parse_conf.parse_table.states
        at = 0
        while at < len(text):  # each turn consumes at least one character
            found = [(name, m) for name in states[parser_state.position]
                     if (term := self.terminals.get(name)) and (m := term.match(text, at))]
            if len(found) != 1 or found[0][1].end() == at:
                raise _NotForced
            name, match = found[0]
            yield Token(name, match.group(0), at, 1, at + 1, 1, match.end() + 1, match.end())
            at = match.end()


@dataclass(frozen=True, slots=True)
class Parsers:
    """The grammar compiled twice: ``fast`` (LALR, ``_ForcedLexer``) and ``earley``."""

    fast: Lark
    earley: Lark


@cache  # the compiled grammar: a constant
def grammar() -> Parsers:
    text = _GRAMMAR.read_text(encoding="utf-8")
    starts = ["background", "given", "question"]
    return Parsers(Lark(text, start=starts, parser="lalr", lexer=_ForcedLexer, strict=True,
                        maybe_placeholders=False),
                   Lark(text, start=starts, parser="earley", lexer="dynamic",
                        ambiguity="explicit", maybe_placeholders=False))


def normalise(text: str) -> str:
    """No blanks, Latin letters case-folded, ASCII , : ; ? full-width."""
    return "".join(text.split()).casefold().translate(_FULL_WIDTH)


def parse_field(text: str, start: str, what: str) -> Tree:
    """The tree of one field; the given information is parsed sentence by sentence (no
    slot of it holds a 。 or ；), each sentence once per distinct text."""
    flat = normalise(text)
    if not flat or len(flat) > MAX_CHARS:
        raise ParseError(f"the {what} is empty or longer than {MAX_CHARS} characters",
                         what=f"Chinese CLadder {what}")
    if start != "given":
        return _parse_flat(flat, 0, flat, start, what)
    children: list[Tree | Token] = []
    begin = 0
    while begin < len(flat):  # each turn consumes one sentence: at most len(flat) turns
        ends = [at for at in (flat.find("。", begin), flat.find("；", begin)) if at >= 0]
        end = min(ends) if ends else len(flat)
        if end > begin:
            children.extend(_parse_flat(flat[begin:end], begin, flat, start, what).children)
        begin = end + 1
    if not children:
        raise ParseError(f"the {what} has no sentence", what=f"Chinese CLadder {what}")
    return Tree("given", children)


@memoised(limit=4096)  # items of one story share their background, often their sentences
def _tree(piece: str, start: str) -> Tree:
    try:  # the common sentences: one LALR pass whose every token was the only choice
        return grammar().fast.parse(piece, start=start)
    except (_NotForced, LarkError):
        pass  # Earley decides: a parse, several (below), or where the text leaves the template
    tree = grammar().earley.parse(piece, start=start)
    if any(True for _ in tree.find_data("_ambig")):
        raise ParseError(f"{quote(piece)} reads in two ways in CaLM's Chinese CLadder template",
                         context=piece[:200], what="Chinese CLadder sentence")
    return tree


def _parse_flat(piece: str, offset: int, flat: str, start: str, what: str) -> Tree:
    try:
        return _tree(piece, start)
    except UnexpectedInput as error:
        at = getattr(error, "pos_in_stream", None)
        pos = None if at is None else at + offset
        raise ParseError(f"the {what} is not in CaLM's Chinese CLadder template at column "
                         f"{(pos or 0) + 1}", line=1, column=None if pos is None else pos + 1,
                         context=caret(flat, pos), what=f"Chinese CLadder {what}") from None


__all__ = ["MAX_CHARS", "Parsers", "grammar", "normalise", "parse_field"]
