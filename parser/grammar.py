"""Shared Lark plumbing for every grammar in this package.

``load_grammar`` builds (once) an LALR parser for a ``.lark`` file and a start
symbol; ``run_parser`` parses and transforms text, turning Lark's errors and the
transformers' ``SemanticError`` (well-formed text that makes no sense, e.g. an
undeclared variable) into a ``ParseError`` with line, column, a caret and, for
grammar errors, the expected tokens.

Parsing runs under the time budget in force (``oracle.budget``): every parser built here
reads its tokens through ``BudgetedLexing``, which looks at the clock every ``PACE``
tokens, and a ``PacedTransformer`` does the same every ``PACE`` rules it builds, so a
multi-megabyte text stops with ``BudgetExceeded`` close to its budget instead of after
the whole parse.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedInput, VisitError

from causal_oracle.oracle.budget import PACE, checkpoint, paced
from causal_oracle.oracle.errors import InputError
from causal_oracle.parser.errors import ParseError, from_lark


class BudgetedLexing:
    """A Lark post-lexer that passes every token through and looks at the time budget
    every ``PACE`` tokens (give it as ``postlex=`` to an LALR parser)."""

    always_accept: tuple[str, ...] = ()

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        left = PACE
        for token in stream:
            left -= 1
            if not left:
                left = PACE
                checkpoint()
            yield token


class PacedTransformer(Transformer):  # type: ignore[type-arg]
    """A transformer that looks at the time budget every ``PACE`` rules it applies."""

    def _call_userfunc(self, tree: Any, new_children: Any = None) -> Any:
        paced()
        return super()._call_userfunc(tree, new_children)


@cache
def load_grammar(path: Path, start: str) -> Lark:
    """A cached LALR parser for the grammar file ``path`` (contextual lexer, tokens
    read under the time budget)."""
    return Lark(path.read_text(encoding="utf-8"), start=start, parser="lalr",
                propagate_positions=True, maybe_placeholders=False,
                postlex=BudgetedLexing())


def terminal_patterns(parser: Lark, names: dict[str, str]) -> dict[str, str]:
    """Readable names for the grammar's terminals, for "expected one of" messages."""
    out = dict(names)
    for term in parser.terminals:
        if term.name not in out and term.pattern.type == "str":
            out[term.name] = repr(term.pattern.value)
    return out


class SemanticError(Exception):
    """Raised inside a transformer or resolver: well-formed text that makes no sense."""

    def __init__(self, message: str, token: Token | None) -> None:
        super().__init__(message)
        self.message = message
        self.token = token


def caret(text: str, pos: int | None) -> str:
    """The line around ``pos`` with a caret under it."""
    if pos is None:
        return ""
    start = max(text.rfind("\n", 0, pos) + 1, pos - 50)
    end = text.find("\n", pos)
    end = len(text) if end == -1 else min(end, pos + 50)
    return text[start:end] + "\n" + " " * (pos - start) + "^"


def semantic_parse_error(text: str, what: str, error: SemanticError) -> ParseError:
    tok = error.token
    return ParseError(f"invalid {what}: {error.message}", line=getattr(tok, "line", None),
                      column=getattr(tok, "column", None),
                      context=caret(text, getattr(tok, "start_pos", None)), what=what)


def run_parser(parser: Lark, names: dict[str, str], text: str, what: str,
               transformer: Transformer) -> object:
    """Parse and transform ``text``; Lark and semantic errors become ``ParseError``;
    ``BudgetExceeded`` when the time budget runs out before, during or after."""
    checkpoint()
    try:
        tree = parser.parse(text)
    except UnexpectedInput as error:
        raise from_lark(error, text, what, terminal_patterns(parser, names)) from None
    checkpoint()
    try:
        return transformer.transform(tree)
    except VisitError as error:
        if isinstance(error.orig_exc, SemanticError):
            raise semantic_parse_error(text, what, error.orig_exc) from None
        if isinstance(error.orig_exc, InputError):
            raise ParseError(f"invalid {what}: {error.orig_exc.message}", what=what) from None
        raise
