"""Write ``sample.json``: Corr2Cause++-format items made by this project (the real
dataset's licence is unknown, so none of its items are copied).

Independent of the oracle: every DAG on 4 nodes is listed with networkx, DAGs are
grouped by their complete set of d-separations (the Markov equivalence classes),
the compelled edges are those with one orientation in every member, and each label
is the relation read in the graph of compelled edges — how the dataset's generator
labels (parent, child, ancestor and not parent, common child, common parent).
Run: ``python tests/data/corr2causepp/make_fixture.py``.
"""

from __future__ import annotations

import json
import random
from itertools import combinations, product
from pathlib import Path

import networkx as nx

NAMES = ["W", "Z", "V", "U"]


def dags() -> list[frozenset[tuple[int, int]]]:
    pairs = list(combinations(range(4), 2))
    out = []
    for choice in product((0, 1, 2), repeat=len(pairs)):
        edges = [(a, b) if c == 1 else (b, a) for (a, b), c in zip(pairs, choice, strict=True)
                 if c]
        g = nx.DiGraph(edges)
        g.add_nodes_from(range(4))
        if nx.is_directed_acyclic_graph(g):
            out.append(frozenset(edges))
    return out


CI = tuple[int, int, tuple[int, ...]]


def independences(edges: frozenset[tuple[int, int]]) -> tuple[CI, ...]:
    g = nx.DiGraph(list(edges))
    g.add_nodes_from(range(4))
    out = []
    for a, b in combinations(range(4), 2):
        rest = [v for v in range(4) if v not in (a, b)]
        for k in range(len(rest) + 1):
            for given in combinations(rest, k):
                if nx.is_d_separator(g, {a}, {b}, set(given)):
                    out.append((a, b, given))
    return tuple(out)


def premise(cis: tuple[CI, ...]) -> str:
    parts = []
    for a, b, given in cis:
        text = f"{NAMES[a]} indep {NAMES[b]}"
        if given:
            text += " | " + ", ".join(NAMES[g] for g in given)
        parts.append(text)
    return ("Suppose there is a closed system of 4 variables, W, Z, V, and U, whose causal "
            "structure forms a directed acyclic graph and satisfies faithfulness. All the "
            "conditional independence relations are: " + "; ".join(parts) + ".")


def relation(g: nx.DiGraph, kind: str, p: int, q: int) -> bool:
    if kind == "parent":
        return bool(g.has_edge(p, q))
    if kind == "child":
        return bool(g.has_edge(q, p))
    if kind == "non-parent ancestor":
        return bool(nx.has_path(g, p, q)) and not g.has_edge(p, q)
    if kind == "common child":
        return bool(set(g.successors(p)) & set(g.successors(q)))
    return bool(set(g.predecessors(p)) & set(g.predecessors(q)))


TEMPLATES = {
    "parent": "{p} directly affects {q}.",
    "child": " {p} is directly affected by {q}.",
    "non-parent ancestor": "{p} influences {q} through some mediator(s) but not directly.",
    "common child": "There exists at least one collider (i.e., a common child) of {p} and {q}.",
    "common parent": "There exists at least one confounder (i.e., a common parent) of {p} and {q}.",
}


def main() -> None:
    rng = random.Random(2024)
    classes: dict[tuple, list[frozenset[tuple[int, int]]]] = {}
    for edges in dags():
        classes.setdefault(independences(edges), []).append(edges)
    items = []
    for cis, members in sorted(classes.items(), key=lambda kv: (len(kv[1]), kv[0])):
        forced = frozenset.intersection(*members)
        g = nx.DiGraph(list(forced))
        g.add_nodes_from(range(4))
        for kind in rng.sample(sorted(TEMPLATES), 2):
            p, q = rng.sample(range(4), 2)
            hyp = TEMPLATES[kind].format(p=NAMES[p], q=NAMES[q])
            items.append({"query": f"Premise:\n{premise(cis)}\n\nHypothesis: {hyp}",
                          "label": int(relation(g, kind, p, q)), "relation_type": kind,
                          "forced_edges": [[NAMES[a], NAMES[b]] for a, b in sorted(forced)]})
    path = Path(__file__).with_name("sample.json")
    path.write_text(json.dumps(items, indent=1) + "\n", encoding="utf-8")
    print(f"{len(items)} items from {len(classes)} classes -> {path}")


if __name__ == "__main__":
    main()
