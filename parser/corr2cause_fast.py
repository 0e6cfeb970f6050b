"""The fast path for Corr2Cause premises: each distinct sentence parsed once.

The 207,972 upstream items use 2,376 premises built from a few hundred distinct
sentences, so a premise is parsed sentence by sentence with the same grammar (start
symbols ``premise_head`` and ``premise_sentence``), each distinct sentence once; the
tokens are shifted to their place in the premise, and the statements are built through
the same validator (``corr2cause_grammar.Declared``), so the fast path accepts exactly
the premises the grammar does.  The commonest sentences are read without the parser by
anchored, linear patterns (``_quick_sentence``), and a premise's long "A is independent
of B given C, D and E." runs are read in bulk.  ``parse_premise_fast`` returns None for
any text it does not take as a whole; that text goes to the full grammar, which gives
the exact error position.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Hashable
from typing import Any

from lark import Token
from lark.exceptions import UnexpectedInput, VisitError

from causal_oracle.oracle.budget import Pace
from causal_oracle.oracle.memo import keep, memoised, recall
from causal_oracle.oracle.statements import (
    Correlation,
    Independence,
    Premise,
    Span,
)
from causal_oracle.parser.corr2cause_grammar import GRAMMAR, TRANSFORMER, Declared, Raw, grammar
from causal_oracle.parser.grammar import (
    SemanticError,
)

_HEAD_END = re.compile(r"follows\s*:")
_SENTENCE = re.compile(r"[ \t\f\r\n]*([^ \t\f\r\n.:][^.:]*\.)")  # WS as in the grammar; linear


@memoised(scale=2)
def _head(text: str) -> object:
    return TRANSFORMER.transform(grammar("premise_head").parse(text))


@memoised(scale=2)
def _sentence(text: str) -> tuple[bool, Raw]:
    return TRANSFORMER.transform(grammar("premise_sentence").parse(text))  # type: ignore[return-value]


_NAME = r"([A-Za-z_][A-Za-z0-9_]*)"
_KEYWORDS = frozenset(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"',
                                 GRAMMAR.read_text(encoding="utf-8")))
_WS = r"[ \t\f\r\n]"  # whitespace as the grammar's WS (\s would also match U+3000)
_QUICK_HOWEVER = re.compile(rf"However{_WS}*,{_WS}*")
_QUICK = {
    "corr": re.compile(rf"{_NAME}{_WS}+correlates{_WS}+with{_WS}+{_NAME}{_WS}*\.\Z"),
    "marginal": re.compile(rf"{_NAME}{_WS}+is{_WS}+independent{_WS}+of{_WS}+{_NAME}"
                           rf"{_WS}*\.\Z"),
    "conditional": re.compile(rf"{_NAME}{_WS}+and{_WS}+{_NAME}{_WS}+are{_WS}+independent"
                              rf"{_WS}+given{_WS}+([A-Za-z0-9_, \t\f\r\n]*[A-Za-z0-9_])"
                              rf"{_WS}*\.\Z"),
}
#: the likeliest shape first (a cheap substring test picks it), then the others
_TRY_FIRST = {k: (k, *(o for o in _QUICK if o != k)) for k in _QUICK}
_GIVEN_LIST = re.compile(rf"{_NAME}((?:{_WS}*,{_WS}*[A-Za-z_][A-Za-z0-9_]*)*){_WS}+and{_WS}+"
                         rf"{_NAME}\Z")


@memoised(scale=2)
def _quick_sentence(text: str) -> tuple[bool, Raw] | None:
    """What ``_sentence`` returns, for the plain sentence shapes, by regular expressions.

    The grammar stays the definition: this path declines (``None``) anything that is
    not exactly one of the three statement shapes with ordinary names (no name that
    is also a keyword of the grammar), and the differential test in
    ``tests/test_parse_fast.py`` checks that it agrees with ``_sentence`` wherever it
    answers.  Names are plain strings (``Token`` objects are costly to make).  Cached
    by content: the same sentences recur across the premises of a dataset.
    """
    however = _QUICK_HOWEVER.match(text)
    offset = however.end() if however else 0
    body = text[offset:]
    first = "corr" if "correlates" in body else "conditional" if "given" in body else "marginal"
    for kind in _TRY_FIRST[first]:
        m = _QUICK[kind].match(body)
        if m is None:
            continue
        names = (m.group(1), m.group(2))
        given: tuple[str, ...] = ()
        if kind == "conditional":
            listed = m.group(3)
            g = _GIVEN_LIST.match(listed)
            if g is not None:
                given = (g.group(1), *re.findall(r"[A-Za-z_][A-Za-z0-9_]*", g.group(2)),
                         g.group(3))
            elif re.fullmatch(_NAME, listed):
                given = (listed,)
            else:
                return None
        if not _KEYWORDS.isdisjoint(names) or not _KEYWORDS.isdisjoint(given):
            return None
        if kind == "corr" and however:
            return None  # "However," belongs only before independences
        span = Span(offset, len(text), 1, offset + 1)
        raw = Raw("corr" if kind == "corr" else "indep", names, given, span)  # type: ignore[arg-type]
        return bool(however), raw
    return None


_NEWLINE = re.compile("\n")


class _Positions:
    """Absolute line and column of an offset in ``text``."""

    def __init__(self, text: str) -> None:
        self.newlines = [m.start() for m in _NEWLINE.finditer(text)]

    def at(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_left(self.newlines, offset)
        start = self.newlines[line - 1] + 1 if line else 0
        return line + 1, offset - start + 1


def _shift_token(tok: Token, offset: int, pos: _Positions) -> Token:
    start = tok.start_pos + offset  # type: ignore[operator]
    line, column = pos.at(start)
    return Token(tok.type, str(tok), start_pos=start, line=line, column=column)


#: one plain statement sentence, as ``_SENTENCE`` delimits it and ``_quick_sentence``
#: reads it: groups however, first name, correlates, second name (corr), second name
#: (marginal), second name and the given list (conditional)
_BULK = re.compile(
    rf"{_WS}*(?:(However){_WS}*,{_WS}*)?{_NAME}{_WS}+(?:"
    rf"(correlates){_WS}+with{_WS}+{_NAME}"
    rf"|is{_WS}+independent{_WS}+of{_WS}+{_NAME}"
    rf"|and{_WS}+{_NAME}{_WS}+are{_WS}+independent{_WS}+given{_WS}+"
    rf"([A-Za-z0-9_, \t\f\r\n]*[A-Za-z0-9_])){_WS}*\.")
_GIVEN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@memoised(scale=2)
def _given_names(listed: str) -> tuple[str, ...] | None:
    """The names of a "given" list (``B``, ``B and C``, ``B, C and D``), or None."""
    g = _GIVEN_LIST.match(listed)
    if g is not None:
        return (g.group(1), *_GIVEN_NAME.findall(g.group(2)), g.group(3))
    return (listed,) if _GIVEN_NAME.fullmatch(listed) else None


#: what a plain statement sentence says under a head (``_read_sentence``): whether it
#: is a correlation, whether "However," opens it, the pair (x < y), the conditioning
#: mask, and where its first name starts in the sentence
_Said = tuple[bool, bool, int, int, int, int]
#: the memory's stores (``oracle.memo``): per head's names, sentence → ``_Said`` (False:
#: not a plain sentence under that head); spans of one-line premises by offsets
_SAID = "causal_oracle.parser.corr2cause_fast.said"
_SPANS = "causal_oracle.parser.corr2cause_fast.spans"
#: at most this many sentences per head and spans are kept (then forgotten at once)
_KEPT = 8192


def _read_sentence(sentence: str, head: Declared) -> _Said | None:
    """What ``sentence`` (the text from a statement's start through its full stop)
    says under ``head``, or None when it is not a plain statement sentence that the
    head's checks accept.  ``_BULK`` matches no ``.`` before its last character, so
    matching the sentence alone is matching it at its place in the premise."""
    m = _BULK.match(sentence)
    if m is None or m.end() != len(sentence):
        return None
    however, first, corr, second_corr, second_marginal, second_cond, listed = m.groups()
    try:
        a, b, x, y = head.pair(first, second_corr if corr else second_marginal or second_cond)
        given = 0
        if listed is not None:
            names = _given_names(listed)
            if names is None:
                return None
            given = head.given(names, -1, -1)
            if given >> a & 1 or given >> b & 1:
                return None  # a related variable in its own conditioning set
    except SemanticError:
        return None
    return bool(corr), bool(however), x, y, given, m.start(2)


def _store(name: str, key: Hashable) -> dict[Any, Any]:
    """The current memory's dict under ``key`` in the store ``name`` (made on first
    use and emptied when it outgrows ``_KEPT``); a fresh dict without a memory."""
    found = recall(name, key)
    if found is None:
        found = {}
        keep(name, key, found)
    elif len(found) > _KEPT:
        found.clear()
    return found  # type: ignore[no-any-return]


def _bulk_statements(text: str, position: int, head: Declared
                     ) -> tuple[list[Correlation], list[Independence]] | None:
    """Every statement after the head when all are plain sentences, in one scan.

    What ``_quick_sentence`` and ``_assemble`` make of the same text, sentence by
    sentence, without building a sentence object per statement (a large premise has
    tens of thousands).  The text is cut at each full stop; what a sentence says
    under the head is read once (``_read_sentence``) and remembered by its text,
    since the same sentences recur across a dataset's premises, and so are the spans
    of one-line premises.  ``names`` are the head's, none of them a grammar keyword.
    Anything else — a sentence of another shape, an unknown or repeated name,
    "However," out of place, text left over — returns None, and the
    sentence-by-sentence path decides.
    """
    single_line = "\n" not in text
    pos = None if single_line else _Positions(text)
    said: dict[str, _Said | bool] = _store(_SAID, head.names)
    spans: dict[tuple[int, int], Span] = _store(_SPANS, None) if single_line else {}
    correlations: list[Correlation] = []
    independences: list[Independence] = []
    find = text.find
    pace = Pace()
    while True:
        pace.step()
        end = find(".", position) + 1
        if not end:
            break
        sentence = text[position:end]
        found = said.get(sentence)
        if found is None:
            found = said[sentence] = _read_sentence(sentence, head) or False
        if found is False:
            return None
        corr, however, x, y, given, at = found  # type: ignore[misc]
        if corr:
            if however or independences:
                return None
        elif however != (bool(correlations) and not independences):
            return None
        start = position + at
        position = end
        if pos is None:
            span = spans.get((start, end))
            if span is None:
                span = spans[start, end] = Span(start, end, 1, start + 1)
        else:
            span = Span(start, end, *pos.at(start))
        if corr:
            correlations.append(Correlation(x, y, span))
        else:
            independences.append(Independence(x, y, given, span))
    if text[position:].strip(" \t\f\r\n"):
        return None
    return correlations, independences


def parse_premise_fast(text: str) -> Premise | None:
    """The premise, or ``None`` when the text should go through the full grammar."""
    head_end = _HEAD_END.search(text)
    if head_end is None:
        return None
    try:
        intro, count2 = _head(text[: head_end.end()])  # type: ignore[misc]
        declared, head_names = intro  # type: ignore[misc]
        if not _KEYWORDS.isdisjoint(str(t) for t in head_names):
            return None  # a variable named like a keyword: only the whole grammar decides
        head = Declared(declared, tuple(head_names), count2)
        bulk = _bulk_statements(text, head_end.end(), head)
        if bulk is not None:
            return Premise(head.names, tuple(bulk[0]), tuple(bulk[1]), text)
        pieces: list[tuple[int, str]] = []
        position = head_end.end()
        pace = Pace()
        while True:
            pace.step()
            match = _SENTENCE.match(text, position)
            if match is None:
                break
            pieces.append((match.start(1), match.group(1)))
            position = match.end()
        if text[position:].strip(" \t\f\r\n"):
            return None
        sentences = []
        for start, piece in pieces:
            pace.step()
            sentences.append((start, _quick_sentence(piece) or _sentence(piece)))
    except (UnexpectedInput, VisitError, SemanticError):
        return None
    # the order the grammar demands: correlations, then "However," once, then independencies
    kinds = [raw.kind for _, (_, raw) in sentences]
    n_corr = kinds.count("corr")
    if kinds[:n_corr] != ["corr"] * n_corr:
        return None
    expected_however = [False] * len(kinds)
    if n_corr and n_corr < len(kinds):
        expected_however[n_corr] = True
    if [however for _, (however, _) in sentences] != expected_however:
        return None
    return _assemble(text, head, sentences)


def _assemble(text: str, head: Declared, sentences: list[tuple[int, tuple[bool, Raw]]]
              ) -> Premise | None:
    """The premise from cached sentence parses, checked by the same validator as the
    grammar path (``Declared``).

    Valid text only: any check that fails returns ``None``, so the full grammar and
    transformer report it with the exact line and column.  Tokens are not re-created
    at their absolute position (that was most of the cost of a large premise); only
    each statement's span is shifted.
    """
    pos = _Positions(text)
    correlations: list[Correlation] = []
    independences: list[Independence] = []
    pace = Pace()
    try:
        for start, (_, raw) in sentences:
            pace.step()
            a, b, x, y = head.pair(*raw.names)
            span = raw.span
            if span is not None:
                line, column = pos.at(span.start + start)
                span = Span(span.start + start, span.end + start, line, column)
            if raw.kind == "corr":
                correlations.append(Correlation(x, y, span))
            else:
                independences.append(Independence(x, y, head.given(raw.given, a, b), span))
    except SemanticError:
        return None
    return Premise(head.names, tuple(correlations), tuple(independences), text)

