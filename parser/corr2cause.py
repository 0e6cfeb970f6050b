"""Corr2Cause text → ``oracle.statements`` objects.

The grammar (``corr2cause.lark``) accepts the premise and hypothesis text exactly
as the upstream generator writes it, with any identifier as a variable name, and
the published ``"Premise: …\\nHypothesis: …"`` layout.  After parsing, the
transformer checks what a grammar cannot: the declared count matches the listed
variables, names are distinct and declared, and a statement never relates a
variable to itself.  Every failure is a ``ParseError`` with line and column.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path
from typing import Any

from lark import Lark, Token, v_args
from lark.exceptions import UnexpectedInput, VisitError

from causal_oracle.oracle.budget import Pace
from causal_oracle.oracle.errors import quote
from causal_oracle.oracle.memo import memoised
from causal_oracle.oracle.statements import (
    Correlation,
    Hypothesis,
    Independence,
    Premise,
    RelationKind,
    Span,
    SurfaceForm,
)
from causal_oracle.parser import numbers
from causal_oracle.parser.grammar import (
    PacedTransformer,
    SemanticError,
    load_grammar,
    run_parser,
)

_GRAMMAR = Path(__file__).with_name("corr2cause.lark")
_TERMINAL_NAMES = {"NAME": "a variable name", "COUNT": "a number", "$END": "end of text"}


def _parser(start: str) -> Lark:
    return load_grammar(_GRAMMAR, start)


def _span_of(meta: object) -> Span | None:
    if getattr(meta, "empty", True):
        return None
    return Span(meta.start_pos, meta.end_pos, meta.line, meta.column)  # type: ignore[attr-defined]


class _Raw:
    """Name-level statements before variables are resolved to indices."""

    __slots__ = ("given", "kind", "names", "span")

    def __init__(self, kind: str, names: tuple[Token, ...], given: tuple[Token, ...],
                 span: Span | None) -> None:
        self.kind, self.names, self.given, self.span = kind, names, given, span


class _Declared:
    """The one premise validator: the head's variables and every statement's checks.

    The grammar path (``_ToObjects.premise``) and both fast paths (``_assemble``,
    ``_bulk_statements``) build statements only through it, so they accept exactly the
    same premises.  A failed check raises ``SemanticError`` at the offending token (the
    fast paths then decline and the grammar path reports it with line and column).
    """

    __slots__ = ("index", "names")

    def __init__(self, declared: object, names: tuple[Any, ...], count2: object) -> None:
        stated = numbers.count(declared, "variables")  # type: ignore[arg-type]
        if stated != len(names):
            raise SemanticError(f"the premise declares {stated} variables but lists "
                                f"{len(names)}", declared)  # type: ignore[arg-type]
        again = numbers.count(count2, "variables")  # type: ignore[arg-type]
        if again != len(names):
            raise SemanticError(f"'these {again} variables' does not match the "
                                f"{len(names)} declared variables", count2)  # type: ignore[arg-type]
        index: dict[str, int] = {}
        for tok in names:
            if str(tok) in index:
                raise SemanticError(f"variable {quote(str(tok))} is declared twice", tok)
            index[str(tok)] = len(index)
        if len(index) > 62:
            raise SemanticError("at most 62 variables are supported", declared)  # type: ignore[arg-type]
        self.names = tuple(index)
        self.index = index

    def resolve(self, tok: Any) -> int:
        found = self.index.get(str(tok))
        if found is None:
            raise SemanticError(f"{quote(str(tok))} is not one of the declared variables "
                                 f"{', '.join(self.index)}", tok)
        return found

    def pair(self, first: Any, second: Any) -> tuple[int, int, int, int]:
        """(a, b, min, max) of a statement's two variables, which must differ."""
        a, b = self.resolve(first), self.resolve(second)
        if a == b:
            raise SemanticError(f"a statement relates {quote(str(first))} to itself", second)
        return (a, b, a, b) if a < b else (a, b, b, a)

    def given(self, tokens: Any, a: int, b: int) -> int:
        """The conditioning set's mask; neither related variable may be in it."""
        mask = 0
        for tok in tokens:
            g = self.resolve(tok)
            if g in (a, b):
                raise SemanticError(f"{quote(str(tok))} cannot be both a related variable and "
                                     f"in the conditioning set", tok)
            mask |= 1 << g
        return mask


class _ToObjects(PacedTransformer):
    """One method per grammar rule; builds typed, immutable objects."""

    def name_list(self, items: list[Token]) -> tuple[Token, ...]:
        return tuple(items)

    def intro(self, items: list[object]) -> tuple[Token, tuple[Token, ...]]:
        count, names = items
        return count, names  # type: ignore[return-value]

    @v_args(meta=True)
    def correlation(self, meta: object, items: list[Token]) -> _Raw:
        return _Raw("corr", (items[0], items[1]), (), _span_of(meta))

    @v_args(meta=True)
    def marginal_independence(self, meta: object, items: list[Token]) -> _Raw:
        return _Raw("indep", (items[0], items[1]), (), _span_of(meta))

    @v_args(meta=True)
    def conditional_independence(self, meta: object, items: list[object]) -> _Raw:
        x, y, given = items
        return _Raw("indep", (x, y), given, _span_of(meta))  # type: ignore[arg-type]

    def statements(self, items: list[_Raw]) -> list[_Raw]:
        return list(items)

    def premise_head(self, items: list[object]) -> tuple[object, Token]:
        intro, count2 = items
        return intro, count2  # type: ignore[return-value]

    def sentence_plain(self, items: list[_Raw]) -> tuple[bool, _Raw]:
        return False, items[0]

    def sentence_however(self, items: list[_Raw]) -> tuple[bool, _Raw]:
        return True, items[0]

    def premise(self, items: list[object]) -> Premise:
        ((declared, names), count2), statements = items  # type: ignore[misc]
        head = _Declared(declared, tuple(names), count2)
        correlations: list[Correlation] = []
        independences: list[Independence] = []
        pace = Pace()
        for raw in statements:  # type: ignore[union-attr]
            pace.step()
            a, b, x, y = head.pair(*raw.names)
            if raw.kind == "corr":
                correlations.append(Correlation(x, y, raw.span))
            else:
                independences.append(Independence(x, y, head.given(raw.given, a, b), raw.span))
        return Premise(head.names, tuple(correlations), tuple(independences))

    def _hyp(kind: RelationKind, form: SurfaceForm):  # type: ignore[no-untyped-def]
        def build(self: _ToObjects, items: list[Token]) -> Hypothesis:
            first, second = items
            if str(first) == str(second):
                raise SemanticError("a hypothesis must relate two different variables", second)
            return Hypothesis(kind, str(first), str(second), form)

        return build

    directly_causes = _hyp(RelationKind.DIRECT_CAUSE, SurfaceForm.DIRECTLY_CAUSES)
    directly_affects = _hyp(RelationKind.DIRECT_CAUSE, SurfaceForm.DIRECTLY_AFFECTS)
    causes_something_else = _hyp(RelationKind.INDIRECT_CAUSE, SurfaceForm.CAUSES_SOMETHING_ELSE)
    cause_not_direct = _hyp(RelationKind.INDIRECT_CAUSE, SurfaceForm.CAUSE_NOT_DIRECT)
    through_mediators = _hyp(RelationKind.INDIRECT_CAUSE, SurfaceForm.THROUGH_MEDIATORS)
    collider_exists = _hyp(RelationKind.COMMON_EFFECT, SurfaceForm.COLLIDER_EXISTS)
    together_cause = _hyp(RelationKind.COMMON_EFFECT, SurfaceForm.TOGETHER_CAUSE)
    confounder_exists = _hyp(RelationKind.COMMON_CAUSE, SurfaceForm.CONFOUNDER_EXISTS)
    cause_both = _hyp(RelationKind.COMMON_CAUSE, SurfaceForm.CAUSE_BOTH)
    mediators_not_directly = _hyp(RelationKind.INDIRECT_CAUSE,
                                  SurfaceForm.MEDIATORS_NOT_DIRECTLY)
    collider_common_child = _hyp(RelationKind.COMMON_EFFECT, SurfaceForm.COLLIDER_COMMON_CHILD)
    confounder_common_parent = _hyp(RelationKind.COMMON_CAUSE,
                                    SurfaceForm.CONFOUNDER_COMMON_PARENT)
    del _hyp

    def directly_affected_by(self, items: list[Token]) -> Hypothesis:
        """Corr2Cause++ "P is directly affected by Q.": the edge Q → P."""
        first, second = items
        if str(first) == str(second):
            raise SemanticError("a hypothesis must relate two different variables", second)
        return Hypothesis(RelationKind.DIRECT_CAUSE, str(second), str(first),
                          SurfaceForm.DIRECTLY_AFFECTED_BY)

    # ---- Corr2Cause++ premise dialect (closed world: independences only)
    def pp_names(self, items: list[Token]) -> tuple[Token, ...]:
        return tuple(items)

    def pp_intro(self, items: list[object]) -> tuple[Token, tuple[Token, ...]]:
        count, names = items
        return count, names  # type: ignore[return-value]

    @v_args(meta=True)
    def pp_independence(self, meta: object, items: list[Token]) -> _Raw:
        return _Raw("indep", (items[0], items[1]), tuple(items[2:]), _span_of(meta))

    def pp_statements(self, items: list[_Raw | None]) -> list[_Raw]:
        return [i for i in items if i is not None]

    def pp_premise(self, items: list[object]) -> Premise:
        (count, names), statements = items  # type: ignore[misc]
        return self.premise([((count, names), count), statements])

    def item(self, items: list[object]) -> tuple[Premise, Hypothesis]:
        premise, hypothesis = items
        return premise, hypothesis  # type: ignore[return-value]


_TRANSFORMER = _ToObjects()


def _parse(text: str, start: str, what: str) -> object:
    return run_parser(_parser(start), _TERMINAL_NAMES, text, what, _TRANSFORMER)


def parse_premise(text: str) -> Premise:
    """Parse a Corr2Cause premise.

    >>> p = parse_premise("Suppose there is a closed system of 2 variables, A and B. "
    ...                   "All the statistical relations among these 2 variables are as "
    ...                   "follows: A is independent of B.")
    >>> p.variables, [s.key for s in p.independences]
    (('A', 'B'), [(0, 1, 0)])
    """
    premise = _parse_premise_fast(text)
    if premise is not None:
        return premise
    premise = _parse(text, "premise", "premise")
    assert isinstance(premise, Premise)
    return Premise(premise.variables, premise.correlations, premise.independences, text)


def parse_hypothesis(text: str) -> Hypothesis:
    """Parse a Corr2Cause hypothesis in any of the original or paraphrased templates.

    >>> parse_hypothesis("A influences B through some mediator(s).").kind.value
    'indirect_cause'
    """
    hypothesis = _parse(text, "hypothesis", "hypothesis")
    assert isinstance(hypothesis, Hypothesis)
    return hypothesis


def parse_item(text: str) -> tuple[Premise, Hypothesis]:
    """Parse the published layout ``"Premise: …\\nHypothesis: …"``."""
    premise, hypothesis = _parse(text, "item", "input")  # type: ignore[misc]
    start = text.find("Premise:") + len("Premise:")
    end = text.rfind("Hypothesis:")
    premise_text = text[start:end].strip()
    return Premise(premise.variables, premise.correlations, premise.independences,
                   premise_text), hypothesis


# ---------------------------------------------------------------------------
# Fast path for premises.  The 207,972 upstream items use 2,376 premises built
# from a few hundred distinct sentences, so a premise is parsed sentence by
# sentence with the same grammar (start symbols ``premise_head`` and
# ``premise_sentence``), each distinct sentence once, and the tokens are shifted
# to their place in the premise before the same transformer checks names.  Any
# text the fast path does not take as a whole goes to the full grammar, which
# gives the exact error position.
# ---------------------------------------------------------------------------
_HEAD_END = re.compile(r"follows\s*:")
_SENTENCE = re.compile(r"[ \t\f\r\n]*([^ \t\f\r\n.:][^.:]*\.)")  # WS as in the grammar; linear


@memoised(scale=2)
def _head(text: str) -> object:
    return _TRANSFORMER.transform(_parser("premise_head").parse(text))


@memoised(scale=2)
def _sentence(text: str) -> tuple[bool, _Raw]:
    return _TRANSFORMER.transform(_parser("premise_sentence").parse(text))  # type: ignore[return-value]


_NAME = r"([A-Za-z_][A-Za-z0-9_]*)"
_KEYWORDS = frozenset(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"',
                                 _GRAMMAR.read_text(encoding="utf-8")))
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
def _quick_sentence(text: str) -> tuple[bool, _Raw] | None:
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
        raw = _Raw("corr" if kind == "corr" else "indep", names, given, span)  # type: ignore[arg-type]
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


def _bulk_statements(text: str, position: int, head: _Declared
                     ) -> tuple[list[Correlation], list[Independence]] | None:
    """Every statement after the head when all are plain sentences, in one scan.

    What ``_quick_sentence`` and ``_assemble`` make of the same text, sentence by
    sentence, without building a sentence object per statement (a large premise has
    tens of thousands).  ``names`` are the head's, none of them a grammar keyword.
    Anything else — a sentence of another shape, an unknown or repeated name,
    "However," out of place, text left over — returns None, and the
    sentence-by-sentence path decides.
    """
    pos = _Positions(text)
    single_line = not pos.newlines
    masks: dict[str, int] = {}
    correlations: list[Correlation] = []
    independences: list[Independence] = []
    match = _BULK.match
    pace = Pace()
    try:
        while True:
            pace.step()
            m = match(text, position)
            if m is None:
                break
            position = m.end()
            however, first, corr, second_corr, second_marginal, second_cond, listed = m.groups()
            if corr:
                if however or independences:
                    return None
                second = second_corr
            elif bool(however) != (bool(correlations) and not independences):
                return None
            else:
                second = second_marginal or second_cond
            a, b, x, y = head.pair(first, second)
            start = m.start(2)
            line, column = (1, start + 1) if single_line else pos.at(start)
            span = Span(start, position, line, column)
            if corr:
                correlations.append(Correlation(x, y, span))
                continue
            given = 0
            if listed is not None:
                found = masks.get(listed)
                if found is None:
                    given_names = _given_names(listed)
                    if given_names is None:
                        return None
                    found = masks[listed] = head.given(given_names, -1, -1)
                if found >> a & 1 or found >> b & 1:
                    return None  # a related variable in its own conditioning set
                given = found
            independences.append(Independence(x, y, given, span))
    except SemanticError:
        return None
    if text[position:].strip(" \t\f\r\n"):
        return None
    return correlations, independences


def _parse_premise_fast(text: str) -> Premise | None:
    """The premise, or ``None`` when the text should go through the full grammar."""
    head_end = _HEAD_END.search(text)
    if head_end is None:
        return None
    try:
        intro, count2 = _head(text[: head_end.end()])  # type: ignore[misc]
        declared, head_names = intro  # type: ignore[misc]
        if not _KEYWORDS.isdisjoint(str(t) for t in head_names):
            return None  # a variable named like a keyword: only the whole grammar decides
        head = _Declared(declared, tuple(head_names), count2)
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


def _assemble(text: str, head: _Declared, sentences: list[tuple[int, tuple[bool, _Raw]]]
              ) -> Premise | None:
    """The premise from cached sentence parses, checked by the same validator as the
    grammar path (``_Declared``).

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
