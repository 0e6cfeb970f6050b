"""The CLEAR family: graph-understanding questions, answered, graded and audited.

A CLEAR prompt is the graph description followed by the question (the dataset keeps
them in ``description`` and ``question``; a model sees them one after the other).
``solve`` answers it (``oracle.clear.tasks``) and the independent checker
(``oracle.clear.check``) re-derives the result; replies are graded by validity —
any valid answer for find-one questions, the exact set or count for find-all /
how-many, each option by its validity for multiple choice; a row's gold is judged
the same way (a find-one gold that lists several answers agrees when every one of
them is valid).

Rows: ``{"description", "question", "answer", "question_type", "task_type", …}``.

    >>> from causal_oracle.entry import default
    >>> a = default().answer("Given a DAG (directed acyclic graph) with nodes A, B and "
    ...                      "directed edges A->B. Is there a directed path from A to B?")
    >>> a.task, a.answer_text
    ('CLEAR directed_path', 'Yes.')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from causal_oracle.entry.audit_record import Drawing, Facet, Picture
from causal_oracle.entry.audit_record import Outcome as Audit
from causal_oracle.entry.families.clear_notation import OPTIONS, quoted_set
from causal_oracle.entry.families.drawing import digraph
from causal_oracle.entry.registry import (
    Family,
    Generator,
    GoldJudgement,
    Item,
    Judgement,
    Options,
    Rendered,
)
from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.clear import tasks as solver
from causal_oracle.oracle.clear.model import GraphKind, MixedGraph, QType, Question, Task, Walk
from causal_oracle.oracle.errors import CertificateRejected, InputError
from causal_oracle.oracle.reasoning.facts import dag_facts
from causal_oracle.oracle.reasoning.model import Facts
from causal_oracle.parser.clear import looks_like_clear, parse_answer, parse_item
from causal_oracle.parser.replies import MAX_SPAN, Reply, prepare, too_long

TASK = "CLEAR"


# ---- formatting ---------------------------------------------------------------------
def _set_text(s: frozenset[str]) -> str:
    return quoted_set(sorted(s))


def format_item(q: Question, item: Any) -> str:
    """One canonical answer item as CLEAR writes it."""
    if isinstance(item, bool):
        return "Yes." if item else "No."
    if isinstance(item, Walk):
        return str(item)
    if isinstance(item, MixedGraph):
        return ("DAG with nodes " + ", ".join(item.nodes) + " and directed edges "
                + ", ".join(f"{a}->{b}" for a, b in sorted(item.directed)) + ".")
    if q.task is Task.THREE_NODE and isinstance(item, frozenset):
        return "(" + ", ".join(f"'{v}'" for v in sorted(item)) + ")"  # a triple, as CLEAR
    if q.task is Task.CYCLE and isinstance(item, tuple):
        return "->".join((*item, item[0]))
    if q.task is Task.EDGE and isinstance(item, tuple):
        return "".join(item)
    if isinstance(item, tuple):
        return ", ".join(item)
    if isinstance(item, frozenset):
        return _set_text(item)
    return str(item)


def format_value(q: Question, value: Any) -> str:
    """The solver's value for ``q`` as text (MC: the valid letters)."""
    if q.qtype is QType.MC:
        return ", ".join(sorted(value))
    if q.qtype in (QType.YN, QType.EX):
        return "Yes." if value else "No."
    if q.qtype is QType.HM:
        return str(value)
    if q.qtype is QType.FA and q.task not in (Task.ROOT_SET,):
        items = sorted(value, key=lambda i: format_item(q, i))
        if q.task is Task.C_COMPONENT:
            return "[" + ", ".join(_set_text(i) for i in items) + "]"
        if q.task is Task.THREE_NODE:  # a list of triples, as CLEAR's gold writes it
            return "[" + ", ".join(format_item(q, i) for i in items) + "]"
        return ", ".join(format_item(q, i) for i in items) if items else "None"
    if value is None:
        return "None"
    return format_item(q, value)


# ---- reading answers ----------------------------------------------------------------
def _candidates(reply: Reply) -> list[str]:
    """Places where the answer may be, best first (``parser.replies`` locates them):
    after the last "answer:" / "answer is:", inside the last <answer> tags, the whole
    reply, its last line."""
    out: list[str] = []
    for span in (reply.after_final, reply.tagged, str(reply), reply.last_line):
        if span is not None and span.strip() not in out:
            out.append(span.strip())
    return out


def _read(reply: Reply) -> Any:
    """The first candidate that reads (each one as written, then without a final
    period); spans over ``MAX_SPAN`` characters are not parsed."""
    last: InputError | None = None
    for cand in _candidates(reply):
        checkpoint()
        if len(cand) > MAX_SPAN:
            last = last or too_long(cand, "CLEAR answer")
            continue
        bare = cand.rstrip(".").strip()
        if bare.casefold() in ("none", "empty"):
            bare = bare.capitalize()  # "none" as "None": nothing to list or find
        for variant in dict.fromkeys((cand, bare)):
            try:
                return parse_answer(variant)
            except InputError as error:
                last = error
    raise last or InputError("empty answer")


def _option_letters(parsed: Any) -> tuple[str, ...] | None:
    """An MC reply as its option letters, sorted ("B" or "B, D", as ``format_value`` writes
    the valid ones), or None when it is not made of option letters."""
    parts = parsed if isinstance(parsed, tuple) else (parsed,)
    letters = set()
    for part in parts:
        if isinstance(part, Walk) and not part.marks and len(part.nodes) == 1:
            part = part.nodes[0]
        if not (isinstance(part, str) and part in OPTIONS):
            return None
        letters.add(part)
    return tuple(sorted(letters)) or None


_SET_TASKS = (Task.BLOCKED_PATH, Task.D_SEPARATION, Task.BACKDOOR_SET, Task.FRONTDOOR_SET,
              Task.MARKOV_BLANKET, Task.ROOT_SET)
_SHAPES = {**dict.fromkeys((*_SET_TASKS, Task.C_COMPONENT, Task.THREE_NODE), "node sets"),
           Task.NODE: "nodes", Task.TWO_NODE: "nodes", Task.EDGE: "edges (A->B)",
           Task.TOPOLOGICAL: "an order of the nodes", Task.MARKOV_EQUIVALENT: "a DAG",
           **dict.fromkeys((Task.PATH, Task.DIRECTED_PATH, Task.BACKDOOR_PATH, Task.CYCLE),
                           "paths (A->B->C)")}


def _names(value: Any) -> bool:
    """Whether ``value`` is a set or tuple of node names."""
    return isinstance(value, frozenset | tuple) and all(isinstance(v, str) for v in value)


def _node_set(q: Question, parsed: Any) -> frozenset[str] | None:
    """A set written as a list of names ("A, B") or one node, as a node set (else None;
    a lone letter that names no node is an option letter, not a set)."""
    if parsed == [] and q.task in (Task.ROOT_SET, Task.MARKOV_BLANKET):
        return frozenset()  # "None": the one answer is the empty set
    names = []
    for part in parsed if isinstance(parsed, tuple) else (parsed,):
        if isinstance(part, Walk) and not part.marks and len(part.nodes) == 1:
            names.append(part.nodes[0])
        elif isinstance(part, str) and part in q.graph.nodes:
            names.append(part)
        else:
            return None
    return frozenset(names)


def _fits(task: Task, item: Any) -> bool:
    """Whether a canonical reply item has the shape of the task's items (an answer of
    another shape is unreadable, never judged)."""
    if task in _SET_TASKS or task in (Task.C_COMPONENT, Task.THREE_NODE):
        return isinstance(item, frozenset) and _names(item)
    if task in (Task.NODE, Task.TWO_NODE):
        return isinstance(item, str)
    if task in (Task.EDGE, Task.TOPOLOGICAL):
        return isinstance(item, tuple) and _names(item)
    if task in (Task.PATH, Task.DIRECTED_PATH, Task.BACKDOOR_PATH, Task.CYCLE):
        return isinstance(item, Walk)
    if task is Task.MARKOV_EQUIVALENT:
        return isinstance(item, MixedGraph)
    return True


def interpret(q: Question, parsed: Any) -> Any:
    """A parsed answer as what the question type needs: bool, int, the option letters (MC), a set of
    canonical items (FA), or a list of candidate items (FO)."""
    qt = q.qtype
    if qt in (QType.YN, QType.EX):
        if not isinstance(parsed, bool):
            raise InputError("expected Yes or No")
        return parsed
    if qt is QType.HM:
        if isinstance(parsed, bool) or not isinstance(parsed, int):
            raise InputError("expected a count")
        return parsed
    if qt is QType.MC:
        letters = _option_letters(parsed)
        if letters is None:
            raise InputError("expected an option letter (or letters: \"B, D\")")
        return letters
    if (isinstance(parsed, Walk) and not parsed.marks and parsed.nodes[0] in ("None", "Empty")
            and parsed.nodes[0] not in q.graph.nodes):
        parsed = []  # "None": nothing to list
    nodes = _node_set(q, parsed) if q.task in _SET_TASKS else None
    if nodes is not None:
        parsed = nodes  # "A, B" or a lone "A": a node set
    if q.task is Task.TOPOLOGICAL and isinstance(parsed, tuple) and all(
            isinstance(w, Walk) and not w.marks for w in parsed):
        return [tuple(w.nodes[0] for w in parsed)]
    if isinstance(parsed, str) and parsed in q.graph.nodes:
        parsed = Walk((parsed,), ())  # a lone A-D reads as an option letter: here a node
    if isinstance(parsed, bool | int | str):
        raise InputError("expected a set, a list or a path")
    if q.task in (Task.ROOT_SET, Task.MARKOV_BLANKET) or (
            qt is QType.FO and isinstance(parsed, frozenset | Walk | MixedGraph)) or (
            q.task is Task.C_COMPONENT and _names(parsed)):
        items = [parsed]  # one set (a lone district too)
    elif (isinstance(parsed, frozenset) and qt is QType.FA) or isinstance(parsed, list | tuple):
        items = list(parsed)
    else:
        items = [parsed]
    canon = [solver.canonical(q, i) for i in items]
    for item in canon:
        if not _fits(q.task, item):
            raise InputError(f"expected {_SHAPES.get(q.task, 'an answer of this task')}, "
                             f"not {type(item).__name__} {str(item)[:80]!r}")
    if qt is QType.FA:
        if q.task is Task.ROOT_SET:
            return canon[0]
        return frozenset(canon)
    return canon


def _candidate_valid(q: Question, item: Any) -> bool:
    from causal_oracle.oracle.clear import check as check_clear  # networkx: on first use

    mine = solver.item_valid(q, item)
    theirs = check_clear.valid(q, item)
    if mine != theirs:
        raise CertificateRejected(f"solver and checker disagree on {format_item(q, item)}")
    return mine


# ---- the family ---------------------------------------------------------------------
class Clear(Family[Question, solver.Solution]):
    """CLEAR graph questions (DESIGN.md §3.5)."""

    name = "clear"
    tasks = (TASK,)

    def detect(self, text: str) -> bool:
        return looks_like_clear(text)

    def generators(self) -> tuple[Generator, ...]:
        from causal_oracle.entry.families.clear_generator import GENERATOR  # on first use
        return (GENERATOR,)

    def parse(self, text: str, options: Options) -> Question:
        return parse_item(text)

    def task_of(self, question: Question) -> str:
        return f"{TASK} {question.task.value}"

    def solve(self, question: Question) -> solver.Solution:
        return solver.solve(question)

    def check(self, question: Question, solution: solver.Solution) -> solver.Solution:
        from causal_oracle.oracle.clear import check as check_clear  # networkx: on first use

        ok, why = check_clear.check(question, solution.value)
        if not ok:
            raise CertificateRejected(f"the checker rejected the answer: {why}")
        return solution

    def render(self, question: Question, solution: solver.Solution) -> Rendered:
        text = format_value(question, solution.value)
        return Rendered(text, text)

    def explain(self, question: Question, solution: solver.Solution) -> str:
        why = f"{question.task.value} / {question.qtype.value}: {solution.reason}"
        if question.qtype is QType.FO and solution.all_valid is not None:
            shown = sorted((format_item(question, i) for i in solution.all_valid),
                           key=lambda t: (len(t), t))
            more = f" and {len(shown) - 5} more" if len(shown) > 5 else ""
            why += f" ({'; '.join(shown[:5])}{more}); any of them is accepted"
        return why

    def dot(self, question: Question, solution: solver.Solution) -> str | None:
        g = question.graph
        value = solution.value  # node answers (a set of nodes, one node) are marked too
        found = {v for v in value if v in g.nodes} if isinstance(value, frozenset | set) \
            else {value} if isinstance(value, str) and value in g.nodes else set()
        return digraph("clear", g.nodes, sorted(g.directed),
                       bidirected=sorted(tuple(sorted(e)) for e in g.bidirected),
                       undirected=sorted(tuple(sorted(e)) for e in g.undirected),
                       marked_nodes=set(question.names) | found,
                       title=f"{question.task.value}: {format_value(question, solution.value)}")

    def reasoning_facts(self, question: Question, solution: solver.Solution) -> Facts:
        """A DAG's structure (other kinds of graph: its names and answer only), with a
        yes/no question's answer and the named treatment and outcome as the query."""
        g = question.graph
        answer = solution.value if question.qtype is QType.YN and \
            isinstance(solution.value, bool) else None
        if g.kind is not GraphKind.DAG:
            return Facts(g.nodes, no_graph=f"a CLEAR {g.kind.value}: structural claims are "
                                           "checked in DAGs only", answer=answer)
        index = {v: i for i, v in enumerate(g.nodes)}
        pair = [index[v] for v in question.names if v in index][:2]
        return dag_facts(g.nodes, ((index[a], index[b]) for a, b in g.directed),
                         query=(pair[0], pair[1]) if len(pair) == 2 else None, answer=answer)

    def read_reply(self, question: Question, text: str) -> Any:
        return interpret(question, _read(prepare(text)))

    def judge(self, question: Question, solution: solver.Solution, claim: Any) -> Judgement:
        correct, reason = _judge(question, solution, claim)
        if question.qtype is QType.MC:
            shown = ", ".join(claim)
        elif question.qtype is QType.FO:
            shown = "; ".join(format_item(question, c) for c in claim) or "None"
        else:
            shown = format_value(question, claim)
        return Judgement(correct, shown, reason)

    def row(self, raw: Mapping[str, Any]) -> Item | None:
        if not ("task_type" in raw and "description" in raw and "question" in raw):
            return None
        prompt = str(raw["description"]).strip() + "\n" + str(raw["question"]).strip()
        key = f"{raw.get('uid')}:{raw.get('sid')}"
        return Item(self.name, TASK, prompt, raw.get("answer"), None, key, raw)

    def judge_gold(self, question: Question, solution: solver.Solution, item: Item
                   ) -> GoldJudgement:
        raw, gold = item.raw, item.gold
        if gold is None:
            raise InputError("the row has no answer")
        parsed = ([parse_answer(str(a)) for a in gold] if isinstance(gold, list)
                  else parse_answer(str(gold)))
        agree, reason = _judge(question, solution, interpret(question, parsed))
        if question.task.value != raw.get("task_type") or \
                question.qtype.value != raw.get("question_type"):
            reason = (f"question reads as {question.task.value}/{question.qtype.value}, row "
                      f"says {raw.get('task_type')}/{raw.get('question_type')}")
        elif not agree:
            reason = f"{reason}; oracle: {solution.reason}"
        return GoldJudgement(agree, gold, format_value(question, solution.value),
                             ambiguous=question.qtype is QType.MC and len(solution.value) > 1,
                             reason=reason)

    # -- audit records
    facets: ClassVar[tuple[Facet, ...]] = (Facet("task", "by_task"), Facet("task type"),
                                           Facet("graph type"), Facet("question type"))
    outcome_words: ClassVar[Mapping[Audit, str]] = {
        Audit.AMBIGUOUS: "several options are valid (a multiple-choice question): the "
                         "gold's choice depends on a reading",
    }

    def audit_fields(self, service: Any, item: Item, profile: Any, verifier: Any = None
                     ) -> dict[str, Any]:
        """The generic task record, named "CLEAR task/type" as the row says, with the
        row's ``uid:sid`` as its id and the row's task, graph and question types."""
        out: dict[str, Any] = service.task_record(item, profile)
        raw = item.raw
        out.update(task=f"{TASK} {raw.get('task_type')}/{raw.get('question_type')}",
                   id=item.key, task_type=str(raw.get("task_type")),
                   graph_type=str(raw.get("graph_type")),
                   question_type=str(raw.get("question_type")))
        out.setdefault("ambiguous", False)
        out.setdefault("reason", None)
        return out

    def facet_values(self, fields: Mapping[str, Any]) -> dict[str, str]:
        return {"task": str(fields["task"]), "task type": fields["task_type"],
                "graph type": fields["graph_type"], "question type": fields["question_type"]}

    def audit_drawing(self, service: Any, item: Item, fields: Mapping[str, Any],
                      profile: Any = None) -> Drawing:
        """The graph, with the path (red) or the set (marked) that decides the answer."""
        question, solution = service.solved(self, item.prompt, Options(TASK))
        with service.scope():
            explanation = self.explain(question, solution)
        return Drawing((clear_picture(question, solution.value),), explanation=explanation)


def clear_picture(q: Question, value: Any) -> Picture:
    """``q``'s graph with ``value`` highlighted: a walk's edges, a set's nodes (else the
    nodes the question names)."""
    g = q.graph
    highlight: tuple[tuple[str, str], ...] = ()
    marked: tuple[str, ...] = q.names
    if isinstance(value, Walk):
        highlight = tuple(zip(value.nodes, value.nodes[1:], strict=False))
    elif isinstance(value, frozenset | set) and all(isinstance(v, str) for v in value):
        marked = tuple(sorted(value))
    return Picture(f"the graph ({g.kind.value})", g.nodes, tuple(sorted(g.directed)),
                   tuple(tuple(sorted(e)) for e in sorted(g.undirected, key=sorted)),
                   tuple(tuple(sorted(e)) for e in sorted(g.bidirected, key=sorted)),
                   highlight, marked)  # type: ignore[arg-type]


def _judge(q: Question, sol: solver.Solution, got: Any) -> tuple[bool, str]:
    qt = q.qtype
    if qt is QType.MC:  # each option named by its validity
        invalid = [letter for letter in got if letter not in sol.value]
        if not invalid:
            return True, f"option{'s' if len(got) > 1 else ''} {', '.join(got)} valid"
        return False, f"option {invalid[0]} is not valid"
    if qt is QType.FO:
        if not got:  # "None": right only when nothing is valid
            if sol.value is None:
                return True, "no answer is valid"
            return False, f"none given, but e.g. {format_item(q, sol.value)} is valid"
        bad = [c for c in got if not _candidate_valid(q, c)]
        if bad:
            return False, (f"{format_item(q, bad[0])} is not a valid answer: "
                           f"{solver.why_invalid(q, bad[0])}")
        return True, "every answer given is valid"
    if qt is QType.FA:
        expected = sol.value
        if q.task is not Task.ROOT_SET:
            expected = frozenset(expected)
        missing = len(expected - got) if isinstance(got, frozenset) and q.task is not (
            Task.ROOT_SET) else 0
        ok = got == expected
        return ok, "exact set" if ok else f"not the exact set ({missing} missing)"
    return got == sol.value, "matches" if got == sol.value else "differs"


FAMILY = Clear()

__all__ = ["FAMILY", "Clear", "format_item", "format_value", "interpret", "quoted_set"]
