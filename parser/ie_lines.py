"""A recogniser for intervention-effect prompts as the templates render them, without a tree.

``parser/ie.lark`` defines the language; this module reads the rendered templates' common
case several times faster than Lark's parse tree and transformer, and returns ``None``
("not mine") for everything else, which the grammar then reads.  As for CI-Bench
(``parser.cibench_lines``, whose docstring gives the argument in full), it accepts a
subset of the grammar's language on which both derive the same parts:

* tokens are the grammar's: ``WORD`` (``[A-Za-z0-9_][A-Za-z0-9_-]*`` or a template
  placeholder ``<T1>``, ``<vT1>``, ``<do>``), the literals ``I'm``, ``<variable>``,
  ``<value>`` and ``' ( ) = , . : ?``, and whitespace (space, tab, form feed, CR, LF);
  a value (``VALUE``: the text after ``=`` up to ``)``) is cut from the text as the
  grammar's lexer cuts it there;
* the first word of a name is no keyword (``KEYWORDS``), a later one none of the
  keywords that can follow a word of a name (``FOLLOW_NAME``); keywords match exactly
  (the grammar's are case-sensitive).

Parts are the transformer's: ``("declare", names)``, ``("edge", a, b)``,
``("define", operator)``, ``("do", operator, name, value)`` and ``("ask", (kind, a,
b))``, names as tuples of words (``Words``), the first of an edge sentence flagged.

Public: ``recognise``, ``KEYWORDS``, ``FOLLOW_NAME``.
"""

from __future__ import annotations

import re
from typing import Any

from causal_oracle.oracle.budget import paced
from causal_oracle.oracle.tasks.model import IEKind

Words = tuple[str, ...]

KEYWORDS = frozenset((
    "'", "(", ")", ",", ".", ":", "<value>", "<variable>", "=", "?", "An", "I'm", "In", "It",
    "Suppose", "Then", "There", "These", "a", "acyclic", "all", "an", "and", "are", "called",
    "can", "causal", "cause", "causes", "change", "delete", "describe", "directed", "does",
    "edge", "edges", "else", "everything", "final", "from", "going", "graph", "graphical",
    "in", "incoming", "intervened", "intervention", "is", "leaving", "means", "model", "of",
    "on", "operation", "path", "perfect", "perform", "relationships", "set", "that", "the",
    "there", "this", "to", "unchanged", "value", "variable", "variables", "we",
))
"""Every literal of ``ie.lark`` (``tests`` check it against the grammar)."""

FOLLOW_NAME = frozenset(("and", "cause", "causes", "to", ",", ".", "=", "?"))
"""The literals that can follow a word of a name (the grammar's FOLLOW set of its
``WORD+`` helper)."""

_PUNCTUATION = frozenset(("'", "(", ")", "=", ",", ".", ":", "?", ""))  # "": the end
_NOT_FIRST = KEYWORDS | _PUNCTUATION
_ENDS_NAME = FOLLOW_NAME | _PUNCTUATION
_TOKEN = re.compile(r"I'm|<variable>|<value>|<(?:v?T[0-9]+|do)>|[A-Za-z0-9_][A-Za-z0-9_\-]*"
                    r"|[',().=:?]")
_WHITESPACE = str.maketrans("", "", " \t\f\r\n")
_LEXER_SPACE = " \t\f\r\n"  # what the grammar's lexer skips between tokens

_OPENING = ("I'm", "going", "to", "describe", "a", "causal", "graphical")
_CLOSING = ("These", "are", "all", "the", "causal", "relationships", "in", "the", "graph", ".")
_DEFINE = ("An", "operation", "we", "can", "perform", "on", "a", "variable", "in", "a",
           "causal", "directed", "acyclic", "graphical", "model", "is", "called", "'")
_SIGNATURE = ("(", "<variable>", "=", "<value>", ")", "'", ".", "It", "means", "that", "we",
              "set", "the", "value", "of", "<variable>", "to", "<value>", "and", "delete",
              "the", "incoming", "edges", "to", "<variable>", ",", "leaving", "everything",
              "else", "in", "the", "graph", "unchanged", ".")
_THEN = ("Then", ",", "on", "this", "intervened", "causal", "model", ",")


class _NotMine(Exception):
    """The prompt is outside the recognised subset: the grammar reads it."""


class _Reader:
    """A cursor over the tokens (and their places in the text, for values)."""

    def __init__(self, text: str, tokens: list[str], starts: list[int]) -> None:
        self.text = text
        self.tokens = [*tokens, ""]  # a sentinel: peeking past the end reads ""
        self.starts = [*starts, len(text)]
        self.at = 0

    def peek(self, ahead: int = 0) -> str:
        return self.tokens[min(self.at + ahead, len(self.tokens) - 1)]

    def expect(self, words: tuple[str, ...]) -> None:
        tokens, at = self.tokens, self.at
        for word in words:
            if tokens[at] != word:
                raise _NotMine
            at += 1
        self.at = at

    def accept(self, word: str) -> bool:
        if self.tokens[self.at] == word:
            self.at += 1
            return True
        return False

    def word(self, free: bool) -> str:
        """A ``WORD``: any (``free`` False, where the grammar takes only a word) or one
        that is no keyword."""
        word = self.tokens[self.at]
        if word in (_NOT_FIRST if free else _PUNCTUATION) or word in ("I'm", "<variable>",
                                                                      "<value>"):
            raise _NotMine
        self.at += 1
        return word

    def name(self) -> Words:
        tokens, start = self.tokens, self.at
        if tokens[start] in _NOT_FIRST:
            raise _NotMine
        end = start + 1
        while tokens[end] not in _ENDS_NAME and tokens[end] not in KEYWORDS:
            end += 1
        if tokens[end] not in _ENDS_NAME:
            raise _NotMine  # a keyword the lexer might read as a word: the grammar decides
        self.at = end
        return tuple(tokens[start:end])

    def value(self) -> str:
        """``VALUE`` after ``=``: the text up to the next ``)`` (no ``(`` inside), its
        first character neither whitespace nor a bracket; stripped, as the transformer
        strips it."""
        begin = self.starts[self.at - 1] + 1  # just after the "="
        close = self.text.find(")", begin)
        if close < 0 or self.text.find("(", begin, close) >= 0:
            raise _NotMine
        raw = self.text[begin:close].lstrip(_LEXER_SPACE)
        if not raw or raw[0].isspace():
            raise _NotMine
        while self.starts[self.at] < close:  # the tokens inside the value
            self.at += 1
        if self.tokens[self.at] != ")":
            raise _NotMine
        return raw.strip()


def _tokens(text: str) -> tuple[list[str], list[int]] | None:
    tokens: list[str] = []
    starts: list[int] = []
    covered = 0
    for match in _TOKEN.finditer(text):
        paced()  # the time budget covers reading
        tokens.append(match.group())
        starts.append(match.start())
        covered += match.end() - match.start()
    if covered != len(text.translate(_WHITESPACE)):
        return None
    return tokens, starts


def _intervention(r: _Reader) -> tuple[str, str, Words, str]:
    """``Suppose? we perform (the perfect intervention ,)? the? WORD ( name = VALUE )``."""
    r.accept("Suppose")
    r.expect(("we", "perform"))
    if r.peek() == "the" and r.peek(1) == "perfect":
        r.expect(("the", "perfect", "intervention", ","))
    r.accept("the")
    operator = r.word(free=True)
    r.expect(("(",))
    name = r.name()
    r.expect(("=",))
    value = r.value()
    r.expect((")",))
    return "do", operator, name, value


def _ask(r: _Reader) -> tuple[IEKind, Words, Words]:
    if r.accept("does"):
        a = r.name()
        r.expect(("cause",))
        if r.accept("a"):
            r.expect(("change",))
            r.accept("in")
        return IEKind.CAUSE, a, r.name()
    r.expect(("is", "there"))
    if r.accept("an"):
        r.expect(("edge", "from"))
        kind = IEKind.EDGE
    else:
        r.expect(("a",))
        r.accept("directed")
        r.expect(("path", "going", "from"))
        kind = IEKind.PATH
    a = r.name()
    r.expect(("to",))
    return kind, a, r.name()


def recognise(text: str) -> list[tuple[Any, ...]] | None:
    """The parts of an intervention-effect prompt in the recognised subset, else None.

    >>> recognise("I'm going to describe a causal graphical model. There are two variables: "
    ...           "X and Y. X causes Y. These are all the causal relationships in the graph. "
    ...           "Suppose we perform the perfect intervention, do(Y = y 1). \\nIn this "
    ...           "intervened causal graphical model, does X cause Y?")[2:]
    [('do', 'do', ('Y',), 'y 1'), ('ask', (<IEKind.CAUSE: 'cause'>, ('X',), ('Y',)))]
    """
    found = _tokens(text)
    if not found:
        return None
    r = _Reader(text, *found)
    try:
        r.expect(_OPENING)
        if r.accept("directed"):
            r.expect(("acyclic",))
        r.expect(("model", ".", "There", "are"))
        r.word(free=False)
        r.expect(("variables", ":"))
        names = [r.name()]
        if r.peek() == ",":
            while r.accept(","):
                names.append(r.name())
            r.expect(("and",))
            names.append(r.name())
        elif r.accept("and"):
            names.append(r.name())
        r.expect((".",))
        parts: list[tuple[Any, ...]] = [("declare", tuple(names))]
        while r.peek() != "These":
            paced()
            a = r.name()
            r.expect(("causes",))
            b = r.name()
            r.expect((".",))
            parts.append(("edge", a, b))
        r.expect(_CLOSING)
        if r.accept("An"):
            r.at -= 1
            r.expect(_DEFINE)
            parts.append(("define", r.word(free=False)))
            r.expect(_SIGNATURE)
        if r.peek() in ("Suppose", "we"):
            parts.append(_intervention(r))
            r.expect((".",))
            if r.peek() == "Then":
                r.expect(_THEN)
                parts.append(_intervention(r))
                r.expect((".",))
        r.expect(("In", "this"))
        r.accept("final")
        r.accept("intervened")
        r.expect(("causal", "graphical", "model", ","))
        parts.append(("ask", _ask(r)))
        r.expect(("?",))
        if r.at != len(r.tokens) - 1:
            return None
        return parts
    except _NotMine:
        return None
