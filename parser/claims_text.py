"""A reply cut into clauses of normalised words, with the item's variables bound.

The claim reader (``parser.claims``) parses one clause at a time; this module makes
the clauses, in one linear scan of the reply:

1. **tokens** — runs of letters and digits (a word: "isn't", "d-separated" and
   "non-adjacent" stay one), numbers ("0.43", "-0.08", "43%"), arrows ("->", "→",
   "<-", "<->", "--", "–") and the few symbols the templates use ("⊥", "|", "=", "(",
   ")", "{", "}", ",", ":"); anything else (quotes, asterisks, backticks) separates
   tokens and is dropped;
2. **sentences** — cut at ".", "!", "?", ";", a line break (and their CJK forms); a
   question ("?") makes no claim; at most ``MAX_SENTENCES`` sentences of at most
   ``MAX_SENTENCE_CHARS`` characters are read (a longer one is skipped, never cut);
3. **variables** — the item's declared names bound wherever they occur, longest name
   first, case-insensitively ("node A", "variable 'a'", "Smoking"); a one-letter name
   only in its own case unless quoted or after "node"/"variable", so that the article
   "a" is never the variable A; a sentence "Let X = husband" (CausalCoT's first step)
   makes X a name of the variable husband for the rest of the reply;
4. **clauses** — a sentence is cut again at a comma followed by a connective ("…, but
   rather B is the cause of A"), and each clause loses its discourse lead ("Step 1:",
   "In other words,", "Therefore", "we know that"), its articles and filler words.

A clause that hedges ("might", "may", "could", "if", "suppose", "assume", "perhaps",
"necessarily") is dropped whole: it claims nothing checkable.

>>> [c.words for c in clauses("Step 1: A causes B. If B causes C, then C.", ("A", "B", "C"))]
[['V0', 'causes', 'V1']]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from causal_oracle.oracle.memo import memoised
from causal_oracle.parser.claims_words import (
    ARROWS,
    ARTICLES,
    CONTRACTIONS,
    FILLER,
    HEDGES,
    INTRODUCERS,
    LEADS_BY_WORD,
    NUMBER_WORDS,
    VERBS,
)

#: at most this many sentences of one reply are read
MAX_SENTENCES = 400
#: a sentence longer than this is skipped (no claim template is this long)
MAX_SENTENCE_CHARS = 600
#: a declared name longer than this many words is never bound
MAX_NAME_WORDS = 6



class Kind(StrEnum):
    """What a token is."""

    WORD = "word"
    NUMBER = "number"
    SYMBOL = "symbol"
    VAR = "var"  # a bound variable


#: One token, a plain tuple ``(text, start, end, kind, quoted, raw)``: ``text``
#: lower-cased (a bound variable: ``V<index>``), its character span in the reply, its
#: ``Kind``, whether it was quoted, the word as written (words only).  A reply makes
#: one per word, so a tuple, not a record: a fifth of a record's cost to make, and a
#: field is read by its index (``TEXT``, ``START``, …).
Token = tuple[str, int, int, Kind, bool, str]
#: the fields of a ``Token``, by position
TEXT, START, END, KIND, QUOTED, RAW = range(6)


def token(text: str, start: int, end: int, kind: Kind = Kind.WORD, quoted: bool = False,
          raw: str = "") -> Token:
    """A ``Token`` (where one is made outside a reply's scan)."""
    return (text, start, end, kind, quoted, raw)


@dataclass(slots=True)
class Clause:
    """One clause ready for the grammar: its normalised ``words`` (joined by spaces for
    the parser) and the character span of the reply it covers."""

    words: list[str]
    start: int
    end: int
    tokens: list[Token] = field(default_factory=list, repr=False)


#: one word (letters, digits, "_", joined by an apostrophe or a hyphen)
_WORD = r"[^\W\d]\w*(?:['’-][^\W\d_]\w*)*"
#: one alternative per kind of token; the look-ahead only skips a space or tab at once
#: (no alternative matches there), and a minus sign starts a number only after a space,
#: "=", "(", ":", a tab or at the start.  A word is tried first (the commonest token): it
#: cannot start with a digit, "." or a minus sign, so no other alternative starts where
#: it may — the order decides nothing but speed.  One match takes a run of words
#: separated by single spaces (``_scan`` splits it at its spaces): each of them is
#: where a match of one word would start, and the words are the same, with one match
#: object for the run instead of one per word
_TOKEN = re.compile(
    r"(?=[^ \t])(?:(?P<word>" + _WORD + "(?: " + _WORD + r")*)"
    r"|(?P<end>\.(?![^\W\d_])|[!?;\n\r。！？；])"
    r"|(?P<number>(?<![^ =(:\t])[-−]\d+(?:\.\d+)?%?|\d+(?:\.\d+)?%?)"
    r"|(?P<arrow><-->|<->|-->|->|<--|<-|--|[→⟶←⟵↔⟷–—-])"
    r"|(?P<symbol>[⊥|=(),{}:<>])"
    r"|(?P<quote>['\"‘’“”`]))")
_ARROW_NAMES = dict(ARROWS)
#: a word ``_TOKEN`` reads as one word token, lower-cased and nothing else
_PLAIN = re.compile(r"[^\W\d]\w*")


def sentences(text: str, start: int = 0, stop: int | None = None, *,
              drop_hedged: bool = False) -> list[list[Token]]:
    """The sentences of ``text[start:stop]`` as token lists (questions and over-long ones
    left out; spans index ``text``; ``drop_hedged``: a sentence with a word of
    ``HEDGES`` too — no token is made for the rest of it)."""
    marks = _HEDGE_MARKS if drop_hedged else {}
    return [tokens for tokens, _, _, _ in _scan(text, start, stop, marks)]


#: what a word may be to the scan, as bits of its mark: a hedge (the sentence is
#: dropped), the first word of a name (``Names.bind`` looks at it), a word that
#: ``_normalise`` changes
HEDGE, NAME, SPECIAL = 1, 2, 4


def _scan(text: str, start: int, stop: int | None, marks: Mapping[str, int]
          ) -> Iterator[tuple[list[Token], list[int], list[int], bool]]:
    """Each sentence of ``text[start:stop]`` as it is cut (see ``sentences``): its tokens,
    the positions of its words marked ``NAME`` in ``marks`` (what ``Names.bind`` looks
    at), those of its words marked ``SPECIAL`` (what ``_normalise`` changes), and
    whether it has a comma or colon (where ``_split`` may cut it); a sentence with a
    word marked ``HEDGE`` is dropped.  One look-up in ``marks`` per word.

    One pass of one regular expression whose every alternative consumes what it
    matches (no nested repetition: linear in the reply's length).  A generator: the
    next sentence is scanned only when asked for, so a name the reply defines in one
    sentence ("Let X = husband") is looked for in the sentences after it."""
    current: list[Token] = []
    hits: list[int] = []
    special: list[int] = []
    cut = False
    count = 0
    stop = len(text) if stop is None else stop
    begin = start
    quoted = hedged = False
    word, number, symbol, limit = Kind.WORD, Kind.NUMBER, Kind.SYMBOL, MAX_SENTENCE_CHARS
    lower, mark_of = str.lower, marks.get
    curly = "’" in text
    for match in _TOKEN.finditer(text, start, stop):
        group = match.lastindex  # 1 word, 2 end, 3 number, 4 arrow, 5 symbol, 6 quote
        if group == 1:
            if hedged:
                continue  # a hedged sentence: nothing of it is kept
            run = match.group()
            at = match.start()
            for raw in run.split(" ") if " " in run else (run,):  # a run of words
                if at - begin > limit:
                    break  # a sentence too long to be a claim: skipped, not collected
                to = at + len(raw)
                low = lower(raw)
                if curly and "’" in low:
                    low = low.replace("’", "'")
                mark = mark_of(low)
                if mark is not None:
                    if mark & HEDGE:
                        hedged, current, hits, special, cut = True, [], [], [], False
                        break
                    if mark & NAME:
                        hits.append(len(current))
                    if mark & SPECIAL:
                        special.append(len(current))
                current.append((low, at, to, word, quoted, raw))
                at = to + 1
            continue
        if group == 2:
            at, to = match.span()
            if current and not hedged and match.group() not in "?？" and at - begin <= limit:
                yield current, hits, special, cut
                count += 1
                if count == MAX_SENTENCES:
                    return
            current, hits, special, cut = [], [], [], False
            begin, quoted, hedged = to, False, False
            continue
        if hedged:
            continue
        at, to = match.span()
        if at - begin > limit:
            continue
        raw = match.group()
        if group == 3:
            current.append((raw.replace("−", "-"), at, to, number, False, raw))
        elif group == 4:
            current.append((_ARROW_NAMES[raw], at, to, symbol, False, ""))
        elif group == 5:
            current.append((raw, at, to, symbol, False, ""))
            if raw in _CUTS:
                cut = True
        else:
            quoted = not quoted if raw in "'\"`" else raw in "‘“"
    if current and not hedged and stop - begin <= limit:
        yield current, hits, special, cut


#: a bound variable's text, ``V<index>``, made once for the first indices
_VAR_TEXTS = tuple(f"V{i}" for i in range(64))


class Names:
    """The item's declared names, for binding (longest first)."""

    def __init__(self, names: tuple[str, ...], aliases: Mapping[str, int] | None = None
                 ) -> None:
        index, table = _table(names, tuple(sorted((aliases or {}).items())))
        self.names = (*names, *(aliases or {}))
        self.index = dict(index)  # a reply's definitions are its own: copies
        self.table = {first: list(options) for first, options in table.items()}
        #: each word's mark for the scan: the hedges, the words ``_normalise`` changes,
        #: and the first word of each name (``define`` adds to it)
        self.marks = dict(_CLAUSE_MARKS)
        for first in table:
            self.marks[first] = self.marks.get(first, 0) | NAME

    def define(self, tokens: list[Token]) -> None:
        """Learn the names a reply defines: "Let X = husband", "V2 = wife" (a word, "=",
        one bound variable and nothing after it) makes the word another name of it."""
        if len(tokens) > 4:
            return  # a definition is three words, or four with "let"
        words = [t for t in tokens if t[TEXT] != "let"]
        if len(words) == 3 and words[0][KIND] == Kind.WORD and words[1][TEXT] == "=" and \
                words[2][KIND] == Kind.VAR and len(self.index) < 4 * MAX_NAME_WORDS + 64:
            name, target = words[0][RAW], int(words[2][TEXT][1:])
            if name not in self.index:
                self.index[name] = target
                self.table.setdefault(words[0][TEXT], []).insert(0, ((words[0][TEXT],), target))
                self.marks[words[0][TEXT]] = self.marks.get(words[0][TEXT], 0) | NAME

    def bind(self, tokens: list[Token], hits: list[int] | None = None) -> list[Token]:
        """``tokens`` with every occurrence of a declared name made one ``var`` token
        (``hits``: the positions of the words that start a name, when the scan that
        made ``tokens`` has found them already)."""
        table = self.table
        if hits is None:
            word = Kind.WORD
            hits = [i for i, t in enumerate(tokens) if t[TEXT] in table and t[KIND] is word]
        if not hits:
            return tokens
        out: list[Token] = []
        done = 0  # tokens before this one are in ``out``
        var, defined = Kind.VAR, self.index
        for i in hits:
            if i < done:
                continue  # inside a name bound already
            out.extend(tokens[done:i])
            tok = tokens[i]
            done = i + 1
            introduced = bool(out) and out[-1][TEXT] in INTRODUCERS
            # a one-letter name binds only as written, quoted or after "node"/"variable"
            letter = tok[RAW] in defined or tok[QUOTED] or introduced
            for words, index in table[tok[TEXT]]:
                k = len(words)
                if k > 1 and tuple([t[TEXT] for t in tokens[i:i + k]]) != words:
                    continue
                if k == 1 and len(words[0]) == 1 and not letter:
                    continue
                if introduced:
                    out.pop()
                out.append((_VAR_TEXTS[index] if index < len(_VAR_TEXTS) else f"V{index}",
                            tok[START], tokens[i + k - 1][END], var, False, ""))
                done = i + k
                break
            else:
                out.append(tok)
        out.extend(tokens[done:])
        return out


@memoised(limit=256)
def _table(names: tuple[str, ...], aliases: tuple[tuple[str, int], ...]
           ) -> tuple[dict[str, int], dict[str, list[tuple[tuple[str, ...], int]]]]:
    """Each name's words, keyed by its first word, longest first (cached per item)."""
    index = {**{n: i for i, n in enumerate(names)}, **dict(aliases)}
    table: dict[str, list[tuple[tuple[str, ...], int]]] = {}
    for name, i in index.items():
        parts = name.split(" ")
        if all(map(_PLAIN.fullmatch, parts)):  # plain words: their tokens are themselves
            words = tuple(part.lower() for part in parts)
        else:
            words = tuple(t[TEXT] for s in sentences(name) for t in s)
        if 0 < len(words) <= MAX_NAME_WORDS:
            table.setdefault(words[0], []).append((words, i))
    for options in table.values():
        options.sort(key=lambda o: -len(o[0]))
    return index, table


#: the words ``_normalise`` changes or drops (every other token passes unchanged)
_SPECIAL = frozenset({*FILLER, *CONTRACTIONS, *NUMBER_WORDS, "p", "pr"})
#: the scan's marks of the hedges alone (``sentences``), and of the hedges and the words
#: ``_normalise`` changes (``clauses``, with each reply's names added)
_HEDGE_MARKS = dict.fromkeys(HEDGES, HEDGE)
_CLAUSE_MARKS = {w: (HEDGE if w in HEDGES else 0) | (SPECIAL if w in _SPECIAL else 0)
                 for w in (*HEDGES, *_SPECIAL)}


def _normalise(tokens: list[Token], at: list[int] | None = None) -> list[Token]:
    """Contractions expanded, number words read, filler dropped (its characters stay in
    the span of the token after it, so that a claim's span starts where its words do);
    ``at``: the positions of the words that may change, when the scan has found them
    (a name bound over one of them is no longer one)."""
    hits = [i for i, t in enumerate(tokens) if t[TEXT] in _SPECIAL] if at is None else \
        [i for i in at if tokens[i][TEXT] in _SPECIAL]  # words only: lower-case
    if not hits:
        return tokens
    out: list[Token] = []
    held: int | None = None
    done = 0
    for i in (*hits, len(tokens)):
        if done < i:  # unchanged tokens; the first takes a held article's start
            if held is not None:
                tok = tokens[done]
                out.append((tok[TEXT], held, tok[END], tok[KIND], tok[QUOTED], tok[RAW]))
                held, done = None, done + 1
            out.extend(tokens[done:i])
        if i == len(tokens):
            break
        done = i + 1
        tok = tokens[i]
        if held is not None and tok[TEXT] not in FILLER:
            tok = (tok[TEXT], held, tok[END], tok[KIND], tok[QUOTED], tok[RAW])
            held = None
        if tok[TEXT] in ("p", "pr") and i + 1 < len(tokens) and tokens[i + 1][TEXT] == "(":
            out.append(token("P", tok[START], tok[END]))
            continue
        if tok[TEXT] in FILLER:
            if tok[TEXT] in ARTICLES:
                held = tok[START] if held is None else held
            continue
        parts = CONTRACTIONS.get(tok[TEXT])
        number = NUMBER_WORDS.get(tok[TEXT])
        if parts is not None:
            out.extend(token(p, tok[START], tok[END]) for p in parts)
        elif number is not None:
            out.append(token(number, tok[START], tok[END], Kind.NUMBER))
        else:
            out.append(tok)
    return out


def _strip_lead(tokens: list[Token], texts: list[str], lo: int, hi: int) -> tuple[int, int]:
    """The clause ``tokens[lo:hi]`` (``texts``: every token's text) without its
    discourse lead, a list item's number and trailing commas: the range left."""
    m = hi - lo - 3 if hi - lo < 13 else 10
    if m > 0 and "that" in texts[lo + 1:lo + m + 1]:  # "the relationship … is that …"
        for i in range(lo, lo + m):
            if texts[i] in ("is", "are") and texts[i + 1] == "that":
                lo = i + 2
                break
    symbol = Kind.SYMBOL
    for _ in range(8):
        while lo < hi and tokens[lo][KIND] is symbol and texts[lo] not in "({":
            lo += 1
        if lo == hi or texts[lo] not in LEADS_BY_WORD:
            break
        words = tuple(texts[lo:min(lo + 5, hi)])
        for phrase in LEADS_BY_WORD[words[0]]:
            if words[:len(phrase)] == phrase and hi - lo > len(phrase):
                lo += len(phrase)
                break
        else:
            break
    if hi - lo > 1 and tokens[lo][KIND] is Kind.NUMBER and tokens[lo + 1][KIND] is Kind.VAR:
        lo += 1  # a list item's number: "2 A causes B"
    while lo < hi and tokens[hi - 1][KIND] is symbol and texts[hi - 1] in ",:":
        hi -= 1
    return lo, hi


def _listing(tokens: list[Token], i: int) -> bool:
    """Whether the comma at ``i`` separates items of a list ("A, B and C", "X->V2,X->Y")
    rather than clauses."""
    before = tokens[i - 1] if i else None
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    then = tokens[i + 2][TEXT] if i + 2 < len(tokens) else ""
    return before is not None and after is not None and after[KIND] == Kind.VAR and \
        before[KIND] in (Kind.VAR, Kind.NUMBER, Kind.SYMBOL) and then not in VERBS


#: the tokens ``_split`` may cut a sentence at, and the brackets it does not cut inside
_CUTS = frozenset({",", ":"})
_BRACKETS = frozenset({"(", ")", "{", "}"})


def _split(tokens: list[Token], texts: list[str], cut: bool = True) -> list[tuple[int, int]]:
    """Clauses, as ranges of ``tokens`` (``texts``: their texts): cut at a comma that
    ends a clause (not one inside a list of names, an edge list or parentheses) and at
    a colon — whose head is dropped when it names no variable nor number ("Step 1:",
    "Reasoning:"), kept when it is the answer's label ("Answer: No"); ``cut`` False:
    the scan found no comma nor colon in them."""
    if not cut or _CUTS.isdisjoint(texts):
        return [(0, len(tokens))] if tokens else []
    if _BRACKETS.isdisjoint(texts):
        cuts = [i for i, text in enumerate(texts) if text in _CUTS]
    else:  # only the commas and colons outside brackets
        cuts, level, symbol = [], 0, Kind.SYMBOL
        for i, text in enumerate(texts):
            if text in _BRACKETS:
                if tokens[i][KIND] is symbol:
                    level += 1 if text in "({" else -1
            elif level <= 0 and text in _CUTS:
                cuts.append(i)
    parts: list[tuple[int, int]] = []
    begin = 0  # the current clause is tokens[begin:i]
    for i in cuts:
        if texts[i] == ":":
            if "answer" in texts[begin:i]:
                continue
            kinds = [t[KIND] for t in tokens[begin:i]]
            if Kind.VAR in kinds or (Kind.NUMBER in kinds and texts[begin] != "step"):
                parts.append((begin, i))
        elif _listing(tokens, i):
            continue
        else:
            parts.append((begin, i))
        begin = i + 1
    parts.append((begin, len(tokens)))
    return [(lo, hi) for lo, hi in parts if lo < hi]


def clauses(text: str, names: tuple[str, ...] | Names, start: int = 0,
            stop: int | None = None, opens: Callable[[str], bool] | None = None
            ) -> list[Clause]:
    """The clauses of ``text[start:stop]`` that may hold a claim (see the module
    docstring; ``opens``: whether a claim may begin with a word — a clause whose first
    word may not is left out before it is made)."""
    table = names if isinstance(names, Names) else Names(names)
    out: list[Clause] = []
    for sentence, hits, special, cut in _scan(text, start, stop, table.marks):
        bound = table.bind(sentence, hits) if hits else sentence
        if len(bound) <= 4:
            table.define(bound)
        if special:  # the scan's positions hold where binding kept every position
            bound = _normalise(bound, special if len(bound) == len(sentence) else None)
        texts = [t[TEXT] for t in bound]  # read by every pass below: listed once
        for lo, hi in _split(bound, texts, cut):
            lo, hi = _strip_lead(bound, texts, lo, hi)
            if lo < hi and (opens is None or opens(texts[lo])):
                out.append(Clause(texts[lo:hi], bound[lo][START], bound[hi - 1][END],
                                  bound[lo:hi]))
    return out


__all__ = ["END", "KIND", "MAX_SENTENCES", "MAX_SENTENCE_CHARS", "QUOTED", "RAW", "START", "TEXT",
           "Clause", "Names", "Token", "clauses", "sentences", "token"]
