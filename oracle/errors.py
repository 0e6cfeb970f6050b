"""Errors the oracle raises at its boundary.

``InputError`` is a problem with the user's input (a malformed or unsupported
question) and maps to CLI exit code 2 / gRPC ``INVALID_ARGUMENT``.
``BudgetExceeded`` means a size or time budget was exceeded and maps to
``RESOURCE_EXHAUSTED``.  Anything else escaping the oracle is an internal error.

An error message quotes at most ``QUOTE_LIMIT`` (200) characters of the input: ``quote``
cuts a longer piece with an ellipsis and says how long it was, and ``InputError`` clips
the context lines it carries the same way (a 37 MB token is never echoed back).

>>> quote("abc")
"'abc'"
>>> quote("x" * 1000, limit=5)
"'xxxxx'… (1,000 characters)"
"""

from __future__ import annotations

#: the most characters of input an error message quotes
QUOTE_LIMIT = 200


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` quoted (``repr``) for a message: at most ``limit`` characters of it; a
    longer text is cut with an ellipsis and its length said."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"


def clip(text: str, limit: int = QUOTE_LIMIT) -> str:
    """Each line of ``text`` (a context excerpt) cut to ``limit`` characters, with an
    ellipsis where it was cut; at most four lines."""
    lines = text.split("\n", 4)[:4]
    return "\n".join(line if len(line) <= limit else line[:limit] + "…" for line in lines)


class OracleError(Exception):
    """Base class of all errors the oracle raises on purpose."""


class InputError(OracleError):
    """The input is well formed text but not a valid question.

    ``line``/``column`` (1-based) locate the offending spot when known.
    """

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None,
                 context: str = "") -> None:
        self.message = message
        self.line = line
        self.column = column
        self.context = clip(context) if context else ""
        super().__init__(self.describe())

    def describe(self) -> str:
        where = ""
        if self.line is not None and self.column is not None:
            where = f"line {self.line}, column {self.column}: "
        text = where + self.message
        if self.context:
            text += "\n" + self.context
        return text


class BudgetExceeded(OracleError):
    """A size or time budget was exceeded (too many variables, statements, members)."""


class CertificateRejected(OracleError):
    """The independent checker rejected a certificate: a bug, never shown as an answer."""
