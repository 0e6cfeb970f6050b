"""Parse errors: Lark's ``UnexpectedInput`` turned into a message a person can act on.

The offending token is quoted through ``oracle.errors.quote``: at most 200 characters of
it, with an ellipsis and its length when it is longer (a 37 MB token stays in the text).
"""

from __future__ import annotations

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from causal_oracle.oracle.errors import InputError, quote


class ParseError(InputError):
    """Text that the grammar does not accept; carries ``line``, ``column``, ``expected``."""

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None,
                 context: str = "", expected: tuple[str, ...] = (), what: str = "text") -> None:
        self.expected = expected
        self.what = what
        super().__init__(message, line=line, column=column, context=context)

    def describe(self) -> str:
        """The message with its place in the text said once, after what was parsed:
        ``cannot parse premise at line 1, column 9: unexpected …`` (so that a row
        reference in front of it — "line 12: …" of a file — cannot be read as the same
        place)."""
        head = f"cannot parse {self.what}"
        if self.line is None or self.column is None or not self.message.startswith(head):
            return super().describe()
        text = (f"{head} at line {self.line}, column {self.column}"
                f"{self.message[len(head):]}")
        return text + ("\n" + self.context if self.context else "")


def _pretty_terminal(name: str, patterns: dict[str, str]) -> str:
    return patterns.get(name, name)


def from_lark(error: UnexpectedInput, text: str, what: str,
              patterns: dict[str, str]) -> ParseError:
    """Convert a Lark error raised while parsing ``text`` (a ``what``, e.g. "premise")."""
    expected: set[str] = set()
    if isinstance(error, UnexpectedToken):
        expected = set(error.accepts or error.expected)
        found = "end of text" if error.token.type == "$END" else quote(str(error.token))
        reason = f"unexpected {found}"
    elif isinstance(error, UnexpectedCharacters):
        expected = set(error.allowed or ())
        reason = f"unexpected character {text[error.pos_in_stream]!r}"
    elif isinstance(error, UnexpectedEOF):
        expected = set(error.expected)
        reason = "unexpected end of text"
    else:  # pragma: no cover - lark has no other subclasses today
        reason = "cannot parse"
    shown = tuple(sorted(_pretty_terminal(t, patterns) for t in expected))
    line = getattr(error, "line", None)
    column = getattr(error, "column", None)
    if line is None or line < 1:  # EOF errors carry -1; point just past the text
        lines = text.split("\n")
        line, column = len(lines), len(lines[-1]) + 1
    message = f"cannot parse {what}: {reason}"
    if shown:
        message += "; expected one of: " + ", ".join(shown)
    try:
        context = error.get_context(text, span=50).rstrip("\n")
    except Exception:
        context = ""
    return ParseError(message, line=line, column=column, context=context, expected=shown,
                      what=what)
