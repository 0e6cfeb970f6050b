"""Certificates: the evidence behind an answer, in plain data.

A certificate is JSON-serialisable and names variables by index into the
premise's variable list.  It is what ``oracle.check`` re-verifies without
trusting any solver:

* ``entailment`` / ``contradiction``: ``members`` lists every DAG of the class
  (edge lists) and ``witnesses[i]`` the relation's witness in member ``i`` (or
  ``None`` where it fails);
* for a class too large to list (``complete`` false): ``entailment`` /
  ``contradiction`` carry one member (with its witness, or ``None``) and the
  CPDAG; the checker re-derives with its own solver that no member of the class
  (skeleton and v-structures of that member) refutes the verdict;
* ``neutral``: ``members`` holds one DAG where the relation holds (with its
  witness) and one where it fails, each reproducing the premise exactly;
* ``inconsistent``: ``conflict`` names the failing statement; for conflicts found
  by checking a candidate DAG, ``candidate`` is that DAG.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

Edge = tuple[int, int]


@dataclass(frozen=True, slots=True)
class ConflictEvidence:
    kind: str
    message: str
    triple: tuple[int, int, int] | None = None
    path: tuple[int, ...] | None = None
    candidate: tuple[Edge, ...] | None = None


@dataclass(frozen=True, slots=True)
class Certificate:
    verdict: str  # entailment | contradiction | neutral | inconsistent
    profile: str
    relation: str  # RelationKind value
    form: str  # SurfaceForm value
    pair: tuple[int, int]
    class_size: int
    cpdag_directed: tuple[Edge, ...] = ()
    cpdag_undirected: tuple[Edge, ...] = ()
    members: tuple[tuple[Edge, ...], ...] = ()
    witnesses: tuple[tuple[tuple[int, ...], ...] | None, ...] = ()
    conflict: ConflictEvidence | None = None
    #: ``members`` is the whole class (False: a class too large to list, decided by SAT)
    complete: bool = True
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def to_json(self, names: tuple[str, ...] | None = None) -> dict[str, Any]:
        """The certificate as JSON data; with ``names``, variables by name, not index."""
        if names is None:
            def node(v: int) -> Any:
                return v
        else:
            def node(v: int) -> Any:
                return names[v]

        def edge(e: Edge) -> list[Any]:
            return [node(e[0]), node(e[1])]

        data: dict[str, Any] = {
            "verdict": self.verdict, "profile": self.profile, "relation": self.relation,
            "form": self.form, "pair": [node(v) for v in self.pair],
            "class_size": self.class_size,
            "cpdag_directed": [edge(e) for e in self.cpdag_directed],
            "cpdag_undirected": [edge(e) for e in self.cpdag_undirected],
            # the bulk of a listed class's certificate: one comprehension, no call per edge
            "members": ([[[a, b] for a, b in m] for m in self.members] if names is None else
                        [[[names[a], names[b]] for a, b in m] for m in self.members]),
            "witnesses": [None if w is None else [[node(v) for v in path] for path in w]
                          for w in self.witnesses],
            "conflict": None,
        }
        if not self.complete:  # only then, so listed certificates keep their shape
            data["complete"] = False
        c = self.conflict
        if c is not None and names is None:
            data["conflict"] = asdict(c)
        elif c is not None and names is not None:
            data["conflict"] = {
                "kind": c.kind, "message": c.message,
                "statement": None if c.triple is None else {
                    "x": names[c.triple[0]], "y": names[c.triple[1]],
                    "given": [names[i] for i in range(len(names)) if c.triple[2] >> i & 1]},
                "path": None if c.path is None else [names[v] for v in c.path],
                "candidate": None if c.candidate is None else [edge(e) for e in c.candidate],
            }
        return data
