"""The graph core: one DAG type, one reachability walk, one d-separation walk.

Cross-checks on random DAGs of 2–7 nodes: the Bayes-ball walk of ``oracle.dsep``
against brute-force enumeration of simple paths, against the checker's own
d-separation by moralisation (``oracle.check.Moral``), and against the former
depth-first search for an open path; the witness is a simple path that is really
open.  ``TaskGraph`` and ``Dag`` reachability against networkx.  The shortest
directed path (``directed_path``, ``path_along`` on child masks) against the former
search with a predecessor dict, which the witnesses' paths were written with.
"""

from __future__ import annotations

from collections.abc import Iterator

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from causal_oracle.oracle.check_graphs import Moral
from causal_oracle.oracle.dsep import (
    bayes_ball,
    d_separated,
    independence_set,
    open_path,
    reachable,
    separations,
)
from causal_oracle.oracle.graph import Dag, bits, children_of, directed_path, path_along, reach
from causal_oracle.oracle.tasks.backdoor import check_set, open_trail
from causal_oracle.oracle.tasks.check import check_set_verdict
from causal_oracle.oracle.tasks.model import BackdoorQuestion, TaskGraph

FAST = settings(max_examples=300, deadline=None)


@st.composite
def dags(draw: st.DrawFn, low: int = 2, high: int = 7) -> Dag:
    n = draw(st.integers(low, high))
    order = draw(st.permutations(range(n)))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    keep = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    return Dag.from_edges(n, [(order[i], order[j]) for (i, j), k in zip(pairs, keep,
                                                                         strict=True) if k])


@st.composite
def queries(draw: st.DrawFn) -> tuple[Dag, int, int, int]:
    dag = draw(dags())
    x, y = draw(st.lists(st.integers(0, dag.n - 1), min_size=2, max_size=2, unique=True))
    others = [v for v in range(dag.n) if v not in (x, y)]
    given = sum(1 << v for v in draw(st.lists(st.sampled_from(others), unique=True))
                ) if others else 0
    return dag, x, y, given


def _simple_paths(dag: Dag, x: int, y: int) -> Iterator[list[int]]:
    kids = dag.children()

    def extend(path: list[int]) -> Iterator[list[int]]:
        v = path[-1]
        if v == y:
            yield list(path)
            return
        for w in bits((dag.parents[v] | kids[v]) & ~sum(1 << u for u in path)):
            yield from extend([*path, w])

    yield from extend([x])


def _is_open(dag: Dag, path: list[int], given: int) -> bool:
    """The definition, read literally: every collider in An(Z), no non-collider in Z."""
    an_given = given
    for v in bits(given):
        an_given |= dag.ancestors(v)
    if any(not (dag.has_edge(a, b) or dag.has_edge(b, a)) for a, b in zip(path, path[1:],
                                                                          strict=False)):
        return False
    for u, m, w in zip(path, path[1:], path[2:], strict=False):
        collider = dag.has_edge(u, m) and dag.has_edge(w, m)
        if collider and not an_given >> m & 1:
            return False
        if not collider and given >> m & 1:
            return False
    return True


def _dfs_open_path(dag: Dag, x: int, y: int, given: int) -> list[int] | None:
    """The former ``dsep.open_path``: depth-first search over simple paths."""
    return next((p for p in _simple_paths(dag, x, y) if _is_open(dag, p, given)), None)


@FAST
@given(queries())
def test_d_separation_agrees_with_brute_force_and_moralisation(query: tuple) -> None:
    dag, x, y, z = query
    brute = _dfs_open_path(dag, x, y, z) is None
    assert d_separated(dag, x, y, z) == brute
    assert d_separated(dag, y, x, z) == brute
    assert Moral(dag.n, dag.parents).separated(x, y, z) == brute
    assert (not reachable(dag, x, z) >> y & 1) == brute


@FAST
@given(queries())
def test_witness_is_a_simple_open_path(query: tuple) -> None:
    dag, x, y, z = query
    path = open_path(dag, x, y, z)
    if d_separated(dag, x, y, z):
        assert path is None
        return
    assert path is not None
    assert path[0] == x and path[-1] == y
    assert len(set(path)) == len(path)
    assert _is_open(dag, path, z)


@FAST
@given(dags(), st.data())
def test_reachable_is_the_set_of_open_path_ends(dag: Dag, data: st.DataObject) -> None:
    x = data.draw(st.integers(0, dag.n - 1))
    z = data.draw(st.integers(0, (1 << dag.n) - 1)) & ~(1 << x)
    want = 0
    for y in range(dag.n):
        if y != x and _dfs_open_path(dag, x, y, z) is not None:
            want |= 1 << y
    assert reachable(dag, x, z) == want
    previous: dict = {}
    assert bayes_ball(dag, x, z, previous=previous) == bayes_ball(dag, x, z)
    up, down = bayes_ball(dag, x, z)
    assert set(previous) == {(v, 0) for v in bits(up)} | {(v, 1) for v in bits(down)}
    stop = data.draw(st.integers(0, (1 << dag.n) - 1))  # a walk told to stop early
    early_up, early_down = bayes_ball(dag, x, z, until=stop, opened=reach(dag.parents, z))
    assert early_up & ~up == 0 and early_down & ~down == 0  # part of the whole walk
    assert bool((early_up | early_down) & stop) == bool((up | down) & stop)


@settings(max_examples=60, deadline=None)
@given(dags(2, 5))
def test_independence_set_and_separations(dag: Dag) -> None:
    moral = Moral(dag.n, dag.parents)
    want = set()
    for x in range(dag.n):
        for y in range(x + 1, dag.n):
            rest = [v for v in range(dag.n) if v not in (x, y)]
            for sub in range(1 << len(rest)):
                z = sum(1 << v for k, v in enumerate(rest) if sub >> k & 1)
                if moral.separated(x, y, z):
                    want.add((x, y, z))
    assert independence_set(dag) == want
    assert set(separations(dag)) == want


def _nx(dag: Dag) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(range(dag.n))
    g.add_edges_from(dag.edges())
    return g


def _mask(nodes: set[int]) -> int:
    return sum(1 << v for v in nodes)


@FAST
@given(dags(1, 7), st.data())
def test_reachability_agrees_with_networkx(dag: Dag, data: st.DataObject) -> None:
    g = _nx(dag)
    graph = TaskGraph(tuple(f"v{i}" for i in range(dag.n)), frozenset(dag.edges()))
    assert graph.dag == dag and graph.parents == dag.parents
    assert graph.children == children_of(dag.parents)
    mask = data.draw(st.integers(0, (1 << dag.n) - 1))
    members = set(bits(mask))
    down = set(members)
    up = set(members)
    for v in members:
        down |= nx.descendants(g, v)
        up |= nx.ancestors(g, v)
    assert graph.descendants_of(mask) == dag.descendants_of(mask) == _mask(down)
    assert graph.ancestors_of(mask) == dag.ancestors_of(mask) == _mask(up)
    for v in range(dag.n):  # the per-node forms are strict
        assert dag.descendants(v) == _mask(nx.descendants(g, v))
        assert dag.ancestors(v) == _mask(nx.ancestors(g, v))
    order = graph.topological_order
    assert order is not None and sorted(order) == list(range(dag.n))
    position = {v: i for i, v in enumerate(order)}
    assert all(position[t] < position[h] for t, h in dag.edges())


def _former_path(dag: Dag, source: int, target: int, avoid: int) -> list[int] | None:
    """The former ``directed_path``: breadth first, each node's children ascending, a
    node's predecessor the first that reached it."""
    kids = dag.children()
    previous = {source: -1}
    frontier = [source]
    while frontier:
        found = []
        for v in frontier:
            for w in bits(kids[v]):
                if w in previous or (w != target and avoid >> w & 1):
                    continue
                previous[w] = v
                if w == target:
                    path = [w]
                    while previous[path[-1]] != -1:
                        path.append(previous[path[-1]])
                    return path[::-1]
                found.append(w)
        frontier = found
    return None


@FAST
@given(dags(1, 8), st.data())
def test_the_shortest_path_is_the_former_searchs(dag: Dag, data: st.DataObject) -> None:
    avoid = data.draw(st.integers(0, (1 << dag.n) - 1))
    kids = dag.children()
    for source in range(dag.n):
        for target in range(dag.n):
            for mask in (0, avoid):
                path = directed_path(dag, source, target, mask)
                assert path == path_along(kids, source, target, mask)
                assert path == _former_path(dag, source, target, mask)


def test_cycles() -> None:
    dag = Dag.from_edges(3, [(0, 1), (1, 2), (2, 0)])
    assert not dag.is_acyclic() and dag.topological_order() is None
    assert dag.descendants(0) == 7


@FAST
@given(dags(2, 7), st.data())
def test_backdoor_trails_start_into_the_cause(dag: Dag, data: st.DataObject) -> None:
    graph = TaskGraph(tuple(f"v{i}" for i in range(dag.n)), frozenset(dag.edges()))
    c, e = data.draw(st.lists(st.integers(0, dag.n - 1), min_size=2, max_size=2, unique=True))
    question = BackdoorQuestion(graph, (c,), (e,))
    z = data.draw(st.integers(0, (1 << dag.n) - 1)) & ~(1 << c) & ~(1 << e)
    verdict = check_set(question, z)
    check_set_verdict(question, z, verdict)  # the checker's own reading, incl. the trail
    if verdict.trail is not None:
        trail = verdict.trail
        assert dag.has_edge(trail[1], c) and len(set(trail)) == len(trail)
        cut = graph.without_edges_out_of(c)
        assert open_trail(cut, c, e, z) == trail
        assert _is_open(cut.dag, list(trail), z)
