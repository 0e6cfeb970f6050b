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

Three modules share the work: ``parser.cladder_slots`` (the grammar for the sentences'
shape and the ``Reader`` of their slots), ``parser.cladder_given`` (the head: background
and given information, each sentence parsed and read once per distinct text, since the
questions of one model share most of them) and this one: the question, the readings it
and the head's alternatives combine into, and the reply reader.

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
from collections.abc import Iterator, Sequence

from lark import Token, Tree
from lark.exceptions import UnexpectedInput

from causal_oracle.oracle.cladder.model import (
    CladderQuestion,
    Interval,
    Lit,
    Mechanism,
    Query,
    QueryType,
    Reading,
    Stated,
    StatedKind,
)
from causal_oracle.oracle.errors import InputError
from causal_oracle.oracle.memo import memoised
from causal_oracle.oracle.tasks.model import YesNoClaim
from causal_oracle.parser.cladder_given import Head, read_head
from causal_oracle.parser.cladder_slots import (
    MAX_PARTS,
    MAX_READINGS,
    Alternatives,
    Reader,
    Unreadable,
    check_numbers,
    grammar,
    normalise,
    number_error,
    quote_phrase,
    syntax_error,
    unreadable_error,
)
from causal_oracle.parser.cladder_vocabulary import vocabulary
from causal_oracle.parser.errors import ParseError
from causal_oracle.parser.grammar import SemanticError, caret
from causal_oracle.parser.task_answers import parse_answer

INTRO = ("Imagine a self-contained, hypothetical world with only the following conditions, "
         "and without any unmentioned factors or causal relationships:")


def looks_like_cladder(text: str) -> bool:
    """Whether ``text`` opens with CLadder's background sentence (cheap, no parsing)."""
    return text.lstrip()[:60] == INTRO[:60]


def split_prompt(text: str) -> tuple[str, str]:
    """(background + given information, question) of a normalised prompt: the question
    is the last sentence, after the last ". "."""
    cut = text.rfind(". ")
    if cut < 0 or not text.endswith("?"):
        raise InputError("expected a background and given information, then a question "
                         "ending in '?'", line=1, column=len(text) + 1,
                         context=caret(text, len(text) - 1))
    return text[:cut + 1], text[cut + 2:]


# ---- the question -------------------------------------------------------------------------
_SIGNS = {"increase": True, "decrease": False, "larger": True, "smaller": False,
          "more": True, "less": False, "positively": True, "negatively": False,
          "affects": True, "does not affect": False}


@memoised(limit=4096)
def _question_tree(text: str) -> Tree:
    return check_numbers(grammar().parse(text, start="question"))


def _read_query(reader: Reader, tree: Tree, head: Head, offset: int) -> list[Query]:
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
            raise Unreadable("expected Method 1 and Method 2 in the given information and "
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


def _split_if(reader: Reader, token: Token) -> list[tuple[Lit, Lit]]:
    """ETT's "Y-value if X had been b": every cut before an " if " that reads."""
    text = str(token)
    found: list[tuple[Lit, Lit]] = []
    for cut in _cuts(text, " if "):
        ys = reader.try_value(text[:cut])
        alts = tuple((reader.node_of_letter[letter], value)
                     for letter, value in reader.variant.condition(text[cut + 1:])
                     if letter in reader.node_of_letter)
        if ys and alts:
            if len(alts) > 1:
                reader.ambiguous.append(normalise(text[cut + 1:]))
            found.extend(itertools.product(ys, alts))
    if not found:
        raise Unreadable(f"{quote_phrase(token)} is not an outcome value followed by an 'if …' "
                         "counterfactual of the story vocabulary", token)
    return found


def _split_counterfactual(reader: Reader, token: Token) -> list[tuple[Lit, Lit, Lit]]:
    """"Y-sentence if X-value instead of X-value": every cut that reads."""
    text = str(token)
    found: list[tuple[Lit, Lit, Lit]] = []
    for cut in _cuts(text, " if "):
        ys = reader.try_value(text[:cut])
        rest = text[cut + 4:]
        for split in _cuts(rest, " instead of "):
            news, olds = reader.try_value(rest[:split]), reader.try_value(rest[split + 12:])
            if ys and news and olds:
                found.extend(itertools.product(ys, news, olds))
    if not found:
        raise Unreadable(f"{quote_phrase(token)} is not 'outcome if value instead of value' in the "
                         "story vocabulary", token)
    return found


# ---- readings -------------------------------------------------------------------------------
def _readings(alternatives: Sequence[Alternatives], queries: Sequence[Query]
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
    head = read_head(head_text)
    offset = len(head_text) + 1
    try:
        tree = _question_tree(question_text)
    except UnexpectedInput as error:
        raise syntax_error(question_text, error, offset, flat) from None
    except SemanticError as error:
        raise number_error(flat, error, offset) from None
    readings: list[Reading] = []
    ambiguous: list[str] = []
    first: Unreadable | None = None
    nodes = {n: i for i, n in enumerate(head.graph.names)}
    for key, alternatives, unclear in head.variants:
        reader = Reader(vocabulary().variant(key), nodes)
        try:
            queries = _read_query(reader, tree, head, offset)
        except Unreadable as problem:
            problem.offset = offset
            first = first or problem
            continue
        for reading in _readings(alternatives, queries):
            if reading not in readings:
                readings.append(reading)
        ambiguous.extend(p for p in (*unclear, *reader.ambiguous) if p not in ambiguous)
    if not readings:
        if first is not None:
            raise unreadable_error(flat, first)
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

