"""A recogniser for CI-Bench prompts as the generator writes them, without building a tree.

``parser/cibench.lark`` is the definition of the language; this module reads the common
case of it about twenty times faster than Lark's parse tree and transformer, and says
"not mine" (``None``) for everything else, which the grammar then reads.  It accepts a
*subset* of the grammar's language, chosen so that on that subset both give the same
derivation:

* The text is cut into the grammar's own tokens with the grammar's own patterns — a
  ``WORD`` (``[a-z0-9][a-z0-9'’_-]*``, any case) or one of ``. , : ?`` — and whitespace
  (space, tab, form feed, CR, LF).  Any other character: not mine.
* The first word of a name must not be, in any case, one of the grammar's keywords
  (``KEYWORDS``); a later word must not be one of the keywords that can follow a name
  (``FOLLOW_NAME``: "has", "and", "happens", "not" …).  Lark's contextual lexer takes a
  keyword as a word wherever its parser state cannot take the keyword, so "the
  elimination of X species" is one name to both; where the lexer might take the keyword
  as a keyword, the name here ends, and a keyword that the prompt's shape does not expect
  there sends the prompt to the grammar.
  (The intro's free words are read as the grammar's lexer reads them there: after
  "between" any word; before "study" a first word other than "study", then words outside
  ``FOLLOW_NAME``.)
* Every keyword position must hold that keyword exactly (``the`` in any case, as the
  grammar's ``"the"i``).

Because the grammar is LALR (one derivation per token sequence) and the tokens agree,
an accepted prompt yields the pieces the grammar's transformer would build; the caller
(``parser.cibench``) resolves names into a question with the same code either way.  A
prompt whose pieces do not make sense (an unknown variable, a cycle …) is handed to the
grammar too, so every error keeps its line, column and caret.

Pieces are plain tuples of words (``Words``): a graph prompt gives
``GraphPieces(sentences, causes, effects, task)``; a rules prompt gives
``RulePieces(lines, observed, task, queries, whatif)``.

Public: ``recognise``, ``KEYWORDS``, ``FOLLOW_NAME``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from causal_oracle.oracle.budget import checkpoint, paced

Words = tuple[str, ...]
Event = tuple[Words, bool]

KEYWORDS = frozenset((
    "following", "text", "describes", "assumed", "causal", "relationship", "between", "in",
    "a", "recent", "study", "has", "effect", "on", "we", "want", "to", "estimate", "of",
    "based", "information", "above", "please", "identify", "all", "paths", "them",
    "provide", "set", "factors", "that", "can", "block", "backdoor", "happens", "if", "is",
    "bound", "happen", "have", "observed", "happened", "what", "about", "would", "be",
    "your", "answer", "should", "plain", "contain", "other", "formats", "such", "as",
    "markdown", "question", "and", "not", "the", "didn't", "didn’t",
))
"""Every word literal of ``cibench.lark``, case-folded (``tests`` check it against the
grammar)."""

FOLLOW_NAME = frozenset(("has", "and", "on", "happens", "is", "not", "happened", "didn't",
                         "didn’t", "would", "study"))
"""The word literals that can follow a word of a ``name`` anywhere in the grammar,
case-folded.  Lark builds ``name: WORD+`` and the intro's ``WORD* "study"`` from one
helper rule, so "study" is among them.  The literals Lark's lexer can take inside a name
(after its first word) are among these, so a name read here ends where the grammar's
does; a name's first word avoids all of ``KEYWORDS``."""

_PUNCTUATION = frozenset((".", ",", ":", "?", ""))  # "" is the end of the text
_NOT_FIRST = KEYWORDS | _PUNCTUATION
_ENDS_NAME = FOLLOW_NAME | _PUNCTUATION
# The grammar's ``/[a-z0-9][a-z0-9'’_\-]*/i`` spelled without the flag (a case-blind
# class is slower to match): under Unicode case folding [a-z] also takes İ ı ſ and the
# Kelvin sign K, and no other character (``tests`` compare the two over every code point).
_FOLDED = "\u0130\u0131\u017f\u212a"
_TOKEN = re.compile(rf"[A-Za-z0-9{_FOLDED}][A-Za-z0-9{_FOLDED}'’_\-]*|[.,:?]")
_WHITESPACE = str.maketrans("", "", " \t\f\r\n")

_INTRO = ("the", "following", "text", "describes", "the", "assumed", "causal",
          "relationship", "between")
_EFFECT = ("has", "a", "causal", "effect", "on")
_ESTIMATE = ("We", "want", "to", "estimate", "the", "causal", "effect", "of")
_BASED = ("Based", "on", "the", "information", "above", ",", "please")
_CP = ("identify", "all", "the", "causal", "paths", "between", "them", ".")
_BA = ("provide", "a", "set", "of", "factors", "that", "can", "block", "all", "backdoor",
       "paths", "between", "them", ".")
_TRAILER = ("Your", "answer", "should", "be", "plain", "text", "and", "should", "not",
            "contain", "other", "formats", "such", "as", "markdown", ".")
_NOT = ("not", "didn't", "didn’t")


@dataclass(frozen=True)
class GraphPieces:
    """A CP/BA prompt: ``(subject, objects)`` per sentence, the glued cause and effect
    lists (article removed when it stands apart), and ``"CP"`` or ``"BA"``."""

    sentences: tuple[tuple[Words, tuple[Words, ...]], ...]
    causes: tuple[Words, ...]
    effects: tuple[Words, ...]
    task: str


@dataclass(frozen=True)
class RulePieces:
    """A FI/CI prompt: ``(kind, head, body)`` per line (kind ``"rule"`` or ``"bound"``),
    the observed events, ``"FI"`` or ``"CI"``, the queried names and the what-if events."""

    lines: tuple[tuple[str, Words, tuple[Event, ...]], ...]
    observed: tuple[Event, ...]
    task: str
    queries: tuple[Words, ...]
    whatif: tuple[Event, ...]


class _NotMine(Exception):
    """The prompt is outside the recognised subset: the grammar reads it."""


class _Reader:
    """A cursor over the tokens; every method consumes or raises ``_NotMine``."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = (*tokens, "")  # a sentinel: peeking past the end reads ""
        self.at = 0

    def peek(self) -> str:
        return self.tokens[self.at]

    def is_the(self) -> bool:
        return self.tokens[self.at].casefold() == "the"

    def expect(self, words: tuple[str, ...]) -> None:
        at = self.at
        end = at + len(words)
        if self.tokens[at:end] != words:  # one comparison; word by word only for "The"
            for word, got in zip(words, self.tokens[at:end], strict=False):
                if got != word and not (word == "the" and got.casefold() == "the"):
                    raise _NotMine
            if end > len(self.tokens):
                raise _NotMine
        self.at = end

    def accept(self, word: str) -> bool:
        if self.tokens[self.at] == word:
            self.at += 1
            return True
        return False

    def free_word(self) -> str:
        word = self.tokens[self.at]
        if word.casefold() in _NOT_FIRST:
            raise _NotMine
        self.at += 1
        return word

    def any_word(self) -> str:
        word = self.tokens[self.at]
        if word in _PUNCTUATION:
            raise _NotMine
        self.at += 1
        return word

    def name(self) -> Words:
        tokens, start = self.tokens, self.at
        if tokens[start].casefold() in _NOT_FIRST:
            raise _NotMine
        end = start + 1
        while tokens[end].casefold() not in _ENDS_NAME:
            end += 1
        self.at = end
        return tuple(tokens[start:end])

    def name_list(self) -> tuple[Words, ...]:
        """``name ("," name)* "and" name | name``."""
        names = [self.name()]
        if self.peek() == ",":
            while self.accept(","):
                names.append(self.name())
            self.expect(("and",))
            names.append(self.name())
        elif self.accept("and"):
            names.append(self.name())
        return tuple(names)

    def event(self, past: bool) -> Event:
        """``the name happened | the name (not | didn't | didn’t) happen`` (``past``) or
        ``the name happens | the name not happen``."""
        tokens = self.tokens
        if tokens[self.at].casefold() != "the":
            raise _NotMine
        self.at += 1
        name = self.name()
        at = self.at
        word = tokens[at]
        if word == ("happened" if past else "happens"):
            self.at = at + 1
            return name, True
        if word not in (_NOT if past else _NOT[:1]) or tokens[at + 1] != "happen":
            raise _NotMine
        self.at = at + 2
        return name, False

    def event_list(self) -> tuple[Event, ...]:
        """``event ("," event)* "and" event | event``."""
        events = [self.event(past=True)]
        if self.peek() == ",":
            while self.accept(","):
                events.append(self.event(past=True))
            self.expect(("and",))
            events.append(self.event(past=True))
        elif self.accept("and"):
            events.append(self.event(past=True))
        return tuple(events)

    def query_list(self) -> tuple[Words, ...]:
        """``query ("," query)* ("and" query)?`` with ``query: the? name``."""
        queries = [self.query()]
        while self.accept(","):
            queries.append(self.query())
        if self.accept("and"):
            queries.append(self.query())
        return tuple(queries)

    def query(self) -> Words:
        if self.is_the():
            self.at += 1
        return self.name()

    def end(self) -> None:
        if self.accept("Your"):
            self.at -= 1
            self.expect(_TRAILER)
            if self.accept("Answer"):
                self.expect((":",))
        if self.at != len(self.tokens) - 1:
            raise _NotMine


def _tokens(text: str) -> list[str] | None:
    """The grammar's tokens of ``text``, or None when a character is neither part of a
    token nor whitespace."""
    checkpoint()  # the time budget covers reading: before and after one pass over the text
    tokens = _TOKEN.findall(text)
    checkpoint()
    if sum(map(len, tokens)) != len(text.translate(_WHITESPACE)):
        return None
    return tokens


def _intro(r: _Reader) -> None:
    """``the following … between WORD in a recent WORD* study :`` when present."""
    if r.is_the() and r.tokens[r.at + 1] == "following":
        r.expect(_INTRO)
        r.any_word()  # the grammar's state takes only WORD here: keywords too
        r.expect(("in", "a", "recent"))
        if not r.accept("study"):
            r.any_word()  # WORD or "study" (exactly): anything else is a WORD
            while not r.accept("study"):  # after a word, the name helper's follow set
                if r.peek().casefold() in _ENDS_NAME:
                    raise _NotMine
                r.any_word()
        r.expect((":",))


def _graph(r: _Reader) -> GraphPieces:
    sentences: list[tuple[Words, tuple[Words, ...]]] = []
    while True:
        paced()
        subject = r.name()
        r.expect(_EFFECT)
        objects = r.name_list()
        r.expect((".",))
        sentences.append((subject, objects))
        if r.accept("Question"):
            break
    r.expect((":", *_ESTIMATE))
    causes = _glued(r)
    r.expect(("on",))
    effects = _glued(r)
    r.expect((".", *_BASED))
    if r.peek() == "identify":
        r.expect(_CP)
        task = "CP"
    else:
        r.expect(_BA)
        task = "BA"
    r.end()
    return GraphPieces(tuple(sentences), causes, effects, task)


def _glued(r: _Reader) -> tuple[Words, ...]:
    if r.is_the():
        r.at += 1
    return r.name_list()


def _rules(r: _Reader) -> RulePieces:
    lines: list[tuple[str, Words, tuple[Event, ...]]] = []
    while r.is_the():
        paced()
        r.at += 1
        head = r.name()
        if r.accept("is"):
            r.expect(("bound", "to", "happen", "."))
            lines.append(("bound", head, ()))
            continue
        r.expect(("happens", "if"))
        body = [r.event(past=False)]
        while r.accept("and"):
            body.append(r.event(past=False))
        r.expect((".",))
        lines.append(("rule", head, tuple(body)))
    if not lines:
        raise _NotMine
    r.expect(("Question", ":", "We", "have", "observed"))
    observed = r.event_list()
    r.expect((".", "What"))
    queries: tuple[Words, ...] = ()
    if r.accept("about"):
        r.expect(("the",))
        if r.peek() != "?":
            queries = r.query_list()
        r.expect(("?",))
        r.end()
        return RulePieces(tuple(lines), observed, "FI", queries, ())
    r.expect(("the",))
    if r.peek() != "would":
        queries = r.query_list()
    r.expect(("would", "be", "if"))
    whatif = r.event_list()
    r.expect(("?",))
    r.end()
    return RulePieces(tuple(lines), observed, "CI", queries, whatif)


def recognise(text: str) -> GraphPieces | RulePieces | None:
    """The pieces of a CI-Bench prompt in the recognised subset, else None.

    >>> p = recognise("X has a causal effect on y and z.\\nQuestion:\\nWe want to estimate "
    ...               "the causal effect of thex on they.\\nBased on the information "
    ...               "above, please identify all the causal paths between them.")
    >>> p.sentences, p.causes, p.effects, p.task
    (((('X',), (('y',), ('z',))),), (('thex',),), (('they',),), 'CP')

    A variable called "a" (a keyword) or a bracket is left to the grammar:

    >>> recognise("A has a causal effect on b.") is None
    True
    >>> recognise("X has a causal effect on y (and z).") is None
    True
    """
    tokens = _tokens(text)
    if not tokens:
        return None
    r = _Reader(tokens)
    try:
        _intro(r)
        return _rules(r) if r.is_the() else _graph(r)
    except _NotMine:
        return None
