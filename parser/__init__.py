"""Lark grammars for benchmark text and the transformers into ``oracle`` objects.

Every public ``parse_*`` function either returns immutable formal objects or
raises ``ParseError`` (a subclass of ``oracle.errors.InputError``) naming the
line, column and expected tokens.
"""

from causal_oracle.parser.corr2cause import parse_hypothesis, parse_item, parse_premise
from causal_oracle.parser.errors import ParseError

__all__ = ["ParseError", "parse_hypothesis", "parse_item", "parse_premise"]
