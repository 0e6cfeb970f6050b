"""CLadder text → ``oracle.cladder.model`` objects.

A CLadder prompt is the background, the given information and the question, joined by
spaces (the layout of the paper's evaluation)::

    Imagine a self-contained, hypothetical world with only the following conditions, and
    without any unmentioned factors or causal relationships: Husband has a direct effect on
    wife and alarm clock. Wife has a direct effect on alarm clock. For husbands that don't
    set the alarm, the probability of ringing alarm is 26%. For husbands that set the
    alarm, the probability of ringing alarm is 85%. Will alarm set by husband increase the
    chance of ringing alarm?

The grammar (``cladder.lark``) reads the sentences; every slot it leaves (a name, a value
phrase, a list of them) is read through the story vocabulary
(``parser.cladder_vocabulary``): the background's names select the stories that use them,
and each phrase must be one of those stories' phrases for a variable of the graph.  A
phrase no candidate story knows is an error naming the phrase; a phrase a story gives two
meanings (two values with the same words) gives the question one ``Reading`` per meaning.
A printed "p%" is the interval [p − 0.5, p + 0.5] %; a printed correlation "−0.23" is
[−0.235, −0.225].  Every number is checked when its sentence is parsed (``parser.numbers``:
a percentage in [0, 100], a correlation in [−1, 1], plain finite decimals): "185%" is an
error at its place in the text, not a probability.

Each background and each sentence of given information is parsed and read once per
distinct text (the questions of one model share most of them).

>>> q = parse_cladder("Imagine a self-contained, hypothetical world with only the following "
...     "conditions, and without any unmentioned factors or causal relationships: Husband has "
...     "a direct effect on wife and alarm clock. Wife has a direct effect on alarm clock. For "
...     "husbands that don't set the alarm, the probability of ringing alarm is 26%. For "
...     "husbands that set the alarm, the probability of ringing alarm is 85%. Will alarm set "
...     "by husband increase the chance of ringing alarm?")
>>> q.graph.names, q.kind.value, q.readings[0].query.treatment
(('husband', 'wife', 'alarm clock'), 'ate', (0, 1))
>>> [(s.given, str(s.value.lo)) for s in q.readings[0].statements]
[(((0, 0),), '51/200'), (((0, 1),), '169/200')]
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput

from causal_oracle.oracle.budget import Pace, checkpoint
from causal_oracle.oracle.cladder.model import (
    CladderQuestion,
    Connective,
    Graph,
    Interval,
    Lit,
    Mechanism,
    Query,
    QueryType,
    Reading,
    Stated,
    StatedKind,
)
from causal_oracle.oracle.errors import InputError, quote
from causal_oracle.oracle.memo import memoised
from causal_oracle.oracle.tasks.model import YesNoClaim
from causal_oracle.parser.cladder_vocabulary import Variant, VariantKey, fold, vocabulary
from causal_oracle.parser.errors import ParseError, from_lark
from causal_oracle.parser.grammar import BudgetedLexing, SemanticError, caret, terminal_patterns
from causal_oracle.parser.numbers import Kind, count, stated
from causal_oracle.parser.task_answers import parse_answer

_GRAMMAR = Path(__file__).with_name("cladder.lark")
INTRO = ("Imagine a self-contained, hypothetical world with only the following conditions, "
         "and without any unmentioned factors or causal relationships:")
_NAMES = {"CAUSE_NAME": "a variable's name", "NAME_LIST": "names", "EVENT": "an event",
          "CONDITION": "a condition", "PERCENT": "a percentage", "DECIMAL": "a number",
          "TAIL": "the rest of the question", "$END": "end of text"}
#: at most this many readings of one text (a phrase with two meanings doubles them)
MAX_READINGS = 64
#: at most this many "and"/"or"-separated parts in one slot
MAX_PARTS = 12

T = TypeVar("T")


@cache  # the compiled grammar: a constant
def _parser() -> Lark:
    return Lark(_GRAMMAR.read_text(encoding="utf-8"),
                start=["head", "question", "background", "sentence"],
                parser="lalr", propagate_positions=False, maybe_placeholders=False,
                postlex=BudgetedLexing())


def looks_like_cladder(text: str) -> bool:
    """Whether ``text`` opens with CLadder's background sentence (cheap, no parsing)."""
    return text.lstrip()[:60] == INTRO[:60]


def normalise(text: str) -> str:
    """Blanks collapsed to single spaces (the grammar's slots compare phrases this way)."""
    return " ".join(text.split())


def split_prompt(text: str) -> tuple[str, str]:
    """(background + given information, question) of a normalised prompt: the question
    is the last sentence, after the last ". "."""
    cut = text.rfind(". ")
    if cut < 0 or not text.endswith("?"):
        raise InputError("expected a background and given information, then a question "
                         "ending in '?'", line=1, column=len(text) + 1,
                         context=caret(text, len(text) - 1))
    return text[:cut + 1], text[cut + 2:]


# ---- reading errors ---------------------------------------------------------------------
class _Unreadable(Exception):
    """A slot this variant's vocabulary cannot read (message, token)."""

    def __init__(self, message: str, token: Token, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.token = token
        self.offset = offset


def _error(text: str, problem: _Unreadable) -> ParseError:
    pos = problem.token.start_pos + problem.offset if problem.token.start_pos is not None \
        else None
    column = None if pos is None else pos + 1
    return ParseError(f"cannot read the question: {problem.message}", line=1, column=column,
                      context=caret(text, pos), what="CLadder question")


# ---- splitting slots through the vocabulary --------------------------------------------
def _partitions(text: str, separators: Sequence[str], accept: Callable[[str], T | None],
                ) -> list[list[tuple[str, str, T]]]:
    """Every way to cut ``text`` at ``separators`` into parts that ``accept`` reads: per
    part, the separator before it ("" for the first), its text and what ``accept``
    returned."""
    pieces: list[tuple[str, str]] = [("", text)]  # (separator before, piece)
    for sep in separators:
        nxt: list[tuple[str, str]] = []
        for before, piece in pieces:
            parts = piece.split(sep)
            nxt.append((before, parts[0]))
            nxt.extend((sep, p) for p in parts[1:])
        pieces = nxt
    if len(pieces) > MAX_PARTS:
        return []
    out: list[list[tuple[str, str, T]]] = []

    def walk(i: int, acc: list[tuple[str, str, T]]) -> None:
        if i == len(pieces):
            out.append(list(acc))
            return
        chunk = pieces[i][1]
        for j in range(i, len(pieces)):
            if j > i:
                chunk += pieces[j][0] + pieces[j][1]
            value = accept(chunk)
            if value is not None:
                acc.append((pieces[i][0], chunk, value))
                walk(j + 1, acc)
                acc.pop()
            if len(out) > MAX_READINGS:
                return

    walk(0, [])
    return out


@dataclass(frozen=True)
class _Alternatives:
    """A resolved sentence: the statement(s) it can mean (one for an unambiguous one)."""

    options: tuple[Any, ...]


class _Reader:
    """Reads slots with one story variant's vocabulary for a given graph."""

    def __init__(self, variant: Variant, nodes: dict[str, int]) -> None:
        self.variant = variant
        self.node_of_letter: dict[str, int] = {}
        for name, node in nodes.items():
            letter = variant.letter(name)
            if letter is not None:
                self.node_of_letter[letter] = node
        self.ambiguous: list[str] = []

    # -- single phrases
    def _value(self, text: str) -> tuple[Lit, ...] | None:
        found = tuple((self.node_of_letter[letter], value)
                      for letter, value in self.variant.values(text)
                      if letter in self.node_of_letter)
        return found or None

    def _name(self, text: str) -> int | None:
        letter = self.variant.letter(text)
        return None if letter is None else self.node_of_letter.get(letter)

    def value(self, token: Token, what: str) -> tuple[Lit, ...]:
        found = self._value(str(token))
        if found is None:
            raise _Unreadable(f"{_quote(token)} is not a value of any variable of the "
                              f"graph in the story vocabulary ({what})", token)
        if len(found) > 1:
            self.ambiguous.append(normalise(str(token)))
        return found

    def name(self, token: Token | str, where: Token, what: str) -> int:
        node = self._name(str(token))
        if node is None:
            raise _Unreadable(f"{_quote(token)} is not the name of a variable of the graph "
                              f"({what})", where)
        return node

    # -- lists
    def values(self, token: Token, what: str, separators: Sequence[str] = (" and ",),
               ) -> list[tuple[str, str, tuple[Lit, ...]]]:
        ways = _partitions(str(token), separators, self._value)
        if not ways:
            raise _Unreadable(f"{_quote(token)} is not a list of values of the graph's "
                              f"variables in the story vocabulary ({what})", token)
        if len(ways) > 1:
            raise _Unreadable(f"{_quote(token)} splits into values in more than one way "
                              f"({what})", token)
        for _, chunk, lits in ways[0]:
            if len(lits) > 1:
                self.ambiguous.append(normalise(chunk))
        return ways[0]

    def names(self, token: Token | str, where: Token, what: str) -> tuple[int, ...]:
        ways = _partitions(str(token), (", and ", ", ", " and "), self._name)
        if len(ways) != 1:
            raise _Unreadable(f"{_quote(token)} is not a list of the graph's variables "
                              f"({what})", where)
        return tuple(node for _, _, node in ways[0])


def _quote(token: Token | str) -> str:
    return quote(normalise(str(token)))


def _options(choices: Sequence[tuple[Lit, ...]]) -> list[tuple[Lit, ...]]:
    """Every combination of one lit per position."""
    return [tuple(c) for c in itertools.product(*choices)]


# ---- the head: background and given information ----------------------------------------
@dataclass(frozen=True)
class _Head:
    graph: Graph
    #: per surviving variant: its key, and per given sentence its alternatives
    variants: tuple[tuple[VariantKey, tuple[_Alternatives, ...], tuple[str, ...]], ...]
    #: backadj methods: number → adjustment set, per variant (names are variant-free)
    methods: tuple[tuple[int, tuple[int, ...]], ...]


def _graph(tree: Tree) -> tuple[Graph, dict[str, int], list[str]]:
    """The graph the background describes, its variables named as the text names them
    (case-folded); a name no story uses is an error naming it."""
    names: list[str] = []
    edges: list[tuple[str, str]] = []
    hidden: list[str] = []
    known = vocabulary().knows_name
    for sentence in tree.children:
        if not isinstance(sentence, Tree):
            continue
        if sentence.data == "effect":
            cause, listed = sentence.children
            if not known(str(cause)):
                raise _Unreadable(f"{_quote(cause)} is not the name of a variable in any "
                                  "story of the vocabulary", cause)
            a = fold(str(cause))
            for b in _name_list(str(listed), known, listed):
                edges.append((a, b))
                for n in (a, b):
                    if n not in names:
                        names.append(n)
        elif sentence.data == "hidden":
            listed = sentence.children[0]
            for n in _name_list(str(listed), known, listed):
                if n not in names:
                    raise _Unreadable(f"{quote(n)} is said to be unobserved but has no effect in "
                                      "the background", listed)
                hidden.append(n)
    graph = Graph.build(names, edges, hidden)
    if not graph.is_acyclic():
        raise InputError("the background describes a cycle, not a DAG")
    return graph, {n: i for i, n in enumerate(names)}, names


def _name_list(text: str, known: Callable[[str], bool], token: Token) -> list[str]:
    ways = _partitions(text, (", and ", ", ", " and "),
                       lambda part: fold(part) if known(part) else None)
    if len(ways) != 1:
        raise _Unreadable(f"{_quote(text)} is not a list of variable names any story uses",
                          token)
    return [name for _, _, name in ways[0]]


def _percent(token: Token) -> Interval:
    return Interval.percent(str(token).rstrip("%"))


def _correlation(token: Token) -> Interval:
    return Interval.printed(str(token), 1, (-1, 1))


def _resolve_given(reader: _Reader, sentence: Tree) -> list[_Alternatives]:
    """The statements one given sentence makes, read with one variant."""
    kind = sentence.data
    if kind == "overall":
        event, number = sentence.children
        lits = reader.value(event, "the overall probability's event")
        return [_Alternatives(tuple(Stated((lit,), (), _percent(number)) for lit in lits))]
    if kind == "joint":
        event, number = sentence.children
        parts = reader.values(event, "the joint probability's events")
        if len(parts) != 2:
            raise _Unreadable("a joint probability names two events", event)
        return [_Alternatives(tuple(Stated(pair, (), _percent(number))
                                    for pair in _options([p for _, _, p in parts])))]
    if kind in ("conditional", "correlation"):
        condition, event, number = sentence.children
        given = reader.values(condition, "the condition")
        if kind == "conditional":
            lits = reader.value(event, "the conditional probability's event")
            options = tuple(Stated((lit,), g, _percent(number))
                            for lit in lits for g in _options([p for _, _, p in given]))
        else:
            parts = reader.values(event, "the correlated events")
            if len(parts) != 2:
                raise _Unreadable("a correlation names two events", event)
            options = tuple(Stated(pair, g, _correlation(number), StatedKind.CORRELATION)
                            for pair in _options([p for _, _, p in parts])
                            for g in _options([p for _, _, p in given]))
        return [_Alternatives(options)]
    if kind in ("known", "mechanism_sentence"):
        return [_mechanism(reader, m) for m in sentence.children if isinstance(m, Tree)]
    if kind == "observed":
        (token,) = sentence.children
        parts = reader.values(token, "the observations")
        return [_Alternatives(tuple(("evidence", o) for o in _options([p for _, _, p in parts])))]
    return []


def _mechanism(reader: _Reader, tree: Tree) -> _Alternatives:
    causes, effects = tree.children
    parts = reader.values(causes, "a mechanism's causes", (" and ", " or "))
    connectives = {sep.strip() for sep, _, _ in parts[1:]}
    if len(connectives) > 1:
        raise _Unreadable(f"{_quote(causes)} mixes 'and' and 'or'", causes)
    connective = Connective(connectives.pop()) if connectives else Connective.AND
    targets = reader.values(effects, "a mechanism's effects")
    options = []
    for inputs in _options([p for _, _, p in parts]):
        for outs in _options([p for _, _, p in targets]):
            options.append(("mechanisms", tuple(Mechanism(inputs, connective, t)
                                                for t in outs)))
    return _Alternatives(tuple(options))


def _method(sentence: Tree, reader: _Reader) -> tuple[int, tuple[int, ...]]:
    """A "Method n: …" sentence: n and the adjustment set it names."""
    number, approach = sentence.children
    if approach.data == "direct":
        chosen: tuple[int, ...] = ()
    else:
        listed = approach.children[-1]
        chosen = tuple(sorted(reader.names(listed, listed, "an adjustment set")))
    return int(str(number)), chosen


def _pieces(text: str) -> list[tuple[int, str]]:
    """The sentences of a normalised text with their offsets (a sentence ends at ". ";
    no phrase of the vocabulary contains one)."""
    out: list[tuple[int, str]] = []
    start = 0
    pace = Pace()
    for _ in range(len(text)):
        pace.step()
        if start >= len(text):
            break
        cut = text.find(". ", start)
        end = len(text) if cut < 0 else cut + 1
        out.append((start, text[start:end]))
        start = end + 1
    return out


def _is_background(sentence: str) -> bool:
    return " has a direct effect on " in sentence or sentence.endswith("unobserved.")


def _syntax_error(text: str, error: UnexpectedInput, offset: int, whole: str) -> ParseError:
    """Lark's error in a piece of ``whole`` that starts at ``offset``, placed in ``whole``."""
    local = from_lark(error, text, "CLadder question", terminal_patterns(_parser(), _NAMES))
    pos = offset + (local.column or 1) - 1
    return ParseError(local.message, line=1, column=pos + 1, context=caret(whole, pos),
                      expected=local.expected, what=local.what)


@memoised(limit=1024)
def _background(text: str) -> tuple[Graph, tuple[str, ...], tuple[VariantKey, ...]]:
    """The graph of a background, its names and the story variants that use them all."""
    tree = _parser().parse(text, start="background")
    graph, _, names = _graph(tree)
    keys = tuple(sorted(vocabulary().candidates(names)))
    if not keys:
        raise InputError("no story of the benchmark's vocabulary names all of: "
                         + ", ".join(quote(n) for n in names))
    return graph, tuple(names), keys


_NUMBERS = {"PERCENT": Kind.PERCENT, "DECIMAL": Kind.CORRELATION}


def _check_numbers(tree: Tree) -> Tree:
    """``tree`` when every number in it is one a question may state (``parser.numbers``);
    ``SemanticError`` at the first that is not."""
    for token in tree.scan_values(lambda v: isinstance(v, Token)):
        if token.type in _NUMBERS:
            stated(token, _NUMBERS[token.type])
        elif token.type == "NUMBER":
            count(token, "a method's number")
    return tree


def _number_error(text: str, error: SemanticError, offset: int) -> ParseError:
    """A number out of range in a piece of ``text`` that starts at ``offset``."""
    start = getattr(error.token, "start_pos", None)
    pos = None if start is None else offset + start
    return ParseError(f"invalid CLadder question: {error.message}", line=1,
                      column=None if pos is None else pos + 1, context=caret(text, pos),
                      what="CLadder question")


@memoised(limit=16384)
def _sentence(text: str) -> Tree:
    tree = _parser().parse(text, start="sentence").children[0]
    assert isinstance(tree, Tree)
    return _check_numbers(tree)


@memoised(limit=32768)
def _read_sentence(key: VariantKey, names: tuple[str, ...], text: str
                   ) -> tuple[tuple[_Alternatives, ...], tuple[str, ...],
                              tuple[int, tuple[int, ...]] | None]:
    """One given sentence read with one variant: its statements' alternatives, the
    phrases read in several ways, and (Method sentences) the method's number and set."""
    reader = _Reader(vocabulary().variant(key), {n: i for i, n in enumerate(names)})
    tree = _sentence(text)
    method = _method(tree, reader) if tree.data == "method" else None
    return tuple(_resolve_given(reader, tree)), tuple(reader.ambiguous), method


@memoised(limit=4096)
def _head(text: str) -> _Head:
    """The background and given information, read sentence by sentence (each sentence's
    parse and reading is remembered: questions of one model share most of them)."""
    pieces = _pieces(text)
    n = 1
    while n < len(pieces) and _is_background(pieces[n][1]):
        n += 1
    background = text[:pieces[n][0]].rstrip() if n < len(pieces) else text
    try:
        graph, names, keys = _background(background)
        for offset, sentence in pieces[n:]:
            checkpoint()
            try:
                _sentence(sentence)
            except UnexpectedInput as error:
                raise _syntax_error(sentence, error, offset, text) from None
            except SemanticError as error:
                raise _number_error(text, error, offset) from None
    except UnexpectedInput as error:
        raise _syntax_error(background, error, 0, text) from None
    except _Unreadable as problem:
        raise _error(text, problem) from None
    variants = []
    methods: dict[int, tuple[int, ...]] = {}
    first: _Unreadable | None = None
    for key in keys:
        resolved: list[_Alternatives] = []
        unclear: list[str] = []
        try:
            for offset, sentence in pieces[n:]:
                checkpoint()
                try:
                    alternatives, ambiguous, method = _read_sentence(key, names, sentence)
                except _Unreadable as problem:
                    problem.offset = offset
                    raise
                resolved.extend(alternatives)
                unclear.extend(ambiguous)
                if method is not None:
                    methods[method[0]] = method[1]
        except _Unreadable as problem:
            first = first or problem
            continue
        variants.append((key, tuple(resolved), tuple(unclear)))
    if not variants:
        assert first is not None
        raise _error(text, first)
    return _Head(graph, tuple(variants), tuple(sorted(methods.items())))


# ---- the question -------------------------------------------------------------------------
_SIGNS = {"increase": True, "decrease": False, "larger": True, "smaller": False,
          "more": True, "less": False, "positively": True, "negatively": False,
          "affects": True, "does not affect": False}


@memoised(limit=4096)
def _question_tree(text: str) -> Tree:
    return _check_numbers(_parser().parse(text, start="question"))


def _read_query(reader: _Reader, tree: Tree, head: _Head, offset: int) -> list[Query]:
    """The queries the question can mean, read with one variant (several when a phrase
    has several meanings)."""
    kind = tree.data
    c = tree.children
    word = {t.type: _SIGNS.get(" ".join(str(t).split())) for t in c if isinstance(t, Token)}

    def one(token: Token, what: str) -> tuple[Lit, ...]:
        return reader.value(token, what)

    out: list[Query] = []
    if kind == "ate":
        for x, y in itertools.product(one(c[0], "the treatment"), one(c[2], "the outcome")):
            out.append(Query(QueryType.ATE, y, x, bool(word["DIRECTION"])))
    elif kind == "correlation_q":
        for y, x in itertools.product(one(c[0], "the outcome"), one(c[2], "the observation")):
            out.append(Query(QueryType.CORRELATION, y, x, bool(word["SIZE"])))
    elif kind == "marginal":
        for y, other in itertools.product(one(c[0], "the outcome"), one(c[2], "the other value")):
            out.append(Query(QueryType.MARGINAL, y, None, bool(word["LIKELIHOOD"]),
                             compare=other))
    elif kind == "exp_away":
        for cond, y, x in itertools.product(one(c[0], "the stratum"), one(c[1], "the outcome"),
                                            one(c[3], "the observation")):
            out.append(Query(QueryType.EXP_AWAY, y, x, bool(word["DIRECTION"]), condition=cond))
    elif kind == "collider_bias":
        for cond, x, y in itertools.product(one(c[0], "the stratum"), one(c[1], "the cause"),
                                            one(c[3], "the effect")):
            out.append(Query(QueryType.COLLIDER_BIAS, y, x, bool(word["AFFECT"]),
                             condition=cond))
    elif kind == "ett":
        factual = one(c[0], "the treated group")
        for y, alt in _split_if(reader, c[2]):
            for x in factual:
                out.append(Query(QueryType.ETT, y, x, bool(word["LIKELIHOOD"]),
                                 counterfactual=alt))
    elif kind == "backadj":
        x = reader.name(c[0], c[0], "the cause")
        y = reader.name(c[1], c[1], "the effect")
        first, second = int(str(c[2])), int(str(c[3]))
        sets = dict(head.methods)
        if {first, second} != {1, 2} or set(sets) != {1, 2}:
            raise _Unreadable("expected Method 1 and Method 2 in the given information and "
                              "the question", c[2])
        out.append(Query(QueryType.BACKADJ, (y, 1), (x, 1), True,
                         methods=(sets[1], sets[2]), first_method=first))
    elif kind in ("nde", "nie"):
        if kind == "nde":
            mediators_tok, subject, sign, target = c
        else:
            subject, sign, target, mediators_tok = c
        x = reader.name(subject, subject, "the cause")
        y = reader.name(target, target, "the effect")
        mediators = reader.names(mediators_tok, mediators_tok, "the mediators")
        out.append(Query(QueryType(kind), (y, 1), (x, 1), bool(_SIGNS[str(sign)]),
                         mediators=tuple(sorted(mediators))))
    elif kind == "det":
        for y, new, old in _split_counterfactual(reader, c[0]):
            out.append(Query(QueryType.DET_COUNTERFACTUAL, y, None, True, counterfactual=new,
                             premise=old))
    return out


def _cuts(text: str, separator: str) -> Iterator[int]:
    """Where ``separator`` starts in ``text``, left to right, at most ``MAX_PARTS`` places
    (a phrase may itself contain the separator: every cut is tried)."""
    start = 0
    for _ in range(MAX_PARTS):
        cut = text.find(separator, start)
        if cut < 0:
            return
        start = cut + 1
        yield cut


def _split_if(reader: _Reader, token: Token) -> list[tuple[Lit, Lit]]:
    """ETT's "Y-value if X had been b": every cut before an " if " that reads."""
    text = str(token)
    found: list[tuple[Lit, Lit]] = []
    for cut in _cuts(text, " if "):
        ys = reader._value(text[:cut])
        alts = tuple((reader.node_of_letter[letter], value)
                     for letter, value in reader.variant.condition(text[cut + 1:])
                     if letter in reader.node_of_letter)
        if ys and alts:
            if len(alts) > 1:
                reader.ambiguous.append(normalise(text[cut + 1:]))
            found.extend(itertools.product(ys, alts))
    if not found:
        raise _Unreadable(f"{_quote(token)} is not an outcome value followed by an 'if …' "
                          "counterfactual of the story vocabulary", token)
    return found


def _split_counterfactual(reader: _Reader, token: Token) -> list[tuple[Lit, Lit, Lit]]:
    """"Y-sentence if X-value instead of X-value": every cut that reads."""
    text = str(token)
    found: list[tuple[Lit, Lit, Lit]] = []
    for cut in _cuts(text, " if "):
        ys = reader._value(text[:cut])
        rest = text[cut + 4:]
        for split in _cuts(rest, " instead of "):
            news, olds = reader._value(rest[:split]), reader._value(rest[split + 12:])
            if ys and news and olds:
                found.extend(itertools.product(ys, news, olds))
    if not found:
        raise _Unreadable(f"{_quote(token)} is not 'outcome if value instead of value' in the "
                          "story vocabulary", token)
    return found


# ---- readings -------------------------------------------------------------------------------
def _readings(alternatives: Sequence[_Alternatives], queries: Sequence[Query]
              ) -> list[Reading]:
    choices = [alt.options for alt in alternatives]
    combos = 1
    for options in choices:
        combos *= len(options)
    if combos * len(queries) > MAX_READINGS * MAX_READINGS:
        raise InputError(f"the text reads in {combos * len(queries):,} ways; at most "
                         f"{MAX_READINGS} are considered")
    out: list[Reading] = []
    for pick in itertools.product(*choices):
        statements: list[Stated] = []
        mechanisms: list[Mechanism] = []
        evidence: list[Lit] = []
        seen: dict[tuple[tuple[Lit, ...], tuple[Lit, ...], StatedKind], Interval] = {}
        clash = False
        for item in pick:
            if isinstance(item, Stated):
                key = (tuple(sorted(item.event)), tuple(sorted(item.given)), item.kind)
                if key in seen:  # the same number stated twice: only one meaning fits
                    clash = True
                    break
                seen[key] = item.value
                statements.append(item)
            elif item[0] == "mechanisms":
                mechanisms.extend(item[1])
            else:
                evidence.extend(item[1])
        if clash:
            continue
        for query in queries:
            reading = Reading(tuple(statements), query, tuple(mechanisms), tuple(evidence))
            if reading not in out:
                out.append(reading)
        if len(out) > MAX_READINGS:
            raise InputError(f"the text reads in more than {MAX_READINGS} ways")
    return out


def parse_cladder(text: str) -> CladderQuestion:
    """Read a CLadder prompt (background, given information, question); ``ParseError``
    saying where and why when it cannot be read."""
    flat = normalise(text)
    head_text, question_text = split_prompt(flat)
    head = _head(head_text)
    offset = len(head_text) + 1
    try:
        tree = _question_tree(question_text)
    except UnexpectedInput as error:
        raise _syntax_error(question_text, error, offset, flat) from None
    except SemanticError as error:
        raise _number_error(flat, error, offset) from None
    readings: list[Reading] = []
    ambiguous: list[str] = []
    first: _Unreadable | None = None
    nodes = {n: i for i, n in enumerate(head.graph.names)}
    for key, alternatives, unclear in head.variants:
        reader = _Reader(vocabulary().variant(key), nodes)
        try:
            queries = _read_query(reader, tree, head, offset)
        except _Unreadable as problem:
            problem.offset = offset
            first = first or problem
            continue
        for reading in _readings(alternatives, queries):
            if reading not in readings:
                readings.append(reading)
        ambiguous.extend(p for p in (*unclear, *reader.ambiguous) if p not in ambiguous)
    if not readings:
        if first is not None:
            raise _error(flat, first)
        raise InputError("the given information cannot all hold at once in any reading")
    return CladderQuestion(head.graph, tuple(readings[:MAX_READINGS]), tuple(ambiguous))


# ---- replies --------------------------------------------------------------------------------
_UNDETERMINED = ("undetermined", "cannot be determined", "can't be determined",
                 "not determined", "unknown", "not enough information")


def read_reply(text: str) -> str:
    """A model's reply as "yes", "no" or "undetermined"; ``ParseError`` when it is none
    of them (yes/no as ``parser.task_answers`` reads them: tags, "Answer:", a closing
    verdict line).

    >>> read_reply("**Yes**"), read_reply("Answer: no."), read_reply("It cannot be determined.")
    ('yes', 'no', 'undetermined')
    """
    try:
        claim = parse_answer("IE", text)
    except ParseError:
        lowered = " ".join(text.split()).casefold()
        if any(word in lowered[-200:] for word in _UNDETERMINED):
            return "undetermined"
        raise
    assert isinstance(claim, YesNoClaim)
    return "yes" if claim.yes else "no"


__all__ = ["INTRO", "looks_like_cladder", "normalise", "parse_cladder",
           "read_reply", "split_prompt"]
