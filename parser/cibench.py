"""CI-Bench question text → ``oracle.tasks.model`` questions.

CI-Bench ("Do LLMs Have the Generalization Ability in Conducting Causal
Inference?") asks four kinds of question about a small causal system:

* **CP** and **BA** describe a DAG, one sentence per cause::

      Ntkswaab has a causal effect on wkeszaac and uazeyaad.
      We want to estimate the causal effect of thentkswaab on theuazeyaad.

  The generator glues a single cause or effect to "the" and writes "thes A and B"
  for several.  The grammar reads the glued word as part of the name; after
  parsing, the name is resolved against the variables of the DAG (first "the"
  stripped, or "thes" dropped), so "thes…" names that really start with "s" work.
* **FI** and **CI** describe boolean rules, one conjunction per line; lines with
  the same head are OR-ed::

      The X happens if the A happens and the B not happen.
      We have observed the A happened.
      What about the X?                                  (FI)
      What the X would be if the A didn't happen?        (CI)

Names are free text and case-insensitive at sentence starts ("Ntkswaab" is the
variable ``ntkswaab``).  A word that can follow a name (``has``, ``on``,
``and``, ``happens``, ``not`` …) cannot be part of a name.  Every problem is a
``ParseError`` with line, column and, for grammar errors, the expected tokens.

The generator's common case is read by a recogniser (``parser.cibench_lines``) that
builds no parse tree; everything else, and every error, is read by the grammar
(``parse_with_grammar``), and both give the same question.

Public functions: ``parse_cibench`` (any of the four), ``parse_with_grammar``,
``detect_task``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lark import Token, v_args

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.errors import InputError, quote
from causal_oracle.oracle.tasks.model import (
    BackdoorQuestion,
    BooleanSCM,
    CounterfactualQuestion,
    FactualQuestion,
    Literal,
    PathsQuestion,
    Rule,
    TaskGraph,
)
from causal_oracle.parser.cibench_lines import GraphPieces, recognise
from causal_oracle.parser.errors import ParseError
from causal_oracle.parser.grammar import (
    PacedTransformer,
    SemanticError,
    load_grammar,
    run_parser,
)

_GRAMMAR = Path(__file__).with_name("cibench.lark")
_TERMINAL_NAMES = {"WORD": "a word of a name", "$END": "end of text", "_THE": "'the'",
                   "_AND": "'and'", "_NOT": "'not'", "_QUESTION": "'Question'",
                   "_DIDNT": "\"didn't\"", "_DIDNT_TYPO": "'didn’t'"}


# ---- names ---------------------------------------------------------------------

class RawName:
    """A name as written: its words, first token, and whether it starts a sentence; its
    ``text`` (words joined) and ``key`` (the text case-folded) are read many times while
    names are resolved, so they are worked out once.  (A plain class with slots: a
    prompt makes dozens, and a frozen dataclass takes twice as long to make.)"""

    __slots__ = ("initial", "key", "text", "token", "words")

    def __init__(self, words: tuple[str, ...], token: Token | None,
                 initial: bool = False) -> None:
        self.words = words
        self.token = token  # None when read by the recogniser (its errors go to the grammar)
        self.initial = initial
        self.text = text = " ".join(words)
        self.key = text.casefold()

    def __repr__(self) -> str:
        return f"RawName({self.words!r}, initial={self.initial})"

    def display(self) -> str:
        """The name as a variable: a sentence-initial capital is undone ("Ntkswaab")."""
        first = self.words[0]
        if self.initial and len(first) > 1 and first[1:] == first[1:].lower():
            return " ".join((first[0].lower() + first[1:], *self.words[1:]))
        return self.text


class NameTable:
    """Variables in order of first mention; case-insensitive; prefers non-initial spellings."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.position: dict[str, int] = {}
        self.shown: dict[str, str] = {}
        self.initial_only: set[str] = set()

    def add(self, name: RawName) -> None:
        key = name.key
        if key not in self.shown:
            self.position[key] = len(self.order)
            self.order.append(key)
            self.shown[key] = name.display()
            if name.initial:
                self.initial_only.add(key)
        elif not name.initial and key in self.initial_only:
            self.shown[key] = name.text
            self.initial_only.discard(key)

    def index(self, name: RawName) -> int:
        try:
            return self.position[name.key]
        except KeyError:
            raise SemanticError(f"{quote(name.text)} is not one of the variables "
                                f"({', '.join(self.names)})", name.token) from None

    def __contains__(self, name: RawName) -> bool:
        return name.key in self.shown

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.shown[k] for k in self.order)


def unglue(names: list[RawName], table: NameTable) -> list[RawName]:
    """Separate the article the generator glued to the first name ("theX", "thes A").

    Prefers the reading under which every name is a known variable; otherwise the
    generator's convention decides and the unknown names join ``table`` (isolated
    variables).
    """
    first = names[0]
    head = first.words[0]
    candidates: list[list[RawName]] = [names]
    if head.casefold().startswith("the") and len(head) > 3:
        candidates.append([RawName((head[3:], *first.words[1:]), first.token), *names[1:]])
    if head.casefold() == "thes" and len(first.words) > 1:
        candidates.append([RawName(first.words[1:], first.token), *names[1:]])
    for option in candidates:
        if all(n in table for n in option):
            return option
    # Not all known: a cause or effect may be an isolated variable that no sentence
    # mentions.  Follow the generator's convention ("thes" before a list, "the" glued
    # to a single name) and add the new names to the table.
    chosen = candidates[-1]
    for name in chosen:
        table.add(name)
    return chosen


def _where(token: Token | None) -> str:
    return f"line {getattr(token, 'line', '?')}, column {getattr(token, 'column', '?')}"


def _distinct(names: list[RawName], table: NameTable, role: str) -> tuple[int, ...]:
    """The indices of ``names``; a name given twice is an error naming both places."""
    seen: dict[int, RawName] = {}
    for n in names:
        i = table.index(n)
        if i in seen:
            raise SemanticError(f"the {role} {quote(n.text)} is named twice (at "
                                f"{_where(seen[i].token)} and {_where(n.token)})", n.token)
        seen[i] = n
    return tuple(seen)


def _consistent_events(events: list[_Event], table: NameTable, what: str
                       ) -> tuple[Literal, ...]:
    """The events as literals, each event once; an event stated both to happen and not to
    happen is an error naming both statements (an answer would flip with their order)."""
    seen: dict[int, _Event] = {}
    for e in events:
        i = table.index(e.name)
        first = seen.get(i)
        if first is None:
            seen[i] = e
        elif first.value != e.value:
            def said(x: _Event) -> str:
                return (f"{'happened' if x.value else 'not happen'}"
                        f" ({_where(x.name.token)})")
            raise SemanticError(f"contradictory: {quote(e.name.text)} is {what} as "
                                f"{said(first)} and as {said(e)}", e.name.token)
    return tuple(Literal(i, e.value) for i, e in seen.items())


@dataclass(frozen=True)
class _Event:
    name: RawName
    value: bool


# ---- resolving names into a question (the grammar's and the recogniser's pieces) -----

def graph_question(sentences: list[tuple[RawName, list[RawName]]], causes_raw: list[RawName],
                   effects_raw: list[RawName], task: str) -> PathsQuestion | BackdoorQuestion:
    """A CP/BA question from its sentences (subject, objects), causes and effects."""
    table = NameTable()
    add, position = table.add, table.position  # a name's place is fixed when first added
    edges = set()
    for subject, objects in sentences:
        add(subject)
        a = position[subject.key]
        for obj in objects:
            add(obj)
            b = position[obj.key]
            if a == b:
                raise SemanticError(f"{quote(subject.text)} cannot cause itself", obj.token)
            edges.add((a, b))
    causes_named = unglue(causes_raw, table)
    effects_named = unglue(effects_raw, table)
    for n in (*causes_named, *effects_named):
        table.add(n)  # a non-initial spelling decides how a name is shown
    causes = _distinct(causes_named, table, "cause")
    effects = _distinct(effects_named, table, "effect")
    if set(causes) & set(effects):
        raise SemanticError("a variable cannot be both a cause and an effect",
                            effects_raw[0].token)
    try:
        graph = TaskGraph(table.names, frozenset(edges))
    except InputError as error:
        raise SemanticError(error.message, sentences[0][0].token) from None
    cls = PathsQuestion if task == "CP" else BackdoorQuestion
    return cls(graph, causes, effects)


def scm_question(lines: list[tuple[str, RawName, list[_Event]]], observed: list[_Event],
                 task: str, queries: list[RawName], whatif: list[_Event]
                 ) -> FactualQuestion | CounterfactualQuestion:
    """A FI/CI question from its rule lines, observations, queries and what-if events."""
    table = NameTable()
    add = table.add
    for _kind, head, body in lines:
        add(head)
        for e in body:
            add(e.name)
    for e in observed:
        add(e.name)
    for q in queries:
        if q not in table:
            raise SemanticError(f"the queried event {quote(q.text)} is not mentioned in the "
                                "rules or observations", q.token)
    for e in whatif:
        table.add(e.name)
    rules: list[Rule] = []
    bound = 0
    position = table.position  # every name of a line is in it now
    literals: tuple[dict[str, Literal], ...] = ({}, {})  # by value, then name: made once
    for kind, head, body in lines:
        h = position[head.key]
        if kind == "bound":
            bound |= 1 << h
            continue
        lits = []
        for e in body:
            made = literals[e.value]
            lit = made.get(e.name.key)
            if lit is None:
                lit = made[e.name.key] = Literal(position[e.name.key], e.value)
            if lit.node == h:
                raise SemanticError(f"the rule for {quote(head.text)} mentions its own head",
                                    head.token)
            lits.append(lit)
        rules.append(Rule(h, tuple(lits)))
    scm = BooleanSCM(table.names, tuple(rules), bound)
    try:
        scm.graph  # noqa: B018 - validates acyclicity at the boundary
    except InputError as error:
        raise SemanticError(error.message, lines[0][1].token) from None
    obs = _consistent_events(observed, table, "observed")
    heads = {rule.head for rule in rules}  # a root is a variable that heads no rule
    for e in observed:
        if table.index(e.name) in heads:
            raise SemanticError(f"{quote(e.name.text)} is observed but is not a root event "
                                "(it has rules)", e.name.token)
    qs = _distinct(queries, table, "queried event")
    if task == "FI":
        return FactualQuestion(scm, obs, qs)
    wi = _consistent_events(whatif, table, "intervened on")
    return CounterfactualQuestion(scm, obs, qs, wi)


# ---- transformer -----------------------------------------------------------------


class _ToObjects(PacedTransformer):
    """Tree → raw pieces; ``graph_prompt``/``scm_prompt`` resolve names into questions."""

    def name(self, items: list[Token]) -> RawName:
        return RawName(tuple(str(t) for t in items), items[0])

    def name_list(self, items: list[RawName]) -> list[RawName]:
        return list(items)

    def glued_list(self, items: list[list[RawName]]) -> list[RawName]:
        return items[0]

    def dag_sentence(self, items: list[object]) -> tuple[RawName, list[RawName]]:
        subject, objects = items
        assert isinstance(subject, RawName)
        return RawName(subject.words, subject.token, initial=True), objects  # type: ignore[return-value]

    def effect_question(self, items: list[list[RawName]]) -> tuple[list[RawName], list[RawName]]:
        return items[0], items[1]

    def intro(self, items: list[Token]) -> None:
        return None

    def cp(self, items: list[object]) -> str:
        return "CP"

    def ba(self, items: list[object]) -> str:
        return "BA"

    def graph_prompt(self, items: list[object]) -> PathsQuestion | BackdoorQuestion:
        items = [i for i in items if i is not None]
        *sentences, (causes_raw, effects_raw), task = items  # type: ignore[misc]
        return graph_question(sentences, causes_raw, effects_raw, task)  # type: ignore[arg-type]

    # -- boolean rules
    @v_args(inline=True)
    def happens(self, name: RawName) -> _Event:
        return _Event(name, True)

    @v_args(inline=True)
    def not_happen(self, name: RawName) -> _Event:
        return _Event(name, False)

    happened = happens
    not_happened = not_happen

    def conjunction(self, items: list[_Event]) -> list[_Event]:
        return list(items)

    event_list = conjunction

    @v_args(inline=True)
    def rule(self, head: RawName, body: list[_Event]) -> tuple[str, RawName, list[_Event]]:
        return "rule", head, body

    @v_args(inline=True)
    def bound(self, head: RawName) -> tuple[str, RawName, list[_Event]]:
        return "bound", head, []

    @v_args(inline=True)
    def observation(self, events: list[_Event]) -> list[_Event]:
        return events

    def query_list(self, items: list[RawName]) -> list[RawName]:
        return list(items)

    def factual(self, items: list[list[RawName]]) -> tuple[str, list[RawName], list[_Event]]:
        return "FI", (items[0] if items else []), []

    def counterfactual(self, items: list[list[object]]) -> tuple[str, list[RawName],
                                                                 list[_Event]]:
        queries = items[0] if len(items) == 2 else []
        return "CI", queries, items[-1]  # type: ignore[return-value]

    def scm_prompt(self, items: list[object]) -> FactualQuestion | CounterfactualQuestion:
        items = [i for i in items if i is not None]
        *lines, observed, (task, queries, whatif) = items  # type: ignore[misc]
        return scm_question(lines, observed, task, queries, whatif)  # type: ignore[arg-type]


_TRANSFORMER = _ToObjects()

CIBenchQuestion = PathsQuestion | BackdoorQuestion | FactualQuestion | CounterfactualQuestion


def parse_cibench(text: str, task: str | None = None) -> CIBenchQuestion:
    """Parse a CI-Bench prompt (CP, BA, FI or CI); ``task`` if given must match.

    >>> q = parse_cibench("A has a causal effect on b.\\nQuestion:\\nWe want to estimate the "
    ...                   "causal effect of thea on theb.\\nBased on the information above, "
    ...                   "please identify all the causal paths between them.")
    >>> type(q).__name__, q.graph.names, q.causes, q.effects
    ('PathsQuestion', ('a', 'b'), (0,), (1,))
    """
    question = _recognised(text)
    if question is None:
        question = parse_with_grammar(text)
    found = _task(question)
    if task is not None and task.upper() != found:
        raise ParseError(f"the text is a {found} question, not {task.upper()}",
                         what="CI-Bench question")
    return question  # type: ignore[return-value]


def parse_with_grammar(text: str) -> CIBenchQuestion:
    """The question as ``cibench.lark`` and its transformer read it: the definition that
    ``parse_cibench``'s faster reading of the generator's common case agrees with."""
    parser = load_grammar(_GRAMMAR, "prompt")
    return run_parser(parser, _TERMINAL_NAMES, text, "CI-Bench question",  # type: ignore[return-value]
                      _TRANSFORMER)


def _recognised(text: str) -> CIBenchQuestion | None:
    """The question read by ``cibench_lines`` (the generator's common case, no tree), or
    None when the grammar must read it: outside the recognised subset, or pieces that do
    not make sense (the grammar then reports where)."""
    checkpoint()
    pieces = recognise(text)
    checkpoint()
    if pieces is None:
        return None
    # A name or an event recurs in many sentences: each distinct one is made once.
    names: dict[tuple[str, ...], RawName] = {}
    initials: dict[tuple[str, ...], RawName] = {}  # a sentence's first name
    events: dict[tuple[tuple[str, ...], bool], _Event] = {}

    def raw(words: tuple[str, ...]) -> RawName:
        found = names.get(words)
        if found is None:
            found = names[words] = RawName(words, None)
        return found

    def initial(words: tuple[str, ...]) -> RawName:
        found = initials.get(words)
        if found is None:
            found = initials[words] = RawName(words, None, initial=True)
        return found

    def event(words: tuple[str, ...], value: bool) -> _Event:
        found = events.get((words, value))
        if found is None:
            found = events[(words, value)] = _Event(raw(words), value)
        return found

    try:
        if isinstance(pieces, GraphPieces):
            sentences = [(initial(subject), [raw(o) for o in objects])
                         for subject, objects in pieces.sentences]
            return graph_question(sentences, [raw(c) for c in pieces.causes],
                                  [raw(e) for e in pieces.effects], pieces.task)
        lines = [(kind, raw(head), [event(w, v) for w, v in body])
                 for kind, head, body in pieces.lines]
        return scm_question(lines, [event(w, v) for w, v in pieces.observed],
                            pieces.task, [raw(q) for q in pieces.queries],
                            [event(w, v) for w, v in pieces.whatif])
    except (SemanticError, InputError):  # the grammar reports it, with its place
        return None


_TASKS: dict[type, str] = {PathsQuestion: "CP", BackdoorQuestion: "BA", FactualQuestion: "FI",
                           CounterfactualQuestion: "CI"}


def _task(question: object) -> str:
    return _TASKS[type(question)]


_MARKERS: tuple[tuple[str, str], ...] = (
    ("identify all the causal paths", "CP"),
    ("block all backdoor paths", "BA"),
    ("would be if", "CI"),
    ("what about", "FI"),
    ("describe a causal graphical", "IE"),
)


def detect_task(text: str) -> str | None:
    """Guess the task of a prompt from its fixed phrases (CP, BA, FI, CI, IE or None).

    >>> detect_task("... please provide a set of factors that can block all backdoor paths ...")
    'BA'
    """
    low = text.casefold()
    for marker, task in _MARKERS:
        if marker in low:
            return task
    return None


