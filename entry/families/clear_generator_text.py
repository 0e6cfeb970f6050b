"""Writing a procedural CLEAR question, and the subjects a yes/no or multiple-choice one asks about.

- A "task type" is one of CLEAR's twenty questions about a graph (``TASK_TYPES``:
  nodes, edges, 2-node relations, 3-node structures, paths, directed paths, cycles,
  topological orders, blocked paths, d-separation, Markov blankets, Markov
  equivalence, backdoor paths, backdoor and frontdoor adjustment sets, c-components,
  c-trees, c-forests, maximal root sets, identification).  A "question type" is how it
  is asked: FA find all, FO find one (any valid answer is right), HM how many, YN yes
  or no, MC multiple choice (four options, exactly one right), EX existence.
  ``clear_wording.SUPPORT`` lists, per task type, its question types and graph types
  (``clear_wording.TEMPLATES`` the text of each form): every form the
  project's CLEAR parser reads, on the graph types CLEAR asks it of (C-components,
  C-forests and C-trees are ADMGs, so they take the ADMG tasks too; ``d-separation``
  is m-separation on them).

A ``Form`` is the question asked (task, question type, wording variant, words such as
the relation) and writes it from ``clear_wording.TEMPLATES``.  A ``Candidate`` is a
subject as a yes/no question writes it, as a multiple-choice option, and what it denotes
(two spellings of one set or one edge are one candidate).  ``rendered`` writes an item
of the oracle's own answer as a candidate; ``random_candidates`` draws near-misses —
random walks with a mark flipped, random node sets, edges the graph lacks, orders with
two nodes swapped — so that the options are not all right; the oracle labels each one.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from causal_oracle.entry.families.clear_generator_draw import LETTERS, Edge, Graph
from causal_oracle.entry.families.clear_notation import OPTIONS, quoted_set
from causal_oracle.entry.families.clear_wording import (
    ADMGS,
    TEMPLATES,
    GraphType,
)
from causal_oracle.oracle.clear.graph import is_acyclic
from causal_oracle.oracle.clear.model import GraphKind, MixedGraph, QType, Task, Walk

_SET_TASKS = (Task.BLOCKED_PATH, Task.D_SEPARATION, Task.MARKOV_BLANKET, Task.BACKDOOR_SET,
              Task.FRONTDOOR_SET, Task.ROOT_SET)
_WALK_TASKS = (Task.PATH, Task.DIRECTED_PATH, Task.BACKDOOR_PATH)


# ---- text ---------------------------------------------------------------------------------
class Form(NamedTuple):
    """The question asked: task, question type, wording variant, words (relation, …)."""

    task: Task
    qtype: QType
    variant: str = ""
    word: str = ""

    def text(self, anchors: dict[str, str], subject: str = "",
             options: Sequence[str] = ()) -> str:
        template = TEMPLATES[(self.task, self.qtype, self.variant)]
        out = template.format(w=self.word, s=subject, **anchors)
        return out + "".join(f"\n{letter}. {o}" for letter, o in zip(OPTIONS, options,
                                                                       strict=False))


class Candidate(NamedTuple):
    """A subject as a yes/no question writes it, as a multiple-choice option, and what
    it denotes (``{'A', 'B'}`` and ``{'B', 'A'}`` are one set, ``A<->B`` and ``B<->A``
    one edge: options differ in ``key``)."""

    yn: str
    mc: str
    key: str = ""

    @classmethod
    def of(cls, text: str, key: str = "") -> Candidate:
        return cls(text, text, key or text)


def walk_text(nodes: Sequence[str], marks: Sequence[str]) -> str:
    out = [nodes[0]]
    for mark, node in zip(marks, nodes[1:], strict=True):
        out += [mark, node]
    return "".join(out)


def _dag_text(nodes: Sequence[str], edges: Sequence[Edge]) -> str:
    return f"nodes {', '.join(nodes)} and directed edges " + ", ".join(
        f"{a}->{b}" for a, b in edges)


def _set_candidate(task: Task, members: Iterable[str], rng: random.Random) -> Candidate:
    names = sorted(members)
    key = "set:" + ",".join(names)
    rng.shuffle(names)
    if task is Task.THREE_NODE:
        return Candidate("{" + ", ".join(names) + "}",
                         "(" + ", ".join(f"'{v}'" for v in names) + ")", key)
    return Candidate.of(quoted_set(names), key)


def _edge_candidate(a: str, mark: str, b: str) -> Candidate:
    return Candidate.of(f"{a}{mark}{b}", "".join((*sorted((a, b)), mark)) if mark in (
        "<->", "-") else "")


def rendered(task: Task, item: Any, graph: Graph, rng: random.Random) -> Candidate:
    """An oracle answer item as a subject."""
    if isinstance(item, Walk):
        text = str(item)
    elif isinstance(item, MixedGraph):
        edges = sorted(item.directed)
        key = str(edges)
        rng.shuffle(edges)
        return Candidate.of(_dag_text(graph.nodes, edges), key)
    elif isinstance(item, frozenset):
        return _set_candidate(task, item, rng)
    elif task is Task.EDGE:
        a, mark, b = item
        if mark != "->" and rng.random() < 0.5:
            a, b = b, a
        return _edge_candidate(a, mark, b)
    elif task is Task.CYCLE:
        text = "->".join((*item, item[0]))
    elif task is Task.TOPOLOGICAL:
        text = ", ".join(item)
    else:
        text = str(item)
    return Candidate.of(text)


# ---- random subjects ----------------------------------------------------------------------
def random_walk(graph: Graph, x: str, y: str | None, rng: random.Random, *,
                first: tuple[str, ...] = (), only: tuple[str, ...] = ()
                ) -> tuple[list[str], list[str]] | None:
    """A self-avoiding walk along the graph's edges from ``x`` to ``y`` (``y`` None: back
    to ``x``, a closed walk), first step's mark among ``first`` and every mark among
    ``only`` when given; None when it gets stuck."""
    nodes, marks = [x], []
    for _ in range(len(graph.nodes)):
        steps = [(m, w) for m, w in graph.steps(nodes[-1])
                 if (w not in nodes or (y is None and w == x and len(nodes) >= 2))
                 and (not only or m in only) and (marks or not first or m in first)]
        if not steps:
            return None
        mark, node = rng.choice(sorted(steps))
        nodes.append(node)
        marks.append(mark)
        if node == (x if y is None else y):
            return nodes, marks
    return None


def _marks_of(graph: Graph) -> tuple[str, ...]:
    if graph.kind is GraphType.UG:
        return ("-", "->")
    if graph.kind in ADMGS:
        return ("->", "<-", "<->")
    return ("->", "<-")


def _perturbed(nodes: list[str], marks: list[str], graph: Graph, rng: random.Random) -> str:
    """The walk with one mark changed."""
    i = rng.randrange(len(marks))
    others = [m for m in _marks_of(graph) if m != marks[i]]
    changed = [*marks[:i], rng.choice(others), *marks[i + 1:]]
    return walk_text(nodes, changed)


def random_candidates(form: Form, graph: Graph, anchors: dict[str, str],
                      universe: list[Any], rng: random.Random) -> list[Candidate]:
    """Random subjects of the question's kind, and near-misses of the oracle's answers."""
    task, nodes = form.task, list(graph.nodes)
    out: list[Candidate] = []
    if task is Task.NODE:
        outsiders = [c for c in LETTERS if c not in graph.nodes]
        out += [Candidate.of(v) for v in rng.sample(outsiders, 4) + rng.sample(nodes, 2)]
    elif task is Task.EDGE:
        marks = ("->", "<->") if graph.kind is not GraphType.UG else ("-", "->")
        for _ in range(6):
            a, b = rng.sample(nodes, 2)
            out.append(_edge_candidate(a, rng.choice(marks), b))
    elif task is Task.TWO_NODE:
        out += [Candidate.of(v) for v in nodes if v != anchors["x"]]
    elif task is Task.THREE_NODE:
        out += [_set_candidate(task, rng.sample(nodes, 3), rng) for _ in range(6)]
    elif task in _WALK_TASKS or task is Task.CYCLE:
        x, y = (anchors["x"], anchors["y"]) if task in _WALK_TASKS else (rng.choice(nodes), None)
        for _ in range(6):
            restrict = rng.random() < 0.5
            walk = random_walk(
                graph, x, y, rng, only=("->",) if restrict and task in (
                    Task.DIRECTED_PATH, Task.CYCLE) else (),
                first=("<-", "<->") if restrict and task is Task.BACKDOOR_PATH else ())
            if walk is not None:
                out.append(Candidate.of(walk_text(*walk)))
                if len(walk[1]) > 1 or task is not Task.CYCLE:
                    out.append(Candidate.of(_perturbed(*walk, graph, rng)))
    elif task is Task.TOPOLOGICAL:
        for _ in range(4):
            order = nodes[:]
            rng.shuffle(order)
            out.append(Candidate.of(", ".join(order)))
        for item in universe:
            for _ in range(3):
                order = list(item)
                i = rng.randrange(len(order) - 1)
                order[i], order[i + 1] = order[i + 1], order[i]
                out.append(Candidate.of(", ".join(order)))
    elif task in _SET_TASKS:
        ends = {anchors.get("x"), anchors.get("y")}
        if "p" in anchors:
            ends |= {anchors["p"][0], anchors["p"][-1]}
        pool = [v for v in nodes if v not in ends]
        low = 1 if task is Task.ROOT_SET else 0
        for _ in range(5):
            k = rng.randint(low, min(3, len(pool)))
            out.append(_set_candidate(task, rng.sample(pool, k), rng))
        for item in universe[:3]:
            assert isinstance(item, frozenset)
            outside = sorted(set(pool) - item)
            if outside:
                out.append(_set_candidate(task, item | {rng.choice(outside)}, rng))
            if len(item) > low:
                out.append(_set_candidate(task, item - {rng.choice(sorted(item))}, rng))
    elif task is Task.MARKOV_EQUIVALENT:
        edges = list(graph.directed)
        out.append(Candidate.of(_dag_text(nodes, edges), str(sorted(edges))))
        for _ in range(5):
            changed = edges[:]
            for _ in range(rng.randint(1, 2)):
                i = rng.randrange(len(changed))
                changed[i] = changed[i][::-1]
            if is_acyclic(MixedGraph.build(GraphKind.DAG, nodes, directed=changed)):
                out.append(Candidate.of(_dag_text(nodes, changed), str(sorted(changed))))
    return out

