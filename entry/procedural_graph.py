"""Procedural CLEAR graph questions whose difficulty is measured, not assumed.

CLEAR ("Can Language Models Really Understand Causal Graphs?") writes a small graph as
text and asks one question about it.  Here the graphs are drawn at random, written and
asked in CLEAR's own words, and answered by the oracle, so an endless seeded supply of
items with certified answers replaces the benchmark's 2,808 fixed ones.

Graphs and questions
--------------------

- A "graph type" is how a graph is drawn and written, with CLEAR's names: ``DAG`` (a
  directed acyclic graph, ``A->B``), ``ADMG`` (an acyclic directed mixed graph: a DAG
  plus bidirected edges ``A<->B``, each standing for a hidden common cause),
  ``C-component`` (an ADMG whose bidirected edges join every node: one district),
  ``C-forest`` (a C-component in which every node has at most one child),
  ``C-tree`` (a C-forest with a single childless node), ``DG`` (a directed graph that
  may have cycles) and ``UG`` (an undirected graph, ``A-B``).  Node names are single
  capital letters drawn at random, listed and joined in random order, as CLEAR does.
- A "path" is a sequence of distinct nodes in which every step names one edge with its
  mark (``->``, ``<-``, ``<->``, ``-``); a "directed path" steps only along ``->``; a
  "backdoor path" from ``x`` starts with an arrowhead at ``x`` (``x<-…``, ``x<->…``).
- A node on a path is a "collider" when both of its edges point into it.  A node set
  ``z`` "blocks" a path when it holds a non-collider of the path, or when some collider
  has neither itself nor a descendant in ``z``; ``x`` and ``y`` are "d-separated" by
  ``z`` when ``z`` blocks every path between them (m-separation on ADMGs).
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
Graphs have at most ``MAX_EDGES`` edges (``EDGE_CAPS`` for the tasks whose oracle
work grows fastest), as CLEAR's do:

==========================  ===============================================================
knob                        measured as
==========================  ===============================================================
``task_types``              the task asked (``Task`` values), drawn uniformly among those
                            the other knobs allow
``question_types``          FA, FO, HM, YN, MC, EX (``QType`` values), drawn uniformly
                            among those the task has; then the wording variant
                            ("shortest", "NOT", "minimal", the relation, …) uniformly
``graph_types``             the graph type drawn (``GraphType``), uniformly per graph
``min/max_nodes``           the number of nodes of the graph
``min/max_density``         adjacent node pairs / (n (n − 1) / 2) of the drawn graph (a
                            pair joined by two edges, ``A->B`` and ``A<->B``, counts once)
``min/max_answer_size``     FA: the number of items in the oracle's answer (the nodes of
                            the root set; the districts of a partition); HM: the count;
                            FO: the number of valid answers.  YN, EX and MC items, and FO
                            topological orders (the oracle gives one order, not a count),
                            have none (``None``) and are not constrained by it
``balanced``                YN/EX: "Yes." or "No." is drawn first, then an item searched
                            to match
==========================  ===============================================================

Examples
--------
>>> knobs = GraphKnobs(task_types=("2_node_relation",), question_types=("HM",),
...                    graph_types=("DAG",), min_nodes=4, max_nodes=4)
>>> item = draw(knobs, random.Random(4))
>>> print(item["question"])
Given a DAG (directed acyclic graph) with nodes J, U, X, L and directed edges L->J, U->J.
How many descendants does node L have?
>>> item["answer"], item["task"], item["difficulty"]["edge_density"]
('1', 'CLEAR', 0.333333)
>>> from causal_oracle.entry import default
>>> default().grade(item["item"], item["answer"], item["task"]).correct
True
>>> item == draw(knobs, random.Random(4))
True
"""

from __future__ import annotations

import enum
import math
import random
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from causal_oracle.entry.clear_wording import (
    ADMGS,
    GRAPH_TYPES,
    QUESTION_TYPES,
    SUPPORT,
    TASK_TYPES,
    TEMPLATES,
    WORDS,
    GraphType,
)
from causal_oracle.entry.families.clear import OPTIONS, quoted_set
from causal_oracle.entry.registry import Options
from causal_oracle.entry.service import Service, default
from causal_oracle.oracle.clear.graph import is_acyclic
from causal_oracle.oracle.clear.model import GraphKind, MixedGraph, QType, Task, Walk
from causal_oracle.oracle.clear.tasks import item_text
from causal_oracle.oracle.errors import CertificateRejected, InputError

TASK = "CLEAR"  #: the task name ``Service.grade`` takes for every item (the family's)
MAX_DRAWS = 60  # graphs drawn for one item before the knobs are declared unsatisfiable
FORM_DRAWS = 15  # graphs drawn for one question form before another is tried
MAX_ANCHORS = 6  # nodes / node pairs / paths tried per graph
MAX_CANDIDATES = 10  # subjects labelled per YN / MC question
MAX_NODES = 9  # CLEAR's graphs have 4 to 9 nodes
MAX_EDGES = 20  # and at most 20 edges: the oracle's checker lists paths and node sets
#: tighter caps where the oracle's work grows fastest (Markov equivalence: 2^edges
#: orientations; adjustment sets: every node set, path by path)
EDGE_CAPS: dict[Task, int] = {Task.MARKOV_EQUIVALENT: 12, Task.BACKDOOR_SET: 16,
                              Task.FRONTDOOR_SET: 16}
LETTERS = string.ascii_uppercase
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
_SET_TASKS = (Task.BLOCKED_PATH, Task.D_SEPARATION, Task.MARKOV_BLANKET, Task.BACKDOOR_SET,
              Task.FRONTDOOR_SET, Task.ROOT_SET)
_WALK_TASKS = (Task.PATH, Task.DIRECTED_PATH, Task.BACKDOOR_PATH)


# ---- knobs ----------------------------------------------------------------------------------
def _members(values: Iterable[Any], kind: type[enum.Enum], what: str,
             choices: Sequence[str]) -> tuple[Any, ...]:
    """``values`` (enum members or their values; one bare value too) as members of
    ``kind``; ``InputError`` naming the choices for an unknown or empty one."""
    out: list[Any] = []
    knob = what.replace(" ", "_") + "s"  # the knob's name: task_types, question_types, …
    for value in (values,) if isinstance(values, str | kind) else values:
        try:
            out.append(value if isinstance(value, kind) else kind(value))
        except ValueError:
            raise InputError(f"{knob}: unknown {what} {value!r}; expected some of "
                             f"{', '.join(choices)}") from None
    if not out:
        raise InputError(f"{knob} must not be empty; choose among {', '.join(choices)}")
    return tuple(dict.fromkeys(out))


@dataclass
class GraphKnobs:
    """What an item must measure (see the module docstring); a dataset's config extends
    it (``environments.graph``).  Types are given by their values (``"2_node_relation"``,
    ``"YN"``, ``"ADMG"``) or as ``Task`` / ``QType`` / ``GraphType`` members."""

    task_types: tuple[str, ...] = TASK_TYPES
    question_types: tuple[str, ...] = QUESTION_TYPES
    graph_types: tuple[str, ...] = GRAPH_TYPES
    min_nodes: int = 4
    max_nodes: int = 6
    min_density: float = 0.0
    max_density: float = 1.0
    min_answer_size: int = 0
    max_answer_size: int | None = None  # None: no cap
    balanced: bool = False

    def tasks(self) -> tuple[Task, ...]:
        return _members(self.task_types, Task, "task type", TASK_TYPES)

    def qtypes(self) -> tuple[QType, ...]:
        return _members(self.question_types, QType, "question type", QUESTION_TYPES)

    def gtypes(self) -> tuple[GraphType, ...]:
        return _members(self.graph_types, GraphType, "graph type", GRAPH_TYPES)

    def min_edges(self) -> int:
        """The fewest edges a graph meeting the node and density knobs has."""
        pairs = self.min_nodes * (self.min_nodes - 1) // 2
        return math.ceil(self.min_density * pairs - 1e-9)

    def forms(self, capped: bool = True
              ) -> dict[Task, tuple[tuple[QType, ...], tuple[GraphType, ...]]]:
        """Per task type the knobs allow: its allowed question types and graph types (only
        tasks with at least one of each and, when ``capped``, whose edge cap
        (``EDGE_CAPS``, else ``MAX_EDGES``) the density knobs leave room for)."""
        qtypes, gtypes = self.qtypes(), self.gtypes()
        out = {}
        for task in self.tasks():
            if capped and self.min_edges() > EDGE_CAPS.get(task, MAX_EDGES):
                continue
            qs, gs = SUPPORT[task]
            q_ok = tuple(q for q in qs if q in qtypes)
            g_ok = tuple(g for g in gs if g in gtypes)
            if q_ok and g_ok:
                out[task] = (q_ok, g_ok)
        return out

    def validate(self) -> None:
        """``InputError`` for knobs no item can meet, naming the choices."""
        if not 3 <= self.min_nodes <= self.max_nodes <= MAX_NODES:
            raise InputError(f"need 3 <= min_nodes <= max_nodes <= {MAX_NODES}")
        if not 0.0 <= self.min_density <= self.max_density <= 1.0:
            raise InputError("need 0 <= min_density <= max_density <= 1")
        if self.min_answer_size < 0 or (self.max_answer_size is not None
                                        and self.max_answer_size < self.min_answer_size):
            raise InputError("need 0 <= min_answer_size <= max_answer_size (None: no cap)")
        if not self.forms(capped=False):
            pairs = "; ".join(f"{t.value}: {', '.join(q.value for q in qs)} on "
                              f"{', '.join(g.value for g in gs)}"
                              for t, (qs, gs) in SUPPORT.items() if t in self.tasks())
            raise InputError("no task type among task_types is asked with these "
                             f"question_types on these graph_types; supported: {pairs}")
        if not self.forms():
            caps = ", ".join(f"{t.value} {c}" for t, c in EDGE_CAPS.items())
            raise InputError(f"min_density {self.min_density} on min_nodes {self.min_nodes} "
                             f"needs at least {self.min_edges()} edges; the task types' caps "
                             f"are {MAX_EDGES} edges ({caps})")

    def size_ok(self, size: int | None) -> bool:
        """Whether a measured answer size (None: not measured) is inside the band."""
        return size is None or (self.min_answer_size <= size and (
            self.max_answer_size is None or size <= self.max_answer_size))


# ---- graphs -------------------------------------------------------------------------------
Edge = tuple[str, str]


@dataclass(frozen=True)
class Graph:
    """A drawn graph: nodes and edges in the order the description lists them."""

    kind: GraphType
    nodes: tuple[str, ...]
    directed: tuple[Edge, ...] = ()
    bidirected: tuple[Edge, ...] = ()
    undirected: tuple[Edge, ...] = ()

    @property
    def edges(self) -> int:
        return len(self.directed) + len(self.bidirected) + len(self.undirected)

    @property
    def density(self) -> float:
        """Adjacent node pairs / all node pairs."""
        pairs = {frozenset(e) for e in (*self.directed, *self.bidirected, *self.undirected)}
        n = len(self.nodes)
        return len(pairs) / (n * (n - 1) / 2)

    def steps(self, v: str) -> list[tuple[str, str]]:
        """The edges at ``v`` as a walk writes them: (mark, other end)."""
        out = [("->", b) for a, b in self.directed if a == v]
        out += [("<-", a) for a, b in self.directed if b == v]
        out += [("<->", b if a == v else a) for a, b in self.bidirected if v in (a, b)]
        out += [("-", b if a == v else a) for a, b in self.undirected if v in (a, b)]
        return out

    def description(self) -> str:
        """The graph as CLEAR writes it."""
        nodes = ", ".join(self.nodes)

        def joined(edges: Sequence[Edge], mark: str) -> str:
            return ", ".join(f"{a}{mark}{b}" for a, b in edges)

        if self.kind is GraphType.DAG:
            return (f"Given a DAG (directed acyclic graph) with nodes {nodes} and directed "
                    f"edges {joined(self.directed, '->')}.")
        if self.kind is GraphType.DG:
            return f"Given a directed graph with nodes {nodes} and directed edges " \
                   f"{joined(self.directed, '->')}."
        if self.kind is GraphType.UG:
            return f"Given a undirected graph with nodes {nodes} and undirected edges " \
                   f"{joined(self.undirected, '-')}."
        return (f"Given an ADMG (acyclic directed mixed graph) with nodes {nodes}, directed "
                f"edges {joined(self.directed, '->')} and bi-directed edges "
                f"{joined(self.bidirected, '<->')}.")

    def as_data(self) -> dict[str, Any]:
        return {"type": self.kind.value, "nodes": list(self.nodes),
                "directed": [list(e) for e in self.directed],
                "bidirected": [list(e) for e in self.bidirected],
                "undirected": [list(e) for e in self.undirected]}


def _spanning_pairs(names: list[str], rng: random.Random) -> list[Edge]:
    """A random spanning tree's edges over ``names`` (each joins a node to an earlier one)."""
    spread = names[:]
    rng.shuffle(spread)
    return [(spread[k], rng.choice(spread[:k])) for k in range(1, len(spread))]


def draw_graph(kind: GraphType, n: int, density: float, rng: random.Random) -> Graph | None:
    """A random graph of ``kind`` on ``n`` random letters, each pair joined with probability
    about ``density``; None when it lacks an edge kind its description needs."""
    names = rng.sample(LETTERS, n)
    order = names[:]  # the topological order of the acyclic kinds
    rng.shuffle(order)
    pairs = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n)]
    directed: list[Edge] = []
    bidirected: list[Edge] = []
    undirected: list[Edge] = []
    if kind is GraphType.DAG:
        directed = [p for p in pairs if rng.random() < density]
    elif kind is GraphType.ADMG:
        for a, b in pairs:
            if rng.random() < density:
                r = rng.random()
                if r < 0.9:
                    (directed if r < 0.6 else bidirected).append((a, b))
                else:
                    directed.append((a, b))
                    bidirected.append((a, b))
    elif kind is GraphType.DG:
        for a, b in pairs:
            if rng.random() < density:
                r = rng.random()
                directed += [(a, b)] if r < 0.4 else [(b, a)] if r < 0.8 else [(a, b), (b, a)]
    elif kind is GraphType.UG:
        undirected = [p for p in pairs if rng.random() < density]
    else:  # one district: a spanning tree of bidirected edges, and a few more
        bidirected = _spanning_pairs(names, rng)
        joined = {frozenset(e) for e in bidirected}
        bidirected += [p for p in pairs
                       if frozenset(p) not in joined and rng.random() < density / 2]
        if kind is GraphType.C_COMPONENT:
            directed = [p for p in pairs if rng.random() < density]
        else:  # at most one child each; a C-tree: exactly one, but for its root
            directed = [(a, rng.choice(order[i + 1:])) for i, a in enumerate(order[:-1])
                        if kind is GraphType.C_TREE or rng.random() < density]
    needs_bi = kind in ADMGS
    if (kind is GraphType.UG and not undirected) or (kind is not GraphType.UG and not directed) \
            or (needs_bi and not bidirected):
        return None
    for edges in (directed, bidirected, undirected):
        rng.shuffle(edges)
    flip = [(b, a) if rng.random() < 0.5 else (a, b) for a, b in bidirected]
    swap = [(b, a) if rng.random() < 0.5 else (a, b) for a, b in undirected]
    return Graph(kind, tuple(names), tuple(directed), tuple(flip), tuple(swap))


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


def _walk_text(nodes: Sequence[str], marks: Sequence[str]) -> str:
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


def _rendered(task: Task, item: Any, graph: Graph, rng: random.Random) -> Candidate:
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
def _random_walk(graph: Graph, x: str, y: str | None, rng: random.Random, *,
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
    return _walk_text(nodes, changed)


def _random_candidates(form: Form, graph: Graph, anchors: dict[str, str],
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
            walk = _random_walk(
                graph, x, y, rng, only=("->",) if restrict and task in (
                    Task.DIRECTED_PATH, Task.CYCLE) else (),
                first=("<-", "<->") if restrict and task is Task.BACKDOOR_PATH else ())
            if walk is not None:
                out.append(Candidate.of(_walk_text(*walk)))
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
            walk = _random_walk(graph, x, y, rng)
            if walk is not None and len(walk[1]) >= 2:
                out.append({"p": _walk_text(*walk)})
        return out
    return [{}]


# ---- asking the oracle ----------------------------------------------------------------------
class _Asker:
    """One item's conversation with the oracle (text in, certified answers out)."""

    def __init__(self, service: Service, graph: Graph) -> None:
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
        pool = [_rendered(form.task, item, self.graph, rng) for item in chosen]
        pool += _random_candidates(form, self.graph, anchors, universe, rng)
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


def draw(knobs: GraphKnobs, rng: random.Random, service: Service | None = None
         ) -> dict[str, Any]:
    """One item meeting ``knobs``, drawn with ``rng`` (deterministic in its state);
    ``InputError`` naming the knobs when ``MAX_DRAWS`` graphs gave none.

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
    return _search(knobs, forms, form, target, rng, service or default())


def probe(knobs: GraphKnobs, service: Service | None = None) -> None:
    """``InputError`` naming the knobs when a yes/no target a balanced draw may choose (or
    any item, unbalanced) is not found (searched once each with a fixed seed): an
    infeasible combination fails when a dataset is made, not at the item that asks."""
    knobs.validate()
    forms = knobs.forms()
    for target in ((True, False) if knobs.balanced else (None,)):
        rng = random.Random(0)
        _search(knobs, forms, _form(forms, rng), target, rng, service or default())


def _search(knobs: GraphKnobs, forms: dict[Task, tuple[tuple[QType, ...],
                                                        tuple[GraphType, ...]]],
            form: Form, target: bool | None, rng: random.Random, service: Service
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


__all__ = ["EDGE_CAPS", "FORM_DRAWS", "MAX_DRAWS", "MAX_EDGES", "MAX_NODES", "TASK", "Form",
           "Graph", "GraphKnobs", "draw", "draw_graph", "probe"]
