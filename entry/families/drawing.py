"""Graphs as Graphviz DOT: what a family's ``dot`` hook draws with.

A family whose questions are about a graph (CI-Bench, IE, CLEAR, CLadder; Corr2Cause
draws its CPDAG with ``oracle.explain``) hands ``digraph`` the graph's nodes and edges
and the parts that decide the answer — a path, an adjustment set, the nodes a question
names — which are drawn in red.  Names are quoted for DOT whatever they contain, so a
variable called ``a "b"`` or ``x -> y`` is still one node.

    >>> print(digraph("g", ("A", "B"), [("A", "B")], marked_edges={("A", "B")},
    ...               title="does A cause B?"))
    digraph g {
      rankdir=LR; node [shape=circle]; labelloc=t;
      label="does A cause B?";
      "A";
      "B";
      "A" -> "B" [color="red" penwidth=2];
    }
"""

from __future__ import annotations

from collections.abc import Collection, Iterable


def quoted(name: str) -> str:
    """``name`` as a DOT string id."""
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


_MARK = 'color="red" penwidth=2'


def digraph(graph_id: str, nodes: Iterable[str], directed: Iterable[tuple[str, str]], *,
            bidirected: Iterable[tuple[str, str]] = (),
            undirected: Iterable[tuple[str, str]] = (),
            marked_nodes: Collection[str] = (), marked_edges: Collection[tuple[str, str]] = (),
            hidden: Collection[str] = (), title: str = "") -> str:
    """The graph in DOT: ``directed`` edges as arrows, ``bidirected`` as two-headed dashed
    arrows, ``undirected`` as plain lines; ``marked_*`` in red; ``hidden`` (unobserved)
    nodes dashed."""
    out = [f"digraph {graph_id} {{", "  rankdir=LR; node [shape=circle]; labelloc=t;"]
    if title:
        out.append(f"  label={quoted(title)};")
    for node in nodes:
        style = [_MARK] if node in marked_nodes else []
        if node in hidden:
            style.append("style=dashed")
        out.append(f"  {quoted(node)}" + (f" [{' '.join(style)}]" if style else "") + ";")
    for a, b in directed:
        mark = f" [{_MARK}]" if (a, b) in marked_edges else ""
        out.append(f"  {quoted(a)} -> {quoted(b)}{mark};")
    for a, b in bidirected:
        out.append(f"  {quoted(a)} -> {quoted(b)} [dir=both style=dashed];")
    for a, b in undirected:
        out.append(f"  {quoted(a)} -> {quoted(b)} [dir=none];")
    out.append("}")
    return "\n".join(out)


def path_edges(paths: Iterable[Iterable[str]]) -> set[tuple[str, str]]:
    """The edges along each path (a sequence of node names)."""
    edges: set[tuple[str, str]] = set()
    for path in paths:
        names = list(path)
        edges.update(zip(names, names[1:], strict=False))
    return edges


__all__ = ["digraph", "path_edges", "quoted"]
