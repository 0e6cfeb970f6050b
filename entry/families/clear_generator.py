"""Procedural CLEAR graph questions whose difficulty is measured, not assumed.

CLEAR ("Can Language Models Really Understand Causal Graphs?") writes a small graph as
text and asks one question about it.  Here the graphs are drawn at random, written and
asked in CLEAR's own words, and answered by the oracle, so an endless seeded supply of
items with certified answers replaces the benchmark's 2,808 fixed ones.

The work is split by concept: ``entry.families.clear_generator_draw`` defines the graph types,
paths and colliders and draws a graph; ``entry.families.clear_generator_text`` defines the task
and question types and writes a question and its candidate subjects;
``entry.families.clear_generator_knobs`` says what an item must measure; this module asks the
oracle, labels the candidates, and searches until an item meets the knobs.

Generation
----------

``draw(knobs, rng)`` picks a task type, a question type and its wording variant
(uniformly among those the knobs allow), and whether the answer should be "Yes." or
"No." (``balanced``, YN and EX); then, at most ``MAX_DRAWS`` times, it draws a graph
of an allowed type, the nodes or path the question names and, for YN and MC, the
subject or the options, and asks the oracle through the entry layer
(``Service.answer``: the solver sees only the text).  Subjects and options are drawn
from the oracle's own answer to the matching find-all / find-one question and from
random near-misses, and every one of them is labelled by the oracle's yes/no answer;
an MC item keeps one right option and three wrong ones.  A form that
``FORM_DRAWS`` graphs could not ask gives way to another task of the same question
type (late in the search, to any form).  The answer is the
oracle's ``answer_text``, which the oracle must grade 1.0 (``CertificateRejected``
otherwise: a bug, never an item).  The item is *kept only if its measured quantities
fall inside the knobs*.

Graphs have at most ``MAX_EDGES`` edges (``EDGE_CAPS`` for the tasks whose oracle work
grows fastest), as CLEAR's do; the knobs are listed in ``entry.families.clear_generator_knobs``.

Examples
--------
>>> knobs = GraphKnobs(task_types=("2_node_relation",), question_types=("HM",),
...                    graph_types=("DAG",), min_nodes=4, max_nodes=4)
>>> from causal_oracle.entry import default
>>> item = draw(knobs, random.Random(4), default())
>>> print(item["question"])
Given a DAG (directed acyclic graph) with nodes J, U, X, L and directed edges L->J, U->J.
How many descendants does node L have?
>>> item["answer"], item["task"], item["difficulty"]["edge_density"]
('1', 'CLEAR', 0.333333)
>>> default().grade(item["item"], item["answer"], item["task"]).correct
True
>>> item == draw(knobs, random.Random(4), default())
True
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from causal_oracle.entry.families.clear_generator_draw import (
    EDGE_CAPS,
    LETTERS,
    MAX_EDGES,
    Graph,
    draw_graph,
)
from causal_oracle.entry.families.clear_generator_knobs import GraphKnobs
from causal_oracle.entry.families.clear_generator_text import (
    Candidate,
    Form,
    random_candidates,
    random_walk,
    rendered,
    walk_text,
)
from causal_oracle.entry.families.clear_wording import (
    TEMPLATES,
    WORDS,
    GraphType,
)
from causal_oracle.entry.family_records import Generator
from causal_oracle.entry.oracle_protocol import SolvingOracle as Solving
from causal_oracle.entry.registry import Options
from causal_oracle.oracle.clear.model import QType, Task
from causal_oracle.oracle.clear.tasks import item_text
from causal_oracle.oracle.errors import CertificateRejected, InputError

TASK = "CLEAR"  #: the task name ``Service.grade`` takes for every item (the family's)
MAX_DRAWS = 60  # graphs drawn for one item before the knobs are declared unsatisfiable
FORM_DRAWS = 15  # graphs drawn for one question form before another is tried
MAX_ANCHORS = 6  # nodes / node pairs / paths tried per graph
MAX_CANDIDATES = 10  # subjects labelled per YN / MC question
_FA, _FO, _HM, _YN, _MC, _EX = QType.FA, QType.FO, QType.HM, QType.YN, QType.MC, QType.EX


# the find-all / find-one question whose oracle answer seeds a task's YN subjects and options
_UNIVERSE: dict[Task, QType] = {
    Task.NODE: _FA, Task.EDGE: _FA, Task.TWO_NODE: _FA, Task.THREE_NODE: _FA, Task.PATH: _FA,
    Task.DIRECTED_PATH: _FA, Task.BACKDOOR_PATH: _FA, Task.ROOT_SET: _FA, Task.CYCLE: _FO,
    Task.TOPOLOGICAL: _FO, Task.BLOCKED_PATH: _FO, Task.D_SEPARATION: _FO,
    Task.MARKOV_BLANKET: _FO, Task.MARKOV_EQUIVALENT: _FO, Task.BACKDOOR_SET: _FO,
    Task.FRONTDOOR_SET: _FO,
}
_PAIR_TASKS = (Task.PATH, Task.DIRECTED_PATH, Task.BACKDOOR_PATH, Task.D_SEPARATION,
               Task.BACKDOOR_SET, Task.FRONTDOOR_SET, Task.IDENTIFICATION)

# ---- anchors --------------------------------------------------------------------------------
def _anchors(task: Task, graph: Graph, rng: random.Random) -> list[dict[str, str]]:
    """The nodes (``x``, ``y``) or the path (``p``) questions about ``graph`` may name."""
    nodes = list(graph.nodes)
    if task in (Task.TWO_NODE, Task.MARKOV_BLANKET):
        rng.shuffle(nodes)
        return [{"x": v} for v in nodes[:MAX_ANCHORS]]
    if task in _PAIR_TASKS:
        pairs = [(a, b) for a in nodes for b in nodes if a != b]
        rng.shuffle(pairs)
        return [{"x": a, "y": b} for a, b in pairs[:MAX_ANCHORS]]
    if task is Task.BLOCKED_PATH:
        out: list[dict[str, str]] = []
        for _ in range(MAX_ANCHORS):
            x, y = rng.sample(nodes, 2)
            walk = random_walk(graph, x, y, rng)
            if walk is not None and len(walk[1]) >= 2:
                out.append({"p": walk_text(*walk)})
        return out
    return [{}]


# ---- asking the oracle ----------------------------------------------------------------------
class _Asker:
    """One item's conversation with the oracle (text in, certified answers out)."""

    def __init__(self, service: Solving, graph: Graph) -> None:
        self.service, self.graph = service, graph
        self.description = graph.description()
        self.family = service.registry.get(TASK)

    def prompt(self, question: str) -> str:
        return self.description + "\n" + question

    def solved(self, question: str) -> tuple[Any, Any]:
        """(the oracle's reading, its checked solution) of a question about the graph."""
        return self.service.solved(self.family, self.prompt(question), Options(TASK))

    def yes(self, question: str) -> bool:
        return self.service.answer(self.prompt(question), TASK, explain=False).answer_text \
            == "Yes."

    def universe(self, form: Form, anchors: dict[str, str]) -> list[Any]:
        """The oracle's valid items for the find-all / find-one form of ``form``, sorted."""
        qtype = _UNIVERSE.get(form.task)
        if qtype is None:
            return []
        _, solution = self.solved(Form(form.task, qtype, "", form.word).text(anchors))
        if form.task is Task.ROOT_SET:
            items: Iterable[Any] = [solution.value]
        elif qtype is _FA:
            items = solution.value
        elif solution.all_valid is not None:
            items = solution.all_valid
        else:
            items = [] if solution.value is None else [solution.value]
        return sorted(items, key=item_text)

    def candidates(self, form: Form, anchors: dict[str, str], rng: random.Random
                   ) -> list[tuple[Candidate, bool]]:
        """Subjects for ``form``'s yes/no question, each labelled by the oracle."""
        universe = self.universe(form, anchors)
        chosen = rng.sample(universe, min(3, len(universe)))
        pool = [rendered(form.task, item, self.graph, rng) for item in chosen]
        pool += random_candidates(form, self.graph, anchors, universe, rng)
        unique = list({c.key: c for c in pool}.values())[:MAX_CANDIDATES]
        yn = Form(form.task, _YN, "", form.word)
        return [(c, self.yes(yn.text(anchors, c.yn))) for c in unique]


def _options(form: Form, labelled: list[tuple[Candidate, bool]], graph: Graph,
             rng: random.Random) -> list[str] | None:
    """Four options, one right (for "NOT" questions: one that is not an item)."""
    right = [c for c, ok in labelled if ok]
    wrong = [c for c, ok in labelled if not ok]
    if form.task is Task.TWO_NODE:  # as CLEAR: letters that are not nodes are wrong too
        wrong += [Candidate.of(c) for c in rng.sample(
            [c for c in LETTERS if c not in graph.nodes], 3)]
    if form.variant == "not":
        right, wrong = wrong, right
    if not right or len(wrong) < 3:
        return None
    options = [c.mc for c in rng.sample(wrong, 3)]
    options.insert(rng.randrange(4), rng.choice(right).mc)
    return options


def _measured(form: Form, solution: Any) -> int | None:
    if form.qtype is _FA:
        return len(solution.value)
    if form.qtype is _HM:
        return int(solution.value)
    if form.qtype is _FO and solution.all_valid is not None:
        return len(solution.all_valid)
    return None


def _ask(form: Form, asker: _Asker, anchors: dict[str, str], target: bool | None,
         knobs: GraphKnobs, rng: random.Random) -> dict[str, Any] | None:
    """The item for ``form`` about this graph and these anchors, or None when it misses
    the knobs (or no subject / options fit)."""
    subject, options = "", None
    if form.qtype in (_YN, _MC) and "{s}" in TEMPLATES[(form.task, _YN, "")]:
        labelled = asker.candidates(form, anchors, rng)
        if form.qtype is _YN:
            fitting = [c for c, ok in labelled if target is None or ok is target]
            if not fitting:
                return None
            subject = rng.choice(fitting).yn
        else:
            options = _options(form, labelled, asker.graph, rng)
            if options is None:
                return None
    question = form.text(anchors, subject, options or ())
    prompt = asker.prompt(question)
    answer = asker.service.answer(prompt, TASK, explain=False)
    _, solution = asker.solved(question)
    if form.qtype is _MC and len(solution.value) != 1:
        return None
    if form.qtype is _FO and solution.value is None:
        return None  # nothing to find
    label = solution.value if form.qtype in (_YN, _EX) else None
    if target is not None and label is not target:
        return None
    size = _measured(form, solution)
    if not knobs.size_ok(size):
        return None
    text = answer.answer_text
    if asker.service.grade(prompt, text, TASK).correct is not True:
        raise CertificateRejected(f"the oracle does not accept its own answer {text!r} to "
                                  f"{prompt!r}")
    graph = asker.graph
    return {
        "question": prompt, "answer": text, "item": prompt, "task": TASK,
        "task_type": form.task.value, "question_type": form.qtype.value,
        "graph_type": graph.kind.value, "description": asker.description,
        "graph_question": question, "label": label, "graph": graph.as_data(),
        "difficulty": {
            "task_type": form.task.value, "question_type": form.qtype.value,
            "variant": form.variant or form.word, "graph_type": graph.kind.value,
            "num_nodes": len(graph.nodes), "edges": graph.edges,
            "directed_edges": len(graph.directed), "bidirected_edges": len(graph.bidirected),
            "undirected_edges": len(graph.undirected),
            "edge_density": round(graph.density, 6), "answer_size": size,
            "num_options": len(options or ()), "balanced": target is not None}}


def _form(forms: dict[Task, tuple[tuple[QType, ...], tuple[GraphType, ...]]],
          rng: random.Random, qtype: QType | None = None) -> Form:
    """A question form drawn uniformly: task, then question type (``qtype`` when given),
    then wording."""
    tasks = [t for t, (qs, _) in forms.items() if qtype is None or qtype in qs]
    task = rng.choice(tasks)
    qtype = qtype or rng.choice(forms[task][0])
    variants = sorted(v for t, q, v in TEMPLATES if (t, q) == (task, qtype))
    form = Form(task, qtype, rng.choice(variants), "")
    if task in WORDS and not (task is Task.MARKOV_EQUIVALENT and qtype is _FO):
        form = form._replace(word=rng.choice(WORDS[task]))
    return form


def draw(knobs: GraphKnobs, rng: random.Random, service: Solving
         ) -> dict[str, Any]:
    """One item meeting ``knobs``, drawn with ``rng`` (deterministic in its state) and
    answered by ``service`` (the entry layer's ``Service``); ``InputError`` naming the
    knobs when ``MAX_DRAWS`` graphs gave none.

    A form that ``FORM_DRAWS`` graphs could not ask (e.g. "which is NOT an edge" of
    graphs with two edges) gives way to another task of the same question type (and,
    late, to any form), so that a few infeasible forms do not stop a dataset; the
    yes/no target of a balanced item stays.

    Returns ``{"question", "answer", "item", "task", "task_type", "question_type",
    "graph_type", "description", "graph_question", "label", "graph", "difficulty"}``:
    ``question`` (= ``item``) is the description and the question on the next line, as
    the CLEAR family builds a prompt; ``answer`` the certified answer; ``task`` the task
    name ``Service.grade`` takes ("CLEAR"); ``label`` the YN/EX answer as a bool;
    ``graph`` the drawn graph as lists; ``difficulty`` the measured quantities."""
    knobs.validate()
    forms = knobs.forms()
    form = _form(forms, rng)
    target = rng.choice((True, False)) if knobs.balanced else None
    return _search(knobs, forms, form, target, rng, service)


def probe(knobs: GraphKnobs, service: Solving) -> None:
    """``InputError`` naming the knobs when a yes/no target a balanced draw may choose (or
    any item, unbalanced) is not found (searched once each with a fixed seed): an
    infeasible combination fails when a dataset is made, not at the item that asks."""
    knobs.validate()
    forms = knobs.forms()
    for target in ((True, False) if knobs.balanced else (None,)):
        rng = random.Random(0)
        _search(knobs, forms, _form(forms, rng), target, rng, service)


def _search(knobs: GraphKnobs, forms: dict[Task, tuple[tuple[QType, ...],
                                                        tuple[GraphType, ...]]],
            form: Form, target: bool | None, rng: random.Random, service: Solving
            ) -> dict[str, Any]:
    """An item of ``form`` (or, when it cannot be asked, of forms drawn after it) whose
    yes/no answer is ``target`` (None: any); ``InputError`` after ``MAX_DRAWS`` graphs."""
    tried = [form]
    for attempt in range(MAX_DRAWS):
        if attempt and attempt % FORM_DRAWS == 0:
            keep = attempt < MAX_DRAWS // 2
            form = _form(forms, rng, form.qtype if keep else None)
            tried.append(form)
        task = form.task
        kind = rng.choice(forms[task][1])
        n = rng.randint(knobs.min_nodes, knobs.max_nodes)
        graph = draw_graph(kind, n, rng.uniform(knobs.min_density, knobs.max_density), rng)
        if graph is None or not knobs.min_density <= graph.density <= knobs.max_density \
                or graph.edges > EDGE_CAPS.get(task, MAX_EDGES):
            continue
        asker = _Asker(service, graph)
        for anchors in _anchors(task, graph, rng):
            item = _ask(form, asker, anchors, target if form.qtype in (_YN, _EX) else None,
                        knobs, rng)
            if item is not None:
                return item
    wanted = "" if target is None else f" answered {'Yes' if target else 'No'}"
    asked = ", ".join(dict.fromkeys(f"{f.task.value} {f.qtype.value}" for f in tried))
    raise InputError(f"no question ({asked}){wanted} met these knobs in {MAX_DRAWS} "
                     f"graphs: {knobs}")


#: the generator the CLEAR family offers (``Family.generators``): ``causal_graph``
GENERATOR = Generator("causal_graph", GraphKnobs, draw, probe)

__all__ = ["FORM_DRAWS", "GENERATOR", "MAX_DRAWS", "TASK", "draw", "probe"]

