"""Reading CaLM's graph tasks: a record as shipped or the item of a rendered prompt.

CaLM states a graph as one sentence of causal statements, the last joined by "and":

    A causes D, A causes E, B causes E, and D causes E.        (EN)
    A导致D, A导致E, B导致E, 以及D导致E。                         (CN)

and its hidden confounders (CEI) as pairs: "B and D, and C and D" / "B和D, 以及C和D" (empty:
no confounder).  A vertex is a run of ASCII letters and digits.  The item text of each
task (the part of a rendered prompt after its opener, ``parser.calm_prompt``) is read by
markers that CaLM's templates put there — the question line, the ordered pair "(X, Y)",
the "Option k:" / "选项k：" lines — with ``str.find``: every read is linear, and a text
that lacks a marker is a ``ParseError`` saying which.

A grammar (Lark) would add nothing here: the statements are a flat list whose only
structure is the separator, and the graph tasks must read ≥ 2,000 items a second.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from causal_oracle.oracle.calm.model import (
    CalmGraph,
    Choice,
    Criterion,
    Identify,
    Lang,
    Relation,
    RelationKind,
)
from causal_oracle.parser.errors import ParseError

MAX_VERTICES = 64  #: the most vertices a CaLM graph may have here (CaLM's have ≤ 26)
MAX_STATEMENTS = 2_000

CAUSES = {Lang.EN: " causes ", Lang.CN: "导致"}
PAIRED = {Lang.EN: " and ", Lang.CN: "和"}
_LAST = {Lang.EN: "and ", Lang.CN: "以及"}

#: the words each item's rendering starts with (``parser.calm_prompt.split_prompt``)
GRAPH_OPENERS = {Lang.EN: ("You will be presented with a causal graph in the following form:",),
                 Lang.CN: ("给定如下因果图：",)}
AR_OPENERS = {Lang.EN: ("Input Event: If ",), Lang.CN: ("输入信息：如果",)}

_CONFOUNDERS = {Lang.EN: "There exist unobserved confounders between:",
                Lang.CN: "在这些变量间存在着不可观察的混淆变量："}
_QUESTION = {Lang.EN: "Question:", Lang.CN: "问题："}
_OPTION = {Lang.EN: ("Option 1:", "Option 2:", "Option 3:"),
           Lang.CN: ("选项一：", "选项二：", "选项三：")}
_ANSWER = {Lang.EN: "Answer (", Lang.CN: "答案（"}

#: words of each choice task's question line, most specific first
_CRITERIA = {Lang.EN: (("minimal set", Criterion.BACKDOOR_MIN),
                       ("maximal set", Criterion.BACKDOOR_MAX),
                       ("front-door", Criterion.FRONTDOOR),
                       ("instrument", Criterion.INSTRUMENT),
                       ("back-door", Criterion.BACKDOOR_ANY)),
             Lang.CN: (("最小变量集", Criterion.BACKDOOR_MIN),
                       ("最大变量集", Criterion.BACKDOOR_MAX),
                       ("前门", Criterion.FRONTDOOR),
                       ("工具变量", Criterion.INSTRUMENT),
                       ("后门", Criterion.BACKDOOR_ANY))}


def _err(message: str, text: str = "") -> ParseError:
    return ParseError(f"cannot parse CaLM graph item: {message}", context=text[:200],
                      what="CaLM graph item")


def vertex(text: str) -> str:
    """One vertex name (ASCII letters and digits), stripped; ``ParseError`` otherwise."""
    name = text.strip()
    if not name or not name.isascii() or not name.isalnum():
        raise _err(f"expected a vertex name, found {name[:40]!r}", text)
    return name


def vertex_set(text: str) -> frozenset[str]:
    """An option's vertex set: names separated by commas ("D, C"; "" is the empty set)."""
    body = text.strip().rstrip(".。").strip()
    if not body:
        return frozenset()
    return frozenset(vertex(v) for v in body.replace("，", ",").split(","))


def statements(text: str, joiner: str, lang: Lang) -> list[tuple[str, str]]:
    """The pairs in a CaLM list of statements "X<joiner>Y, …, and X<joiner>Y"."""
    body = text.strip().rstrip(".。").strip()
    if not body:
        return []
    pieces = body.replace("，", ",").split(",")
    if len(pieces) > MAX_STATEMENTS:
        raise _err(f"more than {MAX_STATEMENTS} statements", text)
    out = []
    last = _LAST[lang]
    for piece in pieces:
        piece = piece.strip()
        if piece.startswith(last):
            piece = piece[len(last):].lstrip()
        a, found, b = piece.partition(joiner)
        a, b = a.strip(), b.strip()
        if not (found and a.isascii() and a.isalnum() and b.isascii() and b.isalnum()):
            raise _err(f"expected 'X{joiner}Y' of two vertex names, found {piece[:60]!r}",
                       text)
        out.append((a, b))
    return out


def graph(directed: str, lang: Lang, bidirected: str = "",
          vertices: tuple[str, ...] = (), named: tuple[str, ...] = ()) -> CalmGraph:
    """The graph of an item: ``vertices`` (a record's list) and every name the edges or
    the question (``named``) mention, in that order; the directed part must be acyclic."""
    di = statements(directed, CAUSES[lang], lang)
    bi = statements(bidirected, PAIRED[lang], lang)
    order = dict.fromkeys(vertices)
    for a, b in (*di, *bi):
        order.setdefault(a)
        order.setdefault(b)
    for v in named:
        order.setdefault(v)
    if len(order) > MAX_VERTICES:
        raise _err(f"{len(order)} vertices; at most {MAX_VERTICES} are read")
    if any(a == b for a, b in bi):
        raise _err("a vertex confounded with itself", bidirected)
    g = CalmGraph.build(order, di, bi)
    if not g.dag.is_acyclic():
        raise _err("the causal statements form a cycle", directed)
    return g


# ---- records ------------------------------------------------------------------------
def _field(record: Mapping[str, Any], key: str) -> str:
    value = record.get(key)
    if not isinstance(value, str):
        raise _err(f"the record has no text field {key!r}", str(dict(record))[:200])
    return value


def _vertices(record: Mapping[str, Any]) -> tuple[str, ...]:
    value = record.get("vertices", ())
    if not isinstance(value, list | tuple):
        raise _err("'vertices' is not a list")
    return tuple(vertex(str(v)) for v in value)


def relation_record(record: Mapping[str, Any], kind: RelationKind, lang: Lang,
                    edges: str, first: str, second: str) -> Relation:
    """AR-B (``ar_edges``, ``former``, ``latter``), CA-B FA (``edges``,
    ``sampled_ancestor``, ``attribution``), CA-B FP (``sampled_parent``)."""
    a, b = vertex(_field(record, first)), vertex(_field(record, second))
    g = graph(_field(record, edges), lang, vertices=_vertices(record), named=(a, b))
    return Relation(g, kind, a, b)


def identify_record(record: Mapping[str, Any], lang: Lang) -> Identify:
    """CEI-B: ``di_edges``, ``bi_edges``, ``treatment``, ``outcome``."""
    x, y = vertex(_field(record, "treatment")), vertex(_field(record, "outcome"))
    g = graph(_field(record, "di_edges"), lang, _field(record, "bi_edges"),
              _vertices(record), (x, y))
    return Identify(g, x, y)


def choice_record(record: Mapping[str, Any], criterion: Criterion, lang: Lang,
                  hidden: frozenset[str]) -> Choice:
    """BAS-C / FAS-C / IV-C: ``edges``, ``treatment``, ``outcome``, ``option1..3``."""
    x, y = vertex(_field(record, "treatment")), vertex(_field(record, "outcome"))
    options = tuple(vertex_set(_field(record, f"option{k}")) for k in (1, 2, 3))
    named = (x, y, *sorted(set().union(*options)))
    g = graph(_field(record, "edges"), lang, vertices=_vertices(record), named=named)
    return Choice(g, criterion, x, y, options, hidden & set(g.names))


# ---- rendered items ---------------------------------------------------------------------
def _between(text: str, start: str, end: str, what: str) -> str:
    """The text after ``start`` up to ``end`` (the end of the text if ``end`` is "")."""
    at = text.find(start)
    if at < 0:
        raise _err(f"no {what} (expected {start!r})", text)
    at += len(start)
    stop = text.find(end, at) if end else len(text)
    if stop < 0:
        raise _err(f"{what} is not followed by {end!r}", text[at:])
    return text[at:stop]


def _pair(question: str, lang: Lang) -> tuple[str, str]:
    """The ordered pair "(X, Y)" of a choice question."""
    inner = _between(question, "(", ")", "ordered pair")
    parts = inner.split(",")
    if len(parts) != 2:
        raise _err(f"expected an ordered pair '(X, Y)', found {inner[:40]!r}", question)
    return vertex(parts[0]), vertex(parts[1])


def relation_item(item: str, kind: RelationKind, lang: Lang, ar: bool) -> Relation:
    """An AR-B or CA-B item as rendered (after its opener)."""
    openers = (AR_OPENERS if ar else GRAPH_OPENERS)[lang]
    edges = _between(item, openers[0], "\n" + _QUESTION[lang], "causal graph")
    question = _between(item, _QUESTION[lang], "\n", "question")
    q = question.strip()
    if lang is Lang.EN:
        if ar:  # "Does X cause Y?"
            body = _between(q, "Does ", " cause", "'Does X cause Y?'")
            a, b = body, _between(q, " cause ", "?", "'Does X cause Y?'")
        else:  # "Does X serve as the ancestor/parent node of Y?"
            a = _between(q, "Does ", " serve as", "'Does X serve as … of Y?'")
            b = _between(q, " node of ", "?", "'… node of Y?'")
    elif ar:  # "X是否导致Y？"
        a, b = _between(q, "", "是否导致", "'X是否导致Y？'"), _between(q, "是否导致", "？", "'？'")
    else:  # "X是Y的祖先节点吗？" / "X是Y的父节点吗？"
        a, b = _between(q, "", "是", "'X是Y的…节点吗？'"), _between(q, "是", "的", "'的'")
    a, b = vertex(a), vertex(b)
    return Relation(graph(edges, lang, named=(a, b)), kind, a, b)


def identify_item(item: str, lang: Lang) -> Identify:
    """A CEI-B item as rendered."""
    edges = _between(item, GRAPH_OPENERS[lang][0], "\n" + _CONFOUNDERS[lang], "causal graph")
    hidden = _between(item, _CONFOUNDERS[lang], "\n" + _QUESTION[lang], "confounder list")
    q = _between(item, _QUESTION[lang], "\n", "question").strip()
    if lang is Lang.EN:  # "Whether the causal effect of X on Y is identified or not?"
        x = _between(q, "effect of ", " on ", "'effect of X on Y'")
        y = _between(q, " on ", " is ", "'on Y is'")
    else:  # "X对Y的因果效应是否可以被识别？"
        x = _between(q, "", "对", "'X对Y'")
        y = _between(q, "对", "的因果效应", "'对Y的因果效应'")
    x, y = vertex(x), vertex(y)
    return Identify(graph(edges, lang, hidden, named=(x, y)), x, y)


def criterion_of(question: str, lang: Lang) -> Criterion:
    """The criterion a choice question's line asks for (``ParseError`` if none)."""
    for words, criterion in _CRITERIA[lang]:
        if words in question:
            return criterion
    raise _err("the question asks for no backdoor / front-door / instrument set", question)


def choice_item(item: str, lang: Lang, hidden: frozenset[str]) -> Choice:
    """A BAS-C / FAS-C / IV-C item as rendered, with the criterion its question line
    asks for (which may not be its task's: CaLM's CN one- and three-shot max-BAS
    templates ask for the minimal set — the caller compares)."""
    edges = _between(item, GRAPH_OPENERS[lang][0], "\n" + _QUESTION[lang], "causal graph")
    question = _between(item, _QUESTION[lang], "\n", "question")
    criterion = criterion_of(question, lang)
    x, y = _pair(question, lang)
    marks = _OPTION[lang]
    options = []
    for k, mark in enumerate(marks):
        end = marks[k + 1] if k + 1 < len(marks) else _ANSWER[lang]
        options.append(vertex_set(_between(item, mark, "\n" + end, f"option {k + 1}")))
    named = (x, y, *sorted(set().union(*options)))
    g = graph(edges, lang, named=named)
    return Choice(g, criterion, x, y, tuple(options), hidden & set(g.names))


__all__ = ["AR_OPENERS", "GRAPH_OPENERS", "choice_item", "choice_record", "criterion_of",
           "graph", "identify_item", "identify_record", "relation_item", "relation_record",
           "statements", "vertex", "vertex_set"]
