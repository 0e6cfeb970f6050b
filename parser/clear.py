"""CLEAR text → ``oracle.clear.model`` objects.

A CLEAR item is a graph description followed by one question::

    Given an ADMG (acyclic directed mixed graph) with nodes I, Y, H, U, directed
    edges I->H, I->Y and bi-directed edges H<->U, I<->Y.
    Which of the following is a path from I to U?
    A. I<->Y->H<->U
    B. ...

``parse_item`` reads both; ``parse_description`` and ``parse_answer`` read a graph or
an answer on their own.  Answers come as the benchmark writes them: ``Yes.``/``No.``,
counts, option letters, sets ``{'J', 'C'}`` and ``set()``, lists of sets or of
3-tuples, quoted path lists ``['A->B', 'A<-C->B']``, bare paths and comma lists
(``A-F, A-S`` edges, ``Y, R, G, C`` orders), and "DAG with nodes … and directed
edges …" for a Markov-equivalent graph.

The transformer checks names: an edge, path or option may name only declared
nodes where the graph is concerned (options of "which is a node" may name others on
purpose, so options are not checked).  Problems raise ``ParseError`` with line,
column and the expected tokens.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lark import Token, Tree, v_args

from causal_oracle.oracle.clear.model import (
    GraphKind,
    Mark,
    MixedGraph,
    QType,
    Question,
    Task,
    Walk,
)
from causal_oracle.oracle.errors import quote
from causal_oracle.parser import numbers
from causal_oracle.parser.grammar import (
    PacedTransformer,
    SemanticError,
    load_grammar,
    run_parser,
)

_GRAMMAR = Path(__file__).with_name("clear.lark")
_NAMES = {"NAME": "a node name", "QNAME": "a quoted node name", "$END": "end of text",
          "OPTION_LABEL": "an option line (A. …)", "MARK": "an edge mark"}

# rule alias → (task, question type, variant)
_FORMS: dict[str, tuple[Task, QType, str]] = {}
for _task, _prefix in ((Task.NODE, "node"), (Task.EDGE, "edge"), (Task.TWO_NODE, "rel2"),
                       (Task.THREE_NODE, "rel3"), (Task.PATH, "path"),
                       (Task.DIRECTED_PATH, "dpath"), (Task.CYCLE, "cycle"),
                       (Task.TOPOLOGICAL, "topo"), (Task.BLOCKED_PATH, "blocked"),
                       (Task.D_SEPARATION, "dsep"), (Task.MARKOV_BLANKET, "mb"),
                       (Task.MARKOV_EQUIVALENT, "meq"), (Task.BACKDOOR_PATH, "bdpath"),
                       (Task.BACKDOOR_SET, "bdset"), (Task.FRONTDOOR_SET, "fdset"),
                       (Task.C_COMPONENT, "ccomp"), (Task.C_TREE, "ctree"),
                       (Task.C_FOREST, "cforest"), (Task.ROOT_SET, "root"),
                       (Task.IDENTIFICATION, "ident")):
    for _qt in QType:
        _FORMS[f"{_prefix}_{_qt.value.lower()}"] = (_task, _qt, "")
    for _variant in ("not", "minimal", "shortest", "longest"):
        for _qt in (QType.MC, QType.FO):
            _FORMS[f"{_prefix}_{_qt.value.lower()}_{_variant}"] = (_task, _qt, _variant)

_PLURAL = {"forks": "fork", "chains": "chain", "v-structures": "v-structure"}


def _walk_value(text: str) -> Walk:
    """A walk from text like ``A->B<-C`` (inside quotes in lists)."""
    nodes: list[str] = []
    marks: list[Mark] = []
    i = 0
    name = ""
    while i < len(text):
        for mark in (Mark.BI, Mark.RIGHT, Mark.LEFT, Mark.UNDIRECTED):
            if text.startswith(mark.value, i):
                nodes.append(name)
                marks.append(mark)
                name = ""
                i += len(mark.value)
                break
        else:
            name += text[i]
            i += 1
    nodes.append(name)
    return Walk(tuple(nodes), tuple(marks))


class _ToModel(PacedTransformer):
    # ---- values
    def walk(self, items: list[Token]) -> Walk:
        return Walk(tuple(str(t) for t in items[0::2]),
                    tuple(Mark(str(t)) for t in items[1::2]))

    def nodes(self, items: list[Token]) -> tuple[str, ...]:
        return tuple(str(t) for t in items)

    def quoted_set(self, items: list[Token]) -> frozenset[str]:
        return frozenset(str(t)[1:-1] for t in items if t is not None)

    def bare_set(self, items: list[Token]) -> frozenset[str]:
        return frozenset(str(t) for t in items)

    def empty_set(self, _: list[Any]) -> frozenset[str]:
        return frozenset()

    def triple(self, items: list[Token]) -> tuple[str, ...]:
        return tuple(str(t)[1:-1] for t in items)

    def ordering(self, items: list[Any]) -> tuple[str, ...]:
        first, rest = items
        return (*first.nodes, *rest)

    def option(self, items: list[Any]) -> tuple[str, Any]:
        label, value = items
        return (str(label).strip().rstrip("."), value)

    def options(self, items: list[Any]) -> tuple[tuple[str, Any], ...]:
        return tuple(items)

    def edges(self, items: list[Walk]) -> list[Walk]:
        return items

    def edges_then_do(self, items: list[Any]) -> list[Walk]:
        return [items[0], *(items[1] if len(items) > 1 else [])]

    def adj_for(self, items: list[Token]) -> tuple[str, str]:
        return (str(items[0]), str(items[1]))

    # ---- description
    def kind_dag(self, _: list[Any]) -> GraphKind:
        return GraphKind.DAG

    def kind_admg(self, _: list[Any]) -> GraphKind:
        return GraphKind.ADMG

    def kind_dg(self, _: list[Any]) -> GraphKind:
        return GraphKind.DG

    def kind_ug(self, _: list[Any]) -> GraphKind:
        return GraphKind.UG

    def more_nodes(self, items: list[Any]) -> tuple[list[str], list[Walk], list[Walk]]:
        names, edges, bi = items[1]
        return [str(items[0]), *names], edges, bi

    def directed_part(self, items: list[Any]) -> tuple[list[str], list[Walk], list[Walk]]:
        return [str(items[0])], items[1], []

    undirected_part = directed_part

    def bidirected_part(self, items: list[Any]) -> tuple[list[str], list[Walk], list[Walk]]:
        return [str(items[0])], [], items[1]

    def mixed_part(self, items: list[Any]) -> tuple[list[str], list[Walk], list[Walk]]:
        return [str(items[0])], items[1], items[2]

    def description(self, items: list[Any]) -> MixedGraph:
        kind, (names, edges, bi) = items
        return _graph(kind, names, edges, bi)

    # ---- answers
    @v_args(inline=True)
    def answer(self, item: Any) -> Any:
        if isinstance(item, Token):
            return item.type == "YES"
        return item

    @v_args(inline=True)
    def count(self, token: Token) -> int:
        return numbers.count(token, "things counted")

    @v_args(inline=True)
    def letter(self, token: Token) -> str:
        return str(token).rstrip(".")

    def value_list(self, items: list[Any]) -> list[Any]:
        return [_walk_value(str(i)[1:-1]) if isinstance(i, Token) else i
                for i in items if i is not None]

    @v_args(inline=True)
    def answer_walk(self, walk: Walk) -> Walk:
        return walk

    def answer_walks(self, items: list[Walk]) -> tuple[Walk, ...]:
        return tuple(items)

    @v_args(inline=True)
    def answer_set(self, value: frozenset[str]) -> frozenset[str]:
        return value

    def answer_dag(self, items: list[Any]) -> MixedGraph:
        names, edges = items
        return _graph(GraphKind.DAG, list(names), edges, [])

    def __default__(self, data: Any, children: list[Any], meta: Any) -> Any:
        form = _FORMS.get(str(data))
        if form is None:
            return Tree(data, children, meta)
        task, qtype, variant = form
        return _RawQuestion(task, qtype, variant, children)


class _RawQuestion:
    """A question before it meets its graph (the transformer sees them apart)."""

    def __init__(self, task: Task, qtype: QType, variant: str, children: list[Any]) -> None:
        self.task, self.qtype, self.variant = task, qtype, variant
        self.children = children

    def bind(self, graph: MixedGraph) -> Question:
        names: list[str] = []
        subject: Any = None
        options: tuple[tuple[str, Any], ...] = ()
        variant = self.variant
        for child in self.children:
            if isinstance(child, Token) and child.type == "NAME":
                names.append(str(child))
            elif isinstance(child, Tree) and child.data in ("relation", "structure",
                                                              "set_size"):
                word = str(child.children[0])
                variant = _PLURAL.get(word, word)
            elif isinstance(child, Tree) and child.data in ("partition_intro", "mec_words"):
                continue
            elif isinstance(child, tuple) and child and isinstance(child[0], tuple):
                options = child
            elif isinstance(child, tuple) and len(child) == 2 and self.task in (
                    Task.BACKDOOR_SET, Task.FRONTDOOR_SET) and all(
                        isinstance(c, str) for c in child):
                names.extend(child)
            elif isinstance(child, tuple):
                subject = (subject.nodes if isinstance(subject, Walk) else ()) + child
            elif isinstance(child, list):  # second graph (Markov equivalence)
                subject = _graph(GraphKind.DAG, list(subject or ()), child, [])
            elif isinstance(subject, Walk) and isinstance(child, frozenset):
                subject = (subject, child)  # "Can path P be blocked by nodeset Z?"
            else:
                subject = child
        if self.task is Task.TOPOLOGICAL and isinstance(subject, Walk):
            subject = subject.nodes
        if self.task is Task.MARKOV_EQUIVALENT and isinstance(subject, Walk):
            subject = subject.nodes
        declared = set(graph.nodes)
        for name in names:
            if name not in declared:
                raise SemanticError(f"node {quote(name)} is not a node of the graph", None)
        for walk in (subject, *(subject if isinstance(subject, tuple) else ())):
            if isinstance(walk, Walk) and walk.marks:  # a path asked about runs through the graph
                for name in walk.nodes:
                    if name not in declared:
                        raise SemanticError(f"path {walk} names {quote(name)}, which is not a "
                                            "node of the graph", None)
        return Question(graph, self.task, self.qtype, variant, tuple(names), subject, options)


def _graph(kind: GraphKind, names: list[str], edges: list[Walk], bi: list[Walk]) -> MixedGraph:
    declared = set(names)
    directed: list[tuple[str, str]] = []
    bidirected: list[tuple[str, str]] = []
    undirected: list[tuple[str, str]] = []
    for walk in [*edges, *bi]:
        if len(walk.marks) != 1:
            raise SemanticError(f"{walk} is not a single edge", None)
        a, b = walk.nodes
        for name in (a, b):
            if name not in declared:
                raise SemanticError(f"edge {walk} names {quote(name)}, which is not a node", None)
        if a == b:
            raise SemanticError(f"edge {walk} joins {quote(a)} to itself", None)
        mark = walk.marks[0]
        if mark is Mark.RIGHT:
            directed.append((a, b))
        elif mark is Mark.LEFT:
            directed.append((b, a))
        elif mark is Mark.BI:
            bidirected.append((a, b))
        else:
            undirected.append((a, b))
    return MixedGraph.build(kind, names, directed=directed, bidirected=bidirected,
                            undirected=undirected)


def parse_description(text: str) -> MixedGraph:
    """The graph of a CLEAR description ("Given a DAG … with nodes … and … edges ….")."""
    parser = load_grammar(_GRAMMAR, "description")
    out = run_parser(parser, _NAMES, text.strip(), "CLEAR graph description", _ToModel())
    assert isinstance(out, MixedGraph)
    return out


def parse_item(description: str, question: str | None = None) -> Question:
    """A CLEAR question: ``description`` and ``question`` apart, or one prompt text."""
    text = description.strip() if question is None else (
        description.strip() + "\n" + question.strip())
    parser = load_grammar(_GRAMMAR, "item")
    tree = run_parser(parser, _NAMES, text, "CLEAR item", _ToModel())
    assert isinstance(tree, Tree)
    graph, raw = tree.children
    try:
        return raw.bind(graph)
    except SemanticError as error:
        from causal_oracle.parser.errors import ParseError
        raise ParseError(f"invalid CLEAR item: {error.message}", what="CLEAR item") from None


def parse_answer(text: str) -> Any:
    """One answer as CLEAR writes it (see the module docstring) → Python data:
    bool, int, option letter (str), frozenset, Walk, tuple of Walks, list, MixedGraph."""
    parser = load_grammar(_GRAMMAR, "answer")
    return run_parser(parser, _NAMES, text.strip(), "CLEAR answer", _ToModel())


def looks_like_clear(text: str) -> bool:
    """True when ``text`` opens like a CLEAR graph description."""
    head = text.lstrip()
    return head.startswith(("Given a DAG", "Given an ADMG", "Given a directed graph",
                            "Given a undirected graph", "Given an undirected graph"))
