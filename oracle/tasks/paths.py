"""Causal paths (CP): every directed path from each cause to each effect.

A *directed path* from ``c`` to ``e`` in a DAG is a sequence of distinct
variables ``c = v0 → v1 → … → vk = e`` where each ``v(i) → v(i+1)`` is an edge.
In ``a → b → c`` with ``a → c`` there are two paths from ``a`` to ``c``:
``a → b → c`` and ``a → c``.  CP asks for all of them, for every (cause,
effect) pair; the correct answer is exactly that set (possibly empty, "None").

Because the graph is acyclic, a depth-first search that only follows edges to
variables from which the effect is reachable enumerates each path once and
never dead-ends.  The certificate is the list itself: the checker re-enumerates
the paths with its own search (``oracle.tasks.check``).

Public function: ``causal_paths``.
"""

from __future__ import annotations

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.errors import BudgetExceeded
from causal_oracle.oracle.tasks.model import PathsAnswer, PathsQuestion, TaskGraph, bits

MAX_PATHS = 100_000  # a complete 24-node DAG has 2**22 paths from first to last: refuse


def paths_between(graph: TaskGraph, source: int, target: int) -> list[tuple[int, ...]]:
    """All directed paths ``source ⇝ target`` (each a tuple of indices), in DFS order.

    >>> g = TaskGraph(("a", "b", "c"), frozenset({(0, 1), (1, 2), (0, 2)}))
    >>> paths_between(g, 0, 2)
    [(0, 1, 2), (0, 2)]
    """
    if source == target:
        return []
    useful = graph.ancestors_of(1 << target)  # variables that can still reach the target
    if not useful >> source & 1:
        return []
    out: list[tuple[int, ...]] = []
    stack: list[tuple[int, tuple[int, ...]]] = [(source, (source,))]
    while stack:
        checkpoint()
        node, path = stack.pop()
        if node == target:
            out.append(path)
            if len(out) > MAX_PATHS:
                raise BudgetExceeded(f"more than {MAX_PATHS:,} causal paths between "
                                     f"{graph.names[source]!r} and {graph.names[target]!r}")
            continue
        for child in reversed(bits(graph.children[node] & useful)):
            stack.append((child, (*path, child)))
    return out


def causal_paths(question: PathsQuestion) -> PathsAnswer:
    """All directed paths from each cause to each effect (pairs in question order).

    >>> g = TaskGraph(("a", "b", "c"), frozenset({(0, 1), (1, 2)}))
    >>> causal_paths(PathsQuestion(g, (0,), (2,))).paths
    ((0, 1, 2),)
    """
    found: list[tuple[int, ...]] = []
    for c in question.causes:
        for e in question.effects:
            found.extend(paths_between(question.graph, c, e))
            if len(found) > MAX_PATHS:
                raise BudgetExceeded(f"more than {MAX_PATHS:,} causal paths in all")
    return PathsAnswer(tuple(found))
