"""Numbers stated in a question's text, read into exact rationals and checked once.

Every number a parser reads from text passes through here, so that one rule holds for
every family: a *percentage* is between 0 and 100, a *probability* between 0 and 1, a
*correlation* between −1 and 1, a *count* is a whole number of at most ``COUNT_DIGITS``
digits; every number is finite, written in plain decimal digits (no exponent, no
``inf``/``nan``) with at most ``DECIMALS`` places after the point.  A number that breaks
the rule is bad input — ``SemanticError`` at its token, which the parsers report as a
``ParseError`` with line, column and a caret — never clipped, never answered ("185 %" is
not a probability; neither is "10^26 %").

The checks are linear in the number's length and never convert an over-long digit string
(Python refuses to turn more than 4,300 digits into an ``int``).

>>> from lark import Token
>>> stated(Token("PERCENT", "26%"), Kind.PERCENT)
Fraction(13, 50)
>>> stated(Token("DECIMAL", "-0.23"), Kind.CORRELATION)
Fraction(-23, 100)
>>> count(Token("COUNT", "007"), "variables")
7
>>> try:
...     stated(Token("PERCENT", "185%"), Kind.PERCENT)
... except SemanticError as error:
...     print(error.message)
the percentage '185%' is over 100%: a probability is between 0% and 100%
"""

from __future__ import annotations

from enum import Enum
from fractions import Fraction

from lark import Token

from causal_oracle.oracle.errors import quote
from causal_oracle.parser.grammar import SemanticError

#: at most this many digits after the decimal point
DECIMALS = 12
#: at most this many digits in a count (of variables, of options, a method's number)
COUNT_DIGITS = 6


class Kind(Enum):
    """What a stated number is, with the closed range it must lie in and its unit."""

    PERCENT = ("percentage", Fraction(0), Fraction(100), "%")
    PROBABILITY = ("probability", Fraction(0), Fraction(1), "")
    CORRELATION = ("correlation", Fraction(-1), Fraction(1), "")

    def __init__(self, word: str, low: Fraction, high: Fraction, unit: str) -> None:
        self.word, self.low, self.high, self.unit = word, low, high, unit


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _bound(value: Fraction, unit: str) -> str:
    return f"{value}{unit}"


def stated(token: Token | str, kind: Kind) -> Fraction:
    """The exact value of a stated number (``"26%"`` → 13/50 for ``Kind.PERCENT``, the
    percentage divided by 100); ``SemanticError`` at ``token`` when it is not a plain
    finite decimal in ``kind``'s range."""
    text = str(token)
    where = token if isinstance(token, Token) else None
    body = text[:-1] if kind.unit and text.endswith(kind.unit) else text
    negative = body.startswith("-")
    whole, point, fraction = body[negative:].partition(".")
    if not _digits(whole) or (point and not _digits(fraction)):
        raise SemanticError(f"{quote(text)} is not a finite decimal number (a {kind.word} "
                            "is written in plain digits)", where)
    if len(fraction) > DECIMALS:
        raise SemanticError(f"the {kind.word} {quote(text)} has {len(fraction):,} digits "
                            f"after the point; at most {DECIMALS} are read", where)
    significant = whole.lstrip("0")
    high_digits = len(str(int(max(abs(kind.low), abs(kind.high)))))
    if len(significant) > high_digits:  # far out of range: never converted to an int
        value = None
    else:
        value = Fraction(int(significant or "0") * 10 ** len(fraction) + int(fraction or "0"),
                         10 ** len(fraction))
        value = -value if negative else value
    if value is None or value > kind.high:
        raise SemanticError(f"the {kind.word} {quote(text)} is over "
                            f"{_bound(kind.high, kind.unit)}: a "
                            f"{'probability' if kind is Kind.PERCENT else kind.word} is "
                            f"between {_bound(kind.low, kind.unit)} and "
                            f"{_bound(kind.high, kind.unit)}", where)
    if value < kind.low:
        raise SemanticError(f"the {kind.word} {quote(text)} is under "
                            f"{_bound(kind.low, kind.unit)}: a {kind.word} is between "
                            f"{_bound(kind.low, kind.unit)} and "
                            f"{_bound(kind.high, kind.unit)}", where)
    return value / 100 if kind is Kind.PERCENT else value


def count(token: Token | str, what: str) -> int:
    """A whole number the text states (how many ``what``); ``SemanticError`` at ``token``
    when it is not plain digits or has more than ``COUNT_DIGITS`` of them."""
    text = str(token)
    where = token if isinstance(token, Token) else None
    if not _digits(text):
        raise SemanticError(f"{quote(text)} is not a whole number ({what})", where)
    significant = text.lstrip("0")
    if len(significant) > COUNT_DIGITS:
        raise SemanticError(f"the number of {what} {quote(text)} has {len(significant):,} "
                            f"digits; at most {COUNT_DIGITS} are read", where)
    return int(significant or "0")


__all__ = ["COUNT_DIGITS", "DECIMALS", "Kind", "count", "stated"]
