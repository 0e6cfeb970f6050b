"""CLEAR's question wording: the exact text of every question form, and where it is asked.

CLEAR ("CLEAR: Can Language Models Really Understand Causal Graphs?") asks 20 task types
about a graph in six question types (find all, find one, how many, yes/no, multiple
choice, existence).  A *question form* is a (task, question type, variant) triple —
the variant picks among wordings of one form ("minimal", "maximal", "shortest",
"longest", "not").  ``TEMPLATES`` holds each form's text as the benchmark writes it
(its quirks kept: "How many paths are there from X to Y.", the space before the period
of the d-separation find-one questions), with placeholders ``{x}`` ``{y}`` (the nodes
asked about), ``{p}`` (a path), ``{w}`` (the relation, structure or class word) and
``{s}`` (the yes/no subject).  ``GRAPHS`` says which graph types each task is asked of,
and ``SUPPORT`` both, per task.  Every form here is one ``parser/clear.py`` reads
(option letters and node sets are written as ``entry.families.clear_notation`` says).

    >>> TEMPLATES[(Task.TWO_NODE, QType.YN, "")].format(s="B", w="parents", x="C")
    'Is node B one of parents of node C?'
    >>> [g.value for g in GRAPHS[Task.CYCLE]]
    ['DG']
"""

from __future__ import annotations

import enum

from causal_oracle.oracle.clear.model import QType, Task


class GraphType(enum.Enum):
    """How a graph is drawn and written (CLEAR's ``graph_type`` names)."""

    DAG = "DAG"
    ADMG = "ADMG"
    C_COMPONENT = "C-component"
    C_FOREST = "C-forest"
    C_TREE = "C-tree"
    DG = "DG"
    UG = "UG"


_ALL = tuple(GraphType)
ADMGS = (GraphType.ADMG, GraphType.C_COMPONENT, GraphType.C_FOREST, GraphType.C_TREE)
ACYCLIC = (GraphType.DAG, *ADMGS)
_FA, _FO, _HM, _YN, _MC, _EX = QType.FA, QType.FO, QType.HM, QType.YN, QType.MC, QType.EX

# (task, question type, variant) → CLEAR's wording; {x} {y}: the nodes asked about, {p}: a
# path, {w}: the relation / structure / class words, {s}: the yes/no subject
_PARTITION = ("It can be uniquely partitioned into a set C(G) of subgraphs, each a maximal "
              "C-component.")
TEMPLATES: dict[tuple[Task, QType, str], str] = {
    (Task.NODE, _FA, ""): "List all nodes of this graph.",
    (Task.NODE, _HM, ""): "How many nodes does this graph have?",
    (Task.NODE, _YN, ""): "Is {s} a node of this graph?",
    (Task.NODE, _MC, ""): "Which of the following is a node of this graph?",
    (Task.NODE, _MC, "not"): "Which of the following is NOT a node of this graph?",
    (Task.EDGE, _FA, ""): "List all edges of this graph.",
    (Task.EDGE, _HM, ""): "How many edges does this graph have?",
    (Task.EDGE, _YN, ""): "Is {s} an edge of this graph?",
    (Task.EDGE, _MC, ""): "Which of the following is an edge of this graph?",
    (Task.EDGE, _MC, "not"): "Which of the following is NOT an edge of this graph?",
    (Task.TWO_NODE, _FA, ""): "List all {w} of node {x}.",
    (Task.TWO_NODE, _HM, ""): "How many {w} does node {x} have?",
    (Task.TWO_NODE, _YN, ""): "Is node {s} one of {w} of node {x}?",
    (Task.TWO_NODE, _MC, ""): "Which of the following is one of {w} of node {x}?",
    (Task.TWO_NODE, _EX, ""): "Does node {x} have any {w}?",
    (Task.THREE_NODE, _FA, ""): "List all {w}s of this graph.",
    (Task.THREE_NODE, _HM, ""): "How many {w}s does this graph have?",
    (Task.THREE_NODE, _YN, ""): "Does nodes {s} form a {w} in this graph?",
    (Task.THREE_NODE, _MC, ""): "Which of the following is a {w} of this graph?",
    (Task.THREE_NODE, _EX, ""): "Are there any {w} of this graph?",
    (Task.PATH, _FA, ""): "Find all paths from {x} to {y}.",
    (Task.PATH, _HM, ""): "How many paths are there from {x} to {y}.",
    (Task.PATH, _FO, ""): "Find one path from {x} to {y}.",
    (Task.PATH, _FO, "shortest"): "Find the shortest paths from {x} to {y}.",
    (Task.PATH, _FO, "longest"): "Find the longest paths from {x} to {y}.",
    (Task.PATH, _YN, ""): "Is {s} a path from {x} to {y}?",
    (Task.PATH, _MC, ""): "Which of the following is a path from {x} to {y}?",
    (Task.DIRECTED_PATH, _FA, ""): "Find all directed paths from node {x} to node {y}.",
    (Task.DIRECTED_PATH, _HM, ""): "How many directed paths are there from {x} to {y}?",
    (Task.DIRECTED_PATH, _YN, ""): "Is {s} a directed path from {x} to {y}?",
    (Task.DIRECTED_PATH, _MC, ""): "Which of the following is a directed path from {x} to {y}?",
    (Task.DIRECTED_PATH, _EX, ""): "Is there a directed path from {x} to {y}?",
    (Task.CYCLE, _FO, ""): "Find one cycle in this graph.",
    (Task.CYCLE, _YN, ""): "Is {s} a cycle in this graph?",
    (Task.CYCLE, _MC, ""): "Which of the following is a cycle in this graph?",
    (Task.CYCLE, _EX, ""): "Are there any cycles in this graph?",
    (Task.TOPOLOGICAL, _FO, ""): "Find one valid topological ordering of the graph.",
    (Task.TOPOLOGICAL, _YN, ""): "Is {s} a valid topological ordering of this graph?",
    (Task.TOPOLOGICAL, _MC, ""):
        "Which of the following is a valid topological ordering of this graph?",
    (Task.BLOCKED_PATH, _FO, ""): "Find one valid nodeset that can block path {p}.",
    (Task.BLOCKED_PATH, _FO, "minimal"): "Find the minimal nodeset that can block path {p}.",
    (Task.BLOCKED_PATH, _YN, ""): "Can path {p} be blocked by nodeset {s}?",
    (Task.BLOCKED_PATH, _MC, ""): "Which of the following nodesets can block path {p}?",
    (Task.D_SEPARATION, _FO, ""):
        "Find one valid nodeset that can d-separate node {x} and node {y} .",
    (Task.D_SEPARATION, _FO, "minimal"):
        "Find the minimal nodeset that can d-separate node {x} and node {y} .",
    (Task.D_SEPARATION, _YN, ""): "Are node {x} and node {y} d-separated by nodeset {s}?",
    (Task.D_SEPARATION, _MC, ""):
        "Which of the following nodesets can d-separate node {x} and node {y}?",
    (Task.MARKOV_BLANKET, _FO, ""): "What is the markov blanket of node {x}?",
    (Task.MARKOV_BLANKET, _YN, ""): "Is {s} the markov blanket of node {x}?",
    (Task.MARKOV_BLANKET, _MC, ""): "Which of the following is the markov blanket of node {x}?",
    (Task.MARKOV_EQUIVALENT, _FO, ""):
        "Find another graph that belongs to the same Markov Equivalent Class of the given graph.",
    (Task.MARKOV_EQUIVALENT, _YN, ""):
        "Given another DAG with {s}, do these two graphs belong to the same {w}?",
    (Task.BACKDOOR_PATH, _FA, ""): "Find all backdoor paths from node {x} to node {y}.",
    (Task.BACKDOOR_PATH, _HM, ""): "How many backdoor paths are from node {x} to node {y}.",
    (Task.BACKDOOR_PATH, _FO, "shortest"):
        "Find the shortest backdoor path from node {x} to node {y}.",
    (Task.BACKDOOR_PATH, _FO, "longest"):
        "Find the longest backdoor path from node {x} to node {y}.",
    (Task.BACKDOOR_PATH, _YN, ""): "Is {s} a backdoor path from {x} to {y}?",
    (Task.BACKDOOR_PATH, _MC, ""): "Which of the following is a backdoor path from {x} to {y}?",
    (Task.C_COMPONENT, _FA, ""): _PARTITION + " Write down such partition of the given graph.",
    (Task.C_COMPONENT, _HM, ""): _PARTITION + " How many subgraphs are there in C(G)?",
    (Task.C_COMPONENT, _YN, ""): "Is it a C-component?",
    (Task.C_TREE, _YN, ""): "Is it a C-tree?",
    (Task.C_FOREST, _YN, ""): "Is it a C-forest?",
    (Task.ROOT_SET, _FA, ""): "Find the maximal root set of this graph.",
    (Task.ROOT_SET, _HM, ""): "How many nodes are there in the maximal root set of this graph?",
    (Task.ROOT_SET, _YN, ""): "Is {s} the maximal root set of this graph?",
    (Task.ROOT_SET, _MC, ""):
        "Which of the following options is the maximal root set of this graph?",
    (Task.IDENTIFICATION, _YN, ""):
        "Can the causal effect of treatment {x} on outcome {y} be identified or not?",
}
for _kind in ("backdoor", "frontdoor"):
    _task = Task.BACKDOOR_SET if _kind == "backdoor" else Task.FRONTDOOR_SET
    _for = "adjustment set for treatment {x} and outcome {y}"
    TEMPLATES.update({
        (_task, _FO, ""): f"Find one valid {_kind} {_for}.",
        (_task, _FO, "minimal"): f"Find one minimal valid {_kind} {_for}.",
        (_task, _FO, "maximal"): f"Find one maximal valid {_kind} {_for}.",
        (_task, _YN, ""): f"Is {{s}} a valid {_kind} {_for}?",
        (_task, _MC, ""): f"Which of the following sets is a valid {_kind} {_for}?",
        (_task, _EX, ""): f"Does there exist a valid {_kind} {_for}?",
    })

#: the words a task's questions vary over (the solver's ``variant`` for 2- and 3-node tasks)
WORDS: dict[Task, tuple[str, ...]] = {
    Task.TWO_NODE: ("parents", "children", "ancestors", "descendants"),
    Task.THREE_NODE: ("fork", "chain", "v-structure"),
    Task.MARKOV_EQUIVALENT: ("markov equivalent class", "Markov Equivalent Class"),
}

#: per task type, the graph types it is asked of (its question types: ``TEMPLATES``)
GRAPHS: dict[Task, tuple[GraphType, ...]] = {
    Task.NODE: _ALL, Task.EDGE: _ALL, Task.TWO_NODE: ACYCLIC, Task.THREE_NODE: ACYCLIC,
    Task.PATH: ACYCLIC, Task.DIRECTED_PATH: ACYCLIC, Task.CYCLE: (GraphType.DG,),
    Task.TOPOLOGICAL: ACYCLIC, Task.BLOCKED_PATH: ACYCLIC, Task.D_SEPARATION: ACYCLIC,
    Task.MARKOV_BLANKET: (GraphType.DAG,), Task.MARKOV_EQUIVALENT: (GraphType.DAG,),
    Task.BACKDOOR_PATH: ACYCLIC, Task.BACKDOOR_SET: ACYCLIC, Task.FRONTDOOR_SET: ACYCLIC,
    Task.C_COMPONENT: ADMGS, Task.C_TREE: ADMGS, Task.C_FOREST: ADMGS,
    Task.ROOT_SET: ADMGS, Task.IDENTIFICATION: ADMGS,
}

#: per task type: (its question types, its graph types), as ``TEMPLATES`` and ``GRAPHS`` say
SUPPORT: dict[Task, tuple[tuple[QType, ...], tuple[GraphType, ...]]] = {
    task: (tuple(q for q in QType if any(k[:2] == (task, q) for k in TEMPLATES)), graphs)
    for task, graphs in GRAPHS.items()}

TASK_TYPES = tuple(t.value for t in SUPPORT)
QUESTION_TYPES = tuple(q.value for q in QType)
GRAPH_TYPES = tuple(g.value for g in GraphType)

__all__ = ["ACYCLIC", "ADMGS", "GRAPHS", "GRAPH_TYPES", "QUESTION_TYPES", "SUPPORT",
           "TASK_TYPES", "TEMPLATES", "WORDS", "GraphType"]
