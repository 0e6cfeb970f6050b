"""The one mixed-graph type (``oracle.mixed_graph``) against networkx on random graphs."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from causal_oracle.oracle.errors import InputError
from causal_oracle.oracle.mixed_graph import MixedGraph

NAMES = "QWERTY"


@st.composite
def graphs(draw: st.DrawFn) -> MixedGraph:
    n = draw(st.integers(1, len(NAMES)))
    names = NAMES[:n]
    pairs = [(a, b) for a in names for b in names if a != b]
    directed = draw(st.lists(st.sampled_from(pairs), max_size=8)) if pairs else []
    bidirected = draw(st.lists(st.sampled_from(pairs), max_size=4)) if pairs else []
    undirected = draw(st.lists(st.sampled_from(pairs), max_size=3)) if pairs else []
    return MixedGraph.build(names, directed, bidirected, undirected)


def _digraph(g: MixedGraph) -> nx.DiGraph:
    out = nx.DiGraph()
    out.add_nodes_from(g.names)
    out.add_edges_from(g.directed)
    return out


@settings(max_examples=150, deadline=None)
@given(graphs(), st.data())
def test_queries_agree_with_networkx(g: MixedGraph, data: st.DataObject) -> None:
    d = _digraph(g)
    keep = data.draw(st.integers(0, g.full))
    picked = set(g.named(keep))
    for v in g.names:
        bit = g.mask([v])
        on_cycle = any(v in c for c in nx.simple_cycles(d))
        assert set(g.named(g.ancestors(bit))) == nx.ancestors(d, v) | ({v} if on_cycle else set())
        assert set(g.named(g.descendants(bit))) == nx.descendants(d, v) | (
            {v} if on_cycle else set())
        assert set(g.named(g.parents(bit))) == set(d.predecessors(v))
        assert set(g.named(g.children(bit))) == set(d.successors(v))
    assert g.is_acyclic() == nx.is_directed_acyclic_graph(d)

    sub = d.subgraph(picked)
    target = data.draw(st.integers(0, g.full)) & keep
    expected = set(g.named(target)).union(*(nx.ancestors(sub, v) for v in g.named(target)))
    assert set(g.named(g.ancestors_of(target, keep))) == expected

    bi = nx.Graph()
    bi.add_nodes_from(picked)
    bi.add_edges_from(e for e in g.bidirected_edges() if set(e) <= picked)
    assert {frozenset(g.named(c)) for c in g.districts(keep)} == {
        frozenset(c) for c in nx.connected_components(bi)}
    lows = [c & -c for c in g.districts(keep)]
    assert lows == sorted(lows)


@settings(max_examples=100, deadline=None)
@given(graphs(), st.data())
def test_sub_graphs_keep_the_edges_they_should(g: MixedGraph, data: st.DataObject) -> None:
    keep = data.draw(st.integers(0, g.full))
    picked = set(g.named(keep))
    h = g.induced(keep)
    assert h.names == tuple(v for v in g.names if v in picked)
    assert h.directed == {e for e in g.directed if set(e) <= picked}
    assert h.bidirected == {e for e in g.bidirected if e <= picked}
    assert h.undirected == {e for e in g.undirected if e <= picked}
    cut = g.cut_into(keep)
    assert cut.directed == {(a, b) for a, b in g.directed if b not in picked}
    assert cut.bidirected == {e for e in g.bidirected if not e & picked}
    assert cut.undirected == g.undirected
    out = g.cut_out_of(keep)
    assert out.directed == {(a, b) for a, b in g.directed if a not in picked}
    assert out.bidirected == g.bidirected


def test_names_keep_their_written_order_and_unknown_names_are_input_errors() -> None:
    g = MixedGraph.build("ZYX", [("Z", "X")], [("Y", "X")], [("Z", "Y")])
    assert g.names == ("Z", "Y", "X")
    assert g.directed_edges() == [("Z", "X")] and g.bidirected_edges() == [("Y", "X")]
    assert g.undirected_edges() == [("Z", "Y")]
    assert g.adjacent(0, 1) and g.adjacent(1, 2) and g.adjacent(2, 0)
    assert g.named(g.mask("XZ")) == ("Z", "X")
    with pytest.raises(InputError, match="not a vertex"):
        g.mask(["W"])
    with pytest.raises(InputError, match="not a vertex"):
        MixedGraph.build("AB", [("A", "C")])
    assert MixedGraph.build("AB", [("A", "B")]) == MixedGraph.build("AB", [("A", "B")])
    assert MixedGraph.build("AB", [("A", "B")]) != MixedGraph.build("BA", [("A", "B")])


def test_both_families_graphs_are_the_one_type() -> None:
    from causal_oracle.oracle.calm.model import CalmGraph
    from causal_oracle.oracle.clear.model import GraphKind
    from causal_oracle.oracle.clear.model import MixedGraph as ClearGraph

    assert CalmGraph is MixedGraph
    g = ClearGraph.build(GraphKind.ADMG, "XMY", directed=[("X", "M"), ("M", "Y")],
                         bidirected=[("X", "Y")])
    assert isinstance(g, MixedGraph) and g.nodes == g.names == ("X", "M", "Y")
    assert [g.named(d) for d in g.districts()] == [("X", "Y"), ("M",)]
    assert g.induced(g.mask("XY")).kind is GraphKind.ADMG


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_markov_equivalence_does_not_depend_on_the_node_numbering(data: st.DataObject) -> None:
    """The mask comparison (same numbering) and the name comparison (a reply's graph may
    list its nodes in another order) agree with each other and with the definition."""
    from causal_oracle.oracle.clear.equivalence import markov_equivalent
    from causal_oracle.oracle.clear.model import GraphKind
    from causal_oracle.oracle.clear.model import MixedGraph as ClearGraph

    n = data.draw(st.integers(2, 5))
    names = NAMES[:n]
    pairs = [(names[i], names[j]) for i in range(n) for j in range(i + 1, n)]
    edges = data.draw(st.lists(st.sampled_from(pairs), unique=True, max_size=6))
    flips = data.draw(st.lists(st.booleans(), min_size=len(edges), max_size=len(edges)))
    other = [(b, a) if f else (a, b) for (a, b), f in zip(edges, flips, strict=True)]
    g = ClearGraph.build(GraphKind.DAG, names, directed=edges)
    h = ClearGraph.build(GraphKind.DAG, names, directed=other)
    h_renamed = ClearGraph.build(GraphKind.DAG, names[::-1], directed=other)

    def vs(graph: ClearGraph) -> set[tuple[str, frozenset[str]]]:
        d = nx.DiGraph(list(graph.directed))
        skeleton = {frozenset(e) for e in graph.directed}
        return {(m, frozenset((a, b))) for m in d for a in d.predecessors(m)
                for b in d.predecessors(m) if a < b and frozenset((a, b)) not in skeleton}

    expected = nx.is_directed_acyclic_graph(nx.DiGraph(other)) and vs(g) == vs(h)
    assert markov_equivalent(g, h) == markov_equivalent(g, h_renamed) == expected
