"""Intervention-effect prompt text → ``oracle.tasks.model.InterventionQuestion``.

The benchmark ("Evaluating Interventional Reasoning Capabilities of Large
Language Models") renders a template as ``prompt + ". \\n" + question``::

    I'm going to describe a causal graphical directed acyclic model. There are
    three variables: K, Q and D. K causes Q. Q causes D.  These are all the causal
    relationships in the graph. Suppose we perform the perfect intervention,
    do(Q=q). Then, on this intervened causal model, we perform the perfect
    intervention, do(K = k).
    In this final intervened causal graphical model, does K cause a change in D?

Parts, in order: the model sentence (two-variable form "causal graphical model",
three-variable form "... directed acyclic model"); the variable list (its count
word is not checked: upstream writes "two variables: A, B and C"); one sentence
per edge; optionally the definition of a renamed do-operator ("… is called
'vbtx(<variable>=<value>)'. It means that …"); zero, one or two interventions
``op(V=v)`` (``op`` must be ``do`` or the defined name; values are any text up
to ")"); and the question — "does A cause B?", "does A cause a change (in) B?",
"is there a (directed) path going from A to B?", "is there an edge from A to B?".

Variables must be declared in the list; names are case-insensitive.  The templates'
common case is read by a recogniser (``parser.ie_lines``) that builds no parse tree;
everything else, and every error, by the grammar (``parse_with_grammar``), and both give
the same question.

Public functions: ``parse_ie``, ``parse_with_grammar``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lark import Token, v_args

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.errors import InputError, quote
from causal_oracle.oracle.tasks.model import IEKind, Intervention, InterventionQuestion, TaskGraph
from causal_oracle.parser.cibench import NameTable, RawName
from causal_oracle.parser.errors import ParseError
from causal_oracle.parser.grammar import (
    PacedTransformer,
    SemanticError,
    load_grammar,
    run_parser,
)
from causal_oracle.parser.ie_lines import recognise

_GRAMMAR = Path(__file__).with_name("ie.lark")
_TERMINAL_NAMES = {"WORD": "a word", "VALUE": "a value", "$END": "end of text"}


def ie_question(parts: list[Any]) -> InterventionQuestion:
    """The question from the prompt's parts (the grammar's or the recogniser's): "declare",
    "edge", "define", "do" and "ask" tuples in the prompt's order."""
    table = NameTable()
    declared: list[RawName] = []
    for part in parts:
        if part[0] == "declare":
            declared = part[1]
    for name in declared:
        if name in table:
            raise SemanticError(f"variable {quote(name.text)} is declared twice", name.token)
        table.add(name)
    edges: set[tuple[int, int]] = set()
    operator = "do"
    interventions: list[Intervention] = []
    ask: tuple[IEKind, RawName, RawName] | None = None
    for part in parts:
        tag = part[0]
        if tag == "edge":
            _, a, b = part
            ia, ib = table.index(a), table.index(b)
            if ia == ib:
                raise SemanticError(f"{quote(a.text)} cannot cause itself", b.token)
            edges.add((ia, ib))
        elif tag == "define":
            operator = str(part[1])
        elif tag == "do":
            _, op, name, value = part
            if str(op) != operator:
                raise SemanticError(f"the intervention uses {quote(str(op))} but the operator "
                                    f"is {quote(operator)}", op)
            interventions.append(Intervention(table.index(name), str(value).strip()))
        elif tag == "ask":
            ask = part[1]
    assert ask is not None
    kind, source, target = ask
    s, t = table.index(source), table.index(target)
    if s == t:
        raise SemanticError("the question must relate two different variables",
                            target.token)
    try:
        graph = TaskGraph(table.names, frozenset(edges))
    except InputError as error:
        raise SemanticError(error.message, declared[0].token) from None
    return InterventionQuestion(graph, tuple(interventions), kind, s, t, operator)


class _ToObjects(PacedTransformer):
    def name(self, items: list[Token]) -> RawName:
        return RawName(tuple(str(t) for t in items), items[0])

    def name_list(self, items: list[RawName]) -> list[RawName]:
        return list(items)

    def opening(self, items: list[object]) -> None:
        return None

    closing = opening

    @v_args(inline=True)
    def declaration(self, _count: Token, names: list[RawName]) -> tuple[str, list[RawName]]:
        return "declare", names

    @v_args(inline=True)
    def edge_sentence(self, a: RawName, b: RawName) -> tuple[str, RawName, RawName]:
        return "edge", RawName(a.words, a.token, initial=True), b

    @v_args(inline=True)
    def definition(self, op: Token) -> tuple[str, Token]:
        return "define", op

    def intervention(self, items: list[object]) -> tuple[str, Token, RawName, Token]:
        op, name, value = items[-3:]
        return "do", op, name, value  # type: ignore[return-value]

    def _ask(kind: IEKind):  # type: ignore[no-untyped-def]
        def build(self: _ToObjects, items: list[object]) -> tuple[IEKind, RawName, RawName]:
            a, b = items[-2:]
            return kind, a, b  # type: ignore[return-value]

        return build

    ask_cause = _ask(IEKind.CAUSE)
    ask_change = _ask(IEKind.CAUSE)
    ask_path = _ask(IEKind.PATH)
    ask_edge = _ask(IEKind.EDGE)
    del _ask

    def question(self, items: list[object]) -> tuple[str, tuple[IEKind, RawName, RawName],
                                                       bool]:
        words = {str(t) for t in items if isinstance(t, Token)}
        return "ask", items[-1], "intervened" in words  # type: ignore[return-value]

    def item(self, items: list[object]) -> InterventionQuestion:
        return ie_question([i for i in items if i is not None])


_TRANSFORMER = _ToObjects()


def parse_ie(text: str) -> InterventionQuestion:
    """Parse a rendered intervention-effect prompt (context and question).

    >>> q = parse_ie("I'm going to describe a causal graphical model. There are two "
    ...              "variables: A and B. A causes B. These are all the causal relationships "
    ...              "in the graph. Suppose we perform the perfect intervention, do(B=b). "
    ...              "\\nIn this intervened causal graphical model, does A cause B?")
    >>> q.graph.names, q.interventions[0].value, q.kind.value
    (('A', 'B'), 'b', 'cause')
    """
    question = _recognised(text)
    if question is None:
        question = parse_with_grammar(text)
    if not isinstance(question, InterventionQuestion):  # pragma: no cover - grammar guarantees
        raise ParseError("not an intervention question", what="intervention question")
    return question


def parse_with_grammar(text: str) -> InterventionQuestion:
    """The question as ``ie.lark`` and its transformer read it: the definition that
    ``parse_ie``'s faster reading of the templates' common case agrees with."""
    parser = load_grammar(_GRAMMAR, "item")
    return run_parser(parser, _TERMINAL_NAMES, text, "intervention question",  # type: ignore[return-value]
                      _TRANSFORMER)


def _recognised(text: str) -> InterventionQuestion | None:
    """The question read by ``ie_lines`` (no tree), or None when the grammar must read it:
    outside the recognised subset, or parts that do not make sense (the grammar then
    reports where)."""
    checkpoint()
    parts = recognise(text)
    checkpoint()
    if parts is None:
        return None
    built: list[Any] = []
    for part in parts:
        tag = part[0]
        if tag == "declare":
            built.append((tag, [RawName(words, None) for words in part[1]]))
        elif tag == "edge":
            built.append((tag, RawName(part[1], None, initial=True), RawName(part[2], None)))
        elif tag == "do":
            built.append((tag, part[1], RawName(part[2], None), part[3]))
        elif tag == "ask":
            kind, a, b = part[1]
            built.append((tag, (kind, RawName(a, None), RawName(b, None))))
        else:
            built.append(part)
    try:
        return ie_question(built)
    except (SemanticError, InputError):  # the grammar reports it, with its place
        return None
