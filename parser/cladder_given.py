"""The head of a CLadder prompt: its background (the graph) and its given information.

The head is every sentence before the question.  The *background* ("Husband has a
direct effect on wife and alarm clock.", "… is unobserved.") describes the causal graph;
its variable names select the candidate story variants of the vocabulary — the stories
that use all of them.  Each sentence of *given information* then states one or more
numbers ("For husbands that set the alarm, the probability of ringing alarm is 85%."),
mechanisms ("… if and only if …"), observations, or a "Method n" adjustment set; it is
read with every candidate variant, and a variant that cannot read some sentence drops
out.  A sentence whose phrase has two meanings in a variant gives ``Alternatives``: one
statement per meaning.

``read_head`` returns a ``Head``: the graph, per surviving variant the alternatives of
each given sentence, and the methods of a backadj question.  Every background, sentence
parse and sentence reading is remembered per distinct text (the questions of one model
share most of them), so a file of questions is read in time near its distinct sentences.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lark import Token, Tree
from lark.exceptions import UnexpectedInput

from causal_oracle.oracle.budget import Pace, checkpoint
from causal_oracle.oracle.cladder.model import (
    Connective,
    Graph,
    Interval,
    Mechanism,
    Stated,
    StatedKind,
)
from causal_oracle.oracle.errors import InputError, quote
from causal_oracle.oracle.memo import memoised
from causal_oracle.parser.cladder_slots import (
    Alternatives,
    Reader,
    Unreadable,
    check_numbers,
    grammar,
    number_error,
    one_of_each,
    partitions,
    quote_phrase,
    syntax_error,
    unreadable_error,
)
from causal_oracle.parser.cladder_vocabulary import VariantKey, fold, vocabulary
from causal_oracle.parser.grammar import SemanticError


# ---- the head: background and given information ----------------------------------------
@dataclass(frozen=True)
class Head:
    graph: Graph
    #: per surviving variant: its key, and per given sentence its alternatives
    variants: tuple[tuple[VariantKey, tuple[Alternatives, ...], tuple[str, ...]], ...]
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
                raise Unreadable(f"{quote_phrase(cause)} is not the name of a variable in any "
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
                    raise Unreadable(f"{quote(n)} is said to be unobserved but has no effect in "
                                     "the background", listed)
                hidden.append(n)
    graph = Graph.build(names, edges, hidden)
    if not graph.is_acyclic():
        raise InputError("the background describes a cycle, not a DAG")
    return graph, {n: i for i, n in enumerate(names)}, names


def _name_list(text: str, known: Callable[[str], bool], token: Token) -> list[str]:
    ways = partitions(text, (", and ", ", ", " and "),
                      lambda part: fold(part) if known(part) else None)
    if len(ways) != 1:
        raise Unreadable(f"{quote_phrase(text)} is not a list of variable names any story uses",
                         token)
    return [name for _, _, name in ways[0]]


def _percent(token: Token) -> Interval:
    return Interval.percent(str(token).rstrip("%"))


def _correlation(token: Token) -> Interval:
    return Interval.printed(str(token), 1, (-1, 1))


def _resolve_given(reader: Reader, sentence: Tree) -> list[Alternatives]:
    """The statements one given sentence makes, read with one variant."""
    kind = sentence.data
    if kind == "overall":
        event, number = sentence.children
        lits = reader.value(event, "the overall probability's event")
        return [Alternatives(tuple(Stated((lit,), (), _percent(number)) for lit in lits))]
    if kind == "joint":
        event, number = sentence.children
        parts = reader.values(event, "the joint probability's events")
        if len(parts) != 2:
            raise Unreadable("a joint probability names two events", event)
        return [Alternatives(tuple(Stated(pair, (), _percent(number))
                                    for pair in one_of_each([p for _, _, p in parts])))]
    if kind in ("conditional", "correlation"):
        condition, event, number = sentence.children
        given = reader.values(condition, "the condition")
        if kind == "conditional":
            lits = reader.value(event, "the conditional probability's event")
            options = tuple(Stated((lit,), g, _percent(number))
                            for lit in lits for g in one_of_each([p for _, _, p in given]))
        else:
            parts = reader.values(event, "the correlated events")
            if len(parts) != 2:
                raise Unreadable("a correlation names two events", event)
            options = tuple(Stated(pair, g, _correlation(number), StatedKind.CORRELATION)
                            for pair in one_of_each([p for _, _, p in parts])
                            for g in one_of_each([p for _, _, p in given]))
        return [Alternatives(options)]
    if kind in ("known", "mechanism_sentence"):
        return [_mechanism(reader, m) for m in sentence.children if isinstance(m, Tree)]
    if kind == "observed":
        (token,) = sentence.children
        parts = reader.values(token, "the observations")
        return [Alternatives(tuple(("evidence", o) for o in one_of_each([p for _, _, p in parts])))]
    return []


def _mechanism(reader: Reader, tree: Tree) -> Alternatives:
    causes, effects = tree.children
    parts = reader.values(causes, "a mechanism's causes", (" and ", " or "))
    connectives = {sep.strip() for sep, _, _ in parts[1:]}
    if len(connectives) > 1:
        raise Unreadable(f"{quote_phrase(causes)} mixes 'and' and 'or'", causes)
    connective = Connective(connectives.pop()) if connectives else Connective.AND
    targets = reader.values(effects, "a mechanism's effects")
    options = []
    for inputs in one_of_each([p for _, _, p in parts]):
        for outs in one_of_each([p for _, _, p in targets]):
            options.append(("mechanisms", tuple(Mechanism(inputs, connective, t)
                                                for t in outs)))
    return Alternatives(tuple(options))


def _method(sentence: Tree, reader: Reader) -> tuple[int, tuple[int, ...]]:
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


@memoised(limit=1024)
def _background(text: str) -> tuple[Graph, tuple[str, ...], tuple[VariantKey, ...]]:
    """The graph of a background, its names and the story variants that use them all."""
    tree = grammar().parse(text, start="background")
    graph, _, names = _graph(tree)
    keys = tuple(sorted(vocabulary().candidates(names)))
    if not keys:
        raise InputError("no story of the benchmark's vocabulary names all of: "
                         + ", ".join(quote(n) for n in names))
    return graph, tuple(names), keys


@memoised(limit=16384)
def _sentence(text: str) -> Tree:
    tree = grammar().parse(text, start="sentence").children[0]
    assert isinstance(tree, Tree)
    return check_numbers(tree)


@memoised(limit=32768)
def _read_sentence(key: VariantKey, names: tuple[str, ...], text: str
                   ) -> tuple[tuple[Alternatives, ...], tuple[str, ...],
                              tuple[int, tuple[int, ...]] | None]:
    """One given sentence read with one variant: its statements' alternatives, the
    phrases read in several ways, and (Method sentences) the method's number and set."""
    reader = Reader(vocabulary().variant(key), {n: i for i, n in enumerate(names)})
    tree = _sentence(text)
    method = _method(tree, reader) if tree.data == "method" else None
    return tuple(_resolve_given(reader, tree)), tuple(reader.ambiguous), method


@memoised(limit=4096)
def read_head(text: str) -> Head:
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
                raise syntax_error(sentence, error, offset, text) from None
            except SemanticError as error:
                raise number_error(text, error, offset) from None
    except UnexpectedInput as error:
        raise syntax_error(background, error, 0, text) from None
    except Unreadable as problem:
        raise unreadable_error(text, problem) from None
    variants = []
    methods: dict[int, tuple[int, ...]] = {}
    first: Unreadable | None = None
    for key in keys:
        resolved: list[Alternatives] = []
        unclear: list[str] = []
        try:
            for offset, sentence in pieces[n:]:
                checkpoint()
                try:
                    alternatives, ambiguous, method = _read_sentence(key, names, sentence)
                except Unreadable as problem:
                    problem.offset = offset
                    raise
                resolved.extend(alternatives)
                unclear.extend(ambiguous)
                if method is not None:
                    methods[method[0]] = method[1]
        except Unreadable as problem:
            first = first or problem
            continue
        variants.append((key, tuple(resolved), tuple(unclear)))
    if not variants:
        assert first is not None
        raise unreadable_error(text, first)
    return Head(graph, tuple(variants), tuple(sorted(methods.items())))


