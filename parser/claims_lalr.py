"""Drive a claim grammar's LALR(1) table over a clause that is already cut into words.

Both claim readers (``parser.claims``, English; ``parser.claims_zh``, Chinese) build
their templates with Lark (``parser="lalr"``) and a lexer that does no lexing
(``Words``: the clause is a list of words already, each becomes its terminal by one
dictionary look-up).  ``Automaton`` then runs Lark's parse table and transformer
callbacks itself: one shift per word and a bounded number of reductions, no lexer
thread, no parser-state objects, no exception per clause that is no claim — most
clauses are none.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from operator import itemgetter
from typing import Any

from lark import Lark, Token
from lark.lexer import Lexer, PatternStr
from lark.parse_tree_builder import (
    ChildFilterLALR,
    ChildFilterLALR_NoPlaceholders,
    ExpandSingleChild,
)
from lark.parsers.lalr_analysis import Shift

from causal_oracle.parser.claims_templates import NotAClaim

#: how many words' terminal tokens an automaton remembers
TOKEN_CACHE = 4096
#: at most this many reductions per word of a clause (far more than any template needs)
MAX_REDUCTIONS = 64


class Words(Lexer):
    """The clause is already cut into words (``parser.claims_text``): each word becomes
    its terminal by one dictionary look-up — no regular expression runs over it."""

    __future_interface__ = 0

    def __init__(self, conf: Any) -> None:
        self.kinds = {t.pattern.value: t.name for t in conf.terminals
                      if isinstance(t.pattern, PatternStr)}

    def lex(self, words: list[str]) -> Iterator[Token]:  # type: ignore[override]
        for word in words:
            kind = terminal(self.kinds, word)
            if kind is None:
                raise NotAClaim(f"{word!r} is in no template")
            yield Token(kind, word)


_ARROWS = frozenset({"->", "<-", "<->", "--"})


def _is_number(word: str) -> bool:
    digits = word.removeprefix("-").removesuffix("%")
    whole, _, decimals = digits.partition(".")
    return whole.isdigit() and (not decimals or decimals.isdigit())


def terminal(kinds: dict[str, str], word: str) -> str | None:
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


class Automaton:
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
        #: reduction: how many values it pops, its callback, the symbol it makes); a state
        #: is its row itself, so a step is one look-up in the row on top of the stack
        empty = _empty_rules(callbacks)
        fast = {rule: _direct(callback, rule, empty) for rule, callback in callbacks.items()}
        rows: dict[Any, dict[str, tuple[Any, Any]]] = {state: {} for state in table.states}
        for state, row in table.states.items():
            rows[state].update(
                (str(symbol), (rows[arg], None) if action is Shift else  # plain str keys
                 (None, (len(arg.expansion), fast[arg], str(arg.origin.name))))
                for symbol, (action, arg) in row.items()
                if not (action is Shift and symbol == "$END"))  # the end never shifts
        self.states = rows
        self.start = rows[table.start_states["start"]]
        self.end = rows[table.end_states["start"]]
        self.kinds = {str(t.pattern.value): str(t.name) for t in parser.terminals
                      if isinstance(t.pattern, PatternStr)}
        self.tokens: dict[str, tuple[str, Token]] = {}

    def opens(self, word: str) -> bool:
        """Whether a sentence of the grammar may begin with ``word`` (its terminal has an
        action in the start state): a clause whose first word does not is no claim,
        which the reader knows before it makes the clause."""
        hit = self.tokens.get(word) or self.token(word)
        return hit is not None and hit[0] in self.start

    def token(self, word: str) -> tuple[str, Token] | None:
        """The terminal of ``word`` and its token (None: it is in no template); tokens
        are immutable, so each word's is made once (at most ``TOKEN_CACHE`` kept)."""
        hit = self.tokens.get(word)
        if hit is not None:
            return hit
        kind = terminal(self.kinds, word)
        if kind is None:
            return None
        if len(self.tokens) >= TOKEN_CACHE:
            self.tokens.clear()
        hit = self.tokens[word] = (kind, Token(kind, word))
        return hit

    def run(self, words: tuple[str, ...]) -> Any:
        """The transformed parse of ``words`` (None: they are no sentence of the grammar).

        One loop for the words and the end of the clause (``None`` after the last
        word, the terminal ``$END``): each terminal reduces until it shifts — or, at
        the end, until the start symbol is made."""
        tokens, end = self.tokens, self.end
        state = self.start  # the row on top of ``stack``, kept in a local
        stack, values = [state], []  # states (their rows) and values
        budget = MAX_REDUCTIONS * (len(words) + 1)
        for word in (*words, None):
            if word is None:
                kind, token = "$END", None
            else:
                hit = tokens.get(word) or self.token(word)
                if hit is None:
                    return None
                kind, token = hit
            while True:  # reduce until the terminal shifts
                step = state.get(kind)
                if step is None:
                    return None
                shift, reduce = step
                if reduce is None:
                    state = shift
                    stack.append(state)
                    values.append(token)
                    break
                budget -= 1
                if budget < 0:
                    return None
                size, callback, origin = reduce
                if callback is None:  # a unit rule that passes its one value up
                    state = stack[-2][origin][0]
                    stack[-1] = state
                else:
                    if size:
                        children = values[-size:]
                        del stack[-size:]
                        del values[-size:]
                    else:
                        children = []
                    values.append(callback(children))
                    state = stack[-1][origin][0]
                    stack.append(state)
                if state is end:  # only the start symbol leads here, on ``$END``
                    return values[-1]
        return None


def _entries(callback: Any) -> tuple[list[tuple[int, bool, int]], int] | None:
    """A child filter's entries — (child, whether its children are spliced in, how many
    ``None`` placeholders go before it) — and how many go at the end (None: the
    callback filters nothing)."""
    kind = type(callback)
    if kind is ChildFilterLALR_NoPlaceholders:
        return [(i, bool(expand), 0) for i, expand in callback.to_include], 0
    if kind is ChildFilterLALR:
        return [(i, bool(expand), add) for i, expand, add in callback.to_include], \
            callback.append_none
    return None


def _makes_tree(build: Any) -> bool:
    """Whether ``build`` is Lark's default for an inlined rule (``_rule``): a tree whose
    children its parent splices in."""
    return isinstance(build, partial) and bool(build.args) and str(build.args[0]).startswith("_")


def _empty_rules(callbacks: dict[Any, Any]) -> frozenset[str]:
    """The inlined rules that keep no child, whichever alternative is reduced (``_be:
    "is" | "are"``, ``_equals: "=" | _be | …``): a parent that splices one in gets
    nothing from it.  A fixpoint over the rules (each round adds one at least)."""
    by_origin: dict[str, list[tuple[Any, Any]]] = {}
    for rule, callback in callbacks.items():
        by_origin.setdefault(str(rule.origin.name), []).append((rule, callback))

    def keeps_nothing(rule: Any, callback: Any, empty: set[str]) -> bool:
        entries = _entries(callback)
        if entries is None or not _makes_tree(callback.node_builder):
            return False
        include, tail = entries
        return not tail and all(expand and not add and str(rule.expansion[i].name) in empty
                                for i, expand, add in include)

    empty: set[str] = set()
    for _ in range(len(by_origin)):
        more = {origin for origin, rules in by_origin.items() if origin not in empty
                and all(keeps_nothing(rule, callback, empty) for rule, callback in rules)}
        if not more:
            break
        empty |= more
    return frozenset(empty)


def _direct(callback: Any, rule: Any, empty: frozenset[str]) -> Any:
    """A rule's callback with Lark's generic child filter compiled away: which children
    it keeps, which inlined rules' children it splices in (``_rule``; none from a rule
    of ``empty``) and where it adds ``None`` placeholders are fixed per rule, so each
    reduction runs a plan made once — one ``itemgetter`` call where it splices nothing
    (a placeholder is picked from a ``None`` put after the children) — instead of a
    loop that re-reads the rule's filter entries.

    None for a rule of one symbol that passes its value up unchanged (``?claim:
    independence | …``): ``Automaton.run`` then makes no call.  A rule that keeps no
    child and only builds a tree (``_be: "is" | "are"``, spliced into its parent as
    no children) gets one tree made once."""
    if type(callback) is ExpandSingleChild and len(rule.expansion) == 1:
        return None
    entries = _entries(callback)
    if entries is None:
        return callback
    include, tail = entries
    build = callback.node_builder
    slots: list[int] = []  # the children kept, in order; -1: a placeholder
    plan: list[tuple[int, bool, int]] = []  # the same, for a rule that splices
    for i, expand, add in include:
        slots += [-1] * add
        if expand and str(rule.expansion[i].name) in empty:
            if add:
                plan.append((-1, False, add))  # its placeholders alone
            continue  # it splices in no child
        slots.append(i)
        plan.append((i, expand, add))
    slots += [-1] * tail
    if not any(expand for _, expand, _ in plan):
        return _picker(build, slots)
    steps = tuple(plan)

    def filtered(children: list[Any]) -> Any:
        out: list[Any] = []
        for i, expand, add in steps:
            if add:
                out += [None] * add
            if expand:
                out += children[i].children
            elif i >= 0:
                out.append(children[i])
        if tail:
            out += [None] * tail
        return build(out)

    return filtered


def _picker(build: Any, slots: list[int]) -> Any:
    """``build`` over the children at ``slots`` (-1: a ``None`` placeholder)."""
    if not slots:
        if _makes_tree(build):
            empty = build([])  # an inlined rule's default tree: its parent splices its
            return lambda children: empty  # children (none), so one tree serves all
        return lambda children: build([])
    if len(slots) == 1:
        at = slots[0]
        return (lambda children: build([children[at]])) if at >= 0 else \
            (lambda children: build([None]))
    get = itemgetter(*slots)
    if -1 not in slots:
        return lambda children: build(list(get(children)))

    def picked(children: list[Any]) -> Any:
        children.append(None)  # a fresh list of this reduction's values: -1 picks it
        return build(list(get(children)))

    return picked


__all__ = ["MAX_REDUCTIONS", "TOKEN_CACHE", "Automaton", "Words", "terminal"]
