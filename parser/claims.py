"""Read the checkable claims of a reasoning text: clause → template → typed ``Claim``.

``read_claims(text, names)`` cuts a reply into clauses (``parser.claims_text``: one
linear scan, the item's declared names bound to variables, hedged sentences dropped)
and parses each clause with the templates of ``claims.lark`` (an LALR grammar; one
section per concept: independence and correlation, d-separation, adjacency and edges,
causes, mediators, colliders and confounders, paths, adjustment sets, instruments,
identifiability, the equivalence class, numbers, the final answer).  A clause that
does not parse whole is no claim: it is skipped, never guessed.  A clause whose words
are not all in the grammar's vocabulary is skipped before parsing, which keeps the
reader fast on prose.

Negation is read ("A is not a cause of C" → ``polarity`` False; "A and B are
dependent" → an independence claim with polarity False); subjects may be lists ("A
and B cause C" → two claims); an arrow chain ("A -> B <- C") claims each of its edges.

>>> [(c.kind.value, c.variables, c.polarity) for c in read_claims(
...     "Step 4: A is not directly causing C. B is a collider between A and C.",
...     ("A", "B", "C"))]
[('edge', (0, 2), False), ('collider', (1, 0, 2), True)]
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from lark import Lark, Token
from lark.exceptions import LarkError, VisitError
from lark.lexer import Lexer, PatternStr
from lark.parsers.lalr_analysis import Shift

from causal_oracle.oracle.memo import memoised
from causal_oracle.oracle.reasoning.model import Claim
from causal_oracle.parser.claims_templates import Claims, NotAClaim
from causal_oracle.parser.claims_text import Clause, Kind, Names, clauses

#: at most this many claims are read from one reply
MAX_CLAIMS = 400
#: how many distinct clauses' parses are remembered
PARSE_CACHE = 16_384
#: how many words' terminal tokens are remembered
TOKEN_CACHE = 4096
#: at most this many reductions per word of a clause (far more than any template needs)
MAX_REDUCTIONS = 64


class _Words(Lexer):
    """The clause is already cut into words (``parser.claims_text``): each word becomes
    its terminal by one dictionary look-up — no regular expression runs over it."""

    __future_interface__ = 0

    def __init__(self, conf: Any) -> None:
        self.kinds = {t.pattern.value: t.name for t in conf.terminals
                      if isinstance(t.pattern, PatternStr)}

    def lex(self, words: list[str]) -> Iterator[Token]:  # type: ignore[override]
        for word in words:
            kind = _terminal(self.kinds, word)
            if kind is None:
                raise NotAClaim(f"{word!r} is in no template")
            yield Token(kind, word)


_ARROWS = frozenset({"->", "<-", "<->", "--"})


def _is_number(word: str) -> bool:
    digits = word.removeprefix("-").removesuffix("%")
    whole, _, decimals = digits.partition(".")
    return whole.isdigit() and (not decimals or decimals.isdigit())


def _terminal(kinds: dict[str, str], word: str) -> str | None:
    """The terminal a word is: a template's literal word, an arrow, a bound variable
    (``V0``, ``V1``, …) or a number; None when it is in no template."""
    kind = kinds.get(word)
    if kind is not None:
        return kind
    if word in _ARROWS:
        return "ARROW"
    if word[:1] == "V" and word[1:].isdigit():
        return "VAR"
    return "NUMBER" if _is_number(word) else None


@cache
def _parser() -> tuple[Lark, frozenset[str]]:
    grammar = (Path(__file__).parent / "claims.lark").read_text(encoding="utf-8")
    parser = Lark(grammar, parser="lalr", lexer=_Words, transformer=Claims(),
                  maybe_placeholders=True)
    words = frozenset(t.pattern.value for t in parser.terminals
                      if isinstance(t.pattern, PatternStr))
    return parser, words


def _fits(clause: Clause, vocabulary: frozenset[str]) -> bool:
    """Whether every word of ``clause`` is one the templates use (else it is no claim)."""
    word = Kind.WORD
    return vocabulary.issuperset([t.text for t in clause.tokens if t.kind is word])


def _parse(parser: Lark, words: list[str]) -> tuple[tuple[Claim, ...], ...] | None:
    return _parse_words(tuple(words))


@memoised(limit=PARSE_CACHE)
def _parse_words(words: tuple[str, ...]) -> tuple[tuple[Claim, ...], ...] | None:
    """The claims of a clause's normalised words, grouped by conjunct (None: no claim).

    Cached: models repeat their phrasing, within a reply, across the replies to one item
    and — names being ``V<index>`` here — across items.  Claims are frozen records
    (their spans are set per occurrence by ``read_clause``), so sharing them is safe."""
    automaton = _automaton()
    try:
        groups = automaton.run(words) if automaton is not None else \
            _parser()[0].parse(list(words))  # type: ignore[arg-type]
    except (LarkError, NotAClaim, VisitError):
        return None
    if groups is None:
        return None
    return tuple(tuple(group) for group in groups)


class _Automaton:
    """The templates' LALR(1) automaton (Lark's parse table and its transformer
    callbacks), driven directly over a clause's words.

    What ``Lark.parse`` does for this grammar, without its lexer thread, parser-state
    objects and the exception it builds (with the expected terminals) for every clause
    that is no claim — most clauses: a word outside the templates or a dead end in the
    table just returns None.  One shift per word and a bounded number of reductions
    (the grammar has no cycle of unit rules; ``MAX_REDUCTIONS`` per word caps them
    besides): linear in the clause's length."""

    def __init__(self, parser: Lark) -> None:
        inner = parser.parser.parser.parser  # frontend → LALR_Parser → its driver
        table, callbacks = inner.parse_table, inner.callbacks
        #: state → terminal or rule name → (the state to shift to, or None and the
        #: reduction: how many values it pops, its callback, the symbol it makes)
        self.states: dict[Any, dict[str, tuple[Any, Any]]] = {
            state: {str(symbol): (arg, None) if action is Shift else  # plain str keys
                    (None, (len(arg.expansion), callbacks[arg], str(arg.origin.name)))
                    for symbol, (action, arg) in row.items()}
            for state, row in table.states.items()}
        self.start = table.start_states["start"]
        self.end = table.end_states["start"]
        self.kinds = {str(t.pattern.value): str(t.name) for t in parser.terminals
                      if isinstance(t.pattern, PatternStr)}
        self.tokens: dict[str, tuple[str, Token]] = {}

    def token(self, word: str) -> tuple[str, Token] | None:
        """The terminal of ``word`` and its token (None: it is in no template); tokens
        are immutable, so each word's is made once (at most ``TOKEN_CACHE`` kept)."""
        hit = self.tokens.get(word)
        if hit is not None:
            return hit
        kind = _terminal(self.kinds, word)
        if kind is None:
            return None
        if len(self.tokens) >= TOKEN_CACHE:
            self.tokens.clear()
        hit = self.tokens[word] = (kind, Token(kind, word))
        return hit

    def run(self, words: tuple[str, ...]) -> Any:
        """The transformed parse of ``words`` (None: they are no sentence of the grammar)."""
        states, tokens = self.states, self.tokens
        state_stack, value_stack = [self.start], []
        budget = MAX_REDUCTIONS * (len(words) + 1)
        for word in words:
            hit = tokens.get(word) or self.token(word)
            if hit is None:
                return None
            kind, token = hit
            while True:  # reduce until the word shifts
                step = states[state_stack[-1]].get(kind)
                if step is None:
                    return None
                shift, reduce = step
                if reduce is None:
                    state_stack.append(shift)
                    value_stack.append(token)
                    break
                budget -= 1
                if budget < 0:
                    return None
                size, callback, origin = reduce  # one reduction, inline (as ``_reduce``)
                if size:
                    children = value_stack[-size:]
                    del state_stack[-size:]
                    del value_stack[-size:]
                else:
                    children = []
                value_stack.append(callback(children))
                state_stack.append(states[state_stack[-1]][origin][0])
        for _ in range(budget + 1):  # the end: reduce until the start symbol is made
            step = states[state_stack[-1]].get("$END")
            if step is None or step[1] is None:
                return None
            _reduce(states, state_stack, value_stack, step[1])
            if state_stack[-1] == self.end:
                return value_stack[-1]
        return None


def _reduce(states: dict[Any, dict[str, tuple[Any, Any]]], state_stack: list[Any],
            value_stack: list[Any], reduce: tuple[int, Any, str]) -> None:
    """One LALR reduction: pop the rule's values, push what its callback makes of them."""
    size, callback, origin = reduce
    if size:
        children = value_stack[-size:]
        del state_stack[-size:]
        del value_stack[-size:]
    else:
        children = []
    value_stack.append(callback(children))
    state_stack.append(states[state_stack[-1]][origin][0])


@cache
def _automaton() -> _Automaton | None:
    """The automaton (None: this Lark keeps its table elsewhere; ``Lark.parse`` is used)."""
    try:
        return _Automaton(_parser()[0])
    except (AttributeError, KeyError, TypeError, ValueError):
        return None


def _conjuncts(parser: Lark, clause: Clause, groups: int) -> list[tuple[int, int]] | None:
    """The token ranges of a clause's conjuncts: cut at each "and" whose left side
    parses alone, left to right (bounded: one try per "and")."""
    words, out, begin = clause.words, [], 0
    for i, word in enumerate(words):
        if word == "and" and begin < i < len(words) - 1 and len(out) < groups - 1 and \
                _parse(parser, words[begin:i]) is not None:
            out.append((begin, i))
            begin = i + 1
    out.append((begin, len(words)))
    return out if len(out) == groups else None


def read_clause(clause: Clause) -> list[Claim]:
    """The claims of one clause (none when it is not one of the templates), each with
    the span of its own words."""
    parser, vocabulary = _parser()
    if not _fits(clause, vocabulary):
        return []
    groups = _parse(parser, clause.words)
    if not groups:
        return []
    spans = [(clause.start, clause.end)] * len(groups)
    if len(groups) > 1:
        ranges = _conjuncts(parser, clause, len(groups))
        if ranges is not None:
            spans = [(clause.tokens[a].start, clause.tokens[b - 1].end) for a, b in ranges]
    return [c.at(span) for group, span in zip(groups, spans, strict=True) for c in group]


def read_claims(text: str, names: tuple[str, ...] | Names,
                aliases: Mapping[str, int] | None = None) -> list[Claim]:
    """Every claim of ``text`` about the variables ``names`` (also named by ``aliases``),
    in reading order."""
    out: list[Claim] = []
    table = names if isinstance(names, Names) else Names(names, aliases)
    for clause in clauses(text, table):
        out.extend(read_clause(clause))
        if len(out) >= MAX_CLAIMS:
            return out[:MAX_CLAIMS]
    return out


def vocabulary() -> frozenset[str]:
    """The words the claim templates use."""
    return _parser()[1]


__all__ = ["MAX_CLAIMS", "read_claims", "read_clause", "vocabulary"]
