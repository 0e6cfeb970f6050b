"""Claims about DAGs rendered in the words models use, their truth computed by networkx.

The reasoning corpus (``tests/data/reasoning/make_corpus.py``) and the property tests
(``tests/test_reasoning.py``) write sentences about an item's graph — several
paraphrases per kind, names written as models write them (plain, quoted, "node X") —
and decide each one here with networkx, independently of ``oracle.reasoning``: a
claim about a class is true when it holds in every member, false in none,
``not_decidable`` otherwise.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import networkx as nx

Truth = Callable[[nx.DiGraph, tuple[str, ...], tuple[str, ...]], bool]

#: kind → (positive templates, negative templates, arity, truth); {x} {y} {z} are names,
#: {given} " given Z" or ""
KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...], int, Truth]] = {
    "edge": (("{x} directly causes {y}.", "{x} -> {y}.", "{x} is a parent of {y}.",
              "{y} is a child of {x}.", "There is an edge from {x} to {y}.",
              "{x} causes {y} directly."),
             ("{x} does not directly cause {y}.", "{x} is not a parent of {y}.",
              "There is no edge from {x} to {y}.", "{x} is not a direct cause of {y}."),
             2, lambda g, v, z: g.has_edge(v[0], v[1])),
    "adjacent": (("{x} and {y} are adjacent.", "There is an edge between {x} and {y}."),
                 ("{x} and {y} are not adjacent.", "There is no edge between {x} and {y}.",
                  "{x} and {y} are non-adjacent."),
                 2, lambda g, v, z: g.has_edge(v[0], v[1]) or g.has_edge(v[1], v[0])),
    "cause": (("{x} causes {y}.", "{x} is a cause of {y}.", "{x} is an ancestor of {y}.",
               "{y} is a descendant of {x}.", "There is a directed path from {x} to {y}.",
               "{y} is caused by {x}.", "{x} is the cause of {y}."),
              ("{x} does not cause {y}.", "{x} is not a cause of {y}.",
               "{y} is not a descendant of {x}.", "{x} isn't the cause of {y}.",
               "There is no directed path from {x} to {y}."),
              2, lambda g, v, z: nx.has_path(g, v[0], v[1])),
    "independence": (("{x} is independent of {y}{given}.",
                      "{x} and {y} are independent{given}.",
                      "{x} and {y} are d-separated{given}."),
                     ("{x} and {y} are dependent{given}.",
                      "{x} is not independent of {y}{given}.",
                      "{x} and {y} are not d-separated{given}."),
                     2, lambda g, v, z: nx.is_d_separator(g, {v[0]}, {v[1]}, set(z))),
    "collider": (("{z} is a collider between {x} and {y}.",
                  "{z} is a common child of {x} and {y}."),
                 ("{z} is not a collider between {x} and {y}.",),
                 3, lambda g, v, z: g.has_edge(v[0], v[2]) and g.has_edge(v[1], v[2])),
    "mediator": (("{z} is a mediator between {x} and {y}.", "{x} causes {y} through {z}.",
                  "{z} mediates the effect of {x} on {y}."),
                 ("{z} is not a mediator between {x} and {y}.",),
                 3, lambda g, v, z: nx.has_path(g, v[0], v[2]) and nx.has_path(g, v[2], v[1])),
    "confounder": (("{z} is a common cause of {x} and {y}.",
                    "{z} is a confounder of {x} and {y}."),
                   ("{z} is not a common cause of {x} and {y}.",
                    "{z} is not a confounder of {x} and {y}."),
                   3, lambda g, v, z: nx.has_path(g, v[2], v[0]) and nx.has_path(g, v[2], v[1])),
}
#: the kind ``oracle.reasoning`` reads each corpus kind as
READ_AS = {"independence": ("independence", "d_separation"), "edge": ("edge",),
           "adjacent": ("adjacent",), "cause": ("cause",), "collider": ("collider",),
           "mediator": ("mediator",), "confounder": ("confounder",)}


def written(name: str, style: int) -> str:
    """A name as models write it: plain, quoted, after "node", lower-cased (long names)."""
    if style == 1:
        return f"'{name}'"
    if style == 2:
        return f"node {name}"
    if style == 3 and len(name) > 1:
        return name.lower()
    return name


def truth(graphs: Sequence[nx.DiGraph], kind: str, v: tuple[str, ...],
          given: tuple[str, ...] = ()) -> str:
    """``true``, ``false`` or ``not_decidable`` for the positive form over ``graphs``."""
    test = KINDS[kind][3]
    results = {bool(test(g, v, given)) for g in graphs}
    return "not_decidable" if len(results) > 1 else "true" if results == {True} else "false"


def sentence(kind: str, v: tuple[str, ...], positive: bool, rng: random.Random,
             given: tuple[str, ...] = (), style: int = 0) -> str:
    templates = KINDS[kind][0 if positive else 1]
    text = rng.choice(templates)
    names = [written(n, style) for n in v]
    cond = f" given {' and '.join(written(n, style) for n in given)}" if given else ""
    slots = {"x": names[0], "y": names[1], "z": names[2] if len(names) > 2 else "",
             "given": cond}
    text = text.format(**slots)
    return text[0].upper() + text[1:] if text[0].islower() and style != 3 else text


def digraphs(names: Sequence[str], edge_lists: Sequence[Sequence[tuple[int, int]]]
             ) -> list[nx.DiGraph]:
    out = []
    for edges in edge_lists:
        g = nx.DiGraph()
        g.add_nodes_from(names)
        g.add_edges_from((names[a], names[b]) for a, b in edges)
        out.append(g)
    return out


def variables(names: Sequence[str], kind: str, rng: random.Random) -> tuple[str, ...]:
    return tuple(rng.sample(list(names), KINDS[kind][2]))
