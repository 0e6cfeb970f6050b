"""Read the checkable claims of a reasoning text: clause → template → typed ``Claim``.

``read_claims(text, names)`` cuts a reply into clauses (``parser.claims_text``: one
linear scan, the item's declared names bound to variables, hedged sentences dropped)
and parses each clause with the templates of ``claims.lark`` (an LALR grammar; one
section per concept: independence and correlation, d-separation, adjacency and edges,
causes, mediators, colliders and confounders, paths, adjustment sets, instruments,
identifiability, the equivalence class, numbers, the final answer).  A clause that
does not parse whole is no claim: it is skipped, never guessed.  The parse stops at
the first word that is in no template (``parser.claims_lalr``), which keeps the
reader fast on prose.

Reasoning inside ``<think>…</think>`` (or an unclosed ``<think>``) is read like any
other text: the tags are line breaks of their own length (``untagged``), so spans index
the reply as given.  A sentence with a CJK ideograph is read by the Chinese templates
(``parser.claims_zh``), any other by the English ones.

Negation is read ("A is not a cause of C" → ``polarity`` False; "A and B are
dependent" → an independence claim with polarity False); subjects may be lists ("A
and B cause C" → two claims); an arrow chain ("A -> B <- C") claims each of its edges.

>>> [(c.kind.value, c.variables, c.polarity) for c in read_claims(
...     "Step 4: A is not directly causing C. B is a collider between A and C.",
...     ("A", "B", "C"))]
[('edge', (0, 2), False), ('collider', (1, 0, 2), True)]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

from lark import Lark
from lark.exceptions import LarkError, VisitError
from lark.lexer import PatternStr

from causal_oracle.oracle.memo import memoised
from causal_oracle.oracle.reasoning.model import Claim
from causal_oracle.parser.claims_lalr import Automaton, Words
from causal_oracle.parser.claims_templates import Claims, NotAClaim
from causal_oracle.parser.claims_text import (
    END,
    MAX_SENTENCES,
    START,
    Clause,
    Names,
    clauses,
)
from causal_oracle.parser.claims_zh import (
    ZhNames,
    clauses_zh,
    has_chinese,
    read_clause_zh,
)
from causal_oracle.parser.claims_zh import sentences as zh_sentences

#: at most this many claims are read from one reply
MAX_CLAIMS = 400
#: how many distinct clauses' parses are remembered
PARSE_CACHE = 16_384


@cache
def _parser() -> tuple[Lark, frozenset[str]]:
    grammar = (Path(__file__).parent / "claims.lark").read_text(encoding="utf-8")
    parser = Lark(grammar, parser="lalr", lexer=Words, transformer=Claims(),
                  maybe_placeholders=True)
    words = frozenset(t.pattern.value for t in parser.terminals
                      if isinstance(t.pattern, PatternStr))
    return parser, words


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
    return groups  # the start rule's groups: a tuple of tuples


@cache
def _automaton() -> Automaton | None:
    """The automaton (None: this Lark keeps its table elsewhere; ``Lark.parse`` is used)."""
    try:
        return Automaton(_parser()[0])
    except (AttributeError, KeyError, TypeError, ValueError):
        return None


def _opens() -> Callable[[str], bool] | None:
    """Whether a claim may begin with a word (None: no automaton to ask)."""
    automaton = _automaton()
    return automaton.opens if automaton is not None else None


def _conjuncts(clause: Clause, groups: int) -> list[tuple[int, int]] | None:
    """The token ranges of a clause's conjuncts: cut at each "and" whose left side
    parses alone, left to right (bounded: one try per "and")."""
    words, out, begin = clause.words, [], 0
    for i, word in enumerate(words):
        if word == "and" and begin < i < len(words) - 1 and len(out) < groups - 1 and \
                _parse_words(tuple(words[begin:i])) is not None:
            out.append((begin, i))
            begin = i + 1
    out.append((begin, len(words)))
    return out if len(out) == groups else None


def read_clause(clause: Clause) -> list[Claim]:
    """The claims of one clause (none when it is not one of the templates), each with
    the span of its own words."""
    groups = _parse_words(tuple(clause.words))
    if not groups:
        return []
    if len(groups) == 1:
        span = (clause.start, clause.end)
        return [c.at(span) for c in groups[0]]
    spans = [(clause.start, clause.end)] * len(groups)
    ranges = _conjuncts(clause, len(groups))
    if ranges is not None:
        spans = [(clause.tokens[a][START], clause.tokens[b - 1][END]) for a, b in ranges]
    return [c.at(span) for group, span in zip(groups, spans, strict=True) for c in group]


def read_claims(text: str, names: tuple[str, ...] | Names,
                aliases: Mapping[str, int] | None = None) -> list[Claim]:
    """Every claim of ``text`` about the variables ``names`` (also named by ``aliases``),
    in reading order."""
    out: list[Claim] = []
    table = names if isinstance(names, Names) else Names(names, aliases)
    if "think" in text:
        text = untagged(text)
    opens = _opens()
    if text.isascii() or not has_chinese(text):  # ``isascii``: one flag, no scan
        for clause in clauses(text, table, opens=opens):
            out.extend(read_clause(clause))
            if len(out) >= MAX_CLAIMS:
                return out[:MAX_CLAIMS]
        return out
    return _read_mixed(text, table)


#: reasoning-block tags, longest first: each becomes a line break padded to its length
_TAGS = ("</thinking>", "<thinking>", "</think>", "<think>")


def untagged(text: str) -> str:
    """``text`` with its ``<think>``/``</think>`` (and ``<thinking>``) tags made line
    breaks of the same length: the reasoning inside a block — closed, left open, or
    closed by a ``</think>`` whose opening tag was in the prompt — is read like any
    other, and every span still indexes the reply as given.  One ``str.replace`` per
    tag (no pattern between tags)."""
    for tag in _TAGS:
        if tag in text:
            text = text.replace(tag, "\n" + " " * (len(tag) - 1))
    return text


def _read_mixed(text: str, table: Names) -> list[Claim]:
    """A reply with Chinese in it: each sentence read by its language's reader (a
    sentence with a CJK ideograph by ``parser.claims_zh``, any other by this one)."""
    out: list[Claim] = []
    chinese = ZhNames(table.index)
    for n, (start, stop, question) in enumerate(zh_sentences(text)):
        if n == MAX_SENTENCES or len(out) >= MAX_CLAIMS:
            break
        if question:
            continue
        if has_chinese(text[start:stop]):
            for clause in clauses_zh(text, start, stop, chinese):
                out.extend(read_clause_zh(clause))
        else:
            for clause in clauses(text, table, start, stop, _opens()):
                out.extend(read_clause(clause))
    return out[:MAX_CLAIMS]


def vocabulary() -> frozenset[str]:
    """The words the claim templates use."""
    return _parser()[1]


__all__ = ["MAX_CLAIMS", "read_claims", "read_clause", "untagged", "vocabulary"]
