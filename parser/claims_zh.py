"""Read the checkable claims of Chinese reasoning: sentence → clauses → templates.

CaLM asks every question in English and in Chinese, and its Chinese replies reason in
Chinese ("C导致D，D导致E，所以C是E的祖先节点。因此答案为“是”。").  This reader does
for Chinese what ``parser.claims`` does for English, in one linear scan of a sentence:

1. **words** (``parser.claims_zh_words``) — Chinese has no spaces: at each character
   "d-分离" is one word, a value word after "X为" the number of that value (where the
   item's values are given), the item's declared names are bound (longest first:
   "收入水平", "A"; a one-letter Latin name only in its own case), then the longest
   word of the templates' vocabulary is taken ("父节点" before "父"); a run of Latin
   letters is one word (lower-cased), a number one number ("0.1234", "-0.08", "26%");
   a character in no word makes a word no template has, so its clause is no claim;
2. **sentences and clauses** — cut at 。！？；, a line break (and their ASCII forms), then
   at "，" / "," outside brackets and at a colon whose head names no variable ("步骤1："
   is dropped, "答案：是" kept); a question makes no claim, and a sentence that hedges
   or supposes (可能, 如果, 假设, 也许, 若, …) is dropped whole; a clause loses its
   discourse lead (因此, 所以, 由于, 首先, …), fillers (也, 都, …) and the word 节点/变量
   before a name; a condition said first ("给定C，…") stays with the clause after it;
   "用B代表考试成绩" makes B a name of 考试成绩 for the rest of the reply;
3. **templates** — each clause parses whole as one of ``claims_zh.lark`` or is no
   claim; negation (不, 没有, 并非, 无法, …) is read.  A claim about "any node"
   ("E没有导致任何节点", "A没有父节点") is one claim per other variable of the item,
   all at the clause's span: it is false where one of them is.

>>> [(c.kind.value, c.variables, c.polarity) for c in read_chinese(
...     "C导致D，所以C是E的祖先节点。A不是E的父节点。因此答案为“是”。",
...     ("A", "C", "D", "E"))]
[('cause', (1, 2), True), ('cause', (1, 3), True), ('edge', (0, 3), False), ('answer', (), True)]
>>> [(c.kind.value, c.variables, c.polarity) for c in read_chinese(
...     "E没有导致任何节点。", ("A", "C", "E"))]
[('cause', (2, 0), False), ('cause', (2, 1), False)]
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from lark import Lark
from lark.exceptions import LarkError, VisitError
from lark.lexer import PatternStr

from causal_oracle.oracle.memo import memoised
from causal_oracle.oracle.reasoning.model import Claim
from causal_oracle.parser.claims_lalr import Automaton, Words
from causal_oracle.parser.claims_templates import NotAClaim
from causal_oracle.parser.claims_text import (
    END,
    KIND,
    RAW,
    START,
    TEXT,
    Clause,
    Kind,
    Token,
    token,
)
from causal_oracle.parser.claims_zh_templates import ANY, ZhClaims
from causal_oracle.parser.claims_zh_words import (
    INTRODUCERS,
    ZhNames,
    has_chinese,
    is_cjk,
    scan_words,
)

#: at most this many sentences of one reply are read
MAX_SENTENCES = 400
#: a sentence longer than this is skipped (no claim template is this long)
MAX_SENTENCE_CHARS = 600
#: a reply may define at most this many names of its own ("用B代表…")
MAX_DEFINED = 32
#: how many distinct clauses' parses are remembered
PARSE_CACHE = 16_384

#: a sentence with one of these hedges or suppositions claims nothing checkable
HEDGES = frozenset({"可能", "如果", "假如", "假设", "假定", "若", "也许", "或许", "大概",
                    "似乎", "好像", "除非", "要是", "倘若", "不确定", "未知", "不一定",
                    "不可能", "吗", "呢", "估计", "猜测", "如何", "怎样"})
#: discourse leads dropped at a clause's start
LEADS = frozenset({"因此", "所以", "因而", "于是", "那么", "由于", "因为", "首先", "其次",
                   "然后", "最后", "总之", "综上所述", "综上", "可见", "也就是说", "换句话说",
                   "换言之", "即", "但是", "但", "然而", "而", "并且", "而且", "同时", "另外",
                   "此外", "显然", "知道", "看出", "得出", "注意到", "发现", "由此", "这",
                   "意味着", "说明", "表明", "故", "从而", "进而", "接着", "则", "又", "所",
                   "以及", "且", "我们", "考虑到", "考虑", "已知", "根据"})
#: two-word leads ("可以看出"): "可以" alone is kept ("我们可以调整C")
_LEAD_PAIRS = frozenset({("可以", "看出"), ("可以", "得出"), ("可以", "知道"),
                         ("可以", "发现"), ("可以", "确定")})
#: words that carry no claim: dropped everywhere
FILLERS = frozenset({"也", "都", "确实", "一定", "就", "还", "并", "的确", "实际上", "均",
                     "一个", "必然", "显然"})
#: a clause starting with one of these is a condition or a pair said first: it is read
#: together with the clause after it
_PREFIXES = frozenset({"给定", "在", "以", "对于", "当"})
#: an example in brackets after these words is no part of the claim
_EXAMPLES = frozenset({"例如", "比如", "如", "譬如"})
#: words no template has that a definition or heading uses
_OTHER = frozenset({"用", "令", "设", "可以", "有序"})
#: words that define a name ("用B代表考试成绩", "B表示考试成绩")
_DEFINES = frozenset({"代表", "表示", "指代"})

#: a sentence's end: 。！？；, their ASCII forms, a line break, a full stop before no digit
_END = re.compile(r"[。！？；!?;\n\r]|\.(?!\d)")
_QUESTIONS = frozenset("？?")

@cache
def _lengths() -> dict[str, tuple[int, ...]]:
    """The vocabulary's word lengths by first character, longest first (the lengths
    worth trying at a character: one look-up per candidate, not per size)."""
    out: dict[str, set[int]] = {}
    for word in _parser()[1]:
        out.setdefault(word[0], set()).add(len(word))
    return {first: tuple(sorted(sizes, reverse=True)) for first, sizes in out.items()}


@cache
def _parser() -> tuple[Lark, frozenset[str]]:
    grammar = (Path(__file__).parent / "claims_zh.lark").read_text(encoding="utf-8")
    parser = Lark(grammar, parser="lalr", lexer=Words, transformer=ZhClaims(),
                  maybe_placeholders=True)
    literals = {str(t.pattern.value) for t in parser.terminals
                if isinstance(t.pattern, PatternStr)}
    extra = HEDGES | LEADS | FILLERS | INTRODUCERS | _DEFINES | _EXAMPLES | _OTHER
    words = frozenset(w for w in literals | extra if any(map(is_cjk, w)))
    return parser, words


@cache
def _automaton() -> Automaton | None:
    try:
        return Automaton(_parser()[0])
    except (AttributeError, KeyError, TypeError, ValueError):
        return None


@memoised(limit=PARSE_CACHE)
def _parse_words(words: tuple[str, ...]) -> tuple[Claim, ...] | None:
    """The claims of a clause's words (None: no claim); cached like the English reader's."""
    automaton = _automaton()
    try:
        groups = automaton.run(words) if automaton is not None else \
            _parser()[0].parse(list(words))  # type: ignore[arg-type]
    except (LarkError, NotAClaim, VisitError):
        return None
    if not groups:
        return None
    return tuple(c for group in groups for c in group)


def _define(tokens: list[Token], names: ZhNames) -> bool:
    """"用B代表考试成绩": B names that variable for the rest of the reply (True: a name
    was defined)."""
    words = [t for t in tokens if t[TEXT] not in ("用", "令", "设", "我们")]
    if len(words) == 3 and words[0][KIND] is Kind.WORD and words[0][RAW] and \
            words[1][TEXT] in _DEFINES and words[2][KIND] is Kind.VAR and \
            names.defined < MAX_DEFINED:
        names.defined += 1
        names.add(words[0][RAW], int(words[2][TEXT][1:]))
        return True
    return False


def _tidy(tokens: list[Token]) -> list[Token]:
    """A clause without its fillers and discourse leads (its span starts at its words)."""
    tokens = [t for t in tokens if t[TEXT] not in FILLERS]
    for i in range(len(tokens) - 1):  # an example in brackets: "(例如A->B)" is left out
        if tokens[i][TEXT] == "(" and tokens[i + 1][TEXT] in _EXAMPLES:
            end = next((j for j in range(i + 2, len(tokens)) if tokens[j][TEXT] == ")"),
                       len(tokens) - 1)
            tokens = tokens[:i] + tokens[end + 1:]
            break
    for _ in range(8):
        if tokens and tokens[0][KIND] is Kind.SYMBOL and tokens[0][TEXT] not in "({":
            tokens = tokens[1:]  # a list's bullet, a stray mark
        elif tokens and tokens[0][TEXT] in LEADS:
            tokens = tokens[1:]
        elif len(tokens) > 1 and (tokens[0][TEXT], tokens[1][TEXT]) in _LEAD_PAIRS:
            tokens = tokens[2:]
        else:
            break
    while tokens and tokens[-1][KIND] is Kind.SYMBOL and tokens[-1][TEXT] in ",:":
        tokens = tokens[:-1]
    return tokens


def _cut(tokens: list[Token], names: ZhNames) -> tuple[list[list[Token]], int | None]:
    """One sentence's clauses: cut at commas outside brackets and at colons.  When a
    clause defines a name, the clauses so far and where the rest of the sentence starts
    (its words are read again, with the new name bound)."""
    parts: list[list[Token]] = []
    current: list[Token] = []
    depth = 0
    for i, tok in enumerate(tokens):
        text = tok[TEXT]
        if tok[KIND] is Kind.SYMBOL:
            depth += (text in "({") - (text in ")}")
            if depth <= 0 and text in ",:":
                depth = 0
                if text == ":" and not any(t[TEXT] == "答案" for t in current):
                    if not any(t[KIND] is Kind.VAR for t in current):
                        current = []  # "步骤1：", "推理：": a heading
                        continue
                elif text == ":":
                    current.append(tok)
                    continue
                parts.append(current)
                current = []
                if _define(parts[-1], names) and i + 1 < len(tokens):
                    return parts, tok[END]
                continue
        current.append(tok)
    _define(current, names)
    parts.append(current)
    return parts, None


def _clauses(text: str, start: int, stop: int, names: ZhNames) -> list[list[Token]]:
    """The clauses of one sentence, tidied; a condition or pair said first joined to
    the clause after it."""
    parts: list[list[Token]] = []
    for _ in range(MAX_DEFINED + 1):
        tokens = scan_words(text, start, stop, names, _parser()[1], _lengths())
        more, resume = _cut(tokens, names)
        parts.extend(more)
        if resume is None:
            break
        start = resume
    out: list[list[Token]] = []
    open_prefix = False  # the last clause is a condition or pair said first
    for part in (_tidy(p) for p in parts):
        if not part:
            continue
        if open_prefix:
            out[-1] = [*out[-1], token(",", part[0][START], part[0][START], Kind.SYMBOL), *part]
            open_prefix = False
        else:
            out.append(part)
            open_prefix = part[0][TEXT] in _PREFIXES and \
                (part[0][TEXT] != "当" or part[-1][TEXT] == "时")  # not "当然，…"
    return out


def sentences(text: str, start: int = 0, stop: int | None = None
              ) -> list[tuple[int, int, bool]]:
    """``text[start:stop]`` cut into sentences: (start, end, whether it is a question)."""
    stop = len(text) if stop is None else stop
    out = []
    begin = start
    for match in _END.finditer(text, start, stop):
        i = match.start()
        if i > begin:
            out.append((begin, i, text[i] in _QUESTIONS))
        begin = i + 1
    if stop > begin:
        out.append((begin, stop, False))
    return out


@dataclass(slots=True)
class ZhClause(Clause):
    """A Chinese clause with the variables "any node" ranges over (its item's)."""

    universe: tuple[int, ...] = ()


def clauses_zh(text: str, start: int, stop: int, names: ZhNames) -> list[Clause]:
    """The clauses of one sentence ``text[start:stop]`` that may hold a claim."""
    if stop - start > MAX_SENTENCE_CHARS:
        return []
    parts = _clauses(text, start, stop, names)
    if any(t[TEXT] in HEDGES for part in parts for t in part):
        return []
    return [ZhClause([t[TEXT] for t in p], p[0][START], p[-1][END], p, names.universe)
            for p in parts]


def _every(claim: Claim, universe: tuple[int, ...]) -> list[Claim]:
    """A claim about "any node" as one claim per other variable of the item (none
    without the item's variables: a claim about nodes no one listed is no claim)."""
    at = claim.variables.index(ANY)
    named = {v for v in claim.variables if v != ANY}
    return [replace(claim, variables=(*claim.variables[:at], u, *claim.variables[at + 1:]))
            for u in universe if u not in named]


def read_clause_zh(clause: Clause) -> list[Claim]:
    """The claims of one Chinese clause (none when it is not one of the templates); a
    claim about "any node" is one claim per other variable of the item, all at the
    clause's span."""
    claims = _parse_words(tuple(clause.words))
    if not claims:
        return []
    span = (clause.start, clause.end)
    universe = clause.universe if isinstance(clause, ZhClause) else ()
    out: list[Claim] = []
    for c in claims:
        if ANY in c.variables:
            out.extend(e.at(span) for e in _every(c, universe))
        else:
            out.append(c.at(span))
    return out


def read_chinese(text: str, names: tuple[str, ...] | ZhNames,
                 aliases: Mapping[str, int] | None = None,
                 values: Mapping[int, tuple[str, str]] | None = None) -> list[Claim]:
    """Every claim of a Chinese ``text`` about the variables ``names`` (``values``: each
    variable's value words, see ``ZhNames``), in reading order."""
    table = names if isinstance(names, ZhNames) else \
        ZhNames({**{n: i for i, n in enumerate(names)}, **(aliases or {})}, values)
    out: list[Claim] = []
    for n, (start, stop, question) in enumerate(sentences(text)):
        if n == MAX_SENTENCES:
            break
        if not question:
            for clause in clauses_zh(text, start, stop, table):
                out.extend(read_clause_zh(clause))
    return out


def vocabulary() -> frozenset[str]:
    """The Chinese words the templates, leads, fillers and hedges use."""
    return _parser()[1]


__all__ = ["MAX_SENTENCES", "ZhClause", "ZhNames", "clauses_zh", "has_chinese", "read_chinese",
           "read_clause_zh", "sentences", "vocabulary"]
