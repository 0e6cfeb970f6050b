"""Reading CaLM's Chinese CLadder wording: a record's background, given information and
question → the CLadder family's formal question (``oracle.cladder.model``).

CaLM translated its five CLadder-derived tasks (backadj, collider bias, correlation,
explaining away, deterministic counterfactual) into Chinese.  A Chinese record carries
the graph in ``background``::

    设想一个只有以下条件，而没有其他因素或因果关系的假设世界：Zuph 对 swoy 和 rixq 有直接影响。
    Rixq 对 xevu 有直接影响。Swoy 对 xevu 也有直接影响。

the numbers in ``given_info`` ("rixq的总体概率是78%。非rixq且xevu的概率是7%。…") and the
question ("当观察到rixq时，xevu的几率会变大吗？").  The grammar (``calm_cladder_zh.lark``)
reads the template words and leaves the slots — names, value phrases, lists of them — as
text; every slot is then bound to the graph by ``parser.calm_cladder_zh_names`` (exact
name, else unique containment; values by negation words), and a phrase those rules do
not bind makes the item *undetermined* (``names_unbound``) with the phrase and its
candidates in the message.  A background that names one variable two ways gives a graph
that is none of CLadder's ten shapes for the question's treatment and outcome
(``oracle.cladder.model.SHAPES``): that item is undetermined too
(``graph_not_a_cladder_shape``).  Text outside the template is a ``ParseError`` saying
where.

Each sentence is read by ``parser.calm_cladder_zh_grammar`` (one grammar compiled twice:
a forced-token LALR pass, Earley where it gives up; a sentence with two readings is a
``ParseError``).

``ZhReading.polarity`` is the question's wording (affirmative or not; for a
counterfactual, the outcome value it asks about; for backadj, whether Method 1 adjusts),
which ``entry.families.calm_cladder``
compares with the record's English ``meta`` to find translations that reverse the question.

>>> r = read_zh("设想一个只有以下条件，而没有其他因素或因果关系的假设世界："
...             "Zuph 对 rixq 和 xevu 有直接影响。Rixq 对 xevu 有直接影响。",
...             "rixq的总体概率是78%。非rixq且xevu的概率是7%。rixq且xevu的概率是30%。",
...             "当观察到rixq时，xevu的几率会变小吗？")
>>> r.question.graph.names, r.question.kind.value, r.polarity
(('zuph', 'rixq', 'xevu'), 'correlation', False)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from lark import Token, Tree

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
    shape_of,
)
from causal_oracle.oracle.errors import InputError, quote
from causal_oracle.parser.calm_cladder_zh_grammar import normalise, parse_field
from causal_oracle.parser.calm_cladder_zh_names import Binder, Unbound
from causal_oracle.parser.errors import ParseError

GRAPH_SHAPE = "graph_not_a_cladder_shape"
INTRO = "设想一个只有以下条件，而没有其他因素或因果关系的假设世界："
_AFFIRMATIVE = {"变大", "增加", "提高", "上升"}
#: separators of a list of names or of a mechanism's causes, and what they join with
_AND, _OR = ("和", "、", "，", "以及", "与"), ("或者", "或")
_PAIR = ("并且", "且", "而", "并", "和", "与")
_STRATUM = ("并且", "且", "而", "但", "又", "也", "和")
_SPLIT = re.compile("|".join(sorted((*_AND, *_OR), key=len, reverse=True)))


@dataclass(frozen=True, slots=True)
class ZhReading:
    """A Chinese item read: its CLadder question, or why the text does not bind it."""

    question: CladderQuestion | None
    unbound: str | None = None
    detail: str = ""
    polarity: bool | None = None


# ---- the graph ------------------------------------------------------------------------------
def _names(text: str) -> list[str]:
    return [n for n in _SPLIT.split(text) if n]


def _graph(tree: Tree) -> Graph:
    names: list[str] = []
    edges: list[tuple[str, str]] = []
    hidden: list[str] = []
    for sentence in tree.find_data("effect"):
        tokens = [t for t in sentence.children if isinstance(t, Token) and t.type != "ALSO"]
        cause, listed = str(tokens[0]), _names(str(tokens[1]))
        for n in (cause, *listed):
            if n not in names:
                names.append(n)
        edges.extend((cause, b) for b in listed)
    for sentence in tree.find_data("hidden"):
        for n in _names(str(sentence.children[0])):
            if n not in names:
                names.append(n)  # an unobserved variable the translation left without edges
            hidden.append(n)
    graph = Graph.build(names, edges, hidden)
    if not graph.is_acyclic():
        raise InputError("the background describes a cycle, not a DAG")
    return graph


# ---- slots ------------------------------------------------------------------------------------
def _splits(text: str, words: tuple[str, ...], parts: int) -> list[list[str]]:
    """``text`` whole (parts=1) or cut at one joining word (parts=2), read left to right,
    the longest word at each place ("并且", not its "且")."""
    if parts == 1:
        return [[text]]
    longest = sorted(words, key=len, reverse=True)
    out = []
    at = 1
    while at < len(text):  # each turn moves right: at most len(text) turns
        word = next((w for w in longest if text.startswith(w, at)), None)
        if word is None:
            at += 1
            continue
        if at + len(word) < len(text):
            out.append([text[:at], text[at + len(word):]])
        at += len(word)  # a word's own characters are no other cut ("并且" holds "且")
    return out


def _bind_parts(binder: Binder, text: str, words: tuple[str, ...], counts: tuple[int, ...],
                what: str) -> list[Lit]:
    """The values of a slot that joins ``counts`` phrases: the one cut whose phrases each
    name one variable, all distinct (``Unbound`` when no cut or several do)."""
    found: list[list[str]] = []
    for n in counts:
        for parts in _splits(text, words, n):
            try:
                variables = [binder.variable(_clean_stratum(p), what) for p in parts]
            except Unbound:
                continue
            if len(set(variables)) == len(variables):
                found.append(parts)
    if len(found) != 1:
        raise Unbound(f"{what} {quote(text)} is not {' or '.join(map(str, counts))} phrase(s) "
                      f"that each name one variable ({len(found)} ways found)")
    return [binder.lit(_clean_stratum(p), what) for p in found[0]]


def _clean_stratum(text: str) -> str:
    return text[1:] if text.startswith("既") and len(text) > 1 else text


def _stratum(binder: Binder, token: Token, counts: tuple[int, ...]) -> list[Lit]:
    text = str(token)
    for word in ("那些", "被认为"):
        text = text.removeprefix(word)
    return _bind_parts(binder, text.removesuffix("的人"), _STRATUM, counts, "the stratum")


def _percent(token: Token) -> Interval:
    number = str(token).rstrip("%")
    if Fraction(number) > 100:
        raise InputError(f"the percentage {quote(str(token))} is over 100%")
    return Interval.percent(number)


def _correlation(token: Token) -> Interval:
    if abs(Fraction(str(token))) > 1:
        raise InputError(f"the correlation {quote(str(token))} is outside [-1, 1]")
    return Interval.printed(str(token), 1, (-1, 1))


# ---- given information ---------------------------------------------------------------------
@dataclass
class _Given:
    statements: list[Stated]
    mechanisms: list[Mechanism]
    evidence: list[Lit]
    methods: dict[int, tuple[int, ...]]


def _mechanisms(binder: Binder, causes: str, verb: str, effects: str) -> list[Mechanism]:
    """"A和B导致C" (one mechanism per effect listed; "并不导致": causes the effect's
    other value)."""
    parts = [p for p in _SPLIT.split(causes) if p]
    joins = {m.group(0) for m in _SPLIT.finditer(causes)}
    if joins & set(_OR) and joins & {"和", "以及", "与"}:
        raise Unbound(f"the causes {quote(causes)} join with both 和 and 或")
    connective = Connective.OR if joins & set(_OR) else Connective.AND
    inputs = tuple(binder.lit(p, "a mechanism's cause") for p in parts)
    out = []
    for effect in _names(effects):
        v, value = binder.lit(effect, "a mechanism's effect")
        out.append(Mechanism(inputs, connective, (v, 1 - value if "不" in verb else value)))
    return out


def _given(binder: Binder, tree: Tree) -> _Given:
    out = _Given([], [], [], {})
    for s in tree.children:
        if not isinstance(s, Tree):
            continue
        c = [t for t in s.children if isinstance(t, Token) and t.type not in
             ("IS", "THEN", "LAISHUO", "KNOW")]
        if s.data == "overall":
            out.statements.append(Stated((binder.lit(str(c[0]), "an event"),), (),
                                         _percent(c[1])))
        elif s.data == "joint":
            event = str(c[0]).removeprefix("而")
            pair = _bind_parts(binder, event, _PAIR, (2,), "the joint event")
            out.statements.append(Stated(tuple(pair), (), _percent(c[1])))
        elif s.data == "conditional":
            given = _stratum(binder, c[0], (1, 2))
            out.statements.append(Stated((binder.lit(str(c[1]), "an event"),), tuple(given),
                                         _percent(c[2])))
        elif s.data == "correlation":
            given = _stratum(binder, c[0], (1,))
            pair = _bind_parts(binder, str(c[1]), ("和", "与"), (2,), "the correlated pair")
            out.statements.append(Stated(tuple(pair), tuple(given), _correlation(c[2]),
                                         StatedKind.CORRELATION))
        elif s.data == "method":
            number, approach = int(str(c[0])), s.children[-1]
            chosen: tuple[int, ...] = ()
            if isinstance(approach, Tree) and approach.data == "stratified":
                listed = str(approach.children[0])
                chosen = tuple(sorted({binder.variable(n, "an adjustment variable")
                                       for n in _names(listed)}))
            out.methods[number] = chosen
        elif s.data == "mechanisms":
            out.mechanisms.extend(_mechanisms(binder, str(c[0]), str(c[1]), str(c[2])))
        elif s.data == "observed":
            seen = str(c[0]).removeprefix("了")
            for part in re.split("并且|也|和|且", seen):
                if part:
                    out.evidence.append(binder.lit(part, "an observation"))
    return out


# ---- the question ---------------------------------------------------------------------------
def _consequent(text: str) -> str:
    """The outcome value of "那么他会是非lirg吗": after the last 会 (不会: negated)."""
    text = text.removesuffix("吗").removeprefix("那么")
    at = text.rfind("会")
    if at < 0:
        return text
    return ("不" if text[:at].endswith("不") else "") + text[at + 1:]


def _query(binder: Binder, tree: Tree, given: _Given) -> tuple[Query, bool, int, int]:
    """The query, the question's polarity, and its treatment and outcome variables."""
    c = [t for t in tree.children if isinstance(t, Token) and t.type not in
         ("QEND", "USE", "WE", "CHANCE_WORD")]
    kind = tree.data
    if kind == "backadj":
        x = binder.variable(str(c[0]), "the cause")
        y = binder.variable(str(c[1]), "the effect")
        first, second = int(str(c[2])), int(str(c[3]))
        if {first, second} != {1, 2} or set(given.methods) != {1, 2}:
            raise InputError("expected 方法1 and 方法2 in the given information and the question")
        q = Query(QueryType.BACKADJ, (y, 1), (x, 1), True,
                  methods=(given.methods[1], given.methods[2]), first_method=first)
        return q, bool(given.methods[1]), x, y  # backadj: whether 方法1 adjusts
    if kind == "collider_bias":
        (cond,) = _stratum(binder, c[0], (1,))
        x, y = binder.lit(str(c[1]), "the cause"), binder.lit(str(c[3]), "the effect")
        polarity = str(c[2]) == "会影响"
        return (Query(QueryType.COLLIDER_BIAS, y, x, polarity, condition=cond), polarity,
                x[0], y[0])
    if kind == "correlation_q":
        slot = {t.type: str(t) for t in c}
        x = binder.lit(slot.get("WHEN_SUBJECT") or slot["WHETHER_SUBJECT"], "the observation")
        y = binder.lit(slot.get("CHANCE_OF") or slot["PROB_OF"], "the outcome")
        polarity = slot["CHANGE"] in _AFFIRMATIVE
        return Query(QueryType.CORRELATION, y, x, polarity), polarity, x[0], y[0]
    if kind == "exp_away":
        (cond,) = _stratum(binder, c[0], (1,))
        x = binder.lit(str(c[1]), "the observation")
        y = binder.lit(str(c[2]).removeprefix("其"), "the outcome")
        polarity = str(c[3]) in _AFFIRMATIVE
        return (Query(QueryType.EXP_AWAY, y, x, polarity, condition=cond), polarity, x[0],
                y[0])
    new, old = binder.lit(str(c[0]), "the new value"), binder.lit(str(c[1]), "the old value")
    y = binder.lit(_consequent(str(c[2])), "the outcome")
    return (Query(QueryType.DET_COUNTERFACTUAL, y, None, True, counterfactual=new,
                  premise=old), bool(y[1]), new[0], y[0])


_HIDDEN = re.compile("是(?:未被观察到|未观察到|未被观察|不可观察|不可观测)的$")


def split_background(text: str) -> tuple[str, str]:
    """(background, given information) of a text that opens with its background (a
    record's fields joined, or a prompt that carries its graph): the background is the
    opening sentences that state effects (直接影响) or an unobserved variable."""
    flat = normalise(text)
    if not flat.startswith(INTRO):
        raise ParseError("expected the background (设想一个只有以下条件…) first",
                         context=flat[:80], what="Chinese CLadder item")
    begin = 0
    while begin < len(flat):  # each turn consumes one sentence
        ends = [at for at in (flat.find("。", begin), flat.find("；", begin)) if at >= 0]
        end = min(ends) if ends else len(flat)
        sentence = flat[begin:end]
        if begin and "直接影响" not in sentence and not _HIDDEN.search(sentence):
            break
        begin = end + 1
    return flat[:begin], flat[begin:]


def read_zh(background: str, given_info: str, question: str) -> ZhReading:
    """Read a Chinese record's three texts (``ParseError`` when one is outside the
    template; a ``ZhReading`` without a question when its phrases do not bind)."""
    graph = _graph(parse_field(background, "background", "background"))
    given_tree = parse_field(given_info, "given", "given information")
    question_tree = parse_field(question, "question", "question")
    binder = Binder(graph.names)
    try:
        for _ in range(2):  # collect the phrases, then give them values
            given = _given(binder, given_tree)
            query, polarity, x, y = _query(binder, question_tree, given)
            if binder.collecting:
                binder.settle()
    except Unbound as problem:
        return ZhReading(None, problem.reason, problem.message)
    if x == y or shape_of(graph, x, y) == "other":
        return ZhReading(None, GRAPH_SHAPE, "the background's graph with treatment "
                         f"{quote(graph.names[x])} and outcome {quote(graph.names[y])} is none "
                         "of CLadder's ten graphs (the translation may name one variable two "
                         "ways)", polarity)
    reading = Reading(tuple(given.statements), query, tuple(given.mechanisms),
                      tuple(given.evidence))
    return ZhReading(CladderQuestion(graph, (reading,)), None, "", polarity)


__all__ = ["GRAPH_SHAPE", "INTRO", "ZhReading", "read_zh", "split_background"]
