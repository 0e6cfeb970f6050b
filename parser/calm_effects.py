"""Read a CaLM effect item (ATE, CDE, ETT, NDE, NIE, PN, PS; English or Chinese) — a
released record or the prompt a model sees — into an ``EffectQuestion``.

Two steps.  First the names: the story's graph ("X has a direct effect on Y.") and the
instruction name every variable the question can use (``calm_effects_story``).  Then
every occurrence of a name in the numbers and the question is replaced by a placeholder
``@k@`` (longest name first; English case-insensitively, on word boundaries and with an
article in front, since a sentence capitalises its first word and some templates print
"the the profitability"),
and the Lark grammar ``calm_effects.lark`` parses the sentences: it never has to guess
where a free-text name ends.

A variable's two values are words ("low"/"high", "smoker"/"non-smoker", 高/低): value 0
is the first word the text gives it, 1 the other; a third word for one variable is an
error.  A record is read from the same four texts as its prompt; its ``Background`` (the
graph by letters and ``real_world_meaning``) is read too and must agree with the story
(``read_record``).  ``data_info_math`` is not read: it is a convenience copy that is not
always faithful (``calm_effects_math`` compares it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedInput, VisitError

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.calm.effects_model import (
    Bound,
    EffectKind,
    EffectQuestion,
    Lang,
    Lit,
    Stated,
)
from causal_oracle.oracle.memo import memoised
from causal_oracle.parser.calm_effects_story import (
    ItemText,
    fail,
    key_of,
    read_background,
    read_instruction,
    read_story,
    split_prompt,
)
from causal_oracle.parser.errors import ParseError, from_lark
from causal_oracle.parser.grammar import BudgetedLexing

GRAMMAR = Path(__file__).with_name("calm_effects.lark")
BOUNDS = {"lower": Bound.LOWER, "upper": Bound.UPPER, "下界": Bound.LOWER, "上界": Bound.UPPER}


@cache
def _parser(start: str) -> Lark:
    """An LALR parser that applies ``_Read`` while it parses (no parse tree is built:
    the sentences are short and many), tokens read under the time budget."""
    return Lark(GRAMMAR.read_text(encoding="utf-8"), start=start, parser="lalr",
                transformer=_READ, maybe_placeholders=False, postlex=BudgetedLexing())


def _parse(start: str, text: str, what: str) -> Any:
    checkpoint()
    try:
        return _parser(start).parse(text)
    except UnexpectedInput as error:
        raise from_lark(error, text, what, {}) from None
    except VisitError as error:  # a callback's own error, e.g. a malformed value
        if isinstance(error.orig_exc, ParseError):
            raise error.orig_exc from None
        raise


#: a name-and-value pair as the text writes it: (variable index, value word)
Said = tuple[int, str]


@dataclass(frozen=True, slots=True)
class SaidNumber:
    event: tuple[Said, ...]
    given: tuple[Said, ...]
    number: str


@dataclass(slots=True)
class SaidQuestion:
    """The question's slots, as words."""

    template: str
    treatment: list[int] = field(default_factory=list)
    outcome: int = -1
    x: str = ""
    y: str = ""
    base: str | None = None
    factual_y: str | None = None
    held: tuple[Said, ...] = ()
    bound: Bound | None = None


def _var(token: Token) -> int:
    """The index in a placeholder token (``@3@``, ``@3@ being``, ``@3@为``)."""
    text = str(token)
    return int(text[1:text.index("@", 1)])


def _number(token: Token) -> str:
    """The number in ``is 0.1234.`` / ``的概率为0.1234。``."""
    text = str(token)
    start = text.find("为") + 1 if text.startswith("的") else 3
    return text[start:-1]


class _Read(Transformer):  # type: ignore[type-arg]
    """Parse tree → ``SaidNumber`` list / ``SaidQuestion``."""

    # ---- shared pieces
    def var_en(self, c: list[Any]) -> int:
        return _var(c[0])

    def value_en(self, c: list[Any]) -> str:
        return " ".join(str(t) for t in c).lower()

    def assign_en(self, c: list[Any]) -> Said:
        return (_var(c[0]), c[1])

    def assign_cn(self, c: list[Any]) -> Said:
        return (_var(c[0]), str(c[1]))

    def conds_en(self, c: list[Any]) -> tuple[Said, ...]:
        return tuple(x for x in c if isinstance(x, tuple))

    conds_cn = conds_en

    # ---- numbers
    def cond_en(self, c: list[Any]) -> SaidNumber:
        return SaidNumber((c[1],), c[0], _number(c[2]))

    def plain_en(self, c: list[Any]) -> SaidNumber:
        return SaidNumber(c[0], (), _number(c[1]))

    def cond_cn(self, c: list[Any]) -> SaidNumber:
        parts = [x for x in c if not (isinstance(x, Token) and x.type == "COMMA")]
        return SaidNumber((parts[1],), parts[0], _number(parts[2]))

    def plain_cn(self, c: list[Any]) -> SaidNumber:
        return SaidNumber(c[0], (), _number(c[1]))

    def data_en(self, c: list[Any]) -> list[SaidNumber]:
        return list(c)

    data_cn = data_en

    # ---- questions (English)
    def would_en(self, c: list[Any]) -> Said:
        return (c[0], c[1])

    def ate_en(self, c: list[Any]) -> SaidQuestion:
        return SaidQuestion("ATE", [c[0]], c[2], c[1], c[3])

    def cde_en(self, c: list[Any]) -> SaidQuestion:
        held, x, xv, (y, yv) = c
        return SaidQuestion("CDE", [x], y, xv, yv, held=held)

    def ett_en(self, c: list[Any]) -> SaidQuestion:
        x1, a, x2, b, (y, yv) = c
        return SaidQuestion("ETT", [_var(x1), x2], y, b, yv, base=a)

    def nde_en(self, c: list[Any]) -> SaidQuestion:
        x, xv, (y, yv) = c
        return SaidQuestion("NDE", [x], y, xv, yv)

    def nie_en(self, c: list[Any]) -> SaidQuestion:
        x1, x2, xv, (y, yv) = c
        return SaidQuestion("NIE", [x1, x2], y, xv, yv)

    def given_en(self, c: list[Any]) -> tuple[Any, ...]:
        return tuple(c)

    def counter_en(self, c: list[Any]) -> tuple[Any, ...]:
        return tuple(c)

    def _bound_en(self, template: str, c: list[Any]) -> SaidQuestion:
        (x1, a, y1, b), bound, (y2, b2, x2, a2) = c
        q = SaidQuestion(template, [x1, x2], y1, a2, b2, base=a, factual_y=b,
                         bound=BOUNDS[str(bound)])
        q.held = ((y2, b2),)  # the outcome named again: checked by _build
        return q

    def pn_en(self, c: list[Any]) -> SaidQuestion:
        return self._bound_en("PN", c)

    def ps_en(self, c: list[Any]) -> SaidQuestion:
        return self._bound_en("PS", c)

    def question_en(self, c: list[Any]) -> SaidQuestion:
        return c[0]

    # ---- questions (Chinese)
    def would_cn(self, c: list[Any]) -> Said:
        return (_var(c[0]), str(c[1]))

    def _plain(self, c: list[Any]) -> list[Any]:
        return [x for x in c if not (isinstance(x, Token) and x.type == "COMMA")]

    def ate_cn(self, c: list[Any]) -> SaidQuestion:
        x, xv, (y, yv) = self._plain(c)
        return SaidQuestion("ATE", [_var(x)], y, str(xv), yv)

    def cde_cn(self, c: list[Any]) -> SaidQuestion:
        held, x, xv, (y, yv) = self._plain(c)
        return SaidQuestion("CDE", [_var(x)], y, str(xv), yv, held=held)

    def ett_cn(self, c: list[Any]) -> SaidQuestion:
        x1, a, x2, b, (y, yv) = self._plain(c)
        return SaidQuestion("ETT", [_var(x1), _var(x2)], y, str(b), yv, base=str(a))

    def nde_cn(self, c: list[Any]) -> SaidQuestion:
        x, xv, (y, yv) = self._plain(c)
        return SaidQuestion("NDE", [_var(x)], y, str(xv), yv)

    def nie_cn(self, c: list[Any]) -> SaidQuestion:
        x1, x2, xv, (y, yv) = self._plain(c)
        value = str(xv)
        if not value.endswith("下") or len(value) < 2:  # "…变化为低下的取值"
            raise fail("question", "no '下' after the value", value)
        return SaidQuestion("NIE", [_var(x1), _var(x2)], y, value[:-1], yv)

    def bound_cn(self, c: list[Any]) -> SaidQuestion:
        x1, a, y1, b, x2, a2, y2, b2, bound = [
            x for x in self._plain(c) if not (isinstance(x, Token) and x.type == "那么")]
        q = SaidQuestion("BOUND", [_var(x1), _var(x2)], _var(y1), str(a2), str(b2),
                         base=str(a), factual_y=str(b), bound=BOUNDS[str(bound)])
        q.held = ((_var(y2), str(b2)),)
        return q

    def question_cn(self, c: list[Any]) -> SaidQuestion:
        return c[0]


_READ = _Read()
_PLACEHOLDER = re.compile(r"@(\d+)@")


@memoised(limit=256)
def _name_pattern(names: tuple[str, ...], language: Lang) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    if language is Lang.EN:
        return re.compile(f"(?<![\\w'])(?:the\\s+)?({alternatives})(?![\\w'])",
                          re.IGNORECASE)
    # a name right after 为 is a value word that repeats the name ("…为体重增加/增长/减少")
    return re.compile(f"(?<!为)({alternatives})", re.IGNORECASE)


def substitute(text: str, names: list[str], language: Lang) -> str:
    """``text`` with every variable name replaced by its placeholder ``@k@``."""
    if "@" in text:
        raise fail("text", "a character '@' (reserved for placeholders)", text)
    index = {n: i for i, n in enumerate(names)}
    pattern = _name_pattern(tuple(names), language)

    def put(match: re.Match[str]) -> str:
        return f"@{index[key_of(match.group(1), language)]}@"

    return pattern.sub(put, text)


def read_text(item: ItemText, names: list[str] | None = None,
              edges: list[tuple[int, int]] | None = None) -> EffectQuestion:
    """The question in ``item`` (the story gives the graph unless ``names``/``edges``
    come from a record's ``Background``)."""
    lang = item.language
    if names is None or edges is None:
        hint = read_instruction(item.instruction, lang, [])[1:]
        story_names, story_edges = read_story(item.story, lang, hint)
        names, edges = list(story_names), list(story_edges)
    kind, treatment, outcome = read_instruction(item.instruction, lang, names)
    for name in (treatment, outcome):
        if name not in names:
            names.append(name)  # a variable with no edge: named only here
    suffix = "en" if lang is Lang.EN else "cn"
    data = substitute(item.data, names, lang)
    said = _parse(f"data_{suffix}", data, "data_info")
    question = substitute(item.question, names, lang)
    asked = _parse(f"question_{suffix}", question, "question")
    assert isinstance(said, list) and isinstance(asked, SaidQuestion)
    return _build(kind, lang, names, edges, names.index(treatment), names.index(outcome),
                  said, asked, item.question)


class _Values:
    """The two words of every variable, in order of first use (a value word that repeats
    a variable's name — "being ineffective marketing efforts" — gets the name back)."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.words: list[list[str]] = [[] for _ in names]

    def of(self, said: Said, where: str) -> Lit:
        var, word = said
        if "@" in word:
            word = _PLACEHOLDER.sub(lambda m: self.names[int(m.group(1))], word)
        words = self.words[var]
        if word not in words:
            if len(words) == 2:
                raise fail(where, f"a third value {word!r} for one variable "
                                  f"(after {words[0]!r}, {words[1]!r})", word)
            words.append(word)
        return var, words.index(word)


def _build(kind: EffectKind, lang: Lang, names: list[str], edges: list[tuple[int, int]],
           treatment: int, outcome: int, said: list[SaidNumber], asked: SaidQuestion,
           question_text: str) -> EffectQuestion:
    values = _Values(names)
    stated: dict[tuple[tuple[Lit, ...], tuple[Lit, ...]], Stated] = {}
    for s in said:
        event = tuple(sorted(values.of(e, "data_info") for e in s.event))
        given = tuple(sorted(values.of(g, "data_info") for g in s.given))
        vars_ = [v for v, _ in event + given]
        if len(set(vars_)) != len(vars_):
            raise fail("data_info", "a variable named twice in one probability", s.number)
        value = Fraction(s.number)
        if not 0 <= value <= 1:
            raise fail("data_info", "a probability outside [0, 1]", s.number)
        old = stated.get((event, given))
        if old is not None and old.value != value:
            raise fail("data_info", "one probability stated twice with two values", s.number)
        stated[(event, given)] = Stated(event, given, value, s.number)
    template = asked.template
    bounds = template in ("BOUND", "PN", "PS") and kind in (EffectKind.PN, EffectKind.PS)
    if template != kind.value and not bounds:
        raise fail("question", f"a {template} question under a {kind.value} instruction",
                   question_text)
    x_var = asked.treatment[0]
    if any(v != x_var for v in asked.treatment):
        raise fail("question", "two different treatments", question_text)
    reversed_ = False
    if (x_var, asked.outcome) != (treatment, outcome):
        if (x_var, asked.outcome) == (outcome, treatment):
            reversed_ = True  # the question asks the other way round from the instruction
        else:
            raise fail("question", "treatment or outcome other than the instruction's",
                       question_text)
    held: tuple[Lit, ...] = ()
    if kind in (EffectKind.PN, EffectKind.PS):
        (again, _), = asked.held
        if again != asked.outcome:
            raise fail("question", "the counterfactual outcome is another variable",
                       question_text)
    else:
        held = tuple(sorted(values.of(h, "question") for h in asked.held))
    base = values.of((x_var, asked.base), "question")[1] if asked.base is not None else None
    factual = (values.of((asked.outcome, asked.factual_y), "question")[1]
               if asked.factual_y is not None else None)
    return EffectQuestion(
        kind=kind, language=lang, names=tuple(names),
        values=tuple(tuple(w + [f"not {w[0]}" if w else "?"] * (2 - len(w)))[:2]
                     for w in values.words),  # type: ignore[misc]
        edges=tuple(edges), treatment=x_var, outcome=asked.outcome,
        x=values.of((x_var, asked.x), "question")[1],
        y=values.of((asked.outcome, asked.y), "question")[1],
        base=base, factual_y=factual, held=held, bound=asked.bound,
        stated=tuple(stated.values()), reversed_question=reversed_)


def read_prompt(prompt: str) -> EffectQuestion:
    """The question of a rendered CaLM effect prompt (any prompt style)."""
    return read_text(split_prompt(prompt))


def record_text(record: Mapping[str, Any], language: Lang) -> ItemText:
    """The four texts of a record that its prompt shows."""
    try:
        background = record["Background"]
        return ItemText(language, str(record["given_info"]), str(background["data_info"]),
                        str(record["Instruction"]), str(record["Question"]))
    except (KeyError, TypeError) as missing:
        raise ParseError(f"cannot parse record: no field {missing}", what="record") from None


def read_record(record: Mapping[str, Any], language: Lang) -> EffectQuestion:
    """The question of a released record; its ``Background`` graph must be the story's."""
    item = record_text(record, language)
    try:
        background = record["Background"]
        graph, meaning = str(background["graph"]), str(background["real_world_meaning"])
    except (KeyError, TypeError) as missing:
        raise ParseError(f"cannot parse record: no field {missing}", what="record") from None
    names, edges = read_background(graph, meaning, language)
    story_names, story_edges = read_story(item.story, language, tuple(names))
    story = {(story_names[a], story_names[b]) for a, b in story_edges}
    if story != {(names[a], names[b]) for a, b in edges}:
        raise fail("record", "the story's graph differs from Background.graph", graph)
    return read_text(item, names, edges)
