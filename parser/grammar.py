"""Shared Lark plumbing for every grammar in this package.

``load_grammar`` builds (once) an LALR parser for a ``.lark`` file and a start
symbol; ``run_parser`` parses and transforms text, turning Lark's errors and the
transformers' ``SemanticError`` (well-formed text that makes no sense, e.g. an
undeclared variable) into a ``ParseError`` with line, column, a caret and, for
grammar errors, the expected tokens.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedInput, VisitError

from causal_oracle.oracle.errors import InputError
from causal_oracle.parser.errors import ParseError, from_lark


@cache
def load_grammar(path: Path, start: str) -> Lark:
    """A cached LALR parser for the grammar file ``path`` (contextual lexer)."""
    return Lark(path.read_text(encoding="utf-8"), start=start, parser="lalr",
                propagate_positions=True, maybe_placeholders=False)


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
    """Parse and transform ``text``; Lark and semantic errors become ``ParseError``."""
    try:
        tree = parser.parse(text)
    except UnexpectedInput as error:
        raise from_lark(error, text, what, terminal_patterns(parser, names)) from None
    try:
        return transformer.transform(tree)
    except VisitError as error:
        if isinstance(error.orig_exc, SemanticError):
            raise semantic_parse_error(text, what, error.orig_exc) from None
        if isinstance(error.orig_exc, InputError):
            raise ParseError(f"invalid {what}: {error.orig_exc.message}", what=what) from None
        raise
