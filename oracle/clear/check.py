"""Independent checker for CLEAR answers (shares no code with ``oracle.clear``).

The solvers (``oracle.clear.tasks``) decide m-separation by reachability, list paths
by their own depth-first search and identify effects with the ID algorithm.  This
module re-derives every answer another way, on networkx objects:

* paths are ``networkx.all_simple_edge_paths`` of a multigraph whose edges carry
  their kind (directed with its tail, bidirected, undirected);
* a path is blocked by Z by the textbook rule on its colliders;
  m-separation is d-separation (``networkx.is_d_separator``) in the DAG that gives
  each bidirected edge its own hidden parent;
* backdoor and frontdoor sets are checked path by path from their definitions;
* identification is the *hedge* criterion (Shpitser & Pearl 2006): P(y | do(x)) is
  not identified iff there are node sets F ⊂ F′, each one district of its induced
  subgraph, with the same set R of nodes without children inside them,
  R ⊆ An(Y) after cutting the edges into X, F ∩ X = ∅ and F′ ∩ X ≠ ∅ — searched by
  brute force over nested node sets (CLEAR graphs have at most 9 nodes);
* cycles are ``networkx.simple_cycles``; c-components are connected components of
  the bidirected graph.

``check(question, value)`` re-derives FA/HM/YN/EX/MC answers and compares;
``valid(question, item)`` decides one find-one answer.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import networkx as nx

from causal_oracle.oracle.budget import checkpoint
from causal_oracle.oracle.clear.model import Mark, MixedGraph, QType, Question, Task, Walk
from causal_oracle.oracle.memo import memoised


def _dag(g: MixedGraph) -> nx.DiGraph:
    d = nx.DiGraph()
    d.add_nodes_from(g.nodes)
    d.add_edges_from(g.directed)
    return d


def _multi(g: MixedGraph) -> nx.MultiGraph:
    m = nx.MultiGraph()
    m.add_nodes_from(g.nodes)
    for a, b in g.directed:
        m.add_edge(a, b, kind="d", tail=a)
    for e in g.bidirected:
        a, b = sorted(e)
        m.add_edge(a, b, kind="b")
    for e in g.undirected:
        a, b = sorted(e)
        m.add_edge(a, b, kind="u")
    return m


def _text(m: nx.MultiGraph, start: str, edge_path: list[tuple[str, str, int]]) -> str:
    out = start
    here = start
    for u, v, k in edge_path:
        other = v if u == here else u
        data = m.edges[u, v, k]
        if data["kind"] == "b":
            out += "<->" + other
        elif data["kind"] == "u":
            out += "-" + other
        else:
            out += ("->" if data["tail"] == here else "<-") + other
        here = other
    return out


def _all_paths(g: MixedGraph, x: str, y: str) -> list[str]:
    m = _multi(g)
    if x == y:
        return []
    out = []
    for p in nx.all_simple_edge_paths(m, x, y):
        checkpoint()
        out.append(_text(m, x, p))
    return out


def _split(text: str) -> tuple[list[str], list[str]]:
    nodes, marks, name, i = [], [], "", 0
    while i < len(text):
        for mk in ("<->", "->", "<-", "-"):
            if text.startswith(mk, i):
                nodes.append(name)
                marks.append(mk)
                name = ""
                i += len(mk)
                break
        else:
            name += text[i]
            i += 1
    nodes.append(name)
    return nodes, marks


def _path_blocked(d: nx.DiGraph, text: str, z: set[str]) -> bool:
    nodes, marks = _split(text)
    for i in range(1, len(nodes) - 1):
        into_left = marks[i - 1] in ("->", "<->")
        into_right = marks[i] in ("<-", "<->")
        v = nodes[i]
        if into_left and into_right:
            if v not in z and not (nx.descendants(d, v) & z):
                return True
        elif v in z:
            return True
    return False


def _latent(g: MixedGraph) -> nx.DiGraph:
    d = _dag(g)
    for i, e in enumerate(sorted(sorted(e) for e in g.bidirected)):
        d.add_edge(f"_U{i}", e[0])
        d.add_edge(f"_U{i}", e[1])
    return d


def _msep(g: MixedGraph, x: str, y: str, z: set[str]) -> bool:
    return bool(nx.is_d_separator(_latent(g), {x}, {y}, set(z)))


def _backdoor_paths(g: MixedGraph, x: str, y: str) -> list[str]:
    return [p for p in _all_paths(g, x, y) if _split(p)[1][0] in ("<-", "<->")]


def _bd_valid(g: MixedGraph, x: str, y: str, z: frozenset[str]) -> bool:
    d = _dag(g)
    if x in z or y in z or (z & nx.descendants(d, x)):
        return False
    return all(_path_blocked(d, p, set(z)) for p in _backdoor_paths(g, x, y))


def _fd_valid(g: MixedGraph, x: str, y: str, z: frozenset[str]) -> bool:
    d = _dag(g)
    if x in z or y in z:
        return False
    for p in nx.all_simple_paths(d, x, y):
        if not set(p[1:-1]) & z:
            return False
    for v in z:
        if not all(_path_blocked(d, p, set()) for p in _backdoor_paths(g, x, v)):
            return False
        if not all(_path_blocked(d, p, {x}) for p in _backdoor_paths(g, v, y)):
            return False
    return True


def _one_district(g: MixedGraph, nodes: set[str]) -> bool:
    b = nx.Graph()
    b.add_nodes_from(nodes)
    b.add_edges_from(tuple(e) for e in g.bidirected if e <= nodes)
    return nx.is_connected(b) if nodes else False


def _sinks(g: MixedGraph, nodes: set[str]) -> frozenset[str]:
    return frozenset(v for v in nodes if not any(a == v and b in nodes for a, b in g.directed))


def _identified(g: MixedGraph, x: str, y: str) -> bool:
    cut = _dag(g)
    cut.remove_edges_from([(a, b) for a, b in g.directed if b == x])
    an_y = nx.ancestors(cut, y) | {y}
    nodes = list(g.nodes)
    forests = []
    for k in range(1, len(nodes) + 1):
        for combo in combinations(nodes, k):
            checkpoint()
            s = set(combo)
            if _one_district(g, s):
                forests.append((frozenset(s), _sinks(g, s)))
    for big, roots in forests:
        if x not in big or not roots <= an_y:
            continue
        for small, roots2 in forests:
            if roots2 == roots and small < big and x not in small:
                return False
    return True


def _vstructs(d: nx.DiGraph) -> set[tuple[str, frozenset[str]]]:
    out = set()
    for m in d.nodes:
        for a, b in combinations(sorted(d.predecessors(m)), 2):
            if not (d.has_edge(a, b) or d.has_edge(b, a)):
                out.add((m, frozenset((a, b))))
    return out


def _same_mec(g: MixedGraph, h: MixedGraph) -> bool:
    dg, dh = _dag(g), _dag(h)
    if set(dg.nodes) != set(dh.nodes) or not nx.is_directed_acyclic_graph(dh):
        return False
    skel = {frozenset(e) for e in dg.edges}
    return skel == {frozenset(e) for e in dh.edges} and _vstructs(dg) == _vstructs(dh)


def _three(g: MixedGraph, nodes: frozenset[str], kind: str) -> bool:
    d = _dag(g)
    u = _multi(g)
    if len(nodes) != 3 or not nodes <= set(g.nodes):  # a node the graph lacks: no triple
        return False
    for m in nodes:
        a, b = sorted(nodes - {m})
        if u.has_edge(a, b):
            continue
        pa, ch = set(d.predecessors(m)), set(d.successors(m))
        if kind == "fork" and {a, b} <= ch:
            return True
        if kind == "v-structure" and {a, b} <= pa:
            return True
        if kind == "chain" and ((a in pa and b in ch) or (b in pa and a in ch)):
            return True
    return False


def _mb(g: MixedGraph, v: str) -> frozenset[str]:
    d = _dag(g)
    out = set(d.predecessors(v)) | set(d.successors(v))
    for c in d.successors(v):
        out |= set(d.predecessors(c))
    return frozenset(out - {v})


def _relation(g: MixedGraph, variant: str, v: str) -> set[str]:
    d = _dag(g)
    return {"parents": set(d.predecessors(v)), "children": set(d.successors(v)),
            "ancestors": nx.ancestors(d, v), "descendants": nx.descendants(d, v)}[variant]


def _edge_keys(g: MixedGraph) -> set[tuple[str, str, str]]:
    out: set[tuple[str, str, str]] = {(a, "->", b) for a, b in g.directed}
    out |= {(min(e), "<->", max(e)) for e in g.bidirected}
    out |= {(min(e), "-", max(e)) for e in g.undirected}
    return out


def _subsets(items: list[str]) -> list[frozenset[str]]:
    return [frozenset(c) for k in range(len(items) + 1) for c in combinations(items, k)]


@memoised(limit=64)
def _set_universe(q: Question) -> list[frozenset[str]]:
    g, t = q.graph, q.task
    if t is Task.BLOCKED_PATH:
        walk = q.subject[0] if isinstance(q.subject, tuple) else q.subject
        assert isinstance(walk, Walk)
        text, d = str(walk), _dag(g)
        ends = {walk.nodes[0], walk.nodes[-1]}
        ok = [z for z in _subsets([v for v in g.nodes if v not in ends])
              if _path_blocked(d, text, set(z))]
    else:
        x, y = q.names
        test = {Task.D_SEPARATION: lambda z: _msep(g, x, y, set(z)),
                Task.BACKDOOR_SET: lambda z: _bd_valid(g, x, y, z),
                Task.FRONTDOOR_SET: lambda z: _fd_valid(g, x, y, z)}[t]
        ok = [z for z in _subsets([v for v in g.nodes if v not in (x, y)]) if test(z)]
    if q.variant == "minimal":
        ok = [z for z in ok if not any(w < z for w in ok)]
    if q.variant == "maximal":
        ok = [z for z in ok if not any(w > z for w in ok)]
    return ok


def valid_paths(q: Question) -> list[str]:
    """Every valid path (as text) of a path, directed-path or backdoor-path question."""
    return _path_universe(q)


def valid_sets(q: Question) -> list[frozenset[str]]:
    """Every valid node set of a blocked-path, d-separation, backdoor or frontdoor
    question (all subsets tried), for callers that test many candidates."""
    return _set_universe(q)


@memoised(limit=64)
def _path_universe(q: Question) -> list[str]:
    g, t = q.graph, q.task
    x, y = q.names
    paths = _all_paths(g, x, y)
    if t is Task.DIRECTED_PATH:
        paths = [p for p in paths if set(_split(p)[1]) <= {"->"}]
    if t is Task.BACKDOOR_PATH:
        paths = [p for p in paths if _split(p)[1][0] in ("<-", "<->")]
    if q.variant in ("shortest", "longest") and paths:
        lengths = [len(_split(p)[0]) for p in paths]
        best = min(lengths) if q.variant == "shortest" else max(lengths)
        paths = [p for p, n in zip(paths, lengths, strict=True) if n == best]
    return paths


def _cycle_ok(g: MixedGraph, walk: Walk) -> bool:
    nodes = list(walk.nodes)
    if len(nodes) < 3 or nodes[0] != nodes[-1]:
        return False
    marks = {m.value for m in walk.marks}
    if marks == {"<-"}:
        nodes.reverse()
    elif marks != {"->"}:
        return False
    body = nodes[:-1]
    if len(set(body)) != len(body):
        return False
    d = _dag(g)
    for cyc in nx.simple_cycles(d):
        checkpoint()
        if len(cyc) == len(body) and any(cyc[i:] + cyc[:i] == body for i in range(len(cyc))):
            return True
    return False


def valid(q: Question, item: Any) -> bool:
    """Whether ``item`` (canonical, as ``oracle.clear.tasks`` writes items) is a valid
    answer item of the question."""
    g, t, v = q.graph, q.task, q.variant
    if t is Task.NODE:
        return item in set(g.nodes)
    if t is Task.EDGE:
        return item in _edge_keys(g)
    if t is Task.TWO_NODE:
        return item in _relation(g, v, q.names[-1])
    if t is Task.THREE_NODE:
        return isinstance(item, frozenset) and _three(g, item, v)
    if t in (Task.PATH, Task.DIRECTED_PATH, Task.BACKDOOR_PATH):
        return isinstance(item, Walk) and str(item) in _path_universe(q)
    if t is Task.CYCLE:
        return isinstance(item, Walk) and _cycle_ok(g, item)
    if t is Task.TOPOLOGICAL:
        if not isinstance(item, tuple) or sorted(item) != sorted(g.nodes):
            return False
        pos = {n: i for i, n in enumerate(item)}
        return all(pos[a] < pos[b] for a, b in _dag(g).edges)
    if t in (Task.BLOCKED_PATH, Task.D_SEPARATION, Task.BACKDOOR_SET, Task.FRONTDOOR_SET):
        return item in _set_universe(q)
    if t is Task.MARKOV_BLANKET:
        return item == _mb(g, q.names[0])
    if t is Task.ROOT_SET:
        return item == _sinks(g, set(g.nodes))
    if t is Task.C_COMPONENT:
        return item in _components(g)
    if t is Task.MARKOV_EQUIVALENT:  # another graph: not the given one
        return (isinstance(item, MixedGraph) and _same_mec(g, item)
                and set(_dag(item).edges) != set(_dag(g).edges))
    return False


def _components(g: MixedGraph) -> set[frozenset[str]]:
    b = nx.Graph()
    b.add_nodes_from(g.nodes)
    b.add_edges_from(tuple(e) for e in g.bidirected)
    return {frozenset(c) for c in nx.connected_components(b)}


def _universe(q: Question) -> set[Any]:
    g, t = q.graph, q.task
    if t is Task.NODE:
        return set(g.nodes)
    if t is Task.EDGE:
        return _edge_keys(g)
    if t is Task.TWO_NODE:
        return _relation(g, q.variant, q.names[-1])
    if t is Task.THREE_NODE:
        return {frozenset(c) for c in combinations(g.nodes, 3)
                if _three(g, frozenset(c), q.variant)}
    if t in (Task.PATH, Task.DIRECTED_PATH, Task.BACKDOOR_PATH):
        return set(_path_universe(q))
    if t is Task.CYCLE:
        return {tuple(c) for c in nx.simple_cycles(_dag(g))}
    if t in (Task.BLOCKED_PATH, Task.D_SEPARATION, Task.BACKDOOR_SET, Task.FRONTDOOR_SET):
        return set(_set_universe(q))
    if t is Task.C_COMPONENT:
        return _components(g)
    raise ValueError(f"no universe for {t.value}")


def _yes_no(q: Question) -> bool:
    g, t = q.graph, q.task
    allnodes = set(g.nodes)
    if t is Task.C_COMPONENT:
        return _one_district(g, allnodes)
    if t in (Task.C_FOREST, Task.C_TREE):
        forest = _one_district(g, allnodes) and all(
            _dag(g).out_degree(v) <= 1 for v in g.nodes)
        return forest and (t is Task.C_FOREST or len(_sinks(g, allnodes)) == 1)
    if t is Task.IDENTIFICATION:
        return _identified(g, q.names[0], q.names[1])
    if t is Task.TWO_NODE:
        return q.names[0] in _relation(g, q.variant, q.names[1])
    if t is Task.BLOCKED_PATH:
        walk, z = q.subject  # type: ignore[misc]
        return _path_blocked(_dag(g), str(walk), set(z))
    if t is Task.D_SEPARATION:
        return _msep(g, q.names[0], q.names[1], set(q.subject))  # type: ignore[arg-type]
    if t is Task.MARKOV_EQUIVALENT:
        return _same_mec(g, q.subject)  # type: ignore[arg-type]
    return valid(q, _canon(q, q.subject))


def _canon(q: Question, value: Any) -> Any:
    if q.task is Task.EDGE and isinstance(value, Walk) and len(value.marks) == 1:
        a, b = value.nodes
        m = value.marks[0]
        if m is Mark.RIGHT:
            return (a, "->", b)
        if m is Mark.LEFT:
            return (b, "->", a)
        return (min(a, b), m.value, max(a, b))
    if q.task in (Task.NODE, Task.TWO_NODE) and isinstance(value, Walk) and not value.marks:
        return value.nodes[0]
    if q.task is Task.THREE_NODE and isinstance(value, tuple):
        return frozenset(value)
    return value


def check(q: Question, value: Any) -> tuple[bool, str]:
    """Re-derive the answer of a FA/HM/YN/EX/MC question (or, for FO, the validity of
    the example ``value``) and compare with ``value``; returns (ok, why)."""
    t, qt = q.task, q.qtype
    if qt is QType.MC:
        mine = set()
        for letter, option in q.options:
            ok = valid(q, _canon(q, option))
            if ok != (q.variant == "not"):
                mine.add(letter)
        return mine == set(value), f"checker's valid options {sorted(mine)}"
    if qt is QType.YN:
        mine = _yes_no(q)
        return mine == value, f"checker says {'yes' if mine else 'no'}"
    if qt is QType.FO:
        if value is None:
            return True, "no valid answer to check"
        item = value
        if t is Task.CYCLE and isinstance(value, tuple):
            item = Walk((*value, value[0]), tuple(Mark.RIGHT for _ in value))
        return valid(q, item), "checker re-validated the example answer"
    if t is Task.ROOT_SET:
        roots = _sinks(q.graph, set(q.graph.nodes))
        mine: Any = roots if qt is QType.FA else len(roots)
        return mine == value, f"checker's root set {sorted(roots)}"
    universe = _universe(q)
    if qt is QType.FA:
        got = {str(v) if isinstance(v, Walk) else v for v in value}
        return got == universe, f"checker found {len(universe)} items"
    if qt is QType.HM:
        return len(universe) == value, f"checker counted {len(universe)}"
    if qt is QType.EX:
        return bool(universe) == value, f"checker found {len(universe)} items"
    return False, f"unknown question type {qt}"
